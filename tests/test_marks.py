"""The marks of the inner loop (`pytest -m "not slow and not browser"`, CONTRIBUTING.md):
registered, set by conftest.py on every test they describe, and browser tests last."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def ini_options() -> dict:
    """pytest's settings in pyproject.toml."""
    return tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["tool"]["pytest"][
        "ini_options"]


def test_the_marks_are_registered_and_strict():
    options = ini_options()
    assert {line.split(":")[0] for line in options["markers"]} == {"slow", "browser"}
    assert "--strict-markers" in options["addopts"].split()


def test_the_inner_loop_is_documented():
    contributing = (REPO / "CONTRIBUTING.md").read_text("utf-8")
    assert 'pytest -m "not slow and not browser"' in contributing
    assert 'pytest -m "not slow and not browser"' in (REPO / "README.md").read_text("utf-8")


def test_browser_and_real_data_tests_carry_their_marks(request):
    """Of the tests selected in this session: those that use Chromium are `browser` (and
    only those), run after all the others, and those that use the default site are `slow`."""
    items = request.session.items
    uses = {item.nodeid: set(getattr(item, "fixturenames", ())) for item in items}
    for item in items:
        assert bool(item.get_closest_marker("browser")) == ("chromium" in uses[item.nodeid]), \
            item.nodeid
        if "default_site" in uses[item.nodeid]:
            assert item.get_closest_marker("slow"), item.nodeid
    in_browser = ["chromium" in uses[item.nodeid] for item in items]
    assert in_browser == sorted(in_browser)


GROUP = "kept-in-one-worker"


@pytest.mark.xdist_group(GROUP)
def test_a_group_of_tests_is_kept_in_one_worker(request):
    """pytest-xdist (--dist loadgroup, pyproject.toml) keeps the tests of one xdist_group in
    one worker by a suffix on their node ids, so that one worker makes the fixtures they
    share (the default site's phone visit).  With pytest 9.2 the suffix is silently lost
    (xdist issue 1386): the visit was made in both workers.  pyproject.toml holds pytest
    below 9.2 until xdist follows."""
    assert "--dist loadgroup" in ini_options()["addopts"]
    if os.environ.get("PYTEST_XDIST_WORKER"):  # (`-n 0` runs everything in one process)
        assert request.node.nodeid.endswith(f"@{GROUP}"), request.node.nodeid
