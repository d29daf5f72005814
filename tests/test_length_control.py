"""Length-controlled win rates and trait strengths on crafted data whose length effect is
known, checked against statsmodels' logistic regression (an independent fit), a closed
form, scipy's optimiser on the penalised likelihood, and the truth."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy.optimize import minimize
from scipy.special import expit

from ffsite.metrics.length_control import (
    controlled_strengths,
    controlled_win_rates,
    fit_logistic,
)


def statsmodels_fit(design: np.ndarray, y: np.ndarray):
    """Binomial GLM with a fractional response (ties as 0.5): statsmodels' own IRLS."""
    return sm.GLM(y, design, family=sm.families.Binomial()).fit(tol=1e-12)


def crafted_win_rates(rng, models: dict[str, float], effect: float, n: int,
                      longer: float):
    """Comparisons with the reference: model m wins with logit alpha_m + effect *
    tanh(z); its answers are `longer` characters longer on average (sd 400); 4% ties."""
    rows = []
    for model, alpha in models.items():
        difference = rng.normal(longer, 400, n)
        z = difference / pd.Series(difference).std()
        win = rng.random(n) < expit(alpha + effect * np.tanh(z))
        outcome = np.where(rng.random(n) < 0.04, 0.5, win.astype(float))
        rows.append(pd.DataFrame({"model": model, "outcome": outcome,
                                  "difference": difference}))
    return pd.concat(rows, ignore_index=True)


def test_plain_fit_is_statsmodels_logistic_regression():
    rng = np.random.default_rng(0)
    frame = crafted_win_rates(rng, {"m": -0.4}, effect=1.1, n=805, longer=300)
    z = frame["difference"] / frame["difference"].std()
    design = np.column_stack([np.ones(len(frame)), np.tanh(z)])
    reference = statsmodels_fit(design, frame["outcome"].to_numpy())
    beta, covariance = fit_logistic(design[None], frame["outcome"].to_numpy()[None],
                                    np.ones((1, len(frame))), firth=False)
    assert beta[0] == pytest.approx(reference.params, abs=1e-8)
    assert np.sqrt(np.diag(covariance[0])) == pytest.approx(reference.bse, rel=1e-6)
    # And the win-rate function gives the same numbers (no Firth).
    table = controlled_win_rates(frame["model"].to_numpy(object), frame["outcome"].to_numpy(),
                                 frame["difference"].to_numpy(), firth=False).iloc[0]
    a, se = reference.params[0], reference.bse[0]
    assert table["lc_win_rate"] == pytest.approx(100 * expit(a), abs=1e-6)
    assert table["lc_low"] == pytest.approx(100 * expit(a - 1.959964 * se), abs=1e-4)
    assert table["lc_high"] == pytest.approx(100 * expit(a + 1.959964 * se), abs=1e-4)
    assert table["length_effect"] == pytest.approx(reference.params[1], abs=1e-8)
    assert table["n"] == 805


def test_firth_closed_form_and_penalised_optimum():
    # Intercept only: the Firth estimate is logit((w + 1/2) / (n + 1)), finite even when
    # every comparison is won.
    for wins, n in ((7, 10), (10, 10), (0, 5)):
        y = np.r_[np.ones(wins), np.zeros(n - wins)]
        beta, _ = fit_logistic(np.ones((1, n, 1)), y[None], np.ones((1, n)))
        assert beta[0, 0] == pytest.approx(np.log((wins + 0.5) / (n - wins + 0.5)), abs=1e-9)
    # With a slope: the solution maximises l(b) + 1/2 log det I(b), as scipy finds it.
    rng = np.random.default_rng(5)
    x = np.column_stack([np.ones(40), np.tanh(rng.normal(0, 1, 40))])
    y = (rng.random(40) < expit(0.3 + 1.5 * x[:, 1])).astype(float)

    def penalised(b):
        p = expit(x @ b)
        information = (x * (p * (1 - p))[:, None]).T @ x
        return -(np.sum(y * np.log(p) + (1 - y) * np.log(1 - p))
                 + 0.5 * np.linalg.slogdet(information)[1])
    best = minimize(penalised, np.zeros(2), method="Nelder-Mead",
                    options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000}).x
    beta, _ = fit_logistic(x[None], y[None], np.ones((1, 40)))
    assert beta[0] == pytest.approx(best, abs=1e-5)


