"""`ffsite import eqbench3`: EQ-Bench 3's pairwise verdicts to a votes file."""

from __future__ import annotations

import click

from ffsite.commands.importing import finish, votes_out


@click.command("eqbench3")
@click.argument("file", type=click.Path(dir_okay=False))
@votes_out
def import_command(file: str, out: str) -> None:
    """EQ-Bench 3's pairwise judge verdicts (pairwise_comparisons.json.gz), with margins."""
    from ffsite.datasets.eqbench3.importer import import_eqbench3

    finish(import_eqbench3(file), out, None)
