"""Download the base datasets: the files each dataset's folder lists in its files.toml, or
those of a declaration given with `--sources` (docs/base-data.md).

Each declared file lands at `<cache>/<dataset>/<path>`, the layout FFSITE_BASE_DATA
expects.  A download goes to `<path>.part` first: an interrupted one is resumed with an
HTTP Range request, and only a complete file that passes its checksum is renamed into
place.  A file that fails its checksum is deleted, so nothing unverified is left behind
under the final name.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import quote

import httpx

from ffsite._names import safe_name
from ffsite._read import loads_json, read_toml
from ffsite._text import text_problem
from ffsite.datasets import DATASETS
from ffsite.errors import FfsiteError

UNVERIFIED = "unverified"
CHECKS = ("sha256", "json_sha256")  # of the bytes; of the parsed JSON (canonical form)
ATTEMPTS = 4

Progress = Callable[[str, int, int | None], None]  # (file label, bytes so far, total)


@dataclass(frozen=True)
class SourceFile:
    dataset: str
    path: str  # relative to <cache>/<dataset>/, POSIX separators
    url: str
    check: str  # one of CHECKS
    digest: str  # hex digest, or UNVERIFIED

    @property
    def label(self) -> str:
        return f"{self.dataset}/{self.path}"


def dataset_declarations() -> dict[str, list[SourceFile]]:
    """The files of every dataset that lists its downloads (its record's `files`)."""
    declared: dict[str, list[SourceFile]] = {}
    for dataset in DATASETS:
        if dataset.files:
            path = dataset.file(dataset.files)
            found = read_declaration(path)
            if set(found) != {dataset.id}:  # a slip in a shipped file: say which
                raise FfsiteError(f"{path}: declares {', '.join(found)}, not just "
                                  f"[{dataset.id}]")
            declared.update(found)
    return declared


def read_declaration(path: str | os.PathLike) -> dict[str, list[SourceFile]]:
    """The declared files per dataset, checked for the keys every entry needs."""
    path = Path(path)
    if not path.exists():
        raise FfsiteError(f"{path}: not found; give the base-data declaration with "
                          "--sources")
    document = read_toml(path)
    declared = {}
    for dataset, section in sorted(document.items()):
        if safe_name(dataset) != dataset:  # it names a folder under --cache-dir
            raise FfsiteError(f"{path}: [{dataset}]: a dataset name is a plain folder name "
                              "(letters, digits, '.', '-', '_'; not '..'); rename it")
        entries = section.get("files") if isinstance(section, dict) else None
        if isinstance(section, dict) and "manifest" in section:
            entries = _manifest_entries(path, dataset, section)
        if not isinstance(entries, list) or not entries:
            raise FfsiteError(f"{path}: [{dataset}] needs a non-empty list of [[{dataset}.files]]")
        declared[dataset] = [_source_file(path, dataset, i, e) for i, e in enumerate(entries)]
    return declared


def _manifest_entries(path: Path, dataset: str, section: dict) -> list[dict]:
    """The files of a dataset too large to list entry by entry: `manifest` names a file
    beside the declaration in `sha256sum` format ("<digest>  <path>" per line) and each
    file's url is `url_prefix` followed by its path."""
    prefix, name = section.get("url_prefix"), section.get("manifest")
    if not isinstance(prefix, str) or not prefix.endswith("/") or not isinstance(name, str):
        raise FfsiteError(f"{path}: [{dataset}] with a manifest needs url_prefix (ending in "
                          "'/') and manifest (a file name) as text")
    listing = path.parent / name
    try:
        lines = listing.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise FfsiteError(f"{listing}: cannot read the manifest of [{dataset}] ({exc})") from None
    entries = []
    for number, line in enumerate(lines, start=1):
        digest, _, relative = line.partition("  ")
        if not relative:
            raise FfsiteError(f"{listing}: line {number}: not '<sha256>  <path>'")
        entries.append({"path": relative, "url": prefix + quote(relative), "sha256": digest})
    return entries


def _source_file(path: Path, dataset: str, index: int, entry: object) -> SourceFile:
    where = f"{path}: [[{dataset}.files]] entry {index}"
    if not isinstance(entry, dict):
        raise FfsiteError(f"{where}: must be a table of 'path', 'url' and a checksum")
    checks = [name for name in CHECKS if name in entry]
    if not isinstance(entry.get("path"), str) or not isinstance(entry.get("url"), str) \
            or len(checks) != 1:
        raise FfsiteError(f"{where}: needs 'path', 'url' and one of 'sha256', 'json_sha256'")
    for key in ("path", "url"):
        problem = text_problem(entry[key], one_line=True)
        if problem:
            raise FfsiteError(f"{where}: '{key}': {problem}")
    relative = PurePosixPath(entry["path"])
    if relative.is_absolute() or ".." in relative.parts or not relative.parts:
        raise FfsiteError(f"{where}: path '{entry['path']}' must stay inside the dataset folder")
    if not entry["url"].startswith(("https://", "http://")):
        raise FfsiteError(f"{where}: url must start with https:// or http://")
    digest = str(entry[checks[0]]).lower()
    if digest != UNVERIFIED and (len(digest) != 64
                                 or any(c not in "0123456789abcdef" for c in digest)):
        raise FfsiteError(f"{where}: {checks[0]} must be 64 hex digits or '{UNVERIFIED}'")
    return SourceFile(dataset, str(relative), entry["url"], checks[0], digest)


def file_digest(path: Path, check: str) -> str:
    """SHA-256 of the file's bytes, or of its JSON content in canonical form.

    The canonical form (sorted keys, no spaces, UTF-8 unescaped) does not depend on how
    the JSON was indented or escaped, so a re-serialised copy has the same digest.
    """
    data = path.read_bytes()
    if check == "json_sha256":
        try:
            content = loads_json(data, source=str(path))
        except FfsiteError:
            return "not valid JSON"
        data = json.dumps(content, ensure_ascii=False, sort_keys=True,
                          separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def is_current(source: SourceFile, target: Path) -> bool:
    """Whether `target` exists and matches its declared checksum (if any)."""
    if not target.is_file():
        return False
    return source.digest == UNVERIFIED or file_digest(target, source.check) == source.digest


def fetch_file(client: httpx.Client, source: SourceFile, target: Path, *,
               progress: Progress | None = None, pause: float = 0.5) -> str:
    """Download one file into place; return 'up to date', 'downloaded' or 'unverified'."""
    if is_current(source, target):
        return "up to date"
    part = target.with_name(target.name + ".part")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _download(client, source, part, progress, pause)
        if source.digest != UNVERIFIED:
            found = file_digest(part, source.check)
            if found != source.digest:
                part.unlink()
                raise FfsiteError(
                    f"{source.label}: checksum mismatch ({source.check} expected "
                    f"{source.digest[:16]}..., got {found[:16]}...); the download from "
                    f"{source.url} was deleted; the source may have changed: fix the "
                    "declaration or use a local copy with --base-data")
        os.replace(part, target)
    except OSError as exc:  # a full disk, say: a part that cannot grow is no use to resume
        part.unlink(missing_ok=True)
        raise FfsiteError(f"{target}: writing the download failed ({exc.strerror}); the "
                          "partial file was deleted; free some space and run ffsite fetch "
                          "again") from None
    return "downloaded" if source.digest != UNVERIFIED else UNVERIFIED


def _download(client: httpx.Client, source: SourceFile, part: Path,
              progress: Progress | None, pause: float) -> None:
    """Fill `part` with the whole body of source.url, resuming what is already there."""
    failure = ""
    for attempt in range(ATTEMPTS):
        have = part.stat().st_size if part.exists() else 0
        # identity: byte ranges and checksums are about the file, not a compressed transfer
        headers = {"Accept-Encoding": "identity", **({"Range": f"bytes={have}-"} if have
                                                     else {})}
        try:
            with client.stream("GET", source.url, headers=headers) as response:
                if response.status_code == 416 and have:
                    return  # nothing after what we have: the part is complete
                if response.status_code in (429, 500, 502, 503, 504):
                    failure = f"HTTP {response.status_code}"
                    time.sleep(pause * (attempt + 1))
                    continue
                if response.status_code not in (200, 206):
                    raise FfsiteError(
                        f"{source.url}: HTTP {response.status_code} "
                        f"{response.reason_phrase}; the file for {source.label} is not there; "
                        "the declaration may be out of date")
                resumed = response.status_code == 206
                if resumed and not _starts_at(response, have):
                    part.unlink()  # an answer for another range: start again from zero
                    failure = "the server answered with an unexpected range"
                    continue
                done = have if resumed else 0
                length = response.headers.get("Content-Length")
                total = done + int(length) if length and length.isdigit() else None
                with open(part, "ab" if resumed else "wb") as out:
                    for chunk in response.iter_raw():  # as it arrives, so a cut keeps it
                        out.write(chunk)
                        done += len(chunk)
                        if progress:
                            progress(source.label, done, total)
                return
        except httpx.TransportError as exc:
            failure = f"{type(exc).__name__}: {exc}"
            time.sleep(pause * (attempt + 1))
    kept = part.stat().st_size if part.exists() else 0
    raise FfsiteError(f"{source.url}: download failed after {ATTEMPTS} attempts ({failure}); "
                      f"{kept} bytes kept in {part}; run ffsite fetch again to resume, or "
                      "use a local copy with --base-data")


def _starts_at(response: httpx.Response, offset: int) -> bool:
    """Whether a 206 answer continues at `offset` (Content-Range: bytes START-END/TOTAL)."""
    value = response.headers.get("Content-Range", "")
    start = value.removeprefix("bytes ").split("-", 1)[0]
    return start.isdigit() and int(start) == offset


def select(declared: dict[str, list[SourceFile]], names: Iterable[str]) -> list[str]:
    """The dataset names to work on (all when none are named)."""
    names = list(names) or sorted(declared)
    unknown = [name for name in names if name not in declared]
    if unknown:
        raise FfsiteError(f"base dataset '{unknown[0]}' is not declared; declared: "
                          + ", ".join(sorted(declared)))
    return names


def fetch(declared: dict[str, list[SourceFile]], names: Iterable[str], cache_dir: Path, *,
          progress: Progress | None = None, client: httpx.Client | None = None,
          pause: float = 0.5) -> list[str]:
    """Download the named datasets into `cache_dir`; return one summary line per dataset."""
    lines = []
    own_client = client is None
    client = client or httpx.Client(follow_redirects=True,
                                    timeout=httpx.Timeout(30.0, read=120.0))
    try:
        for dataset in select(declared, names):
            outcomes: dict[str, int] = {}
            for source in declared[dataset]:
                outcome = fetch_file(client, source, cache_dir / dataset / source.path,
                                     progress=progress, pause=pause)
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
            lines.append(f"{dataset}: " + ", ".join(
                f"{n} {what}" for what, n in sorted(outcomes.items())))
    finally:
        if own_client:
            client.close()
    return lines


def check_copy(declared: dict[str, list[SourceFile]], names: Iterable[str],
               folder: Path) -> list[str]:
    """Compare a local copy with the declaration; one line per dataset, raise on a mismatch."""
    lines = []
    for dataset in select(declared, names):
        verified = unverified = 0
        for source in declared[dataset]:
            target = folder / dataset / source.path
            if source.digest == UNVERIFIED:
                unverified += 1
                continue
            if not target.is_file():
                raise FfsiteError(f"{target}: missing from the local copy; run ffsite fetch "
                                  f"--cache-dir {folder} {dataset} to download it")
            found = file_digest(target, source.check)
            if found != source.digest:
                raise FfsiteError(f"{target}: {source.check} {found[:16]}... does not match "
                                  f"the declared {source.digest[:16]}...; the copy is damaged "
                                  f"or out of date: run ffsite fetch --cache-dir {folder} "
                                  f"{dataset} to download it again")
            verified += 1
        lines.append(f"{dataset}: {verified} files match their checksums, "
                     f"{unverified} not checked (no checksum declared)")
    return lines
