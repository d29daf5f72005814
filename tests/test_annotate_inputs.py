"""What `ffsite annotate` reads: the prompt set, --responses files, --traits files."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from annotate_helpers import REFERENCE, instructions, make_base_data, sorted_prompt_ids

from ffsite.collect.annotate.inputs import load_prompt_set, read_responses, resolve_traits
from ffsite.commands.options import error_line
from ffsite.datasets.alpaca_eval.reader import prompt_id
from ffsite.errors import FfsiteError, ParameterError
from ffsite.traits import AA30, FF_V1, PREFIX, trait_id


@pytest.fixture
def prompts(tmp_path):
    return load_prompt_set("alpaca_eval", make_base_data(tmp_path / "base", 4), REFERENCE)


def test_prompt_set_is_the_references_answers_sorted_by_id(prompts):
    assert list(prompts["prompt_id"]) == sorted_prompt_ids(4)
    first = instructions(4).index(prompts["instruction"].iloc[0])
    assert prompts["reference_output"].iloc[0] == (
        f"Reference answer number {first}, of a middling length.")


def test_unknown_reference_and_prompt_set_are_refused(tmp_path):
    base = make_base_data(tmp_path / "base", 2)
    with pytest.raises(FfsiteError, match="--reference nobody: no answers of that model"):
        load_prompt_set("alpaca_eval", base, "nobody")
    # The library names its parameter; the CLI words it as the flag.
    with pytest.raises(ParameterError) as caught:
        load_prompt_set("hh_rlhf", base, REFERENCE)
    assert caught.value.param == "prompts"
    assert error_line(caught.value).startswith("--prompts hh_rlhf: not a prompt set")
    with pytest.raises(FfsiteError, match="no base data"):
        load_prompt_set("alpaca_eval", None, REFERENCE)


def test_responses_by_text_or_id_in_json_jsonl_parquet(tmp_path, prompts):
    texts = instructions(4)
    (tmp_path / "r.json").write_text(json.dumps(
        [{"instruction": t, "output": f"o{i}"} for i, t in enumerate(texts)]))
    (tmp_path / "r.jsonl").write_text("".join(
        json.dumps({"prompt": t, "response": f"o{i}"}) + "\n" for i, t in enumerate(texts)))
    pd.DataFrame({"prompt_id": [prompt_id(t) for t in texts],
                  "response": [f"o{i}" for i in range(4)]}).to_parquet(tmp_path / "r.parquet")
    expected = {prompt_id(t): f"o{i}" for i, t in enumerate(texts)}
    for name in ("r.json", "r.jsonl", "r.parquet"):
        assert read_responses(tmp_path / name, prompts).to_dict() == expected


@pytest.mark.parametrize("records, message", [
    ([{"instruction": "Not one of ours", "output": "x"}],
     "row 0: prompt 'Not one of ours' is not in the prompt set"),
    ([{"instruction": "Question 1: tell me about topic 1.", "output": "x"},
      {"instruction": "Question 1: tell me about topic 1.", "output": "y"}],
     "row 1: a second response to prompt"),
    ([{"instruction": "Question 1: tell me about topic 1.", "output": None}],
     "row 0: field 'output' is not text"),
    ([{"question": "Question 1: tell me about topic 1.", "answer": "x"}],
     "each record needs a response"),
])
def test_bad_responses_name_the_row(tmp_path, prompts, records, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(records))
    with pytest.raises(FfsiteError, match=message) as caught:
        read_responses(path, prompts)
    assert str(caught.value).startswith(str(path)) and "\n" not in str(caught.value)


def test_trait_lists(tmp_path):
    assert resolve_traits("v1") == FF_V1 and resolve_traits("aa30") == AA30
    (tmp_path / "mine.txt").write_text("# my traits\nis more verbose\n\nSelect the response "
                                       "that rhymes more\n")
    verbose, rhymes = resolve_traits(str(tmp_path / "mine.txt"))
    assert verbose == next(t for t in FF_V1 if t.short == "is more verbose")  # FF's own id
    assert rhymes.wording == PREFIX + "rhymes more" and rhymes.trait_set == "mine"
    assert rhymes.id == trait_id(PREFIX + "rhymes more")
    (tmp_path / "list.json").write_text(json.dumps(["uses more emojis"]))
    assert [t.short for t in resolve_traits(str(tmp_path / "list.json"))] == ["uses more emojis"]
    (tmp_path / "twice.txt").write_text("is more verbose\nSelect the response that is more "
                                        "verbose\n")
    with pytest.raises(FfsiteError, match="trait 2 repeats trait 1"):
        resolve_traits(str(tmp_path / "twice.txt"))
    with pytest.raises(FfsiteError, match="not v1, aa30 or a readable file"):
        resolve_traits("v2")
