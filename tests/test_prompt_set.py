"""The prompt set `ffsite annotate` is given (`ffsite.datasets.prompt_set.PromptSet`): built
for AlpacaEval by its base module; annotate takes ids and metadata from it alone."""

from __future__ import annotations

import pandas as pd
from annotate_helpers import REFERENCE, instructions, make_base_data, sorted_prompt_ids

from ffsite.collect.annotate.votes import comparisons
from ffsite.datasets.alpaca_eval import reader as alpaca_eval
from ffsite.datasets.prompt_set import PromptSet
from ffsite.sides import swapped


def test_alpaca_eval_prompt_set(tmp_path):
    prompts = alpaca_eval.prompt_set(make_base_data(tmp_path, 4) / "alpaca_eval", REFERENCE)
    assert (prompts.dataset, prompts.reference, prompts.meta) == ("alpaca_eval", REFERENCE,
                                                                  ("subset",))
    assert list(prompts["prompt_id"]) == sorted_prompt_ids(4) and len(prompts) == 4
    first = prompts.head(1).table.iloc[0].to_dict()
    assert prompts.answer_record("m", first, "Hi") == {
        "dataset": first["subset"], "instruction": first["instruction"], "output": "Hi",
        "generator": "m"}  # a record of model_outputs/<model>.json
    kept = prompts.where(prompts["instruction"] == instructions(4)[2])
    assert list(kept["instruction"]) == [instructions(4)[2]] and len(prompts) == 4


def test_comparisons_take_names_from_the_prompt_set():
    prompts = PromptSet(
        dataset="quiz", reference="teacher",
        table=pd.DataFrame({"prompt_id": ["q1", "q2"], "instruction": ["1+1?", "2+2?"],
                            "reference_output": ["2", "4"], "level": ["easy", "hard"]}),
        meta=("level",), prompt_id=lambda text: "q-" + text,
        response_id=lambda model, prompt: f"{prompt}@{model}",
        comparison_id=lambda prompt, model, reference: f"{prompt}|{model}|{reference}",
        answer_record=lambda model, prompt, output: {"model": model, "answer": output})
    table = comparisons(prompts, "student", seed=0)
    assert list(table["dataset"]) == ["quiz", "quiz"]
    assert list(table["comparison_id"]) == ["q1|student|teacher", "q2|student|teacher"]
    assert list(table["meta.level"]) == ["easy", "hard"]
    flip = swapped(table["comparison_id"], 0)
    for row, on_b in zip(table.itertuples(), flip, strict=True):
        own, theirs = f"{row.prompt_id}@student", f"{row.prompt_id}@teacher"
        assert (row.response_a_id, row.response_b_id) == ((theirs, own) if on_b else
                                                         (own, theirs))
        assert row.model_on_b == on_b
