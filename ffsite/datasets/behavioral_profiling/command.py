"""`ffsite import behavioral-profiling`: the judge panel's scores to a scores file."""

from __future__ import annotations

import click

from ffsite.commands.importing import base_out, finish_scores, scores_out


@click.command("behavioral-profiling")
@click.argument("folder", type=click.Path(file_okay=False))
@scores_out
@base_out
def import_command(folder: str, out: str, base_out: str | None) -> None:
    """Behavioral Profiling's panel scores, every condition (FOLDER holds contributions/
    and prompts/)."""
    from ffsite.datasets.behavioral_profiling.importer import import_behavioral_profiling
    from ffsite.datasets.texts import write_texts

    result = import_behavioral_profiling(folder)
    responses = result.frame.drop_duplicates(["dataset", "response_id"])
    finish_scores(result, out, f"scores on {len(responses)} responses of "
                  f"{responses['model'].nunique()} models")
    if base_out:
        path = write_texts(base_out, result.dataset, result.prompts, {})
        click.echo(f"wrote {path}: {len(result.prompts)} prompts")