def test_lc_win_rates_recover_the_known_length_free_rate_where_raw_ones_do_not():
    """Three models whose answers are longer than the reference's: the judge's taste for
    length inflates their raw win rates; the controlled ones recover sigmoid(alpha)."""
    rng = np.random.default_rng(1)
    truth = {"short": -1.0, "even": 0.0, "strong": 0.8}
    frame = crafted_win_rates(rng, truth, effect=1.5, n=4000, longer=500)
    table = controlled_win_rates(frame["model"].to_numpy(object), frame["outcome"].to_numpy(),
                                 frame["difference"].to_numpy()).set_index("model")
    raw = frame.groupby("model")["outcome"].mean() * 100
    for model, alpha in truth.items():
        expected = 100 * expit(alpha)
        row = table.loc[model]
        assert row["lc_low"] <= expected <= row["lc_high"], model
        assert abs(row["lc_win_rate"] - expected) < 2.5
        assert raw[model] - expected > 8  # the raw rate is pulled up by length
        assert row["length_effect_low"] <= 1.5 <= row["length_effect_high"]
    # Firth changes little with 4,000 comparisons: within 0.05 points of the plain fit.
    plain = controlled_win_rates(frame["model"].to_numpy(object), frame["outcome"].to_numpy(),
                                 frame["difference"].to_numpy(), firth=False).set_index("model")
    assert np.allclose(table["lc_win_rate"], plain["lc_win_rate"], atol=0.05)


def test_lc_win_rate_intervals_cover_the_truth():
    """1,000 simulated models (fitted in one batch), 300 comparisons each: the 95%
    intervals hold sigmoid(alpha) about 95% of the time (0.947-0.956 in runs of 2,000)."""
    rng = np.random.default_rng(2)
    alphas = rng.normal(0, 0.8, 1000)
    frame = crafted_win_rates(rng, {f"m{i:03d}": a for i, a in enumerate(alphas)},
                              effect=1.0, n=300, longer=250)
    table = controlled_win_rates(frame["model"].to_numpy(object), frame["outcome"].to_numpy(),
                                 frame["difference"].to_numpy()).set_index("model")
    truth = pd.Series(100 * expit(alphas), index=[f"m{i:03d}" for i in range(1000)])
    covered = ((table["lc_low"] <= truth) & (truth <= table["lc_high"])).mean()
    assert 0.93 <= covered <= 0.97


def crafted_strengths(rng, n: int):
    """Preferences that follow length only (effect 2), with a position preference for A:
    trait 0 is 'longer' (its vote picks the longer answer 90% of the time), trait 1 is
    independent of length but truly preferred (g = 1), trait 2 noise, on half the
    comparisons only (the rest out of its scope)."""
    difference = rng.normal(0, 300, n)
    z = difference / pd.Series(difference).std()
    longer = np.where(difference > 0, 1, 2)
    trait0 = np.where(rng.random(n) < 0.9, longer, 3 - longer)
    trait1 = rng.choice([0, 1, 2], n, p=[0.3, 0.35, 0.35])
    trait2 = np.where(rng.random(n) < 0.5, rng.choice([1, 2], n), -1)
    x1 = np.where(trait1 == 1, 1.0, np.where(trait1 == 2, -1.0, 0.0))
    p_a = expit(0.2 + 1.0 * x1 + 2.0 * np.tanh(z))
    sides = np.where(rng.random(n) < p_a, 1, 2)
    return sides, np.column_stack([trait0, trait1, trait2]), difference, z


