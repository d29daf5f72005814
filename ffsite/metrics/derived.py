"""Pairwise votes derived from judge scores (docs/format.md, "Votes derived from scores").

When every model answered the same prompts and a judge scored every answer, two models'
answers to one prompt make a comparison, and the scores say which side shows a trait
more: the higher score wins the trait (vote A or B), equal scores are a tie, which the
Feedback Forensics metrics count as "not relevant".  A model's several scores on one
answer (several seeds) are averaged first.

These votes are ours, not the judge's: the judge never saw the two answers side by side.
Their annotator is named `<judge> (derived from scores)` and their trait set
`<set> (derived)`, so every table and download that shows them says so.  They feed the
strength of each model against the others and the Bradley-Terry ratings, exactly as
judged votes do.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ffsite.format import Scores, schema
from ffsite.format.read import Annotations
from ffsite.models import Registry

DERIVED = " (derived from scores)"
CONDITION_COLUMN = schema.META_PREFIX + "condition"


def derived_judge(judge: str) -> str:
    return judge + DERIVED


def derive_votes(scores: Scores, registry: Registry | None = None, *,
                 condition: str | None = None) -> Annotations:
    """Every pair of models on every prompt they both answered, per dataset and
    condition (only `condition` when given), with one vote per scored trait and judge.

    Models are named by their registry id; side A is the first by id.
    """
    registry = registry or Registry()
    responses = scores.responses
    model = registry.ids(responses["dataset"], responses["model"])
    conditions = responses["condition"].fillna("").to_numpy(object)
    keep = pd.notna(model)
    if condition is not None:
        keep &= conditions == condition
    entries = scores.columns
    annotators = pd.DataFrame({
        "role": schema.ROLE_TRAIT,
        "judge": entries["judge"].map(derived_judge).to_numpy(object),
        "trait_id": entries["trait_id"].to_numpy(object),
        "trait": entries["trait"].to_numpy(object),
        "trait_set": (entries["trait_set"].fillna("scores") + " (derived)").to_numpy(object),
    })
    # One annotator per (judge, trait): seeds were averaged into one score.
    annotator_code, annotators = _unique_rows(annotators)

    comparisons, votes = [], []
    n_comparisons = 0
    frame = responses.assign(_model=model, _condition=conditions)[keep]
    for (dataset, cond), group in frame.groupby(["dataset", "_condition"], sort=True):
        block = _pairs(scores, group, annotator_code, len(annotators), dataset, cond)
        if block is None:
            continue
        table, vote_frame = block
        vote_frame["comparison"] += n_comparisons
        n_comparisons += len(table)
        comparisons.append(table)
        votes.append(vote_frame)
    if not comparisons:
        comparisons = [pd.DataFrame(columns=[*schema.COMPARISON_COLUMNS, CONDITION_COLUMN])]
        votes = [pd.DataFrame({"comparison": np.zeros(0, np.int32),
                               "annotator": np.zeros(0, np.int32),
                               "vote": np.zeros(0, np.int8)})]
    table = pd.concat(comparisons, ignore_index=True)
    for name in table.columns:
        table[name] = table[name].astype("category")
    return Annotations(comparisons=table, annotators=annotators,
                       votes=pd.concat(votes, ignore_index=True))


def _unique_rows(frame: pd.DataFrame) -> tuple[np.ndarray, pd.DataFrame]:
    codes, _ = pd.factorize(pd.MultiIndex.from_frame(frame[["judge", "trait_id"]]))
    unique = frame.drop_duplicates(["judge", "trait_id"]).reset_index(drop=True)
    return codes.astype(np.int64), unique


def _pairs(scores: Scores, group: pd.DataFrame, annotator_code: np.ndarray,
           n_annotators: int, dataset: str, condition: str
           ) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """Comparisons and votes of one dataset and condition."""
    model_code, models = pd.factorize(group["_model"], sort=True)
    prompt_code, prompts = pd.factorize(group["prompt_id"].fillna(""), sort=True)
    n_models, n_prompts = len(models), len(prompts)
    if n_models < 2:
        return None
    # Where each response of the group sits in the models x prompts grid.
    slot = np.full(len(scores.responses), -1, dtype=np.int64)
    slot[group.index.to_numpy()] = model_code * n_prompts + prompt_code
    answered = np.zeros(n_models * n_prompts, dtype=bool)
    answered[slot[group.index.to_numpy()]] = True
    answered = answered.reshape(n_models, n_prompts)

    # Mean score per (annotator, model, prompt): NaN where there is none.
    in_group = slot[scores.response] >= 0
    cell = annotator_code[scores.column[in_group]] * (n_models * n_prompts) + slot[
        scores.response[in_group]]
    size = n_annotators * n_models * n_prompts
    total = np.bincount(cell, scores.value[in_group], size)
    count = np.bincount(cell, minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (total / count).reshape(n_annotators, n_models, n_prompts)

    first, second = np.triu_indices(n_models, 1)
    both = answered[first] & answered[second]  # [pairs, prompts]
    pair, prompt = np.nonzero(both)
    a, b = first[pair], second[pair]
    model_names = np.asarray(models, dtype=object)
    prompt_names = np.asarray(prompts, dtype=object)
    ids = pd.Series(prompt_names[prompt]).str.cat(
        [pd.Series(model_names[a]), pd.Series(model_names[b])], sep="/")
    if condition:
        ids = condition + "/" + ids
    meta = _prompt_metadata(group, prompt_code, len(prompts))
    table = pd.DataFrame({
        "dataset": dataset, "comparison_id": ids.to_numpy(object),
        "prompt_id": prompt_names[prompt], "model_a": model_names[a],
        "model_b": model_names[b], "response_a_id": None, "response_b_id": None,
        CONDITION_COLUMN: condition or None,
        **{name: values[prompt] for name, values in meta.items()},
    })
    # Votes: [annotators, comparisons] from the score difference; NaN -> no vote.
    difference = mean[:, a, prompt] - mean[:, b, prompt]
    code = np.select([difference > 0, difference < 0, difference == 0],
                     [schema.A, schema.B, schema.TIE], 0).astype(np.int8)
    comparison, annotator = np.nonzero(code.T)  # comparison-major, as files are
    votes = pd.DataFrame({"comparison": comparison.astype(np.int32),
                          "annotator": annotator.astype(np.int32),
                          "vote": code.T[comparison, annotator]})
    return table, votes


def _prompt_metadata(group: pd.DataFrame, prompt_code: np.ndarray, n_prompts: int
                     ) -> dict[str, np.ndarray]:
    """Each `meta.*` column's value per prompt (the first response's; a prompt's
    metadata, such as its suite, is the same for every model)."""
    first = np.full(n_prompts, -1, dtype=np.int64)
    order = np.arange(len(group))[::-1]
    first[prompt_code[order]] = order  # the last write wins: the first row
    return {name: group[name].to_numpy(object)[first] for name in group.columns
            if name.startswith(schema.META_PREFIX)}
