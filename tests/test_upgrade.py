"""`ffsite upgrade`: version 1 files rewritten as version 2 keep every vote and their
metadata; version 2 files and broken files are left as they are."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from helpers import run_here, trait, vote_rows

from ffsite.format.read import read_annotations
from ffsite.format.read import vote_rows as file_rows
from ffsite.format.response_metrics import read_response_metrics

VERBOSE = trait("is more verbose")
METADATA = {"format_version": "1", "kind": "votes", "default_preference": {"d": "h"},
            "annotators": {"h": "crowd workers"}, "extra": {"tool": "old ffsite"}}


def _version_1(path, votes=None):
    """A version 1 file as older ffsite wrote it: one row per vote, sorted."""
    comparisons = [{"comparison_id": f"c{i}", "model_a": "m1", "model_b": "m2",
                    "meta.topic": "t" if i else None} for i in range(3)]
    votes = votes or [
        {"comparison_id": "c0", "role": "preference", "judge": "h", "vote": "A"},
        {"comparison_id": "c0", **VERBOSE, "judge": "j", "seed": 1, "vote": "A"},
        {"comparison_id": "c0", **VERBOSE, "judge": "j", "seed": 2, "vote": "invalid",
         "note": "no answer"},
        {"comparison_id": "c1", "role": "preference", "judge": "h", "vote": "B"},
        {"comparison_id": "c1", **VERBOSE, "judge": "j", "seed": 1, "vote": "tie"},
        {"comparison_id": "c2", **VERBOSE, "judge": "j", "seed": 2, "vote": "B"}]
    frame = vote_rows(comparisons, votes)
    frame["seed"] = frame["seed"].astype("Int64")
    table = pa.Table.from_pandas(frame, preserve_index=False)
    pq.write_table(table.replace_schema_metadata({b"ffsite": json.dumps(METADATA)}), path)
    return path


def _metadata(path) -> dict:
    return json.loads(pq.read_schema(path).metadata[b"ffsite"])


def test_a_version_1_file_becomes_version_2_with_every_vote(tmp_path, monkeypatch):
    monkeypatch.setenv("FFSITE_NO_CACHE", "1")
    path = _version_1(tmp_path / "v.parquet")
    before_rows, before = file_rows(path).to_pylist(), read_annotations([path])
    checked = run_here("validate", str(path))
    assert checked.returncode == 0 and "`ffsite upgrade` rewrites it" in checked.stdout
    result = run_here("upgrade", str(path))
    assert result.returncode == 0, result.stderr
    assert f"upgraded {path}: 6 votes on 3 comparisons" in result.stdout
    metadata = _metadata(path)
    assert metadata["format_version"] == "2"
    assert {k: metadata[k] for k in ("default_preference", "annotators", "extra")} == {
        k: METADATA[k] for k in ("default_preference", "annotators", "extra")}
    assert file_rows(path).to_pylist() == before_rows  # seeds and notes too
    after = read_annotations([path])
    assert after.votes.equals(before.votes)
    assert after.comparisons.astype(object).equals(before.comparisons.astype(object))

    upgraded = path.read_bytes()
    again = run_here("upgrade", str(tmp_path))
    assert again.returncode == 0 and "already version 2" in again.stdout
    assert path.read_bytes() == upgraded
    assert "upgrade" not in run_here("validate", str(path)).stdout


def test_a_broken_version_1_file_is_reported_and_left_alone(tmp_path):
    twice = {"comparison_id": "c0", **VERBOSE, "judge": "j", "vote": "A"}
    path = _version_1(tmp_path / "v.parquet", votes=[twice, dict(twice, vote="B")])
    original = path.read_bytes()
    result = run_here("upgrade", str(path))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "column 'seed', row 1" in result.stderr and "distinct seeds" in result.stderr
    assert path.read_bytes() == original


def test_response_metrics_get_the_new_version_and_keep_their_rows(tmp_path):
    frame = pd.DataFrame({"dataset": ["d", "d"], "response_id": ["r1", "r2"],
                          "prompt_id": ["p", "p"], "model": ["m1", "m2"],
                          "words": [3.0, 5.0]})
    path = tmp_path / "communication.parquet"
    document = {"format_version": "1", "kind": "response-metrics"}
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata(
        {b"ffsite": json.dumps(document)}), path)
    before = read_response_metrics([path])
    assert run_here("upgrade", str(path)).returncode == 0
    assert _metadata(path)["format_version"] == "2"
    assert read_response_metrics([path]).equals(before)
