"""Side biases of a judge: how often it picks the side shown first, and the longer
response, with Wilson 95% intervals.

A judge with no bias picks the first-shown side in about half of its A/B votes; so too
the longer response, unless length really is what it rewards.  Only decided votes (A or
B) count: ties, "neither" and failed votes pick no side.  Everything is counted with
numpy, one bincount per question.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ffsite.format import schema

Z_95 = 1.959963984540054  # the standard normal's 97.5% quantile

BIAS_COLUMNS = ("judge", "decided", "with_order", "first", "first_share", "first_low",
                "first_high", "with_length", "longer", "longer_share", "longer_low",
                "longer_high")


def wilson_interval(successes: np.ndarray, trials: np.ndarray, z: float = Z_95
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of the Wilson score interval for successes / trials; NaN where there
    are no trials.  Unlike the normal approximation it stays inside [0, 1] and does not
    collapse to zero width at 0 or n successes."""
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = k / n
        denominator = 1 + z * z / n
        centre = (share + z * z / (2 * n)) / denominator
        half = z * np.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / denominator
    empty = n <= 0
    low = np.where(empty, np.nan, np.clip(centre - half, 0.0, 1.0))
    high = np.where(empty, np.nan, np.clip(centre + half, 0.0, 1.0))
    return low, high


def side_bias(judge: np.ndarray, vote: np.ndarray, first_side: np.ndarray,
              longer_side: np.ndarray, judges: Sequence[str]) -> pd.DataFrame:
    """One row per judge (in `judges` order, BIAS_COLUMNS): of its A/B votes, how many
    say which side was shown first (`with_order`) and how many of those picked it, and,
    among those whose two responses differ in length, how many picked the longer one.

    Arrays are per vote: `judge` indexes `judges`; `vote` is a vote code; `first_side`
    and `longer_side` are 1 (A) or 2 (B), 0 when the order is unknown or the lengths are
    equal or unknown.  Judges without a decided vote keep their row, with NaN shares.
    """
    judge = np.asarray(judge, dtype=np.int64)
    vote = np.asarray(vote)
    decided = (vote == schema.A) | (vote == schema.B)
    first_side = np.asarray(first_side)
    with_order = decided & (first_side > 0)
    picked_first = with_order & (vote == first_side)
    longer_side = np.asarray(longer_side)
    with_length = decided & (longer_side > 0)
    picked_longer = with_length & (vote == longer_side)
    size = len(judges)

    def count(mask: np.ndarray) -> np.ndarray:
        return np.bincount(judge[mask], minlength=size)[:size]

    n_decided, n_order, n_first = count(decided), count(with_order), count(picked_first)
    n_length, n_longer = count(with_length), count(picked_longer)
    first_low, first_high = wilson_interval(n_first, n_order)
    longer_low, longer_high = wilson_interval(n_longer, n_length)
    with np.errstate(divide="ignore", invalid="ignore"):
        first_share = np.where(n_order > 0, n_first / n_order, np.nan)
        longer_share = np.where(n_length > 0, n_longer / n_length, np.nan)
    return pd.DataFrame({
        "judge": list(judges), "decided": n_decided, "with_order": n_order, "first": n_first,
        "first_share": first_share, "first_low": first_low, "first_high": first_high,
        "with_length": n_length, "longer": n_longer, "longer_share": longer_share,
        "longer_low": longer_low, "longer_high": longer_high,
    }, columns=list(BIAS_COLUMNS))


def longer_side(length_a: np.ndarray, length_b: np.ndarray) -> np.ndarray:
    """Per comparison: 1 when response A is longer, 2 when B is, 0 when they are equal or
    either length is unknown (NaN)."""
    a = np.asarray(length_a, dtype=float)
    b = np.asarray(length_b, dtype=float)
    side = np.where(a > b, 1, np.where(b > a, 2, 0))
    return np.where(np.isnan(a) | np.isnan(b), 0, side).astype(np.int8)
