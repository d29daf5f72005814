"""Where outputs go: a symlinked --out is written through (the link stays a link), and a
device, pipe or folder given as a file is refused, never replaced by a plain file."""

from __future__ import annotations

import os

import pytest
from helpers import run_here
from site_fixture import REPO, write_content, write_tiny

from ffsite._atomic import write_text
from ffsite.errors import FfsiteError


def test_a_symlinked_file_is_written_through(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_text(link, "new")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == "new"


@pytest.mark.parametrize("make", ["fifo", "folder", "device"])
def test_a_non_file_target_is_refused_and_left_alone(make, tmp_path):
    target = tmp_path / "target"
    if make == "fifo":
        os.mkfifo(target)
    elif make == "folder":
        target.mkdir()
    else:
        target = tmp_path / "null-link"
        target.symlink_to("/dev/null")  # a device, reached through a link
    with pytest.raises(FfsiteError, match="give the path of a file to write"):
        write_text(target, "x")
    if make == "device":
        assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")
    else:
        assert not target.is_file()


def test_the_cli_refuses_dev_null_as_out(tmp_path):
    write_tiny(tmp_path / "annotations")
    done = run_here("export", "annotated-pairs", str(tmp_path / "annotations"), "--out",
                    "/dev/null")
    assert done.returncode == 1
    assert done.stderr.strip() == ("error: /dev/null: is not a regular file (a device or "
                                   "pipe); give the path of a file to write")
    assert not os.path.isfile("/dev/null")


def test_a_symlinked_site_folder_is_built_through_the_link(tmp_path):
    write_tiny(tmp_path / "annotations")
    write_content(tmp_path / "content")
    (tmp_path / "real-site").mkdir()
    (tmp_path / "site").symlink_to(tmp_path / "real-site")
    for _ in range(2):  # a first build into the empty folder, then a rebuild
        done = run_here("build", "--annotations", str(tmp_path / "annotations"), "--content",
                        str(tmp_path / "content"), "--templates", str(REPO / "templates"),
                        "--out", str(tmp_path / "site"), "--quiet")
        assert done.returncode == 0, done.stderr
        assert (tmp_path / "site").is_symlink()
        assert (tmp_path / "real-site" / "index.html").is_file()
