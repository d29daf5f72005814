"""EQ-Bench 3 import: crafted verdicts checked by hand, then the real file."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from ffsite.datasets.eqbench3.importer import import_eqbench3
from ffsite.errors import FfsiteError


def verdict(scenario: str, test: str, other: str, order: str, **criteria) -> dict:
    return {"scenario_id": scenario,
            "pair": {"test_model": test, "neighbor_model": other, "iteration_index": "1"},
            "order": order,
            "judge_response": {"chain_of_thought_reasoning": "thinking", **criteria}}


def write_file(path: Path, entries: list[dict]) -> Path:
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        json.dump({"__metadata__": {"global_pairwise_comparisons": entries}}, handle)
    return path


ENTRIES = [
    # Role-play scenario 1: x (test) vs y, once in each order.
    verdict("1", "x", "y", "A0493:test / A0488:other",
            demonstrated_empathy="A0493++", overall_eq="A0488+"),
    verdict("1", "x", "y", "A0493:other / A0488:test",
            demonstrated_empathy="A0488+++++", overall_eq="A0488+++"),
    # Analysis scenario 401: y (test) vs x, only shown first.
    verdict("401", "y", "x", "A0493:test / A0488:other", theory_of_mind="A0488++++"),
    {"scenario_id": "401", "pair": {"test_model": "y", "neighbor_model": "x",
                                    "iteration_index": "1"},
     "order": "reversed", "error": "Judge Error: unterminated string"},
]


def test_crafted_verdicts_by_hand(tmp_path):
    result = import_eqbench3(write_file(tmp_path / "p.json.gz", ENTRIES))
    frame = result.table
    rows = {(r.comparison_id, r.trait_id, r.seed): r for r in frame.itertuples(index=False)}
    assert len(rows) == 5
    # Side A is the test model.  Shown first, A0493 is the test model: A0493 -> A.
    first = rows[("1:x:y:1", "eq-demonstrated_empathy", 0)]
    assert (first.model_a, first.model_b, first.vote, first.margin) == ("x", "y", "A", 2)
    assert rows[("1:x:y:1", "eq-overall_eq", 0)].vote == "B"
    # Shown second (A0493 is the other model): A0488 is the test model -> A.
    second = rows[("1:x:y:1", "eq-demonstrated_empathy", 1)]
    assert (second.vote, second.margin) == ("A", 5)
    assert rows[("1:x:y:1", "eq-overall_eq", 1)].vote == "A"
    analysis = rows[("401:y:x:1", "eq-theory_of_mind", 0)]
    assert (analysis.model_a, analysis.vote, analysis.margin) == ("y", "B", 4)
    assert analysis.prompt_id == "401"
    assert dict(zip(frame["comparison_id"], frame["meta.scenario_type"], strict=True)) == {
        "1:x:y:1": "role-play", "401:y:x:1": "analysis"}
    assert set(frame["judge"]) == {"claude-3.7-sonnet"}
    assert result.skipped == {"judge verdicts with an error instead of a judgement": 1}


@pytest.mark.parametrize(("entry", "needle"), [
    ({"scenario_id": "1", "pair": {}, "order": "x"}, "entry 0: needs scenario_id"),
    (verdict("1", "x", "y", "forward", overall_eq="A0493+"), "entry 0: order 'forward'"),
    (verdict("1", "x", "y", "A0493:test / A0488:other", overall_eq="A0499+"),
     "verdict 'A0499+' is not a respondent code"),
    (verdict("1", "x", "y", "A0493:test / A0488:other", overall_eq="A0493++++++"),
     "followed by 1-5 '+'"),
    (verdict("1", "x", "y", "A0493:test / A0488:other", kindness="A0493+"),
     "unknown criterion 'kindness'"),
])
def test_malformed_entries_are_named(tmp_path, entry, needle):
    with pytest.raises(FfsiteError, match=re.escape(needle)):
        import_eqbench3(write_file(tmp_path / "p.json.gz", [entry]))


def test_not_the_right_file(tmp_path):
    path = tmp_path / "p.json"
    path.write_text("[1, 2]")
    with pytest.raises(FfsiteError, match="no '__metadata__.global_pairwise_comparisons'"):
        import_eqbench3(path)


def test_real_file(shared_data):
    result = import_eqbench3(shared_data / "eqbench3" / "pairwise_comparisons.json.gz")
    frame = result.table
    assert result.skipped == {"judge verdicts with an error instead of a judgement": 90}
    # 6,362 judged entries: role-play ones hold 8 criteria, analysis ones 8.
    assert len(frame) == 6362 * 8
    assert frame["comparison_id"].nunique() == 3225  # pairs judged at least once
    assert set(frame["margin"]) == {1, 2, 3, 4, 5}
    models = set(frame["model_a"]) | set(frame["model_b"])
    assert len(models) == 27


# ------------------------------------------------------------------ margins (version 3)

def _written(tmp_path):
    from ffsite.format import write_votes

    result = import_eqbench3(write_file(tmp_path / "p.json.gz", ENTRIES))
    path = tmp_path / "eq.parquet"
    write_votes(result.table, path)
    return path


def test_margins_are_written_as_version_3_and_read_back(tmp_path):
    import pyarrow.parquet as pq

    from ffsite.format import vote_rows

    path = _written(tmp_path)
    assert json.loads(pq.read_schema(path).metadata[b"ffsite"])["format_version"] == "3"
    rows = vote_rows(path).to_pandas()
    margins = dict(zip(zip(rows["comparison_id"], rows["trait_id"], rows["seed"],
                           strict=True), rows["margin"], strict=True))
    assert margins[("1:x:y:1", "eq-demonstrated_empathy", 1)] == 5
    assert margins[("401:y:x:1", "eq-theory_of_mind", 0)] == 4


def _rewritten(tmp_path, change):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(_written(tmp_path))
    metadata = json.loads(table.schema.metadata[b"ffsite"])
    table = change(table.replace_schema_metadata(None), metadata, pa) or table
    path = tmp_path / "bad.parquet"
    pq.write_table(table.replace_schema_metadata({b"ffsite": json.dumps(metadata)}), path)
    return path


def _margin_column(table):
    return next(n for n in table.column_names if n.startswith("margin:"))


@pytest.mark.parametrize(("change", "needle"), [
    (lambda t, m, pa: m.update(format_version="2"), "margins need format_version 3"),
    (lambda t, m, pa: t.set_column(t.column_names.index(_margin_column(t)), _margin_column(t),
                                   pa.array([9] * t.num_rows, pa.int8())),
     "row 0: margin 9 is not 1 to 5"),
    (lambda t, m, pa: t.set_column(t.column_names.index(_margin_column(t)), _margin_column(t),
                                   pa.array(["2"] * t.num_rows)), "not whole numbers"),
    (lambda t, m, pa: t.append_column("margin:99", pa.array([1] * t.num_rows, pa.int8())),
     "'margin:99': not one of the"),
])
def test_margin_rules(tmp_path, change, needle):
    from ffsite.format import read_annotations

    path = _rewritten(tmp_path, change)
    with pytest.raises(FfsiteError, match=re.escape(needle)):
        read_annotations([path])


def test_a_margin_beside_a_tie_is_refused(tmp_path):
    from ffsite.format import read_annotations

    def tie_everywhere(table, metadata, pa):
        vote = next(n for n in table.column_names if n.startswith("vote:")
                    and f"margin:{n[5:]}" in table.column_names)
        return table.set_column(table.column_names.index(vote), vote,
                                pa.array(["tie"] * table.num_rows))

    with pytest.raises(FfsiteError, match="a margin beside a vote that is not A or B"):
        read_annotations([_rewritten(tmp_path, tie_everywhere)])
