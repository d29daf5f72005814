"""Hand-checked numbers for the explorer's metric functions: side biases with Wilson
intervals (ffsite.metrics.bias) and outcome counts per model pair (ffsite.metrics.pairs)."""

from __future__ import annotations

import numpy as np
import pytest
from site_fixture import CONCISE, VERBOSE, write_tiny

from ffsite.format import schema
from ffsite.format.read import read_annotations
from ffsite.metrics.bias import longer_side, side_bias, wilson_interval
from ffsite.metrics.pairs import pair_counts, side_counts
from ffsite.metrics.strength import group_by_column, preference_sides, trait_votes

A, B, TIE, NEITHER, INVALID = (schema.A, schema.B, schema.TIE, schema.NEITHER,
                               schema.INVALID)


def test_wilson_interval_matches_hand_computed_bounds():
    # 5 of 10, z = 1.96: centre (0.5 + 0.19208) / 1.38416 = 0.5, half-width
    # 1.96 * sqrt(0.025 + 0.009604) / 1.38416 = 0.263409.  0 of 10: upper bound
    # 2 * 0.19208 / 1.38416 = 0.277540 (the "rule of three"-like Wilson bound).
    low, high = wilson_interval(np.array([5, 0, 10, 0]), np.array([10, 10, 10, 0]), z=1.96)
    assert low[0] == pytest.approx(0.236591, abs=1e-5)
    assert high[0] == pytest.approx(0.763409, abs=1e-5)
    assert low[1] == 0.0 and high[1] == pytest.approx(0.277540, abs=1e-6)
    assert low[2] == pytest.approx(1 - 0.277540, abs=1e-6) and high[2] == 1.0
    assert np.isnan(low[3]) and np.isnan(high[3])


def test_side_bias_counts_decided_votes_only():
    # Judge 0: votes A, A, B, tie, invalid; the first shown side is A except on the
    # third vote (B shown first).  Longer side: A, B, B, A, 0.
    # Judge 1: one vote, B, with equal lengths.  Judge 2: no votes at all.
    judge = np.array([0, 0, 0, 0, 0, 1])
    vote = np.array([A, A, B, TIE, INVALID, B])
    first = np.array([1, 1, 2, 1, 1, 1])
    longer = np.array([1, 2, 2, 1, 0, 0])
    table = side_bias(judge, vote, first, longer, ["j0", "j1", "j2"])
    assert table["judge"].tolist() == ["j0", "j1", "j2"]
    assert table["decided"].tolist() == [3, 1, 0]
    # j0 picked the first-shown side on all three: A, A with A first, B with B first.
    assert table["first"].tolist() == [3, 0, 0]
    # j0's three decided votes all have a longer side; it picked it on votes 1 and 3.
    assert table["with_length"].tolist() == [3, 0, 0]
    assert table["longer"].tolist() == [2, 0, 0]
    assert table["first_share"][0] == 1.0
    assert table["longer_share"][0] == pytest.approx(2 / 3)
    assert np.isnan(table["longer_share"][1]) and np.isnan(table["first_share"][2])
    low, high = wilson_interval(np.array([2]), np.array([3]))
    assert table["longer_low"][0] == low[0] and table["longer_high"][0] == high[0]
    assert table["first_high"][0] == 1.0 and 0.4 < table["first_low"][0] < 0.5
    assert table["first_low"][1] == 0.0 and 0 < table["first_high"][1] < 1


def test_longer_side_leaves_unknown_and_equal_lengths_out():
    assert longer_side(np.array([5, 3, 4, np.nan]), np.array([3, 5, 4, 2])).tolist() == [
        1, 2, 0, 0]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return read_annotations([write_tiny(tmp_path_factory.mktemp("tiny"))])


def model_codes(annotations):
    models = annotations.models  # ["R", "m1", "m2"]
    index = {m: i for i, m in enumerate(models)}
    comparisons = annotations.comparisons
    return (np.array([index.get(m, -1) for m in comparisons["model_a"]]),
            np.array([index.get(m, -1) for m in comparisons["model_b"]]))


