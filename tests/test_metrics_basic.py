"""Hand-computed FF metrics on tiny files (methods.md §1)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import trait, write_test_votes

from ffsite.format.read import read_annotations
from ffsite.metrics.results import metrics_table

VERBOSE = trait("is more verbose")
CONCISE = trait("is more concise")


def _pref(cid: str, vote: str, judge: str = "human") -> dict:
    return {"comparison_id": cid, "role": "preference", "judge": judge, "vote": vote}


def _trait(cid: str, columns: dict, vote: str, judge: str = "j1", seed=None) -> dict:
    return {"comparison_id": cid, **columns, "judge": judge, "vote": vote, "seed": seed}


@pytest.fixture
def six_comparisons(tmp_path):
    comparisons = [{"comparison_id": f"c{i}", "model_a": "m1", "model_b": "m2"}
                   for i in range(6)]
    # Preference: A A B B tie A.  Verbose: A B B tie invalid A.  Concise: only 2 votes.
    votes = [_pref("c0", "A"), _pref("c1", "A"), _pref("c2", "B"), _pref("c3", "B"),
             _pref("c4", "tie"), _pref("c5", "A"),
             _trait("c0", VERBOSE, "A"), _trait("c1", VERBOSE, "B"),
             _trait("c2", VERBOSE, "B"), _trait("c3", VERBOSE, "tie"),
             _trait("c4", VERBOSE, "invalid"), _trait("c5", VERBOSE, "A"),
             _trait("c0", CONCISE, "B"), _trait("c1", CONCISE, "neither")]
    return write_test_votes(tmp_path / "v.parquet", comparisons, votes)


def test_preference_metrics_by_hand(six_comparisons):
    table = metrics_table(read_annotations([six_comparisons])).set_index("trait_id")
    verbose = table.loc[VERBOSE["trait_id"]]
    # The tie preference (c4) is dropped: N = 5.  Agree c0, c2, c5; disagree c1; c3 tie.
    assert (verbose.num_votes, verbose.agreed, verbose.disagreed) == (5, 3, 1)
    assert (verbose.not_applicable, verbose.invalid) == (1, 0)
    assert verbose.relevance == pytest.approx(4 / 5)
    assert verbose.cohens_kappa == pytest.approx(2 * (3 / 4 - 0.5))
    assert verbose.strength == pytest.approx((3 - 1) / 5)
    assert verbose.agreement == pytest.approx(3 / 4)
    concise = table.loc[CONCISE["trait_id"]]
    # Concise: c0 B vs pref A = disagree; c1 neither; c2, c3, c5 have no vote.
    assert (concise.num_votes, concise.agreed, concise.disagreed) == (5, 0, 1)
    assert concise.not_applicable == 4
    assert concise.strength == pytest.approx(-1 / 5)


def test_sklearn_kappa_matches_sklearn(six_comparisons):
    from sklearn.metrics import cohen_kappa_score

    table = metrics_table(read_annotations([six_comparisons])).set_index("trait_id")
    # Valid pairs (trait, pref) for verbose: (A,A) (B,A) (B,B) (A,A)
    expected = cohen_kappa_score(["a", "b", "b", "a"], ["a", "a", "b", "a"])
    assert table.loc[VERBOSE["trait_id"], "cohens_kappa_sklearn"] == pytest.approx(expected)


def test_trait_without_valid_vote(tmp_path):
    comparisons = [{"comparison_id": "c0"}, {"comparison_id": "c1"}]
    votes = [_pref("c0", "A"), _pref("c1", "B"),
             _trait("c0", VERBOSE, "tie"), _trait("c1", VERBOSE, "invalid")]
    path = write_test_votes(tmp_path / "v.parquet", comparisons, votes)
    row = metrics_table(read_annotations([path])).iloc[0]
    assert (row.num_votes, row.agreed, row.disagreed, row.not_applicable, row.invalid) == (
        2, 0, 0, 1, 1)
    assert row.relevance == 0 and row.strength == 0 and row.cohens_kappa == 0
    assert math.isnan(row.agreement)
    assert row.cohens_kappa_sklearn == 0  # feedback-forensics: sklearn raises -> 0


def test_target_model_same_model_and_missing_model(tmp_path):
    comparisons = [
        {"comparison_id": "c0", "model_a": "x", "model_b": "ref"},
        {"comparison_id": "c1", "model_a": "ref", "model_b": "x"},
        {"comparison_id": "c2", "model_a": "x", "model_b": "x"},  # same model: no vote
        {"comparison_id": "c3", "model_a": "x", "model_b": None},  # no model: no vote
        {"comparison_id": "c4", "model_a": "y", "model_b": "ref"},  # x absent: no vote
    ]
    votes = [_trait("c0", VERBOSE, "A"), _trait("c1", VERBOSE, "A"),
             _trait("c2", VERBOSE, "A"), _trait("c3", VERBOSE, "A"),
             _trait("c4", VERBOSE, "A")]
    path = write_test_votes(tmp_path / "v.parquet", comparisons, votes)
    row = metrics_table(read_annotations([path]), against="model:x").iloc[0]
    # x is side A in c0 (agree) and side B in c1 (trait says A: disagree).
    assert (row.num_votes, row.agreed, row.disagreed) == (2, 1, 1)
    assert row.strength == 0
    only_y = metrics_table(read_annotations([path]), against="model:x",
                           reference_models=["y"])
    assert only_y.empty


def test_cross_annotation_majority_and_unanimity(tmp_path):
    comparisons = [{"comparison_id": f"c{i}"} for i in range(3)]
    votes = [_pref("c0", "A"), _pref("c1", "A"), _pref("c2", "A")]
    # c0: A A B -> majority A, unanimity neither.  c1: A B -> tie.  c2: B invalid -> B.
    for cid, seq in (("c0", "AAB"), ("c1", "AB"), ("c2", ["B", "invalid"])):
        for seed, vote in enumerate(seq):
            votes.append(_trait(cid, VERBOSE, vote, seed=seed))
    path = write_test_votes(tmp_path / "v.parquet", comparisons, votes)
    annotations = read_annotations([path])
    majority = metrics_table(annotations).iloc[0]
    assert (majority.agreed, majority.disagreed, majority.not_applicable) == (1, 1, 1)
    unanimous = metrics_table(annotations, rule="unanimity").iloc[0]
    assert (unanimous.agreed, unanimous.disagreed, unanimous.not_applicable) == (0, 1, 2)


def test_split_by_metadata_and_max_diff(tmp_path):
    from ffsite.metrics.strength import max_diff

    comparisons = [{"comparison_id": f"c{i}", "meta.topic": "x" if i < 2 else "y"}
                   for i in range(4)]
    votes = [_pref(f"c{i}", "A") for i in range(4)]
    votes += [_trait("c0", VERBOSE, "A"), _trait("c1", VERBOSE, "A"),
              _trait("c2", VERBOSE, "B"), _trait("c3", VERBOSE, "neither")]
    path = write_test_votes(tmp_path / "v.parquet", comparisons, votes)
    table = metrics_table(read_annotations([path]), split_by="topic")
    assert list(table["split"]) == ["x", "y"]
    assert np.allclose(table["strength"], [1.0, -0.5])
    assert max_diff(table).iloc[0] == pytest.approx(1.5)


def test_strength_interval_follows_strength(six_comparisons):
    table = metrics_table(read_annotations([six_comparisons]))
    columns = list(table.columns)
    assert columns[columns.index("strength"):columns.index("strength") + 3] == [
        "strength", "ci_low", "ci_high"]
    assert (table["ci_low"] <= table["strength"]).all()
    assert (table["strength"] <= table["ci_high"]).all()
    verbose = table.set_index("trait_id").loc[VERBOSE["trait_id"]]
    # 3 agreed, 1 disagreed of 5: a wide interval, inside [-1, 1], not at the edges.
    assert -1 < verbose.ci_low < 0.4 < verbose.ci_high < 1
    assert metrics_table(read_annotations([six_comparisons])).equals(table)  # seeded


@pytest.mark.parametrize("fmt", ["csv", "json", "table"])
def test_every_format_prints_the_interval_after_strength(six_comparisons, fmt):
    import json

    from click.testing import CliRunner

    from ffsite.cli import cli

    result = CliRunner().invoke(cli, ["metrics", str(six_comparisons), "--format", fmt])
    assert result.exit_code == 0, result.output
    if fmt == "json":
        header = list(json.loads(result.output)[0])
    else:
        header = result.output.splitlines()[0].replace(",", " ").split()
    assert header[header.index("strength"):][:3] == ["strength", "ci_low", "ci_high"]
