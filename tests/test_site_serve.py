"""`ffsite serve`: builds, serves on 127.0.0.1, rebuilds on change.  (A busy port and
bad input: test_bad_input.py.)"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request

from site_fixture import REPO, write_content, write_tiny


def serve_command(root, port: int) -> list[str]:
    return [sys.executable, "-m", "ffsite", "serve", "--port", str(port), "--prefix",
            "/ffsite/", "--annotations", str(root / "annotations"), "--content",
            str(root / "content"), "--templates", str(REPO / "templates"), "--out",
            str(root / "site")]


def test_serves_the_site_and_rebuilds_on_change(tmp_path):
    write_tiny(tmp_path / "annotations")
    write_content(tmp_path / "content")
    process = subprocess.Popen(serve_command(tmp_path, 0), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = process.stdout.readline()  # "built ..." first, then "serving ..."
        assert line.startswith(f"built {tmp_path / 'site'}: "), line
        line = process.stdout.readline()
        assert line.startswith(f"serving {tmp_path / 'site'} at http://127.0.0.1:"), line
        url = line.split(" at ")[1].split()[0]
        with urllib.request.urlopen(url + "index.html", timeout=10) as response:
            assert response.status == 200 and b"Leaderboard" in response.read()
        (tmp_path / "content" / "intro.md").write_text("A brand new intro.\n", "utf-8")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with urllib.request.urlopen(url + "index.html", timeout=10) as response:
                if b"A brand new intro." in response.read():
                    break
            time.sleep(0.5)
        else:
            raise AssertionError("the site was not rebuilt after content/intro.md changed")
    finally:
        process.terminate()
        process.wait(timeout=30)
