"""Bootstrap resamples of categorised observations as counts (what the ratings' refits
read, ffsite.metrics.ratings), and percentile bounds over many resamples at once."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

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
