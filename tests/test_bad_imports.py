"""Importers given files of the right kind but the wrong shape inside: each stops with
one line naming the file and the comparison or line, and writes nothing."""

from __future__ import annotations

import copy
import gzip
import json
import sys

import pytest
from helpers import run_main

PAIR = {"metadata": {"version": "2.0"},
        "annotators": {"a1": {"name": "pref", "type": "human"}},
        "comparisons": [{"id": "c1", "prompt": "p",
                         "response_a": {"text": "x", "model": "m1"},
                         "response_b": {"text": "y", "model": "m2"},
                         "annotations": {"a1": {"pref": "a"}}}]}
DEEP = "[" * 100_000 + "]" * 100_000


def changed(change) -> str:
    document = copy.deepcopy(PAIR)
    change(document)
    return json.dumps(document)


def first(document) -> dict:
    return document["comparisons"][0]


PAIRS = {
    "comparison without id": (changed(lambda d: first(d).pop("id")),
                              "missing required field `id` - at `$.comparisons[0]`"),
    "empty id": (changed(lambda d: first(d).update(id="")), "comparison 0 (counting from 0) "
                 "has an empty id"),
    "id an object": (changed(lambda d: first(d).update(id={"x": 1})),
                     "Expected `int | str`, got `object` - at `$.comparisons[0].id`"),
    "vote a list": (changed(lambda d: first(d)["annotations"]["a1"].update(pref=["a"])),
                    "comparison 'c1': annotations: Expected `bool | int | float | str | null`, "
                    "got `array`"),
    "deep JSON": ('{"metadata": {}, "x": ' + DEEP + "}", "nested too deeply"),
    "model name of 60,000 characters": (
        changed(lambda d: first(d)["response_a"].update(model="M" * 60_000)),
        "comparison 'c1': model_a: text longer than 10,000 characters"),
}


def assert_one_line(status: int, err: str, *needles: str) -> None:
    lines = err.strip().splitlines()
    assert status == 1 and len(lines) == 1 and lines[0].startswith("error: "), err
    assert [n for n in needles if n not in lines[0]] == [], lines[0]


def test_the_good_pair_imports(tmp_path, monkeypatch, capsys):
    (tmp_path / "good.json").write_text(json.dumps(PAIR))
    status, _, err = run_main(monkeypatch, capsys, "import", "annotated-pairs",
                           str(tmp_path / "good.json"), "--out", str(tmp_path / "out.parquet"))
    assert status == 0, err


@pytest.mark.parametrize("case", PAIRS)
def test_bad_annotated_pairs(case, tmp_path, monkeypatch, capsys):
    text, needle = PAIRS[case]
    source = tmp_path / "pairs.json"
    source.write_text(text)
    status, _, err = run_main(monkeypatch, capsys, "import", "annotated-pairs", str(source),
                           "--out", str(tmp_path / "out.parquet"))
    assert_one_line(status, err, f"error: {source}: ", needle)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pairs.json"]


GOOD_LINE = json.dumps({"chosen": "\n\nHuman: hi\n\nAssistant: hello",
                        "rejected": "\n\nHuman: hi\n\nAssistant: go away"})
LINES = {
    "a list": (json.dumps([1, 2]), "line 2: a JSON list, not an object"),
    "a string": (json.dumps("hi"), "line 2: a JSON string, not an object"),
    "chosen a number": (json.dumps({"chosen": 5, "rejected": "x"}),
                        'line 2: "chosen" is missing or not text'),
    "rejected missing": (json.dumps({"chosen": "x"}), 'line 2: "rejected" is missing'),
    "deep JSON": (DEEP, "line 2: nested too deeply"),
}


@pytest.mark.parametrize("case", LINES)
def test_bad_hh_rlhf_lines(case, tmp_path, monkeypatch, capsys):
    line, needle = LINES[case]
    source = tmp_path / "hh.jsonl.gz"
    with gzip.open(source, "wt") as handle:
        handle.write(GOOD_LINE + "\n" + line + "\n")
    status, _, err = run_main(monkeypatch, capsys, "import", "hh-rlhf", str(source),
                           "--out", str(tmp_path / "out.parquet"))
    assert_one_line(status, err, f"error: {source}: ", needle)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hh.jsonl.gz"]


@pytest.mark.slow  # > 2.4 s: a real build, fit or watcher (CI runs it)
def test_an_input_too_large_for_memory_is_one_line(tmp_path):
    import subprocess

    # A 1.5 GB line (7 MB compressed: gzip members of one repeated chunk) read under a
    # 2 GB address-space limit: MemoryError, worded as one line, not a traceback.
    source = tmp_path / "huge.jsonl.gz"
    chunk = gzip.compress(b"a" * (64 * 2**20), compresslevel=1)
    with open(source, "wb") as handle:
        handle.write(gzip.compress(b'{"chosen": "'))
        for _ in range(24):
            handle.write(chunk)
        handle.write(gzip.compress(b'", "rejected": "b"}\n'))
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30,) * 2)\n"
            "from ffsite.cli import main\n"
            "sys.argv = ['ffsite', 'import', 'hh-rlhf', sys.argv[1], '--out', sys.argv[2]]\n"
            "main()\n")
    done = subprocess.run([sys.executable, "-c", code, str(source),
                           str(tmp_path / "out.parquet")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "error: out of memory: the input is too large for this machine; split it into "
        "smaller files or use a machine with more memory"]
    assert not (tmp_path / "out.parquet").exists()
