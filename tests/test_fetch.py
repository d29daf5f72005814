"""`ffsite fetch` against a real HTTP server on 127.0.0.1 that the tests start."""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import socket
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from helpers import run_here

from ffsite.datasets import fetch
from ffsite.errors import FfsiteError

REPO = Path(__file__).resolve().parents[1]
RECORDS = [{"instruction": "Say hi", "output": "Hi \u00e9t\u00e9 \U0001F600", "n": 1}] * 50
JSON_BYTES = json.dumps(RECORDS, indent=2).encode()  # escaped and indented, like upstream
GZ_BYTES = gzip.compress(random.Random(0).randbytes(300_000), mtime=0)


class Server:
    """Serves `files`; honours `Range: bytes=N-`; can cut a response off mid-body."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.drop: dict[str, int] = {}  # path -> how many more answers to cut short
        self.requests: list[tuple[str, str | None]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                server.requests.append((self.path, self.headers.get("Range")))
                data = server.files.get(self.path)
                if data is None:
                    self.send_error(404)
                    return
                start = 0
                if self.headers.get("Range"):
                    start = int(self.headers["Range"].removeprefix("bytes=").split("-")[0])
                    if start >= len(data):
                        self.send_response(416)
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    self.send_response(206)
                    self.send_header("Content-Range",
                                     f"bytes {start}-{len(data) - 1}/{len(data)}")
                else:
                    self.send_response(200)
                body = data[start:]
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if server.drop.get(self.path, 0) > 0:
                    server.drop[self.path] -= 1
                    self.wfile.write(body[:len(body) // 3])
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    running = Server()
    running.files = {"/outputs.json": JSON_BYTES, "/test.jsonl.gz": GZ_BYTES,
                     "/notes.txt": b"no checksum for me\n"}
    yield running
    running.close()


def canonical_sha256(records) -> str:
    """Independent of ffsite: SHA-256 of the records dumped compactly with sorted keys."""
    text = json.dumps(records, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def declare(tmp_path: Path, server: Server, *, gz_sha: str | None = None,
            gz_url: str = "/test.jsonl.gz") -> Path:
    gz_sha = gz_sha or hashlib.sha256(GZ_BYTES).hexdigest()
    text = f"""
[demo]
description = "test data"

[[demo.files]]
path = "model_outputs/m.json"
url = "{server.url}/outputs.json"
json_sha256 = "{canonical_sha256(RECORDS)}"

[[demo.files]]
path = "pairs.jsonl.gz"
url = "{server.url}{gz_url}"
sha256 = "{gz_sha}"

[[demo.files]]
path = "notes.txt"
url = "{server.url}/notes.txt"
sha256 = "unverified"
"""
    path = tmp_path / "base-data.toml"
    path.write_text(text)
    return path


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """`ffsite ARGS` from the repository's folder (in this process: see helpers.run_here)."""
    return run_here(*args, cwd=REPO)


def test_fetch_downloads_verifies_and_lays_out(tmp_path, server):
    cache = tmp_path / "cache"
    result = run_cli("fetch", "--sources", str(declare(tmp_path, server)),
                     "--cache-dir", str(cache))
    assert result.returncode == 0, result.stderr
    assert (cache / "demo/model_outputs/m.json").read_bytes() == JSON_BYTES
    assert (cache / "demo/pairs.jsonl.gz").read_bytes() == GZ_BYTES
    assert (cache / "demo/notes.txt").read_bytes() == b"no checksum for me\n"
    assert "demo: 2 downloaded, 1 unverified" in result.stdout
    assert f"FFSITE_BASE_DATA={cache}" in result.stdout
    assert not list(cache.rglob("*.part"))
    # A second run finds everything in place and asks the server for nothing.
    before = len(server.requests)
    again = run_cli("fetch", "--sources", str(declare(tmp_path, server)),
                    "--cache-dir", str(cache))
    assert again.returncode == 0 and "demo: 3 up to date" in again.stdout
    assert len(server.requests) == before


def test_dropped_connection_is_resumed_with_range(tmp_path, server):
    server.drop["/test.jsonl.gz"] = 1
    declared = fetch.read_declaration(declare(tmp_path, server))
    fetch.fetch(declared, ["demo"], tmp_path / "cache", pause=0.01)
    assert (tmp_path / "cache/demo/pairs.jsonl.gz").read_bytes() == GZ_BYTES
    asked = [r for path, r in server.requests if path == "/test.jsonl.gz"]
    cut = len(GZ_BYTES) // 3
    assert asked == [None, f"bytes={cut}-"]


