"""EQ-Bench 3's own rating, recomputed (ffsite/datasets/eqbench3/scale.py): each step
worked by hand, the margin curve checked against the values EQ-Bench stored in its
published file, and the rating on the real data normalised as EQ-Bench normalises it."""

from __future__ import annotations

import gzip
import json
import math

import numpy as np
import pandas as pd
import pytest

from ffsite.datasets.eqbench3 import scale


def test_the_margin_curve_by_hand():
    assert scale.blend(np.array([0.0]))[0] == 0.0
    # From 0.11 on, the saturating curve alone: at 1, (1 - e^-3) / (1 - e^-3) = 1.
    assert scale.blend(np.array([1.0]))[0] == pytest.approx(1.0)
    x = 0.5
    assert scale.blend(np.array([x]))[0] == pytest.approx(
        (1 - math.exp(-3 * x ** 0.75)) / (1 - math.exp(-3)))
    # Below 0.11 a smoothstep joins the line 5x to the curve: at 0.055, half-way in t,
    # the weight is 0.5^2 * (3 - 1) = 0.5.
    x = 0.055
    curve = (1 - math.exp(-3 * x ** 0.75)) / (1 - math.exp(-3))
    assert scale.blend(np.array([x]))[0] == pytest.approx(0.5 * 5 * x + 0.5 * curve)


def test_the_curve_matches_the_values_eqbench_stored(shared_data):
    """Every judged entry of the published file stores its normalised margin and the
    curve's value of it: ours gives the same for all of them."""
    path = shared_data / "eqbench3" / "pairwise_comparisons.json.gz"
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        entries = json.load(handle)["__metadata__"]["global_pairwise_comparisons"]
    stored = np.array([(e["plus_diff_normalized"], e["plus_diff_blended"])
                       for e in entries if "error" not in e])
    assert len(stored) == 6362
    np.testing.assert_allclose(scale.blend(stored[:, 0]), stored[:, 1], atol=1e-12)
    # And the normalised margin is the plus-count difference over 30, capped at 1.
    diffs = np.array([e["plus_diff"] for e in entries if "error" not in e])
    np.testing.assert_allclose(np.minimum(diffs / scale.MAX_DIFF, 1), stored[:, 0])


def test_matchups_add_both_orders_and_every_criterion():
    # Pair c1 (a vs b, scenario 1, iteration 1) in both orders: a +++ and b ++ first, then
    # a ++ and a +: a has 3 + 2 + 1 = 6 "+", b 2.  Pair c2 (b vs a, the same scenario and
    # iteration, roles swapped): b +: one matchup with c1.  Pair c3: a draw (a +, b +).
    votes = pd.DataFrame([
        ("1:a:b:1", "eq-overall_eq", 0, "A", 3), ("1:a:b:1", "eq-empathy", 0, "B", 2),
        ("1:a:b:1", "eq-overall_eq", 1, "A", 2), ("1:a:b:1", "eq-empathy", 1, "A", 1),
        ("1:b:a:1", "eq-overall_eq", 0, "A", 1),
        ("2:a:c:1", "eq-overall_eq", 0, "A", 1), ("2:a:c:1", "eq-overall_eq", 1, "B", 1),
    ], columns=["comparison_id", "trait_id", "seed", "vote", "margin"])
    comparisons = pd.DataFrame({"comparison_id": ["1:a:b:1", "1:b:a:1", "2:a:c:1"],
                                "model_a": ["a", "b", "a"], "model_b": ["b", "a", "c"]})
    found = scale.matchups(votes, comparisons).set_index(["first", "second", "scenario"])
    ab = found.loc[("a", "b", "1")]
    assert (ab["plus_first"], ab["plus_second"]) == (6, 3)
    # 3 apart of 30: x = 0.1, on the smoothstep: share 0.5 + blend(0.1) / 2.
    assert ab["share"] == pytest.approx(0.5 + scale.blend(np.array([0.1]))[0] / 2)
    assert found.loc[("a", "c", "2"), "share"] == 0.5
    assert len(found) == 2


def test_shares_become_runs_of_games():
    wins_first, wins_second = scale.pseudo_games(np.array([0.9, 0.5, 0.501, 1.0, 0.2]))
    # 0.9: 0.4 over steps of 0.5 / 20 = 16 games; a hair over 0.5: at least 1; 1.0: all
    # 20; 0.2: 0.3 / 0.025 = 12 games for the second model; 0.5: a draw (no wins).
    assert wins_first.tolist() == [16, 0, 1, 20, 0]
    assert wins_second.tolist() == [0, 0, 0, 0, 12]


