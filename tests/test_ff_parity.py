"""ffsite's metrics equal the published feedback-forensics package's to 1e-12.

tests/data/ff_parity/golden.json holds what feedback-forensics 0.5.0 computed on the
synthetic AnnotatedPairs files beside it (ties, missing and invalid votes, same-model and
model-less pairs, an empty response, a repeated id); tools/ff_parity.py regenerates both.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from ffsite.format.read import read_annotations
from ffsite.format.write import write_votes
from ffsite.importers.annotated_pairs import read_annotated_pairs
from ffsite.metrics.results import metrics_table
from ffsite.traits import short_wording

DATA = Path(__file__).parent / "data" / "ff_parity"
GOLDEN = json.loads((DATA / "golden.json").read_text())
CASES = sorted(name for name in GOLDEN if name.startswith("case_"))
MODELS = ["m-alpha", "m-beta", "m-gamma", "m-delta"]


@pytest.fixture(scope="module", params=CASES)
def case(request, tmp_path_factory):
    result = read_annotated_pairs(DATA / request.param)
    path = tmp_path_factory.mktemp("parity") / "case.parquet"
    write_votes(result.table, path, default_preference=result.default_preference)
    return request.param, read_annotations([path])


def _same(ours: float, theirs: float | None) -> bool:
    if theirs is None or (isinstance(theirs, float) and math.isnan(theirs)):
        return ours is None or math.isnan(ours)
    return abs(ours - theirs) <= 1e-12


def _check(table, golden: dict) -> int:
    rows = {short_wording(row.description): row for row in table.itertuples()}
    assert set(rows) == set(golden)
    checked = 0
    for name, expected in golden.items():
        row = rows[name]
        mapping = {
            "num_votes": row.num_votes, "agreed": row.agreed, "disagreed": row.disagreed,
            "not_applicable": row.not_applicable + row.invalid, "relevance": row.relevance,
            "cohens_kappa": row.cohens_kappa, "cohens_kappa_og": row.cohens_kappa_sklearn,
            "strength": row.strength, "agreement": row.agreed / row.num_votes,
            # FF calls agreed/(agreed+disagreed) "acc" and uses 0.5 when undefined.
            "acc": 0.5 if math.isnan(row.agreement) else row.agreement,
        }
        for metric, value in mapping.items():
            assert _same(float(value), expected[metric]), (name, metric, value, expected[metric])
            checked += 1
    return checked


def test_against_preference(case):
    name, annotations = case
    assert _check(metrics_table(annotations), GOLDEN[name]["preference"]) > 0


def test_against_preference_split_by_topic(case):
    name, annotations = case
    table = metrics_table(annotations, split_by="topic")
    expected = GOLDEN[name]["preference_by_topic"]
    assert sorted(table["split"].unique()) == sorted(expected)
    for value, golden in expected.items():
        _check(table[table["split"] == value], golden)


@pytest.mark.parametrize("key,references", [("models_vs_all", []),
                                            ("models_vs_beta_gamma", ["m-beta", "m-gamma"])])
def test_against_target_models(case, key, references):
    name, annotations = case
    for model in MODELS:
        golden = GOLDEN[name][key][model]
        table = metrics_table(annotations, against=f"model:{model}",
                              reference_models=references)
        if all(v["num_votes"] == 0 for v in golden.values()):
            assert table.empty
            continue
        _check(table, golden)
