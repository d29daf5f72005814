"""EigenBench judgments that datasets derive from data other than pairwise votes: a
dataset's record says how (its `peer_judgments` hook, `(scores, registry) -> [Derived]`),
and this module asks every record that has one, with the scores its judges' own numbers
are in.  The records are passed in: the metrics never import the datasets."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ffsite.format import Scores
from ffsite.metrics.eigenbench.judgments import Derived


def derived_constitutions(records: Iterable[Any], scores: Scores, judge_scores: Scores,
                          panels: Mapping[str, Any], registry: Any = None) -> list[Derived]:
    """Every record's derived judgments, in the records' order.  A dataset whose judges
    form a declared panel (`panels`, by dataset id) has each member's own scores in
    `judge_scores`; any other dataset's judges' scores are in `scores`."""
    found: list[Derived] = []
    present = set(scores.responses["dataset"]) | set(judge_scores.responses["dataset"])
    for record in records:
        if record.peer_judgments is None or record.id not in present:
            continue
        own = judge_scores if record.id in panels else scores
        found.extend(record.hook("peer_judgments")(own, registry))
    return found
