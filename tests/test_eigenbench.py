"""EigenBench fit: recovery of simulated parameters, the trust matrix and EigenTrust by
hand, the both-orders rule, ties, the bootstrap."""

from __future__ import annotations

import eigenbench_fixture as fixture
import numpy as np
import pandas as pd
import pytest
from helpers import trait, write_test_votes

from ffsite.errors import FfsiteError
from ffsite.format.read import read_annotations
from ffsite.metrics import eigenbench as eb


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    return float(pd.Series(a).corr(pd.Series(b), method="spearman"))


def elo_by_model(result: eb.EigenBenchResult) -> np.ndarray:
    return result.ratings.set_index("model").loc[list(result.models), "elo"].to_numpy()


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_recovers_the_true_eigentrust_ranking(seed):
    # 8 models (each a judge), true d = 2, 3,000 judgments drawn from known lenses,
    # dispositions and tie propensities; d chosen by held-out log-likelihood
    truth = fixture.truth(8, 2, seed=seed)
    judgments = fixture.simulate(truth, 3000, seed=seed + 100)
    result = eb.eigenbench(judgments, n_bootstrap=0, seed=seed)
    assert spearman(elo_by_model(result), truth.elo) >= 0.95
    fitted_d2 = eb.eigenbench(judgments, dims=2, n_bootstrap=0, seed=seed)
    assert spearman(elo_by_model(fitted_d2), truth.elo) >= 0.95
    assert set(result.held_out["dims"]) == {1, 2, 3, 4}
    assert result.held_out["chosen"].sum() == 1


def test_ratings_always_sum_to_n():
    truth = fixture.truth(7, 2, seed=3)
    result = eb.eigenbench(fixture.simulate(truth, 1500, seed=4), dims=2, n_bootstrap=20)
    total = np.sum(10 ** ((result.ratings["elo"].to_numpy() - 1500) / 400))
    assert total == pytest.approx(7, rel=1e-9)
    samples = eb.bootstrap_elo(fixture.simulate(truth, 600, seed=5), result.fit, 5, seed=0)
    assert np.sum(10 ** ((samples - 1500) / 400), axis=1) == pytest.approx(np.full(5, 7.0))
    assert (result.ratings["ci_low"] <= result.ratings["elo"]).all()
    assert (result.ratings["elo"] <= result.ratings["ci_high"]).all()


def test_trust_matrix_and_eigentrust_by_hand_on_three_models():
    lenses = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 2.0]])
    dispositions = np.array([[0.2, -0.1], [1.0, 0.3], [-0.4, 0.8]])
    lambdas = np.array([0.5, 1.0, 2.0])
    expected = np.zeros((3, 3))
    for i in range(3):
        s = [np.exp(lenses[i] @ dispositions[j]) for j in range(3)]
        raw = [s[j] + lambdas[i] / 2 * sum(np.sqrt(s[j] * s[k]) for k in range(3) if k != j)
               for j in range(3)]
        expected[i] = np.array(raw) / sum(raw)
    trust = eb.trust_matrix(lenses, dispositions, lambdas)
    np.testing.assert_allclose(trust, expected, rtol=1e-12)
    np.testing.assert_allclose(trust.sum(axis=1), 1.0)

    values, vectors = np.linalg.eig(expected.T)  # left eigenvectors of T
    principal = np.real(vectors[:, np.argmax(np.real(values))])
    principal /= principal.sum()
    t = eb.eigentrust(trust)
    np.testing.assert_allclose(t, principal, atol=1e-9)
    np.testing.assert_allclose(t @ trust, t, atol=1e-9)
    np.testing.assert_allclose(eb.elo_from_trust(t), 1500 + 400 * np.log10(3 * principal))


