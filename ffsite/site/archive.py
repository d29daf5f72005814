"""One archive of every published table: data/ffsite-data.zip.

Everything under data/ (each table's CSV and JSON) plus a README listing the files, the
page that shows each, and the sources of the data.  The archive is byte-identical
across builds of the same inputs: entries are sorted, and every entry carries the same
fixed timestamp (SOURCE_DATE_EPOCH when set, as reproducible builds agree, else
1980-01-01, the earliest a zip can record) and the same permissions.
"""

from __future__ import annotations

import datetime as dt
import io
import os
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ARCHIVE = "data/ffsite-data.zip"  # path in the site
EARLIEST = dt.datetime(1980, 1, 1, tzinfo=dt.UTC)  # a zip cannot record anything earlier


@dataclass(frozen=True)
class Archive:
    path: str  # in the site
    size: int  # bytes
    files: int  # data files in it (the README aside)

    @property
    def size_text(self) -> str:
        """"2.2 MB", "34 kB": what a reader needs before downloading."""
        return f"{self.size / 1e6:,.1f} MB" if self.size >= 1e5 else \
            f"{max(1, round(self.size / 1e3)):,} kB"


def timestamp() -> tuple[int, int, int, int, int, int]:
    """Every entry's date and time: SOURCE_DATE_EPOCH (UTC) if set, else 1980-01-01."""
    raw = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    when = EARLIEST
    if raw.isdigit():
        when = max(EARLIEST, dt.datetime.fromtimestamp(int(raw), tz=dt.UTC))
    return (when.year, when.month, when.day, when.hour, when.minute, when.second)


def readme(files: list[str], titles: dict[str, tuple[str, str]],
           sources: Iterable[str]) -> str:
    """The archive's README.txt: what each file is, where the site shows it, and the
    sources of the data."""
    lines = ["ffsite data: every table the site publishes, as CSV and as JSON (a list of",
             "rows).  Columns are documented in the repository, docs/site-data.md.", "",
             "Files (file: table, page that shows it):"]
    for name in files:
        title, page = titles.get(name.rsplit(".", 1)[0], ("", ""))
        lines.append(f"  {name}: {title}" + (f" (shown on {page})" if page else ""))
    lines += ["", "Sources of the data (credit, address, licence):"]
    lines += [f"  {source}" for source in sources] or ["  (none named)"]
    return "\n".join(lines) + "\n"


def write_archive(site: Path, titles: dict[str, tuple[str, str]], sources: Iterable[str]
                  ) -> Archive:
    """Zip every file under `site`/data (but the archive) into ARCHIVE.
    `titles`: table name -> (title, page); `sources`: credit lines for the README."""
    folder = site / "data"
    target = site / ARCHIVE
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                   if p.is_file() and p != target) if folder.is_dir() else []
    stamp = timestamp()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED,
                         compresslevel=6) as archive:
        entries = [("README.txt", readme(files, titles, sources).encode("utf-8"))]
        entries += [(name, (folder / name).read_bytes()) for name in files]
        for name, data in entries:
            info = zipfile.ZipInfo(name, stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, whatever builds it, so the bytes never differ
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(buffer.getvalue())
    return Archive(ARCHIVE, target.stat().st_size, len(files))
