"""Ranks that respect uncertainty, the signal test and mirror traits, checked on
examples worked by hand (ffsite/metrics/ranking.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ffsite.metrics.ranking import (
    average_ranks,
    correlation_interval,
    draw_ranks,
    grouped_rank_ranges,
    has_signal,
    interval_draws,
    mirror_traits,
    places,
    rank_quantiles,
    rank_ranges,
    spearman,
    tied_at_top,
    tied_together,
)
from ffsite.metrics.ratings import FIRST_WINS, SECOND_WINS, TIE, rate_trait

NAN = float("nan")


# ------------------------------------------------------------ ranks with their ranges

def test_places_count_the_models_strictly_higher():
    assert places(np.array([0.3, 0.7, 0.3, NAN, 0.1])).tolist() == [2, 1, 2, 0, 4]


def test_each_draw_is_ranked_highest_first_ties_sharing():
    draws = np.array([[3.0, 1.0, 2.0], [1.0, 1.0, 5.0]])
    assert draw_ranks(draws).tolist() == [[1, 3, 2], [2, 2, 1]]


def test_rank_range_from_joint_draws_by_hand():
    # Four joint draws of three models (estimates 3, 2, 1).  Their ranks per draw:
    #   draw 1: 3, 2, 1 -> 1, 2, 3     draw 2: 1, 2, 3 -> 3, 2, 1
    #   draw 3: 3, 1, 2 -> 1, 3, 2     draw 4: 3, 2, 1 -> 1, 2, 3
    draws = np.array([[3.0, 2, 1], [1, 2, 3], [3, 1, 2], [3, 2, 1]])
    estimate = np.array([3.0, 2.0, 1.0])
    # At level 0.5 the range runs from the 25% to the 75% point of each model's four
    # ranks (the smallest rank with at least that share at or below it): model 0 has
    # ranks 1, 1, 1, 3 -> 1..1; model 1: 2, 2, 2, 3 -> 2..2; model 2: 1, 2, 3, 3 -> 1..3.
    found = rank_ranges(estimate, draws, level=0.5)
    assert found.rank.tolist() == [1, 2, 3]
    # Each range is the model's own: model 2's best rank 1 widens no range above it.
    assert found.low.tolist() == [1, 2, 1] and found.high.tolist() == [1, 2, 3]
    # At 95% every rank seen counts: 1..3, 2..3, 1..3.
    wide = rank_ranges(estimate, draws)
    assert wide.low.tolist() == [1, 2, 1] and wide.high.tolist() == [3, 3, 3]


def test_tied_estimates_share_the_union_of_their_ranges_and_nothing_else_moves():
    estimate = np.array([4.0, 3.0, 3.0, 1.0])
    low, high = tied_together(estimate, np.array([1, 3, 2, 1]), np.array([2, 3, 4, 4]))
    assert low.tolist() == [1, 2, 2, 1] and high.tolist() == [2, 4, 4, 4]


def test_one_poorly_measured_model_does_not_tie_the_leaders_for_first():
    """Behavioral Profiling under Authority, in miniature: a clear leader, two close
    followers, and far below them a model with a very wide interval.  The wide one
    could be first; the followers, whose intervals lie wholly below the leader's, could
    not, and must not be called tied for first because of it."""
    estimate = np.array([1.35, 1.06, 1.03, 0.91])
    low = np.array([1.22, 0.92, 0.91, 0.65])
    high = np.array([1.55, 1.20, 1.16, 1.36])
    found = rank_ranges(estimate, low=low, high=high)
    assert found.rank.tolist() == [1, 2, 3, 4]
    # By hand: a follower is first only when it draws above the leader.  The leader's
    # draw is below 1.20 with probability P(z < (1.20 - 1.35) / (0.13 / 1.96)) = 1.1%,
    # and the follower must then also draw high: far under the 2.5% a range needs.
    assert found.low[1] >= 2 and found.low[2] >= 2
    assert found.low[3] == 1 and tied_at_top(found) == 2
    assert (found.low <= found.rank).all() and (found.rank <= found.high).all()


def test_draws_from_an_interval_have_its_spread_on_each_side():
    # [-1.96, +3.92] around 0: a standard normal below, twice as wide above.
    draws = interval_draws(np.array([0.0]), np.array([-1.959963984540054]),
                           np.array([2 * 1.959963984540054]), 200_000)[:, 0]
    assert np.quantile(draws, 0.025) == pytest.approx(-1.96, abs=0.03)
    assert np.quantile(draws, 0.975) == pytest.approx(3.92, abs=0.06)
    assert (draws < 0).mean() == pytest.approx(0.5, abs=0.005)


def test_draws_are_the_seeds_normals_scaled_whatever_was_drawn_before():
    # The normals are drawn once per size and seed and reused: each call must still
    # give what a fresh generator gives, and no caller can change the kept ones.
    estimate, low, high = np.array([1.0, 2.0]), np.array([0.0, 1.5]), np.array([3.0, 2.2])
    z = np.random.default_rng(7).standard_normal((50, 2))
    expected = estimate + z * np.where(z < 0, (estimate - low) / 1.959963984540054,
                                       (high - estimate) / 1.959963984540054)
    for _ in range(2):
        draws = interval_draws(estimate, low, high, 50, seed=7)
        np.testing.assert_allclose(draws, expected, rtol=1e-12)
        draws[:] = 0.0  # the caller's own array
    other = interval_draws(estimate + 5, low + 5, high + 5, 50, seed=7)
    np.testing.assert_allclose(other, expected + 5, rtol=1e-12)


def test_far_apart_models_are_sure_and_overlapping_ones_tie_for_first():
    estimate = np.array([10.0, 9.9, 9.8, 0.0])
    found = rank_ranges(estimate, low=estimate - 1, high=estimate + 1)
    assert found.rank.tolist() == [1, 2, 3, 4]
    assert found.low[:3].tolist() == [1, 1, 1] and found.high[:3].tolist() == [3, 3, 3]
    assert (found.low[3], found.high[3]) == (4, 4)  # ten interval widths below: sure
    assert tied_at_top(found) == 3
    bottom = found.from_bottom()
    assert bottom.rank.tolist() == [4, 3, 2, 1]
    assert bottom.low.tolist() == [2, 2, 2, 1] and bottom.high.tolist() == [4, 4, 4, 1]


def test_models_without_an_estimate_take_no_part():
    found = rank_ranges(np.array([1.0, NAN, 0.0]), low=np.array([0.9, NAN, -0.1]),
                        high=np.array([1.1, NAN, 0.1]))
    assert (found.rank.tolist(), found.low.tolist(), found.high.tolist()) == (
        [1, 0, 2], [1, 0, 2], [1, 0, 2])


def test_grouped_ranges_rank_within_each_group():
    frame = pd.DataFrame({"g": ["x", "x", "y", "y"], "v": [1.0, 0.0, 5.0, 9.0],
                          "lo": [0.9, -0.1, 4.9, 8.9], "hi": [1.1, 0.1, 5.1, 9.1]})
    found = grouped_rank_ranges(frame, ["g"], "v", "lo", "hi")
    assert found["rank"].tolist() == [1, 2, 2, 1]
    assert found["rank_low"].tolist() == [1, 2, 2, 1]


def test_rating_ranks_do_not_depend_on_the_anchor():
    # Five models in a ring of comparisons with uneven records: whichever model is the
    # anchor (its interval then has no width), every model's rank range is the same.
    rng = np.random.default_rng(3)
    strength = np.array([1.2, 0.6, 0.0, -0.5, -1.0])
    a = rng.integers(0, 5, 600)
    b = (a + rng.integers(1, 5, 600)) % 5
    p = 1 / (1 + np.exp(-(strength[a] - strength[b])))
    u = rng.random(600)
    outcome = np.where(u < p * 0.95, FIRST_WINS, np.where(u < 0.95, SECOND_WINS, TIE))
    by_anchor = [rate_trait(a, b, outcome, 5, anchor=anchor, n_bootstrap=200, seed=1)
                 for anchor in (0, 2, 4)]
    for rated in by_anchor:
        assert rated.rank.tolist() == [1, 2, 3, 4, 5]
        assert rated.ci_low[(rated.ci_low == rated.ci_high)].size == 1  # the anchor
    for rated in by_anchor[1:]:
        assert rated.rank_low.tolist() == by_anchor[0].rank_low.tolist()
        assert rated.rank_high.tolist() == by_anchor[0].rank_high.tolist()
    # The older rule (1 + the models whose interval lies wholly above) changes with the
    # anchor: models near it look sure.
    old = [(1 + (r.ci_low[None, :] > r.ci_high[:, None]).sum(axis=1)).tolist()
           for r in by_anchor]
    assert len({tuple(o) for o in old}) > 1


def test_signal_against_a_null_band():
    low, high = np.array([-0.02, 0.01]), np.array([0.03, 0.049])
    assert not has_signal(low, high, null=0.0, band=0.05)  # 0.049 is inside the band
    assert has_signal(low, high, null=0.0)  # but 0.01..0.049 excludes zero itself
    assert has_signal(np.array([-0.2]), np.array([-0.06]), null=0.0, band=0.05)
    assert not has_signal(np.array([NAN]), np.array([NAN]), null=0.0)


def test_signal_without_a_null_needs_two_disjoint_intervals():
    assert not has_signal(np.array([1.0, 1.5, 0.5]), np.array([2.0, 2.5, 1.6]))
    assert has_signal(np.array([1.0, 2.1]), np.array([2.0, 3.0]))
    assert not has_signal(np.array([1.0]), np.array([2.0]))  # one model: nothing to say


def test_mirror_traits_found_from_the_values():
    values = pd.DataFrame({
        "verbose": [0.5, -0.25, NAN],
        "concise": [-0.5, 0.25, NAN],  # minus verbose everywhere: a mirror
        "lists": [0.5, 0.25, NAN],
        "half": [-0.5, 0.25, 0.0],  # differs in one model (and in who is missing)
        "zero1": [0.0, 0.0, 0.0],
        "zero2": [0.0, 0.0, 0.0],  # zeros say nothing: not mirrors
    })
    order = ["verbose", "lists", "concise", "half", "zero1", "zero2"]
    assert mirror_traits(values, order) == {"concise": "verbose"}
    # The first in the order is kept.
    assert mirror_traits(values, ["concise", "verbose"]) == {"verbose": "concise"}


# ------------------------------------------------ paired differences (ffsite.metrics.differences)

def _paired_file(tmp_path):
    """Models A and B each against the reference R on the same prompts p1..p3:
    A's outcomes +1, +1, -1; B's +1, 0 (neither), -1 (sides alternate)."""
    from helpers import trait, write_test_votes

    verbose = trait("is more verbose")
    rows = [("a1", "p1", "A", "R", "A"), ("a2", "p2", "R", "A", "B"),
            ("a3", "p3", "A", "R", "B"), ("b1", "p1", "R", "B", "B"),
            ("b2", "p2", "B", "R", "neither"), ("b3", "p3", "R", "B", "A")]
    comparisons = [{"comparison_id": c, "prompt_id": p, "model_a": a, "model_b": b}
                   for c, p, a, b, _ in rows]
    votes = [{"comparison_id": c, **verbose, "judge": "j", "vote": v}
             for c, *_, v in rows]
    return write_test_votes(tmp_path / "paired.parquet", comparisons, votes)


def test_paired_difference_interval_by_hand(tmp_path):
    from ffsite.format import read_annotations
    from ffsite.metrics import results
    from ffsite.metrics.differences import (
        Z95,
        difference_halfwidths,
        prompt_count,
        strength_covariance,
    )

    annotations = read_annotations([_paired_file(tmp_path)])
    votes = results.trait_votes(annotations)
    found = results.model_results(annotations, votes, "R", 1)
    strengths = found.traits.set_index("model")["strength"]
    assert strengths["A"] == pytest.approx(1 / 3) and strengths["B"] == 0.0
    reference = found.reference
    gram = strength_covariance(annotations, votes, reference)
    assert prompt_count(annotations, reference) == 3
    a, b = reference.groups.index("A"), reference.groups.index("B")
    # Residuals (s - mean) / N per prompt: A (2/9, 2/9, -4/9); B (1/3, 0, -1/3).
    assert gram[0, a, a] == pytest.approx(24 / 81)
    assert gram[0, b, b] == pytest.approx(2 / 9)
    assert gram[0, a, b] == pytest.approx(2 / 27 + 4 / 27)
    # A - B per prompt: (-1/9, 2/9, -1/9): sum of squares 6/81, times C/(C-1) = 3/2: 1/9.
    halfwidth = difference_halfwidths(gram, 3)
    assert halfwidth[0, a, b] == pytest.approx(Z95 / 3)
    assert halfwidth[0, b, a] == pytest.approx(Z95 / 3)
    assert halfwidth[0, a, a] == 0
    # Unpaired, the same numbers would give a wider interval: (24/81 + 2/9) * 3/2.
    assert Z95 * np.sqrt((24 / 81 + 2 / 9) * 1.5) > halfwidth[0, a, b]


def test_a_model_is_never_surer_than_its_own_jeffreys_interval():
    from ffsite.metrics.differences import Z95, difference_halfwidths, jeffreys_variance

    # The pair above: G_AA = 24/81, G_BB = 2/9, G_AB = 6/27, three prompts (factor 3/2).
    gram = np.array([[[24 / 81, 6 / 27], [6 / 27, 2 / 9]]])
    # A's own variance, 3/2 * 24/81 = 4/9, is below a floor of 1/2: the shortfall 1/18
    # is added; B's floor 0 adds nothing.  Paired variance 1/9 + 1/18 = 1/6.
    halfwidth = difference_halfwidths(gram, 3, floor=np.array([[0.5, 0.0]]))
    assert halfwidth[0, 0, 1] == pytest.approx(Z95 / np.sqrt(6))
    assert halfwidth[0, 1, 0] == pytest.approx(Z95 / np.sqrt(6))
    assert halfwidth[0, 0, 0] == 0
    # A floor below the model's own variance changes nothing.
    assert difference_halfwidths(gram, 3, floor=np.array([[0.1, 0.1]]))[0, 0, 1] == \
        pytest.approx(Z95 / 3)
    # An interval of width 2 * 1.96 is a variance of 1.
    assert jeffreys_variance(np.array([-Z95]), np.array([Z95]))[0] == pytest.approx(1.0)


@pytest.mark.parametrize(("draws", "models"), [(1000, 67), (200, 5), (1000, 2), (7, 3),
                                               (1, 4), (1000, 300)])
def test_rank_quantiles_are_numpys_inverted_cdf_quantiles(draws, models):
    """Counting gives what np.quantile's partition gives (ties and one draw included)."""
    rng = np.random.default_rng(draws + models)
    values = rng.normal(size=(draws, models)) + np.linspace(0, 3, models)
    values[:, 0] = values[:, 1]  # two models always tied
    ranks = draw_ranks(values)
    quantiles = [(1 - 0.95) / 2, 1 - (1 - 0.95) / 2, 0.0, 0.5, 1.0, 0.1]
    found = rank_quantiles(ranks, quantiles)
    for quantile, mine in zip(quantiles, found, strict=True):
        expected = np.quantile(ranks, quantile, axis=0, method="inverted_cdf")
        assert mine.tolist() == expected.astype(int).tolist(), quantile