@pytest.mark.parametrize("scale", [1.0, 30.0])  # 30: logits far past exp's range
def test_log_likelihood_is_the_three_outcome_softmax_term_by_term(scale):
    """The likelihood is computed from h = (a - b) / 2 alone (btd._terms); here from the
    paper's three logits a = u_i.v_j, b = u_i.v_k, c = log lambda_i + (a + b) / 2, one
    judgment cell at a time, with Python's math."""
    import math

    rng = np.random.default_rng(3)
    n, d = 4, 2
    u, v = scale * rng.normal(size=(n, d)), scale * rng.normal(size=(n, d))
    log_l = rng.uniform(-8, 8, size=n)
    counts = np.zeros((n, n, n, 3))
    expected = 0.0
    for i in range(n):
        for j in range(n):
            for k in range(j + 1, n):
                cell = rng.integers(0, 4, size=3)
                counts[i, j, k] = cell
                a, b = float(u[i] @ v[j]), float(u[i] @ v[k])
                logits = [a, b, float(log_l[i]) + (a + b) / 2]
                top = max(logits)
                norm = top + math.log(sum(math.exp(z - top) for z in logits))
                expected += sum(c * (z - norm) for c, z in zip(cell, logits, strict=True))
    assert eb.log_likelihood(counts, u, v, log_l)[0] == pytest.approx(expected, rel=1e-12)


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    truth = fixture.truth(5, 2, seed=9)
    counts = eb.count_tensor(fixture.simulate(truth, 400, seed=10))
    u, v, log_l = rng.normal(size=(5, 2)), rng.normal(size=(5, 2)), rng.normal(size=5)
    _, g_u, g_v, g_l = eb.log_likelihood(counts, u, v, log_l)
    step = 1e-6
    for array, gradient in ((u, g_u), (v, g_v), (log_l, g_l)):
        for index in [(0, 0), (3, 1)] if array.ndim == 2 else [(0,), (4,)]:
            plus, minus = array.copy(), array.copy()
            plus[index] += step
            minus[index] -= step
            args_plus = [plus if a is array else a for a in (u, v, log_l)]
            args_minus = [minus if a is array else a for a in (u, v, log_l)]
            numeric = (eb.log_likelihood(counts, *args_plus)[0]
                       - eb.log_likelihood(counts, *args_minus)[0]) / (2 * step)
            assert gradient[index] == pytest.approx(numeric, rel=1e-5, abs=1e-5)


def test_a_tie_only_data_set_gives_equal_ratings():
    truth = fixture.truth(5, 2, seed=11)
    judgments = fixture.simulate(truth, 800, seed=12)
    ties = eb.Judgments(judgments.models, judgments.judge, judgments.first,
                        judgments.second, np.full(len(judgments), eb.TIE, np.int8),
                        judgments.comparison)
    result = eb.eigenbench(ties, n_bootstrap=10, seed=0)
    np.testing.assert_allclose(result.ratings["elo"], 1500.0, atol=0.01)
    np.testing.assert_allclose(result.ratings["trust"], 0.2, atol=1e-5)


def test_a_judge_that_picks_the_first_shown_side_is_neutralised(tmp_path):
    truth = fixture.truth(6, 2, seed=13)
    fixture.write_simulated_votes(tmp_path, truth, 1200, seed=14, first_shown_judge=2)
    judgments = eb.judgments_from_annotations(read_annotations([tmp_path]))
    biased = judgments.judge == 2
    assert biased.sum() > 300  # both orders of about a sixth of 1,200 comparisons
    assert (judgments.outcome[biased] == eb.TIE).all()
    # the other judges keep their decisive judgments
    assert (judgments.outcome[~biased] != eb.TIE).mean() > 0.4
    assert judgments.notes["turned_into_ties"] >= biased.sum()


def test_both_orders_rule_on_a_small_file(tmp_path):
    kind = trait("is kinder")
    models = ["m1", "m2", "m3"]
    comparisons = [{"comparison_id": "c1", "model_a": "m2", "model_b": "m3"},
                   {"comparison_id": "c2", "model_a": "m1", "model_b": "m3"},
                   {"comparison_id": "c3", "model_a": "m1", "model_b": "m2"},
                   {"comparison_id": "c4", "model_a": "m1", "model_b": "outsider"}]
    votes = [  # c1: m1 flips with the order; c2: m2 keeps A and a tie; c3: m3 agrees
        {"comparison_id": "c1", **kind, "judge": "m1", "seed": 0, "vote": "A"},
        {"comparison_id": "c1", **kind, "judge": "m1", "seed": 1, "vote": "B"},
        {"comparison_id": "c2", **kind, "judge": "m2", "seed": 0, "vote": "A"},
        {"comparison_id": "c2", **kind, "judge": "m2", "seed": 1, "vote": "tie"},
        {"comparison_id": "c3", **kind, "judge": "m3", "seed": 0, "vote": "B"},
        {"comparison_id": "c3", **kind, "judge": "m3", "seed": 1, "vote": "B"},
        {"comparison_id": "c3", **kind, "judge": "m3", "seed": 2, "vote": "invalid"},
        {"comparison_id": "c4", **kind, "judge": "m2", "seed": 0, "vote": "A"},
        {"comparison_id": "c4", **kind, "judge": "not-a-model", "seed": 0, "vote": "A"}]
    write_test_votes(tmp_path / "v.parquet", comparisons, votes)
    judgments = eb.judgments_from_annotations(read_annotations([tmp_path]))
    assert judgments.models == tuple(models)
    got = sorted(zip(judgments.judge.tolist(), judgments.first.tolist(),
                     judgments.second.tolist(), judgments.outcome.tolist(), strict=True))
    assert got == sorted([(0, 1, 2, eb.TIE), (0, 1, 2, eb.TIE),
                          (1, 0, 2, eb.FIRST), (1, 0, 2, eb.TIE),
                          (2, 0, 1, eb.SECOND), (2, 0, 1, eb.SECOND)])
    assert judgments.notes["outside_population"] == 2
    assert judgments.notes["turned_into_ties"] == 2
    assert judgments.n_comparisons == 3


