"""A regular (non-editable) install: the package alone, run from a folder with nothing in it.

The site's own files (content/, templates/, annotations/) stay in the repository, so an
installed ffsite must say which of them is missing, not find them by climbing out of its
package folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow  # pip builds and installs the package


def python_files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*.py")}


def test_an_installed_ffsite_runs_and_says_what_is_missing(tmp_path):
    # pip builds a local folder in place (build/, *.egg-info): give it a copy, not the repo.
    source = tmp_path / "source"
    shutil.copytree(REPO / "ffsite", source / "ffsite",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    installed = tmp_path / "installed"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                           "--target", str(installed), str(source)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert python_files(installed / "ffsite") == python_files(REPO / "ffsite")

    empty = tmp_path / "empty"
    empty.mkdir()
    env = {key: value for key, value in os.environ.items() if key != "FFSITE_BASE_DATA"}
    env.update(PYTHONPATH=str(installed), PYTHONDONTWRITEBYTECODE="1",
               XDG_CACHE_HOME=str(tmp_path / "cache"))

    def ffsite(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "ffsite", *args], cwd=empty, env=env,
                              capture_output=True, text=True, timeout=60)

    where = subprocess.run([sys.executable, "-c", "import ffsite; print(ffsite.__file__)"],
                           cwd=empty, env=env, capture_output=True, text=True, timeout=60)
    assert Path(where.stdout.strip()) == installed / "ffsite" / "__init__.py", where.stderr

    shown = ffsite("--help")
    assert shown.returncode == 0, shown.stderr
    assert "fetch" in shown.stdout and "build" in shown.stdout

    # Each dataset's download list ships inside the package (its folder's files.toml):
    # checking an empty copy names the first file it lacks, without the network.
    checked = ffsite("fetch", "--check", str(empty), "hh_rlhf")
    assert checked.returncode == 1
    assert checked.stderr == (
        f"error: {empty}/hh_rlhf/harmless-base-test.jsonl.gz: missing from the local copy; "
        f"run ffsite fetch --cache-dir {empty} hh_rlhf to download it\n")

    built = ffsite("build")
    assert built.returncode == 1
    assert built.stderr == ("error: content: no such content folder; run from the repository "
                            "root or pass --content DIR\n")
    assert list(empty.iterdir()) == []  # nothing downloaded, nothing built
