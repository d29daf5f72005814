"""A protocol run's file validated against a site (`ffsite validate` with a site): is it
what it says, may it join the site, and is it comparable with the dataset's numbers or
kept apart?

The file's summary names its protocol, judges and settings; the check works out the
variant again from them (compare.py) against the protocol the site ships now, and the
file must be filed as that variant says: under the dataset itself when comparable, apart
otherwise (`<dataset>@<label>` for scores, `<trait id>@<judge key>` for votes).  Then,
as for any contribution: at most `MAX_INVALID` invalid, a model new to the dataset
(unless replacing), prompts of the dataset's own, and readable with the site's files.
The last lines say which case applies: what the site will show, and where.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite.collect.protocol import compare
from ffsite.collect.protocol.setup import find_protocol
from ffsite.collect.protocol.spec import Judge, Protocol
from ffsite.collect.run import MAX_INVALID
from ffsite.datasets import dataset_name
from ffsite.errors import FfsiteError, ParameterError
from ffsite.format import (
    find_annotation_files,
    read_annotations,
    read_file_metadata,
    read_scores,
    schema,
)
from ffsite.format.response_metrics import read_response_metrics

TOOL = "ffsite protocol run"


def run_line(summary: dict) -> str:
    """The run in one clause, as the site's mark says it: date, calls, invalid share,
    cost."""
    cost = summary.get("cost_usd")
    return (f"run of {summary.get('date') or 'an unknown date'}: {summary.get('calls', 0):,} "
            f"calls, {summary.get('invalid_rate', 0):.1%} invalid, cost "
            + (f"${cost:,.4f} ({summary.get('cost_source')})" if cost is not None
               else "unknown"))


def checked_variant(path: Path, summary: dict) -> tuple[Protocol, compare.Variant]:
    """The protocol and the variant the summary's judges and settings make, checked
    against what the summary claims."""
    try:
        protocol = find_protocol(str(summary.get("protocol")))
    except FfsiteError:
        raise FfsiteError(f"{path}: run summary names protocol "
                          f"{summary.get('protocol')!r}, which this site does not ship; "
                          "run one of ffsite protocol list") from None
    if summary.get("protocol_version") != protocol.version:
        raise FfsiteError(f"{path}: made with protocol version "
                          f"{summary.get('protocol_version')!r}, the site's is "
                          f"{protocol.version!r}; run ffsite protocol run "
                          f"{protocol.name} again")
    names, models = summary.get("judges") or [], summary.get("judge_models") or []
    if not names or len(names) != len(models):
        raise FfsiteError(f"{path}: the run summary lacks its judges and their models; "
                          "create contributed files with ffsite protocol run")
    chosen = {name: summary[_summary_key(name)] for name in protocol.settings
              if _summary_key(name) in summary}
    found = compare.variant(protocol, [Judge(n, m) for n, m in zip(names, models,
                                                                     strict=True)], chosen)
    if found.comparable != summary.get("comparable"):
        raise FfsiteError(f"{path}: the run summary says comparable="
                          f"{summary.get('comparable')} but its judges and settings make it "
                          f"{'comparable' if found.comparable else 'apart'}"
                          + ("" if found.comparable else f" ({'; '.join(found.differs)})")
                          + "; run ffsite protocol run again")
    return protocol, found


def _summary_key(setting: str) -> str:
    # A panel's target is recorded per trait; every other setting under its own name.
    return {"comparisons": "comparisons_per_trait", "votes": "votes_per_comparison"
            }.get(setting, setting)


def verdict_lines(protocol: Protocol, found: compare.Variant, summary: dict,
                  shown_as: str, models_there: int) -> list[str]:
    """The closing lines: which case applies, and what the site shows."""
    name = dataset_name(protocol.dataset)
    if found.comparable and not models_there:
        return [f"comparable: same protocol ({protocol.name} {protocol.version}) and "
                f"judges as {name}, which has no models on the site yet: these are its "
                f"first, marked 'contributed' ({run_line(summary)}); later runs of the "
                "same protocol are ranked with them"]
    if found.comparable:
        return [f"comparable: same protocol ({protocol.name} {protocol.version}) and "
                f"judges as {name}: ranked with its {models_there} models and marked "
                f"'contributed' ({run_line(summary)})"]
    return [f"apart: {'; '.join(found.differs)}: shown as '{shown_as}', labelled, never "
            f"ranked against {name}'s models ({run_line(summary)})"]


def check_protocol_file(path: str | os.PathLike, site: str | os.PathLike, *,
                        replace: bool = False) -> str:
    """Raise FfsiteError on the first problem; the summary lines when all is well."""
    path = Path(path)
    metadata = read_file_metadata(path)
    summary = metadata.get("extra") or {}
    if metadata.get("kind") == schema.KIND_RESPONSE_METRICS:
        return _check_communication(path, site, summary, replace)
    protocol, found = checked_variant(path, summary)
    rate = summary.get("invalid_rate")
    if not isinstance(rate, int | float) or rate > MAX_INVALID:
        raise FfsiteError(f"{path}: {rate!r} of the ratings or votes are invalid (at most "
                          f"{MAX_INVALID:.0%} may be); fix the run and run it again")
    site_files = _site_files(site, path, summary, replace)
    if metadata.get("kind") == schema.KIND_SCORES:
        lines = _check_scores(path, site_files, protocol, found, summary, replace)
    else:
        lines = _check_votes(path, site_files, protocol, found, summary, replace)
    return "\n".join(lines)


def _check_scores(path: Path, site_files: list[Path], protocol: Protocol,
                  found: compare.Variant, summary: dict, replace: bool) -> list[str]:
    mine = read_scores([path])
    long = mine.long()
    expected = compare.filed_under(protocol, found)
    datasets = sorted(set(long["dataset"]))
    if datasets != [expected]:
        raise FfsiteError(f"{path}: its scores are filed under {', '.join(datasets)} but "
                          f"its protocol and judges file them under {expected}; run ffsite "
                          "protocol run again")
    valid = int(long["score"].notna().sum())
    if summary.get("ratings", -1) - summary.get("invalid_ratings", -1) != valid:
        raise FfsiteError(f"{path}: the run summary counts {summary.get('ratings')} ratings, "
                          f"{summary.get('invalid_ratings')} invalid, but the file holds "
                          f"{valid} scores; run ffsite protocol run again")
    model = summary.get("model")
    site = read_scores(site_files) if site_files else None
    there = (site.responses if site is not None else pd.DataFrame(
        columns=["dataset", "model", "prompt_id", "condition"]))
    conditions = set(long["condition"].fillna(""))  # (baseline only, for one)
    own = there[(there["dataset"] == protocol.dataset).to_numpy()
                & there["condition"].fillna("").isin(conditions).to_numpy()]
    if not replace and ((there["dataset"] == expected) & (there["model"] == model)).any():
        raise ParameterError(f"{path}: model '{model}' already has {expected} scores on "
                             "the site; pick a new {model} name, or pass {replace} to "
                             "replace its earlier contribution", "replace", "model")
    prompts = set(own["prompt_id"])
    outside = sorted(set(long["prompt_id"]) - prompts) if prompts else []
    if outside:
        raise FfsiteError(f"{path}: column 'prompt_id': prompt '{outside[0]}' is not one of "
                          f"{protocol.dataset}'s prompts on the site; run the protocol")
    read_scores([*site_files, path])  # the cross-file rules
    covered = long["prompt_id"].nunique()
    lines = [f"ok {path}: model '{model}', protocol {protocol.name}, judges "
             f"{', '.join(summary['judges'])}, {covered} of {len(prompts) or covered} "
             f"prompts of {protocol.dataset}"
             + ("" if summary.get("complete") and not summary.get("limit") else
                " (a partial run: the pull request should cover all of them)")]
    return lines + verdict_lines(protocol, found, summary, _shown(expected),
                                 own["model"].nunique())


def _check_votes(path: Path, site_files: list[Path], protocol: Protocol,
                 found: compare.Variant, summary: dict, replace: bool) -> list[str]:
    votes = read_annotations([path])
    annotators = votes.annotators
    traits = annotators[(annotators["role"] == schema.ROLE_TRAIT).to_numpy()]
    key = protocol.panel if found.comparable else found.label
    if sorted(set(traits["judge"])) != [key] or summary.get("judge") != key:
        raise FfsiteError(f"{path}: its votes carry judge(s) "
                          f"{', '.join(sorted(set(traits['judge'])))} but its protocol and "
                          f"judges make the key {key!r}; run ffsite protocol run again")
    apart = traits["trait_id"].astype(str).str.contains(compare.APART, regex=False)
    if (apart.any() if found.comparable else not apart.all()):
        wanted = "the traits' own ids" if found.comparable else "<trait id>@<judge key>"
        raise FfsiteError(f"{path}: a {'comparable' if found.comparable else 'apart'} run "
                          f"files its votes under {wanted}; run ffsite protocol run again")
    codes = np.asarray(votes.votes["vote"])
    invalid = float((codes == schema.INVALID).mean()) if len(codes) else 0.0
    if invalid > MAX_INVALID:
        raise FfsiteError(f"{path}: {invalid:.1%} of the votes are invalid, more than the "
                          f"{MAX_INVALID:.0%} a contribution may have; fix the run")
    site = read_annotations(site_files) if site_files else None
    comparisons = votes.comparisons
    on_site = (site.comparisons[(site.comparisons["dataset"] == protocol.dataset).to_numpy()]
               if site is not None else comparisons.iloc[:0])
    rated = set(on_site["model_a"]) | set(on_site["model_b"])
    added = summary.get("models") or []
    again = sorted(set(added) & rated)
    if again and not replace:
        raise ParameterError(f"{path}: model '{again[0]}' is already rated on "
                             f"{protocol.dataset}; pick a new {{model}} name, or pass "
                             "{replace} to replace its earlier contribution", "replace",
                             "model")
    missing = sorted(set(summary.get("population") or []) - rated)
    read_annotations([*site_files, path])  # the cross-file rules
    lines = [f"ok {path}: models {', '.join(added)}, protocol {protocol.name}, "
             f"{len(comparisons)} comparisons on {traits['trait_id'].nunique()} traits, "
             f"judged by {key}"]
    if missing:
        lines.append(f"note: compared with {', '.join(missing)}, which the site does not "
                     "rate yet: contribute their files too")
    return lines + verdict_lines(protocol, found, summary, f"<trait> [judged by {key}]",
                                 len(rated - set(added)))


def _shown(dataset: str) -> str:
    return dataset_name(dataset)


def _check_communication(path: Path, site: str | os.PathLike, summary: dict,
                         replace: bool) -> str:
    site_files = _site_files(site, path, summary, replace)
    rows = read_response_metrics([path])
    read_response_metrics([*site_files, path])  # the cross-file rule: no response twice
    return (f"ok {path}: communication traits of {len(rows)} answers of "
            f"{', '.join(summary.get('models') or [])}")


def _site_files(site: str | os.PathLike, path: Path, summary: dict, replace: bool
                ) -> list[Path]:
    """The site's files, without this one and, when replacing, without earlier
    contributions of the same models to the same protocol."""
    models = set(summary.get("models") or [summary.get("model")])
    files = [f for f in find_annotation_files([site]) if f.resolve() != path.resolve()]
    if replace:
        files = [f for f in files if not _same_run(f, summary.get("protocol"), models)]
    return files


def _same_run(path: Path, protocol: object, models: set) -> bool:
    summary = read_file_metadata(path).get("extra") or {}
    theirs = set(summary.get("models") or [summary.get("model")])
    return summary.get("tool") == TOOL and summary.get("protocol") == protocol and bool(
        theirs & models)
