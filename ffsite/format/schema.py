"""The released annotation format (documented in docs/format.md).

Version 2, which ffsite writes, holds one row per comparison and one vote column per
annotator (`_wide.py`).  Version 1, still read, holds one row per vote: the columns that
describe the comparison and the annotator repeat on every vote row.  Writers hand votes
over either in that long shape (`votes_schema`; checked by version 1's rules) or laid out
by `encode.encode_votes`.
"""

from __future__ import annotations

import pyarrow as pa

FORMAT_VERSION = "2"  # what ffsite writes for votes and response metrics
VERSION_3 = "3"  # adds scores files and vote margins; written only for files that use them
READABLE_VERSIONS = ("1", "2", "3")
METADATA_KEY = b"ffsite"

KIND_VOTES = "votes"
KIND_RESPONSE_METRICS = "response-metrics"
KIND_SCORES = "scores"
KINDS = (KIND_VOTES, KIND_RESPONSE_METRICS, KIND_SCORES)

ROLE_PREFERENCE = "preference"
ROLE_TRAIT = "trait"
ROLES = (ROLE_PREFERENCE, ROLE_TRAIT)

# Vote values and their in-memory codes.  Code 0 means "no vote row at all".
NO_VOTE = 0
A = 1
B = 2
TIE = 3  # tie, or both sides show the trait
NEITHER = 4  # neither side / not applicable
INVALID = 5  # the judge failed or its answer could not be parsed
MISSING = 6  # the annotator was asked but gave nothing for this item
VOTE_VALUES = ("A", "B", "tie", "neither", "invalid", "missing")
VOTE_CODES = {value: code for code, value in enumerate(VOTE_VALUES, start=1)}

META_PREFIX = "meta."

# Per-comparison columns: every vote row of one comparison carries the same values.
COMPARISON_COLUMNS = (
    "dataset",
    "comparison_id",
    "prompt_id",
    "model_a",
    "model_b",
    "response_a_id",
    "response_b_id",
)
# How strongly a judge preferred its side, when it says (version 3): 1 (slightly) .. 5.
MARGIN_RANGE = (1, 5)

# Per-vote columns.
VOTE_COLUMNS = ("role", "judge", "trait_id", "trait", "trait_set", "seed", "vote", "note")
REQUIRED_COLUMNS = COMPARISON_COLUMNS + VOTE_COLUMNS
NOT_NULL_COLUMNS = ("dataset", "comparison_id", "role", "judge", "vote")
# Columns a trait vote must fill in (a preference vote leaves them empty).
TRAIT_COLUMNS = ("trait_id", "trait", "trait_set")
# The vote columns that describe who voted: an annotator is a distinct (role, judge,
# trait_id); trait and trait_set are the trait's wording and list.
ANNOTATOR_COLUMNS = ("role", "judge", *TRAIT_COLUMNS)

_DICT_STRING = pa.dictionary(pa.int32(), pa.string())


def annotator_order(role: str | None, judge: str | None, trait_id: str | None) -> tuple:
    """Sort key of an annotator: role, judge, trait id, missing values last.  Readers of
    both versions and the writer number annotators in this order, so what they code agrees."""
    return tuple((1, "") if value is None else (0, value) for value in (role, judge, trait_id))


def votes_schema(meta_columns: list[str]) -> pa.Schema:
    """Arrow schema of votes in the long shape (a version 1 file), with the given metadata
    columns (names with prefix)."""
    fields = [pa.field(name, _DICT_STRING, nullable=name not in NOT_NULL_COLUMNS)
              for name in COMPARISON_COLUMNS]
    for name in VOTE_COLUMNS:
        if name == "seed":
            fields.append(pa.field(name, pa.int64(), nullable=True))
        else:
            fields.append(pa.field(name, _DICT_STRING, nullable=name not in NOT_NULL_COLUMNS))
    fields.extend(pa.field(name, _DICT_STRING, nullable=True) for name in sorted(meta_columns))
    return pa.schema(fields)


# Response-metrics files: one row per response, numbers only (no text).
RESPONSE_ID_COLUMNS = ("dataset", "response_id", "prompt_id", "model")
