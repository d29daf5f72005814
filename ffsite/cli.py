"""The `ffsite` command line: a thin click layer; the work happens in library modules."""

from __future__ import annotations

import sys

import click

from ffsite import __version__
from ffsite.commands.annotate import annotate
from ffsite.commands.build import build
from ffsite.commands.defaults import default_annotations
from ffsite.commands.export import export_group
from ffsite.commands.fetch import fetch
from ffsite.commands.importing import import_group
from ffsite.commands.metrics import metrics
from ffsite.commands.ratings import ratings
from ffsite.commands.serve import serve
from ffsite.commands.validate import validate
from ffsite.errors import FfsiteError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ffsite")
def cli() -> None:
    """Measure and publish AI-model personality (Feedback Forensics method)."""


for command in (build, serve, validate, metrics, ratings, annotate, import_group,
                export_group, fetch, default_annotations):
    cli.add_command(command)


def main() -> None:
    try:
        cli.main(standalone_mode=False)
    except FfsiteError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
