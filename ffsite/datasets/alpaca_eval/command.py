"""`ffsite import alpaca-eval`: AlpacaEval 2.0's outputs and judge preferences to a votes file."""

from __future__ import annotations

import click

from ffsite.commands.importing import finish, seed, votes_out
from ffsite.datasets.alpaca_eval import DATASET


@click.command("alpaca-eval")
@click.argument("folder", type=click.Path(file_okay=False))
@click.option("--reference", default=DATASET.reference_model, show_default=True,
              help="The model every other model is compared with.")
@votes_out
@seed
def import_command(folder: str, reference: str, out: str, seed: int) -> None:
    """AlpacaEval 2.0 (FOLDER holds model_outputs/ and judge_annotations/)."""
    from ffsite.datasets.alpaca_eval.importer import import_alpaca_eval

    finish(import_alpaca_eval(folder, reference=reference, seed=seed), out, None)
