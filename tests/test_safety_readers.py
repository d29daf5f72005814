"""Deep, huge or malformed input in every reader of JSON, TOML and YAML (issue 28): one
reader (ffsite._read) with depth and size limits, so each is one line naming the file,
never a traceback (or, for libyaml, a crashed process)."""

from __future__ import annotations

import gzip
import json
import tracemalloc

import pytest
from helpers import run_cli, run_main
from site_fixture import REPO, write_content, write_tiny

from ffsite._read import loads_json, read_json, read_toml, read_yaml
from ffsite.datasets.behavioral_profiling import reader as bp
from ffsite.datasets.behavioral_profiling.importer import import_behavioral_profiling
from ffsite.errors import FfsiteError

DEEP_JSON = "[" * 100_000 + "]" * 100_000
DEEP_YAML = "request_id: x\nprompt: " + "[" * 100_000 + "]" * 100_000 + "\n"
DEEP_TOML = "x = " + "[" * 100_000 + "]" * 100_000 + "\n"
JOB = "job_q1_20260101_000000"


def one_line(status: int, err: str, *needles: str) -> str:
    lines = err.strip().splitlines()
    assert status == 1 and len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    assert [n for n in needles if n not in lines[0]] == [], lines[0]
    return lines[0]


def bp_folder(root, baseline: str | None = None, prompt: str | None = None):
    """A Behavioral Profiling folder: one prompt, every condition's contributions."""
    folder = root / "behavioral_profiling"
    (folder / "prompts" / "general_suite").mkdir(parents=True)
    (folder / "prompts" / "general_suite" / "q1.yaml").write_text(
        prompt or "request_id: q1\nprompt: How are you?\n")
    (folder / "contributions").mkdir()
    good = json.dumps({"job_contributions": {JOB: {"contributions": {
        "m1": {"warmth": {"score": 5.0, "weight": 1.0}}}}}})
    for condition in bp.CONDITIONS:
        text = baseline if baseline is not None and condition == bp.BASELINE else good
        (folder / "contributions" / f"{condition}.json").write_text(text)
    return folder


def test_the_shared_reader_names_the_file_and_the_place(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": 1,\n "b": }')
    with pytest.raises(FfsiteError, match=r"bad.json: not valid JSON \(Expecting value at "
                                          r"line 2, column 7\); fetch it again"):
        read_json(bad, hint="fetch it again")
    bad.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(FfsiteError, match=r"bad.json: not UTF-8 text \(at byte offset 7\)"):
        read_json(bad)
    bad.write_text("1" * 5_000)
    with pytest.raises(FfsiteError, match="a number too long to read"):
        read_json(bad)
    with pytest.raises(FfsiteError, match=r"f.jsonl: line 3: nested too deeply \(more than "
                                          "64 levels"):
        loads_json(DEEP_JSON, source="f.jsonl: line 3")
    with pytest.raises(FfsiteError, match="nested too deeply"):  # under Python's limit too
        loads_json("[" * 65 + "]" * 65, source="f.json")
    assert loads_json("[" * 64 + "]" * 64, source="f.json") is not None
    with pytest.raises(FfsiteError, match="big.json: larger than 0 MB"):
        (tmp_path / "big.json").write_text("[1, 2, 3]")
        read_json(tmp_path / "big.json", max_bytes=4)
    packed = tmp_path / "big.json.gz"
    with gzip.open(packed, "wt") as handle:
        handle.write(" " * 10_000 + "1")
    with pytest.raises(FfsiteError, match=r"larger than .* \(uncompressed\)"):
        read_json(packed, max_bytes=1_000)  # the limit holds after decompression
    assert read_json(packed) == 1
    with pytest.raises(FfsiteError, match="nowhere.json: no such file"):
        read_json(tmp_path / "nowhere.json")


def test_a_gzipped_file_is_read_without_asking_for_the_whole_limit(tmp_path):
    # One read of MAX_BYTES (1 GB) asked the allocator for a gigabyte to read EQ-Bench 3's
    # 4 MB file; read a chunk at a time, the peak stays near the file's own size.
    packed = tmp_path / "small.json.gz"
    with gzip.open(packed, "wt") as handle:
        handle.write("[" + ", ".join(["1"] * 100_000) + "]")
    tracemalloc.start()
    try:
        assert len(read_json(packed)) == 100_000
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20, peak


def test_toml_and_yaml_too(tmp_path):
    (tmp_path / "deep.toml").write_text(DEEP_TOML)
    with pytest.raises(FfsiteError, match="deep.toml: nested too deeply"):
        read_toml(tmp_path / "deep.toml")
    (tmp_path / "dotted.toml").write_text("a" + ".a" * 100 + " = 1\n")  # deep, no brackets
    with pytest.raises(FfsiteError, match="dotted.toml: nested too deeply"):
        read_toml(tmp_path / "dotted.toml")
    (tmp_path / "bad.toml").write_text("x = \n")
    with pytest.raises(FfsiteError, match=r"bad.toml: not valid TOML \(.*line 1"):
        read_toml(tmp_path / "bad.toml")
    laughs = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
        f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n"
        for a, b in zip("abcdefgh", "bcdefghi", strict=True))
    (tmp_path / "laughs.yaml").write_text(laughs)  # 9 ** 9 items if walked naively
    assert set(read_yaml(tmp_path / "laughs.yaml")) == set("abcdefghi")
    (tmp_path / "loop.yaml").write_text("a: &a [*a]\n")
    with pytest.raises(FfsiteError, match="loop.yaml: nested too deeply"):
        read_yaml(tmp_path / "loop.yaml")


