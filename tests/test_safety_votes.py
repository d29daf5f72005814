"""A votes file whose vote columns hold no vote (issue 28): `validate` used to say ok and
`build` crash with a KeyError.  Now both stop with the same line naming the column."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import run_main
from site_fixture import REPO, write_content, write_tiny

from ffsite.format import schema


def empty_columns(path, which) -> None:
    """Rewrite `path` with the vote columns `which(entry)` picks emptied (all null)."""
    table = pq.read_table(path)
    entries = json.loads(table.schema.metadata[schema.METADATA_KEY])["vote_columns"]
    for position, name in enumerate(table.column_names):
        if name.startswith("vote:") and which(entries[int(name[5:])]):
            table = table.set_column(position, name,
                                     pa.nulls(table.num_rows, table.schema.field(name).type))
    pq.write_table(table, path)


@pytest.mark.parametrize(("which", "column"), [
    (lambda entry: True, "vote:0"),  # every vote column empty
    (lambda entry: entry["role"] == "trait", "vote:2"),  # every trait's column empty
], ids=["all columns", "trait columns"])
def test_vote_columns_without_votes_stop_validate_and_build_alike(tmp_path, monkeypatch,
                                                                  capsys, which, column):
    annotations = write_tiny(tmp_path / "annotations").parent
    empty_columns(annotations / "tiny.parquet", which)
    content = write_content(tmp_path / "content")
    errors = []
    for args in (["validate", str(annotations)],
                 ["build", "--annotations", str(annotations), "--content", str(content),
                  "--templates", str(REPO / "templates"), "--out", str(tmp_path / "site"),
                  "--quiet"]):
        status, _, err = run_main(monkeypatch, capsys, *args)
        lines = err.strip().splitlines()
        assert status == 1 and len(lines) == 1 and "Traceback" not in err, err
        assert f"tiny.parquet: column '{column}': holds no vote at all" in lines[0]
        errors.append(lines[0])
    assert errors[0] == errors[1]
    assert not (tmp_path / "site").exists()
