"""Ranks that respect uncertainty, whether a trait shows any signal, and mirror traits.

A leaderboard should not claim an order its intervals do not support.  The rules here
are the site's (docs/uncertainty.md, "Rank rule" and "Signal"):

- rank (highest first) = 1 + the number of models whose 95% interval lies wholly above
  this model's interval (their lower bound above its upper bound).  Models whose
  intervals overlap the leader's share rank 1; the ratings use the same rule
  (ffsite.metrics.ratings.shared_ranks).  Ranked from the low end, "wholly below".
- a trait shows a signal when its intervals say something: measured against a null
  value (a strength against the reference: 0), some model's interval lies wholly
  outside null ± band; without a null (means, Elo), some two models' intervals are
  disjoint.  A trait without signal gets no rank at all.
- trait B mirrors trait A when B's value is exactly minus A's for every model (e.g. the
  rules judge's "is more concise" and "is more verbose"): one of them is enough.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

MIRROR_TOLERANCE = 1e-9  # strengths are ratios of counts: a mirror matches exactly


def interval_ranks(low: np.ndarray, high: np.ndarray, *, highest_first: bool = True
                   ) -> np.ndarray:
    """Per model, 1 + the number of models whose interval lies wholly above its own
    (wholly below, with highest_first=False).  NaN bounds never count as above or below,
    and a model with a NaN bound gets rank 0 (no rank)."""
    low, high = np.asarray(low, float), np.asarray(high, float)
    # beyond[this, other]: the other model is surely higher (lower)
    beyond = (low[None, :] > high[:, None]) if highest_first else (
        high[None, :] < low[:, None])
    ranks = 1 + beyond.sum(axis=1)
    ranks[np.isnan(low) | np.isnan(high)] = 0
    return ranks


def grouped_interval_ranks(frame: pd.DataFrame, by: list[str], low: str = "ci_low",
                           high: str = "ci_high") -> pd.Series:
    """`interval_ranks` (highest first) within each group of `frame`'s rows."""
    lows, highs = frame[low].to_numpy(float), frame[high].to_numpy(float)
    ranks = np.zeros(len(frame), np.int64)
    for positions in frame.groupby(by, sort=False, dropna=False).indices.values():
        ranks[positions] = interval_ranks(lows[positions], highs[positions])
    return pd.Series(ranks, index=frame.index)


def has_signal(low: np.ndarray, high: np.ndarray, *, null: float | None = None,
               band: float = 0.0) -> bool:
    """Whether the intervals say anything: with `null`, some interval lies wholly
    outside [null − band, null + band]; without, some two intervals are disjoint."""
    low, high = np.asarray(low, float), np.asarray(high, float)
    keep = ~(np.isnan(low) | np.isnan(high))
    low, high = low[keep], high[keep]
    if len(low) == 0:
        return False
    if null is not None:
        return bool(((low > null + band) | (high < null - band)).any())
    return bool(low.max() > high.min())


def mirror_traits(values: pd.DataFrame, order: list[str]) -> dict[str, str]:
    """{mirrored trait: the trait it mirrors} for the columns of `values` (rows: models,
    columns: trait ids) whose values are exactly minus an earlier column's (in `order`)
    for every model, with the same models missing, and not all zero.  The first of a
    pair is kept."""
    found: dict[str, str] = {}
    kept: list[str] = []
    for trait in order:
        column = values[trait].to_numpy(float)
        twin = next((k for k in kept if _opposite(column, values[k].to_numpy(float))), None)
        if twin is None:
            kept.append(trait)
        else:
            found[trait] = twin
    return found


def _opposite(first: np.ndarray, second: np.ndarray) -> bool:
    present = ~np.isnan(first)
    if not np.array_equal(present, ~np.isnan(second)) or not present.any():
        return False
    first, second = first[present], second[present]
    # Two columns of zeros are not mirrors of each other: they say nothing.
    return bool(np.abs(first).max() > MIRROR_TOLERANCE
                and np.allclose(first, -second, rtol=0, atol=MIRROR_TOLERANCE))
