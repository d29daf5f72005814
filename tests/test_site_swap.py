"""The site folder is whole at every instant: swapped in atomically, locked against a
second build, and the staging folders of a killed build are cleaned up."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest
from site_fixture import REPO, write_content, write_tiny

from ffsite.site import swap


def build_command(root):
    return [sys.executable, "-m", "ffsite", "build", "--annotations", str(root / "annotations"),
            "--content", str(root / "content"), "--templates", str(REPO / "templates"),
            "--out", str(root / "site"), "--quiet"]


def tiny_workspace(root):
    write_tiny(root / "annotations")
    write_content(root / "content")
    return root


def test_the_swap_never_leaves_a_moment_without_the_site(tmp_path):
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("0")
    missing, stop = [], threading.Event()

    def watch():
        while not stop.is_set():
            if not (out / "index.html").is_file():
                missing.append(1)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        for n in range(1, 200):
            staging = swap.staging_folder(out)
            (staging / "index.html").write_text(str(n))
            swap.swap_in(staging, out)
    finally:
        stop.set()
        watcher.join()
    assert missing == []
    assert (out / "index.html").read_text() == "199"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # no staging left


@pytest.mark.slow  # > 3 s: a kill and resume, a real build or fit (CI runs it)
def test_leftovers_of_a_killed_build_are_removed_and_nothing_else(tmp_path):
    root = tiny_workspace(tmp_path)
    # Named as mkdtemp names them and marked by ffsite: a staging folder, and an old site.
    for name, marker in ((".site-abcd1234", swap.STAGING_MARKER),
                         (".site-k9_xYz00-old", swap.SITE_MARKER)):
        (root / name / "models").mkdir(parents=True)
        (root / name / "models" / "m1.html").write_text("half")
        (root / name / marker).write_text("")
    # Not ours, whatever the name: kept, with what is in them.
    for name in (".site-keep", ".sitex-abcd1234", ".other", ".site-settings",
                 ".site-abcd1234-old0", ".site-zzzz9999-old"):
        (root / name).mkdir()
        (root / name / "mine.txt").write_text("mine")
    done = subprocess.run(build_command(root), capture_output=True, text=True, cwd=root)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in root.iterdir()) == [
        ".other", ".site-abcd1234-old0", ".site-keep", ".site-settings", ".site-zzzz9999-old",
        ".sitex-abcd1234", "annotations", "content", "site"]
    assert (root / ".site-settings" / "mine.txt").read_text() == "mine"


@pytest.mark.slow  # builds in fresh processes, one killed with SIGKILL
def test_a_real_kill_9_mid_build_is_cleaned_up_by_the_next_build(tmp_path):
    root = tiny_workspace(tmp_path)
    # Stop the build inside the lock, after the staging folder exists: the SIGKILL a
    # killed CI job or an impatient user sends.
    code = ("import os, signal, sys\n"
            "import ffsite.site.swap as s\n"
            "real = s.staging_folder\n"
            "def die(out):\n"
            "    folder = real(out)\n"
            "    (folder / 'index.html').write_text('half')\n"
            "    os.kill(os.getpid(), signal.SIGKILL)\n"
            "s.staging_folder = die\n"
            "from ffsite.cli import main\n"
            "sys.argv = ['ffsite', *sys.argv[1:]]\n"
            "main()\n")
    killed = subprocess.run([sys.executable, "-c", code, *build_command(root)[3:]],
                            capture_output=True, text=True, cwd=root)
    assert killed.returncode == -9
    assert any(p.name.startswith(".site-") for p in root.iterdir())
    done = subprocess.run(build_command(root), capture_output=True, text=True, cwd=root)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in root.iterdir()) == ["annotations", "content", "site"]
    assert (root / "site" / "index.html").read_text("utf-8").startswith("<!doctype html>")


@pytest.mark.slow  # two builds in fresh processes, one waiting for the other's lock
def test_two_builds_at_once_into_one_folder_both_succeed_one_after_the_other(tmp_path):
    root = tiny_workspace(tmp_path)
    builds = [subprocess.Popen(build_command(root), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=root) for _ in range(3)]
    results = [(b.wait(timeout=300), b.stderr.read()) for b in builds]
    assert [code for code, _ in results] == [0, 0, 0], results
    assert sorted(p.name for p in root.iterdir()) == ["annotations", "content", "site"]
    assert (root / "site" / ".ffsite-site").is_file()
    assert (root / "site" / "index.html").is_file()
