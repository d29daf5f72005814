"""`ffsite build` (placeholder until issue 3 lands)."""

import click

from ffsite.errors import FfsiteError


@click.command(name="build")
def build() -> None:
    """Not implemented yet (issue 3)."""
    raise FfsiteError("ffsite build is not implemented yet")
