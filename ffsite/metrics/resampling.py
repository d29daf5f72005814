"""Bootstrap resamples of categorised observations as counts: what the ratings' refits
read (ffsite.metrics.ratings), apart so the ratings module keeps to its size."""

from __future__ import annotations

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
