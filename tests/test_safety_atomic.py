"""The atomic writer never deletes what it did not create (issue 28): a device, a pipe, a
folder or a path under a file given as an output is refused before anything is touched,
and a failed block removes only the files it wrote.  `annotate`, `eigenbench run` and
`lmlpa run` write through the same `all_or_nothing`, so testing it directly and through
`import annotated-pairs` / `import eqbench3` covers them.

No test here ever points ffsite at a real device: a device node is made inside tmp_path
(as root; CI runs as root) or reached through a symlink in tmp_path to a node made there.
"""

from __future__ import annotations

import gzip
import json
import os
import stat

import pytest
from helpers import run_main

from ffsite._atomic import all_or_nothing, write_text
from ffsite.errors import FfsiteError

PAIRS = {"metadata": {"version": "2.0"},
         "annotators": {"a1": {"name": "pref", "type": "human"}},
         "comparisons": [{"id": "c1", "prompt": "p",
                          "response_a": {"text": "x", "model": "m1"},
                          "response_b": {"text": "y", "model": "m2"},
                          "annotations": {"a1": {"pref": "a"}}}]}
EQBENCH = {"__metadata__": {"global_pairwise_comparisons": [{
    "scenario_id": "1", "pair": {"test_model": "x", "neighbor_model": "y",
                                 "iteration_index": "1"},
    "order": "A0493:test / A0488:other",
    "judge_response": {"chain_of_thought_reasoning": "t", "overall_eq": "A0493++"}}]}}


def fifo(path):
    os.mkfifo(path)
    return path


def char_device(path):
    """A character device with /dev/null's numbers, made in tmp_path (needs root)."""
    if os.geteuid() != 0:
        pytest.skip("making a device node needs root (CI runs as root)")
    os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))
    return path


def device_through_a_link(path):
    """A symlink to a device node in tmp_path: the writer follows links to their file."""
    node = char_device(path.with_name("node"))
    path.symlink_to(node)
    return path


def is_special(path, kind) -> bool:
    return kind(os.lstat(path).st_mode)


SPECIAL = {"fifo": (fifo, stat.S_ISFIFO), "device": (char_device, stat.S_ISCHR),
           "link to a device": (device_through_a_link, stat.S_ISLNK)}


@pytest.mark.parametrize("kind", SPECIAL)
def test_all_or_nothing_refuses_a_special_file_before_touching_it(tmp_path, kind):
    make, check = SPECIAL[kind]
    target = make(tmp_path / "out.parquet")
    other = tmp_path / "texts.parquet"
    with pytest.raises(FfsiteError, match="not a regular file"):  # noqa: SIM117
        with all_or_nothing(other, target):
            raise AssertionError("the block must not run")
    assert is_special(target, check)  # still there, still what it was
    assert not other.exists()
    if kind == "link to a device":
        assert stat.S_ISCHR(os.lstat(tmp_path / "node").st_mode)


def test_all_or_nothing_refuses_a_folder_and_a_path_under_a_file(tmp_path):
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "keep.txt").write_text("mine")
    (tmp_path / "afile").write_text("mine too")
    for target, needle in ((tmp_path / "folder", "is a folder"),
                           (tmp_path / "afile" / "x.parquet", "afile is not a folder")):
        with pytest.raises(FfsiteError, match=needle), all_or_nothing(target):
            raise AssertionError("the block must not run")
    assert (tmp_path / "folder" / "keep.txt").read_text() == "mine"
    assert (tmp_path / "afile").read_text() == "mine too"


def test_a_failed_block_removes_only_what_it_wrote(tmp_path):
    old = tmp_path / "old.txt"
    old.write_text("before")
    new = tmp_path / "sub" / "new.txt"
    with pytest.raises(RuntimeError), all_or_nothing(old, new):
        write_text(old, "after")
        write_text(new, "written")
        raise RuntimeError("the second half failed")
    assert old.read_text() == "before"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.txt"]  # sub/ removed too


def test_a_failed_block_keeps_an_existing_file_it_never_replaced(tmp_path):
    kept = tmp_path / "kept.txt"
    kept.write_text("mine")
    with pytest.raises(RuntimeError), all_or_nothing(kept):
        raise RuntimeError("failed before writing")
    assert kept.read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.txt"]  # no backup left


def _import_args(tmp_path, kind):
    if kind == "annotated-pairs":
        source = tmp_path / "pairs.json"
        source.write_text(json.dumps(PAIRS))
    else:
        source = tmp_path / "eq.json.gz"
        with gzip.open(source, "wt") as handle:
            json.dump(EQBENCH, handle)
    return ["import", kind, str(source)]


@pytest.mark.parametrize("importer", ["annotated-pairs", "eqbench3"])
@pytest.mark.parametrize("kind", SPECIAL)
def test_import_out_a_special_file_is_refused_and_kept(tmp_path, monkeypatch, capsys,
                                                         importer, kind):
    make, check = SPECIAL[kind]
    out = make(tmp_path / "out.parquet")
    status, _, err = run_main(monkeypatch, capsys, *_import_args(tmp_path, importer),
                              "--out", str(out))
    lines = err.strip().splitlines()
    assert status == 1 and len(lines) == 1 and "not a regular file" in lines[0], err
    assert is_special(out, check)


@pytest.mark.parametrize("importer", ["annotated-pairs", "eqbench3"])
def test_import_out_under_a_regular_file_is_one_line(tmp_path, monkeypatch, capsys, importer):
    (tmp_path / "afile").write_text("mine")
    status, _, err = run_main(monkeypatch, capsys, *_import_args(tmp_path, importer),
                              "--out", str(tmp_path / "afile" / "out.parquet"))
    lines = err.strip().splitlines()
    assert status == 1 and len(lines) == 1, err
    assert "afile is not a folder" in lines[0] and "Traceback" not in err
    assert (tmp_path / "afile").read_text() == "mine"


def test_import_base_out_under_a_regular_file_writes_neither(tmp_path, monkeypatch, capsys):
    (tmp_path / "afile").write_text("mine")
    out = tmp_path / "out.parquet"
    status, _, err = run_main(monkeypatch, capsys, *_import_args(tmp_path, "annotated-pairs"),
                              "--out", str(out), "--base-out", str(tmp_path / "afile" / "b"))
    assert status == 1 and "afile is not a folder" in err and "Traceback" not in err
    assert not out.exists() and (tmp_path / "afile").read_text() == "mine"


@pytest.mark.parametrize("kind", SPECIAL)
def test_build_out_a_special_file_is_refused_and_kept(tmp_path, monkeypatch, capsys, kind):
    from site_fixture import REPO, write_content, write_tiny

    make, check = SPECIAL[kind]
    out = make(tmp_path / "site")
    write_tiny(tmp_path / "annotations")
    write_content(tmp_path / "content")
    status, _, err = run_main(monkeypatch, capsys, "build", "--annotations",
                              str(tmp_path / "annotations"), "--content",
                              str(tmp_path / "content"), "--templates", str(REPO / "templates"),
                              "--out", str(out), "--quiet")
    lines = err.strip().splitlines()
    assert status == 1 and len(lines) == 1 and "is not a folder" in lines[0], err
    assert is_special(out, check)
