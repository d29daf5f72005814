"""The options several commands share, declared once: name, type, default and help.

A command stacks the ones it takes, so `--out` or `--base-data` means the same in every
command and each default is written in one place.  `--base-data` is resolved here, before
the command runs: the command gets the folder (from the option or $FFSITE_BASE_DATA,
checked to exist) or None.  The library names parameters in its errors; `error_line`
words them as the flags a user typed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ffsite._text import for_terminal
from ffsite.datasets.folder import ENV, base_dir
from ffsite.errors import FfsiteError, ParameterError

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

ANNOTATIONS = "annotations"  # the annotation files of the site, relative to where it runs
FORMATS = ("csv", "json", "table")
# ffsite.metrics.length_control.LENGTH_MEASURES, without importing it for --help
LENGTH_MEASURES = ("characters", "words")

# Every number a user types has bounds, so a typo fails at once instead of hanging a run
# or eating memory (`--votes 1000000`).  Seeds are what numpy's generators accept.
SEED = click.IntRange(0, 2**32 - 1)
BOOTSTRAP = click.IntRange(1, 100_000)
VOTES = click.IntRange(1, 20)
CONCURRENCY = click.IntRange(1, 256)
ATTEMPTS = click.IntRange(1, 20)
TOKENS = click.IntRange(1, 200_000)
PROMPTS = click.IntRange(1, 1_000_000)

# PATHS: annotation files or folders of them.
annotation_paths = click.argument("paths", nargs=-1, type=click.Path(), default=(ANNOTATIONS,))

content_option = click.option("--content", default="content", show_default=True,
                              type=click.Path(file_okay=False),
                              help="Folder with site.toml and the Markdown pages.")
templates_option = click.option("--templates", default="templates", show_default=True,
                                type=click.Path(file_okay=False),
                                help="Folder with the Jinja templates and static/.")
format_option = click.option("--format", "fmt", type=click.Choice(FORMATS), default="table",
                             show_default=True, help="Output format.")
quiet_option = click.option("--quiet", is_flag=True, help="Print only errors (for CI).")


def annotations_option(help: str = "Folder of annotation files.", *,
                       folder: bool = True) -> Decorator:
    """--annotations: where the annotation files are (a folder, or with folder=False
    also a file)."""
    return click.option("--annotations", default=ANNOTATIONS, show_default=True,
                        type=click.Path(file_okay=not folder), help=help)


def out_option(help: str, *, default: str | None = None, required: bool = False,
               folder: bool = False) -> Decorator:
    """--out: what a command writes, a file or (folder=True) a folder."""
    return click.option("--out", default=default, required=required,
                        show_default=default is not None,
                        type=click.Path(file_okay=not folder, dir_okay=folder), help=help)


def base_data_option(help: str = "Base-data folder (the texts behind the ids).") -> Decorator:
    """--base-data, falling back to $FFSITE_BASE_DATA; the command gets a Path or None."""
    return click.option("--base-data", type=click.Path(file_okay=False),
                        callback=_resolve_base_data, help=f"{help} Default: ${ENV}.")


def _resolve_base_data(ctx: click.Context, param: click.Parameter,
                       value: str | None) -> Path | None:
    return base_dir(value)


# Library parameters whose flag is not the parameter's name with dashes.
_FLAGS = {"base_dir": "--base-data", "models": "--model", "judges": "--judge",
          "judge_models": "--judge-model"}


def flag(param: str) -> str:
    """The flag that sets library parameter `param`: split_by -> --split-by."""
    return _FLAGS.get(param) or "--" + param.replace("_", "-")


def error_line(error: FfsiteError) -> str:
    """The error as the CLI shows it: parameters named as their flags, on one line that
    no text quoted from data can turn into terminal control (ffsite._text)."""
    return for_terminal(error.worded(flag) if isinstance(error, ParameterError) else str(error))
