"""`ffsite import ...`: foreign formats to ffsite annotation files.

The formats anyone's data can come in (AnnotatedPairs, ICAI CSV, Likert ratings) are
here; each dataset's own importer command lives in the dataset's folder and joins this
group through its record (`ffsite.datasets.DATASETS`).  `finish`, `about` and the
options below are what those commands share.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from ffsite.commands.options import SEED, out_option
from ffsite.datasets import DATASETS
from ffsite.errors import FfsiteError

if TYPE_CHECKING:  # importers and writers are imported when a command runs, not for --help
    from ffsite.importers.result import ImportResult, ScoresImport

# The datasets' own commands, by the word after `ffsite import`.
_DATASET_COMMANDS = {d.command_name: d for d in DATASETS if d.command}


class _ImportGroup(click.Group):
    """The format commands, plus every dataset's, loaded only when named."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_DATASET_COMMANDS})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in _DATASET_COMMANDS:
            return _DATASET_COMMANDS[name].hook("command")
        return super().get_command(ctx, name)


@click.group(name="import", cls=_ImportGroup)
def import_group() -> None:
    """Import pairwise data or judge scores into an annotation file."""


def finish(result: ImportResult, out: str, base_out: str | None) -> None:
    """Write the votes and (with --base-out) their texts: both, or on failure neither."""
    from ffsite._atomic import all_or_nothing
    from ffsite.datasets.texts import texts_file, write_texts
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


def finish_scores(result: ScoresImport, out: str, what: str) -> None:
    """Write a scores import and say what it holds (`what`: "scores on ...") and what it
    left out (on stderr)."""
    from ffsite.format import write_scores

    written = write_scores(result.frame, out, judges=result.judges, extra=result.extra)
    click.echo(f"wrote {out}: {written} {what}")
    for line in result.report:
        click.echo(f"note: {line}", err=True)


def about(file: str, read: Callable[..., ImportResult], *args: Any) -> ImportResult:
    """`read(*args)`, its errors naming `file` when they do not already."""
    try:
        return read(*args)
    except FfsiteError as exc:
        if type(exc) is not FfsiteError or str(exc).startswith(file):
            raise
        raise FfsiteError(f"{file}: {exc}") from None


votes_out = out_option("The annotation file to write (.parquet).", required=True)
scores_out = out_option("The scores file to write (.parquet).", required=True)
_dataset = click.option("--dataset", help="Dataset name (default: from the file).")
base_out = click.option("--base-out", type=click.Path(file_okay=False),
                        help="Also write the texts to this base-data folder.")
seed = click.option("--seed", type=SEED, default=0, show_default=True,
                    help="Seed of the coin flip that puts each comparison's responses on "
                    "sides A and B.")


@import_group.command("annotated-pairs")
@click.argument("file", type=click.Path(dir_okay=False))
@votes_out
@_dataset
@base_out
def annotated_pairs(file: str, out: str, dataset: str | None, base_out: str | None) -> None:
    """Feedback Forensics' AnnotatedPairs JSON (v1 or v2)."""
    from ffsite.importers.annotated_pairs import read_annotated_pairs

    finish(about(file, read_annotated_pairs, file, dataset), out, base_out)


@import_group.command("icai-csv")
@click.argument("file", type=click.Path(dir_okay=False))
@votes_out
@_dataset
@base_out
def icai_csv(file: str, out: str, dataset: str | None, base_out: str | None) -> None:
    """ICAI CSV: text_a, text_b, preferred_text (+ model_a, model_b, prompt)."""
    from ffsite.importers.icai_csv import read_icai_csv

    finish(about(file, read_icai_csv, file, dataset), out, base_out)


@import_group.command("likert")
@click.argument("file", type=click.Path(dir_okay=False))
@scores_out
@click.option("--dataset", default="lmlpa", show_default=True,
              help="Dataset name the ratings are filed under.")
def likert(file: str, out: str, dataset: str) -> None:
    """Ratings of LMLPA's open-ended BFI items (CSV: model, item, score; optional rater,
    seed, order) to a scores file."""
    from ffsite.importers.likert import import_likert

    result = import_likert(file, dataset)
    frame = result.frame
    finish_scores(result, out, f"ratings of {frame['prompt_id'].nunique()} items for "
                  f"{frame['model'].nunique()} model(s) by {frame['judge'].nunique()} "
                  "rater(s)")
