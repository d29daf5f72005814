"""`ffsite big-five`: per model and Big Five trait, LMLPA's score with a 95% interval,
Cronbach's alpha and the order-reversal kappa (ffsite.metrics.big_five)."""

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


@click.command(name="big-five")
@annotation_paths
@click.option("--include-dropped", is_flag=True,
              help="Count the four items LMLPA's final version drops (Q22, Q31, Q35, Q41).")
@click.option("--bootstrap", "n_bootstrap", type=BOOTSTRAP, default=1000, show_default=True,
              help="Resamples of the items and seeds behind the 95% intervals.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the resampling.")
@click.option("--kappa-weights", type=click.Choice(["linear", "quadratic"]), default="linear",
              show_default=True, help="Disagreement weights of the order-reversal kappa.")
@content_option
@format_option
def big_five(paths: tuple[str, ...], include_dropped: bool, n_bootstrap: int, seed: int,
             kappa_weights: str, content: str, fmt: str) -> None:
    """One row per model, rater and Big Five trait: the mean item score after reverse
    keying (1-5), its 95% interval, the items counted, Cronbach's alpha across models (or
    one model's seeds) and, with reversed-order ratings, the order-reversal kappa."""
    from ffsite.format import read_scores
    from ffsite.metrics.big_five import big_five as compute
    from ffsite.models import load_registry

    table = compute(read_scores(paths), load_registry(content),
                    include_dropped=include_dropped, n_bootstrap=n_bootstrap, seed=seed,
                    kappa_weights=kappa_weights)
    if table.empty:
        raise FfsiteError("no LMLPA ratings in " + ", ".join(paths) + "; import some with "
                          "ffsite import likert, or give the files that hold them")
    emit(table, fmt)
