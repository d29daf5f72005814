"""Bradley–Terry + Firth ratings on the Elo scale (ffsite.metrics.ratings, ffsite ratings)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from helpers import run_cli, run_here, trait, write_test_votes
from scipy.optimize import minimize

from ffsite.errors import FfsiteError
from ffsite.format.read import read_annotations
from ffsite.metrics.ratings import (
    FIRST_WINS,
    SECOND_WINS,
    fit_bradley_terry,
    rate_trait,
    ratings_table,
)

ELO = 400 / math.log(10)  # Elo points per logit


def simulated_wins(true_logit: np.ndarray, per_pair: int, seed: int) -> np.ndarray:
    """wins[i, j] from per_pair Bernoulli comparisons of every pair, a few as ties."""
    rng = np.random.default_rng(seed)
    m = len(true_logit)
    wins = np.zeros((m, m))
    for i in range(m):
        for j in range(i + 1, m):
            p = 1 / (1 + math.exp(-(true_logit[i] - true_logit[j])))
            won = rng.binomial(per_pair, p)
            ties = rng.integers(0, 3)
            wins[i, j] += won + 0.5 * ties
            wins[j, i] += per_pair - won + 0.5 * ties
    return wins


def test_recovers_known_ratings():
    true_logit = np.linspace(-2, 2, 12)[np.random.default_rng(1).permutation(12)]
    elo = fit_bradley_terry(simulated_wins(true_logit, per_pair=30, seed=2), anchor=0)
    spearman = pd.Series(elo).corr(pd.Series(true_logit), method="spearman")
    assert spearman >= 0.95
    # On the Elo scale: differences follow 400 / ln(10) per logit, within noise.
    gaps = elo - elo[0]
    assert np.abs(gaps - ELO * (true_logit - true_logit[0])).max() < 120


def test_interval_coverage_close_to_95_percent():
    # 200 simulated data sets of 4 models (25 comparisons per pair), 200 refits each:
    # 600 intervals, Monte Carlo standard error ~0.01 (more, as they share the anchor).
    true_logit = np.array([0.0, 0.5, -0.8, 1.2])
    first, second = np.triu_indices(4, 1)
    model_a, model_b = np.repeat(first, 25), np.repeat(second, 25)
    p = 1 / (1 + np.exp(-(true_logit[model_a] - true_logit[model_b])))
    rng = np.random.default_rng(7)
    true_elo = 1000 + ELO * true_logit
    hits = []
    for simulation in range(200):
        outcome = np.where(rng.random(len(p)) < p, FIRST_WINS, SECOND_WINS)
        rated = rate_trait(model_a, model_b, outcome, 4, anchor=0, n_bootstrap=200,
                           seed=simulation)
        hits.append(((rated.ci_low <= true_elo) & (true_elo <= rated.ci_high))[1:])
    assert 0.90 <= np.mean(hits) <= 0.98


def test_agrees_with_statsmodels_logistic_regression_without_firth():
    wins = simulated_wins(np.array([0.3, -0.4, 0.0, 1.0, -1.1]), per_pair=9, seed=3)
    anchor = 2
    rows, outcomes = [], []
    for i in range(5):
        for j in range(i + 1, 5):
            x = np.zeros(5)
            x[i], x[j] = 1.0, -1.0
            rows.append(np.delete(x, anchor))
            outcomes.append([wins[i, j], wins[j, i]])  # (wins of i, wins of j)
    fit = sm.GLM(np.array(outcomes), np.array(rows), family=sm.families.Binomial()).fit(
        tol=1e-13)
    expected = 1000 + ELO * np.insert(fit.params, anchor, 0.0)
    np.testing.assert_allclose(fit_bradley_terry(wins, anchor=anchor, firth=False), expected,
                               atol=1e-6)


def penalised_log_likelihood(free: np.ndarray, wins: np.ndarray, anchor: int) -> float:
    """log L + 1/2 log det I, written out directly from the definition."""
    theta = np.insert(free, anchor, 0.0)
    m = len(theta)
    log_likelihood, information = 0.0, np.zeros((m, m))
    for i in range(m):
        for j in range(i + 1, m):
            p = 1 / (1 + math.exp(-(theta[i] - theta[j])))
            log_likelihood += wins[i, j] * math.log(p) + wins[j, i] * math.log(1 - p)
            weight = (wins[i, j] + wins[j, i]) * p * (1 - p)
            information[[i, j], [i, j]] += weight
            information[i, j] -= weight
            information[j, i] -= weight
    reduced = np.delete(np.delete(information, anchor, 0), anchor, 1)
    return log_likelihood + 0.5 * np.linalg.slogdet(reduced)[1]


def test_firth_fit_maximises_the_penalised_likelihood():
    wins = simulated_wins(np.array([0.3, -0.4, 0.0, 1.0, -1.1]), per_pair=4, seed=4)
    anchor = 1
    best = minimize(lambda free: -penalised_log_likelihood(free, wins, anchor), np.zeros(4),
                    method="BFGS", options={"gtol": 1e-9})
    expected = 1000 + ELO * np.insert(best.x, anchor, 0.0)
    np.testing.assert_allclose(fit_bradley_terry(wins, anchor=anchor), expected, atol=1e-3)


def test_two_models_match_the_closed_form():
    # With one pair, Firth's estimate is logit((w + 1/2) / (n + 1)): Elo gap
    # 400 * log10((w + 1/2) / (l + 1/2)).  3.5 wins (one tie) against 1.5.
    wins = np.array([[0.0, 1.5], [3.5, 0.0]])
    assert fit_bradley_terry(wins, anchor=0)[1] == pytest.approx(
        1000 + 400 * math.log10(4.0 / 2.0), abs=1e-9)


def test_complete_separation_stays_finite_with_firth():
    wins = simulated_wins(np.array([0.0, 0.4, -0.3, 0.2]), per_pair=6, seed=5)
    wins[0] += wins[:, 0]  # model 0 now wins every comparison it takes part in
    wins[:, 0] = 0.0
    elo = fit_bradley_terry(wins, anchor=1)
    assert np.isfinite(elo).all()
    assert elo[0] == elo.max() and elo[0] < 1000 + 1000
    # Without the penalty the winner's rating runs away: there is no finite maximum.
    with pytest.raises(ValueError, match="complete separation"):
        fit_bradley_terry(wins, anchor=1, firth=False)
    rated = rate_trait(np.zeros(8, int), np.arange(8) % 3 + 1, np.zeros(8, int), 4, anchor=1,
                       n_bootstrap=50)
    assert np.isfinite([rated.elo, rated.ci_low, rated.ci_high]).all()


def test_anchor_is_exactly_1000_and_does_not_change_gaps():
    wins = simulated_wins(np.array([0.3, -0.4, 0.0, 1.0]), per_pair=5, seed=6)
    by_anchor = {anchor: fit_bradley_terry(wins, anchor=anchor) for anchor in range(4)}
    for anchor, elo in by_anchor.items():
        assert elo[anchor] == 1000.0
        # det of the reduced information is the same whichever model is removed
        # (matrix-tree theorem), so Firth's fit only shifts with the anchor.
        np.testing.assert_allclose(elo - elo[0], by_anchor[0] - by_anchor[0][0], atol=1e-6)


def test_models_unlinked_to_the_anchor_are_not_rated():
    # 0-1 met, 2-3 met, nothing links {2, 3} to the anchor 0.
    rated = rate_trait(np.array([0, 0, 2, 2]), np.array([1, 1, 3, 3]),
                       np.array([FIRST_WINS, SECOND_WINS, FIRST_WINS, FIRST_WINS]), 5,
                       anchor=0, n_bootstrap=20)
    assert np.isfinite(rated.elo[:2]).all() and np.isnan(rated.elo[2:]).all()
    assert rated.n.tolist() == [2, 2, 2, 2, 0]


# ------------------------------------------------------------------ from files


VERBOSE, CONCISE = trait("is more verbose"), trait("is more concise")


@pytest.fixture
def small_file(tmp_path):
    comparisons = [{"comparison_id": f"c{i}", "model_a": a, "model_b": b}
                   for i, (a, b) in enumerate([("ref", "m1"), ("m1", "ref"), ("ref", "m1"),
                                               ("m1", "ref"), ("ref", "m1"), ("ref", "ref"),
                                               ("ref", None), ("m1", "ref"), ("ref", "m1")])]
    verbose = ["B", "A", "tie", "A", "A", "A", "B", "neither", "invalid"]
    votes = [{"comparison_id": f"c{i}", **VERBOSE, "judge": "j", "vote": v}
             for i, v in enumerate(verbose)]
    votes += [{"comparison_id": "c0", **CONCISE, "judge": "j", "vote": "A"}]
    return write_test_votes(tmp_path / "v.parquet", comparisons, votes)


def test_table_from_a_file_by_hand(small_file):
    table = ratings_table(read_annotations([small_file]), anchor="ref", n_bootstrap=200)
    verbose = table[table["trait_id"] == VERBOSE["trait_id"]].set_index("model")
    # Informative comparisons between two different models: c0 (B: m1 wins), c1 (A: m1),
    # c2 (tie), c3 (A: m1), c4 (A: ref).  c5 same model, c6 one side unknown, c7 neither,
    # c8 invalid: left out.  m1: 3.5 wins, 1.5 losses -> 1000 + 400 log10(4 / 2).
    assert verbose.loc["ref", "elo"] == 1000.0
    assert verbose.loc["ref", ["ci_low", "ci_high"]].tolist() == [1000.0, 1000.0]
    assert verbose.loc["m1", "elo"] == pytest.approx(1000 + 400 * math.log10(2.0))
    assert verbose["n"].to_dict() == {"ref": 5, "m1": 5}
    assert (verbose["ci_low"] <= verbose["ci_high"]).all()
    assert verbose.loc["m1", "description"] == VERBOSE["trait"]
    # concise: c0 vote A -> ref wins the only comparison: m1 = 1000 + 400 log10(0.5 / 1.5)
    concise = table[table["trait_id"] == CONCISE["trait_id"]].set_index("model")
    assert concise.loc["m1", "elo"] == pytest.approx(1000 + 400 * math.log10(1 / 3))
    assert list(table.columns) == ["trait_id", "description", "model", "elo", "ci_low",
                                   "ci_high", "rank", "rank_low", "rank_high", "n"]


def test_unknown_anchor_is_a_one_line_error(small_file):
    with pytest.raises(FfsiteError, match="anchor model 'gpt-9'.*--anchor"):
        ratings_table(read_annotations([small_file]), anchor="gpt-9")
    result = run_here("ratings", str(small_file), "--anchor", "gpt-9")
    assert result.returncode == 1
    assert result.stderr.startswith("error: anchor model 'gpt-9'")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_cli_prints_ratings_and_indices_deterministically(small_file):
    first = run_here("ratings", str(small_file), "--anchor", "ref", "--bootstrap", "100",
                    "--format", "csv")
    again = run_cli("ratings", str(small_file), "--anchor", "ref", "--bootstrap", "100",
                    "--format", "csv")  # in a fresh process: the same bytes
    assert first.returncode == 0, first.stderr
    assert first.stdout == again.stdout
    assert first.stdout.splitlines()[0] == ("trait_id,description,model,source_model,elo,"
                                            "ci_low,ci_high,rank,rank_low,rank_high,n")
    rows = json.loads(run_here("ratings", str(small_file), "--anchor", "ref", "--bootstrap",
                              "100", "--indices", "--format", "json").stdout)
    # Both test traits belong to the FF Verbosity index (concise reversed).
    assert {row["index"] for row in rows} == {"Verbosity"}
    assert {row["model"]: row["traits_used"] for row in rows} == {"ref": 2, "m1": 2}


def test_traits_the_anchor_never_met_are_noted(tmp_path):
    comparisons = [{"comparison_id": "c0", "model_a": "ref", "model_b": "m1"},
                   {"comparison_id": "c1", "model_a": "m1", "model_b": "m2"}]
    votes = [{"comparison_id": "c0", **VERBOSE, "judge": "j", "vote": "A"},
             {"comparison_id": "c1", **CONCISE, "judge": "j", "vote": "A"}]
    path = write_test_votes(tmp_path / "v.parquet", comparisons, votes)
    result = run_here("ratings", str(path), "--anchor", "ref", "--bootstrap", "20",
                     "--format", "csv")
    assert result.returncode == 0, result.stderr
    assert {line.split(",")[0] for line in result.stdout.splitlines()[1:]} == {
        VERBOSE["trait_id"]}
    assert result.stderr.startswith("note: 1 trait(s) not rated")
    neither = write_test_votes(tmp_path / "n.parquet", comparisons[:1],
                               [{"comparison_id": "c0", **VERBOSE, "judge": "j",
                                 "vote": "neither"}])
    result = run_here("ratings", str(neither), "--anchor", "ref")
    assert result.returncode == 1 and result.stderr.startswith("error: no trait could be rated")
