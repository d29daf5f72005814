"""95% intervals for strength, relevance and Cohen's kappa (ffsite.metrics.intervals)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import trait, write_test_votes
from scipy.stats import beta

from ffsite.format import schema
from ffsite.format.read import read_annotations
from ffsite.metrics.intervals import (
    metric_frame_with_intervals,
    metric_intervals,
    too_few_valid_votes,
)
from ffsite.metrics.strength import metric_frame, preference_reference, trait_votes

RANGES = {"strength": (-1, 1), "relevance": (0, 1), "cohens_kappa": (-1, 1)}


def cells(*outcomes: tuple[int, int, int]) -> np.ndarray:
    """A count_outcomes array [1 group, cells, 7, 2] from (agreed, disagreed, other).

    Agreement is split over A/A and B/B, disagreement over A/B and B/A, and the other
    votes over tie, neither and invalid, so every kind of cell is exercised.
    """
    counts = np.zeros((1, len(outcomes), 7, 2), dtype=np.int64)
    for i, (agreed, disagreed, other) in enumerate(outcomes):
        counts[0, i, schema.A, 0] = agreed - agreed // 2
        counts[0, i, schema.B, 1] = agreed // 2
        counts[0, i, schema.A, 1] = disagreed // 2
        counts[0, i, schema.B, 0] = disagreed - disagreed // 2
        counts[0, i, schema.TIE, 0] = other // 3
        counts[0, i, schema.NEITHER, 1] = other // 3
        counts[0, i, schema.INVALID, 0] = other - 2 * (other // 3)
    return counts


def test_lower_never_above_upper_including_degenerate_cells():
    outcomes = [(0, 0, 0), (12, 0, 0), (0, 12, 0), (0, 0, 7), (1, 0, 0), (0, 1, 0),
                (5, 0, 9), (0, 5, 9), (3, 3, 3), (30, 10, 20), (200, 1, 0)]
    counts = cells(*outcomes)
    intervals = metric_intervals(counts, n_draws=500, seed=1)
    total = np.array([sum(o) for o in outcomes])
    point = {  # methods.md §1, by hand
        "strength": np.array([(a - d) / max(a + d + o, 1) for a, d, o in outcomes]),
        "relevance": np.array([(a + d) / max(a + d + o, 1) for a, d, o in outcomes]),
        "cohens_kappa": np.array([2 * (a / (a + d) - 0.5) if a + d else 0.0
                                  for a, d, o in outcomes]),
    }
    for name, (low, high) in intervals.items():
        low, high = low[0], high[0]
        assert np.isnan(low[0]) and np.isnan(high[0])  # no comparison at all
        filled = total > 0
        assert not np.isnan(low[filled]).any() and not np.isnan(high[filled]).any()
        assert (low[filled] <= point[name][filled]).all(), name
        assert (point[name][filled] <= high[filled]).all(), name
        assert (low[filled] >= RANGES[name][0]).all() and (high[filled] <= RANGES[name][1]).all()


def test_unanimous_cell_gets_a_real_interval():
    # 12 of 12 agree: a percentile bootstrap would return [1, 1]; Jeffreys gives
    # kappa in [2 * Beta(12.5, 0.5).ppf(0.025) - 1, 1].
    low, high = metric_intervals(cells((12, 0, 0)), n_draws=20000, seed=0)["cohens_kappa"]
    assert high[0, 0] == 1.0
    assert low[0, 0] == pytest.approx(2 * beta.ppf(0.025, 12.5, 0.5) - 1, abs=0.01)
    assert low[0, 0] < 0.8


def test_intervals_match_the_beta_marginals():
    # Dirichlet(a + 1/2, d + 1/2, o + 1/2): accuracy ~ Beta(a + 1/2, d + 1/2) and
    # relevance ~ Beta(a + d + 1, o + 1/2); strength = p_agree - p_disagree has no closed
    # form, so it is checked against numpy's own Dirichlet sampler.
    agreed, disagreed, other = 30, 10, 20
    intervals = metric_intervals(cells((agreed, disagreed, other)), n_draws=40000, seed=3)
    kappa = 2 * beta.ppf([0.025, 0.975], agreed + 0.5, disagreed + 0.5) - 1
    relevance = beta.ppf([0.025, 0.975], agreed + disagreed + 1, other + 0.5)
    draws = np.random.default_rng(99).dirichlet([agreed + 0.5, disagreed + 0.5, other + 0.5],
                                                size=200000)
    strength = np.quantile(draws[:, 0] - draws[:, 1], [0.025, 0.975])
    for name, expected in (("cohens_kappa", kappa), ("relevance", relevance),
                           ("strength", strength)):
        low, high = intervals[name]
        assert [low[0, 0], high[0, 0]] == pytest.approx(list(expected), abs=0.006), name


def _coverage(p: np.ndarray, n: int, simulations: int, seed: int) -> dict[str, float]:
    x = np.random.default_rng(seed).multinomial(n, p, size=simulations)
    intervals = metric_intervals(cells(*map(tuple, x)), n_draws=1000, seed=seed)
    truth = {"strength": p[0] - p[1], "relevance": p[0] + p[1],
             "cohens_kappa": 2 * p[0] / (p[0] + p[1]) - 1}
    return {name: float(((low <= truth[name]) & (truth[name] <= high)).mean())
            for name, (low, high) in intervals.items()}


def test_coverage_close_to_95_percent():
    # 1,000 simulated cells of 40 comparisons; Monte Carlo standard error ~0.007.
    for name, share in _coverage(np.array([0.45, 0.15, 0.40]), 40, 1000, seed=2).items():
        assert 0.92 <= share <= 0.975, (name, share)


def test_coverage_holds_for_small_lopsided_cells():
    # 12 comparisons, 90% agreement: the percentile bootstrap covers ~40-65% here.
    for name, share in _coverage(np.array([0.90, 0.05, 0.05]), 12, 1000, seed=4).items():
        assert share >= 0.90, (name, share)


def test_seeded_and_deterministic():
    counts = cells((7, 3, 5), (2, 2, 2))
    first = metric_intervals(counts, n_draws=300, seed=5)
    again = metric_intervals(counts, n_draws=300, seed=5)
    other = metric_intervals(counts, n_draws=300, seed=6)
    for name in first:
        np.testing.assert_array_equal(first[name][0], again[name][0])
        np.testing.assert_array_equal(first[name][1], again[name][1])
        assert not np.array_equal(first[name][0], other[name][0])


def test_too_few_valid_votes_counts_only_a_and_b_votes():
    counts = cells((5, 4, 30), (6, 4, 0), (0, 0, 50))
    assert too_few_valid_votes(counts).tolist() == [[True, False, True]]
    assert too_few_valid_votes(counts, min_valid_votes=9).tolist() == [[False, False, True]]


def test_frame_with_intervals_lines_up_with_metric_frame(tmp_path):
    verbose, concise = trait("is more verbose"), trait("is more concise")
    comparisons = [{"comparison_id": f"c{i}"} for i in range(14)]
    votes = []
    for i in range(14):
        votes.append({"comparison_id": f"c{i}", "role": "preference", "judge": "human",
                      "vote": "A" if i % 3 else "B"})
        votes.append({"comparison_id": f"c{i}", **verbose, "judge": "j", "vote": "A"})
        if i < 4:
            votes.append({"comparison_id": f"c{i}", **concise, "judge": "j", "vote": "B"})
    annotations = read_annotations([write_test_votes(tmp_path / "v.parquet", comparisons,
                                                     votes)])
    tv = trait_votes(annotations)
    reference = preference_reference(annotations, np.zeros(14, dtype=np.int64), ["all"])
    plain = metric_frame(tv, reference)
    framed = metric_frame_with_intervals(tv, reference, n_draws=400)
    assert framed["trait_id"].tolist() == plain["trait_id"].tolist()
    np.testing.assert_array_equal(framed["strength"], plain["strength"])
    assert (framed["strength_low"] <= framed["strength"]).all()
    assert (framed["strength"] <= framed["strength_high"]).all()
    too_few = dict(zip(framed["trait_id"], framed["too_few_votes"], strict=True))
    # verbose: 14 valid votes; concise: 4 valid votes (the other 10 comparisons: no vote).
    assert too_few == {verbose["trait_id"]: False, concise["trait_id"]: True}