def test_a_deep_yaml_prompt_file_is_one_line_not_a_crash(tmp_path):
    # libyaml overflows the C stack on this (SIGSEGV): run in a process of its own, so a
    # regression fails this test rather than killing the test run.
    folder = bp_folder(tmp_path, prompt=DEEP_YAML)
    done = run_cli("import", "behavioral-profiling", str(folder), "--out",
                   str(tmp_path / "bp.parquet"))
    one_line(done.returncode, done.stderr, "q1.yaml: nested too deeply", "fetch it again")
    assert not (tmp_path / "bp.parquet").exists()


@pytest.mark.parametrize(("text", "needle"), [
    (DEEP_JSON, "baseline.json: nested too deeply"),
    ('{"job_contributions": {"' + JOB + '": {"contributions": {"m1": ' + DEEP_JSON + "}}}}",
     "baseline.json: nested too deeply"),
    ('{"job_contributions": ', "baseline.json: not valid JSON (Expecting value at line 1"),
], ids=["deep", "deep inside", "truncated"])
def test_behavioral_profiling_contributions(tmp_path, monkeypatch, capsys, text, needle):
    folder = bp_folder(tmp_path, baseline=text)
    status, _, err = run_main(monkeypatch, capsys, "import", "behavioral-profiling",
                              str(folder), "--out", str(tmp_path / "bp.parquet"))
    one_line(status, err, needle)
    assert not (tmp_path / "bp.parquet").exists()


@pytest.mark.parametrize(("where", "needle"), [
    ("model", f"job '{JOB}': model name 'MMMM"), ("job", "job id 'job_"),
    ("dimension", "model 'm1': dimension key 'DDDD"), ("escape", "model name 'm\\x1b[2J")])
def test_behavioral_profiling_names_are_checked_before_rows_repeat_them(tmp_path, where,
                                                                         needle):
    name = {"model": "M" * 60_000, "escape": "m\x1b[2J"}.get(where, "m1")
    job = JOB.replace("q1", "q1" + "J" * 60_000) if where == "job" else JOB
    dimension = "D" * 60_000 if where == "dimension" else "warmth"
    text = json.dumps({"job_contributions": {job: {"contributions": {
        name: {dimension: {"score": 5.0, "weight": 1.0}}}}}})
    folder = bp_folder(tmp_path, baseline=text)
    with pytest.raises(FfsiteError) as caught:
        import_behavioral_profiling(folder, (bp.BASELINE,))
    message = str(caught.value)
    assert "baseline.json: " in message and len(message) < 400
    from ffsite._text import for_terminal

    assert needle in for_terminal(message)


