"""`ffsite ratings` (placeholder until issue 6 lands)."""

import click

from ffsite.errors import FfsiteError


@click.command(name="ratings")
def ratings() -> None:
    """Not implemented yet (issue 6)."""
    raise FfsiteError("ffsite ratings is not implemented yet")
