"""`ffsite upgrade`: rewrite version 1 annotation files as version 2, in place.

Version 1 files stay readable; upgrading makes them smaller and about three times faster
to read.  Every vote is kept (seeds and notes too) and so is the file's metadata.  A
file is checked in full by the version 1 reader first, so a broken file is reported
exactly as `ffsite validate` reports it and left as it was; the rewrite is atomic.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ffsite.errors import FfsiteError
from ffsite.format import schema
from ffsite.format._columns import unreadable
from ffsite.format.read import find_annotation_files, read_file_metadata, read_votes_file
from ffsite.format.read import vote_rows as read_vote_rows
from ffsite.format.write import file_metadata, write_parquet, write_votes


def upgrade_paths(paths: Iterable[str | os.PathLike]) -> list[str]:
    """Upgrade every annotation file under `paths`; one line per file."""
    paths = list(paths)
    files = find_annotation_files(paths)
    if not files:
        raise FfsiteError("no annotation files (.parquet) in " + ", ".join(map(str, paths))
                          + "; give annotation files or a folder that holds them")
    return [upgrade_file(path) for path in files]


def upgrade_file(path: Path) -> str:
    """Rewrite one file as version 2 unless it already is; say what was done."""
    metadata = read_file_metadata(path)
    if str(metadata.get("format_version")) != "1":  # version 3 only adds to version 2
        return f"{path}: already version {metadata.get('format_version')}"
    kind = metadata.get("kind")
    if kind == schema.KIND_VOTES:
        read_votes_file(path, use_cache=False)  # every rule, errors naming the file's rows
        written = write_votes(read_vote_rows(path), path,
                              default_preference=metadata.get("default_preference"),
                              annotators=metadata.get("annotators"),
                              extra=metadata.get("extra"))
        return (f"upgraded {path}: {written.num_rows} votes on {written.num_comparisons} "
                "comparisons")
    if kind == schema.KIND_RESPONSE_METRICS:  # the same columns in both versions
        try:
            table = pq.read_table(path)
        except (pa.ArrowInvalid, OSError) as exc:
            raise unreadable(path, exc) from None
        write_parquet(table.replace_schema_metadata(None),
                      file_metadata(kind, extra=metadata.get("extra")), path)
        return f"upgraded {path}: response metrics of {table.num_rows} responses"
    raise FfsiteError(f"{path}: unknown kind '{kind}'; ffsite writes votes and "
                      "response-metrics files")
