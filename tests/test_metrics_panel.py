"""ffsite.metrics.panel: tiny arrays checked by hand, agreement statistics against
independent implementations (scipy, the krippendorff package, a coincidence-matrix double
loop written here), interval coverage on simulated panels (tests/panel_simulation.py),
then the real llm-dreams and poem-eval data against a plain reading of their files."""

from __future__ import annotations

import dataclasses
import json
import time

import krippendorff
import numpy as np
import pandas as pd
import pytest
from panel_simulation import POEM_SHAPE, SCENARIOS, simulate
from scipy import stats

from ffsite.format import read_scores, write_scores
from ffsite.metrics import panel
from ffsite.metrics.panel import PanelData
from ffsite.models import Model, Registry

# ------------------------------------------------------------------ tiny, by hand


def two_models() -> PanelData:
    """2 models x 2 units x 2 judges x 2 seeds x 1 trait."""
    values = np.array([
        # model a: judge X units (4, 6) and (6, 8); judge Y (2, 2) and (3, 5)
        [[[4, 6], [2, 2]], [[6, 8], [3, 5]]],
        # model b: judge X (5, 5) and (7, 7); judge Y (1, NaN) and (3, 3)
        [[[5, 5], [1, np.nan]], [[7, 7], [3, 3]]],
    ], dtype=float)[..., None]
    return PanelData.from_array(values, models=["a", "b"], judges=["X", "Y"],
                                traits=["warmth"])


def test_panel_and_judge_means_by_hand():
    data = two_models()
    means = panel.panel_means(data).set_index("model")
    # a: X's unit means 5 and 7 -> 6; Y's 2 and 4 -> 3; the panel (6 + 3) / 2 = 4.5.
    # b: X 5 and 7 -> 6; Y 1 (its one seed) and 3 -> 2; the panel 4.
    assert means.loc["a", "mean"] == pytest.approx(4.5)
    assert means.loc["b", "mean"] == pytest.approx(4.0)
    assert means["n"].to_dict() == {"a": 8, "b": 7}
    judges = panel.judge_means(data).set_index(["model", "judge"])["mean"]
    assert judges.to_dict() == pytest.approx({("a", "X"): 6, ("a", "Y"): 3, ("b", "X"): 6,
                                              ("b", "Y"): 2})
    assert (means["ci_low"] < means["mean"]).all() and (means["mean"] < means["ci_high"]).all()
    assert set(means.columns) == {"trait_id", "mean", "ci_low", "ci_high", "n"}


# 4 models (cases) x 3 judges (items), one unit, one seed, one trait.
TABLE = np.array([[1, 2, 1], [2, 3, 3], [3, 3, 4], [4, 5, 4]], dtype=float)


def table_data(table: np.ndarray = TABLE) -> PanelData:
    return PanelData.from_array(table[:, None, :, None, None],
                                models=[f"m{i}" for i in range(len(table))],
                                judges=[f"j{i}" for i in range(table.shape[1])])


def test_cronbach_alpha_by_the_textbook_formula():
    # Item variances (n - 1): j0 (1,2,3,4) 5/3, j1 (2,3,3,5) 4.75/3, j2 (1,3,4,4) 6/3;
    # totals (4, 8, 10, 13): 42.75/3.  alpha = 3/2 (1 - 15.75/42.75) = 18/19.
    items = sum(np.var(TABLE[:, j], ddof=1) for j in range(3))
    textbook = 3 / 2 * (1 - items / np.var(TABLE.sum(1), ddof=1))
    assert textbook == pytest.approx(18 / 19)
    found = panel.agreement(table_data(), n_bootstrap=50).reliability.set_index("statistic")
    assert found.loc["cronbach_alpha", "estimate"] == pytest.approx(18 / 19)


def naive_krippendorff(table: np.ndarray) -> float:
    """Krippendorff's alpha, interval metric, from the coincidence matrix, double loops:
    table[unit, coder], NaN missing."""
    values = sorted({v for v in table.ravel() if np.isfinite(v)})
    coincidence = {(c, k): 0.0 for c in values for k in values}
    for row in table:
        present = [v for v in row if np.isfinite(v)]
        if len(present) < 2:
            continue
        for i, vi in enumerate(present):
            for j, vj in enumerate(present):
                if i != j:
                    coincidence[vi, vj] += 1 / (len(present) - 1)
    n_c = {c: sum(coincidence[c, k] for k in values) for c in values}
    n = sum(n_c.values())
    observed = sum(o * (c - k) ** 2 for (c, k), o in coincidence.items()) / n
    expected = sum(n_c[c] * n_c[k] * (c - k) ** 2 for c in values for k in values) / (
        n * (n - 1))
    return 1 - observed / expected


