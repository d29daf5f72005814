"""Run a judge without an API (the rules) and the communication traits over a dataset.

Texts come from the base data; what is written holds ids, votes and numbers only.  Each
distinct response is measured once (`rules.response_features`, which includes the 21
communication traits); the rules then decide every comparison with array operations.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from ffsite.datasets import folder as registry
from ffsite.errors import FfsiteError, ParameterError
from ffsite.format import schema
from ffsite.format.encode import encode_votes
from ffsite.format.read import find_annotation_files, read_annotations, read_file_metadata
from ffsite.format.write import write_response_metrics, write_votes
from ffsite.judges import rules
from ffsite.judges.communication import COMMUNICATION_TRAITS
from ffsite.judges.judge import Judge, Pairs, Votes


def measure(response_ids: Iterable[str], texts: Mapping[str, str]) -> pd.DataFrame:
    """`rules.response_features` of each distinct response, indexed by response id."""
    ids = sorted(set(response_ids))
    features = rules.response_features([texts[i] for i in ids])
    features.index = pd.Index(ids, name="response_id")
    return features


def rule_votes(comparisons: pd.DataFrame, features: pd.DataFrame) -> pa.Table:
    """The rules judge's votes on `comparisons` (one row each: the comparison columns and
    any meta.* columns), as a votes table.  Every response must be in `features`."""
    judge = rules.RulesJudge()
    votes = judge.votes_on(
        features.loc[comparisons["response_a_id"]].reset_index(drop=True),
        features.loc[comparisons["response_b_id"]].reset_index(drop=True))
    return votes_table(comparisons, judge, votes)


def votes_table(comparisons: pd.DataFrame, judge: Judge, votes: Votes) -> pa.Table:
    """`judge`'s votes on `comparisons` (`votes.rows` index them) as a votes table."""
    traits = judge.traits
    annotators = pd.DataFrame({
        "role": schema.ROLE_TRAIT, "judge": judge.id,
        "trait_id": [t.id for t in traits], "trait": [t.wording for t in traits],
        "trait_set": [t.trait_set for t in traits]})
    codes = pd.Series(np.asarray(votes.votes, object).reshape(-1)).map(
        schema.VOTE_CODES).to_numpy()
    if np.isnan(codes).any():
        raise ValueError(f"judge {judge.id} returned a value that is not a vote")
    n_traits = len(traits)
    return encode_votes(comparisons.reset_index(drop=True), annotators,
                        np.repeat(np.asarray(votes.rows, np.int64), n_traits),
                        np.tile(np.arange(n_traits), len(votes.rows)),
                        codes.astype(np.int8))


def communication_rows(responses: pd.DataFrame, features: pd.DataFrame) -> pd.DataFrame:
    """Response-metrics rows: dataset, response_id, prompt_id, model + the 21 traits."""
    numbers = features.loc[responses["response_id"], list(COMMUNICATION_TRAITS)]
    ids = responses[list(schema.RESPONSE_ID_COLUMNS)].reset_index(drop=True)
    return pd.concat([ids, numbers.reset_index(drop=True)], axis=1)


def dataset_comparisons(paths: Iterable[str | os.PathLike], dataset: str) -> pd.DataFrame:
    """One row per comparison of `dataset` in the annotation files: the comparison columns
    and the meta.* columns that have a value in this dataset."""
    comparisons = read_annotations(paths).comparisons
    found = comparisons[comparisons["dataset"] == dataset]
    if found.empty:
        raise FfsiteError(f"dataset '{dataset}' has no comparisons in the given annotation "
                          "files; import it first (ffsite import ...)")
    found = found.astype(object).where(found.notna(), None)
    meta = [c for c in found.columns if c.startswith(schema.META_PREFIX)
            and found[c].notna().any()]
    return found[[*schema.COMPARISON_COLUMNS, *meta]].reset_index(drop=True)


def dataset_responses(comparisons: pd.DataFrame) -> pd.DataFrame:
    """The distinct responses of comparisons: dataset, response_id, prompt_id, model."""
    sides = [comparisons[["dataset", f"response_{s}_id", "prompt_id", f"model_{s}"]].set_axis(
        list(schema.RESPONSE_ID_COLUMNS), axis=1) for s in ("a", "b")]
    responses = pd.concat(sides, ignore_index=True).dropna(subset=["response_id"])
    return (responses.drop_duplicates("response_id").sort_values("response_id")
            .reset_index(drop=True))


