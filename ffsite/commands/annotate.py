"""`ffsite annotate` (placeholder until issue 5 lands)."""

import click

from ffsite.errors import FfsiteError


@click.command(name="annotate")
def annotate() -> None:
    """Not implemented yet (issue 5)."""
    raise FfsiteError("ffsite annotate is not implemented yet")