@pytest.mark.parametrize("missing", [False, True])
def test_krippendorff_alpha_against_two_independent_implementations(missing):
    rng = np.random.default_rng(3)
    table = np.round(rng.normal(5, 1, (30, 1)) + rng.normal(0, 0.8, (30, 4)), 1)
    if missing:
        table[rng.random(table.shape) < 0.2] = np.nan
        table[0, 1:] = np.nan  # a unit with one value: not pairable
    found = panel.agreement(table_data(table), n_bootstrap=20).reliability
    alpha = found.set_index("statistic").loc["krippendorff_alpha", "estimate"]
    assert alpha == pytest.approx(naive_krippendorff(table), abs=1e-12)
    assert alpha == pytest.approx(krippendorff.alpha(reliability_data=table.T,
                                                     level_of_measurement="interval"),
                                  abs=1e-12)


def test_leniency_by_hand():
    # Judges' means over the 4 models: 2.5, 3.25, 3; the panel's: (4 + 8 + 10 + 13) / 12.
    found = panel.leniency(table_data(), n_bootstrap=200).set_index("judge")
    panel_mean = 35 / 12
    assert found["leniency"].to_dict() == pytest.approx(
        {"j0": 2.5 - panel_mean, "j1": 3.25 - panel_mean, "j2": 3 - panel_mean})
    assert found["panel_mean"].to_numpy() == pytest.approx([panel_mean] * 3)
    assert (found["ci_low"] <= found["leniency"]).all()
    assert (found["leniency"] <= found["ci_high"]).all()


def three_by_three() -> PanelData:
    """3 models x 3 judges; judge A is model a, judge B model b.  Means (model x judge):
    a: 8 5 6, b: 6 5 5, c: 4 4 3; the two units are the means -+ a little, so the
    means are exact."""
    means = np.array([[8, 5, 6], [6, 5, 5], [4, 4, 3]], dtype=float)
    wiggle = np.array([[0.2, -0.1, 0.3], [-0.2, 0.1, 0.1], [0.1, 0.3, -0.2]])
    values = np.stack([means - wiggle, means + wiggle], 1)[:, :, :, None, None]
    return PanelData.from_array(values, models=["a", "b", "c"], judges=["A", "B", "C"])


def test_self_rating_gap_by_hand():
    found = panel.self_rating_gap(three_by_three(), {"A": "a", "B": "b"}).set_index("judge")
    # A: D_a = 8 - (5 + 6)/2 = 2.5; D_b = 6 - 5 = 1; D_c = 4 - 3.5 = 0.5 -> 2.5 - 0.75.
    # B: D_b = 5 - (6 + 5)/2 = -0.5; D_a = 5 - 7 = -2; D_c = 4 - 3.5 = 0.5 -> -0.5 + 0.75.
    assert found["gap"].to_dict() == pytest.approx({"A": 1.75, "B": 0.25})
    assert found["self_difference"].to_dict() == pytest.approx({"A": 2.5, "B": -0.5})
    assert found["model"].to_dict() == {"A": "a", "B": "b"}
    assert (found["ci_low"] < found["gap"]).all() and (found["gap"] < found["ci_high"]).all()


def test_self_rating_gap_finds_models_through_the_registry_and_refuses_unknown_ones():
    data = dataclasses.replace(three_by_three(), dataset="toy",
                               models=np.array(["id-a", "b", "c"], dtype=object))
    registry = Registry((Model("id-a", "Model A", aliases={"toy": ("spelled-a",)}),))
    found = panel.self_rating_gap(data, {"A": "spelled-a"}, registry)
    assert found["model"].unique().tolist() == ["id-a"]
    assert found["gap"].tolist() == pytest.approx([1.75])
    with pytest.raises(ValueError, match="declared as model 'nobody'"):
        panel.self_rating_gap(data, {"A": "nobody"})
    assert panel.self_rating_gap(data, {"not-a-judge-here": "b"}).empty


