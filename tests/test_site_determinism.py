"""Two builds from the same inputs are byte-identical, in one process or in two; the
"last updated" date comes from SOURCE_DATE_EPOCH or git, never the clock."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from helpers import tree
from site_fixture import REPO, build_tiny, write_content, write_tiny

from ffsite.site.build import build_site


@pytest.mark.slow  # three builds, one in a fresh process
def test_rebuild_is_byte_identical_across_processes(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    first = tree(build_tiny(tmp_path / "one"))
    assert tree(build_tiny(tmp_path / "two")) == first
    # A fresh process with another hash seed, through the command line, and an empty
    # cache: the results the builds above kept in the session's cache are computed anew.
    root = tmp_path / "one"
    env = {**os.environ, "PYTHONHASHSEED": "12345", "SOURCE_DATE_EPOCH": "1700000000",
           "FFSITE_CACHE_DIR": str(tmp_path / "empty-cache")}
    subprocess.run([sys.executable, "-m", "ffsite", "build", "--annotations",
                    str(root / "annotations"), "--base-data", str(root / "base"),
                    "--content", str(root / "content"), "--templates",
                    str(REPO / "templates"), "--out", str(tmp_path / "three"), "--quiet"],
                   check=True, env=env, cwd=tmp_path)
    third = tree(tmp_path / "three")
    assert list((tmp_path / "empty-cache" / "results").iterdir())  # it did compute them
    assert third.keys() == first.keys()
    assert [name for name in first if first[name] != third[name]] == []
    assert b"Last updated 2023-11-14." in first["index.html"]


def test_last_updated_comes_from_git_history(tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    annotations = tmp_path / "annotations"
    write_tiny(annotations)
    content = write_content(tmp_path / "content")
    build_site(annotations, tmp_path / "no-git", content=content, templates=REPO / "templates")
    assert b"Last updated" not in (tmp_path / "no-git" / "index.html").read_bytes()

    env = {**os.environ, "GIT_AUTHOR_DATE": "2024-02-03T12:00:00Z",
           "GIT_COMMITTER_DATE": "2024-02-03T12:00:00Z", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org"}
    for command in (["init", "-q"], ["add", "annotations"], ["commit", "-q", "-m", "votes"]):
        subprocess.run(["git", *command], cwd=tmp_path, check=True, env=env)
    build_site(annotations, tmp_path / "site", content=content, templates=REPO / "templates")
    assert b"Last updated 2024-02-03." in (tmp_path / "site" / "index.html").read_bytes()


def test_page_builders_run_in_any_order(tmp_path, monkeypatch):
    """Builders only compute; pages are rendered once all have run, so the downloads page
    lists every table even when its builder runs first."""
    from ffsite.site import build as build_module
    from ffsite.site.pages import PAGE_BUILDERS

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    in_order = tree(build_tiny(tmp_path / "in-order"))
    monkeypatch.setattr(build_module, "PAGE_BUILDERS", PAGE_BUILDERS[::-1])
    reversed_ = tree(build_tiny(tmp_path / "reversed"))
    assert reversed_.keys() == in_order.keys()
    assert [name for name in in_order if in_order[name] != reversed_[name]] == []


@pytest.mark.slow  # > 3 s: a kill and resume, a real build or fit (CI runs it)
def test_a_rebuild_through_one_cache_reuses_the_ratings(tmp_path, monkeypatch):
    """`ffsite serve` hands one ResultsCache to every rebuild: while the files stay the
    same the models are not rated again and the site is byte-identical; a changed file is
    rated again.  A build without one (`ffsite build`) always rates afresh."""
    from ffsite.metrics import results
    from ffsite.site.context import ResultsCache

    calls = []
    rate = results.ratings_table

    def counting(*args, **kwargs):
        calls.append(kwargs["anchor"])
        return rate(*args, **kwargs)

    monkeypatch.setattr(results, "ratings_table", counting)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    root = tmp_path / "inputs"
    fresh = tree(build_tiny(root))
    assert calls == ["R"]

    def build(out: str, cache: ResultsCache | None) -> dict[str, bytes]:
        build_site(root / "annotations", tmp_path / out, content=root / "content",
                   templates=REPO / "templates", base_data=root / "base", cache=cache)
        return tree(tmp_path / out)

    cache = ResultsCache()
    assert build("one", cache) == fresh
    assert calls == ["R", "R"]
    assert build("two", cache) == fresh  # the kept ratings: same bytes, no refit
    assert calls == ["R", "R"]
    build("three", None)
    assert calls == ["R", "R", "R"]
    os.utime(root / "annotations" / "tiny.parquet", ns=(1, 1))  # changed: rated again
    build("four", cache)
    assert calls == ["R", "R", "R", "R"]
    build("five", cache)
    assert calls == ["R", "R", "R", "R"]
