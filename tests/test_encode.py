"""Encoded votes (ffsite.format.encode): what the checks read, what the writer writes and
what the full table holds are the same votes, whatever the layout and slicing."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from ffsite.format import schema, write
from ffsite.format.encode import encode_votes
from ffsite.format.read import vote_rows
from ffsite.format.write import write_votes


def _parts(n_comparisons: int = 60, seeds: bool = False):
    rng = np.random.default_rng(3)
    comparisons = pd.DataFrame({
        "dataset": "d", "comparison_id": [f"c{i:03d}" for i in rng.permutation(n_comparisons)],
        "prompt_id": [f"p{i % 7}" if i % 5 else None for i in range(n_comparisons)],
        "model_a": [f"m{i % 3}" for i in range(n_comparisons)],
        "model_b": [f"m{(i + 1) % 3}" for i in range(n_comparisons)],
        "response_a_id": [f"ra{i}" for i in range(n_comparisons)],
        "response_b_id": [f"rb{i}" for i in range(n_comparisons)],
        "meta.topic": [f"t{i % 4}" if i % 3 else None for i in range(n_comparisons)]},
        dtype=object)
    annotators = pd.DataFrame({
        "role": ["trait", "preference", "trait"], "judge": ["j", "pref", "j"],
        "trait_id": ["t2", None, "t1"], "trait": ["Select the response that is b", None,
                                                  "Select the response that is a"],
        "trait_set": ["s", None, "s"]}, dtype=object)
    comparison = np.repeat(np.arange(n_comparisons), 3)
    annotator = np.tile([2, 0, 1], n_comparisons)
    vote = rng.integers(1, 7, len(comparison)).astype(np.int8)
    seed = None
    if seeds:  # a second seed of judge j on t1 for some comparisons: no grid layout
        extra = np.arange(0, n_comparisons, 4)
        comparison = np.concatenate([comparison, extra])
        annotator = np.concatenate([annotator, np.full(len(extra), 2)])
        vote = np.concatenate([vote, np.full(len(extra), schema.TIE, np.int8)])
        seed = np.where(np.arange(len(comparison)) >= 3 * n_comparisons, 1, -1)
        seed[:3 * n_comparisons][annotator[:3 * n_comparisons] == 2] = 0
    notes = [f"note {i}" if i % 11 == 0 else None for i in range(len(vote))]
    return comparisons, annotators, comparison, annotator, vote, seed, notes


@pytest.mark.parametrize("seeds", [False, True])
def test_codes_and_table_agree(seeds):
    comparisons, annotators, comparison, annotator, vote, seed, notes = _parts(seeds=seeds)
    encoded = encode_votes(comparisons, annotators, comparison, annotator, vote, seed=seed,
                           note=notes)
    table = encoded.to_table()
    assert table.num_rows == len(vote) == encoded.num_rows
    frame = table.to_pandas().astype(object)
    keys = ["comparison_id", "role", "judge", "trait_id", "seed"]
    ordered = frame.assign(trait_id=frame["trait_id"].fillna("~"),
                           seed=frame["seed"].fillna(-1))[keys]
    assert ordered.equals(ordered.sort_values(keys).reset_index(drop=True))  # format order
    for name in table.column_names:
        codes, values = encoded.codes(name)
        lookup = np.array([*values, None], dtype=object)
        expected = frame[name].where(frame[name].notna(), None).tolist()
        assert lookup[codes].tolist() == expected, name


def test_the_file_written_holds_the_table(tmp_path, monkeypatch):
    monkeypatch.setattr(write, "ROW_GROUP_ROWS", 16)  # several row groups of comparisons
    comparisons, annotators, comparison, annotator, vote, seed, notes = _parts(seeds=True)
    encoded = encode_votes(comparisons, annotators, comparison, annotator, vote, seed=seed,
                           note=notes)
    written = write_votes(encoded, tmp_path / "v.parquet")
    assert (written.num_rows, written.num_comparisons) == (len(vote), 60)
    assert pq.ParquetFile(tmp_path / "v.parquet").metadata.num_row_groups > 2
    expected = encoded.to_table().to_pandas().astype(object)
    expected = expected.where(expected.notna(), None)
    assert vote_rows(tmp_path / "v.parquet").equals(expected)
