"""`ffsite serve` (placeholder until issue 3 lands)."""

import click

from ffsite.errors import FfsiteError


@click.command(name="serve")
def serve() -> None:
    """Not implemented yet (issue 3)."""
    raise FfsiteError("ffsite serve is not implemented yet")
