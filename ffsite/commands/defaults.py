"""`ffsite default-annotations`: regenerate the embedded annotations/ from base data."""

from __future__ import annotations

import click

from ffsite.defaults import PAIR_PROMPTS, SEED


@click.command(name="default-annotations")
@click.option("--base-data", type=click.Path(file_okay=False), envvar="FFSITE_BASE_DATA",
              help="Base-data folder (default: $FFSITE_BASE_DATA).")
@click.option("--out", default="annotations", show_default=True,
              type=click.Path(file_okay=False), help="Folder to write the files into.")
@click.option("--seed", type=int, default=SEED, show_default=True,
              help="Seed for the side coin flips and the sampled model pairs.")
@click.option("--pair-prompts", type=click.IntRange(min=0), default=PAIR_PROMPTS,
              show_default=True,
              help="Instructions on which non-reference models are paired with each other.")
def default_annotations(base_data: str | None, out: str, seed: int, pair_prompts: int) -> None:
    """Import AlpacaEval and HH-RLHF, run the rules judge and the communication traits."""
    from ffsite.defaults import default_annotations as build

    build(base_data, out, seed=seed, pair_prompts=pair_prompts, say=click.echo)
