"""`ffsite ratings`: per-trait Bradley–Terry Elo with intervals, or the index table."""

from __future__ import annotations

import click

from ffsite.commands._output import emit
from ffsite.commands.options import (
    BOOTSTRAP,
    LENGTH_MEASURES,
    SEED,
    annotation_paths,
    content_option,
    format_option,
)
from ffsite.datasets import DEFAULT_PROMPT_SET
from ffsite.errors import FfsiteError


@click.command(name="ratings")
@annotation_paths
@click.option("--anchor", default=DEFAULT_PROMPT_SET.reference_model, show_default=True,
              help="Model fixed at Elo 1000 on every trait.")
@click.option("--bootstrap", "n_bootstrap", type=BOOTSTRAP, default=1000,
              show_default=True, help="Bootstrap refits for the 95% intervals.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Bootstrap seed.")
@click.option("--indices", "show_indices", is_flag=True,
              help="Print the personality indices (1-100) instead of per-trait Elo.")
@click.option("--win-rates", "show_win_rates", is_flag=True,
              help="Print each model's win rate against the anchor by each dataset's "
                   "preference annotator instead, raw and with the answers' length "
                   "difference held at zero (lengths from the response-metrics files).")
@click.option("--length-measure", type=click.Choice(LENGTH_MEASURES), default="characters",
              show_default=True, help="The length --win-rates holds at zero.")
@content_option
@format_option
def ratings(paths: tuple[str, ...], anchor: str, n_bootstrap: int, seed: int,
            show_indices: bool, show_win_rates: bool, length_measure: str, content: str,
            fmt: str) -> None:
    """Bradley-Terry ratings (Firth, Elo scale) per trait and model, with 95% intervals.

    Models are named by the site's ids (content/models.toml); `source_model` gives each
    dataset's own spelling."""
    from ffsite.format.read import read_annotations  # here: `--help` needs none of them
    from ffsite.format.response_metrics import read_response_metrics
    from ffsite.metrics.judges import separate_judges
    from ffsite.metrics.results import controlled_win_rate_table, indices_table, ratings_table
    from ffsite.models import apply_registry, load_registry, names_seen, source_names

    registry = load_registry(content)
    original = read_annotations(paths)
    registry.check_merges(names_seen(original))
    annotations = separate_judges(apply_registry(original, registry))
    if show_win_rates:
        table = controlled_win_rate_table(annotations, registry.resolve(anchor),
                                          read_response_metrics(paths), length_measure)
        if table.empty:
            raise FfsiteError(f"no win rate: no dataset has a preference annotator's verdicts "
                              f"on comparisons with the anchor '{anchor}' and the answers' "
                              "lengths; check the files or pick --anchor")
        emit(table, fmt)
        return
    table = ratings_table(annotations, anchor=registry.resolve(anchor),
                          n_bootstrap=n_bootstrap, seed=seed)
    if table.empty:
        raise FfsiteError(f"no trait could be rated: no trait votes link two different models "
                          f"to the anchor '{anchor}'; check the files or pick --anchor")
    unrated = len(annotations.traits()) - table["trait_id"].nunique()
    if unrated:
        click.echo(f"note: {unrated} trait(s) not rated: no trait vote links a model pair "
                   f"to the anchor '{anchor}' on them", err=True)
    if not show_indices:
        names = source_names(original, registry).set_index("model")["source_model"]
        table.insert(table.columns.get_loc("model") + 1, "source_model",
                     table["model"].map(names).to_numpy(object))
    emit(indices_table(table) if show_indices else table, fmt)
