"""The rules for votes one per row — a version 1 file, or the long frames writers hand
over — checked on their coded columns (docs/format.md; version 2 files: `_wide.py`).

Version 1 files written by ffsite are sorted, so each comparison's rows are one run and a
repeated vote sits next to the original: the checks compare neighbouring rows.  Any other order is
still read correctly, through slower hashing and sorting.  Rules about annotators are
checked on the small table of distinct annotators, not per row.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ffsite.errors import FfsiteError
from ffsite.format import schema
from ffsite.format._columns import ColumnReader, decode, first_empty, first_rows, ranks
from ffsite.format.coded import CodedVotes


def check_votes(check: ColumnReader, metadata: dict[str, Any]) -> CodedVotes:
    """Check every rule; return the votes, coded."""
    if metadata.get("kind", schema.KIND_VOTES) != schema.KIND_VOTES:
        raise FfsiteError(f"{check.source}: holds '{metadata.get('kind')}', not votes")
    for name in schema.REQUIRED_COLUMNS:
        if name not in check.names:
            check.fail(name, None, "missing; every votes file needs the columns "
                       + ", ".join(schema.REQUIRED_COLUMNS))
    meta_columns = sorted(c for c in check.names if c.startswith(schema.META_PREFIX))
    per_comparison_columns = [*schema.COMPARISON_COLUMNS[2:], *meta_columns]
    check.plan(["vote", "dataset", "comparison_id", *per_comparison_columns,
                *schema.ANNOTATOR_COLUMNS, "seed"])
    votes = _vote_codes(check)

    runs = _comparison_runs(check)
    per_comparison = {"dataset": (runs.dataset_codes[runs.first], runs.datasets),
                      "comparison_id": (runs.id_codes[runs.first], runs.ids)}
    runs.forget_rows()
    for name in per_comparison_columns:
        if not check.wanted(name):
            if name in schema.COMPARISON_COLUMNS:  # keep the standard columns, empty
                per_comparison[name] = (np.full(len(runs.first), -1, np.int8), [])
            continue
        codes, values = check.codes(name)
        row = runs.first_difference(codes)
        if row >= 0:
            check.fail(name, row, f"comparison '{runs.id_of(row)}' of dataset "
                       f"'{runs.dataset_of(row)}' appears with two different values (rows "
                       f"{runs.owner(row)} and {row}); comparison ids must be unique within "
                       "a dataset")
        per_comparison[name] = (codes[runs.first], values)

    annotators = _Annotators(check, runs.width())
    for name in ("trait", "trait_set"):
        annotators.add_attribute(name)
    annotators.check_roles_and_traits()

    row = _first_repeated_vote(check, runs, annotators.number) if check.wanted("seed") else -1
    if row >= 0:
        check.fail("seed", row, f"comparison '{runs.id_of(row)}' has two votes from judge "
                   f"'{annotators.judge_of(row)}' with the same seed; give repeated votes "
                   "distinct seeds")
    return CodedVotes(
        comparisons={name: decode(*pair) for name, pair in per_comparison.items()},
        annotators={name: decode(*pair) for name, pair in annotators.columns.items()},
        comparison=runs.comparison, annotator=annotators.number, vote=votes)


class _Annotators:
    """Annotators are distinct (role, judge, trait_id); rows point to them by number.

    The three columns have small dictionaries, so each row's combination is one integer
    in a small space, numbered through a lookup table in sorted (role, judge, trait_id)
    order — no hashing of 40 million rows.
    """

    def __init__(self, check: ColumnReader, width: int | None):
        self.check = check
        role_codes, self.roles = _filled(check, "role")
        judge_codes, self.judges = _filled(check, "judge")
        trait_codes, self.trait_ids = check.codes("trait_id")
        n_rows = len(role_codes)
        # Usually every comparison lists the same annotators in the same order (`width`
        # rows each): then the first comparison's rows number everyone's.
        self.period = width if width and all(
            _periodic(codes, width) for codes in (role_codes, judge_codes, trait_codes)) else None
        if self.period:
            role_codes, judge_codes = role_codes[:width], judge_codes[:width]
            trait_codes = trait_codes[:width]
        sizes = (len(self.roles), len(self.judges) + 1, len(self.trait_ids) + 1)
        space = sizes[0] * sizes[1] * sizes[2]
        dtype = np.int16 if space < 2**15 else np.int32 if space < 2**31 else np.int64
        raw = (role_codes.astype(dtype) * sizes[1] + judge_codes + 1) * sizes[2] + trait_codes
        raw += 1
        del role_codes, judge_codes, trait_codes
        present = np.zeros(sizes[0] * sizes[1] * sizes[2], dtype=bool)
        present[raw] = True
        keys = np.flatnonzero(present)
        role, rest = np.divmod(keys, sizes[1] * sizes[2])
        judge, trait = np.divmod(rest, sizes[2])
        role, judge, trait = role, judge - 1, trait - 1
        order = sorted(range(len(keys)), key=lambda i: schema.annotator_order(
            self.roles[role[i]], self.judges[judge[i]],
            None if trait[i] < 0 else self.trait_ids[trait[i]]))
        lookup = np.zeros(len(present), dtype=np.int32)
        lookup[keys[order]] = np.arange(len(keys), dtype=np.int32)
        self.number = lookup[raw]
        if self.period:
            self.number = np.tile(self.number, n_rows // self.period)
        del raw
        self.count = len(keys)
        self.first = first_rows(self.number, self.count)
        self.columns = {"role": (role[order].astype(np.int32), self.roles),
                        "judge": (judge[order].astype(np.int32), self.judges),
                        "trait_id": (trait[order].astype(np.int32), self.trait_ids)}

    def is_trait(self) -> np.ndarray:
        codes, values = self.columns["role"]
        return np.array([values[c] == schema.ROLE_TRAIT for c in codes], dtype=bool)

    def add_attribute(self, name: str) -> None:
        """Read a column that must be constant per annotator (trait wording, trait set)."""
        codes, values = self.check.codes(name)
        rows, numbers = codes, self.number
        if self.period and _periodic(codes, self.period):  # the first period says it all
            rows, numbers = codes[:self.period], self.number[:self.period]
        differs = rows != codes[self.first][numbers]
        if differs.any():
            row = int(np.argmax(differs))
            self.check.fail(name, row, f"trait '{self.trait_id_of(row)}' has two different "
                            f"{name} values (rows {int(self.first[self.number[row]])} and "
                            f"{row}); give each wording its own trait_id")
        self.columns[name] = (codes[self.first], values)

    def check_roles_and_traits(self) -> None:
        for code, value in enumerate(self.roles):
            if value not in schema.ROLES:
                annotator = int(np.flatnonzero(self.columns["role"][0] == code)[0])
                self.check.fail("role", int(self.first[annotator]), f"'{value}' is not a "
                                "role; allowed: " + ", ".join(schema.ROLES))
        is_trait = self.is_trait()
        for name in schema.TRAIT_COLUMNS:
            empty = is_trait & (self.columns[name][0] < 0)
            if empty.any():
                row = int(self.first[np.flatnonzero(empty)[0]])
                self.check.fail(name, row, "empty on a trait vote; a trait vote records "
                                "trait_id, trait (its wording) and trait_set")
        frame = pd.DataFrame({"trait_id": decode(*self.columns["trait_id"]),
                              "trait": decode(*self.columns["trait"])}).dropna()
        wordings = frame.groupby("trait_id", observed=True)["trait"].nunique()
        if (wordings > 1).any():
            trait_id = wordings[wordings > 1].index[0]
            annotator = frame.index[frame["trait_id"].astype(object) == trait_id][-1]
            self.check.fail("trait", int(self.first[annotator]), f"trait '{trait_id}' has two "
                            "different wordings; give each wording its own trait_id")

    def trait_id_of(self, row: int) -> str | None:
        code = self.columns["trait_id"][0][self.number[row]]
        return self.trait_ids[code] if code >= 0 else None

    def judge_of(self, row: int) -> str:
        return self.judges[self.columns["judge"][0][self.number[row]]]


def _periodic(codes: np.ndarray, width: int) -> bool:
    """Whether the codes repeat the first `width` of them all the way through."""
    return len(codes) % width == 0 and bool((codes.reshape(-1, width) == codes[:width]).all())


def _filled(check: ColumnReader, name: str) -> tuple[np.ndarray, list]:
    codes, values = check.codes(name)
    row = first_empty(codes, values)
    if row is not None:
        check.fail(name, row, "empty value; this column must be filled on every row")
    return codes, values


def _vote_codes(check: ColumnReader) -> np.ndarray:
    codes, values = _filled(check, "vote")
    lookup = np.array([schema.VOTE_CODES.get(v, -1) for v in values] or [0], np.int8)
    votes = lookup[codes]
    if (votes < 0).any():
        row = int(np.argmax(votes < 0))
        check.fail("vote", row, f"'{values[codes[row]]}' is not a vote; allowed: "
                   + ", ".join(schema.VOTE_VALUES))
    return votes


class _Runs:
    """Which comparison each row belongs to, and where each comparison starts."""

    def __init__(self, dataset_codes, datasets, id_codes, ids, comparison, first, contiguous):
        self.dataset_codes, self.datasets = dataset_codes, datasets
        self.id_codes, self.ids = id_codes, ids
        self.comparison, self.first, self.contiguous = comparison, first, contiguous
        self._same: np.ndarray | None = None

    def forget_rows(self) -> None:
        """Keep only per-comparison codes (messages need no more); frees two row arrays."""
        self.dataset_codes = self.dataset_codes[self.first]
        self.id_codes = self.id_codes[self.first]

    def same_as_previous(self) -> np.ndarray:
        """For rows 1.., whether the row belongs to the same comparison as the row before."""
        if self._same is None:  # asked once per per-comparison column: work it out once
            self._same = self.comparison[1:] == self.comparison[:-1]
        return self._same

    def width(self) -> int | None:
        """The rows of each comparison, when every comparison has as many (else None)."""
        n_rows, n_runs = len(self.comparison), len(self.first)
        if not self.contiguous or not n_runs or n_rows % n_runs:
            return None
        width = n_rows // n_runs
        return width if (np.diff(self.first) == width).all() else None

    def first_difference(self, codes: np.ndarray) -> int:
        """First row whose value differs from its comparison's, or -1."""
        if self.contiguous:
            bad = (codes[1:] != codes[:-1]) & self.same_as_previous()
            return int(np.argmax(bad)) + 1 if bad.any() else -1
        bad = codes != codes[self.first[self.comparison]]
        return int(np.argmax(bad)) if bad.any() else -1

    def owner(self, row: int) -> int:
        return int(self.first[self.comparison[row]])

    def id_of(self, row: int) -> str:
        return self.ids[self.id_codes[self.comparison[row]]]

    def dataset_of(self, row: int) -> str:
        return self.datasets[self.dataset_codes[self.comparison[row]]]


