"""Trait outcome counts per model pair and per group, for the explorer page.

The explorer lets a reader choose the reference model (or several, pooled) in the
browser, so it cannot ship finished metrics: it ships, for every unordered pair of
models and every group of comparisons (a metadata value), how many trait votes picked
each model's side and how many votes there were.  Any pooled table is then a sum of
these triples, and every FF metric follows from a triple (methods.md §1):
relevance = (a + d) / n, agreement = a / (a + d), kappa = 2 × (agreement − 0.5),
strength = kappa × relevance.  Counting reuses strength.count_outcomes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ffsite.format import schema
from ffsite.metrics.bias import Z_95, wilson_interval
from ffsite.metrics.strength import (
    Reference,
    TraitVotes,
    count_outcomes,
)


@dataclass(frozen=True)
class PairCounts:
    """`pairs[p]` = (first model, second model) indices, first < second; `counts[p, g,
    t]` = (votes for the first model's side, for the second's, all votes) of trait t
    over the pair's comparisons in group g."""

    pairs: np.ndarray  # [pairs, 2] int64
    counts: np.ndarray  # [pairs, groups, traits, 3] int64


def outcome_triples(counts: np.ndarray) -> np.ndarray:
    """(agreed, disagreed, all votes) from count_outcomes' counts, stacked last: the
    three of metrics_from_counts' metrics the explorer ships, without the others."""
    trait_a, trait_b = counts[..., schema.A, :], counts[..., schema.B, :]
    return np.stack([trait_a[..., 0] + trait_b[..., 1], trait_a[..., 1] + trait_b[..., 0],
                     counts.sum(axis=(-1, -2))], axis=-1).astype(np.int64)


def pair_counts(votes: TraitVotes, model_a: np.ndarray, model_b: np.ndarray,
                group: np.ndarray, n_groups: int) -> PairCounts:
    """Counts per model pair and group.  Per comparison: `model_a`, `model_b` are model
    indices (-1: none) and `group` a group code (-1: left out).  Comparisons of a model
    with itself or without two models count for no pair."""
    model_a = np.asarray(model_a, dtype=np.int64)
    model_b = np.asarray(model_b, dtype=np.int64)
    group = np.asarray(group, dtype=np.int64)
    rows = np.flatnonzero((model_a >= 0) & (model_b >= 0) & (model_a != model_b)
                          & (group >= 0))
    first = np.minimum(model_a[rows], model_b[rows])
    second = np.maximum(model_a[rows], model_b[rows])
    width = int(max(model_a.max(initial=0), model_b.max(initial=0))) + 1
    keys, pair = np.unique(first * width + second, return_inverse=True)
    pairs = np.stack([keys // width, keys % width], axis=1).astype(np.int64)
    # The reference side is the first model's: "agreed" counts votes for it.
    side = np.where(model_a[rows] == first, 1, 2)
    reference = Reference(rows.astype(np.int64), pair * n_groups + group[rows],
                          side.astype(np.int64), [""] * (len(keys) * n_groups))
    triples = outcome_triples(count_outcomes(votes, reference))
    n_traits = votes.matrix.shape[1]
    return PairCounts(pairs, triples.reshape(len(keys), n_groups, n_traits, 3))


def side_counts(votes: TraitVotes, sides: np.ndarray, group: np.ndarray, n_groups: int
                ) -> np.ndarray:
    """[groups, traits, 3] triples against per-comparison reference sides (1 = A, 2 = B,
    0 = none), e.g. the preference annotator's choice."""
    sides = np.asarray(sides)
    group = np.asarray(group, dtype=np.int64)
    rows = np.flatnonzero((sides > 0) & (group >= 0))
    reference = Reference(rows.astype(np.int64), group[rows], sides[rows].astype(np.int64),
                          [""] * n_groups)
    return outcome_triples(count_outcomes(votes, reference))


def triple_interval(triples: np.ndarray, metric: str, z: float = Z_95
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Approximate 95% interval of a metric from (agreed, disagreed, votes) triples, cheap
    enough for the browser (explore.js computes the same): Wilson for agreement,
    relevance and kappa (2 × agreement − 1); for strength, the normal interval of the
    mean of +1 (agreed), −1 (disagreed), 0 (other) with one vote added each way, so it
    never has zero width.  NaN where the metric is undefined."""
    agreed, disagreed, total = (np.asarray(triples)[..., i].astype(float) for i in range(3))
    valid = agreed + disagreed
    if metric == "relevance":
        return wilson_interval(valid, total, z)
    if metric in ("agreement", "kappa"):
        low, high = wilson_interval(agreed, valid, z)
        return (low, high) if metric == "agreement" else (2 * low - 1, 2 * high - 1)
    a, d, n = agreed + 1, disagreed + 1, total + 2
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = (a - d) / n
        half = z * np.sqrt(np.maximum((a + d) / n - mean * mean, 0) / n)
    empty = total <= 0
    return (np.where(empty, np.nan, np.maximum(mean - half, -1.0)),
            np.where(empty, np.nan, np.minimum(mean + half, 1.0)))
