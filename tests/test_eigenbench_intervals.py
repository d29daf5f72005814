"""EigenBench's intervals mean something (issue 24): on simulated populations (TEST
FIXTURE: eigenbench_fixture.py, judgments drawn from known lenses, dispositions and tie
propensities, the judge drawn independently of the pair as the paper does), the 95%
intervals cover the true EigenTrust Elo 90-99% of the time, are about as wide as the
estimates really vary, and the self-preference intervals cover the simulated
self-preference.  The truth is computed apart from ffsite's code (the fixture's
`independent_*`: the paper's formulas term by term, numpy's eigenvector)."""

from __future__ import annotations

import eigenbench_fixture as fixture
import numpy as np
import pytest

from ffsite.metrics import eigenbench as eb

# (models, d, judgments, simulated data sets): the fixture's shape (6 models, d = 2,
# 6,000 judgments, where issue 24 found intervals 436 and 1,694 Elo wide), smaller and
# larger populations, d = 1 to 3.
SHAPES = [(5, 1, 4000, 12), (6, 2, 6000, 20), (10, 3, 12000, 8), (20, 2, 20000, 3)]
# A 95% interval of a roughly normal estimator is 2 x 1.96 = 3.92 standard deviations
# wide.  The standard deviation is measured as the spread of the estimates over the
# simulated data sets, itself uncertain: with R data sets its relative standard error is
# 1 / sqrt(2 (R - 1)), 16% at R = 20 and 21% at R = 12; the bound allows about two of
# those, no more, so an interval that buys its coverage by being wide fails.
WIDTH_RATIO = 1.4
WIDTH_RATIO_MIN_SETS = 12  # shapes with fewer data sets measure the spread too loosely
# And whatever the spread, well below the site's warning for a weak identification:
ABSOLUTE_WIDTH = eb.WIDE_INTERVAL / 4  # 100 Elo


def simulated_intervals(models: int, dims: int, judgments: int, sets: int) -> dict:
    """Fit `sets` simulated data sets of one true population (with the true d, 200
    bootstrap refits each): estimates, intervals and self-preference intervals per set
    (rows) and model (columns), in the fixture's model order, and the truth."""
    truth = fixture.truth(models, dims, seed=100 + models + dims)
    found = {key: [] for key in ("elo", "low", "high", "self", "self_low", "self_high")}
    for number in range(sets):
        result = eb.eigenbench(fixture.simulate(truth, judgments, seed=1000 * models + number),
                               dims=dims, n_bootstrap=200, seed=number)
        ratings = result.ratings.set_index("model").loc[list(result.models)]
        judges = result.judges.set_index("judge").loc[list(result.models)]
        for key, frame, column in (("elo", ratings, "elo"), ("low", ratings, "ci_low"),
                                   ("high", ratings, "ci_high"),
                                   ("self", judges, "self_preference"),
                                   ("self_low", judges, "self_preference_low"),
                                   ("self_high", judges, "self_preference_high")):
            found[key].append(frame[column].to_numpy())
    found = {key: np.array(value) for key, value in found.items()}
    found["true_elo"] = fixture.independent_elo(truth)
    found["true_self"] = fixture.independent_self_preference(truth)
    return found


@pytest.fixture(scope="module")
def simulations() -> dict:
    return {shape: simulated_intervals(*shape) for shape in SHAPES}


@pytest.mark.slow
def test_intervals_cover_the_true_eigentrust_elo(simulations):
    covered, total = 0, 0
    for shape, found in simulations.items():
        inside = (found["low"] <= found["true_elo"]) & (found["true_elo"] <= found["high"])
        assert inside.mean() >= 0.8, (shape, inside.mean())  # no shape far off on its own
        covered, total = covered + inside.sum(), total + inside.size
    assert total >= 200
    assert 0.90 <= covered / total <= 0.99, (covered, total)


@pytest.mark.slow
def test_intervals_are_as_wide_as_the_estimates_vary(simulations):
    for (models, dims, _, sets), found in simulations.items():
        width = np.median(found["high"] - found["low"])
        assert width < ABSOLUTE_WIDTH, (models, dims, width)
        if sets >= WIDTH_RATIO_MIN_SETS:
            spread = np.median(3.92 * found["elo"].std(axis=0, ddof=1))
            assert width <= WIDTH_RATIO * spread, (models, dims, width, spread)
            assert width >= spread / WIDTH_RATIO, (models, dims, width, spread)


@pytest.mark.slow
def test_self_preference_intervals_cover_the_simulated_self_preference(simulations):
    covered, total = 0, 0
    for found in simulations.values():
        inside = ((found["self_low"] <= found["true_self"])
                  & (found["true_self"] <= found["self_high"]))
        covered, total = covered + inside.sum(), total + inside.size
    assert total >= 200
    assert 0.88 <= covered / total <= 0.995, (covered, total)


def self_preferring_truth() -> fixture.Truth:
    """Six models, d = 2: five judges read the first axis; judge 0 reads the second, on
    which only its own disposition is high, so it rates itself far above what the
    others give it."""
    lenses = np.array([[0.3, 1.6], *[[1.0, 0.1]] * 5])
    dispositions = np.array([[0.0, 1.5], [1.2, 0.0], [0.6, 0.0], [0.0, 0.0], [-0.6, 0.0],
                             [-1.2, 0.0]])
    return fixture.Truth(lenses, dispositions, np.full(6, 0.8))


@pytest.mark.slow
def test_a_self_preferring_judge_is_found_within_its_interval():
    truth = self_preferring_truth()
    true_self = fixture.independent_self_preference(truth)
    assert true_self[0] > 150  # by construction (187), checked apart from ffsite
    hits = 0
    for number in range(5):
        result = eb.eigenbench(fixture.simulate(truth, 6000, seed=500 + number), dims=2,
                               n_bootstrap=200, seed=number)
        judge = result.judges.set_index("judge").loc[fixture.names(6)[0]]
        assert judge["self_preference_low"] > 0  # found, not only bounded
        hits += judge["self_preference_low"] <= true_self[0] <= judge["self_preference_high"]
    assert hits >= 4


def test_without_self_judgments_the_fit_says_it_is_weakly_identified():
    truth = fixture.truth(5, 2, seed=3)
    seen = eb.eigenbench(fixture.simulate(truth, 6000, seed=4), dims=2, n_bootstrap=50,
                         seed=0)
    unseen = eb.eigenbench(fixture.simulate(truth, 6000, seed=4, self_judgments=False),
                           dims=2, n_bootstrap=50, seed=0)
    assert seen.identification.without_self_judgments == ()
    assert (seen.judges["self_judgments"] > 0).all()
    assert unseen.identification.without_self_judgments == fixture.names(5)
    assert unseen.identification.weak
    assert any("extrapolated" in reason for reason in unseen.identification.reasons)
    assert (unseen.judges["self_judgments"] == 0).all()