def _comparison_runs(check: ColumnReader) -> _Runs:
    dataset_codes, datasets = _filled(check, "dataset")
    id_codes, ids = _filled(check, "comparison_id")
    change = np.empty(len(id_codes), dtype=bool)
    change[:1] = True
    np.not_equal(id_codes[1:], id_codes[:-1], out=change[1:])
    change[1:] |= dataset_codes[1:] != dataset_codes[:-1]
    starts = np.flatnonzero(change)
    run_keys = dataset_codes[starts].astype(np.int64) * max(len(ids), 1) + id_codes[starts]
    if (np.diff(run_keys) > 0).all() or len(np.unique(run_keys)) == len(starts):
        comparison = np.repeat(np.arange(len(starts), dtype=np.int32),
                               np.diff(starts, append=len(id_codes)))  # run numbers
        return _Runs(dataset_codes, datasets, id_codes, ids, comparison, starts, True)
    key = dataset_codes.astype(np.int64) * max(len(ids), 1) + id_codes
    comparison = pd.factorize(key, sort=False)[0].astype(np.int32)
    first = first_rows(comparison, int(comparison.max()) + 1)
    return _Runs(dataset_codes, datasets, id_codes, ids, comparison, first, False)


def _first_repeated_vote(check: ColumnReader, runs: _Runs, annotator: np.ndarray) -> int:
    """First row that repeats an earlier (comparison, annotator, seed), or -1."""
    seed_codes, seeds = check.codes("seed")
    seed_rank = ranks(seeds).astype(np.int32)[seed_codes + 1]
    del seed_codes
    if runs.contiguous:
        same = runs.same_as_previous()
        same_annotator = annotator[1:] == annotator[:-1]
        backwards = (annotator[1:] < annotator[:-1]) | (
            same_annotator & (seed_rank[1:] < seed_rank[:-1]))
        if not (same & backwards).any():
            repeat = same & same_annotator & (seed_rank[1:] == seed_rank[:-1])
            return int(np.argmax(repeat)) + 1 if repeat.any() else -1
    key = ((runs.comparison.astype(np.int64) * max(int(annotator.max()) + 1, 1) + annotator)
           * (len(seeds) + 1) + seed_rank)
    order = np.argsort(key, kind="stable")
    repeat = np.flatnonzero(np.diff(key[order]) == 0)
    return int(order[repeat[0] + 1]) if len(repeat) else -1
