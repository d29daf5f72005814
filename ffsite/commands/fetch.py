"""`ffsite fetch` (placeholder until issue 4 lands)."""

import click

from ffsite.errors import FfsiteError


@click.command(name="fetch")
def fetch() -> None:
    """Not implemented yet (issue 4)."""
    raise FfsiteError("ffsite fetch is not implemented yet")