def test_eqbench3_deep_json(tmp_path, monkeypatch, capsys):
    source = tmp_path / "pairwise_comparisons.json.gz"
    with gzip.open(source, "wt") as handle:
        handle.write('{"__metadata__": {"global_pairwise_comparisons": ' + DEEP_JSON + "}}")
    status, _, err = run_main(monkeypatch, capsys, "import", "eqbench3", str(source),
                              "--out", str(tmp_path / "eq.parquet"))
    one_line(status, err, "pairwise_comparisons.json.gz: nested too deeply", "fetch it again")
    assert not (tmp_path / "eq.parquet").exists()


def test_eqbench3_data_quoted_in_an_error_cannot_drive_the_terminal(tmp_path, monkeypatch,
                                                                      capsys):
    source = tmp_path / "pairwise_comparisons.json.gz"
    entry = {"scenario_id": "1", "pair": {"test_model": "x", "neighbor_model": "y",
                                          "iteration_index": "1"},
             "order": "A1:test / A2:other",
             "judge_response": {"\x1b]0;owned\x07\x1b[2J": "A1+"}}
    with gzip.open(source, "wt") as handle:
        json.dump({"__metadata__": {"global_pairwise_comparisons": [entry]}}, handle)
    status, _, err = run_main(monkeypatch, capsys, "import", "eqbench3", str(source),
                              "--out", str(tmp_path / "eq.parquet"))
    one_line(status, err, "unknown criterion '\\x1b]0;owned\\x07\\x1b[2J'")
    assert "\x1b" not in err and "\x07" not in err


def test_alpaca_eval_deep_json(tmp_path):
    from ffsite.datasets.alpaca_eval.reader import load_outputs

    (tmp_path / "model_outputs").mkdir()
    (tmp_path / "model_outputs" / "m.json").write_text(DEEP_JSON)
    with pytest.raises(FfsiteError, match="m.json: nested too deeply"):
        load_outputs(tmp_path)


def test_a_deep_site_toml_is_one_line(tmp_path, monkeypatch, capsys):
    write_tiny(tmp_path / "annotations")
    content = write_content(tmp_path / "content")
    (content / "site.toml").write_text(DEEP_TOML)
    for args in (["validate", str(tmp_path / "annotations"), "--content", str(content)],
                 ["build", "--annotations", str(tmp_path / "annotations"), "--content",
                  str(content), "--templates", str(REPO / "templates"), "--out",
                  str(tmp_path / "site"), "--quiet"]):
        status, _, err = run_main(monkeypatch, capsys, *args)
        one_line(status, err, "site.toml: nested too deeply")


def test_a_site_toml_text_with_an_escape_sequence_is_refused(tmp_path, monkeypatch, capsys):
    write_tiny(tmp_path / "annotations")
    content = write_content(tmp_path / "content")
    settings = (content / "site.toml").read_text("utf-8")
    (content / "site.toml").write_text(settings.replace('title = "Test site"',
                                                        'title = "Site \\u001b[2J"'))
    status, _, err = run_main(monkeypatch, capsys, "build", "--annotations",
                              str(tmp_path / "annotations"), "--content", str(content),
                              "--templates", str(REPO / "templates"), "--out",
                              str(tmp_path / "site"), "--quiet")
    one_line(status, err, "site.toml: key 'title': text holds the control character U+001B")
    assert not (tmp_path / "site").exists()


def test_likert_seed_too_large_for_the_scores_file(tmp_path, monkeypatch, capsys):
    source = tmp_path / "ratings.csv"
    source.write_text("model,item,score,seed\nm,Q1,3,12345678901234567890123\n")
    status, _, err = run_main(monkeypatch, capsys, "import", "likert", str(source), "--out",
                              str(tmp_path / "l.parquet"))
    one_line(status, err, "ratings.csv: line 2, column 'seed'", "at most 18 digits")
    source.write_text("model,item,score,seed\nm,Q1,3,999999999999999999\n")
    status, _, err = run_main(monkeypatch, capsys, "import", "likert", str(source), "--out",
                              str(tmp_path / "l.parquet"))
    assert status == 0, err