def test_one_trueskill_game_by_hand():
    from scipy.stats import norm

    games = scale.Games(winner=np.array([[0]]), loser=np.array([[1]]),
                        draw=np.array([[False]]), active=np.array([[True]]))
    mu = scale.trueskill(games, 2)[0]
    sigma2, beta2 = (350 / 3) ** 2, (350 / 6) ** 2
    c = math.sqrt(2 * beta2 + 2 * sigma2)
    v = norm.pdf(0) / norm.cdf(0)  # t = 0: equal ratings
    assert mu[0] == pytest.approx(1200 + sigma2 / c * v)
    assert mu[1] == pytest.approx(1200 - sigma2 / c * v)
    # A draw between equals moves nobody (v = -t = 0).
    drawn = scale.Games(winner=np.array([[0]]), loser=np.array([[1]]),
                        draw=np.array([[True]]), active=np.array([[True]]))
    assert scale.trueskill(drawn, 2)[0].tolist() == [1200, 1200]


def test_the_straight_line_through_the_anchors():
    raw = np.array([[10.0, 20.0, 30.0]])
    # Model 2 to 1500, model 0 to 200: 65 points per raw point, shifted by -450.
    assert scale.normalise(raw, [2, 0], [1500.0, 200.0]).tolist() == [[200, 850, 1500]]


@pytest.mark.slow  # > 2.4 s: a real build, fit or watcher (CI runs it)
def test_the_real_ratings_are_on_eqbenchs_scale(shared_data):
    """On the published verdicts: the anchors where EQ-Bench puts them, every model rated,
    a sorted table's ranks in order."""
    from pathlib import Path

    from ffsite.format.read import read_annotations, vote_rows
    from ffsite.models import apply_registry, load_registry

    repo = Path(__file__).resolve().parents[1]
    registry = load_registry(repo / "content")
    path = repo / "annotations" / "eqbench3" / "votes.parquet"
    annotations = apply_registry(read_annotations([path]), registry)
    votes = vote_rows(path).select(["comparison_id", "trait_id", "seed", "vote",
                                    "margin"]).to_pandas()
    found = scale.matchups(votes, annotations.comparisons)
    anchors = tuple(registry.ids(["eqbench3"] * 2, [a for a, _ in scale.ANCHORS]))
    table = scale.eqbench_scale(found, anchors, resamples=40).table.set_index("model")
    assert len(table) == 27
    assert table.loc[anchors[0], ["rating", "ci_low", "ci_high"]].tolist() == [1500] * 3
    assert table.loc[anchors[1], ["rating", "ci_low", "ci_high"]].tolist() == [200] * 3
    ordered = table.sort_values("rating", ascending=False)
    assert ordered.index[0] == anchors[0] and ordered.index[-1] == anchors[1]
    assert (ordered["rank_low"] <= ordered["rank"]).all()
    assert (ordered["rank"] <= ordered["rank_high"]).all()
    assert ((ordered["ci_low"] <= ordered["rating"]) | (ordered["ci_low"] == 200)).all()


def test_chains_played_together_equal_each_chain_alone():
    # All chains share one flat array of means: no chain may see another's games.
    rng = np.random.default_rng(5)
    first = rng.integers(0, 6, 40)
    second = (first + rng.integers(1, 6, 40)) % 6
    share = rng.choice([0.0, 0.25, 0.5, 1.0], 40)
    orders = [rng.permutation(40), rng.integers(0, 40, 40), rng.integers(0, 40, 25)]
    together = scale.trueskill(scale.chain_games(first, second, share, orders), 6)
    for chain, order in enumerate(orders):
        alone = scale.trueskill(scale.chain_games(first, second, share, [order]), 6)[0]
        assert np.array_equal(together[chain], alone)


def test_chains_are_laid_out_as_trueskill_plays_them():
    # One row per step of every chain, 32-bit codes: the default site's 210 chains of
    # some 300,000 games each took 1 GB laid out by chain with 64-bit codes.
    games = scale.chain_games(np.array([0, 1]), np.array([1, 2]), np.array([1.0, 0.5]),
                              [np.array([0, 1]), np.array([1])])
    assert games.winner.shape == (scale.WIN_BINS + 1, 2)  # 20 won games, then a draw
    assert games.winner.dtype == games.loser.dtype == np.int32
    assert games.active[:, 1].tolist() == [True] + [False] * scale.WIN_BINS
    assert games.winner[:, 0].tolist() == [0] * scale.WIN_BINS + [1]
