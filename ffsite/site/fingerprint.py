"""What a site is built from, as one hash: a rebuild of unchanged inputs is the site already
there, so `ffsite build` (and `serve`'s first build) can say "current" in a second instead
of computing it all again.

The hash covers everything the output depends on: the bytes of every annotation file, of
content/ and templates/, of ffsite's own code and data files, and of the base data; the
"last updated" date; and the versions of the libraries that shape the output.  Hashing
the base data's 170 MB takes seconds, so each file's hash is kept in the cache, keyed by
its path, size and modification time, and only a file that changed is read again (one
rewritten in place with the same size and time would not be noticed: `--force`).  A
site records its hash in `INPUTS`, a file of the site: the same inputs anywhere give the
same bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

from ffsite._atomic import atomic_path
from ffsite._cache import cache_root

INPUTS = ".ffsite-inputs"  # the hash of a built site's inputs, and what the build said
PACKAGE = Path(__file__).resolve().parents[1]  # ffsite/
# Libraries whose versions can change bytes of the output (numbers, SVG, HTML, Parquet).
LIBRARIES = ("jinja2", "markdown-it-py", "nh3", "numpy", "pandas", "pyarrow", "scipy")


def fingerprint(files: Iterable[Path], content: Path, templates: Path,
                base_dir: Path | None, last_updated: str | None) -> str:
    """The hash of a build's inputs (see the module docstring)."""
    return combined(fingerprint_parts(files, content, templates, base_dir, last_updated))


def fingerprint_parts(files: Iterable[Path], content: Path, templates: Path,
                      base_dir: Path | None, last_updated: str | None) -> dict[str, str]:
    """The hash of each kind of input: `ffsite serve` re-renders a template edit with
    only the templates' part hashed again (ffsite.site.rerender)."""
    annotations = _Digest()
    for path in sorted(Path(f) for f in files):
        annotations.add(f"{path.parent.name}/{path.name}", path.read_bytes())
    base = _Digest()
    if base_dir is not None:
        known = _Hashes()
        for relative, path, stat in _files_under(base_dir):
            base.add(relative, known.of(path, stat).encode())
        known.save()
    return {"annotations": annotations.hex(), "content": _folder(content),
            "templates": templates_part(templates), "ffsite": _folder(PACKAGE),
            "base": base.hex() if base_dir is not None else "none",
            "last_updated": str(last_updated),
            "libraries": json.dumps({name: _version(name) for name in LIBRARIES})}


def templates_part(templates: Path) -> str:
    return _folder(templates)


def combined(parts: dict[str, str]) -> str:
    """The one hash a site records, from `fingerprint_parts`."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


class _Digest:
    def __init__(self) -> None:
        self.digest = hashlib.sha256()

    def add(self, label: str, data: bytes) -> None:
        self.digest.update(f"{label}\0{len(data)}\0".encode())
        self.digest.update(data)

    def hex(self) -> str:
        return self.digest.hexdigest()


def _folder(folder: Path) -> str:
    digest = _Digest()
    for relative, path, _ in _files_under(folder, skip=("__pycache__",)):
        digest.add(relative, Path(path).read_bytes())
    return digest.hex()


def recorded(out: Path) -> dict | None:
    """What the site at `out` recorded of its build (fingerprint, counts, notes)."""
    try:
        found = json.loads((out / INPUTS).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def record(fingerprint: str, pages: int, files: int, size: int, notes: list[str]) -> str:
    """The INPUTS file of a site; `files` and `size` count the site without it."""
    return json.dumps({"fingerprint": fingerprint, "pages": pages, "files": files,
                       "bytes": size, "notes": notes}, sort_keys=True, indent=1) + "\n"


class _Hashes:
    """Files' SHA-256 kept in the cache by (path, size, modification time)."""

    def __init__(self) -> None:
        self.path = cache_root() / "fingerprints.json"
        try:
            self.known = json.loads(self.path.read_text("utf-8"))
        except (OSError, ValueError):
            self.known = {}
        self.changed = False

    def of(self, path: str, found: os.stat_result) -> str:
        """The hash of the file at `path` (absolute), whose stat is `found`."""
        stamp = [found.st_size, found.st_mtime_ns]
        kept = self.known.get(path)
        if not (isinstance(kept, list) and kept[:2] == stamp):
            with open(path, "rb") as handle:
                kept = [*stamp, hashlib.file_digest(handle, "sha256").hexdigest()]
            self.known[path] = kept
            self.changed = True
        return str(kept[2])

    def save(self) -> None:
        if self.changed:
            try:
                with atomic_path(self.path) as tmp:
                    Path(tmp).write_text(json.dumps(self.known, sort_keys=True), "utf-8")
            except OSError:
                pass  # a cache that cannot be written is only slower next time


def _files_under(folder: Path, skip: tuple[str, ...] = ()
                 ) -> list[tuple[str, str, os.stat_result]]:
    """(path relative to `folder` with "/", absolute path, stat) of every regular file
    under `folder` (none when it is missing): a folder's files by name, then its folders
    by name (not those named in `skip`, nor those reached through a link).  One stat a
    file: the base data's 16,000 files took 0.5 s through pathlib."""
    found: list[tuple[str, str, os.stat_result]] = []

    def visit(absolute: str, relative: str) -> None:
        with os.scandir(absolute) as entries:
            listed = sorted(entries, key=lambda entry: entry.name)
        folders = []
        for entry in listed:
            if entry.is_dir():
                if not entry.is_symlink() and entry.name not in skip:
                    folders.append(entry)
            elif entry.is_file():
                found.append((relative + entry.name, entry.path, entry.stat()))
        for entry in folders:
            visit(entry.path, f"{relative}{entry.name}/")

    if os.path.isdir(folder):
        visit(os.path.realpath(folder), "")
    return found


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "none"