def test_dense_from_a_scores_file(tmp_path):
    rows = []
    for model, base in (("m2", 5.0), ("m1", 2.0)):
        for unit in ("0", "1"):
            for prompt in ("p", "q"):  # two responses in one unit: averaged
                for judge, offset in (("jb", 1.0), ("ja", 0.0)):
                    for seed in (0, 1):
                        rows.append({
                            "dataset": "toy", "response_id": f"{model}/{unit}/{prompt}",
                            "prompt_id": prompt, "model": model, "condition": None,
                            "judge": judge, "trait_id": "t", "trait": "T", "trait_set": "s",
                            "scale_min": 1, "scale_max": 10, "seed": seed,
                            "score": base + offset + int(unit) + (prompt == "q") + seed,
                            "meta.answer_set": unit})
    write_scores(pd.DataFrame(rows), tmp_path / "toy.parquet")
    data = panel.dense(read_scores([tmp_path / "toy.parquet"]), "toy")
    assert data.models.tolist() == ["m1", "m2"] and data.judges.tolist() == ["ja", "jb"]
    assert data.units.tolist() == ["0", "1"] and data.seeds.tolist() == [0, 1]
    assert data.values.shape == (2, 2, 2, 2, 1) and (data.counts == 2).all()
    # m1, unit 1, judge jb, seed 1: 2 + 1 + 1 + 1 = 5 (prompt p) and 6 (q): 5.5
    assert data.values[0, 1, 1, 1, 0] == 5.5
    with pytest.raises(ValueError, match="no column 'meta.run'"):
        panel.dense(read_scores([tmp_path / "toy.parquet"]), "toy", unit="meta.run")
    with pytest.raises(ValueError, match="no scores of dataset 'other'"):
        panel.dense(read_scores([tmp_path / "toy.parquet"]), "other")


# ------------------------------------------------------------------ against scipy

def random_panel(seed: int = 0) -> PanelData:
    rng = np.random.default_rng(seed)
    model = rng.normal(0, 1, (40, 1, 1, 1, 2))
    noise = rng.normal(0, 0.7, (40, 2, 4, 2, 2))
    # Rounded, so the ranks have ties.
    return PanelData.from_array(np.round(5 + model + noise))


def test_correlations_and_reliabilities_against_scipy():
    data = random_panel()
    found = panel.agreement(data, n_bootstrap=100)
    judge = data.values.mean((1, 3))  # [model, judge, trait]
    row = found.correlations.query("trait_id == 1 and judge_a == 0 and judge_b == 2")
    assert row["pearson"].item() == pytest.approx(stats.pearsonr(judge[:, 0, 1],
                                                                 judge[:, 2, 1])[0])
    assert row["spearman"].item() == pytest.approx(stats.spearmanr(judge[:, 0, 1],
                                                                   judge[:, 2, 1])[0])
    assert len(found.correlations) == 2 * 4 * 4
    reliability = found.reliability.set_index(["trait_id", "statistic"])["estimate"]
    unit_panel = data.values.mean((2, 3))  # [model, unit, trait]
    r = stats.pearsonr(unit_panel[:, 0, 0], unit_panel[:, 1, 0])[0]
    assert reliability[0, "test_retest"] == pytest.approx(r)
    assert reliability[0, "test_retest_spearman_brown"] == pytest.approx(2 * r / (1 + r))
    repeat = stats.pearsonr(data.values[:, :, :, 0, 0].ravel(),
                            data.values[:, :, :, 1, 0].ravel())[0]
    assert reliability[0, "judge_repeat"] == pytest.approx(repeat)


def test_bootstrap_replicates_are_the_statistics_of_resampled_models():
    """The weighted sums equal the statistics recomputed on models drawn explicitly."""
    data = random_panel(1)
    judge = data.values.mean((1, 3))
    weights = panel._weights(40, 5, seed=7)
    assert (weights[0] == 1).all() and (weights[1:].sum(1) == 40).all()
    alphas = panel._krippendorff(weights, judge)
    cronbach = panel._cronbach(weights, judge)
    for b in range(1, 6):
        drawn = np.repeat(np.arange(40), weights[b].astype(int))
        table = judge[drawn, :, 0]
        assert alphas[b, 0] == pytest.approx(naive_krippendorff(table))
        textbook = 4 / 3 * (1 - table.var(0, ddof=1).sum() / table.sum(1).var(ddof=1))
        assert cronbach[b, 0] == pytest.approx(textbook)
    again = panel.agreement(data, n_bootstrap=100, seed=3).reliability
    assert again.equals(panel.agreement(data, n_bootstrap=100, seed=3).reliability)
    inside = (again["ci_low"] <= again["estimate"]) & (again["estimate"] <= again["ci_high"])
    assert inside.all()


