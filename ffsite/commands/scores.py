"""`ffsite scores`: per-model means of judge scores, with 95% intervals over prompts."""

from __future__ import annotations

import click

from ffsite.commands._output import emit
from ffsite.commands.options import (
    BOOTSTRAP,
    SEED,
    annotation_paths,
    content_option,
    format_option,
)
from ffsite.datasets import PANELS, RUBRIC_FLOORS, UNITS
from ffsite.errors import FfsiteError

COLUMNS = ["dataset", "condition", "model", "source_model", "trait", "judge", "mean",
           "ci_low", "ci_high", "n", "below_rubric_floor"]


@click.command(name="scores")
@annotation_paths
@click.option("--bootstrap", "n_bootstrap", type=BOOTSTRAP,
              default=1000, show_default=True, help="Resamples of the prompts behind the "
              "95% intervals.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the resampling.")
@content_option
@format_option
def scores(paths: tuple[str, ...], n_bootstrap: int, seed: int, content: str,
           fmt: str) -> None:
    """One row per dataset, condition, model and trait: the mean judge score, its 95%
    interval and the number of scores.  `model` is the site's id for the model
    (content/models.toml), `source_model` the dataset's own spelling; a dataset whose
    judges form a panel has the panel's rows (judge: the panel) and each judge's."""
    import pandas as pd  # here: `--help` needs none of them

    from ffsite.format import read_scores
    from ffsite.metrics.from_scores import score_means
    from ffsite.metrics.judges import pool_panels
    from ffsite.metrics.results import unit_intervals
    from ffsite.models import load_registry

    found = read_scores(paths)
    if not len(found):
        raise FfsiteError("no scores in " + ", ".join(paths) + "; import some with ffsite "
                          "import behavioral-profiling, or give the files that hold them")
    registry, options = load_registry(content), {"n_bootstrap": n_bootstrap, "seed": seed}
    pooled, members = pool_panels(found, PANELS)  # a panel's rows, then each member's
    means = score_means(pooled, registry, floors=RUBRIC_FLOORS, **options)
    judges = score_means(members, registry, floors=RUBRIC_FLOORS, **options)
    for dataset, unit in sorted(UNITS.items()):
        if (found.responses["dataset"] == dataset).any():
            means, judges = unit_intervals(means, judges, pooled, members, dataset, unit,
                                           registry)
    table = pd.concat([means, judges], ignore_index=True)
    table = table.sort_values(["dataset", "condition", "model", "trait_id", "judge"],
                              kind="stable")
    emit(table.rename(columns={"trait_id": "trait"})[COLUMNS], fmt)
