"""`ffsite build`: the static leaderboard site."""

from __future__ import annotations

import click

from ffsite.base.registry import base_dir
from ffsite.progress import Progress
from ffsite.site.build import build_site

annotations_option = click.option(
    "--annotations", default="annotations", show_default=True,
    type=click.Path(file_okay=False), help="Folder of annotation files.")
base_data_option = click.option(
    "--base-data", type=click.Path(file_okay=False),
    help="Base-data folder for example texts (default: $FFSITE_BASE_DATA).")
content_option = click.option("--content", default="content", show_default=True,
                              type=click.Path(file_okay=False),
                              help="Folder with site.toml and the Markdown pages.")
templates_option = click.option("--templates", default="templates", show_default=True,
                                type=click.Path(file_okay=False),
                                help="Folder with the Jinja templates and static/.")
out_option = click.option("--out", default="site", show_default=True,
                          type=click.Path(file_okay=False), help="Where the site goes.")
quiet_option = click.option("--quiet", is_flag=True, help="Print only errors (for CI).")


@click.command(name="build")
@annotations_option
@base_data_option
@content_option
@templates_option
@out_option
@quiet_option
def build(annotations: str, base_data: str | None, content: str, templates: str, out: str,
          quiet: bool) -> None:
    """Build the static leaderboard site from the annotation files."""
    run_build(annotations, base_data, content, templates, out, quiet)


def run_build(annotations: str, base_data: str | None, content: str, templates: str,
              out: str, quiet: bool) -> None:
    result = build_site(annotations, out, content=content, templates=templates,
                        base_data=base_dir(base_data), progress=Progress(quiet))
    for note in result.notes:
        click.echo(note, err=True)
    if not quiet:
        click.echo(f"built {result.out}: {result.pages} pages, {result.files} files, "
                   f"{result.bytes / 1e6:.1f} MB")
