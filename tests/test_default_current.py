"""The committed default annotations are what `ffsite default-annotations` writes today
from ../shared/data: the same votes and metadata (bytes may differ with the pyarrow
version, which Parquet records)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from helpers import run_here

from ffsite.format.read import vote_rows

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow  # regenerates every default annotation file from the real data


def _metadata(path: Path) -> dict:
    return json.loads(pq.read_schema(path).metadata[b"ffsite"])


def test_committed_annotations_are_current(shared_data, tmp_path):
    result = run_here("default-annotations", "--base-data", str(shared_data), "--out",
                      str(tmp_path), cwd=REPO)
    assert result.returncode == 0, result.stderr
    committed = sorted(p.relative_to(REPO / "annotations")
                       for p in (REPO / "annotations").rglob("*.parquet"))
    assert committed == sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.parquet"))
    for name in committed:
        fresh, kept = tmp_path / name, REPO / "annotations" / name
        assert _metadata(fresh) == _metadata(kept), name
        if _metadata(kept)["kind"] == "votes":
            assert vote_rows(fresh).equals(vote_rows(kept)), name
        else:
            assert pq.read_table(fresh).equals(pq.read_table(kept)), name
