"""`ffsite import ...`: foreign formats to ffsite votes files."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from ffsite.base.alpaca_eval import REFERENCE_MODEL
from ffsite.commands.options import SEED, out_option
from ffsite.errors import FfsiteError

if TYPE_CHECKING:  # each importer is imported by its own command, not by `--help`
    from ffsite.importers.result import ImportResult


@click.group(name="import")
def import_group() -> None:
    """Import pairwise data or judge scores into an annotation file."""


def _finish(result: ImportResult, out: str, base_out: str | None) -> None:
    """Write the votes and (with --base-out) their texts: both, or on failure neither."""
    from ffsite._atomic import all_or_nothing
    from ffsite.base.texts import texts_file, write_texts
    from ffsite.format import write_votes

    texts = texts_file(base_out, result.dataset) if base_out else None
    with all_or_nothing(out, *([texts] if texts else [])):
        written = write_votes(result.table, out, default_preference=result.default_preference,
                              annotators=result.annotators)
        if texts:
            write_texts(base_out, result.dataset, result.prompts, result.responses)
    message = f"wrote {out}: {written.num_rows} votes on {written.num_comparisons} comparisons"
    if result.skipped:
        message += " (skipped: " + ", ".join(f"{n} {why}" for why, n in
                                             sorted(result.skipped.items())) + ")"
    click.echo(message)
    if texts:
        click.echo(f"wrote {texts}: {len(result.prompts)} prompts, "
                   f"{len(result.responses)} responses")


def _about(file: str, read: Callable[..., ImportResult], *args: Any) -> ImportResult:
    """`read(*args)`, its errors naming `file` when they do not already."""
    try:
        return read(*args)
    except FfsiteError as exc:
        if type(exc) is not FfsiteError or str(exc).startswith(file):
            raise
        raise FfsiteError(f"{file}: {exc}") from None


_out = out_option("The annotation file to write (.parquet).", required=True)
_dataset = click.option("--dataset", help="Dataset name (default: from the file).")
_base_out = click.option("--base-out", type=click.Path(file_okay=False),
                         help="Also write the texts to this base-data folder.")


@import_group.command("annotated-pairs")
@click.argument("file", type=click.Path(dir_okay=False))
@_out
@_dataset
@_base_out
def annotated_pairs(file: str, out: str, dataset: str | None, base_out: str | None) -> None:
    """Feedback Forensics' AnnotatedPairs JSON (v1 or v2)."""
    from ffsite.importers.annotated_pairs import read_annotated_pairs

    _finish(_about(file, read_annotated_pairs, file, dataset), out, base_out)


@import_group.command("icai-csv")
@click.argument("file", type=click.Path(dir_okay=False))
@_out
@_dataset
@_base_out
def icai_csv(file: str, out: str, dataset: str | None, base_out: str | None) -> None:
    """ICAI CSV: text_a, text_b, preferred_text (+ model_a, model_b, prompt)."""
    from ffsite.importers.icai_csv import read_icai_csv

    _finish(_about(file, read_icai_csv, file, dataset), out, base_out)


_seed = click.option("--seed", type=SEED, default=0, show_default=True,
                     help="Seed of the coin flip that puts each comparison's responses on "
                     "sides A and B.")


@import_group.command("alpaca-eval")
@click.argument("folder", type=click.Path(file_okay=False))
@click.option("--reference", default=REFERENCE_MODEL, show_default=True,
              help="The model every other model is compared with.")
@_out
@_seed
def alpaca_eval(folder: str, reference: str, out: str, seed: int) -> None:
    """AlpacaEval 2.0 (FOLDER holds model_outputs/ and judge_annotations/)."""
    from ffsite.importers.alpaca_eval import import_alpaca_eval

    _finish(import_alpaca_eval(folder, reference=reference, seed=seed), out, None)


@import_group.command("hh-rlhf")
@click.argument("file", type=click.Path(dir_okay=False))
@_out
@_seed
def hh_rlhf(file: str, out: str, seed: int) -> None:
    """Anthropic HH-RLHF (a .jsonl.gz file of chosen/rejected conversations)."""
    from ffsite.importers.hh_rlhf import import_hh_rlhf

    _finish(import_hh_rlhf(file, seed=seed), out, None)


@import_group.command("eqbench3")
@click.argument("file", type=click.Path(dir_okay=False))
@_out
def eqbench3(file: str, out: str) -> None:
    """EQ-Bench 3's pairwise judge verdicts (pairwise_comparisons.json.gz), with margins."""
    from ffsite.importers.eqbench3 import import_eqbench3

    _finish(import_eqbench3(file), out, None)


@import_group.command("behavioral-profiling")
@click.argument("folder", type=click.Path(file_okay=False))
@out_option("The scores file to write (.parquet).", required=True)
@_base_out
def behavioral_profiling(folder: str, out: str, base_out: str | None) -> None:
    """Behavioral Profiling's panel scores, every condition (FOLDER holds contributions/
    and prompts/)."""
    from ffsite.base.texts import write_texts
    from ffsite.format import write_scores
    from ffsite.importers.behavioral_profiling import import_behavioral_profiling

    result = import_behavioral_profiling(folder)
    written = write_scores(result.frame, out, judges=result.judges, extra=result.extra)
    responses = result.frame.drop_duplicates(["dataset", "response_id"])
    click.echo(f"wrote {out}: {written} scores on {len(responses)} responses of "
               f"{responses['model'].nunique()} models")
    for line in result.report:
        click.echo(f"note: {line}", err=True)
    if base_out:
        path = write_texts(base_out, result.dataset, result.prompts, {})
        click.echo(f"wrote {path}: {len(result.prompts)} prompts")


@import_group.command("likert")
@click.argument("file", type=click.Path(dir_okay=False))
@out_option("The scores file to write (.parquet).", required=True)
@click.option("--dataset", default="lmlpa", show_default=True,
              help="Dataset name the ratings are filed under.")
def likert(file: str, out: str, dataset: str) -> None:
    """Ratings of LMLPA's open-ended BFI items (CSV: model, item, score; optional rater,
    seed, order) to a scores file."""
    from ffsite.format import write_scores
    from ffsite.importers.likert import import_likert

    result = import_likert(file, dataset)
    written = write_scores(result.frame, out, judges=result.judges, extra=result.extra)
    frame = result.frame
    click.echo(f"wrote {out}: {written} ratings of {frame['prompt_id'].nunique()} items for "
               f"{frame['model'].nunique()} model(s) by {frame['judge'].nunique()} rater(s)")
    for line in result.report:
        click.echo(f"note: {line}", err=True)
