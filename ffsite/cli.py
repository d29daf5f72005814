"""The `ffsite` command line: a thin click layer; the work happens in library modules.

Commands are imported only when used, so `ffsite metrics` does not pay for the site
builder's imports (Altair, Jinja) on every start.
"""

from __future__ import annotations

import importlib
import sys

import click

from ffsite import __version__
from ffsite.errors import FfsiteError

COMMANDS = {
    "build": "ffsite.commands.build:build",
    "serve": "ffsite.commands.serve:serve",
    "validate": "ffsite.commands.validate:validate",
    "upgrade": "ffsite.commands.upgrade:upgrade",
    "metrics": "ffsite.commands.metrics:metrics",
    "ratings": "ffsite.commands.ratings:ratings",
    "scores": "ffsite.commands.scores:scores",
    "big-five": "ffsite.commands.big_five:big_five",
    "annotate": "ffsite.commands.annotate:annotate",
    "import": "ffsite.commands.importing:import_group",
    "export": "ffsite.commands.export:export_group",
    "fetch": "ffsite.commands.fetch:fetch",
    "eigenbench": "ffsite.commands.eigenbench:eigenbench_group",
    "lmlpa": "ffsite.commands.lmlpa:lmlpa_group",
    "protocol": "ffsite.commands.protocol:protocol_group",
    "default-annotations": "ffsite.commands.defaults:default_annotations",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, _, attribute = COMMANDS[name].partition(":")
        return getattr(importlib.import_module(module), attribute)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ffsite")
def cli() -> None:
    """Measure and publish AI-model personality (Feedback Forensics method)."""


def main() -> None:
    try:
        cli.main(standalone_mode=False)
    except FfsiteError as exc:
        from ffsite.commands.options import error_line  # here: it imports pandas

        click.echo(f"error: {error_line(exc)}", err=True)
        sys.exit(1)
    except MemoryError:
        click.echo("error: out of memory: the input is too large for this machine; split it "
                   "into smaller files or use a machine with more memory", err=True)
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
