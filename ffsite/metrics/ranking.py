"""Ranks that say what the data can tell apart, whether a trait shows any signal, and
mirror traits.

A leaderboard should not claim an order its data does not support.  The rules here are
the site's (docs/uncertainty.md, "Ranks"):

- a model's rank is its place by the estimate (1 + the models with a higher estimate),
  shown with its 95% range: the 2.5% and 97.5% points of its rank over joint draws of
  every model's estimate (`rank_ranges`).  The draws are the bootstrap resamples
  themselves where the numbers come from a bootstrap that resamples all models at once
  (Bradley-Terry ratings, means over shared prompts: differences keep their pairing,
  and a rating's range does not depend on which model is the anchor); elsewhere,
  independent draws from each model's own 95% interval (`interval_draws`).  Each range
  is the model's own: one model's wide interval widens no other model's range (they
  were once widened until monotone in the estimate's order, and then one poorly
  measured model in 14th place made the 13 above it "tied for first", leaders whose
  intervals lay wholly apart included).  Models with the same estimate share one range
  (`tied_together`).  Where several models' ranges reach first place, they are "tied"
  for it (`tied_at_top`).
- The older rule, 1 + the models whose interval lies wholly above, is gone: an
  anchor's zero-width interval made every model above it "surely higher".
- a trait shows a signal when its intervals say something: measured against a null
  value (a strength against the reference: 0), some model's interval lies wholly
  outside null ± band; without a null (means, Elo), some two models' intervals are
  disjoint.  A trait without signal gets no rank at all.
- trait B mirrors trait A when B's value is exactly minus A's for every model (e.g. the
  rules judge's "is more concise" and "is more verbose"): one of them is enough.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

MIRROR_TOLERANCE = 1e-9  # strengths are ratios of counts: a mirror matches exactly
RANK_LEVEL = 0.95
RANK_DRAWS = 1000  # draws from intervals, when no bootstrap resamples exist
RANK_SEED = 0
Z95 = 1.959963984540054


@dataclass(frozen=True)
class RankRanges:
    """Per model: its place by the estimate and the 95% range of its rank (1 = highest;
    0 everywhere for a model without an estimate)."""

    rank: np.ndarray
    low: np.ndarray  # the best rank the data allows at 95%
    high: np.ndarray  # the worst

    def from_bottom(self, estimate: np.ndarray | None = None) -> RankRanges:
        """The same ranks counted from the low end (1 = lowest).  With the estimates,
        tied models share the best place from that end too (1 + the models strictly
        lower); without them, places are the top places turned over."""
        n = int((self.rank > 0).sum())
        flip = np.where(self.rank > 0, n + 1, 0)
        rank = flip - self.rank if estimate is None else np.where(
            self.rank > 0, places(-np.asarray(estimate, float)), 0)
        return RankRanges(np.where(self.rank > 0, rank, 0),
                          np.where(self.rank > 0, flip - self.high, 0),
                          np.where(self.rank > 0, flip - self.low, 0))


def places(estimate: np.ndarray) -> np.ndarray:
    """1 + the number of models with a strictly higher estimate; 0 for NaN."""
    estimate = np.asarray(estimate, float)
    known = ~np.isnan(estimate)
    found = np.zeros(len(estimate), np.int64)
    values = estimate[known]
    found[known] = 1 + (values[None, :] > values[:, None]).sum(axis=1)
    return found


def average_ranks(values: np.ndarray, axis: int = 0) -> np.ndarray:
    """Ranks 1..n along `axis`, ties sharing the mean of their places and NaN left NaN
    (ranked among the other values): scipy.stats.rankdata(values, axis=axis,
    nan_policy="omit").  A build needs only this of scipy.stats, which takes a second to
    import."""
    ordered_axis = np.moveaxis(np.asarray(values, dtype=float), axis, -1)
    n = ordered_axis.shape[-1]
    order = np.argsort(ordered_axis, axis=-1, kind="stable")  # NaNs last
    ordered = np.take_along_axis(ordered_axis, order, axis=-1)
    place = np.arange(n)
    starts = np.ones(ordered.shape, dtype=bool)  # a run of equal values starts here
    starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]  # (each NaN its own run)
    ends = np.ones(ordered.shape, dtype=bool)
    ends[..., :-1] = starts[..., 1:]
    first = np.maximum.accumulate(np.where(starts, place, 0), axis=-1)
    last = np.minimum.accumulate(np.where(ends, place, n - 1)[..., ::-1], axis=-1)[..., ::-1]
    ranks = np.empty(ordered.shape)
    np.put_along_axis(ranks, order, (first + last) / 2 + 1, axis=-1)
    ranks[np.isnan(ordered_axis)] = np.nan
    return np.moveaxis(ranks, -1, axis)


def spearman(first: pd.Series, second: pd.Series) -> float:
    """Spearman's correlation over the rows where both are known, as pandas'
    `first.corr(second, method="spearman")` (which imports scipy.stats for it)."""
    both = np.column_stack([np.asarray(first, float), np.asarray(second, float)])
    both = both[~np.isnan(both).any(axis=1)]
    if len(both) < 2:
        return float("nan")
    ranks = average_ranks(both, axis=0)
    return float(np.corrcoef(ranks[:, 0], ranks[:, 1])[0, 1])


def correlation_interval(first: pd.Series, second: pd.Series, *, ranks: bool = False,
                         n_bootstrap: int = 1000, seed: int = 0, level: float = 0.95
                         ) -> tuple[float, float]:
    """The 95% percentile bootstrap interval of Pearson's (`ranks`: Spearman's)
    correlation over the rows where both are known, resampling those rows (models) with
    replacement, all resamples at once; (NaN, NaN) below three rows."""
    both = np.column_stack([np.asarray(first, float), np.asarray(second, float)])
    both = both[~np.isnan(both).any(axis=1)]
    if len(both) < 3:
        return float("nan"), float("nan")
    drawn = both[np.random.default_rng(seed).integers(0, len(both), (n_bootstrap, len(both)))]
    if ranks:
        drawn = average_ranks(drawn, axis=1)
    centred = drawn - drawn.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):  # a resample of one repeated row
        r = (centred[..., 0] * centred[..., 1]).sum(1) / np.sqrt(
            (centred[..., 0] ** 2).sum(1) * (centred[..., 1] ** 2).sum(1))
    low, high = np.nanquantile(r, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def draw_ranks(draws: np.ndarray) -> np.ndarray:
    """[draws, models] -> each draw's ranks, 1 + the models drawn strictly higher."""
    # All draws at once: in each sorted row, a value's count of values at most it is the
    # end of its run of equal values (what searchsorted(side="right") finds), found by a
    # running minimum from the right; a loop over the draws cost 1.5 ms per call.  Equal
    # values share their run's end, so the sort need not be stable (the default is faster).
    n = draws.shape[1]
    order = np.argsort(draws, axis=1)
    ordered = np.take_along_axis(draws, order, axis=1)
    run_ends = np.ones(draws.shape, dtype=bool)
    # NaNs sort last and form one run, as searchsorted counts them.
    missing = np.isnan(ordered)
    run_ends[:, :-1] = (ordered[:, :-1] != ordered[:, 1:]) & ~(missing[:, :-1]
                                                               & missing[:, 1:])
    end = np.where(run_ends, np.arange(n), n)
    end = np.minimum.accumulate(end[:, ::-1], axis=1)[:, ::-1]
    above = np.empty(draws.shape, np.int64)
    np.put_along_axis(above, order, n - 1 - end, axis=1)
    return 1 + above


