"""Bootstrap resamples of categorised observations as counts (what the ratings' refits
read, ffsite.metrics.ratings), of single observations or of whole clusters of them, and
percentile bounds over many resamples at once."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse

DRAWS_AT_ONCE = 2_000_000  # bootstrap draws held in memory at once


def resample_counts(category: np.ndarray, width: int, size: int,
                    rng: np.random.Generator) -> np.ndarray:
    """[size, width] counts of `size` bootstrap resamples of the comparisons' categories.

    Drawn a few rows at a time so that memory stays bounded with many comparisons.
    """
    counts = np.empty((size, width), dtype=np.int64)
    rows = max(1, DRAWS_AT_ONCE // len(category))
    for begin in range(0, size, rows):
        chunk = min(rows, size - begin)
        drawn = category[rng.integers(0, len(category), size=(chunk, len(category)))]
        drawn += np.arange(chunk)[:, None] * width
        counts[begin:begin + chunk] = np.bincount(
            drawn.reshape(-1), minlength=chunk * width).reshape(chunk, width)
    return counts


def resample_cluster_counts(category: np.ndarray, cluster: np.ndarray, width: int,
                            size: int, rng: np.random.Generator) -> np.ndarray:
    """[size, width] counts of `size` bootstrap resamples of whole clusters: each draws
    the clusters (codes 0..C-1 in `cluster`, one per observation) with replacement, as
    many as there are, and counts every observation of each drawn cluster.

    Observations that share a cluster (the comparisons of one prompt, which share its
    responses) are not independent: resampling them one by one treats them as if they
    were, and gives intervals too narrow.  A resample's counts are its cluster weights
    (how often each cluster was drawn) times the per-cluster counts, one matrix product
    for a batch of resamples.  The weights are drawn as `resample_counts` draws
    observations (the same generator calls in the same chunks), so with one observation
    per cluster, in order (`cluster` = 0, 1, 2, ...), both give the very same counts.
    """
    category, cluster = np.asarray(category), np.asarray(cluster)
    n_clusters = int(cluster.max()) + 1 if len(cluster) else 0
    if n_clusters == 0:
        return np.zeros((size, width), dtype=np.int64)
    # [clusters, categories] counts: sparse, as a cluster (a prompt) touches only its
    # own comparisons' categories.
    per_cluster = sparse.csc_array(
        (np.ones(len(category), dtype=np.int64), (cluster, category)),
        shape=(n_clusters, width))
    per_cluster.sum_duplicates()
    counts = np.empty((size, width), dtype=np.int64)
    rows = max(1, DRAWS_AT_ONCE // n_clusters)
    for begin in range(0, size, rows):
        chunk = min(rows, size - begin)
        drawn = rng.integers(0, n_clusters, size=(chunk, n_clusters))
        drawn += np.arange(chunk)[:, None] * n_clusters
        weights = np.bincount(drawn.reshape(-1), minlength=chunk * n_clusters).reshape(
            chunk, n_clusters)
        counts[begin:begin + chunk] = (per_cluster.T @ weights.T).T
    return counts


def nan_quantiles(values: np.ndarray, quantiles: Sequence[float], axis: int
                  ) -> np.ndarray:
    """`np.nanquantile(values, quantiles, axis=axis)` (its default linear method, the very
    same floating-point values), shape [quantiles, the other axes]; NaN where a slice is
    all NaN, without a warning.

    numpy computes each slice holding a NaN in a Python loop (0.1 ms a slice, seconds for
    the 67 x 67 model pairs of a table); one sort does every slice at once.
    """
    ordered = np.sort(np.moveaxis(np.asarray(values, dtype=float), axis, -1), axis=-1)
    count = (~np.isnan(ordered)).sum(axis=-1)  # NaNs sort last
    last = np.maximum(count - 1, 0)[..., None]
    bounds = []
    for q in quantiles:
        virtual = (count - 1) * q  # where q falls among the sorted values, as numpy has it
        below = np.floor(virtual).astype(np.intp)[..., None]
        low = np.take_along_axis(ordered, np.clip(below, 0, last), axis=-1)[..., 0]
        high = np.take_along_axis(ordered, np.clip(below + 1, 0, last), axis=-1)[..., 0]
        gamma = virtual - below[..., 0]
        step = high - low
        # numpy's interpolation; at q = 1 both neighbours are the last value
        value = np.where(gamma >= 0.5, high - step * (1 - gamma), low + step * gamma)
        bounds.append(np.where(count > 0, value, np.nan))
    return np.stack(bounds)
