"""The cache of checked votes files: same answers, and never a stale or unchecked file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import trait, vote_rows, write_test_votes

from ffsite.errors import FfsiteError
from ffsite.format.read import read_annotations

VERBOSE = trait("is more verbose")


def _rows():
    comparisons = [{"comparison_id": f"c{i}", "model_a": "m1", "model_b": "m2"}
                   for i in range(3)]
    votes = [{"comparison_id": f"c{i}", **VERBOSE, "judge": "j", "vote": v}
             for i, v in enumerate("ABA")]
    return comparisons, votes


def _entries() -> list[Path]:
    return sorted((Path(os.environ["FFSITE_CACHE_DIR"]) / "checked-votes").glob("*.npz"))


def _same(first, second) -> None:
    assert first.votes.equals(second.votes)
    for name in ("comparisons", "annotators"):
        assert getattr(first, name).astype(object).equals(getattr(second, name).astype(object))


def _written_elsewhere(path: Path) -> Path:
    """The votes as a plain Arrow write: bytes ffsite's writer never checked."""
    table = pa.Table.from_pandas(vote_rows(*_rows()), preserve_index=False)
    pq.write_table(table.replace_schema_metadata(
        {b"ffsite": json.dumps({"format_version": "1", "kind": "votes"})}), path)
    return path


def test_a_second_read_comes_from_the_cache_and_is_equal(tmp_path, monkeypatch):
    path = _written_elsewhere(tmp_path / "v.parquet")
    before = set(_entries())
    first = read_annotations([path])
    added = set(_entries()) - before
    assert len(added) == 1
    second = read_annotations([path])
    _same(first, second)
    assert set(_entries()) - before == added  # nothing new: the entry was used
    monkeypatch.setenv("FFSITE_NO_CACHE", "1")
    _same(first, read_annotations([path]))


def test_the_writer_leaves_what_it_checked_for_the_first_read(tmp_path, monkeypatch):
    before = set(_entries())
    path = write_test_votes(tmp_path / "v.parquet", *_rows())
    assert len(set(_entries()) - before) == 1  # the whole file, as checked before writing
    after_write = set(_entries())
    whole = read_annotations([path])
    some = read_annotations([path], columns=[])  # as `ffsite metrics` reads: cut down
    assert set(_entries()) == after_write
    monkeypatch.setenv("FFSITE_NO_CACHE", "1")
    _same(whole, read_annotations([path]))
    _same(some, read_annotations([path], columns=[]))
    assert some.comparisons["model_a"].isna().all()  # a column not asked for stays empty


def test_a_changed_file_is_checked_again(tmp_path):
    path = write_test_votes(tmp_path / "v.parquet", *_rows())
    read_annotations([path])
    # Same file name, new bytes that break a rule: the old entry must not answer for it.
    frame = vote_rows(*_rows())
    extra = frame.iloc[[1]].assign(judge="k", model_a="other")  # c1 with two model_a values
    frame = pd.concat([frame, extra], ignore_index=True)
    table = pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata(
        {b"ffsite": json.dumps({"format_version": "1", "kind": "votes"})})
    pq.write_table(table, path)
    with pytest.raises(FfsiteError, match="model_a"):
        read_annotations([path])


def test_the_cache_can_be_switched_off(tmp_path, monkeypatch):
    path = write_test_votes(tmp_path / "v.parquet", *_rows())
    monkeypatch.setenv("FFSITE_NO_CACHE", "1")
    before = set(_entries())
    read_annotations([path])
    assert set(_entries()) == before


def test_a_whole_file_entry_answers_a_read_of_some_metadata_columns(tmp_path, monkeypatch):
    comparisons = [{"comparison_id": f"c{i}", "model_a": "m1", "model_b": "m2",
                    "meta.topic": f"t{i % 2}", "meta.source": "s"} for i in range(4)]
    votes = [{"comparison_id": f"c{i}", **VERBOSE, "judge": "j", "vote": "AB"[i % 2]}
             for i in range(4)]
    path = write_test_votes(tmp_path / "v.parquet", comparisons, votes)
    after_write = set(_entries())
    some = read_annotations([path], columns=["meta.topic"])
    assert set(_entries()) == after_write  # answered by the writer's whole-file entry
    assert "meta.topic" in some.comparisons and "meta.source" not in some.comparisons
    monkeypatch.setenv("FFSITE_NO_CACHE", "1")
    _same(some, read_annotations([path], columns=["meta.topic"]))
