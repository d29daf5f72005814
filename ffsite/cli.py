"""The `ffsite` command line: a thin click layer; the work happens in library modules.

Commands are imported only when used, so `ffsite metrics` does not pay for the site
builder's imports (pandas, Jinja) on every start, and `ffsite --help` lists them from
SUMMARIES without importing any (tests/test_cli_start.py checks that each summary is its
command's own, and that `--help` and `--version` load no pandas, numpy, pyarrow or Jinja).
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

# What `ffsite --help` says of each command: the first sentence of its docstring.
SUMMARIES = {
    "build": "Build the static leaderboard site from the annotation files.",
    "serve": "Build the site and serve it for preview on 127.0.0.1.",
    "validate": "Check annotation files against the format (default: annotations/), and say "
                "which entries of the model registry (content/models.toml) match no model in "
                "them.",
    "upgrade": "Rewrite format version 1 annotation files as version 2, in place (default: "
               "annotations/).",
    "metrics": "Per-trait strength, relevance and Cohen's kappa against a reference "
               "annotation.",
    "ratings": "Bradley-Terry ratings (Firth, Elo scale) per trait and model, with 95% "
               "intervals.",
    "scores": "One row per dataset, condition, model and trait: the mean judge score, its 95% "
              "interval and the number of scores.",
    "big-five": "One row per model, rater and Big Five trait: the mean item score after "
                "reverse keying (1-5), its 95% interval, the items counted, Cronbach's alpha "
                "across models (or one model's seeds) and, with reversed-order ratings, the "
                "order-reversal kappa.",
    "annotate": "Add a model: its answers, judged trait by trait against the reference's "
                "answers.",
    "import": "Import pairwise data or judge scores into an annotation file.",
    "export": "Export annotation files to other formats.",
    "fetch": "Download base datasets NAMES (default: all), resumable and checksum-verified.",
    "eigenbench": "EigenBench: models judge each other's answers against a constitution.",
    "lmlpa": "LMLPA: the Big Five from a model's open-ended answers, scored by an AI rater.",
    "protocol": "Judged datasets' protocols: add a model the way a dataset made its numbers.",
    "default-annotations": "Write every base dataset's default annotations (ids, votes, "
                           "scores; no text).",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, _, attribute = COMMANDS[name].partition(":")
        return getattr(importlib.import_module(module), attribute)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list as click writes it, from SUMMARIES: no command is imported."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        # (click.Command's own shortening: click.utils.make_default_short_help is
        # deprecated since Click 8.5.)
        rows = [(name, click.Command(name, help=SUMMARIES[name]).get_short_help_str(limit))
                for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


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
