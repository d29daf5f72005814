"""`ffsite import poem-eval`: the judge's scale scores of every poem to a scores file."""

from __future__ import annotations

import click

from ffsite.commands.importing import finish_scores, scores_out


@click.command("poem-eval")
@click.argument("folder", type=click.Path(file_okay=False))
@scores_out
def import_command(folder: str, out: str) -> None:
    """poem-eval's judge scores of every poem (FOLDER holds scored_results.csv)."""
    from ffsite.datasets.poem_eval.importer import import_poem_eval

    result = import_poem_eval(folder)
    frame = result.frame
    finish_scores(result, out, f"scores of {frame['response_id'].nunique()} poems by "
                  f"{frame['model'].nunique()} models")