def test_lc_strengths_remove_length_and_match_statsmodels():
    rng = np.random.default_rng(3)
    sides, traits, difference, z = crafted_strengths(rng, 20000)
    table = controlled_strengths(sides, traits, difference)
    raw = [np.mean(np.where(traits[:, k] == sides, 1, np.where(
        (traits[:, k] == 1) | (traits[:, k] == 2), -1, 0))[traits[:, k] >= 0])
        for k in range(3)]
    longer, preferred, noise = table.itertuples(index=False)
    assert raw[0] > 0.3  # the length trait looks strongly preferred ...
    assert longer.lc_low <= 0 <= longer.lc_high  # ... but not once length is held at 0
    assert abs(longer.lc_strength) < 0.05
    expected = 0.7 * (2 * expit(1.0) - 1)  # relevance 0.7 x kappa at g = 1
    assert preferred.lc_low <= expected <= preferred.lc_high
    assert preferred.relevance == pytest.approx(np.mean(traits[:, 1] != 0))
    assert noise.n == int((traits[:, 2] >= 0).sum()) and noise.lc_low <= 0 <= noise.lc_high
    # The coefficient g of trait 1 against an independent fit (no Firth, same design).
    x1 = np.where(traits[:, 1] == 1, 1.0, np.where(traits[:, 1] == 2, -1.0, 0.0))
    design = np.column_stack([np.ones(len(sides)), x1, np.tanh(z)])
    reference = statsmodels_fit(design, (sides == 1).astype(float))
    plain = controlled_strengths(sides, traits, difference, firth=False).iloc[1]
    g, se = reference.params[1], reference.bse[1]
    relevance = np.mean(x1 != 0)
    assert plain["lc_strength"] == pytest.approx(relevance * (2 * expit(g) - 1), abs=1e-8)
    assert plain["lc_low"] == pytest.approx(relevance * (2 * expit(g - 1.959964 * se) - 1),
                                            abs=1e-6)
    assert plain["length_effect"] == pytest.approx(reference.params[2], abs=1e-8)
    assert 1.9 < plain["length_effect"] < 2.1


def test_missing_lengths_and_undecided_rows_are_left_out():
    sides = np.array([1, 2, 0, 1, 2, 1])
    traits = np.array([[1], [2], [1], [0], [1], [2]])
    difference = np.array([10.0, -5.0, 3.0, np.nan, 2.0, -1.0])
    table = controlled_strengths(sides, traits, difference, firth=True)
    assert table["n"].tolist() == [4]  # the tie and the missing length are out
    wins = controlled_win_rates(np.array(["a", "a", None, "b"], dtype=object),
                                np.array([1.0, np.nan, 1.0, 0.0]),
                                np.array([1.0, 2.0, 3.0, 4.0]))
    assert wins["model"].tolist() == ["a", "b"] and wins["n"].tolist() == [1, 1]


def crafted_files(folder, n=400, seed=4):
    """A votes file and a response-metrics file: models m1 (answers ~300 characters
    longer than the reference R's) and m2 (~200 shorter) against R, sides by coin flip;
    the judge "pj" prefers the longer answer (effect 1.5 on the length term), m1 is truly
    worse than R (alpha -0.5), m2 even; the rules trait "is more verbose" picks the longer
    answer."""
    from helpers import trait, write_test_votes

    from ffsite.format.write import write_response_metrics

    rng = np.random.default_rng(seed)
    verbose = trait("is more verbose")
    comparisons, votes, metrics, truth = [], [], [], []
    for model, longer, alpha in (("m1", 300.0, -0.5), ("m2", -200.0, 0.0)):
        difference = rng.normal(longer, 250, n)
        z = difference / pd.Series(difference).std()
        wins = rng.random(n) < expit(alpha + 1.5 * np.tanh(z))
        for k in range(n):
            cid, flip = f"{model}-{k}", rng.random() < 0.5
            sides = ("R", model) if flip else (model, "R")
            comparisons.append({"comparison_id": cid, "prompt_id": f"p{k}",
                                "model_a": sides[0], "model_b": sides[1],
                                "response_a_id": f"{sides[0]}/{cid}",
                                "response_b_id": f"{sides[1]}/{cid}"})
            model_side = "B" if flip else "A"
            other = "A" if flip else "B"
            votes.append({"comparison_id": cid, "role": "preference", "judge": "pj",
                          "vote": model_side if wins[k] else other})
            votes.append({"comparison_id": cid, **verbose, "judge": "rules",
                          "vote": model_side if difference[k] > 0 else other})
            base = 1000.0
            metrics += [{"dataset": "d", "response_id": f"R/{cid}", "prompt_id": f"p{k}",
                         "model": "R", "characters": base, "words": base / 5},
                        {"dataset": "d", "response_id": f"{model}/{cid}",
                         "prompt_id": f"p{k}", "model": model,
                         "characters": base + difference[k],
                         "words": (base + difference[k]) / 5}]
            truth.append((model, float(wins[k]), difference[k]))
    folder.mkdir(parents=True, exist_ok=True)
    write_test_votes(folder / "votes.parquet", comparisons, votes,
                     default_preference={"d": "pj"})
    write_response_metrics(pd.DataFrame(metrics), folder / "metrics.parquet")
    return pd.DataFrame(truth, columns=["model", "outcome", "difference"])


