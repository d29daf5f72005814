"""The committed default annotations are what `ffsite default-annotations` writes today
from ../shared/data: the same votes and metadata (bytes may differ with the pyarrow
version, which Parquet records).  One test per dataset, each running that dataset's own
step (as the command does, in this process), so the steps run side by side."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ffsite.datasets import DATASETS
from ffsite.datasets.defaults import Settings
from ffsite.format.read import vote_rows

REPO = Path(__file__).resolve().parents[1]
STEPS = [dataset.id for dataset in DATASETS if dataset.defaults]
pytestmark = pytest.mark.slow  # regenerates the default annotation files from the real data


def _metadata(path: Path) -> dict:
    return json.loads(pq.read_schema(path).metadata[b"ffsite"])


def test_every_committed_folder_is_a_datasets_step():
    assert sorted(p.name for p in (REPO / "annotations").iterdir() if p.is_dir()) == sorted(
        STEPS)


@pytest.mark.parametrize("dataset", STEPS)
def test_committed_annotations_are_current(dataset, shared_data, tmp_path):
    step = next(d for d in DATASETS if d.id == dataset).hook("defaults")
    step(shared_data / dataset, tmp_path / dataset, Settings(say=lambda _line: None))
    kept_folder = REPO / "annotations" / dataset
    committed = sorted(p.relative_to(kept_folder) for p in kept_folder.rglob("*.parquet"))
    fresh_folder = tmp_path / dataset
    assert committed == sorted(p.relative_to(fresh_folder)
                               for p in fresh_folder.rglob("*.parquet"))
    assert committed  # (a dataset's step writes at least one file)
    for name in committed:
        fresh, kept = fresh_folder / name, kept_folder / name
        assert _metadata(fresh) == _metadata(kept), name
        if _metadata(kept)["kind"] == "votes":
            assert vote_rows(fresh).equals(vote_rows(kept)), name
        else:
            assert pq.read_table(fresh).equals(pq.read_table(kept)), name
