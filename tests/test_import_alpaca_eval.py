"""`ffsite import alpaca-eval`: hand-checked on a tiny folder, counted on the real data."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from helpers import run_here
from tiny_base import INSTRUCTIONS, OUTPUTS, REFERENCE, write_alpaca_eval

from ffsite.datasets.alpaca_eval.importer import import_alpaca_eval
from ffsite.format.read import read_annotations

REPO = Path(__file__).resolve().parents[1]


def prompt_id(instruction: str) -> str:
    return "ae-" + hashlib.sha256(instruction.encode()).hexdigest()[:12]


def model_is_b(seed: int, comparison_id: str) -> bool:
    """The documented coin flip, recomputed: lowest bit of SHA-256('<seed>:<id>')[0]."""
    return bool(hashlib.sha256(f"{seed}:{comparison_id}".encode()).digest()[0] & 1)


def imported(folder: Path, out: Path, seed: int) -> dict[tuple[str, str], dict]:
    """Run the real command; return the rows keyed by (model, instruction)."""
    result = run_here("import", "alpaca-eval", str(folder), "--out", str(out), "--seed",
                      str(seed), cwd=REPO)
    assert result.returncode == 0, result.stderr
    annotations = read_annotations([out])
    rows = annotations.comparisons.astype(object).to_dict("records")
    votes = annotations.votes
    judges = annotations.annotators["judge"].to_numpy()
    by_instruction = {prompt_id(i): i for i in INSTRUCTIONS}
    found = {}
    for code, row in enumerate(rows):
        model = row["model_b"] if row["model_a"] == REFERENCE else row["model_a"]
        mine = votes[votes["comparison"] == code]
        assert len(mine) == 1
        row["vote_code"] = int(mine["vote"].iloc[0])
        row["judge"] = judges[mine["annotator"].iloc[0]]
        found[(model, by_instruction[row["prompt_id"]])] = row
    return found


@pytest.mark.parametrize("seed", [0, 2])  # seed 0 keeps every model on A here; 2 mixes
def test_tiny_folder_by_hand(tmp_path, seed):
    rows = imported(write_alpaca_eval(tmp_path), tmp_path / "prefs.parquet", seed)
    # wordy never answered "Say hello.", and the reference is not compared with itself.
    assert sorted(rows) == sorted([("wordy", i) for i in OUTPUTS["wordy"]]
                                  + [("terse", i) for i in OUTPUTS["terse"]])
    sides_seen = set()
    for (model, instruction), row in rows.items():
        pid = prompt_id(instruction)
        cid = f"{pid}:{model}:{REFERENCE}"
        assert row["comparison_id"] == cid and row["prompt_id"] == pid
        on_b = model_is_b(seed, cid)
        sides_seen.add(on_b)
        assert (row["model_a"], row["model_b"]) == ((REFERENCE, model) if on_b
                                                    else (model, REFERENCE))
        model_response, reference_response = f"{model}/{pid}", f"{REFERENCE}/{pid}"
        assert (row["response_a_id"], row["response_b_id"]) == (
            (reference_response, model_response) if on_b
            else (model_response, reference_response))
        assert row["meta.subset"] == INSTRUCTIONS[instruction]
        assert row["judge"] == "weighted_alpaca_eval_gpt4_turbo"
    assert sides_seen == ({False} if seed == 0 else {True, False})

    model_side = {(m, i): 2 if model_is_b(seed, f"{prompt_id(i)}:{m}:{REFERENCE}") else 1
                  for (m, i) in rows}
    A_OR_B = {1: 2, 2: 1}  # the other side
    expected = {
        ("wordy", "Name a colour."): model_side[("wordy", "Name a colour.")],  # 1.9
        ("wordy", "Explain rain."): 3,  # exactly 1.5: tie
        ("wordy", "List three fruits."): A_OR_B[model_side[("wordy", "List three fruits.")]],
        ("terse", "Name a colour."): A_OR_B[model_side[("terse", "Name a colour.")]],  # 1.49999
        ("terse", "Explain rain."): 6,  # never judged: missing
        ("terse", "List three fruits."): 6,
        ("terse", "Say hello."): 6,
    }
    assert {key: row["vote_code"] for key, row in rows.items()} == expected


def test_files_hold_no_text(tmp_path):
    import pyarrow.parquet as pq

    out = tmp_path / "prefs.parquet"
    imported(write_alpaca_eval(tmp_path), out, 0)
    values = set()
    for column in pq.read_table(out).to_pylist():
        values.update(v for v in column.values() if isinstance(v, str))
    texts = {t for answers in OUTPUTS.values() for t in answers.values()} | set(INSTRUCTIONS)
    assert not values & texts


def test_unknown_reference_is_a_clear_error(tmp_path):
    result = run_here("import", "alpaca-eval", str(write_alpaca_eval(tmp_path)), "--reference",
                      "nobody", "--out", str(tmp_path / "x.parquet"), cwd=REPO)
    assert result.returncode == 1
    assert result.stderr.startswith("error: --reference nobody: no outputs of that model")
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x.parquet").exists()


@pytest.fixture(scope="module")
def real_import(shared_data):
    """All of the real AlpacaEval data imported once (reference gpt4_1106_preview, seed 0:
    the defaults) for the tests that read it."""
    return import_alpaca_eval(shared_data / "alpaca_eval", reference="gpt4_1106_preview",
                              seed=0)


@pytest.mark.slow  # imports all of the real AlpacaEval data
def test_real_data_counts(shared_data, real_import):
    folder = shared_data / "alpaca_eval"
    result = real_import
    table = result.table
    # Independently: every other model's instructions that the reference also answered,
    # both answers non-empty (a comparison with an empty one is left out).
    answered = {}
    for path in sorted((folder / "model_outputs").glob("*.json")):
        records = json.loads(path.read_text())
        answered[records[0]["generator"]] = {r["instruction"]: (r["output"] or "").strip()
                                             for r in records}
    reference = answered.pop("gpt4_1106_preview")
    assert len(answered) == 66

    def both(model: str, instruction: str) -> bool:
        return bool(answered[model].get(instruction)) and bool(reference.get(instruction))

    assert len(table) == table["comparison_id"].nunique() == sum(
        both(model, i) for model, own in answered.items() for i in own if i in reference)
    # The judge's verdicts, counted from the raw files (the reference's self-match left out).
    wins = losses = ties = 0
    for path in sorted((folder / "judge_annotations").glob("*.json")):
        for record in json.loads(path.read_text()):
            if record["generator_2"] == "gpt4_1106_preview" or not both(
                    record["generator_2"], record["instruction"]):
                continue
            p = record["preference"]
            wins, losses, ties = wins + (p > 1.5), losses + (p < 1.5), ties + (p == 1.5)
    model_side = (table["model_a"] == "gpt4_1106_preview").map({True: "B", False: "A"})
    decided = table["vote"].isin(["A", "B"])
    assert int((decided & (table["vote"] == model_side)).sum()) == wins
    assert int((decided & (table["vote"] != model_side)).sum()) == losses
    assert int((table["vote"] == "tie").sum()) == ties
    assert int((table["vote"] == "missing").sum()) == len(table) - wins - losses - ties
    assert set(table["meta.subset"]) == {"helpful_base", "koala", "oasst", "selfinstruct",
                                         "vicuna"}
    assert result.annotators == {
        "weighted_alpaca_eval_gpt4_turbo": "AlpacaEval 2.0 judge (GPT-4 Turbo), AI feedback"}
    # Model names are AlpacaEval's generator names, unchanged (one differs from its file).
    assert "yi-large-preview-verified" in set(table["model_a"]) | set(table["model_b"])


def test_a_comparison_with_an_empty_answer_is_left_out_and_counted(tmp_path):
    """Issue 23: an empty answer says nothing about a trait or a preference.  One model's
    answer emptied (a judged one): its comparison leaves the import with its judge
    annotation, counted once under its own reason, never as "without both outputs"."""
    from ffsite.datasets.alpaca_eval import reader
    from ffsite.datasets.alpaca_eval.importer import (
        EMPTY,
        model_pairs,
        preference_votes,
        without_empty_answers,
    )

    root = write_alpaca_eval(tmp_path)
    outputs = reader.load_outputs(root)
    judged = reader.load_judge_annotations(root)
    full = preference_votes(outputs, judged, reference=REFERENCE, seed=0)
    key = judged[judged["model"] != REFERENCE].iloc[0][["model", "prompt_id"]]
    row = (outputs["model"] == key["model"]) & (outputs["prompt_id"] == key["prompt_id"])
    emptied = outputs.assign(output=outputs["output"].where(~row, "  \n"))
    result = preference_votes(emptied, judged, reference=REFERENCE, seed=0)
    comparisons = result.table.drop_duplicates("comparison_id")
    assert len(comparisons) == len(full.table.drop_duplicates("comparison_id")) - 1
    gone = emptied.loc[row, "response_id"].iloc[0]
    assert gone not in set(comparisons["response_a_id"]) | set(comparisons["response_b_id"])
    assert result.skipped[EMPTY] == 1
    assert result.skipped.get("judge annotations without both outputs", 0) == \
        full.skipped.get("judge annotations without both outputs", 0)
    pairs, dropped = without_empty_answers(
        model_pairs(emptied, reference=REFERENCE, seed=0, n_prompts=10), emptied)
    assert gone not in set(pairs["response_a_id"]) | set(pairs["response_b_id"])
    assert dropped == len(model_pairs(emptied, reference=REFERENCE, seed=0, n_prompts=10)) \
        - len(pairs)


@pytest.mark.slow  # > 3 s: a kill and resume, a real build or fit (CI runs it)
def test_real_data_leaves_out_the_25_empty_answers(real_import):
    from ffsite.datasets.alpaca_eval.importer import EMPTY

    assert real_import.skipped[EMPTY] == 25  # ../shared/data/README.md: 22 of gemma-2b-it
