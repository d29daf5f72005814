"""AlpacaEval 2.0 to a votes file: every model against the reference model.

One comparison per (model, instruction) that both the model and the reference answered.
Which side is A is a seeded coin flip per comparison (`ffsite.sides`).  The
AlpacaEval judge's preference becomes a preference vote: below 1.5 the reference, above
1.5 the model, exactly 1.5 a tie.  A comparison the judge never saw (AlpacaEval judged
only some models) still needs a row, since a votes file holds comparisons through their
votes: it gets a "missing" vote from the judge, which no metric counts as a preference.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite.datasets.alpaca_eval import reader as alpaca_eval
from ffsite.errors import FfsiteError
from ffsite.format import schema
from ffsite.importers.result import ImportResult
from ffsite.sides import assign_sides, swapped

DEFAULT_JUDGE = "weighted_alpaca_eval_gpt4_turbo"  # AlpacaEval 2.0's default annotator
JUDGE_DESCRIPTIONS = {DEFAULT_JUDGE: "AlpacaEval 2.0 judge (GPT-4 Turbo), AI feedback"}
NOTE_NOT_JUDGED = "the AlpacaEval judge did not annotate this comparison"
NOTE_BAD_PREFERENCE = "AlpacaEval preference is not a number in [1, 2]"
EMPTY = "comparisons with an empty answer"


def describe_judge(judge: str) -> str:
    return JUDGE_DESCRIPTIONS.get(judge, f"AlpacaEval judge {judge}, AI feedback")


def import_alpaca_eval(folder: str | os.PathLike, *, reference: str = alpaca_eval.REFERENCE_MODEL,
                       seed: int = 0) -> ImportResult:
    """Comparisons of every other model with `reference`, plus the judge's preferences."""
    folder = Path(folder)
    return preference_votes(alpaca_eval.load_outputs(folder),
                            alpaca_eval.load_judge_annotations(folder),
                            reference=reference, seed=seed)


def preference_votes(outputs: pd.DataFrame, judged: pd.DataFrame, *, reference: str,
                     seed: int) -> ImportResult:
    """`import_alpaca_eval` on loaded outputs and judge annotations."""
    pairs, empty = reference_pairs(outputs, reference)
    judged = judged[judged["model"] != judged["reference"]]
    off_reference = int((judged["reference"] != reference).sum())
    judged = judged[judged["reference"] == reference]
    repeated = judged.duplicated(["model", "prompt_id"])
    judged = judged[~repeated]  # an instruction judged twice for one model: the first counts
    # Judge annotations of the comparisons left out with an empty answer go with them.
    on_empty = len(judged.merge(empty, on=["model", "prompt_id"])) if len(empty) else 0
    pairs = pairs.merge(judged[["model", "prompt_id", "preference", "annotator"]],
                        on=["model", "prompt_id"], how="left", validate="one_to_one")
    unmatched = len(judged) - int(pairs["annotator"].notna().sum()) - on_empty

    swap = swapped(pairs["comparison_id"], seed)
    model_a, model_b = assign_sides(pairs["model"].to_numpy(object), reference, swap)
    response_a, response_b = assign_sides(pairs["response_id"].to_numpy(object),
                                          pairs["reference_response_id"].to_numpy(object), swap)
    vote, note = _preference_votes(pairs["preference"], pairs["annotator"].isna().to_numpy(),
                                   swap)
    judges = judged["annotator"].value_counts()
    main_judge = str(judges.index[0]) if len(judges) else DEFAULT_JUDGE
    table = pd.DataFrame({
        "dataset": alpaca_eval.NAME,
        "comparison_id": pairs["comparison_id"],
        "prompt_id": pairs["prompt_id"],
        "model_a": model_a, "model_b": model_b,
        "response_a_id": response_a, "response_b_id": response_b,
        "role": schema.ROLE_PREFERENCE,
        "judge": pairs["annotator"].fillna(main_judge).astype(str),
        "trait_id": None, "trait": None, "trait_set": None, "seed": None,
        "vote": vote, "note": note,
        schema.META_PREFIX + "subset": pairs["subset"],
    })
    skipped = {"judge annotations against another reference": off_reference,
               "judge annotations without both outputs": unmatched,
               "repeated judge annotations": int(repeated.sum()),
               EMPTY: len(empty)}
    used = sorted(table["judge"].unique())
    return ImportResult(table=table, default_preference={alpaca_eval.NAME: main_judge},
                        annotators={judge: describe_judge(judge) for judge in used},
                        skipped={why: n for why, n in skipped.items() if n},
                        dataset=alpaca_eval.NAME)


