"""`ffsite default-annotations` (placeholder until issue 4 lands)."""

import click

from ffsite.errors import FfsiteError


@click.command(name="default-annotations")
def default_annotations() -> None:
    """Not implemented yet (issue 4)."""
    raise FfsiteError("ffsite default-annotations is not implemented yet")
