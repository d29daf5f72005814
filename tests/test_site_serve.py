"""`ffsite serve`: builds, serves on 127.0.0.1, rebuilds on change.  (A busy port and
bad input: test_bad_input.py.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest
from site_fixture import REPO, write_content, write_tiny


def serve_command(root, port: int, templates=REPO / "templates") -> list[str]:
    return [sys.executable, "-m", "ffsite", "serve", "--port", str(port), "--prefix",
            "/ffsite/", "--annotations", str(root / "annotations"), "--content",
            str(root / "content"), "--templates", str(templates), "--out",
            str(root / "site")]


def served_until(url: str, text: bytes, what: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with urllib.request.urlopen(url, timeout=10) as response:
            if text in response.read():
                return
        time.sleep(0.2)
    raise AssertionError(f"the site was not rebuilt after {what} changed")


@pytest.mark.slow  # a real `ffsite serve` process: a build, changes, a rebuild, a re-render
def test_serves_the_site_rebuilds_on_change_and_re_renders_a_template_edit(tmp_path):
    write_tiny(tmp_path / "annotations")
    write_content(tmp_path / "content")
    templates = tmp_path / "templates"
    shutil.copytree(REPO / "templates", templates)
    process = subprocess.Popen(serve_command(tmp_path, 0, templates), stdout=subprocess.PIPE,
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
        served_until(url + "index.html", b"A brand new intro.", "content/intro.md")
        page = templates / "traits.html"
        page.write_text(page.read_text("utf-8").replace(
            "{% block main %}", "{% block main %}<p>an edited template</p>", 1), "utf-8")
        served_until(url + "traits.html", b"an edited template", "templates/traits.html")
        process.terminate()
        said = process.communicate(timeout=30)[1].splitlines()
        # The content change rebuilt the site; the template edit re-rendered its pages.
        assert said.index("rebuilt") < said.index(
            "re-rendered the pages of the changed templates"), said
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_a_nul_byte_in_the_url_is_a_404_not_a_traceback(tmp_path, capfd):
    import http.client

    from ffsite.site import serve as preview

    (tmp_path / "index.html").write_text("home")
    (tmp_path / "404.html").write_text("not here")
    server = preview.make_server(tmp_path, 0, "/")
    preview.serve_in_background(server)
    try:
        for path in ("/a%00b.html", "/%00", "/index.html%00.png"):
            connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1],
                                                    timeout=10)
            connection.request("GET", path)
            response = connection.getresponse()
            assert (response.status, response.read()) == (404, b"not here"), path
            connection.close()
        with urllib.request.urlopen(preview.url_of(server) + "index.html", timeout=10) as ok:
            assert ok.read() == b"home"  # still serving
    finally:
        server.shutdown()
        server.server_close()
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.slow  # > 2.4 s: a real build, fit or watcher (CI runs it)
def test_the_watcher_debounces_a_burst_and_survives_a_failing_rebuild(tmp_path):
    import threading

    from ffsite.site import serve as preview

    calls, errors, stop = [], [], threading.Event()

    def on_change():
        calls.append(time.monotonic())
        if len(calls) == 1:
            raise KeyError("a rebuild that fails in an unexpected way")

    watcher = preview.watch([tmp_path], on_change, stop, interval=0.1, settle=0.4,
                            on_error=errors.append)
    try:
        for n in range(20):  # one burst: an editor or `git checkout` writing many files
            (tmp_path / f"f{n % 3}.txt").write_text(str(n))
            time.sleep(0.02)
        deadline = time.monotonic() + 10
        while not calls and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)
        assert len(calls) == 1  # one rebuild for the whole burst
        assert [type(e) for e in errors] == [KeyError]
        (tmp_path / "f0.txt").write_text("again")  # the watcher is still alive
        while len(calls) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(calls) == 2 and watcher.is_alive()
    finally:
        stop.set()
        watcher.join(timeout=5)