def test_judge_pair_correlations_averaged_over_traits_with_intervals():
    """The judges page's matrix: a pair's Pearson averaged over the traits (scipy's, per
    trait, averaged here), with a bootstrap interval over models; on one bivariate normal
    trait the interval is Fisher's z interval's, within Monte Carlo error."""
    data = random_panel()
    found = panel.agreement(data, n_bootstrap=200)
    judge = data.values.mean((1, 3))  # [model, judge, trait]
    pairs = found.judge_pairs.set_index(["judge_a", "judge_b"])
    expected = np.mean([stats.pearsonr(judge[:, 0, t], judge[:, 2, t])[0] for t in range(2)])
    for a, b in ((0, 2), (2, 0)):
        row = pairs.loc[(a, b)]
        assert row["pearson"] == pytest.approx(expected)
        assert row["ci_low"] < expected < row["ci_high"] and row["traits"] == 2
    assert tuple(pairs.loc[(1, 1), ["pearson", "ci_low", "ci_high"]]) == (1, 1, 1)
    per_trait = found.correlations.set_index(["trait_id", "judge_a", "judge_b"])
    assert per_trait.loc[(1, 0, 2), "pearson_low"] == per_trait.loc[(1, 2, 0), "pearson_low"]
    assert (per_trait["pearson_low"] <= per_trait["pearson"]).all()

    rng = np.random.default_rng(5)
    n, rho = 300, 0.6
    x = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=n)
    normal = PanelData.from_array(x.reshape(n, 1, 2, 1, 1))
    row = panel.agreement(normal, n_bootstrap=4000, seed=1).judge_pairs.query(
        "judge_a == 0 and judge_b == 1").iloc[0]
    r = stats.pearsonr(x[:, 0], x[:, 1])[0]
    half = 1.959964 / np.sqrt(n - 3)
    fisher = np.tanh(np.arctanh(r) - half), np.tanh(np.arctanh(r) + half)
    assert row["pearson"] == pytest.approx(r)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(fisher, abs=0.02)


# ------------------------------------------------------------------ coverage, simulated

def covered(frame: pd.DataFrame, truth: np.ndarray) -> np.ndarray:
    return ((frame["ci_low"] <= truth) & (truth <= frame["ci_high"])).to_numpy()


@pytest.mark.slow
@pytest.mark.parametrize("scenario", [*SCENARIOS, POEM_SHAPE], ids=lambda s: s.name)
def test_mean_intervals_cover_95_percent_on_simulated_panels(scenario):
    hits, judge_hits, widths, oracle = [], [], [], []
    for seed in range(4 if scenario.models > 100 else 12):
        sim = simulate(scenario, seed)
        means = panel.panel_means(sim.data)
        hits.append(covered(means, sim.panel_truth.reshape(-1)))
        widths.append(means["ci_high"] - means["ci_low"])
        oracle.append(2 * 1.96 * sim.panel_sd.reshape(-1))  # known variance, normal
        judges = panel.judge_means(sim.data)
        judge_hits.append(covered(judges, sim.judge_truth.reshape(-1)))
    hits, judge_hits = np.concatenate(hits), np.concatenate(judge_hits)
    width, best = np.median(np.concatenate(widths)), np.median(np.concatenate(oracle))
    print(f"{scenario.name}: panel {hits.mean():.3f} of {hits.size}, median width "
          f"{width:.3f} (known variance: {best:.3f}); judges {judge_hits.mean():.3f} of "
          f"{judge_hits.size}")
    assert hits.size >= 200 and judge_hits.size >= 200
    assert 0.90 <= hits.mean() <= 0.99
    assert 0.90 <= judge_hits.mean() <= 0.99
    assert width < 1.5 * best  # not covering by being wide


@pytest.mark.slow
@pytest.mark.parametrize("gap", [0.0, 0.5])
@pytest.mark.parametrize("scenario", [SCENARIOS[i] for i in (1, 3, 4, 6)],
                         ids=lambda s: s.name)
def test_self_rating_gap_intervals_cover_the_true_gap(scenario, gap):
    scenario = dataclasses.replace(scenario, self_preference=gap)
    hits, widths, excludes = [], [], []
    for seed in range(6):
        sim = simulate(scenario, 1000 + seed + int(gap * 100))
        found = panel.self_rating_gap(sim.data, sim.judge_models)
        assert len(found) == scenario.own * scenario.traits
        hits.append(covered(found, gap))
        widths.append(found["ci_high"] - found["ci_low"])
        excludes.append(((found["ci_low"] > 0) | (found["ci_high"] < 0)).to_numpy())
    hits = np.concatenate(hits)
    print(f"{scenario.name}, gap {gap}: coverage {hits.mean():.3f} of {hits.size}, "
          f"median width {np.median(np.concatenate(widths)):.3f}, excludes 0 in "
          f"{np.concatenate(excludes).mean():.3f}")
    assert hits.size >= 200 and 0.90 <= hits.mean() <= 0.99