def test_average_ranks_share_tied_places_and_leave_nan_out():
    # By hand: 3.0 is the lowest (1); the two 5.0s share places 2 and 3 (2.5); 9.0 is 4th.
    values = np.array([[5.0, 1.0], [NAN, 1.0], [3.0, 2.0], [5.0, NAN], [9.0, 1.0]])
    expected = np.array([[2.5, 2.0], [NAN, 2.0], [1.0, 4.0], [2.5, NAN], [4.0, 2.0]])
    np.testing.assert_array_equal(average_ranks(values, axis=0), expected)
    np.testing.assert_array_equal(average_ranks(values.T, axis=1), expected.T)


def test_average_ranks_are_scipys_rankdata_on_any_axis():
    from scipy.stats import rankdata

    rng = np.random.default_rng(3)
    values = rng.integers(0, 6, (25, 4, 3)).astype(float)
    values[rng.random(values.shape) < 0.2] = NAN
    for axis in range(3):
        np.testing.assert_allclose(average_ranks(values, axis=axis),
                                   rankdata(values, axis=axis, nan_policy="omit"))


def test_spearman_is_pandas_over_the_rows_both_have():
    rng = np.random.default_rng(4)
    first, second = pd.Series(rng.integers(0, 8, 40) * 1.0), pd.Series(rng.random(40))
    second[[2, 9]] = NAN
    assert spearman(first, second) == pytest.approx(first.corr(second, method="spearman"),
                                                    abs=1e-12)
    assert spearman(pd.Series([1.0, 2.0, 3.0]), pd.Series([3.0, 2.0, 1.0])) == pytest.approx(-1)
    assert np.isnan(spearman(pd.Series([1.0, NAN]), pd.Series([NAN, 2.0])))


