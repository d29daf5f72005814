"""The annotation format (docs/format.md): what other packages may use.

Read votes files with `read_annotations` (any number of files, merged into one
`Annotations`) or `read_votes_file` (one file, as `CodedVotes`); look inside one with
`vote_rows`.  Write them with `write_votes` (votes one per row, or laid out by
`encode_votes`) and response-metrics files with `write_response_metrics`; read those with
`read_response_metrics`; scores files (version 3) with `write_scores` and `read_scores`.
`validate_paths` and `upgrade_paths` are `ffsite validate` and
`ffsite upgrade`; `schema` holds the format's constants.

Other packages import these names from here, or from the public submodules (`schema`,
`read`, `write`, `encode`, ...); modules named `_*` are this package's own.

A name is imported on first use (PEP 562): importing `ffsite.format.schema` or the reader
does not also load the writer, the upgrader and the rest, so commands start no slower
than when they imported the submodules directly.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for readers and tools; at run time `__getattr__` imports on use
    from ffsite.format import schema
    from ffsite.format._columns import codes_of, text_problem
    from ffsite.format.coded import CodedVotes
    from ffsite.format.encode import EncodedVotes, encode_votes
    from ffsite.format.read import (
        Annotations,
        find_annotation_files,
        read_annotations,
        read_file_metadata,
        read_votes_file,
        vote_rows,
    )
    from ffsite.format.response_metrics import read_response_metrics
    from ffsite.format.scores import Scores, read_scores, write_scores
    from ffsite.format.upgrade import upgrade_paths
    from ffsite.format.validate import validate_paths
    from ffsite.format.write import Written, write_response_metrics, write_votes

__all__ = [
    "Annotations",
    "CodedVotes",
    "Scores",
    "EncodedVotes",
    "Written",
    "codes_of",
    "encode_votes",
    "find_annotation_files",
    "read_annotations",
    "read_file_metadata",
    "read_response_metrics",
    "read_scores",
    "read_votes_file",
    "schema",
    "text_problem",
    "upgrade_paths",
    "validate_paths",
    "vote_rows",
    "write_response_metrics",
    "write_scores",
    "write_votes",
]

# The module each public name comes from ("schema" is a module itself).
_HOME = {
    "Annotations": "read",
    "CodedVotes": "coded",
    "Scores": "scores",
    "EncodedVotes": "encode",
    "Written": "write",
    "codes_of": "_columns",
    "text_problem": "_columns",
    "encode_votes": "encode",
    "find_annotation_files": "read",
    "read_annotations": "read",
    "read_file_metadata": "read",
    "read_response_metrics": "response_metrics",
    "read_scores": "scores",
    "read_votes_file": "read",
    "schema": "schema",
    "upgrade_paths": "upgrade",
    "validate_paths": "validate",
    "vote_rows": "read",
    "write_response_metrics": "write",
    "write_scores": "scores",
    "write_votes": "write",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'ffsite.format' has no attribute '{name}'")
    module = importlib.import_module(f"ffsite.format.{home}")
    value = module if home == name else getattr(module, name)
    globals()[name] = value  # later look-ups find it without coming here
    return value
