"""Checks for a contributed annotation file (one model, from `ffsite annotate`) against
the site it is meant to join: the file is valid on its own, small, records its judge and
trait list, names a model the site does not have yet (unless replacing), and answers
prompts of the site's own prompt set; and it reads together with the site's files.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from ffsite.collect.annotate.run import TOOL
from ffsite.collect.protocol.contrib import TOOL as PROTOCOL_TOOL
from ffsite.collect.protocol.contrib import check_protocol_file, checked_variant, verdict_lines
from ffsite.collect.run import MAX_INVALID
from ffsite.errors import FfsiteError, ParameterError
from ffsite.format import (
    find_annotation_files,
    read_annotations,
    read_file_metadata,
    read_votes_file,
    schema,
)
from ffsite.format.response_metrics import read_response_metrics, read_response_metrics_file

MAX_BYTES = 1_000_000  # a full 805-prompt run with 40 traits and 3 votes is ~0.2 MB


def check_contribution(path: str | os.PathLike, site: str | os.PathLike, *,
                       replace: bool = False, max_bytes: int = MAX_BYTES) -> str:
    """Raise FfsiteError on the first problem; return a one-line summary when all is well."""
    path = Path(path)
    size = path.stat().st_size if path.is_file() else 0
    if size > max_bytes:
        raise FfsiteError(f"{path}: {size} bytes, over the {max_bytes}-byte cap for a "
                          "contributed file; annotate fewer votes per comparison")
    metadata = read_file_metadata(path)
    if (metadata.get("extra") or {}).get("tool") == PROTOCOL_TOOL:  # a protocol run's
        return check_protocol_file(path, site, replace=replace)
    if metadata.get("kind") == schema.KIND_RESPONSE_METRICS:
        return _check_communication(path, site, replace)
    votes, metadata = read_votes_file(path)
    summary = metadata.get("extra") or {}
    model = summary.get("model")
    if not model or summary.get("tool") != TOOL:
        raise FfsiteError(f"{path}: no run summary naming the model; create contributed files "
                          "with ffsite annotate")
    annotators = pd.DataFrame(votes.annotators)
    traits = annotators[annotators["role"] == schema.ROLE_TRAIT]
    if traits.empty:
        raise FfsiteError(f"{path}: no trait votes; a contribution holds the judge's trait votes")
    _check_recorded(path, summary, traits)
    invalid = _invalid_share(votes)
    if invalid > MAX_INVALID:
        raise FfsiteError(f"{path}: {invalid:.1%} of the votes are invalid, more than the "
                          f"{MAX_INVALID:.0%} a contribution may have; fix the run (see the "
                          "notes of the invalid votes) and annotate again")

    site_files = _site_files(site, path, model, replace)
    on_site = _site_comparisons(site_files)
    if not replace and ((on_site["model_a"] == model) | (on_site["model_b"] == model)).any():
        raise ParameterError(f"{path}: model '{model}' is already on the site; pick a new "
                             "{model} name, or pass {replace} to replace its earlier "
                             "contribution", "replace", "model")
    comparisons = pd.DataFrame(votes.comparisons)
    coverage = []
    for dataset, rows in comparisons.groupby("dataset", sort=True):
        site_prompts = set(on_site.loc[on_site["dataset"] == dataset, "prompt_id"].dropna())
        if not site_prompts:
            raise ParameterError(f"{path}: the site has no comparisons of dataset "
                                 f"'{dataset}'; annotate one of its prompt sets ({{prompts}})",
                                 "prompts")
        outside = ~rows["prompt_id"].isin(site_prompts)
        if outside.any():
            raise FfsiteError(f"{path}: column 'prompt_id', comparison "
                              f"'{rows['comparison_id'][outside].iloc[0]}': prompt "
                              f"'{rows['prompt_id'][outside].iloc[0]}' is not in the site's "
                              f"prompt set of {dataset}; annotate the site's prompts")
        coverage.append(f"{rows['prompt_id'].nunique()} of {len(site_prompts)} prompts of "
                        f"{dataset}")
    together = read_annotations([*site_files, path])  # the cross-file rules
    line = (f"ok {path}: model '{model}', judge '{summary['judge']}', "
            f"{len(traits)} traits ({summary['trait_set']}), " + ", ".join(coverage))
    apart = _judged_apart(together, summary["judge"], set(traits["trait_id"]))
    lines = [line, *([apart] if apart else [])]
    if summary.get("protocol"):  # `ffsite protocol run` of a Feedback Forensics protocol
        protocol, found = checked_variant(path, summary)
        lines += verdict_lines(protocol, found, summary, f"[judged by {summary['judge']}]",
                               len(set(on_site["model_a"]) | set(on_site["model_b"])) - 1)
    return "\n".join(lines)


def _judged_apart(annotations, judge: str, trait_ids: set[str]) -> str | None:
    """A note when the site's own files vote on some of the contribution's traits with
    another judge: the site shows those numbers apart (ffsite.metrics.judges), labelled
    with the contribution's judge and not ranked against the site's."""
    annotators = annotations.annotators
    others = annotators[(annotators["role"] == schema.ROLE_TRAIT).to_numpy()
                        & annotators["trait_id"].isin(trait_ids).to_numpy()
                        & (annotators["judge"] != judge).to_numpy()]
    if others.empty:
        return None
    judges = ", ".join(sorted(set(others["judge"].astype(str))))
    return (f"note: the site judges {others['trait_id'].nunique()} of these traits with "
            f"{judges}, not '{judge}': the site shows this model's numbers on them apart, "
            f"labelled '[judged by {judge}]', not ranked against the other models")


def _check_communication(path: Path, site: str | os.PathLike, replace: bool) -> str:
    """The communication traits `ffsite annotate` writes beside a contribution: made by
    it, of its one model, for responses the site does not have yet."""
    summary = read_file_metadata(path).get("extra") or {}
    rows = read_response_metrics_file(path)
    models = sorted(set(rows["model"].dropna()))
    if summary.get("tool") != TOOL or models != [summary.get("model")]:
        raise FfsiteError(f"{path}: not the communication traits of one model written by "
                          "ffsite annotate; contribute the files ffsite annotate wrote")
    site_files = _site_files(site, path, models[0], replace)
    read_response_metrics([*site_files, path])  # the cross-file rule: no response twice
    return (f"ok {path}: communication traits of {len(rows)} responses of model "
            f"'{models[0]}'")


def _invalid_share(votes) -> float:
    """The share of invalid votes, counted from the votes (not the summary, which a
    hand-edited file could misstate)."""
    codes = np.asarray(votes.vote)
    return float((codes == schema.INVALID).mean()) if len(codes) else 0.0


def _check_recorded(path: Path, summary: dict, traits: pd.DataFrame) -> None:
    """The summary names the judge and trait list the votes really carry."""
    judges = sorted(set(traits["judge"]))
    if judges != [summary.get("judge")]:
        raise FfsiteError(f"{path}: the votes come from judge(s) {', '.join(judges)} but the "
                          f"run summary records '{summary.get('judge')}'; re-run ffsite annotate")
    trait_sets = "+".join(sorted(set(traits["trait_set"])))
    if summary.get("trait_set") != trait_sets or summary.get("traits") != traits[
            "trait_id"].nunique():
        raise FfsiteError(f"{path}: the run summary records {summary.get('traits')} traits of "
                          f"'{summary.get('trait_set')}' but the votes carry "
                          f"{traits['trait_id'].nunique()} of '{trait_sets}'; re-run "
                          "ffsite annotate")


def _site_comparisons(files: list[Path]) -> pd.DataFrame:
    """dataset, prompt_id, model_a, model_b of every comparison on the site (distinct rows);
    four columns read straight from the files, much faster than a full read."""
    columns = ["dataset", "prompt_id", "model_a", "model_b"]
    frames = [pq.read_table(f, columns=columns).to_pandas().astype(object).drop_duplicates()
              for f in files if read_file_metadata(f).get("kind") == schema.KIND_VOTES]
    return (pd.concat(frames, ignore_index=True) if frames
            else pd.DataFrame(columns=columns))


def _site_files(site: str | os.PathLike, path: Path, model: str, replace: bool) -> list[Path]:
    """The site's annotation files, without the contribution itself and, when replacing,
    without earlier contributions of the same model."""
    files = [f for f in find_annotation_files([site]) if f.resolve() != path.resolve()]
    if replace:
        files = [f for f in files if not _contributes(f, model)]
    return files


def _contributes(path: Path, model: str) -> bool:
    summary = read_file_metadata(path).get("extra") or {}
    return summary.get("tool") == TOOL and summary.get("model") == model
