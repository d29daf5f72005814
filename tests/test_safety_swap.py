"""The site swap touches only folders ffsite marked (issue 28): a user's `.site-settings/`
beside `--out` survives every build, and on a system without the atomic exchange a
kill -9 between the two renames leaves the old site to be put back, not no site."""

from __future__ import annotations

import subprocess
import sys

from site_fixture import REPO, write_content, write_tiny

from ffsite.site import swap
from ffsite.site.build import build_site

KILL_IN_THE_FALLBACK_SWAP = """
import os, signal, sys
from pathlib import Path
import ffsite.site.swap as s
out = Path(sys.argv[1])
staging = s.staging_folder(out)
(staging / "index.html").write_text("new")
(staging / s.SITE_MARKER).write_text("")
s._exchange = lambda a, b: False  # a system without renameat2(RENAME_EXCHANGE)
real = os.rename
def rename(a, b):
    real(a, b)
    if str(b).endswith("-old"):  # the old site moved aside, the new one not yet in
        os.kill(os.getpid(), signal.SIGKILL)
os.rename = rename
s.swap_in(staging, out)
"""


def old_site(out):
    out.mkdir()
    (out / "index.html").write_text("old")
    (out / swap.SITE_MARKER).write_text("")
    return out


def test_folders_named_like_staging_but_not_marked_are_never_removed(tmp_path):
    out = old_site(tmp_path / "site")
    for name in (".site-settings", ".site-abcd1234", ".site-abcd1234-old"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "mine.txt").write_text("mine")
    with swap.locked(tmp_path):
        swap.recover(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".site-abcd1234", ".site-abcd1234-old", ".site-settings", "site"]
    assert (tmp_path / ".site-settings" / "mine.txt").read_text() == "mine"


def test_a_staging_folder_carries_a_marker_that_the_site_does_not(tmp_path):
    out = old_site(tmp_path / "site")
    staging = swap.staging_folder(out)
    assert (staging / swap.STAGING_MARKER).is_file()  # removable from its first moment
    (staging / "index.html").write_text("new")
    swap.swap_in(staging, out)
    assert sorted(p.name for p in out.iterdir()) == ["index.html"]  # no marker published
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_a_kill_between_the_two_renames_leaves_the_old_site_to_put_back(tmp_path):
    out = old_site(tmp_path / "site")
    killed = subprocess.run([sys.executable, "-c", KILL_IN_THE_FALLBACK_SWAP, str(out)],
                            capture_output=True, text=True)
    assert killed.returncode == -9, killed.stderr
    assert not out.exists()  # the moment without the folder, frozen by the kill
    (tmp_path / ".site-settings").mkdir()  # and a user's folder, named like ours
    with swap.locked(tmp_path):
        swap.recover(out)
    assert (out / "index.html").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".site-settings", "site"]


def test_the_next_build_after_such_a_kill_puts_a_whole_site_in(tmp_path):
    out = old_site(tmp_path / "site")
    killed = subprocess.run([sys.executable, "-c", KILL_IN_THE_FALLBACK_SWAP, str(out)],
                            capture_output=True, text=True)
    assert killed.returncode == -9 and not out.exists(), killed.stderr
    write_tiny(tmp_path / "annotations")
    write_content(tmp_path / "content")
    build_site(tmp_path / "annotations", out, content=tmp_path / "content",
               templates=REPO / "templates")
    assert (out / "index.html").read_text("utf-8").startswith("<!doctype html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["annotations", "content", "site"]
