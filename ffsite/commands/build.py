"""`ffsite build`: the static leaderboard site."""

from __future__ import annotations

from pathlib import Path

import click

from ffsite.commands.options import (
    annotations_option,
    base_data_option,
    content_option,
    out_option,
    quiet_option,
    templates_option,
)

site_out_option = out_option("Where the site goes.", default="site", folder=True)
examples_base_data_option = base_data_option("Base-data folder for example texts.")


@click.command(name="build")
@annotations_option()
@examples_base_data_option
@content_option
@templates_option
@site_out_option
@quiet_option
def build(annotations: str, base_data: Path | None, content: str, templates: str, out: str,
          quiet: bool) -> None:
    """Build the static leaderboard site from the annotation files."""
    run_build(annotations, base_data, content, templates, out, quiet)


def run_build(annotations: str, base_data: Path | None, content: str, templates: str,
              out: str, quiet: bool) -> None:
    from ffsite.progress import Progress  # here, not at the top: `--help` needs neither
    from ffsite.site.build import build_site

    result = build_site(annotations, out, content=content, templates=templates,
                        base_data=base_data, progress=Progress(quiet))
    for note in result.notes:
        click.echo(note, err=True)
    if not quiet:
        click.echo(f"built {result.out}: {result.pages} pages, {result.files} files, "
                   f"{result.bytes / 1e6:.1f} MB")
