"""Cross-annotation: several votes on the same item become one (methods.md §1).

Votes that carry no decision (invalid, missing) are set aside; the decision is taken
among the others (A, B, tie, neither).  Rules, documented in docs/format.md:

- majority: a value voted by more than half of them wins; otherwise A and B level with
  each other is a tie and anything else is "neither" (no majority, not applicable).
- unanimity: all of them agree, or "neither" (the FF paper's multi-vote setting).

With no decision at all the item is invalid if any vote was invalid, else missing.
"""

from __future__ import annotations

import numpy as np

from ffsite.format import schema

RULES = ("majority", "unanimity")
_DECIDING = (schema.A, schema.B, schema.TIE, schema.NEITHER)


def combine(keys: np.ndarray, votes: np.ndarray, rule: str = "majority"
            ) -> tuple[np.ndarray, np.ndarray]:
    """Combine votes sharing a key; return (unique keys, one vote code per key).

    `keys` are non-negative integers (e.g. comparison * n_traits + trait).  When no key
    repeats, the votes are returned as they are, so the common case costs one sort check.
    """
    if rule not in RULES:
        raise ValueError(f"unknown rule {rule!r}; use one of {RULES}")
    if len(keys) < 2 or (keys[1:] > keys[:-1]).all():  # sorted files: nothing repeats
        return keys, votes
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]]) if len(
        keys) else np.zeros(0, np.int64)
    if len(starts) == len(keys):
        return sorted_keys, votes[order]
    item = np.cumsum(np.r_[False, sorted_keys[1:] != sorted_keys[:-1]]) if len(keys) else keys
    n_items = len(starts)
    counts = np.bincount(item * 8 + votes[order].astype(np.int64),
                         minlength=n_items * 8).reshape(n_items, 8)
    return sorted_keys[starts], decide(counts, rule)


def decide(counts: np.ndarray, rule: str) -> np.ndarray:
    """Apply a rule to per-item vote counts (columns indexed by vote code)."""
    deciding = counts[:, list(_DECIDING)]
    n = deciding.sum(axis=1)
    result = np.where(counts[:, schema.INVALID] > 0, schema.INVALID, schema.MISSING)
    result = result.astype(np.int8)
    has_decision = n > 0
    if rule == "majority":
        fallback = np.where((counts[:, schema.A] == counts[:, schema.B])
                            & (counts[:, schema.A] > 0), schema.TIE, schema.NEITHER)
        winner = np.full(len(counts), -1, dtype=np.int64)
        for column, code in enumerate(_DECIDING):
            winner = np.where((winner < 0) & (2 * deciding[:, column] > n), code, winner)
        decided = np.where(winner >= 0, winner, fallback)
    else:
        top = deciding.argmax(axis=1)
        unanimous = deciding.max(axis=1) == n
        decided = np.where(unanimous, np.array(_DECIDING)[top], schema.NEITHER)
    return np.where(has_decision, decided, result).astype(np.int8)
