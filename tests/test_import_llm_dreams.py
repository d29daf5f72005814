"""llm-dreams import: a tiny crafted folder checked by hand, bad files, then the real data
checked against an independent reading of its JSON files."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import run_main

from ffsite.datasets.llm_dreams import reader
from ffsite.datasets.llm_dreams.importer import import_llm_dreams, trait_id
from ffsite.errors import FfsiteError
from ffsite.format import read_scores

TRAITS = reader.TRAITS


def _scores(base: float) -> dict:
    return {trait: round(base + i / 10, 1) for i, trait in enumerate(TRAITS)}


def make_folder(root: Path) -> Path:
    """Two models, two judges (gpt55, grok43), both answer sets, both repetitions."""
    folder = root / "llm_dreams"
    (folder / "incipits").mkdir(parents=True)
    for dream in (1, 2):
        (folder / "incipits" / f"dream{dream:03d}.txt").write_text(f"Opening {dream}.")
    (folder / "answers").mkdir()
    for model in ("m-one", "m-two"):
        for k in (0, 1):
            for dream in (1, 2):
                (folder / "answers" / f"{model}__dream{dream:03d}__{k}.txt").write_text(
                    f"{model} set {k} dream {dream} goes on and on, at some length, here.")
    # A continuation in Windows-1252 (an em dash is 0x97), as half the real ones are.
    (folder / "answers" / "m-two__dream002__1.txt").write_bytes(b"tall\x97and short")
    for judge_folder, base in (("gpt55", 2.0), ("grok43", 5.0)):
        (folder / f"evaluations-{judge_folder}").mkdir()
        for model, offset in (("m-one", 0.0), ("m-two", 1.0)):
            for k in (0, 1):
                for r in (0, 1):
                    (folder / f"evaluations-{judge_folder}" / f"{model}__{k}__{r}.txt"
                     ).write_text(json.dumps(_scores(base + offset + k + r / 2)))
    return folder


def test_tiny_folder_by_hand(tmp_path):
    result = import_llm_dreams(make_folder(tmp_path))
    frame = result.frame
    assert len(frame) == 2 * 2 * 2 * 2 * 15  # judges x models x sets x repetitions x traits
    assert set(frame["judge"]) == {"gpt-5.5", "grok-4.3"}
    row = frame[(frame["judge"] == "grok-4.3") & (frame["model"] == "m-two")
                & (frame["meta.answer_set"] == "1") & (frame["seed"] == 1)
                & (frame["trait_id"] == "ld-creativity")]
    # grok43 base 5 + m-two 1 + set 1 + repetition 1/2 + Creativity is the 4th trait (0.3)
    assert row["score"].tolist() == [7.8]
    assert row["response_id"].tolist() == ["m-two/1"]
    assert row["prompt_id"].tolist() == ["dreams-1"]
    assert trait_id("Confidence and Self-efficacy") == "ld-confidence-and-self-efficacy"
    assert frame["trait"].str.startswith(tuple(TRAITS)).all()
    assert result.extra["windows_1252_continuations"] == 1
    assert result.extra["near_empty_continuations"] == {"m-two": 1}  # "tall—and short"
    prompts, responses = reader.load_texts(make_folder(tmp_path / "again"))
    assert prompts == {"dream001": "Opening 1.", "dream002": "Opening 2."}
    assert responses["m-two/1/dream002"] == "tall\u2014and short"


def test_cli_writes_a_scores_file_every_score_named_by_its_judge(tmp_path, monkeypatch,
                                                                  capsys):
    out = tmp_path / "scores.parquet"
    status, stdout, _ = run_main(monkeypatch, capsys, "import", "llm-dreams",
                                 str(make_folder(tmp_path)), "--out", str(out))
    assert status == 0
    assert stdout == (f"wrote {out}: 240 scores of 4 answer sets of 2 models by 2 judges\n")
    scores = read_scores([out])
    assert sorted(scores.columns["judge"].unique()) == ["gpt-5.5", "grok-4.3"]
    assert sorted(scores.columns["seed"].unique()) == [0, 1]
    assert len(scores.columns) == 2 * 15 * 2  # judge x trait x seed


@pytest.mark.parametrize(("name", "content", "expected"), [
    ("m-one__0__0.txt", "{not json", "not a JSON object of the 15 traits"),
    ("m-one__0__0.txt", json.dumps({"Creativity": 5}), "exactly the 15 trait keys"),
    ("m-one__0__0.txt", json.dumps({**_scores(1), "Creativity": 11}),
     "'Creativity': 11 is not a number from 1 to 10"),
    ("m-one__0__0.txt", json.dumps({**_scores(1), "Creativity": True}),
     "'Creativity': True is not a number"),
    ("weird.txt", "{}", "not <model>__<k>__<r>.txt"),
])
def test_a_bad_judge_file_is_one_line_naming_it(tmp_path, name, content, expected):
    folder = make_folder(tmp_path)
    path = folder / "evaluations-gpt55" / name
    path.write_text(content)
    with pytest.raises(FfsiteError, match=expected) as caught:
        import_llm_dreams(folder)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_unknown_judge_folder_and_scores_without_answers_are_refused(tmp_path):
    folder = make_folder(tmp_path)
    (folder / "evaluations-somebody").mkdir()
    with pytest.raises(FfsiteError, match="a judge folder ffsite does not know"):
        import_llm_dreams(folder)
    (folder / "evaluations-somebody").rmdir()
    (folder / "evaluations-gpt55" / "ghost__0__0.txt").write_text(json.dumps(_scores(1)))
    with pytest.raises(FfsiteError, match="judges scored 'ghost', which has no answers"):
        import_llm_dreams(folder)


# ------------------------------------------------------------------------ the real data

@pytest.fixture(scope="module")
def real(shared_data):
    started = time.process_time()  # CPU time: a loaded CI machine must not fail it
    result = import_llm_dreams(shared_data / "llm_dreams")
    return result, time.process_time() - started


def test_real_scores_equal_the_source_files_read_independently(real, shared_data):
    result, _ = real
    frame = result.frame
    assert len(frame) == 236 * 2 * 9 * 2 * 15
    assert frame.groupby("judge")["model"].nunique().eq(236).all()
    root = shared_data / "llm_dreams"
    # Every judge's mean of every trait over every file, by a plain reading of the JSON.
    for folder, judge in reader.JUDGE_FOLDERS.items():
        totals = {trait: [] for trait in TRAITS}
        for name in os.listdir(root / f"evaluations-{folder}"):
            document = json.loads((root / f"evaluations-{folder}" / name).read_text())
            for trait in TRAITS:
                totals[trait].append(document[trait])
        mine = frame[frame["judge"] == judge].groupby("trait_id")["score"].mean()
        for trait in TRAITS:
            assert mine[trait_id(trait)] == pytest.approx(np.mean(totals[trait]), abs=1e-12)


def test_real_defects_are_counted(real, shared_data):
    result, _ = real
    # ../shared/data/README.md: 14 answers under 50 bytes.
    assert sum(result.extra["near_empty_continuations"].values()) == 14
    answers = shared_data / "llm_dreams" / "answers"
    not_utf8 = 0
    for path in answers.glob("*.txt"):
        try:
            path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            not_utf8 += 1
    assert result.extra["windows_1252_continuations"] == not_utf8 > 0
    assert any("14 continuations under 50 bytes" in line for line in result.report)


def test_real_import_is_quick(real):
    _, seconds = real
    assert seconds < 5


@pytest.mark.slow  # > 3 s: a kill and resume, a real build or fit (CI runs it)
def test_scores_command_gives_the_panel_and_every_judge(shared_data, tmp_path, monkeypatch,
                                                        capsys):
    """`ffsite scores` on llm-dreams: the panel's row (judge: the panel) is the plain
    average of the source's JSON files for that model and trait, and each judge has its
    own row; intervals are the panel module's, around the mean."""
    import pandas as pd

    from ffsite.datasets.defaults import Settings
    from ffsite.datasets.llm_dreams.defaults import write_defaults

    write_defaults(shared_data / "llm_dreams", tmp_path / "ann", Settings(say=lambda _: None))
    status, out, _ = run_main(monkeypatch, capsys, "scores", str(tmp_path / "ann"),
                              "--format", "csv", "--bootstrap", "50")
    assert status == 0
    table = pd.read_csv(__import__("io").StringIO(out))
    model, trait = "anthropicclaude-opus-4.6", "Creativity"
    rows = table[(table["source_model"] == model) & (table["trait"] == trait_id(trait))]
    assert len(rows) == 10  # the panel and its nine judges
    values = [json.loads(path.read_text())[trait]
              for path in (shared_data / "llm_dreams").glob(f"evaluations-*/{model}__*__*.txt")]
    panel = rows[rows["judge"] == "llm-dreams panel"].iloc[0]
    assert len(values) == 36 and panel["mean"] == pytest.approx(np.mean(values), abs=1e-12)
    assert panel["ci_low"] < panel["mean"] < panel["ci_high"]
    assert panel["n"] == 36
