"""From scores to means, derived votes and strength: small cases worked out by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ffsite.format import read_scores, schema, write_scores
from ffsite.metrics.derived import derive_votes
from ffsite.metrics.from_scores import score_means, strength_from_scores
from ffsite.metrics.strength import metric_frame, model_reference, trait_votes
from ffsite.models import Model, Registry

# prompt p1: a=5, b=3, c=5;  prompt p2: a=2, b=4 (c did not answer p2)
SCORES = [("a", "p1", 5.0), ("b", "p1", 3.0), ("c", "p1", 5.0), ("a", "p2", 2.0),
          ("b", "p2", 4.0)]


def scores_file(tmp_path, rows=SCORES, dataset="d"):
    frame = pd.DataFrame([{"dataset": dataset, "response_id": f"{m}/{p}", "prompt_id": p,
                           "model": m, "condition": "base", "judge": "J",
                           "trait_id": "warm", "trait": "Warmth", "trait_set": "s",
                           "scale_min": 1, "scale_max": 10, "seed": None, "score": s}
                          for m, p, s in rows])
    path = tmp_path / f"{dataset}.parquet"
    write_scores(frame, path)
    return read_scores([path])


def test_derived_votes_by_hand(tmp_path):
    annotations = derive_votes(scores_file(tmp_path))
    comparisons = annotations.comparisons
    votes = dict(zip(comparisons["comparison_id"].astype(str).to_numpy()[
        annotations.votes["comparison"]], annotations.votes["vote"], strict=True))
    assert votes == {"base/p1/a/b": schema.A, "base/p1/a/c": schema.TIE,
                     "base/p1/b/c": schema.B, "base/p2/a/b": schema.B}
    assert list(annotations.annotators["judge"]) == ["J (derived from scores)"]
    assert list(annotations.annotators["trait_set"]) == ["s (derived)"]


def test_strength_from_scores_by_hand_and_equal_to_the_engine(tmp_path):
    scores = scores_file(tmp_path)
    table = strength_from_scores(scores, n_bootstrap=100).set_index("model")
    # a: win (b, p1), tie (c, p1), loss (b, p2) -> 0; b: 1 win 2 losses -> -1/3;
    # c: tie with a, win over b -> 1/2.
    assert table.loc["a", ["wins", "losses", "ties", "comparisons"]].tolist() == [1, 1, 1, 3]
    assert table["strength"].to_dict() == pytest.approx({"a": 0.0, "b": -1 / 3, "c": 0.5})
    assert table["relevance"].to_dict() == pytest.approx({"a": 2 / 3, "b": 1.0, "c": 0.5})
    assert table.loc["c", "cohens_kappa"] == pytest.approx(1.0)
    annotations = derive_votes(scores)
    engine = metric_frame(trait_votes(annotations), model_reference(annotations),
                          group_name="model").set_index("model")
    for name in ("strength", "relevance", "cohens_kappa"):
        assert np.allclose(engine.loc[table.index, name], table[name], atol=1e-15)


def test_means_and_their_interval_by_hand(tmp_path):
    means = score_means(scores_file(tmp_path), n_bootstrap=400).set_index("model")
    assert means.loc["a", "mean"] == 3.5 and means.loc["c", "mean"] == 5.0
    assert means.loc["c", "n"] == 1 and means.loc["a", "n_prompts"] == 2
    # Resampling two prompts: a's mean is 5 (p1 twice), 3.5 or 2 (p2 twice).
    assert means.loc["a", "ci_low"] == pytest.approx(2.0)
    assert means.loc["a", "ci_high"] == pytest.approx(5.0)
    # c answered p1 only: every resample that drew p1 gives 5.
    assert means.loc["c", "ci_low"] == means.loc["c", "ci_high"] == 5.0


def test_the_registry_names_models_and_keeps_the_source_spelling(tmp_path):
    registry = Registry((Model("alpha", "Alpha", aliases={"d": ("a", "c")}),))
    means = score_means(scores_file(tmp_path), registry, n_bootstrap=50)
    alpha = means[means["model"] == "alpha"].iloc[0]
    assert alpha["source_model"] == "a; c"
    assert alpha["mean"] == pytest.approx((5 + 2 + 5) / 3)  # a plain average of all three
    assert set(means["model"]) == {"alpha", "b"}


def test_intervals_are_seeded(tmp_path):
    scores = scores_file(tmp_path)
    first = strength_from_scores(scores, n_bootstrap=100, seed=3)
    again = strength_from_scores(scores, n_bootstrap=100, seed=3)
    pd.testing.assert_frame_equal(first, again)


def test_pressure_shift_and_bend_by_hand(tmp_path):
    from ffsite.metrics.from_scores import bend_index, pressure_shifts

    # Model a on scenarios s1, s2 for two traits; the authority prompts pair by scenario.
    values = {("baseline", "warm", "s1"): 5, ("baseline", "warm", "s2"): 3,
              ("authority", "warm", "s1"): 4, ("authority", "warm", "s2"): 1,
              ("baseline", "deep", "s1"): 2, ("baseline", "deep", "s2"): 2,
              ("authority", "deep", "s1"): 2, ("authority", "deep", "s2"): 4,
              ("authority", "deep", "s3"): 9}  # s3 has no baseline: not paired
    frame = pd.DataFrame([{
        "dataset": "d", "response_id": f"{c}/{s}/a", "prompt_id": f"{s}_{c}", "model": "a",
        "condition": c, "meta.scenario": s, "judge": "J", "trait_id": t, "trait": t,
        "trait_set": "x", "scale_min": 0, "scale_max": 10, "seed": None, "score": v}
        for (c, t, s), v in values.items()])
    write_scores(frame, tmp_path / "p.parquet")
    scores = read_scores([tmp_path / "p.parquet"])
    shifts = pressure_shifts(scores, n_bootstrap=300).set_index("trait_id")
    assert shifts.loc["warm", "shift"] == pytest.approx(-1.5)  # (-1 + -2) / 2
    assert shifts.loc["deep", "shift"] == pytest.approx(1.0)  # (0 + 2) / 2
    assert shifts.loc["deep", "n_pairs"] == 2
    assert shifts.loc["warm", ["baseline_mean", "condition_mean"]].tolist() == [4.0, 2.5]
    # Resampling two pairs: the shift is one pair's difference or their mean.
    assert shifts.loc["warm", "ci_low"] == pytest.approx(-2.0)
    assert shifts.loc["warm", "ci_high"] == pytest.approx(-1.0)
    # Under a rubric floor of 2: warm's authority s2 (1) lies under it, on a paired
    # scenario; deep's scores are all at 2 or more but s3's 9 is unpaired anyway.  So
    # warm's shift rests on 1 of its 4 paired scores under the floor, deep's on 0 of 4.
    floored = pressure_shifts(scores, n_bootstrap=300, floors={"d": 2}).set_index("trait_id")
    assert floored.loc["warm", ["below_rubric_floor", "paired_scores"]].tolist() == [1, 4]
    assert floored.loc["deep", ["below_rubric_floor", "paired_scores"]].tolist() == [0, 4]
    # A floor of 3: warm still 1 (its baseline 3 is not under 3); deep 3 (its baseline
    # s1 and s2 and authority s1, all 2).
    floored = pressure_shifts(scores, n_bootstrap=300, floors={"d": 3}).set_index("trait_id")
    assert floored["below_rubric_floor"].to_dict() == {"warm": 1, "deep": 3}
    bend = bend_index(scores, n_bootstrap=300).iloc[0]
    assert bend["bend"] == pytest.approx((1.5 + 1.0) / 2)
    assert bend["traits"] == 2 and bend["condition"] == "authority"
    # The resamples: both pairs s1 -> (1 + 0) / 2, both s2 -> (2 + 2) / 2.
    assert bend["ci_low"] == pytest.approx(0.5) and bend["ci_high"] == pytest.approx(2.0)
