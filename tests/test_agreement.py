"""Trait agreement (kappa, relevance overlap) against scikit-learn and plain counting."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from ffsite.metrics.agreement import trait_agreement
from ffsite.metrics.strength import TraitVotes


def test_matches_sklearn_and_counting_over_comparisons_that_asked_both():
    rng = np.random.default_rng(3)
    n, n_traits = 400, 5
    matrix = rng.choice([0, 1, 2, 3, 4, 5], size=(n, n_traits),
                        p=[.05, .3, .3, .1, .2, .05]).astype(np.int8)
    dataset = (np.arange(n) >= 250).astype(np.int32)
    in_scope = np.ones((2, n_traits), dtype=bool)
    in_scope[1, 4] = False  # trait 4 was never asked in the second dataset
    matrix[dataset == 1, 4] = 0
    ids = [f"t{i}" for i in range(n_traits)]
    votes = TraitVotes(traits=pd.DataFrame({"trait_id": ids}), matrix=matrix,
                       dataset_code=dataset, datasets=["d0", "d1"], in_scope=in_scope)
    table = trait_agreement(votes).set_index(
        ["trait_id_a", "trait_id_b"])
    assert len(table) == n_traits * (n_traits - 1) // 2
    for i in range(n_traits):
        for j in range(i + 1, n_traits):
            rows = (matrix[:, i] != 0) & (matrix[:, j] != 0)  # asked both
            first, second = matrix[rows, i], matrix[rows, j]
            relevant_first, relevant_second = np.isin(first, [1, 2]), np.isin(second, [1, 2])
            both = relevant_first & relevant_second
            either = relevant_first | relevant_second
            row = table.loc[(f"t{i}", f"t{j}")]
            assert row["both_relevant"] == both.sum()
            assert row["either_relevant"] == either.sum()
            assert row["overlap"] == pytest.approx(both.sum() / either.sum())
            assert row["cohens_kappa"] == pytest.approx(
                cohen_kappa_score(first[both], second[both]))


def test_undefined_kappa_is_missing_not_a_number():
    matrix = np.array([[1, 1], [1, 1], [0, 2]], dtype=np.int8)  # only one label shared
    votes = TraitVotes(traits=pd.DataFrame({"trait_id": ["a", "b"]}), matrix=matrix,
                       dataset_code=np.zeros(3, np.int32), datasets=["d"],
                       in_scope=np.ones((1, 2), dtype=bool))
    (row,) = trait_agreement(votes).itertuples()
    assert np.isnan(row.cohens_kappa)
    # Trait a was not asked of the third comparison: it counts for neither.
    assert row.overlap == pytest.approx(2 / 2) and row.either_relevant == 2


def test_a_criterion_asked_of_one_kind_of_scenario_is_not_penalised_for_the_others():
    """EQ-Bench 3's shape: trait x is asked of every comparison, y only of the first
    four (analysis scenarios, say).  Counted by hand over those four: both relevant on
    comparisons 0 and 1, x alone on 2, neither on 3 -> overlap 2 / 3.  The two
    role-play comparisons where x is relevant and y was never asked do not count (the
    old count made it 2 / 5)."""
    matrix = np.array([[1, 1], [2, 2], [1, 4], [4, 4], [1, 0], [2, 0]], dtype=np.int8)
    votes = TraitVotes(traits=pd.DataFrame({"trait_id": ["x", "y"]}), matrix=matrix,
                       dataset_code=np.zeros(6, np.int32), datasets=["d"],
                       in_scope=np.ones((1, 2), dtype=bool))
    (row,) = trait_agreement(votes).itertuples()
    assert (row.both_relevant, row.either_relevant) == (2, 3)
    assert row.overlap == pytest.approx(2 / 3)
    assert row.cohens_kappa == pytest.approx(1.0)  # A-A and B-B: agreement 1, chance 1/2


def test_intervals_are_those_of_resampling_the_comparisons_that_asked_both():
    """Against a bootstrap written out here: draw the comparisons that asked both traits
    with replacement, count kappa and overlap on each draw (numpy's percentiles of 4,000
    draws; the two bootstraps differ by Monte Carlo error only)."""
    rng = np.random.default_rng(11)
    n = 600
    first = rng.choice([1, 2, 4], size=n, p=[.45, .35, .2])
    agree = rng.random(n) < 0.8
    second = np.where(agree, first, rng.choice([1, 2, 4], size=n))
    second[rng.random(n) < 0.25] = 0  # trait b not asked of a quarter of the comparisons
    matrix = np.stack([first, second], 1).astype(np.int8)
    votes = TraitVotes(traits=pd.DataFrame({"trait_id": ["a", "b"]}), matrix=matrix,
                       dataset_code=np.zeros(n, np.int32), datasets=["d"],
                       in_scope=np.ones((1, 2), dtype=bool))
    (row,) = trait_agreement(votes, n_bootstrap=4000, seed=2).itertuples()
    asked = matrix[matrix[:, 1] != 0]
    assert row.asked_both == len(asked)
    kappas, overlaps = [], []
    for _ in range(4000):
        drawn = asked[rng.integers(0, len(asked), len(asked))]
        relevant = np.isin(drawn, [1, 2])
        both = relevant.all(1)
        a_first, a_second = (drawn[both] == 1).mean(0)
        observed = (drawn[both, 0] == drawn[both, 1]).mean()
        expected = a_first * a_second + (1 - a_first) * (1 - a_second)
        kappas.append((observed - expected) / (1 - expected))
        overlaps.append(both.sum() / relevant.any(1).sum())
    assert (row.kappa_low, row.kappa_high) == pytest.approx(
        tuple(np.percentile(kappas, [2.5, 97.5])), abs=0.015)
    assert (row.overlap_low, row.overlap_high) == pytest.approx(
        tuple(np.percentile(overlaps, [2.5, 97.5])), abs=0.015)
    assert row.kappa_low < row.cohens_kappa < row.kappa_high
    again = trait_agreement(votes, n_bootstrap=4000, seed=2)
    assert again.equals(trait_agreement(votes, n_bootstrap=4000, seed=2))  # seeded


def test_a_pair_that_always_agrees_gets_the_exact_bound_not_a_zero_width_interval():
    """40 comparisons, both traits relevant on all, always on the same side (30 A, 10 B):
    every resample gives kappa 1 and overlap 1.  The lower bounds are the exact ones of a
    share seen 40 times in 40 (0.025 ** (1 / 40), Clopper-Pearson's), the agreement
    share turned into kappa with the chance agreement 0.75² + 0.25² = 0.625."""
    matrix = np.array([[1, 1]] * 30 + [[2, 2]] * 10, dtype=np.int8)
    votes = TraitVotes(traits=pd.DataFrame({"trait_id": ["a", "b"]}), matrix=matrix,
                       dataset_code=np.zeros(40, np.int32), datasets=["d"],
                       in_scope=np.ones((1, 2), dtype=bool))
    (row,) = trait_agreement(votes, n_bootstrap=500).itertuples()
    seen = 0.025 ** (1 / 40)
    assert row.cohens_kappa == 1 and row.kappa_high == 1
    assert row.kappa_low == pytest.approx((seen - 0.625) / (1 - 0.625))
    assert row.overlap == 1 and row.overlap_low == pytest.approx(seen)
    # Always opposite sides (A-B 30 times, B-A 10): no agreement seen in 40, chance
    # agreement 0.75 x 0.25 + 0.25 x 0.75 = 0.375, kappa -0.375 / 0.625 = -0.6.  The
    # upper bound is at least the exact one of an agreement share seen 0 times in 40.
    opposite = TraitVotes(traits=votes.traits, matrix=np.array(
        [[1, 2]] * 30 + [[2, 1]] * 10, dtype=np.int8), dataset_code=votes.dataset_code,
        datasets=["d"], in_scope=votes.in_scope)
    (row,) = trait_agreement(opposite, n_bootstrap=500).itertuples()
    assert row.cohens_kappa == pytest.approx(-0.6) and row.kappa_low <= -0.6
    assert row.kappa_high >= (1 - seen - 0.375) / (1 - 0.375) - 1e-12
