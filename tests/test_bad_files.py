"""Annotation files that are Parquet but wrong inside: file metadata of the wrong shape,
an unknown kind, JSON nested too deeply, a dangling link, a folder that cannot be read.
`validate`, `metrics` and `build` each stop with one line naming the file and the cause,
so whatever `validate` accepts also builds, and no file is silently left out."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import run_main
from site_fixture import REPO, write_content, write_tiny

from ffsite.format import schema


def with_metadata(path, change) -> None:
    """Rewrite `path` with its ffsite metadata replaced by `change(metadata)` (raw JSON
    text when `change` returns a str)."""
    table = pq.read_table(path)
    raw = dict(table.schema.metadata)
    new = change(json.loads(raw[schema.METADATA_KEY]))
    raw[schema.METADATA_KEY] = (new if isinstance(new, str) else json.dumps(new)
                                         ).encode()
    pq.write_table(table.replace_schema_metadata(raw), path)


DEEP = "[" * 100_000 + "]" * 100_000
BAD_METADATA = {
    "a list": (lambda m: [m], "a JSON list, not an object"),
    "a string": (lambda m: json.dumps("votes"), "a JSON string, not an object"),
    "null": (lambda m: "null", "a JSON null, not an object"),
    "deep": (lambda m: DEEP, "nested too deeply"),
    "annotators a list": (lambda m: {**m, "annotators": ["pj"]},
                          "'annotators' is a JSON list, not an object of texts"),
    "default_preference a string": (lambda m: {**m, "default_preference": "pj"},
                                    "'default_preference' is a JSON string"),
    "extra a list": (lambda m: {**m, "extra": [1, 2]}, "'extra' is a JSON list"),
    "unknown kind": (lambda m: {**m, "kind": "vots"}, 'kind "vots" is not one of votes'),
    "no kind": (lambda m: {k: v for k, v in m.items() if k != "kind"},
                "kind null is not one of"),
}
COMMANDS = {
    "validate": lambda folder, root: ["validate", str(folder)],
    "metrics": lambda folder, root: ["metrics", str(folder)],
    "build": lambda folder, root: ["build", "--annotations", str(folder), "--content",
                                   str(root / "content"), "--templates",
                                   str(REPO / "templates"), "--out", str(root / "site"),
                                   "--quiet"],
}


@pytest.fixture
def workspace(tmp_path):
    write_tiny(tmp_path / "annotations")
    write_content(tmp_path / "content")
    return tmp_path


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", BAD_METADATA)
def test_bad_metadata_is_one_line_naming_the_file(case, command, workspace, monkeypatch,
                                                   capsys):
    change, needle = BAD_METADATA[case]
    target = workspace / "annotations" / "tiny.parquet"
    with_metadata(target, change)
    status, _, err = run_main(monkeypatch, capsys,
                           *COMMANDS[command](workspace / "annotations", workspace))
    assert status == 1, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert str(target) in lines[0] and needle in lines[0], lines[0]
    assert not (workspace / "site").exists()


@pytest.mark.parametrize("command", COMMANDS)
def test_a_dangling_link_is_not_skipped(command, workspace, monkeypatch, capsys):
    link = workspace / "annotations" / "gone.parquet"
    link.symlink_to(workspace / "nowhere.parquet")
    status, _, err = run_main(monkeypatch, capsys,
                           *COMMANDS[command](workspace / "annotations", workspace))
    assert status == 1
    assert f"error: {link}: not a readable file" in err


def rewrite(path, change) -> None:
    """Rewrite the Parquet file `path` with `change(table)`, keeping its metadata."""
    table = pq.read_table(path)
    pq.write_table(change(table).replace_schema_metadata(table.schema.metadata), path)


def set_row0(name: str, value):
    def change(table: pa.Table) -> pa.Table:
        index = table.schema.get_field_index(name)
        values = table.column(name).to_pylist()
        values[0] = value
        return table.set_column(index, name, pa.array(values))
    return change


BAD_COLUMNS = {
    "struct meta column": ("tiny.parquet", lambda t: t.append_column(
        "meta.s", pa.array([{"a": 1}] * len(t))), "column 'meta.s': holds struct"),
    "empty comparison id": ("tiny.parquet", set_row0("comparison_id", ""),
                            "column 'comparison_id', row 0: empty value"),
    "empty dataset": ("tiny.parquet", set_row0("dataset", ""),
                      "column 'dataset', row 0: empty value"),
    "model name too long": ("tiny.parquet", set_row0("model_a", "m" * 50_000),
                            "column 'model_a', row 0: text longer than 10,000 characters"),
    "infinite metric": ("metrics.parquet", set_row0("words", float("inf")),
                        "column 'words', row 0: infinite value"),
    "empty response id": ("metrics.parquet", set_row0("response_id", ""),
                          "column 'response_id', row 0: empty value"),
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", BAD_COLUMNS)
def test_bad_columns_stop_validate_and_build_alike(case, command, workspace, monkeypatch,
                                                    capsys):
    name, change, needle = BAD_COLUMNS[case]
    target = workspace / "annotations" / name
    rewrite(target, change)
    status, _, err = run_main(monkeypatch, capsys,
                           *COMMANDS[command](workspace / "annotations", workspace))
    unread_by_metrics = ("struct meta column", "infinite metric", "model name too long",
                         "empty response id")
    if command == "metrics" and case in unread_by_metrics:
        assert status == 0, err  # metrics reads neither unused columns nor metrics files
        return
    assert status == 1, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0] == f"error: {target}: {needle}" + lines[0].split(
        needle, 1)[1], err
    assert not (workspace / "site").exists()


@pytest.mark.parametrize("name", ["NUL\x00model", "esc\x1b[2Jmodel", "cr\rmodel", "c1\x9bmodel"])
def test_control_characters_in_names_are_refused(name, workspace, monkeypatch, capsys):
    # NUL bytes and terminal escape sequences would reach pages and terminals; a carriage
    # return would break a CSV row.
    target = workspace / "annotations" / "tiny.parquet"
    rewrite(target, set_row0("model_a", name))
    status, _, err = run_main(monkeypatch, capsys, "validate", str(workspace / "annotations"))
    assert status == 1
    assert f"error: {target}: column 'model_a', row 0: text holds the control character U+" in err
    assert "\x1b" not in err and "\x00" not in err