def test_bootstrap_is_reproducible_with_a_seed():
    truth = fixture.truth(6, 2, seed=15)
    judgments = fixture.simulate(truth, 900, seed=16)
    first = eb.eigenbench(judgments, dims=2, n_bootstrap=30, seed=5)
    again = eb.eigenbench(judgments, dims=2, n_bootstrap=30, seed=5)
    other = eb.eigenbench(judgments, dims=2, n_bootstrap=30, seed=6)
    pd.testing.assert_frame_equal(first.ratings, again.ratings)
    assert not np.allclose(first.ratings["ci_low"], other.ratings["ci_low"])


def test_diagnostics_describe_each_judge():
    truth = fixture.truth(6, 2, seed=17)
    result = eb.eigenbench(fixture.simulate(truth, 2000, seed=18), dims=2, n_bootstrap=0)
    judges = result.judges
    assert list(judges["judge"]) == list(result.models)
    assert judges["judgments"].sum() == result.n_judgments
    assert judges["agreement"].between(0, 1).all()
    assert judges["lens_distance"].between(0, 2).all()
    assert judges["trust_distance"].between(0, 2).all()
    # self-preference is, by definition, the gap between the two Elo columns
    np.testing.assert_allclose(judges["self_preference"],
                               judges["self_elo"] - judges["others_elo"], atol=1e-9)
    assert len(result.trust_frame()) == 36
    assert list(result.vectors_frame().columns) == [
        "model", "lens_1", "lens_2", "disposition_1", "disposition_2", "tie_propensity"]


def test_too_few_models_and_no_judgments_are_refused(tmp_path):
    kind = trait("is kinder")
    comparisons = [{"comparison_id": "c1", "model_a": "m1", "model_b": "m2"}]
    votes = [{"comparison_id": "c1", **kind, "judge": "m1", "vote": "A"},
             {"comparison_id": "c1", **kind, "judge": "m2", "vote": "A"}]
    write_test_votes(tmp_path / "v.parquet", comparisons, votes)
    with pytest.raises(FfsiteError, match="fewer than 3 models"):
        eb.judgments_from_annotations(read_annotations([tmp_path]))


def test_judges_are_named_through_the_model_registry(tmp_path):
    # The registry renames one simulated model; its votes as a judge must follow, or it
    # would fall out of the population (judges are matched to evaluees by name).
    from ffsite.models import apply_registry, load_registry

    truth = fixture.truth(5, 2, seed=19)
    fixture.write_simulated_votes(tmp_path / "votes", truth, 400, seed=20)
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "models.toml").write_text(
        '[[models]]\nid = "renamed-model"\nname = "Renamed"\n'
        f'aliases = {{ "{fixture.DATASET}" = ["sim-model-00"] }}\n', "utf-8")
    registry = load_registry(tmp_path / "content")
    annotations = apply_registry(read_annotations([tmp_path / "votes"]), registry)
    named = eb.judgments_from_annotations(annotations, registry=registry)
    assert "renamed-model" in named.models and len(named.models) == 5
    assert (named.judge == named.models.index("renamed-model")).sum() > 0
    unnamed = eb.judgments_from_annotations(annotations)  # judges left as spelt
    assert "renamed-model" not in unnamed.models and len(unnamed.models) == 4
    assert list(eb.constitutions(annotations, registry)["models"]) == [5]


# --------------------------------------------------- the fit reaches the optimum (issue 24)

def independent_objective(judgments: eb.Judgments, dims: int):
    """Minus the penalised log-likelihood per judgment, judgment by judgment (not from
    ffsite's count tensor), and its numerical gradient: for scipy's optimiser."""
    n = judgments.n_models
    judge, first, second = judgments.judge, judgments.first, judgments.second
    outcome = judgments.outcome

    def value(x: np.ndarray) -> float:
        u = x[:n * dims].reshape(n, dims)
        v = x[n * dims:2 * n * dims].reshape(n, dims)
        log_lambda = x[2 * n * dims:]
        a = (u[judge] * v[first]).sum(axis=1)
        b = (u[judge] * v[second]).sum(axis=1)
        c = log_lambda[judge] + (a + b) / 2
        logits = np.stack([a, b, c], axis=1)  # FIRST, SECOND, TIE
        log_p = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
        picked = log_p[np.arange(len(outcome)), outcome].sum()
        return -(picked - eb.RIDGE * (u ** 2).sum() - eb.RIDGE * (v ** 2).sum()) / len(outcome)
    return value