# ------------------------------------------------------------------ the real data

@pytest.fixture(scope="module")
def dreams(shared_data, tmp_path_factory):
    from ffsite.datasets.llm_dreams.importer import import_llm_dreams

    result = import_llm_dreams(shared_data / "llm_dreams")
    path = tmp_path_factory.mktemp("panel") / "llm-dreams.parquet"
    write_scores(result.frame, path, judges=result.judges)
    return read_scores([path])


def plain_average(root, folders: list[str], model: str, trait: str) -> float:
    """The mean of `trait` over every JSON file of `model` in the judges' folders."""
    values = [json.loads((root / f"evaluations-{folder}" / f"{model}__{k}__{r}.txt")
                         .read_text(encoding="utf-8"))[trait]
              for folder in folders for k in (0, 1) for r in (0, 1)]
    assert len(values) == 4 * len(folders)
    return float(np.mean(values))


def test_real_panel_means_equal_a_plain_average_of_the_files(dreams, shared_data):
    root = shared_data / "llm_dreams"
    folders = sorted(p.name.removeprefix("evaluations-") for p in root.glob("evaluations-*"))
    assert len(folders) == 9
    started = time.perf_counter()
    data = panel.dense(dreams, "llm_dreams")
    seconds = time.perf_counter() - started
    print(f"dense: {seconds:.3f} s")
    assert seconds < 0.5
    assert data.values.shape == (236, 2, 9, 2, 15) and np.isfinite(data.values).all()
    means = panel.panel_means(data).set_index(["model", "trait_id"])["mean"]
    judges = panel.judge_means(data).set_index(["model", "judge", "trait_id"])["mean"]
    for model in ("anthropicclaude-opus-4.6", "gpt-4o-2024-08-06", "granite4micro"):
        for trait, trait_id in (("Creativity", "ld-creativity"),
                                ("Fear of Failure", "ld-fear-of-failure")):
            assert means[model, trait_id] == pytest.approx(
                plain_average(root, folders, model, trait), abs=1e-12)
            assert judges[model, "gpt-5.5", trait_id] == pytest.approx(
                plain_average(root, ["gpt55"], model, trait), abs=1e-12)


def test_real_everything_is_finite_and_quick(dreams):
    from ffsite.datasets.llm_dreams import DATASET

    started = time.perf_counter()
    data = panel.dense(dreams, "llm_dreams")
    means, judges = panel.panel_means(data), panel.judge_means(data)
    found = panel.agreement(data, n_bootstrap=1000)
    lenient = panel.leniency(data)
    gaps = panel.self_rating_gap(data, dict(DATASET.judge_models))
    seconds = time.perf_counter() - started
    print(f"dense + means + agreement (1000 resamples) + leniency + gaps: {seconds:.2f} s")
    assert seconds < 3
    assert len(means) == 236 * 15 and len(judges) == 236 * 9 * 15
    assert len(found.correlations) == 15 * 81 and len(found.reliability) == 15 * 5
    assert len(lenient) == 9 * 15 and len(gaps) == 8 * 15
    for frame in (means, judges, found.correlations, found.reliability, lenient, gaps):
        numbers = frame.select_dtypes("number")
        assert np.isfinite(numbers.to_numpy(float)).all()
    assert (means["ci_high"] - means["ci_low"] > 0).all()
    assert gaps["judge"].nunique() == 8 and "gemini-3.7-flash" not in set(gaps["judge"])


def test_real_poem_eval_one_judge_five_poems(shared_data, tmp_path):
    from ffsite.datasets.poem_eval.importer import import_poem_eval

    result = import_poem_eval(shared_data / "poem_eval")
    write_scores(result.frame, tmp_path / "poems.parquet", judges=result.judges)
    data = panel.dense(read_scores([tmp_path / "poems.parquet"]), "poem_eval", unit="meta.run")
    assert data.values.shape == (23, 5, 1, 1, 6) and data.seeds.tolist() == [None]
    means = panel.panel_means(data)
    assert np.isfinite(means.select_dtypes("number").to_numpy(float)).all()
    # One judge: the panel is the judge; a model's mean moves in steps of 1/5.
    judge = panel.judge_means(data)
    assert judge["mean"].to_numpy() == pytest.approx(means["mean"].to_numpy())
    assert np.allclose(means["mean"] * 5, np.round(means["mean"] * 5))
    found = panel.agreement(data, n_bootstrap=200)
    assert set(found.reliability["statistic"]) == {"test_retest",
                                                   "test_retest_spearman_brown"}
    assert panel.self_rating_gap(data, {}).empty
