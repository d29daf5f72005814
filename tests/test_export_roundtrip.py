"""AnnotatedPairs JSON -> Parquet -> AnnotatedPairs JSON keeps every vote."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_here

from ffsite.format.read import read_annotations

CASE = Path(__file__).parent / "data" / "ff_parity" / "case_1.json"


def test_round_trip_keeps_every_vote(tmp_path):
    first = tmp_path / "a.parquet"
    assert run_here("import", "annotated-pairs", str(CASE), "--out", str(first),
                   "--base-out", str(tmp_path / "base")).returncode == 0
    exported = tmp_path / "back.json"
    result = run_here("export", "annotated-pairs", str(first), "--out", str(exported),
                     "--base-data", str(tmp_path / "base"))
    assert result.returncode == 0, result.stderr

    original = json.loads(CASE.read_text())
    back = json.loads(exported.read_text())
    assert back["metadata"]["version"] == "2.0"
    assert back["metadata"]["default_annotator"] == original["metadata"]["default_annotator"]
    assert set(back["annotators"]) == set(original["annotators"])
    kept = {}
    for comparison in original["comparisons"]:  # what feedback-forensics would load
        if comparison["id"] in kept or "" in (comparison["response_a"]["text"],
                                               comparison["response_b"]["text"]):
            continue
        kept[comparison["id"]] = comparison
    by_id = {c["id"]: c for c in back["comparisons"]}
    assert set(by_id) == set(kept)
    votes = 0
    for comparison_id, comparison in kept.items():
        exported_comparison = by_id[comparison_id]
        assert exported_comparison["annotations"] == comparison["annotations"]
        assert exported_comparison["response_a"] == comparison["response_a"]
        assert exported_comparison["prompt"] == comparison["prompt"]
        assert exported_comparison["metadata"] == comparison["metadata"]
        votes += len(comparison["annotations"])
    assert votes > 3000

    # ... and importing the export gives the same table again.
    second = tmp_path / "b.parquet"
    assert run_here("import", "annotated-pairs", str(exported), "--out", str(second),
                   "--dataset", "case1").returncode == 0
    one, two = read_annotations([first]), read_annotations([second])
    assert one.votes.equals(two.votes)
    assert one.comparisons.drop(columns="dataset").astype(object).equals(
        two.comparisons.drop(columns="dataset").astype(object))