@pytest.mark.slow  # > 3 s: a kill and resume, a real build or fit (CI runs it)
def test_the_fit_is_the_optimum_an_independent_optimiser_finds():
    from scipy.optimize import minimize

    truth = fixture.truth(5, 2, seed=21)
    judgments = fixture.simulate(truth, 1500, seed=22)
    fit = eb.fit_btd(eb.count_tensor(judgments), 2, seed=0)
    objective = independent_objective(judgments, 2)
    rng = np.random.default_rng(7)
    best = min((minimize(objective, np.concatenate([rng.normal(0, 0.5, 20), np.zeros(5)]),
                         method="L-BFGS-B", bounds=[(None, None)] * 20 + [eb.LOG_LAMBDA_BOUNDS] * 5,
                         options={"maxiter": 5000, "ftol": 1e-15, "gtol": 1e-10})
                for _ in range(4)), key=lambda r: r.fun)
    assert fit.objective == pytest.approx(objective(fit.packed()), abs=1e-12)
    assert fit.objective <= best.fun + 1e-9  # as good as scipy's best of four
    u, v = best.x[:10].reshape(5, 2), best.x[10:20].reshape(5, 2)
    theirs = eb.elo_from_trust(eb.eigentrust(eb.trust_matrix(u, v, np.exp(best.x[20:]))))
    np.testing.assert_allclose(eb.ratings_of(fit)[2], theirs, atol=0.01)


def test_a_refit_started_from_a_bad_point_reaches_the_cold_start_optimum():
    truth = fixture.truth(6, 2, seed=23)
    judgments = fixture.simulate(truth, 6000, seed=24)
    counts = eb.count_tensor(judgments)
    cold = eb.fit_btd(counts, 2, seed=0)  # the best of 8 cold starts
    # Bad points: every disposition reversed and the lenses stretched fivefold, tie
    # propensities at a bound; and the optimum of other data (issue 24's warm start).
    bad = eb.BtdFit(5 * cold.lenses, -cold.dispositions, np.full(6, 8.0), 0.0, False)
    other = eb.fit_btd(eb.count_tensor(fixture.simulate(fixture.truth(6, 2, seed=99), 6000,
                                                        seed=98)), 2, seed=0)
    for start in (bad, other):
        alone = eb.fit_btd(counts, 2, start=start, restarts=0)  # from that start only
        assert alone.converged
        assert alone.objective == pytest.approx(cold.objective, abs=1e-10)
        np.testing.assert_allclose(eb.ratings_of(alone)[2], eb.ratings_of(cold)[2],
                                   atol=1e-4)


def test_the_newton_blocks_solve_the_whole_system():
    """The step solved by blocks (Schur complement) is the dense solve of
    (H + mu I) step = -g, and H is the gradient's finite-difference Jacobian."""
    from ffsite.metrics.eigenbench import btd, newton

    truth = fixture.truth(5, 2, seed=25)
    pairs = eb.pair_counts(eb.count_tensor(fixture.simulate(truth, 900, seed=26)))[None]
    lay = btd._layout(5, 2)
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.normal(0, 0.7, 20), rng.normal(0, 0.5, 5)])[None]
    weights, ridge = pairs / pairs.sum(), np.array([eb.RIDGE / pairs.sum()])
    gradient, blocks = btd._derivatives(lay, weights, ridge, x, np.ones(1, bool))
    hessian = btd._full_hessian(lay, blocks)[0]
    step = 1e-6
    for k in range(x.shape[1]):
        plus, minus = x.copy(), x.copy()
        plus[0, k] += step
        minus[0, k] -= step
        column = (btd._derivatives(lay, weights, ridge, plus, np.ones(1, bool))[0]
                  - btd._derivatives(lay, weights, ridge, minus, np.ones(1, bool))[0]) / (2 * step)
        np.testing.assert_allclose(hessian[:, k], column[0], atol=1e-7)
    mu = np.array([1e-3])
    trial, _, _ = newton._step(lay, x, gradient, blocks, mu)
    dense = x[0] - np.linalg.solve(hessian + mu[0] * np.eye(25), gradient[0])
    np.testing.assert_allclose(trial[0], dense, atol=1e-10)