def test_ratings_win_rates_command_matches_an_independent_fit(tmp_path, monkeypatch, capsys):
    import io

    from helpers import run_main

    truth = crafted_files(tmp_path / "ann")
    status, out, err = run_main(monkeypatch, capsys, "ratings", str(tmp_path / "ann"),
                                "--anchor", "R", "--win-rates", "--format", "csv",
                                "--content", str(tmp_path))
    assert status == 0, err
    table = pd.read_csv(io.StringIO(out)).set_index("model")
    assert set(table.index) == {"m1", "m2"} and set(table["dataset"]) == {"d"}
    assert table["win_rate"].is_monotonic_decreasing  # best raw win rate first
    for model, part in truth.groupby("model"):
        z = part["difference"] / part["difference"].std()
        design = np.column_stack([np.ones(len(part)), np.tanh(z)])
        reference = statsmodels_fit(design, part["outcome"].to_numpy())
        row = table.loc[model]
        assert row["win_rate"] == pytest.approx(100 * part["outcome"].mean())
        # Firth's estimate is a little nearer 50% than plain maximum likelihood's.
        assert row["lc_win_rate"] == pytest.approx(100 * expit(reference.params[0]), abs=0.6)
        assert row["length_effect"] == pytest.approx(reference.params[1], rel=0.05)
        assert row["n"] == 400
    # m1 writes longer: the judge's taste for length lifts its raw win rate above the
    # controlled one; m2 writes shorter, the other way round.
    assert table.loc["m1", "win_rate"] > table.loc["m1", "lc_win_rate"] + 5
    assert table.loc["m2", "win_rate"] < table.loc["m2", "lc_win_rate"] - 5


def test_metrics_length_control_columns(tmp_path, monkeypatch, capsys):
    import io

    from helpers import run_main

    crafted_files(tmp_path / "ann")
    status, out, err = run_main(monkeypatch, capsys, "metrics", str(tmp_path / "ann"),
                                "--length-control", "words", "--format", "csv")
    assert status == 0, err
    row = pd.read_csv(io.StringIO(out)).iloc[0]
    # The trait is length itself: strongly "preferred" raw, about nothing once length
    # is held at zero.
    assert row["strength"] > 0.3 and row["lc_ci_low"] <= 0.02 and row["lc_n"] == 800
    assert row["lc_ci_low"] <= row["lc_strength"] <= row["lc_ci_high"]
    assert row["length_effect"] > 0
    status, _, err = run_main(monkeypatch, capsys, "metrics", str(tmp_path / "ann"),
                              "--length-control", "words", "--split-by", "dataset")
    assert status != 0 and "--length-control" in err and "--split-by" in err
    status, _, err = run_main(monkeypatch, capsys, "metrics", str(tmp_path / "ann"),
                              "--length-control", "words", "--against", "model:m1")
    assert status != 0 and "--length-control" in err and "--against" in err


def test_the_commands_offer_the_library_measures():
    from ffsite.commands.options import LENGTH_MEASURES as OFFERED
    from ffsite.metrics.length_control import LENGTH_MEASURES

    assert OFFERED == LENGTH_MEASURES
