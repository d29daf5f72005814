"""Encoded votes (ffsite.format.encode): the votes laid out as format 2 are exactly the
votes given, each once, in the format's order; the file written holds them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from ffsite.errors import FfsiteError
from ffsite.format import schema, write
from ffsite.format.encode import encode_votes
from ffsite.format.read import read_annotations, vote_rows
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
        numbers = np.where(np.arange(len(comparison)) >= 3 * n_comparisons, 1, -1)
        numbers[:3 * n_comparisons][annotator[:3 * n_comparisons] == 2] = 0
        seed = [None if number < 0 else int(number) for number in numbers]
    notes = [f"note {i}" if i % 11 == 0 else None for i in range(len(vote))]
    return comparisons, annotators, comparison, annotator, vote, seed, notes


def _expected_rows(comparisons, annotators, comparison, annotator, vote, seed, notes):
    """The votes one per row, built with pandas from the parts, in the format's order."""
    rows = pd.concat([comparisons.iloc[comparison].reset_index(drop=True),
                      annotators.iloc[annotator].reset_index(drop=True)], axis=1)
    rows["seed"] = seed if seed is not None else None
    rows["vote"] = [schema.VOTE_VALUES[code - 1] for code in vote]
    rows["note"] = notes
    rows = rows.assign(_trait=rows["trait_id"].isna(), _seed=rows["seed"].isna())
    rows = rows.sort_values(["dataset", "comparison_id", "role", "judge", "_trait",
                             "trait_id", "_seed", "seed"], ascending=[
                                 True, True, True, True, True, True, False, True],
                            kind="stable")
    rows = rows[schema.votes_schema(["meta.topic"]).names].reset_index(drop=True)
    return rows.astype(object).where(rows.notna(), None)


@pytest.mark.parametrize("seeds", [False, True])
def test_every_vote_once_in_the_format_order(seeds):
    parts = _parts(seeds=seeds)
    encoded = encode_votes(*parts[:5], seed=parts[5], note=parts[6])
    assert encoded.num_rows == len(parts[4])
    assert encoded.to_table().to_pylist() == _expected_rows(*parts).to_dict("records")
    # Columns: preference first, then the trait judge's t1 (two seeds with seeds) and t2.
    described = [(e["judge"], e["trait_id"], e["seed"]) for e in encoded.entries]
    assert described == ([("pref", None, None), ("j", "t1", 0), ("j", "t1", 1), ("j", "t2", None)]
                         if seeds else [("pref", None, None), ("j", "t1", None),
                                        ("j", "t2", None)])
    assert encoded.table.column("comparison_id").to_pylist() == [f"c{i:03d}" for i in range(60)]


def test_comparisons_without_votes_are_left_out():
    comparisons, annotators, comparison, annotator, vote, _, _ = _parts()
    keep = comparison != 5
    encoded = encode_votes(comparisons, annotators, comparison[keep], annotator[keep],
                           vote[keep])
    assert comparisons["comparison_id"][5] not in encoded.table.column("comparison_id").to_pylist()
    assert encoded.table.num_rows == 59


def test_two_votes_in_one_cell_are_refused():
    comparisons, annotators, comparison, annotator, vote, _, _ = _parts()
    with pytest.raises(FfsiteError, match="distinct seeds"):
        encode_votes(comparisons, annotators, np.append(comparison, 0),
                     np.append(annotator, annotator[0]), np.append(vote, schema.A))


def test_the_file_written_holds_the_table(tmp_path, monkeypatch):
    monkeypatch.setattr(write, "ROW_GROUP_ROWS", 16)  # several row groups of comparisons
    comparisons, annotators, comparison, annotator, vote, seed, notes = _parts(seeds=True)
    encoded = encode_votes(comparisons, annotators, comparison, annotator, vote, seed=seed,
                           note=notes)
    written = write_votes(encoded, tmp_path / "v.parquet")
    assert (written.num_rows, written.num_comparisons) == (len(vote), 60)
    assert pq.ParquetFile(tmp_path / "v.parquet").metadata.num_row_groups > 2
    assert vote_rows(tmp_path / "v.parquet").to_pylist() == _expected_rows(
        comparisons, annotators, comparison, annotator, vote, seed, notes).to_dict("records")
    # Read back through the checks, row group by row group, it is the one-group file.
    monkeypatch.setenv("FFSITE_NO_CACHE", "1")
    monkeypatch.setattr(write, "ROW_GROUP_ROWS", 1 << 20)
    write_votes(encoded, tmp_path / "one.parquet")
    split, whole = read_annotations([tmp_path / "v.parquet"]), read_annotations(
        [tmp_path / "one.parquet"])
    assert split.votes.equals(whole.votes) and len(whole.votes) == len(vote)
    for name in ("comparisons", "annotators"):
        assert getattr(split, name).astype(object).equals(getattr(whole, name).astype(object))


def test_a_repeated_comparison_id_is_refused_and_nothing_is_written(tmp_path):
    comparisons, annotators, comparison, annotator, vote, _, _ = _parts()
    comparisons.loc[7, "comparison_id"] = comparisons.loc[3, "comparison_id"]
    target = tmp_path / "v.parquet"
    target.write_bytes(b"the previous file")
    with pytest.raises(FfsiteError, match="appears twice"):
        write_votes(encode_votes(comparisons, annotators, comparison, annotator, vote), target)
    assert target.read_bytes() == b"the previous file"
    assert [p.name for p in tmp_path.iterdir()] == ["v.parquet"]  # no temporary left
