"""95% intervals for the FF metrics of a table: strength, relevance and Cohen's kappa.

Each metric of a cell (group, trait) depends only on how its N comparisons split into
three outcomes: the trait vote agrees with the reference, disagrees, or is not a valid
A/B vote (tie, neither, invalid, missing, no vote).  The interval for a cell is a
Jeffreys interval for that three-way split: draw the outcome proportions from a
Dirichlet(agreed + 1/2, disagreed + 1/2, other + 1/2) distribution, compute the metrics
from each draw, take the 2.5% and 97.5% quantiles.  We do not use the percentile
bootstrap (a multinomial resample of the same counts): when every vote of a cell agrees
it resamples nothing but agreement and returns a zero-width interval, and its coverage
falls far below 95% for the small and lopsided cells FF tables are full of
(docs/uncertainty.md has the numbers).

As in Brown, Cai & DasGupta's Jeffreys interval for a proportion, a bound at the edge
of the data goes to the edge of the range: no disagreement -> kappa's upper bound is 1,
and so on.  Every interval contains its point estimate; empty cells (N = 0) get NaN.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ffsite.metrics.strength import (
    Reference,
    TraitVotes,
    asked,
    count_outcomes,
    metric_frame,
    metrics_from_counts,
)

INTERVAL_METRICS = ("strength", "relevance", "cohens_kappa")
DEFAULT_MIN_VALID_VOTES = 10
JEFFREYS_PRIOR = 0.5
_DRAWS_PER_CHUNK = 1_000_000  # draws x cells per chunk, to keep memory small


def outcome_counts(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(agreed, disagreed, other) per cell of a count_outcomes array."""
    return _outcomes(metrics_from_counts(counts))


def _outcomes(metrics: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    agreed, disagreed = metrics["agreed"], metrics["disagreed"]
    return agreed, disagreed, metrics["num_votes"] - agreed - disagreed


def metrics_from_shares(agree: np.ndarray, disagree: np.ndarray) -> dict[str, np.ndarray]:
    """Strength, relevance and kappa from outcome proportions (methods.md §1 formulas)."""
    valid = agree + disagree
    with np.errstate(divide="ignore", invalid="ignore"):
        accuracy = np.where(valid > 0, agree / np.where(valid > 0, valid, 1), 0.5)
    return {"strength": agree - disagree, "relevance": valid,
            "cohens_kappa": 2 * (accuracy - 0.5)}


def metric_intervals(counts: np.ndarray, *, n_draws: int = 1000, seed: int = 0,
                     level: float = 0.95) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{metric: (lower, upper)} for strength, relevance and cohens_kappa.

    `counts` is a count_outcomes array [..., 7 vote codes, 2 sides]; the bounds have the
    shape counts.shape[:-2].  Seeded, so the same counts give the same bounds.
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    point = metrics_from_counts(counts)
    agreed, disagreed, other = _outcomes(point)
    shape = agreed.shape
    cells = np.stack([agreed, disagreed, other], axis=-1).reshape(-1, 3).astype(float)
    quantiles = [(1 - level) / 2, (1 + level) / 2]
    bounds = {name: np.full((2, len(cells)), np.nan) for name in INTERVAL_METRICS}
    rng = np.random.default_rng(seed)
    chunk = max(1, _DRAWS_PER_CHUNK // max(n_draws, 1))
    for start in range(0, len(cells), chunk):
        part = cells[start:start + chunk]
        gamma = rng.standard_gamma(part + JEFFREYS_PRIOR, size=(n_draws, *part.shape))
        shares = gamma / gamma.sum(axis=-1, keepdims=True)
        drawn = metrics_from_shares(shares[..., 0], shares[..., 1])
        for name in INTERVAL_METRICS:
            bounds[name][:, start:start + chunk] = np.quantile(drawn[name], quantiles, axis=0)

    agreed, disagreed, other = (x.reshape(-1) for x in (agreed, disagreed, other))
    total = agreed + disagreed + other
    # Edges of the data -> edges of the range (a Jeffreys-interval convention).
    edges = {
        "strength": (disagreed == total, agreed == total, -1.0, 1.0),
        "relevance": (agreed + disagreed == 0, other == 0, 0.0, 1.0),
        "cohens_kappa": (agreed == 0, disagreed == 0, -1.0, 1.0),
    }
    result = {}
    for name in INTERVAL_METRICS:
        low, high = bounds[name]
        at_low, at_high, range_low, range_high = edges[name]
        estimate = point[name].reshape(-1)
        low = np.minimum(np.where(at_low, range_low, low), estimate)
        high = np.maximum(np.where(at_high, range_high, high), estimate)
        empty = total == 0
        low[empty], high[empty] = np.nan, np.nan
        result[name] = (low.reshape(shape), high.reshape(shape))
    return result


def too_few_valid_votes(counts: np.ndarray,
                        min_valid_votes: int = DEFAULT_MIN_VALID_VOTES) -> np.ndarray:
    """True for cells whose valid (A/B) votes are fewer than `min_valid_votes`.

    Such cells are shown as "too few votes", not coloured like findings.
    """
    agreed, disagreed, _ = outcome_counts(counts)
    return (agreed + disagreed) < min_valid_votes


def metric_frame_with_intervals(trait_votes: TraitVotes, reference: Reference, *,
                                group_name: str = "group",
                                min_valid_votes: int = DEFAULT_MIN_VALID_VOTES,
                                n_draws: int = 1000, seed: int = 0,
                                level: float = 0.95) -> pd.DataFrame:
    """metric_frame plus <metric>_low / <metric>_high columns and `too_few_votes`."""
    counts = count_outcomes(trait_votes, reference)
    frame = metric_frame(trait_votes, reference, group_name=group_name, drop_empty=False,
                         counts=counts)
    intervals = metric_intervals(counts, n_draws=n_draws, seed=seed, level=level)
    for name, (low, high) in intervals.items():
        frame[f"{name}_low"] = low.reshape(-1)
        frame[f"{name}_high"] = high.reshape(-1)
    frame["too_few_votes"] = too_few_valid_votes(counts, min_valid_votes).reshape(-1)
    return frame[asked(counts).reshape(-1)].reset_index(drop=True)


Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


def wilson_interval(successes: np.ndarray, trials: np.ndarray, z: float = Z95
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Wilson's score interval for a proportion (successes may be fractional: a tie
    counted as half a win); NaN where trials is 0."""
    successes, trials = np.asarray(successes, float), np.asarray(trials, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = successes / trials
        spread = z * z / trials
        centre = (share + spread / 2) / (1 + spread)
        half = z / (1 + spread) * np.sqrt(share * (1 - share) / trials
                                          + spread / (4 * trials))
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)
