"""`eigenbench run --constitution` reads EigenBench's own published constitutions (a JSON
list of criteria, ../shared/data/eigenbench_constitutions/) as well as ffsite's text
files; and without self-judgments the run says what that costs."""

from __future__ import annotations

import json

import pytest
from helpers import run_here

from ffsite.collect.eigenbench.constitution import (
    MAX_CRITERIA,
    load_constitution,
    parse_json_constitution,
)
from ffsite.errors import FfsiteError
from ffsite.traits import trait_id

MODELS = ("m1", "m2", "m3")


def test_every_published_constitution_loads_as_written(shared_data):
    files = sorted((shared_data / "eigenbench_constitutions").glob("*.json"))
    assert len(files) == 16  # the README of ../shared/data lists 16
    for path in files:
        criteria = json.loads(path.read_text("utf-8"))  # read here independently
        constitution = load_constitution(str(path))
        assert constitution.name == path.stem
        assert constitution.wordings == [c.strip() for c in criteria]
        assert [c.id for c in constitution.criteria] == [trait_id(c.strip()) for c in criteria]
        assert {c.trait_set for c in constitution.criteria} == {path.stem}
    # The longest, claude and openai, hold 39 criteria each: within the limit.
    longest = max(len(json.loads(p.read_text("utf-8"))) for p in files)
    assert longest == 39 <= MAX_CRITERIA


def test_a_published_constitution_drives_a_dry_run(shared_data, tmp_path):
    (tmp_path / "scenarios.txt").write_text("Is it kind to tell a white lie?\n")
    kindness = shared_data / "eigenbench_constitutions" / "kindness.json"
    done = run_here("eigenbench", "run", "--constitution", str(kindness), "--prompts",
                    str(tmp_path / "scenarios.txt"), "--dry-run", "--out",
                    str(tmp_path / "v.parquet"),
                    *[part for m in MODELS for part in ("--model", m)])
    stdout, stderr = done.stdout, done.stderr
    assert done.returncode == 0, stderr
    assert "under 'kindness' (8 criteria)" in stdout
    assert "nothing was sent" in stdout and "warning" not in stderr


@pytest.mark.parametrize(("text", "message"), [
    ('{"1": "prefer kindness"}', "expected a JSON list of criteria"),
    ('["prefer kindness", 3]', "expected a JSON list of criteria"),
    ('["prefer kindness", "prefer kindness"]', "criterion 2 repeats criterion 1"),
    ('["prefer kindness", "  "]', "criterion 2 is empty"),
    ('["prefer kindness",', "not valid JSON"),
    (json.dumps([f"criterion {n}" for n in range(MAX_CRITERIA + 1)]),
     f"{MAX_CRITERIA + 1} criteria")])
def test_bad_json_constitutions_are_refused(text, message):
    with pytest.raises(FfsiteError, match=message):
        parse_json_constitution("c", text, "c.json")


def test_without_self_judgments_the_run_warns(tmp_path):
    (tmp_path / "scenarios.txt").write_text("Is it kind to tell a white lie?\n")
    done = run_here("eigenbench", "run", "--constitution", "hhh", "--prompts",
                    str(tmp_path / "scenarios.txt"), "--dry-run", "--no-self-judgments",
                    "--out", str(tmp_path / "v.parquet"),
                    *[part for m in MODELS for part in ("--model", m)])
    stderr = done.stderr
    assert done.returncode == 0, stderr
    assert "warning: --no-self-judgments" in stderr
    assert "extrapolated" in stderr and "intervals widen" in stderr