def rank_quantiles(ranks: np.ndarray, quantiles: Sequence[float]) -> list[np.ndarray]:
    """Per model (column of `ranks` [draws, models], values 1..models), each quantile of
    its ranks, as np.quantile(method="inverted_cdf") gives it, from counts: the ranks
    are small integers, so counting them is much cheaper than partitioning each column."""
    draws, models = ranks.shape
    flat = (ranks + (models + 1) * np.arange(models)[None, :]).ravel()
    # at_most[model, r]: the draws in which the model ranked r or better
    at_most = np.bincount(flat, minlength=models * (models + 1)).reshape(
        models, models + 1).cumsum(axis=1)
    found = []
    for quantile in quantiles:
        virtual = draws * quantile - 1  # numpy's inverted_cdf, to the same rounding
        below = np.floor(virtual)
        index = min(max(int(below) + (virtual != below), 0), draws - 1)
        # the (index + 1)-th smallest rank: the first r that as many draws reach
        found.append((at_most <= index).sum(axis=1))
    return found


def tied_together(estimate: np.ndarray, low: np.ndarray, high: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Rank ranges in which models with the same estimate, which cannot be put in order,
    share one range: the union of theirs."""
    # (By sorting on the tie codes, not with a pandas groupby: this runs for every block
    # of every table.)
    _, tie = np.unique(np.asarray(estimate, float), return_inverse=True)
    if not len(tie):
        return low, high
    by_tie = np.argsort(tie, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(tie[by_tie]) != 0])
    return (np.minimum.reduceat(low[by_tie], starts)[tie],
            np.maximum.reduceat(high[by_tie], starts)[tie])


def rank_ranges(estimate: np.ndarray, draws: np.ndarray | None = None, *,
                low: np.ndarray | None = None, high: np.ndarray | None = None,
                level: float = RANK_LEVEL, n_draws: int = RANK_DRAWS,
                seed: int = RANK_SEED) -> RankRanges:
    """Each model's place by `estimate` and its rank's `level` range over `draws`
    [draws, models] (joint draws of every model's estimate: bootstrap resamples), or,
    without them, over independent draws from each model's interval [`low`, `high`]
    (`interval_draws`).  A draw missing for a model (NaN) counts as its estimate.  The
    range always holds the model's place; tied estimates share theirs (`tied_together`).
    Models without an estimate (NaN) get 0s and take no part."""
    estimate = np.asarray(estimate, float)
    known = ~np.isnan(estimate)
    rank = places(estimate)
    best, worst = np.zeros(len(estimate), np.int64), np.zeros(len(estimate), np.int64)
    if not known.any():
        return RankRanges(rank, best, worst)
    if draws is None:
        if low is None or high is None:
            raise ValueError("rank_ranges needs draws or the intervals (low, high)")
        draws = interval_draws(estimate[known], np.asarray(low, float)[known],
                               np.asarray(high, float)[known], n_draws, seed)
    else:
        draws = np.asarray(draws, float)[:, known]
    draws = np.where(np.isnan(draws), estimate[known][None, :], draws)
    ranks = draw_ranks(draws)
    tail = (1 - level) / 2
    lows, highs = rank_quantiles(ranks, [tail, 1 - tail])
    own = rank[known]
    lows, highs = tied_together(estimate[known], np.minimum(lows, own),
                                np.maximum(highs, own))
    best[known], worst[known] = lows, highs
    return RankRanges(rank, best, worst)


def interval_draws(estimate: np.ndarray, low: np.ndarray, high: np.ndarray,
                   n_draws: int = RANK_DRAWS, seed: int = RANK_SEED) -> np.ndarray:
    """[n_draws, models] independent draws of each estimate from its 95% interval: a
    normal on each side of the estimate, with the spread that puts that side's bound at
    1.96 standard deviations (a split normal, for intervals that are not symmetric).  A
    model without an interval (NaN bound) stays at its estimate."""
    below = np.nan_to_num((estimate - low) / Z95)
    above = np.nan_to_num((high - estimate) / Z95)
    z = _normals(n_draws, len(estimate), seed)
    return estimate[None, :] + z * np.where(z < 0, below[None, :], above[None, :])


@functools.lru_cache(maxsize=8)
def _normals(n_draws: int, models: int, seed: int) -> np.ndarray:
    """The standard normals `interval_draws` scales, read-only: the same for every table
    of as many models, so a build draws them once per size, not once per table (the
    score results rank about 370 tables: drawing was 0.65 s of them under cProfile)."""
    z = np.random.default_rng(seed).standard_normal((n_draws, models))
    z.flags.writeable = False
    return z


def tied_at_top(ranges: RankRanges) -> int:
    """How many models' 95% rank ranges reach first place."""
    return int(((ranges.low == 1) & (ranges.rank > 0)).sum())


def grouped_rank_ranges(frame: pd.DataFrame, by: list[str], value: str, low: str = "ci_low",
                        high: str = "ci_high") -> pd.DataFrame:
    """`rank_ranges` from the intervals within each group of `frame`'s rows: a frame of
    rank, rank_low, rank_high on `frame`'s index."""
    values = frame[value].to_numpy(float)
    lows, highs = frame[low].to_numpy(float), frame[high].to_numpy(float)
    found = np.zeros((len(frame), 3), np.int64)
    for positions in frame.groupby(by, sort=False, dropna=False).indices.values():
        ranges = rank_ranges(values[positions], low=lows[positions], high=highs[positions])
        found[positions] = np.column_stack([ranges.rank, ranges.low, ranges.high])
    return pd.DataFrame(found, index=frame.index, columns=["rank", "rank_low", "rank_high"])


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
