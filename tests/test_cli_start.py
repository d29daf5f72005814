"""How fast `ffsite` starts: `--help` and `--version` import no command module and none of
the heavy libraries, and a command's own `--help` loads only what its options need.

Process start is the point, so the checks run `python -X importtime -m ffsite ...`, whose
stderr names every module the run imported.  What they assert is which modules were
imported, not a wall-clock time: that holds on a loaded CI machine, and a module that
slips back into the start-up path fails it at once (pandas alone is about 0.4 s).
"""

from __future__ import annotations

import os
import subprocess
import sys

import click
import pytest

from ffsite import __version__
from ffsite.cli import COMMANDS, SUMMARIES, cli

# The libraries that make a start slow (the numbers: import time on a quiet 2-core machine).
HEAVY = ("pandas", "numpy", "pyarrow", "scipy", "sklearn", "jinja2", "httpx", "markdown_it",
         "msgspec", "tqdm", "yaml")
SITE_STACK = ("scipy", "sklearn", "jinja2")  # what `ffsite build` loads; sklearn: tests only

# Commands whose `--help` still imports some of HEAVY, and why.  An option's default or
# choices come from a library module that imports numpy or pandas at its top:
STILL_HEAVY = {
    "metrics": "--combine's choices: ffsite.metrics.combine.RULES (numpy, pyarrow)",
    "default-annotations": "--seed, --pair-prompts defaults: ffsite.datasets.defaults (pandas)",
    # commands/annotate.py, eigenbench.py, lmlpa.py, _api.py import the collecting code
    # (ffsite.collect: pandas, httpx; eigenbench also scipy) at their top.
    "annotate": "ffsite.collect.* at the top of commands/annotate.py and _api.py",
    "eigenbench": "ffsite.collect.*, ffsite.metrics.eigenbench (scipy) at the top of "
                  "commands/eigenbench.py",
    "lmlpa": "ffsite.collect.lmlpa at the top of commands/lmlpa.py and _api.py",
    "protocol": "ffsite.collect.protocol at the top of commands/protocol.py and _api.py",
}


def imported(*args: str) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run `python -X importtime -m ffsite ARGS`: the run, and the top-level packages it
    imported."""
    env = {**os.environ, "COLUMNS": "80"}
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "ffsite", *args],
                          capture_output=True, text=True, timeout=120, env=env)
    modules = {line.rsplit("|", 1)[1].strip().split(".")[0]
               for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "click" in modules, done.stderr[-2000:]  # the listing is there at all
    return done, modules


def loaded_commands() -> dict[str, click.Command]:
    context = click.Context(cli)
    return {name: cli.get_command(context, name) for name in COMMANDS}


def test_every_command_has_its_own_summary():
    """SUMMARIES is each command's docstring's first sentence, as click would shorten it
    with no length limit: a docstring edited without its summary fails here."""
    assert list(SUMMARIES) == list(COMMANDS)
    for name, command in loaded_commands().items():
        assert command.short_help is None, name  # else click would show that instead
        assert SUMMARIES[name] == command.get_short_help_str(10_000), name


@pytest.mark.parametrize("width", [40, 80, 120, 200])
def test_help_lists_the_commands_as_click_would(width):
    """The listing from SUMMARIES is what click writes from the loaded commands, at any
    terminal width (the summaries are shortened to fit, as click does)."""
    context = click.Context(cli, terminal_width=width)
    ours, clicks = click.HelpFormatter(width=width), click.HelpFormatter(width=width)
    cli.format_commands(context, ours)
    click.Group.format_commands(cli, context, clicks)  # loads every command
    assert ours.getvalue() == clicks.getvalue()
    assert ours.getvalue().count("\n") == len(COMMANDS) + 1  # a heading, a row each


def test_help_imports_no_command_and_no_heavy_library():
    done, modules = imported("--help")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Commands:" in done.stdout
    for name in COMMANDS:
        assert f"  {name} " in done.stdout, name
    assert [m for m in HEAVY if m in modules] == []
    command_modules = [line for line in done.stderr.splitlines()
                       if "ffsite.commands." in line]
    assert command_modules == []


def test_version_imports_nothing_heavy():
    done, modules = imported("--version")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == f"ffsite, version {__version__}\n"
    assert [m for m in HEAVY if m in modules] == []
    assert not any("ffsite.commands" in line for line in done.stderr.splitlines())


@pytest.mark.slow  # a fresh process per command (15)
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_commands_help_loads_only_what_its_options_need(command):
    """(A subcommand's `--help`, `import likert --help`, imports what its group's does: the
    subcommands are declared in the group's module.)"""
    done, modules = imported(command, "--help")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith(f"Usage: python -m ffsite {command} ")
    if command == "eigenbench":  # scipy: ffsite.metrics.eigenbench, see STILL_HEAVY
        assert [m for m in SITE_STACK if m in modules] == ["scipy"]
    else:
        assert [m for m in SITE_STACK if m in modules] == []
    heavy = [m for m in HEAVY if m in modules]
    if command in STILL_HEAVY:
        assert heavy, f"{command} --help is light now: remove it from STILL_HEAVY"
    else:
        assert heavy == []
