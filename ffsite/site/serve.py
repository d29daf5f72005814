"""A preview server for a built site, on 127.0.0.1, optionally under a subpath.

Like a static host: files under the prefix are served from the site folder, anything
else gets 404.html with status 404.  The folder is looked up on every request, so a
rebuild that swaps the site in is picked up at once.
"""

from __future__ import annotations

import errno
import http.server
import os
import threading
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from stat import S_ISREG
from urllib.parse import unquote, urlsplit

from ffsite.errors import ParameterError

HOST = "127.0.0.1"


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    prefix = "/"

    def translate_path(self, path: str) -> str:
        route = unquote(urlsplit(path).path)
        if not route.startswith(self.prefix) or "\x00" in route:  # (NUL: no file has it)
            return str(Path(self.directory) / ".ffsite-outside-prefix" / "missing")
        return super().translate_path("/" + route[len(self.prefix):])

    def send_error(self, code: int, message: str | None = None,
                   explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (the base's name)
        if self.server.verbose:  # type: ignore[attr-defined]
            super().log_message(format, *args)


def make_server(site: str | Path, port: int = 8000, prefix: str = "/",
                verbose: bool = False) -> http.server.ThreadingHTTPServer:
    """A server for `site` at http://127.0.0.1:<port><prefix> (port 0: any free port)."""
    prefix = "/" + prefix.strip("/") + "/" if prefix.strip("/") else "/"
    handler = type("Handler", (SiteHandler,), {"prefix": prefix})
    try:
        server = http.server.ThreadingHTTPServer(
            (HOST, port), partial(handler, directory=str(Path(site).resolve())))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ParameterError(f"port {port} on {HOST} is already in use; stop the other "
                                 "server or pick another with {port} N", "port") from None
        raise ParameterError(f"cannot listen on {HOST}:{port} ({exc.strerror}); pick another "
                             "{port}", "port") from None
    server.verbose = verbose  # type: ignore[attr-defined]
    server.daemon_threads = True
    return server


def serve_in_background(server: http.server.ThreadingHTTPServer) -> threading.Thread:
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return thread


def url_of(server: http.server.ThreadingHTTPServer, prefix: str = "/") -> str:
    prefix = "/" + prefix.strip("/") + "/" if prefix.strip("/") else "/"
    return f"http://{HOST}:{server.server_address[1]}{prefix}"


def snapshot(folders: list[Path], ignore: Iterable[Path] = ()) -> tuple:
    """(path, size, mtime) of every file under `folders`: changes when an input changes.
    A file that vanishes while the folders are listed is simply not in it.  Nothing in
    an `ignore` folder or in its staging folders (`.NAME-*` beside it) is listed: the
    site a rebuild writes, when it lies inside a watched folder."""
    skip = [Path(os.path.realpath(folder)) for folder in ignore]

    def skipped(path: Path) -> bool:
        return any(path == s or (path.parent == s.parent and path.name.startswith(
            f".{s.name}-")) for s in skip)

    entries = []
    for folder in folders:
        for root, dirs, files in os.walk(os.path.realpath(folder)):
            dirs[:] = [name for name in dirs if not skipped(Path(root, name))]
            for name in files:
                path = Path(root, name)
                try:
                    stat = path.stat()
                except OSError:
                    continue
                if S_ISREG(stat.st_mode) and not skipped(path):
                    entries.append((str(path), stat.st_size, stat.st_mtime_ns))
    return tuple(sorted(entries))


def watch(folders: list[Path], on_change: Callable[[], None], stop: threading.Event,
          interval: float = 1.0, settle: float = 0.5,
          on_error: Callable[[Exception], None] | None = None,
          ignore: Iterable[Path] = ()) -> threading.Thread:
    """Call `on_change()` whenever a file under `folders` (not under `ignore`, where
    `on_change` writes) changes, until `stop` is set.

    Debounced: a burst of writes (an editor saving, a `git checkout`) gives one call, once
    nothing has changed for `settle` seconds; changes made during a call give one more.
    The watcher never dies: an exception from `on_change` or from listing the folders
    goes to `on_error` and watching goes on."""
    ignore = list(ignore)
    # Before returning, not in the thread: a change made as soon as `watch` returns (and
    # `serve` says it is serving) is a change, not part of the first listing.
    first = _quietly(lambda: snapshot(folders, ignore), on_error) or ()

    def loop() -> None:
        last = first
        while not stop.wait(interval):
            current = _quietly(lambda: snapshot(folders, ignore), on_error)
            if current is None or current == last:
                continue
            while not stop.wait(settle):  # wait for the burst to end
                settled = _quietly(lambda: snapshot(folders, ignore), on_error)
                if settled == current:
                    break
                current = settled
            last = current
            _quietly(on_change, on_error)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    return thread


def _quietly(call: Callable[[], object], on_error: Callable[[Exception], None] | None):
    try:
        return call()
    except Exception as exc:  # the watcher must outlive any one bad rebuild
        if on_error is not None:
            on_error(exc)
        return None