def test_correlation_interval_is_the_bootstrap_over_models_written_out():
    """Against a loop written here: resample the models with replacement, scipy's
    Pearson and Spearman on each (4,000 resamples; the two differ by Monte Carlo error);
    on bivariate normal data the Pearson interval is also near Fisher's z interval."""
    from scipy import stats

    rng = np.random.default_rng(4)
    x = rng.multivariate_normal([0, 0], [[1, 0.7], [0.7, 1]], size=40)
    first, second = pd.Series(x[:, 0]), pd.Series(x[:, 1])
    second[3] = np.nan  # a model known on one side only is left out
    kept = x[np.arange(40) != 3]
    pearson, spearman_rho = [], []
    for _ in range(4000):
        drawn = kept[rng.integers(0, len(kept), len(kept))]
        pearson.append(stats.pearsonr(drawn[:, 0], drawn[:, 1])[0])
        spearman_rho.append(stats.spearmanr(drawn[:, 0], drawn[:, 1])[0])
    for ranks, loop in ((False, pearson), (True, spearman_rho)):
        found = correlation_interval(first, second, ranks=ranks, n_bootstrap=4000, seed=1)
        assert found == pytest.approx(tuple(np.percentile(loop, [2.5, 97.5])), abs=0.03)
    r = stats.pearsonr(kept[:, 0], kept[:, 1])[0]
    half = 1.959964 / np.sqrt(len(kept) - 3)
    assert correlation_interval(first, second, n_bootstrap=4000) == pytest.approx(
        (np.tanh(np.arctanh(r) - half), np.tanh(np.arctanh(r) + half)), abs=0.05)
    assert np.isnan(correlation_interval(first[:2], second[:2])).all()
