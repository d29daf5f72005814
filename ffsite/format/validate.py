"""`ffsite validate`: the format's checks, file by file, then across files."""

from __future__ import annotations

import os
from collections.abc import Iterable

from ffsite.errors import FfsiteError
from ffsite.format import schema
from ffsite.format.read import (
    find_annotation_files,
    read_annotations,
    read_file_metadata,
    read_votes_file,
)
from ffsite.format.response_metrics import read_response_metrics, read_response_metrics_file
from ffsite.format.scores import read_scores, read_scores_file


def validate_paths(paths: Iterable[str | os.PathLike]) -> list[str]:
    """Validate every file; return one summary line per file. Raise on the first error."""
    files = find_annotation_files(paths)
    if not files:
        raise FfsiteError("no annotation files found in " + ", ".join(map(str, paths))
                          + "; give .parquet files or a folder that holds them")
    lines = []
    for path in files:
        metadata = read_file_metadata(path)
        if metadata.get("kind") == schema.KIND_VOTES:
            votes, _ = read_votes_file(path, use_cache=False)
            old = str(metadata.get("format_version")) == "1"
            lines.append(f"ok {path}: {votes.n_votes} votes on {votes.n_comparisons} "
                         "comparisons"
                         + (" (format version 1: `ffsite upgrade` rewrites it as version "
                            f"{schema.FORMAT_VERSION}, faster to read)" if old else ""))
        elif metadata.get("kind") == schema.KIND_RESPONSE_METRICS:
            rows = read_response_metrics_file(path)
            lines.append(f"ok {path}: response metrics of {len(rows)} responses")
        elif metadata.get("kind") == schema.KIND_SCORES:
            scores = read_scores_file(path, metadata)
            lines.append(f"ok {path}: {len(scores)} scores on {len(scores.responses)} "
                         f"responses, {len(scores.columns)} score columns")
        else:
            raise FfsiteError(f"{path}: unknown kind '{metadata.get('kind')}'")
    read_annotations(files)  # the cross-file rules
    read_scores(files)
    read_response_metrics(files)
    return lines