def test_pair_counts_by_hand(tiny):
    # site_fixture's table: pair (R, m1) is c1-c3, (R, m2) c4-c5, (m1, m2) c6.
    votes = trait_votes(tiny)
    assert tiny.models == ["R", "m1", "m2"]
    model_a, model_b = model_codes(tiny)
    found = pair_counts(votes, model_a, model_b, np.zeros(len(model_a), int), 1)
    assert found.pairs.tolist() == [[0, 1], [0, 2], [1, 2]]
    ids = votes.traits["trait_id"].tolist()
    v, c = ids.index(VERBOSE["trait_id"]), ids.index(CONCISE["trait_id"])
    # Verbose, (R, m1): c1 A = m1, c2 B = m1, c3 B = R -> 1 for R, 2 for m1, 3 votes.
    assert found.counts[0, 0, v].tolist() == [1, 2, 3]
    # Concise, (R, m1): c1 B = R, c2 neither, c3 A = m1.
    assert found.counts[0, 0, c].tolist() == [1, 1, 3]
    # (R, m2): verbose c4 B = R, c5 A = R; concise c4 A = m2, c5 B = m2.
    assert found.counts[1, 0, v].tolist() == [2, 0, 2]
    assert found.counts[1, 0, c].tolist() == [0, 2, 2]
    # (m1, m2): c6 verbose A = m1, concise B = m2.
    assert found.counts[2, 0, v].tolist() == [1, 0, 1]
    assert found.counts[2, 0, c].tolist() == [0, 1, 1]


def test_pair_counts_split_by_metadata(tiny):
    votes = trait_votes(tiny)
    model_a, model_b = model_codes(tiny)
    group, values = group_by_column(tiny, "topic")
    assert values == ["x", "y"]
    found = pair_counts(votes, model_a, model_b, group, len(values))
    v = votes.traits["trait_id"].tolist().index(VERBOSE["trait_id"])
    # (R, m2): c4 is topic x (B = R), c5 topic y (A = R).
    assert found.counts[1, :, v].tolist() == [[1, 0, 1], [1, 0, 1]]
    # (m1, m2): only c6, topic y.
    assert found.counts[2, :, v].tolist() == [[0, 0, 0], [1, 0, 1]]


def test_side_counts_against_the_preference(tiny):
    # pj (the default): A B tie B A A.  Verbose: A B B B A A -> agrees on c1, c2, c4, c5,
    # c6; c3 has no preference (tie) so it is left out: 5 agreed, 0 disagreed, 5 votes.
    # Concise: B neither A A B B -> disagrees on c1, c4, c5, c6; c2 not applicable.
    votes = trait_votes(tiny)
    found = side_counts(votes, preference_sides(tiny), np.zeros(6, int), 1)
    ids = votes.traits["trait_id"].tolist()
    assert found[0, ids.index(VERBOSE["trait_id"])].tolist() == [5, 0, 5]
    assert found[0, ids.index(CONCISE["trait_id"])].tolist() == [0, 4, 5]


def test_triple_intervals_by_hand():
    from ffsite.metrics.pairs import triple_interval

    triples = np.array([[3, 1, 10], [0, 0, 5], [0, 0, 0]])
    # Strength, one vote added each way: (4 - 2) / 12 = 0.166667 ± 1.96 × sqrt((6/12 -
    # 0.166667²) / 12) = ± 0.388811.  No vote at all: 0 ± 1.96 × sqrt(2/7 / 7) = ± 0.39598.
    low, high = triple_interval(triples, "strength", z=1.96)
    assert low[:2] == pytest.approx([-0.222144, -0.395980], abs=1e-5)
    assert high[:2] == pytest.approx([0.555478, 0.395980], abs=1e-5)
    assert np.isnan(low[2]) and np.isnan(high[2])
    # Kappa: 2 × Wilson(3 of 4) − 1; Wilson(3/4) = 0.627525 ± 0.326889.
    low, high = triple_interval(triples[:1], "kappa", z=1.96)
    assert (low[0], high[0]) == (pytest.approx(-0.398728, abs=1e-5),
                                 pytest.approx(0.908828, abs=1e-5))
    # Relevance: Wilson(4 of 10); agreement: Wilson(3 of 4).
    assert triple_interval(triples[:1], "relevance", z=1.96)[0][0] == pytest.approx(
        wilson_interval(np.array([4]), np.array([10]), z=1.96)[0][0])
    assert triple_interval(triples[:1], "agreement", z=1.96)[1][0] == pytest.approx(
        0.627525 + 0.326889, abs=1e-5)
