"""Trait agreement (kappa, relevance overlap) against scikit-learn and plain counting."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from ffsite.metrics import agreement
from ffsite.metrics.agreement import prompt_codes, trait_agreement
from ffsite.metrics.strength import TraitVotes


def _alone(votes: TraitVotes) -> np.ndarray:
    """Every comparison a prompt of its own."""
    return np.arange(len(votes.matrix))


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
    table = trait_agreement(votes, _alone(votes)).set_index(
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
    (row,) = trait_agreement(votes, _alone(votes)).itertuples()
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
    (row,) = trait_agreement(votes, _alone(votes)).itertuples()
    assert (row.both_relevant, row.either_relevant) == (2, 3)
    assert row.overlap == pytest.approx(2 / 3)
    assert row.cohens_kappa == pytest.approx(1.0)  # A-A and B-B: agreement 1, chance 1/2


def test_with_one_comparison_a_prompt_intervals_are_those_of_resampling_them():
    """Against a bootstrap written out here: draw the comparisons that asked both traits
    with replacement, count kappa and overlap on each draw (numpy's percentiles of 4,000
    draws).  With each comparison a prompt of its own, trait_agreement draws every
    comparison of the dataset, so how many asked both varies a little from draw to draw;
    kappa and overlap are shares of those: the two differ by Monte Carlo error only."""
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
    (row,) = trait_agreement(votes, _alone(votes), n_bootstrap=4000, seed=2).itertuples()
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
    again = trait_agreement(votes, _alone(votes), n_bootstrap=4000, seed=2)
    assert again.equals(trait_agreement(votes, _alone(votes), n_bootstrap=4000,
                                        seed=2))  # seeded


def test_a_pair_that_always_agrees_gets_the_exact_bound_not_a_zero_width_interval():
    """40 comparisons, both traits relevant on all, always on the same side (30 A, 10 B):
    every resample gives kappa 1 and overlap 1.  The lower bounds are the exact ones of a
    share seen 40 times in 40 (0.025 ** (1 / 40), Clopper-Pearson's), the agreement
    share turned into kappa with the chance agreement 0.75² + 0.25² = 0.625."""
    matrix = np.array([[1, 1]] * 30 + [[2, 2]] * 10, dtype=np.int8)
    votes = TraitVotes(traits=pd.DataFrame({"trait_id": ["a", "b"]}), matrix=matrix,
                       dataset_code=np.zeros(40, np.int32), datasets=["d"],
                       in_scope=np.ones((1, 2), dtype=bool))
    (row,) = trait_agreement(votes, _alone(votes), n_bootstrap=500).itertuples()
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
    (row,) = trait_agreement(opposite, _alone(opposite), n_bootstrap=500).itertuples()
    assert row.cohens_kappa == pytest.approx(-0.6) and row.kappa_low <= -0.6
    assert row.kappa_high >= (1 - seen - 0.375) / (1 - 0.375) - 1e-12


def _kappa_and_overlap(drawn: np.ndarray) -> tuple[float, float]:
    """Kappa and overlap of two traits' votes [comparisons, 2], counted plainly."""
    asked = (drawn != 0).all(1)
    drawn = drawn[asked]
    relevant = np.isin(drawn, [1, 2])
    both = relevant.all(1)
    a_first, a_second = (drawn[both] == 1).mean(0)
    observed = (drawn[both, 0] == drawn[both, 1]).mean()
    expected = a_first * a_second + (1 - a_first) * (1 - a_second)
    return (observed - expected) / (1 - expected), both.sum() / relevant.any(1).sum()


def _prompted_votes(rng, prompts: int, per_prompt: np.ndarray, lean: float
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Votes of two traits [comparisons, 2] on `prompts` prompts with `per_prompt`
    comparisons each, and each comparison's prompt.  Each prompt leans to one side
    (`lean`: how often a vote follows it): the votes of one prompt go together."""
    prompt = np.repeat(np.arange(prompts), per_prompt)
    side = rng.choice([1, 2], size=prompts)[prompt]
    votes = np.where(rng.random((len(prompt), 2)) < lean, side[:, None],
                     rng.choice([1, 2, 4], size=(len(prompt), 2)))
    return votes.astype(np.int8), prompt


@pytest.mark.parametrize("draws_at_once", [agreement._DRAWS_AT_ONCE, 100])
def test_intervals_are_those_of_resampling_each_datasets_prompts(draws_at_once, monkeypatch):
    """Two datasets (40 and 25 prompts of 1 to 8 comparisons, each prompt leaning to one
    side), against a bootstrap written out here: draw each dataset's prompts with
    replacement, keep all their comparisons, count kappa and overlap (percentiles of
    4,000 draws; the two differ by Monte Carlo error only).  The same with the
    resamples drawn one at a time (as many prompts would make them)."""
    monkeypatch.setattr(agreement, "_DRAWS_AT_ONCE", draws_at_once)
    rng = np.random.default_rng(5)
    first, first_prompt = _prompted_votes(rng, 40, rng.integers(1, 9, 40), 0.7)
    second, second_prompt = _prompted_votes(rng, 25, rng.integers(1, 9, 25), 0.5)
    matrix = np.concatenate([first, second])
    dataset = np.r_[np.zeros(len(first), np.int32), np.ones(len(second), np.int32)]
    # The same prompt number in two datasets is two prompts.
    comparisons = pd.DataFrame({"dataset": np.where(dataset == 0, "d0", "d1"),
                                "prompt_id": np.r_[first_prompt, second_prompt]})
    clusters = prompt_codes(comparisons)
    assert clusters.max() + 1 == 65
    votes = TraitVotes(traits=pd.DataFrame({"trait_id": ["a", "b"]}), matrix=matrix,
                       dataset_code=dataset, datasets=["d0", "d1"],
                       in_scope=np.ones((2, 2), dtype=bool))
    (row,) = trait_agreement(votes, clusters, n_bootstrap=4000,
                             seed=2).itertuples()
    assert (row.cohens_kappa, row.overlap) == pytest.approx(_kappa_and_overlap(matrix))
    kappas, overlaps = [], []
    prompts = np.r_[first_prompt, second_prompt]
    groups = [[matrix[(dataset == d) & (prompts == p)] for p in np.unique(prompts[dataset == d])]
              for d in (0, 1)]  # each dataset's prompts, each with its comparisons
    for _ in range(4000):
        drawn = np.concatenate([gs[k] for gs in groups
                                for k in rng.integers(0, len(gs), len(gs))])
        kappa, overlap = _kappa_and_overlap(drawn)
        kappas.append(kappa)
        overlaps.append(overlap)
    assert (row.kappa_low, row.kappa_high) == pytest.approx(
        tuple(np.percentile(kappas, [2.5, 97.5])), abs=0.02)
    assert (row.overlap_low, row.overlap_high) == pytest.approx(
        tuple(np.percentile(overlaps, [2.5, 97.5])), abs=0.02)


def test_copies_within_a_prompt_add_no_certainty():
    """Every comparison of 150 one-comparison prompts seen five times over in its prompt:
    resampling prompts gives about the interval of the 150 alone, while taking the 750 as
    independent would make it about sqrt(5) = 2.2 times narrower than it should be."""
    rng = np.random.default_rng(8)
    once, prompt = _prompted_votes(rng, 150, np.ones(150, np.int64), 0.6)
    five = np.repeat(once, 5, axis=0)

    def width(matrix: np.ndarray, clusters: np.ndarray) -> float:
        votes = TraitVotes(traits=pd.DataFrame({"trait_id": ["a", "b"]}), matrix=matrix,
                           dataset_code=np.zeros(len(matrix), np.int32), datasets=["d"],
                           in_scope=np.ones((1, 2), dtype=bool))
        (row,) = trait_agreement(votes, clusters, n_bootstrap=2000).itertuples()
        return row.kappa_high - row.kappa_low

    alone, by_prompt = width(once, prompt), width(five, np.repeat(prompt, 5))
    as_independent = width(five, np.arange(len(five)))
    assert by_prompt == pytest.approx(alone, rel=0.15)
    assert by_prompt > 1.8 * as_independent


def test_every_pair_is_counted_on_the_same_resamples():
    """Trait c votes exactly as b does: in every resample the pairs (a, b) and (a, c) have
    the same kappa, as they would not if each pair were resampled on its own; so a
    statistic over pairs (a median) has a true bootstrap."""
    rng = np.random.default_rng(4)
    votes_ab, prompt = _prompted_votes(rng, 60, rng.integers(1, 5, 60), 0.6)
    matrix = np.column_stack([votes_ab, votes_ab[:, 1]])
    votes = TraitVotes(traits=pd.DataFrame({"trait_id": ["a", "b", "c"]}), matrix=matrix,
                       dataset_code=np.zeros(len(matrix), np.int32), datasets=["d"],
                       in_scope=np.ones((1, 3), dtype=bool))
    table, draws = trait_agreement(votes, prompt, n_bootstrap=300, with_draws=True)
    pairs = list(zip(table["trait_id_a"], table["trait_id_b"], strict=True))
    ab, ac = pairs.index(("a", "b")), pairs.index(("a", "c"))
    assert np.array_equal(draws[:, ab], draws[:, ac])
    assert np.nanstd(draws[:, ab]) > 0.01  # and they do vary from resample to resample


def test_a_missing_prompt_is_a_prompt_of_its_own():
    comparisons = pd.DataFrame({"dataset": ["d", "d", "d", "e", "d"],
                                "prompt_id": ["p", "p", None, "p", None]})
    codes = prompt_codes(comparisons)
    assert codes[0] == codes[1] and len(set(codes)) == 4
