"""Lineage: the order of a family's releases, which releases are successive, and the
change between them with its interval (MOVER by hand, paired bootstrap against the
normal approximation of a paired mean)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ffsite.format import read_scores, write_scores
from ffsite.metrics.from_scores import paired_mean_differences, score_means
from ffsite.metrics.lineage import (
    INDEPENDENT,
    PAIRED,
    largest_changes,
    lineage_results,
    mover_interval,
    refit_differences,
    release_changes,
    release_order,
    successive_pairs,
)
from ffsite.models import Model, Registry

REGISTRY = Registry((
    Model("s1", "S 1", released="2024-03", family="S"),
    Model("s2", "S 2", released="2024-06-01", family="S", predecessor="s1"),
    Model("s2b", "S 2 (other run)", released="2024-06-01", family="S", predecessor="s1"),
    Model("s3", "S 3 (undated)", family="S", predecessor="s2"),
    Model("s4", "S 4", released="2024-09", family="S", predecessor="s3"),
    Model("lost", "S (undated, no predecessor)", family="S"),
    Model("t1", "T 1", released="2023", family="T"),
    Model("alone", "No family", released="2020"),
))


def test_release_order_by_date_then_predecessors():
    order = release_order(REGISTRY).set_index("model")
    assert "alone" not in order.index
    s = order[order["family"] == "S"]["position"]
    # s2 and s2b share a date and a depth: by id; the undated s3 comes right after its
    # predecessor s2 (one step after 2024-06-01), before s4; "lost" has no place.
    assert s.dropna().sort_values().index.tolist() == ["s1", "s2", "s2b", "s3", "s4"]
    assert np.isnan(s["lost"])
    assert order.loc["t1", "position"] == 0


def estimates(rows):
    return pd.DataFrame(rows, columns=["dataset", "judge", "trait_id", "model", "value",
                                       "ci_low", "ci_high"])


def test_successive_releases_skip_those_without_the_key():
    found = estimates([
        ("d", "J", "warm", "s1", 5.0, 4.0, 6.0),
        ("d", "J", "warm", "s3", 6.0, 5.5, 6.5),  # s2, s2b have no number here
        ("d", "J", "warm", "s4", 6.2, 6.0, 6.4),
        ("d", "J", "warm", "lost", 9.0, 8.0, 10.0),  # not placed: never successive
        ("d", "K", "warm", "s2", 1.0, 0.0, 2.0),  # another judge: a lineage of its own
        ("d", "K", "warm", "s4", 2.0, 1.0, 3.0),
        ("d", "J", "warm", "alone", 1.0, 0.0, 2.0),
    ])
    pairs = successive_pairs(found, release_order(REGISTRY))
    assert pairs[["judge", "earlier", "later"]].values.tolist() == [
        ["J", "s1", "s3"], ["J", "s3", "s4"], ["K", "s2", "s4"]]
    assert set(pairs["family"]) == {"S"}


def test_mover_interval_by_hand():
    # Symmetric intervals: d +- sqrt(h1^2 + h2^2): 1 +- sqrt(0.3^2 + 0.4^2) = 1 +- 0.5.
    low, high = mover_interval(np.array([5.0]), np.array([4.7]), np.array([5.3]),
                               np.array([6.0]), np.array([5.6]), np.array([6.4]))
    assert low[0] == pytest.approx(0.5) and high[0] == pytest.approx(1.5)
    # Asymmetric: the lower bound uses the later's lower and the earlier's upper side.
    low, high = mover_interval(np.array([2.0]), np.array([1.0]), np.array([2.3]),
                               np.array([3.0]), np.array([2.6]), np.array([5.0]))
    assert low[0] == pytest.approx(1 - np.hypot(0.4, 0.3))
    assert high[0] == pytest.approx(1 + np.hypot(2.0, 1.0))


def test_changes_are_real_when_the_interval_excludes_zero_and_paired_rows_win():
    found = estimates([
        ("d", "J", "warm", "s1", 5.0, 4.7, 5.3),
        ("d", "J", "warm", "s2", 6.0, 5.6, 6.4),  # +1, interval [0.5, 1.5]: real
        ("d", "J", "cold", "s1", 5.0, 4.0, 6.0),
        ("d", "J", "cold", "s2", 5.5, 4.5, 6.5),  # +0.5 +- 1.41: not real
    ])
    pairs = successive_pairs(found, release_order(REGISTRY))
    changes = release_changes(found, pairs).set_index("trait_id")
    assert changes.loc["warm", "change"] == pytest.approx(1.0)
    assert changes.loc["warm", ["ci_low", "ci_high"]].tolist() == pytest.approx([0.5, 1.5])
    assert bool(changes.loc["warm", "real"]) and not bool(changes.loc["cold", "real"])
    assert set(changes["method"]) == {INDEPENDENT}
    paired = pd.DataFrame([("d", "J", "cold", "s1", "s2", 0.2, 0.8)],
                          columns=["dataset", "judge", "trait_id", "earlier", "later",
                                   "ci_low", "ci_high"])
    changes = release_changes(found, pairs, paired).set_index("trait_id")
    assert changes.loc["cold", "method"] == PAIRED and bool(changes.loc["cold", "real"])
    assert changes.loc["warm", "method"] == INDEPENDENT
    top = largest_changes(release_changes(found, pairs, paired), per_key=1)
    assert top["trait_id"].tolist() == ["warm"]


def paired_scores(tmp_path, shift=0.3, n_prompts=60, seed=1):
    """Two models on the same prompts: a large prompt effect (sd 2) both share, and a
    small answer noise (sd 0.5) of their own; the later model is `shift` higher."""
    rng = np.random.default_rng(seed)
    prompt = rng.normal(5, 2, n_prompts)
    rows = []
    for model, extra in (("s1", 0.0), ("s2", shift)):
        noise = rng.normal(0, 0.5, n_prompts)
        rows += [{"dataset": "d", "response_id": f"{model}/p{k}", "prompt_id": f"p{k}",
                  "model": model, "condition": "baseline", "judge": "J", "trait_id": "warm",
                  "trait": "Warmth", "trait_set": "s", "scale_min": -100, "scale_max": 100,
                  "seed": None, "score": float(prompt[k] + extra + noise[k])}
                 for k in range(n_prompts)]
    path = tmp_path / "d.parquet"
    write_scores(pd.DataFrame(rows), path)
    frame = pd.DataFrame(rows).pivot(index="prompt_id", columns="model", values="score")
    return read_scores([path]), (frame["s2"] - frame["s1"]).to_numpy()


def test_paired_differences_match_the_paired_mean_and_beat_mover(tmp_path):
    scores, differences = paired_scores(tmp_path)
    pairs = pd.DataFrame([("d", "baseline", "J", "warm", "s1", "s2")],
                         columns=["dataset", "condition", "judge", "trait_id", "earlier",
                                  "later"])
    found = paired_mean_differences(scores, REGISTRY, pairs, n_bootstrap=4000, seed=3)
    assert len(found) == 1
    row = found.iloc[0]
    assert row["change"] == pytest.approx(differences.mean())
    # The percentile bootstrap of a paired mean: about mean +- 1.96 sd / sqrt(n).
    half = 1.96 * differences.std(ddof=1) / np.sqrt(len(differences))
    assert row["ci_low"] == pytest.approx(differences.mean() - half, abs=0.25 * half)
    assert row["ci_high"] == pytest.approx(differences.mean() + half, abs=0.25 * half)
    assert row["ci_low"] > 0  # a shift of 0.3 on noise 0.5 x sqrt(2): found
    # The same change from the two means' own intervals, as if independent, cannot see
    # it: the prompt effect (sd 2) is in both intervals (about 4 times as wide).
    means = score_means(scores, REGISTRY, n_bootstrap=4000, seed=3).set_index("model")
    low, high = mover_interval(*(means.loc[m, c] for m in ("s1", "s2")
                                 for c in ("mean", "ci_low", "ci_high")))
    assert low < 0 < high and high - low > 3 * (row["ci_high"] - row["ci_low"])


def test_lineage_results_pick_the_baseline_and_pair_only_where_asked(tmp_path):
    scores, _ = paired_scores(tmp_path)
    means = score_means(scores, REGISTRY, n_bootstrap=500)
    ratings = {"e": pd.DataFrame({"trait_id": ["c1", "c1"], "model": ["s1", "s4"],
                                  "elo": [1000.0, 1100.0], "ci_low": [1000.0, 1050.0],
                                  "ci_high": [1000.0, 1150.0]})}
    lineage = lineage_results(means, ratings, {"c1": "E"}, REGISTRY, scores=scores,
                              paired_datasets=["d"], n_bootstrap=500)
    changes = lineage.changes.set_index("dataset")
    assert changes.loc["d", "method"] == PAIRED
    assert changes.loc["e", "method"] == INDEPENDENT and changes.loc["e", "judge"] == "E"
    assert changes.loc["e", ["change", "ci_low", "ci_high"]].tolist() == pytest.approx(
        [100.0, 50.0, 150.0])
    assert set(lineage.estimates["kind"]) == {"mean", "Elo"}


def test_refit_differences_are_the_percentiles_of_the_paired_refits():
    """Two releases rated in one fit: the change's interval is the 2.5 and 97.5
    percentiles of (later - earlier) over the same refits (numpy's percentile here),
    narrower than their own intervals treated as independent when the refits move
    together; a model the fit did not rate gets no paired interval."""
    rng = np.random.default_rng(3)
    shared = rng.normal(0, 40, 400)  # what moves both ratings in a refit
    drawn = np.column_stack([1000 + shared + rng.normal(0, 5, 400),
                             1050 + shared + rng.normal(0, 5, 400), np.zeros(400)])
    pairs = pd.DataFrame({"family": "F", "dataset": "d", "judge": "J", "trait_id": "t",
                          "earlier": ["old", "old"], "later": ["new", "unrated"]})
    refits = {"d": {"t": (np.array(["old", "new", "anchor"], dtype=object), drawn)}}
    found = refit_differences(pairs, refits)
    assert len(found) == 1 and found.iloc[0]["later"] == "new"
    low, high = np.percentile(drawn[:, 1] - drawn[:, 0], [2.5, 97.5])
    assert found.iloc[0]["ci_low"] == pytest.approx(low)
    assert found.iloc[0]["ci_high"] == pytest.approx(high)
    assert high - low < 0.3 * (np.percentile(drawn[:, 0], 97.5)
                               - np.percentile(drawn[:, 0], 2.5))
