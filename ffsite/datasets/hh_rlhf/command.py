"""`ffsite import hh-rlhf`: HH-RLHF's chosen and rejected replies to a votes file."""

from __future__ import annotations

import click

from ffsite.commands.importing import finish, seed, votes_out


@click.command("hh-rlhf")
@click.argument("file", type=click.Path(dir_okay=False))
@votes_out
@seed
def import_command(file: str, out: str, seed: int) -> None:
    """Anthropic HH-RLHF (a .jsonl.gz file of chosen/rejected conversations)."""
    from ffsite.datasets.hh_rlhf.importer import import_hh_rlhf

    finish(import_hh_rlhf(file, seed=seed), out, None)
