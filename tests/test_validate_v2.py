"""Format version 2 (one row per comparison): every rule, one malformed file each, and
the same votes read alike from a version 1 and a version 2 file."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import (
    expect_validate_error,
    run_here,
    trait,
    two_comparisons,
    vote_rows,
    write_test_votes,
)

from ffsite.format.read import read_annotations, read_votes_file
from ffsite.format.read import vote_rows as file_rows
from ffsite.metrics.results import metrics_table

VERBOSE = trait("is more verbose")
FRIENDLY = trait("is friendlier")


def _broken(tmp_path, change):
    """The good file, rewritten by plain pyarrow after `change(table, metadata)`."""
    good = write_test_votes(tmp_path / "good.parquet", *two_comparisons())
    table = pq.read_table(good)
    metadata = json.loads(table.schema.metadata[b"ffsite"])
    table = change(table.replace_schema_metadata(None), metadata) or table
    path = tmp_path / "bad.parquet"
    pq.write_table(table.replace_schema_metadata({b"ffsite": json.dumps(metadata)}), path)
    return path


def _replace(table: pa.Table, name: str, array) -> pa.Table:
    return table.set_column(table.column_names.index(name), name, array)


def test_the_writer_writes_version_2_with_a_column_per_annotator(tmp_path):
    path = write_test_votes(tmp_path / "good.parquet", *two_comparisons())
    table = pq.read_table(path)
    metadata = json.loads(table.schema.metadata[b"ffsite"])
    assert metadata["format_version"] == "2"
    assert [(e["role"], e["judge"], e["trait_id"]) for e in metadata["vote_columns"]] == [
        ("preference", "h", None), ("trait", "j", VERBOSE["trait_id"])]
    assert table.num_rows == 2
    assert table.column("comparison_id").to_pylist() == ["c0", "c1"]
    assert table.column("vote:0").to_pylist() == ["A", "B"]
    assert table.column("vote:1").to_pylist() == ["A", "tie"]
    result = run_here("validate", str(path))
    assert result.returncode == 0 and "4 votes on 2 comparisons" in result.stdout


def test_without_vote_columns_in_the_metadata(tmp_path):
    path = _broken(tmp_path, lambda table, metadata: metadata.pop("vote_columns") and None)
    expect_validate_error(path, "metadata vote_columns", "missing or not a list")


@pytest.mark.parametrize(("field", "value", "needles"), [
    ("role", "judge", ("vote_columns[0]", "'judge' is not a role")),
    ("judge", "", ("vote_columns[0]", "judge is empty")),
    ("seed", "one", ("vote_columns[0]", "seed 'one' is not a whole number")),
    ("colour", "red", ("vote_columns[0]", "unknown key 'colour'")),
])
def test_a_bad_preference_entry(tmp_path, field, value, needles):
    path = _broken(tmp_path, lambda table, metadata: metadata["vote_columns"][0].update(
        {field: value}))
    expect_validate_error(path, *needles)


def test_a_trait_column_without_its_trait_set(tmp_path):
    path = _broken(tmp_path, lambda table, metadata: metadata["vote_columns"][1].update(
        trait_set=None))
    expect_validate_error(path, "vote_columns[1]", "trait_set is empty on a trait column")


def test_two_columns_for_the_same_judge_trait_and_seed(tmp_path):
    def repeat(table, metadata):
        metadata["vote_columns"].append(dict(metadata["vote_columns"][1]))
        return table.append_column("vote:2", table.column("vote:1"))
    expect_validate_error(_broken(tmp_path, repeat), "vote_columns[2]", "repeats vote_columns[1]",
                  "distinct seeds")


def test_one_trait_id_with_two_wordings(tmp_path):
    def reword(table, metadata):
        metadata["vote_columns"].append({**metadata["vote_columns"][1], "judge": "k",
                                         "trait": "Select the response that is longer"})
        return table.append_column("vote:2", table.column("vote:1"))
    expect_validate_error(_broken(tmp_path, reword), "vote_columns[2]", "two different wordings")


def test_a_missing_comparison_column(tmp_path):
    path = _broken(tmp_path, lambda table, metadata: table.drop_columns(["model_a"]))
    expect_validate_error(path, "column 'model_a'", "missing")


def test_a_vote_column_the_metadata_does_not_describe(tmp_path):
    path = _broken(tmp_path, lambda table, metadata: table.append_column(
        "vote:2", table.column("vote:1")))
    expect_validate_error(path, "column 'vote:2'", "not one of the 2 vote columns")


def test_a_described_vote_column_that_is_missing(tmp_path):
    path = _broken(tmp_path, lambda table, metadata: table.drop_columns(["vote:1"]))
    expect_validate_error(path, "column 'vote:1'", "missing", "vote_columns[1]")


def test_a_vote_outside_the_allowed_values(tmp_path):
    path = _broken(tmp_path, lambda table, metadata: _replace(
        table, "vote:1", pa.array(["A", "C"])))
    expect_validate_error(path, "column 'vote:1'", "row 1", "'C' is not a vote")


def test_a_vote_column_of_numbers(tmp_path):
    path = _broken(tmp_path, lambda table, metadata: _replace(
        table, "vote:0", pa.array([1, 2])))
    expect_validate_error(path, "column 'vote:0'", "int64, not text")


def test_an_empty_comparison_id(tmp_path):
    path = _broken(tmp_path, lambda table, metadata: _replace(
        table, "comparison_id", pa.array(["c0", None])))
    expect_validate_error(path, "column 'comparison_id'", "row 1", "empty value")


def test_a_repeated_comparison_id(tmp_path):
    path = _broken(tmp_path, lambda table, metadata: _replace(
        table, "comparison_id", pa.array(["c1", "c1"])))
    expect_validate_error(path, "column 'comparison_id'", "row 1", "'c1'", "rows 0 and 1",
                  "unique within a dataset")


def _long_file(path, frame):
    """The same votes as a version 1 file, written by plain pyarrow in its sort order."""
    keys = ["dataset", "comparison_id", "role", "judge", "trait_id", "seed"]
    frame = frame.sort_values(keys, kind="stable", na_position="first")
    table = pa.Table.from_pandas(frame.reset_index(drop=True), preserve_index=False)
    pq.write_table(table.replace_schema_metadata(
        {b"ffsite": json.dumps({"format_version": "1", "kind": "votes"})}), path)
    return path


def _cross_annotated():
    """Three comparisons; two judges on one trait, one with two seeds; a vote missing."""
    comparisons = [{"comparison_id": f"c{i}", "model_a": "m1", "model_b": f"m{i + 2}",
                    "meta.topic": ["x", "y", None][i]} for i in range(3)]
    votes = []
    for i, (first, second, third) in enumerate(["ABB", "BAB", "A-A"]):
        cid = f"c{i}"
        votes.append({"comparison_id": cid, "role": "preference", "judge": "h",
                      "vote": "AB"[i % 2]})
        for judge, seed, value in (("j", 1, first), ("j", 2, second), ("k", None, third)):
            if value != "-":
                votes.append({"comparison_id": cid, **VERBOSE, "judge": judge,
                              "seed": seed, "vote": value})
        votes.append({"comparison_id": cid, **FRIENDLY, "judge": "j", "vote": "neither",
                      "note": "looked twice" if i == 2 else None})
    return comparisons, votes


def test_version_1_and_version_2_files_of_the_same_votes_read_alike(tmp_path, monkeypatch):
    monkeypatch.setenv("FFSITE_NO_CACHE", "1")
    comparisons, votes = _cross_annotated()
    frame = vote_rows(comparisons, votes)
    frame["seed"] = frame["seed"].astype("Int64")
    wide = write_test_votes(tmp_path / "v2" / "votes.parquet", comparisons, votes)
    (tmp_path / "v1").mkdir()
    long = _long_file(tmp_path / "v1" / "votes.parquet", frame)
    first, second = read_annotations([long]), read_annotations([wide])
    assert first.votes.equals(second.votes)
    for name in ("comparisons", "annotators"):
        assert getattr(first, name).astype(object).equals(getattr(second, name).astype(object))
    for against in ("preference", "model:m1"):
        assert metrics_table(first, against=against).equals(
            metrics_table(second, against=against))
    # The votes themselves, one row per vote, as written: seeds and notes kept.
    rows = file_rows(wide).to_pylist()
    assert len(rows) == len(votes) and sum(r["seed"] is not None for r in rows) == 5
    assert [r["note"] for r in rows if r["note"]] == ["looked twice"]
    assert rows == file_rows(long).to_pylist()


def test_the_wide_file_keeps_gaps_seeds_and_notes_in_its_columns(tmp_path):
    path = write_test_votes(tmp_path / "v.parquet", *_cross_annotated())
    table = pq.read_table(path)
    entries = json.loads(table.schema.metadata[b"ffsite"])["vote_columns"]
    # preference h; trait j with seeds 1 and 2 (two columns); trait j on the friendlier
    # trait; trait k — sorted by role, judge, trait id, seed.
    described = [(e["role"], e["judge"], e["trait_id"], e["seed"]) for e in entries]
    order = sorted([VERBOSE["trait_id"], FRIENDLY["trait_id"]])
    expected = [("preference", "h", None, None)]
    for trait_id in order:
        expected += [("trait", "j", trait_id, 1), ("trait", "j", trait_id, 2)] \
            if trait_id == VERBOSE["trait_id"] else [("trait", "j", trait_id, None)]
    expected.append(("trait", "k", VERBOSE["trait_id"], None))
    assert described == expected
    column_k = described.index(("trait", "k", VERBOSE["trait_id"], None))
    assert table.column(f"vote:{column_k}").to_pylist() == ["B", "B", "A"]
    column_j2 = described.index(("trait", "j", VERBOSE["trait_id"], 2))
    assert table.column(f"vote:{column_j2}").to_pylist() == ["B", "A", None]  # c2: no vote
    column_friendly = described.index(("trait", "j", FRIENDLY["trait_id"], None))
    assert table.column(f"note:{column_friendly}").to_pylist() == [None, None, "looked twice"]
    assert [n for n in table.column_names if n.startswith("note:")] == [
        f"note:{column_friendly}"]


def test_a_comparison_in_a_version_1_and_a_version_2_file_merges(tmp_path):
    comparisons, votes = two_comparisons()
    write_test_votes(tmp_path / "prefs.parquet", comparisons, votes[:2])
    _long_file(tmp_path / "traits.parquet", vote_rows(comparisons, votes[2:]))
    merged = read_annotations([tmp_path])
    assert len(merged.comparisons) == 2 and len(merged.votes) == 4
    result = run_here("validate", str(tmp_path))
    assert result.returncode == 0, result.stderr


def test_metrics_read_only_the_columns_they_need(tmp_path, monkeypatch):
    monkeypatch.setenv("FFSITE_NO_CACHE", "1")
    path = write_test_votes(tmp_path / "v.parquet", *_cross_annotated())
    some, _ = read_votes_file(path, columns=[])
    comparisons = some.comparisons
    assert pd.isna(np.asarray(comparisons["model_a"], dtype=object)).all()  # not read
    assert "meta.topic" not in comparisons
    whole, _ = read_votes_file(path)
    assert list(np.asarray(whole.comparisons["model_a"], dtype=object)) == ["m1"] * 3
    assert np.array_equal(whole.vote, some.vote)


def test_null_votes_point_at_a_real_dictionary_entry(tmp_path):
    """Readers that look up dictionary indices before validity must not see garbage."""
    path = write_test_votes(tmp_path / "v.parquet", *_cross_annotated())
    for name in pq.read_schema(path).names:
        if name.startswith("vote:"):
            indices = pq.read_table(path, columns=[name]).column(0).combine_chunks().indices
            raw = np.frombuffer(indices.buffers()[1], dtype=np.int8)  # validity ignored
            assert raw[indices.offset:indices.offset + len(indices)].min() >= 0, name


def test_an_unused_dictionary_value_is_not_a_vote_cast(tmp_path, monkeypatch):
    monkeypatch.setenv("FFSITE_NO_CACHE", "1")
    spare = pa.DictionaryArray.from_arrays(pa.array([0, 2], pa.int8()),
                                           pa.array(["A", "C", "tie"]))
    path = _broken(tmp_path, lambda table, metadata: _replace(table, "vote:1", spare))
    result = run_here("validate", str(path))
    assert result.returncode == 0, result.stderr
    assert read_annotations([path]).votes["vote"].tolist() == [1, 1, 2, 3]
