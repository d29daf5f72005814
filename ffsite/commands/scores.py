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
from ffsite.errors import FfsiteError

COLUMNS = ["dataset", "condition", "model", "source_model", "trait", "judge", "mean",
           "ci_low", "ci_high", "n"]


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
    (content/models.toml), `source_model` the dataset's own spelling."""
    from ffsite.format import read_scores
    from ffsite.metrics.from_scores import score_means
    from ffsite.models import load_registry

    found = read_scores(paths)
    if not len(found):
        raise FfsiteError("no scores in " + ", ".join(paths) + "; import some with ffsite "
                          "import behavioral-profiling, or give the files that hold them")
    table = score_means(found, load_registry(content), n_bootstrap=n_bootstrap, seed=seed)
    emit(table.rename(columns={"trait_id": "trait"})[COLUMNS], fmt)
