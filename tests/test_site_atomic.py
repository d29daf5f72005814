"""A failed build exits non-zero with one line naming the cause and leaves the previous
site exactly as it was; nothing half-written stays behind.  (Bad annotation files, a full
disk and the other inputs every command shares: test_bad_input.py.)

The builds run `ffsite build` in this process (ffsite.cli.main, as the console script runs
it); the previous site is built once and copied for each test."""

from __future__ import annotations

import shutil

import pytest
from helpers import run_here
from helpers import tree as snapshot
from site_fixture import REPO, write_content, write_tiny


def run_build(root, *extra, templates=None):
    return run_here(
        "build", "--annotations", str(root / "annotations"), "--content", str(root / "content"),
        "--templates", str(templates or REPO / "templates"), "--out", str(root / "site"),
        "--quiet", *extra, cwd=root)



@pytest.fixture(scope="module")
def previous(tmp_path_factory):
    """The tiny set's annotations and content, and the site `ffsite build` made of them."""
    root = tmp_path_factory.mktemp("atomic")
    write_tiny(root / "annotations")
    write_content(root / "content")
    done = run_build(root)
    assert done.returncode == 0, done.stderr
    return root


@pytest.fixture
def built(previous, tmp_path):
    shutil.copytree(previous, tmp_path, dirs_exist_ok=True, symlinks=True)
    return tmp_path


def assert_failed_cleanly(done, root, before, *needles):
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert all(needle in lines[0] for needle in needles), lines[0]
    assert "Traceback" not in done.stderr
    assert snapshot(root / "site") == before
    assert sorted(p.name for p in root.iterdir()) == ["annotations", "content", "site"] + (
        ["templates"] if (root / "templates").exists() else [])


def test_failure_while_writing_pages_keeps_the_old_site(built):
    before = snapshot(built / "site")
    templates = built / "templates"
    shutil.copytree(REPO / "templates", templates)
    (templates / "trait.html").write_text("{% extends 'base.html' %}{% block main %}"
                                          "{{ no_such_value }}{% endblock %}", "utf-8")
    done = run_build(built, templates=templates)
    assert_failed_cleanly(done, built, before, "trait.html", "no_such_value")


def test_bad_settings_name_the_key(built):
    before = snapshot(built / "site")
    (built / "content" / "site.toml").write_text('reference_modle = "R"\n', "utf-8")
    assert_failed_cleanly(run_build(built), built, before, "site.toml", "reference_modle")
    (built / "content" / "site.toml").write_text('reference_model = "nobody"\n', "utf-8")
    assert_failed_cleanly(run_build(built), built, before, "site.toml", "nobody")


def test_refuses_to_replace_a_folder_it_did_not_build(tmp_path):
    write_tiny(tmp_path / "annotations")
    write_content(tmp_path / "content")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "notes.txt").write_text("mine", "utf-8")
    done = run_build(tmp_path)
    assert done.returncode == 1 and "not built by ffsite" in done.stderr
    assert (tmp_path / "site" / "notes.txt").read_text("utf-8") == "mine"
