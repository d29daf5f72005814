"""`ffsite validate`: every rule of format version 1 (still read), one malformed file each;
version 2's own rules are in test_validate_v2.py."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import (
    expect_validate_error,
    run_here,
    two_comparisons,
    vote_rows,
    write_test_votes,
)

from ffsite.format import schema
from ffsite.format.write import votes_table


def _raw_write(path, frame, version="1", drop=()):
    """Write a version 1 file without ffsite's validating writer, so it can be broken on
    purpose."""
    table = pa.Table.from_pandas(frame.drop(columns=list(drop)), preserve_index=False)
    metadata = {"format_version": version, "kind": "votes"}
    table = table.replace_schema_metadata({schema.METADATA_KEY: json.dumps(metadata)})
    pq.write_table(table, path)
    return path


def test_good_file_passes(tmp_path):
    path = write_test_votes(tmp_path / "good.parquet", *two_comparisons())
    result = run_here("validate", str(path))
    assert result.returncode == 0, result.stderr
    assert "ok" in result.stdout and "4 votes on 2 comparisons" in result.stdout


def test_not_parquet(tmp_path):
    path = tmp_path / "bad.parquet"
    path.write_text("this is not parquet")
    expect_validate_error(path, str(path), "not a readable Parquet file")


def test_truncated_parquet(tmp_path):
    good = write_test_votes(tmp_path / "good.parquet", *two_comparisons())
    path = tmp_path / "cut.parquet"
    path.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    expect_validate_error(path, str(path), "Parquet")


def test_other_schema_version(tmp_path):
    path = _raw_write(tmp_path / "v4.parquet", vote_rows(*two_comparisons()), version="4")
    expect_validate_error(path, "format_version 4", "upgrade ffsite")


def test_parquet_without_our_metadata(tmp_path):
    path = tmp_path / "plain.parquet"
    pq.write_table(pa.table({"x": [1]}), path)
    expect_validate_error(path, "without ffsite metadata")


def test_missing_column(tmp_path):
    path = _raw_write(tmp_path / "nocol.parquet", vote_rows(*two_comparisons()), drop=["vote"])
    expect_validate_error(path, "column 'vote'", "missing")


def test_vote_outside_allowed_values(tmp_path):
    frame = vote_rows(*two_comparisons())
    frame.loc[2, "vote"] = "C"
    path = _raw_write(tmp_path / "badvote.parquet", frame)
    expect_validate_error(path, "column 'vote'", "row 2", "'C' is not a vote")


def test_repeated_comparison_id_within_dataset(tmp_path):
    comparisons, votes = two_comparisons()
    frame = vote_rows(comparisons, votes)
    frame.loc[3, "model_a"] = "other"  # c1 now has two different model_a values
    path = _raw_write(tmp_path / "dup.parquet", frame)
    expect_validate_error(path, "column 'model_a'", "row 3", "'c1'", "unique within a dataset")


def test_trait_vote_without_trait_id(tmp_path):
    frame = vote_rows(*two_comparisons())
    frame.loc[2, "trait_id"] = None
    path = _raw_write(tmp_path / "notrait.parquet", frame)
    expect_validate_error(path, "column 'trait_id'", "row 2")


def test_unknown_role(tmp_path):
    frame = vote_rows(*two_comparisons())
    frame.loc[0, "role"] = "judge"
    path = _raw_write(tmp_path / "role.parquet", frame)
    expect_validate_error(path, "column 'role'", "row 0")


def test_repeated_vote_same_seed(tmp_path):
    comparisons, votes = two_comparisons()
    frame = vote_rows(comparisons, votes + [votes[2]])
    path = _raw_write(tmp_path / "twice.parquet", frame)
    expect_validate_error(path, "same seed")


def test_repeated_vote_in_a_sorted_file(tmp_path):
    comparisons, votes = two_comparisons()
    frame = vote_rows(comparisons, votes + [votes[2]])
    frame = frame.sort_values(["dataset", "comparison_id", "role", "judge"], kind="stable")
    path = _raw_write(tmp_path / "twice.parquet", frame.reset_index(drop=True))
    expect_validate_error(path, "row 2", "same seed")


def test_same_comparison_conflicting_across_files(tmp_path):
    comparisons, votes = two_comparisons()
    write_test_votes(tmp_path / "a.parquet", comparisons, votes[:2])
    changed = [dict(comparisons[0], model_b="zzz"), comparisons[1]]
    write_test_votes(tmp_path / "b.parquet", changed, votes[2:])
    expect_validate_error(tmp_path, "model_b", "differs from the same comparison")


def test_empty_folder(tmp_path):
    expect_validate_error(tmp_path, "no annotation files found")


def test_writer_refuses_invalid_rows(tmp_path):
    from ffsite.errors import FfsiteError
    from ffsite.format.write import write_votes

    frame = vote_rows(*two_comparisons())
    frame.loc[0, "vote"] = "maybe"
    with pytest.raises(FfsiteError, match="not a vote"):
        write_votes(frame, tmp_path / "x.parquet")
    assert not (tmp_path / "x.parquet").exists()
    assert votes_table(vote_rows(*two_comparisons())).num_rows == 4