def _texts(base_dir: str | os.PathLike | None, dataset: str
           ) -> tuple[Mapping[str, str], Mapping[str, str]]:
    """(prompts, responses) of `dataset`, keyed by id."""
    folder = registry.base_dir(base_dir)
    found = registry.load_texts(folder, dataset)
    if found is None:
        where = f"in {folder}" if folder else "(no base-data folder given)"
        raise ParameterError(f"base dataset {dataset} not available {where}; run ffsite fetch "
                             f"{dataset}, or pass {{base_dir}} DIR / set {registry.ENV}",
                             "base_dir")
    return found


def _with_texts(comparisons: pd.DataFrame, texts: Mapping[str, str]
                ) -> tuple[pd.DataFrame, int]:
    """The comparisons whose two responses have texts, and how many lacked them."""
    known = (comparisons["response_a_id"].isin(texts.keys())
             & comparisons["response_b_id"].isin(texts.keys()))
    return comparisons[known].reset_index(drop=True), int((~known).sum())


def judged_elsewhere(paths: Iterable[str | os.PathLike], dataset: str,
                     out: str | os.PathLike, judge_id: str) -> set[str]:
    """Ids of `dataset`'s comparisons that files other than `out` already hold votes of
    judge `judge_id` for (e.g. annotations/alpaca_eval/model-pairs.parquet)."""
    target = Path(out).resolve()
    found: set[str] = set()
    for path in find_annotation_files(paths):
        if path.resolve() == target or read_file_metadata(path).get("kind") != schema.KIND_VOTES:
            continue
        annotations = read_annotations([path])
        is_judge = (annotations.annotators["judge"] == judge_id).to_numpy()
        voted = np.unique(annotations.votes["comparison"].to_numpy()[
            is_judge[annotations.votes["annotator"].to_numpy()]])
        comparisons = annotations.comparisons.iloc[voted]
        found.update(comparisons.loc[comparisons["dataset"] == dataset, "comparison_id"])
    return found


def annotate_dataset(paths: Iterable[str | os.PathLike], *, dataset: str,
                     base_dir: str | os.PathLike | None, out: str | os.PathLike,
                     judge: Judge | None = None) -> str:
    """Let `judge` (default: the rules) vote on the comparisons of `dataset` found under
    `paths`; write the votes to `out`.

    Returns the line to show the user.  `out` replaces any earlier file there.
    Comparisons that another file under `paths` already holds votes of this judge for
    are left to that file, since one judge votes once per comparison and trait.
    """
    judge = judge or rules.RulesJudge()
    if judge.api_models:
        raise FfsiteError(f"judge {judge.id} asks an API; a whole dataset is judged only by "
                          "a judge without one (--judge rules)")
    paths = list(paths)
    comparisons = dataset_comparisons(paths, dataset)
    done = comparisons["comparison_id"].isin(judged_elsewhere(paths, dataset, out, judge.id))
    prompts, texts = _texts(base_dir, dataset)
    comparisons, lacking = _with_texts(comparisons[~done], texts)
    if comparisons.empty:
        raise FfsiteError(f"no comparison of {dataset} left to judge ({int(done.sum())} already "
                          f"judged in other files, {lacking} without texts in the base data)")
    pairs = Pairs(comparisons["comparison_id"].to_numpy(object),
                  comparisons["prompt_id"].map(prompts).to_numpy(object),
                  comparisons["response_a_id"].map(texts).to_numpy(object),
                  comparisons["response_b_id"].map(texts).to_numpy(object))
    table = write_votes(votes_table(comparisons, judge, judge.votes(pairs, [])), out,
                        extra={"judge": judge.id, "dataset": dataset})
    line = (f"wrote {out}: {table.num_rows} votes of {judge.id} on "
            f"{len(comparisons)} comparisons of {dataset}")
    skipped = [f"{n} {why}" for n, why in (
        (int(done.sum()), f"already judged by {judge.id} in other files"),
        (lacking, "without texts in the base data")) if n]
    return line + (f" (skipped: {'; '.join(skipped)})" if skipped else "")


def measure_dataset(paths: Iterable[str | os.PathLike], *, dataset: str,
                    base_dir: str | os.PathLike | None, out: str | os.PathLike) -> str:
    """Write the communication traits of every response in `dataset`'s comparisons."""
    responses = dataset_responses(dataset_comparisons(paths, dataset))
    texts = _texts(base_dir, dataset)[1]
    known = responses["response_id"].isin(texts.keys())
    responses = responses[known]
    features = measure(responses["response_id"], texts)
    write_response_metrics(communication_rows(responses, features), out,
                           extra={"measures": "communication", "dataset": dataset})
    line = f"wrote {out}: {len(COMMUNICATION_TRAITS)} traits of {len(responses)} responses"
    skipped = int((~known).sum())
    return line + (f" ({skipped} responses skipped: texts not in the base data)"
                   if skipped else "")
