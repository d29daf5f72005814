"""`serve` with `--out` inside a watched folder (issue 28): the watcher ignores the site it
writes (and its staging folders), so one change is one rebuild, not a rebuild for ever."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest
from site_fixture import REPO, write_content, write_tiny

from ffsite.site import serve as preview


def test_the_snapshot_leaves_out_the_site_and_its_staging_folders(tmp_path):
    content = tmp_path / "content"
    for path in ("intro.md", "site/index.html", ".site-abcd1234/index.html",
                 ".site-abcd1234-old/index.html", "sitemap/a.md", ".sitex-1/b.md"):
        (content / path).parent.mkdir(parents=True, exist_ok=True)
        (content / path).write_text("x")
    listed = {os.path.relpath(path, content) for path, _, _ in
              preview.snapshot([content], ignore=[content / "site"])}
    assert listed == {"intro.md", "sitemap/a.md", ".sitex-1/b.md"}


@pytest.mark.slow  # > 3 s: a kill and resume, a real build or fit (CI runs it)
def test_one_change_is_one_rebuild_when_the_site_is_inside_the_watched_folder(tmp_path):
    write_tiny(tmp_path / "annotations")
    content = write_content(tmp_path / "content")
    out = content / "site"
    process = subprocess.Popen(
        [sys.executable, "-m", "ffsite", "serve", "--port", "0", "--annotations",
         str(tmp_path / "annotations"), "--content", str(content), "--templates",
         str(REPO / "templates"), "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    rebuilt: list[float] = []

    def count() -> None:
        for line in process.stderr:
            if line.startswith("rebuilt"):
                rebuilt.append(time.monotonic())

    threading.Thread(target=count, daemon=True).start()
    try:
        for _ in range(2):  # "built ...", then "serving ..."
            assert process.stdout.readline(), "serve stopped before serving"
        touched = time.monotonic()
        (content / "intro.md").write_text("A brand new intro.\n", "utf-8")
        deadline = touched + 180
        while not rebuilt and time.monotonic() < deadline:
            time.sleep(0.2)
        assert rebuilt, "no rebuild after content/intro.md changed"
        # A rebuild that saw its own output would start within about 1.5 s of the first
        # one ending and take as long: wait for well over both.
        time.sleep(max(8.0, 2.5 * (rebuilt[0] - touched)))
        assert len(rebuilt) == 1, f"{len(rebuilt)} rebuilds after one change"
        assert "A brand new intro." in (out / "index.html").read_text("utf-8")
    finally:
        process.terminate()
        process.wait(timeout=30)
