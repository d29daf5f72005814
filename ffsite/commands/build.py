"""`ffsite build`: the static leaderboard site."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ffsite.commands.options import (
    annotations_option,
    base_data_option,
    content_option,
    out_option,
    quiet_option,
    templates_option,
)

if TYPE_CHECKING:  # the site's code is imported when a build runs, not for `--help`
    from ffsite.site.context import ResultsCache

site_out_option = out_option("Where the site goes.", default="site", folder=True)
examples_base_data_option = base_data_option("Base-data folder for example texts.")


@click.command(name="build")
@annotations_option()
@examples_base_data_option
@content_option
@templates_option
@site_out_option
@quiet_option
@click.option("--force", is_flag=True,
              help="Build even when the site was built from the same inputs.")
def build(annotations: str, base_data: Path | None, content: str, templates: str, out: str,
          quiet: bool, force: bool) -> None:
    """Build the static leaderboard site from the annotation files."""
    run_build(annotations, base_data, content, templates, out, quiet, force=force)


def run_build(annotations: str, base_data: Path | None, content: str, templates: str,
              out: str, quiet: bool, cache: ResultsCache | None = None, *,
              force: bool = False) -> None:
    from ffsite.progress import Progress
    from ffsite.site.build import build_site

    result = build_site(annotations, out, content=content, templates=templates,
                        base_data=base_data, progress=Progress(quiet), cache=cache,
                        force=force)
    for note in result.notes:
        click.echo(note, err=True)
    if not quiet:
        counts = f"{result.pages} pages, {result.files} files, {result.bytes / 1e6:.1f} MB"
        click.echo(f"{result.out} is current (its inputs have not changed): {counts}"
                   if result.current else f"built {result.out}: {counts}")
