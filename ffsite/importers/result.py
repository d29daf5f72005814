"""What importers return: votes ready for `write_votes` (ImportResult) or scores ready for
`write_scores` (ScoresImport), and what goes with them."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
import pyarrow as pa

from ffsite.format import EncodedVotes


@dataclass(frozen=True)
class ImportResult:
    """Votes (in any form `write_votes` takes) plus what goes in the file metadata
    (`default_preference`, `annotators`: descriptions of preference annotators) and in the
    base data (`prompts`, `responses`: texts by id, for `dataset`); `skipped` counts
    input rows left out, by reason."""

    table: pd.DataFrame | pa.Table | EncodedVotes
    default_preference: dict[str, str]
    annotators: dict[str, str] = field(default_factory=dict)
    prompts: dict[str, str] = field(default_factory=dict)
    responses: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    dataset: str = ""


@dataclass
class ScoresImport:
    """What a scores importer produced: one row per score, and what the file records."""

    frame: pd.DataFrame  # ffsite.format.scores.LONG_COLUMNS plus meta.*
    dataset: str
    judges: dict[str, str]
    prompts: dict[str, str] = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
    report: list[str] = field(default_factory=list)  # what was left out, in words
