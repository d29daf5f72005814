"""`ffsite default-annotations`: regenerate the embedded annotations/ from base data."""

from __future__ import annotations

from pathlib import Path

import click

from ffsite.commands import options
from ffsite.commands.options import ANNOTATIONS, base_data_option, out_option
from ffsite.datasets.defaults import PAIR_PROMPTS, SEED


@click.command(name="default-annotations")
@base_data_option()
@out_option("Folder to write the files into.", default=ANNOTATIONS, folder=True)
@click.option("--seed", type=options.SEED, default=SEED, show_default=True,
              help="Seed for the side coin flips and the sampled model pairs.")
@click.option("--pair-prompts", type=click.IntRange(0, 1_000_000), default=PAIR_PROMPTS,
              show_default=True,
              help="Instructions on which non-reference models are paired with each other.")
def default_annotations(base_data: Path | None, out: str, seed: int, pair_prompts: int) -> None:
    """Write every base dataset's default annotations (ids, votes, scores; no text)."""
    from ffsite.datasets.defaults import default_annotations as build

    build(base_data, out, seed=seed, pair_prompts=pair_prompts, say=click.echo)
