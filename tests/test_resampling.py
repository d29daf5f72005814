"""ffsite.metrics.resampling: bootstrap counts and percentile bounds of many slices."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ffsite.metrics.resampling import nan_quantiles, resample_counts


def _numpy(values: np.ndarray, quantiles: list[float], axis: int) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices
        return np.nanquantile(values, quantiles, axis=axis)


@pytest.mark.parametrize("trial", range(40))
def test_nan_quantiles_are_numpys_to_the_last_bit(trial):
    rng = np.random.default_rng(trial)
    shape = tuple(int(size) for size in rng.integers(1, 9, size=1 + trial % 3))
    values = rng.normal(size=shape) * 10.0 ** (trial % 5 - 2)
    if trial % 4 == 0:
        values = np.round(values, 1)  # ties
    values[rng.random(shape) < [0.0, 0.2, 0.6, 1.0][trial % 4]] = np.nan
    quantiles = [0.025, 0.975, 0.0, 1.0, 0.5, float(rng.random())]
    for axis in range(len(shape)):
        expected = _numpy(values, quantiles, axis)
        found = nan_quantiles(values, quantiles, axis)
        assert found.shape == expected.shape
        assert np.array_equal(found, expected, equal_nan=True)


def test_nan_quantiles_by_hand():
    values = np.array([[4.0, np.nan, 1.0, 3.0, 2.0],
                       [np.nan, np.nan, np.nan, np.nan, np.nan],
                       [7.0, np.nan, np.nan, np.nan, np.nan]])
    low, middle, high = nan_quantiles(values, [0.25, 0.5, 0.9], axis=1)
    # 1 2 3 4: the 25% point is at position 0.75 (1.75), the median at 1.5 (2.5), the
    # 90% point at 2.7 (3.7); an all-NaN row has none; a single value is every point.
    assert low[0] == pytest.approx(1.75) and middle[0] == pytest.approx(2.5)
    assert high[0] == pytest.approx(3.7)
    assert np.isnan([low[1], middle[1], high[1]]).all()
    assert low[2] == middle[2] == high[2] == 7.0


def test_resample_counts_keep_every_resample_whole():
    category = np.array([0, 0, 1, 2, 2, 2])
    counts = resample_counts(category, 4, 500, np.random.default_rng(0))
    assert counts.shape == (500, 4)
    assert (counts.sum(axis=1) == len(category)).all()
    assert (counts[:, 3] == 0).all()  # a category no observation has is never drawn
    # Each draw is category 2 with probability 1/2: 3 per resample on average.
    assert counts[:, 2].mean() == pytest.approx(3.0, abs=0.15)


def test_resample_counts_have_the_multinomials_moments():
    # 1,000 observations in three categories (shares 0.2, 0.3, 0.5).  A resample's count
    # of category k is binomial, mean n p and variance n p (1 - p), and two categories'
    # counts covary by -n p q (worked by hand).
    category = np.repeat([0, 2, 5], [200, 300, 500])
    counts = resample_counts(category, 6, 4000, np.random.default_rng(1))
    assert (counts.sum(axis=1) == 1000).all()
    assert (counts[:, [1, 3, 4]] == 0).all()
    assert counts[:, [0, 2, 5]].mean(axis=0) == pytest.approx([200, 300, 500], abs=1.5)
    assert counts[:, [0, 2, 5]].var(axis=0) == pytest.approx([160, 210, 250], rel=0.08)
    assert np.cov(counts[:, 0], counts[:, 5])[0, 1] == pytest.approx(-100, rel=0.15)
    again = resample_counts(category, 6, 4000, np.random.default_rng(1))
    assert (again == counts).all()  # the same seed, the same resamples
