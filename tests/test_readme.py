"""The README's commands exist, with the options it shows."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from ffsite.cli import cli

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
COMMANDS = [line.strip() for block in re.findall(r"```bash\n(.*?)```", README, re.S)
            for line in block.splitlines() if line.strip().startswith("ffsite ")]


def test_readme_shows_install_build_and_test():
    assert 'pip install -e ".[dev]"' in README and "ffsite build" in README
    assert "\npytest\n" in README
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    assert 'pip install -e ".[dev]"' in ci and "\npytest\n" in ci


@pytest.mark.parametrize("line", COMMANDS)
def test_command_and_its_options_exist(line):
    words = shlex.split(line)[1:]
    path = [words[0]]
    if words[0] in ("import", "export", "eigenbench", "lmlpa"):  # groups: the subcommand too
        path.append(words[1])
    result = CliRunner().invoke(cli, [*path, "--help"])
    assert result.exit_code == 0, result.output
    for option in (w.split("=")[0] for w in words if w.startswith("--")):
        assert option in result.output, f"{line}: {option} not in `ffsite {' '.join(path)}`"
