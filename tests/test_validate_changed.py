"""The pull-request check's file selection (.github/scripts/validate-changed.sh), run
for real: a git repository, a base branch and a pull request that adds, changes and
renames annotation files whose names have spaces, quotes, newlines and non-ASCII."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import write_test_votes
from site_fixture import REPO, write_tiny

SCRIPT = REPO / ".github" / "scripts" / "validate-changed.sh"
ODD_NAMES = ["with space.parquet", "quote ' and \" here.parquet", "ünïcødé 模型.parquet",
             "new\nline.parquet"]


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                          check=True, env={**os.environ, "GIT_AUTHOR_NAME": "t",
                                           "GIT_AUTHOR_EMAIL": "t@example.org",
                                           "GIT_COMMITTER_NAME": "t",
                                           "GIT_COMMITTER_EMAIL": "t@example.org"})
    return done.stdout


def run_script(repo: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHON": sys.executable,
           "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(["bash", str(SCRIPT), "main"], cwd=repo, capture_output=True,
                          text=True, env=env, timeout=300)


@pytest.fixture
def repo(tmp_path):
    repo = tmp_path / "repo"
    write_tiny(repo / "annotations")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "pr")
    return repo


def test_nothing_changed(repo):
    done = run_script(repo)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "no annotation files changed"


def small_file(path: Path, prefix: str) -> None:
    """A valid votes file of its own comparisons (prefix-c1, prefix-c2)."""
    comparisons = [{"comparison_id": f"{prefix}-c{n}", "dataset": f"d-{prefix}",
                    "model_a": "m1", "model_b": "R"} for n in (1, 2)]
    votes = [{"comparison_id": c["comparison_id"], "role": "preference", "judge": "pj",
              "vote": "A"} for c in comparisons]
    write_test_votes(path, comparisons, votes)


def test_odd_names_added_and_renamed_are_all_validated(repo):
    (repo / "annotations" / "more").mkdir()
    for n, name in enumerate(ODD_NAMES):
        small_file(repo / "annotations" / "more" / name, f"f{n}")
    git(repo, "mv", "annotations/metrics.parquet", "annotations/renamed metrics.parquet")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    done = run_script(repo)
    assert done.returncode == 0, done.stderr
    for name in ["renamed metrics.parquet", *[f"more/{n}" for n in ODD_NAMES]]:
        assert f"ok annotations/{name}: " in done.stdout, (name, done.stdout)
    assert "tiny.parquet" not in done.stdout  # unchanged: not checked again


def test_a_changed_contribution_is_checked_against_the_site(repo):
    contrib = repo / "annotations" / "contrib"
    contrib.mkdir()
    shutil.copy(repo / "annotations" / "tiny.parquet", contrib / "my model.parquet")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "contribution")
    done = run_script(repo)
    assert done.returncode == 1
    # Not made by ffsite annotate: refused by the --site checks, naming the file.
    assert ("error: annotations/contrib/my model.parquet: no run summary naming the model"
            in done.stderr), done.stderr


def test_a_protocol_contribution_says_whether_it_is_comparable(repo, tmp_path, shared_data):
    """The pull request adds a run of llm-dreams' protocol (made against the local chat
    server) to a site with llm-dreams' published scores: the check says which case it
    is."""
    from annotate_helpers import api_env, run_cli
    from chat_server import ChatServer
    from protocol_fixture import Script

    shutil.copy(REPO / "annotations" / "llm_dreams" / "scores.parquet",
                repo / "annotations" / "llm_dreams.parquet")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the site has llm-dreams")
    git(repo, "branch", "-f", "main")
    out = repo / "annotations" / "contrib" / "llm_dreams" / "lab dreamer.parquet"
    with ChatServer(Script(shared_data)) as server:
        made = run_cli(["protocol", "run", "llm-dreams", "--model", "lab/dreamer",
                        "--base-data", str(shared_data), "--cache-dir", str(tmp_path / "c"),
                        "--out", str(out)], api_env(server.url))
        assert made.exit_code == 0, made.output
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "contribution")
    done = run_script(repo)
    assert done.returncode == 0, done.stderr
    assert "ok annotations/contrib/llm_dreams/lab dreamer.parquet: model 'lab/dreamer', " \
        "protocol llm-dreams" in done.stdout
    assert "comparable: same protocol (llm-dreams llm-dreams-1) and judges as llm-dreams: " \
        "ranked with its 236 models and marked 'contributed'" in done.stdout