def reference_pairs(outputs: pd.DataFrame, reference: str
                    ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One row per (model, prompt) answered by both the model and `reference`, and the
    (model, prompt_id) pairs left out because one of the two answers is empty.

    Columns: comparison_id, prompt_id, model, response_id, reference_response_id, subset.
    """
    models = sorted(outputs["model"].unique())
    if reference not in models:
        raise FfsiteError(f"--reference {reference}: no outputs of that model in "
                          f"{alpaca_eval.OUTPUTS_DIR}/; known models: " + ", ".join(models[:12])
                          + (" ..." if len(models) > 12 else ""))
    answers = outputs[outputs["model"] == reference][["prompt_id", "response_id", "output"]]
    pairs = outputs[outputs["model"] != reference].merge(
        answers.rename(columns={"response_id": "reference_response_id",
                                "output": "reference_output"}), on="prompt_id")
    empty = is_empty(pairs["output"]) | is_empty(pairs["reference_output"])
    dropped = pairs.loc[empty, ["model", "prompt_id"]]
    pairs = pairs[~empty]
    if pairs.empty:
        raise FfsiteError(f"no model besides the reference '{reference}' answered the same "
                          "instructions; add more model outputs")
    pairs["comparison_id"] = [alpaca_eval.comparison_id(p, m, reference)
                              for p, m in zip(pairs["prompt_id"], pairs["model"], strict=True)]
    return pairs[["comparison_id", "prompt_id", "model", "response_id",
                  "reference_response_id", "subset"]], dropped


def without_empty_answers(pairs: pd.DataFrame, outputs: pd.DataFrame
                          ) -> tuple[pd.DataFrame, int]:
    """`pairs` (comparison rows) without those where either answer is empty, and how many
    those were."""
    empty = set(outputs.loc[is_empty(outputs["output"]), "response_id"])
    dropped = (pairs["response_a_id"].isin(empty) | pairs["response_b_id"].isin(empty)
               ).to_numpy()
    return pairs[~dropped].reset_index(drop=True), int(dropped.sum())


def is_empty(answers: pd.Series) -> np.ndarray:
    """Answers with nothing in them but white space (25 in AlpacaEval, 22 of gemma-2b-it's):
    a comparison with one says nothing about a trait or a preference."""
    return (answers.fillna("").astype(str).str.strip() == "").to_numpy()


def _preference_votes(preference: pd.Series, not_judged: np.ndarray, swap: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """(vote, note) per comparison from AlpacaEval's preference in [1, 2]."""
    value = pd.to_numeric(preference, errors="coerce").to_numpy(float)
    model_side = np.where(swap, "B", "A")
    reference_side = np.where(swap, "A", "B")
    vote = np.where(value > 1.5, model_side, np.where(value < 1.5, reference_side, "tie"))
    valid = (value >= 1) & (value <= 2)
    vote = np.where(valid, vote, np.where(not_judged, "missing", "invalid")).astype(object)
    note = np.where(valid, None, np.where(not_judged, NOTE_NOT_JUDGED, NOTE_BAD_PREFERENCE))
    return vote, note.astype(object)


def model_pairs(outputs: pd.DataFrame, *, reference: str, seed: int, n_prompts: int
                ) -> pd.DataFrame:
    """Sampled comparisons between two non-reference models on the same instruction.

    `n_prompts` instructions are drawn at random (seeded); on each, the models that
    answered it are shuffled and paired off, so every model meets a random partner on
    every drawn instruction.  Together with the comparisons against the reference these
    tie all models into one graph, which per-trait ratings need.  One row per comparison:
    the comparison columns and meta.subset; sides by the same coin flip as the import.
    """
    rng = np.random.default_rng(seed)
    others = outputs[outputs["model"] != reference]
    prompts = np.array(sorted(others["prompt_id"].unique()), dtype=object)
    drawn = sorted(rng.choice(prompts, size=min(n_prompts, len(prompts)), replace=False))
    by_prompt = others[others["prompt_id"].isin(drawn)].groupby("prompt_id", sort=True)
    first, second, prompt_of = [], [], []
    for prompt, answers in by_prompt:  # one draw per instruction, not per vote
        shuffled = rng.permutation(np.array(sorted(answers["model"]), dtype=object))
        pairs = shuffled[:len(shuffled) // 2 * 2].reshape(-1, 2)
        pairs.sort(axis=1)  # ids name the two models in sorted order
        first.extend(pairs[:, 0])
        second.extend(pairs[:, 1])
        prompt_of.extend([prompt] * len(pairs))
    frame = pd.DataFrame({"prompt_id": prompt_of, "first": first, "second": second})
    ids = [alpaca_eval.comparison_id(p, m, o)
           for p, m, o in zip(frame["prompt_id"], frame["first"], frame["second"], strict=True)]
    swap = swapped(ids, seed)
    model_a, model_b = assign_sides(frame["first"].to_numpy(object),
                                    frame["second"].to_numpy(object), swap)
    subset = outputs.drop_duplicates("prompt_id").set_index("prompt_id")["subset"]
    return pd.DataFrame({
        "dataset": alpaca_eval.NAME, "comparison_id": ids, "prompt_id": frame["prompt_id"],
        "model_a": model_a, "model_b": model_b,
        "response_a_id": [alpaca_eval.response_id(m, p)
                          for m, p in zip(model_a, frame["prompt_id"], strict=True)],
        "response_b_id": [alpaca_eval.response_id(m, p)
                          for m, p in zip(model_b, frame["prompt_id"], strict=True)],
        schema.META_PREFIX + "subset": subset.reindex(frame["prompt_id"]).to_numpy(),
    })