def test_failed_download_keeps_part_and_next_run_resumes(tmp_path, server):
    server.drop["/test.jsonl.gz"] = fetch.ATTEMPTS + 1  # every attempt of the first run
    declared = fetch.read_declaration(declare(tmp_path, server))
    with pytest.raises(FfsiteError, match="run ffsite fetch again to resume"):
        fetch.fetch(declared, ["demo"], tmp_path / "cache", pause=0.01)
    target = tmp_path / "cache/demo/pairs.jsonl.gz"
    part = target.with_name(target.name + ".part")
    assert not target.exists() and 0 < part.stat().st_size < len(GZ_BYTES)
    kept = part.stat().st_size
    server.drop.clear()
    server.requests.clear()
    fetch.fetch(declared, ["demo"], tmp_path / "cache", pause=0.01)
    assert target.read_bytes() == GZ_BYTES and not part.exists()
    assert [r for r in server.requests if r[0] == "/test.jsonl.gz"] == [
        ("/test.jsonl.gz", f"bytes={kept}-")]


def test_complete_part_file_is_verified_and_moved_into_place(tmp_path, server):
    """A run that died after the last byte but before the rename: the server answers the
    Range request with 416 (nothing left), and the part passes its checksum."""
    target = tmp_path / "cache/demo/pairs.jsonl.gz"
    target.parent.mkdir(parents=True)
    target.with_name(target.name + ".part").write_bytes(GZ_BYTES)
    declared = fetch.read_declaration(declare(tmp_path, server))
    fetch.fetch(declared, ["demo"], tmp_path / "cache", pause=0.01)
    assert target.read_bytes() == GZ_BYTES
    assert ("/test.jsonl.gz", f"bytes={len(GZ_BYTES)}-") in server.requests


def test_bad_checksum_is_one_line_and_leaves_nothing(tmp_path, server):
    cache = tmp_path / "cache"
    result = run_cli("fetch", "--sources", str(declare(tmp_path, server, gz_sha="0" * 64)),
                     "--cache-dir", str(cache))
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1
    assert errors[0].startswith("error: demo/pairs.jsonl.gz: checksum mismatch")
    assert "Traceback" not in result.stderr
    assert not (cache / "demo/pairs.jsonl.gz").exists()
    assert not (cache / "demo/pairs.jsonl.gz.part").exists()


def test_missing_file_is_a_clear_404(tmp_path, server):
    declared = fetch.read_declaration(declare(tmp_path, server, gz_url="/gone.jsonl.gz"))
    with pytest.raises(FfsiteError, match=r"gone.jsonl.gz: HTTP 404 .*declaration may be out"):
        fetch.fetch(declared, ["demo"], tmp_path / "cache", pause=0.01)
    assert not list((tmp_path / "cache/demo").glob("pairs*"))


def test_declaration_paths_stay_inside_the_cache(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('[x]\n[[x.files]]\npath = "../../etc/passwd"\nurl = "https://e.org/a"\n'
                    'sha256 = "unverified"\n')
    with pytest.raises(FfsiteError, match="must stay inside the dataset folder"):
        fetch.read_declaration(path)


def test_declared_checksums_match_the_shared_copy(shared_data):
    """The datasets' files.toml checksums describe the files in ../shared/data."""
    result = run_cli("fetch", "--check", str(shared_data))
    assert result.returncode == 0, result.stderr
    assert "alpaca_eval: 67 files match their checksums, 35 not checked" in result.stdout
    assert "hh_rlhf: 1 files match their checksums, 0 not checked" in result.stdout
    assert "llm_dreams: 15597 files match their checksums, 0 not checked" in result.stdout
    assert "poem_eval: 4 files match their checksums, 0 not checked" in result.stdout


def test_a_manifest_lists_files_beside_the_declaration(tmp_path):
    (tmp_path / "files.sha256").write_text(f"{'a' * 64}  x/one.txt\n{'b' * 64}  two words.txt\n")
    path = tmp_path / "decl.toml"
    path.write_text('[d]\nurl_prefix = "https://e.org/c/"\nmanifest = "files.sha256"\n')
    files = fetch.read_declaration(path)["d"]
    assert [(f.path, f.url, f.check, f.digest) for f in files] == [
        ("x/one.txt", "https://e.org/c/x/one.txt", "sha256", "a" * 64),
        ("two words.txt", "https://e.org/c/two%20words.txt", "sha256", "b" * 64)]
    (tmp_path / "files.sha256").write_text("no-digest-here\n")
    with pytest.raises(FfsiteError, match=r"files.sha256: line 1: not '<sha256>  <path>'"):
        fetch.read_declaration(path)
    path.write_text('[d]\nurl_prefix = "https://e.org/c"\nmanifest = "files.sha256"\n')
    with pytest.raises(FfsiteError, match="needs url_prefix"):
        fetch.read_declaration(path)
