"""`ffsite eigenbench`: models judging each other against a constitution (seed 002).

`fit` rates the models from judgments already in annotation files; the method lives in
ffsite.metrics.eigenbench."""

from __future__ import annotations

import json

import click

from ffsite.commands._output import emit, render
from ffsite.commands.options import BOOTSTRAP, SEED, annotation_paths, format_option
from ffsite.errors import FfsiteError
from ffsite.format.read import read_annotations
from ffsite.metrics.eigenbench import eigenbench, judgments_from_annotations

DIMS = click.IntRange(1, 64)


@click.group(name="eigenbench")
def eigenbench_group() -> None:
    """EigenBench: models judge each other's answers against a constitution."""


@eigenbench_group.command(name="fit")
@annotation_paths
@click.option("--constitution", default=None, metavar="NAME",
              help="The constitution (trait set), or one criterion (trait id or wording), "
                   "whose judgments to fit. Needed only when the files hold several.")
@click.option("--dims", type=DIMS, default=None,
              help="Dimension d of lenses and dispositions. Default: the d in 1-4 with "
                   "the best held-out log-likelihood.")
@click.option("--bootstrap", "n_bootstrap", type=click.IntRange(0, BOOTSTRAP.max),
              default=200, show_default=True,
              help="Bootstrap refits (resampling comparisons) for the 95% intervals; 0: none.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the start, the held-out split and the bootstrap.")
@format_option
def fit(paths: tuple[str, ...], constitution: str | None, dims: int | None,
        n_bootstrap: int, seed: int, fmt: str) -> None:
    """Fit the low-rank Bradley-Terry-Davidson model to the judgments and print each
    model's EigenTrust Elo (model, elo, ci_low, ci_high, trust).

    A judgment is a trait vote whose judge is one of the compared models; the JSON also
    carries lenses, dispositions, tie propensities and the diagnostics."""
    annotations = read_annotations(paths)
    judgments = judgments_from_annotations(annotations, constitution)
    if dims is not None and dims >= judgments.n_models:
        raise FfsiteError(f"--dims {dims}: must be below the number of models "
                          f"({judgments.n_models}); give a smaller --dims or leave it out")
    result = eigenbench(judgments, dims=dims, n_bootstrap=n_bootstrap, seed=seed)
    if fmt != "json":
        emit(result.ratings, fmt)
        return
    document = {
        "models": list(result.models),
        "dims": result.dims,
        "judgments": result.n_judgments,
        "comparisons": result.n_comparisons,
        "bootstrap": result.n_bootstrap,
        "seed": seed,
        "notes": result.notes,
        "converged": result.fit.converged,
        "ratings": records_json(result.ratings),
        "lenses": result.fit.lenses.tolist(),
        "dispositions": result.fit.dispositions.tolist(),
        "lambdas": result.fit.lambdas.tolist(),
        "trust_matrix": result.trust.tolist(),
        "held_out": records_json(result.held_out),
        "judges": records_json(result.judges),
    }
    click.echo(json.dumps(document, indent=2, ensure_ascii=False))


def records_json(frame) -> list[dict]:
    """Rows as JSON values (NaN as null), as `--format json` prints tables."""
    return json.loads(render(frame, "json"))
