"""The checks' shortcut for files where every comparison lists the same annotators in the
same order gives the same coded votes and the same first offending row as the general path."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import trait

from ffsite.errors import FfsiteError
from ffsite.format import _checks
from ffsite.format.read import read_votes_file

TRAITS = [trait("is more verbose"), trait("is friendlier")]


def _file(tmp_path, wording_of_last=None):
    comparisons, votes = [], []
    for i in range(30):
        cid = f"c{i:02d}"
        comparisons.append({"comparison_id": cid, "model_a": "m1", "model_b": "m2"})
        votes.append({"comparison_id": cid, "role": "preference", "judge": "human",
                      "vote": "AB"[i % 2]})
        for number, t in enumerate(TRAITS):
            row = {"comparison_id": cid, **t, "judge": "j", "vote": "BA"[(i + number) % 2]}
            if wording_of_last and i == 29 and number == 1:
                row["trait"] = wording_of_last
            votes.append(row)
    return _unchecked(tmp_path, comparisons, votes)


def _unchecked(tmp_path, comparisons, votes):
    """Write a version 1 file (the shortcut is version 1's) without ffsite's writer: it
    writes version 2, and would refuse the file with a changed wording."""
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq
    from helpers import vote_rows

    table = pa.Table.from_pandas(vote_rows(comparisons, votes), preserve_index=False)
    path = tmp_path / "bad.parquet"
    pq.write_table(table.replace_schema_metadata(
        {b"ffsite": json.dumps({"format_version": "1", "kind": "votes"})}), path)
    return path


def test_same_pieces_with_and_without_the_shortcut(tmp_path, monkeypatch):
    path = _file(tmp_path)
    taken = []
    periodic = _checks._periodic
    monkeypatch.setattr(_checks, "_periodic", lambda *a: taken.append(1) or periodic(*a))
    fast, _ = read_votes_file(path, use_cache=False)
    assert taken
    monkeypatch.setattr(_checks._Runs, "width", lambda self: None)
    general, _ = read_votes_file(path, use_cache=False)
    for name in ("comparison", "annotator", "vote"):
        assert np.array_equal(getattr(fast, name), getattr(general, name)), name
    for table in ("comparisons", "annotators"):
        for name, column in getattr(fast, table).items():
            assert list(column.astype(object)) == list(getattr(general, table)[name].astype(object))


@pytest.mark.parametrize("shortcut", [True, False])
def test_a_wording_that_changes_late_is_found_at_its_row(tmp_path, monkeypatch, shortcut):
    path = _file(tmp_path, wording_of_last="Select the response that is something else")
    if not shortcut:
        monkeypatch.setattr(_checks._Runs, "width", lambda self: None)
    with pytest.raises(FfsiteError) as error:
        read_votes_file(path, use_cache=False)
    # Rows are sorted by comparison, then annotator (preference first, then trait ids).
    sorted_ids = sorted(t["trait_id"] for t in TRAITS)
    row = 29 * 3 + 1 + sorted_ids.index(TRAITS[1]["trait_id"])
    assert f"column 'trait', row {row}:" in str(error.value)
