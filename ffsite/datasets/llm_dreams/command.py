"""`ffsite import llm-dreams`: every judge's trait estimates to a scores file."""

from __future__ import annotations

import click

from ffsite.commands.importing import finish_scores, scores_out


@click.command("llm-dreams")
@click.argument("folder", type=click.Path(file_okay=False))
@scores_out
def import_command(folder: str, out: str) -> None:
    """llm-dreams' judge scores, every judge and repetition (FOLDER holds answers/,
    evaluations-*/ and incipits/)."""
    from ffsite.datasets.llm_dreams.importer import import_llm_dreams

    result = import_llm_dreams(folder)
    frame = result.frame
    finish_scores(result, out, f"scores of {frame['response_id'].nunique()} answer sets of "
                  f"{frame['model'].nunique()} models by {frame['judge'].nunique()} judges")
