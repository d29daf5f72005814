"""The site's facts about judges: the models that are also judges of a dataset (the
records' `judge_models`: they judged their own answers, and every table and page that
shows their numbers says so), the models contributors added through a dataset's
protocol (marked "contributed" the same way, with their run), and each panel's judges
measured against each other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from ffsite.datasets import DATASETS, PANELS, UNITS, dataset_name, find
from ffsite.format import read_file_metadata
from ffsite.format.schema import KIND_RESPONSE_METRICS
from ffsite.metrics import panel
from ffsite.site.context import SiteContext


def self_judges(ctx: SiteContext) -> dict[tuple[str, str], str]:
    """{(dataset, model id): the judge} for every model that is also one of its dataset's
    judges."""
    found = {}
    for dataset in DATASETS:
        for judge, name in dataset.judge_models:
            found[(dataset.id, ctx.registry.model_id(dataset.id, name))] = judge
    return found


def variant_judges(ctx: SiteContext) -> dict[tuple[str, str], tuple[str, str]]:
    """{(dataset, model id): (the judge, the judge's model id)} for every model the
    registry calls a variant (`variant_of`) of one of its dataset's judges: thinking
    switched on, or prompted to a style, the judge's own weights wrote the answers."""
    judges = ctx.prepared(self_judges)
    found = {}
    for model in ctx.registry.models:
        if model.variant_of is None:
            continue
        for (dataset, judge_model), judge in judges.items():
            if judge_model == model.variant_of:
                found[(dataset, model.id)] = (judge, judge_model)
    return found


def contributions(ctx: SiteContext) -> dict[tuple[str, str], dict[str, Any]]:
    """{(dataset, model id): the run summary} of every model a contributor added through
    a dataset's protocol (`ffsite protocol run`: its file's summary names the protocol);
    the dataset as the file files it (an apart run's is `<dataset>@...`)."""
    found = {}
    for path in ctx.files:
        metadata = read_file_metadata(path)
        summary = metadata.get("extra") or {}
        if not summary.get("protocol") or metadata.get("kind") == KIND_RESPONSE_METRICS:
            continue
        dataset = str(summary.get("dataset"))
        for model in summary.get("models") or [summary.get("model")]:
            if isinstance(model, str):
                found[(dataset, ctx.registry.model_id(dataset, model))] = summary
    return found


def run_line(summary: dict[str, Any]) -> str:
    """A contributed run in a clause: its date, calls, invalid share and cost."""
    cost, rate = summary.get("cost_usd"), summary.get("invalid_rate")
    parts = [f"run of {summary.get('date') or 'an unknown date'}",
             f"{summary.get('calls', 0):,} API calls"]
    if isinstance(rate, int | float):
        parts.append(f"{rate:.1%} invalid")
    parts.append(f"cost ${cost:,.4f}" if isinstance(cost, int | float) else "cost unknown")
    return ", ".join(parts)


def answer_marks(ctx: SiteContext) -> dict[tuple[str, str], tuple[str, str]]:
    """{(dataset, model id): (mark, why)} of every dataset's `answer_marks` hook."""
    return {(dataset.id, model): mark for dataset in DATASETS if dataset.answer_marks
            for model, mark in dataset.hook("answer_marks")(ctx).items()}


def judge_badge(ctx: SiteContext, dataset: str, model: str) -> dict[str, str]:
    """The Cell fields that mark a model that judged `dataset`, that a contributor added
    to it, or whose answers on it need a word (its `answer_marks`); {} otherwise."""
    judge = ctx.prepared(self_judges).get((dataset, model))
    variant = ctx.prepared(variant_judges).get((dataset, model))
    run = ctx.prepared(contributions).get((dataset, model))
    answers = ctx.prepared(answer_marks).get((dataset, model))
    marks = []
    if judge is not None:
        marks.append(("judge", judges_the_reference(dataset) or (
            f"this model is one of the judges of {dataset_name(dataset)} ({judge}): it "
            "scored its own answers too")))
    if variant is not None:
        marks.append(("judge's variant", variant_clause(ctx, dataset, variant)))
    if run is not None:
        marks.append(("contributed", f"added by a contributor through ffsite protocol "
                      f"{run.get('protocol')} ({run_line(run)})"))
    if answers is not None:
        marks.append(answers)
    if not marks:
        return {}
    return {"badge": " · ".join(m for m, _ in marks),
            "badge_title": "; ".join(t for _, t in marks)}


def reference_judge(dataset: str) -> str | None:
    """The judge of `dataset` that is its reference model itself (AlpacaEval 2.0's GPT-4
    Turbo), or None."""
    record = find(dataset)
    if record is None or record.reference_model is None:
        return None
    return dict((name, j) for j, name in record.judge_models).get(record.reference_model)


def judges_the_reference(dataset: str) -> str | None:
    """What a reader must know when the model every answer of `dataset` is compared with
    is its judge, as a clause; None otherwise."""
    judge = reference_judge(dataset)
    if judge is None:
        return None
    return (f"the judge of {dataset_name(dataset)}'s preferences ({judge}) is its reference "
            f"model, {find(dataset).reference_model}, itself: every preference sets the "
            "judge's own answer against another model's, so a judge that favours its own "
            "answers lowers every win rate and rewards whatever its own answers do")


def reference_judge_notes(dataset: str, judge: object = None) -> tuple[str, ...]:
    """`judges_the_reference` as a section's note, when it applies (and, given `judge`,
    when that is the judge whose numbers the section shows)."""
    said = judges_the_reference(dataset)
    if said is None or (judge is not None and str(judge) != reference_judge(dataset)):
        return ()
    return (said[0].upper() + said[1:] + ".",)


def contributed_notes(ctx: SiteContext, dataset: str, model: str) -> tuple[str, ...]:
    """The note a model's section on `dataset` carries when a contributor added it."""
    run = ctx.prepared(contributions).get((dataset, model))
    if run is None:
        return ()
    how = ("made the dataset's way (same protocol and judges): ranked with its models"
           if run.get("comparable") else "made another way ("
           + "; ".join(run.get("differs") or []) + "): shown apart, never ranked against "
           "the dataset's own models")
    return (f"Contributed: added through ffsite protocol run {run.get('protocol')}, "
            f"{how}; {run_line(run)}.",)


def variant_clause(ctx: SiteContext, dataset: str, variant: tuple[str, str]) -> str:
    """What a reader must know of a model that is a variant of `dataset`'s judge."""
    judge, judge_model = variant
    return (f"this model is a variant of {ctx.registry.display_name(judge_model)} (the "
            f"same model in another setting), one of the judges of {dataset_name(dataset)} "
            f"({judge}): the judge scored answers its own weights wrote")


def self_judge_notes(ctx: SiteContext, dataset: str, model: str) -> tuple[str, ...]:
    """The notes a model's section on `dataset` carries when the model judged it or a
    contributor added it."""
    judge = ctx.prepared(self_judges).get((dataset, model))
    if judge is None:
        variant = ctx.prepared(variant_judges).get((dataset, model))
        if variant is not None:
            clause = variant_clause(ctx, dataset, variant)
            return (clause[0].upper() + clause[1:] + ".",
                    *contributed_notes(ctx, dataset, model))
        return contributed_notes(ctx, dataset, model)
    if model == ctx.config.reference_model and reference_judge(dataset) is not None:
        return (*reference_judge_notes(dataset), *contributed_notes(ctx, dataset, model))
    record = find(dataset)
    others = len(record.judges) - 1 if record else 0
    share = ("alone: every number here is its own judgement" if others == 0 else
             f"with {others} other judge{'s' if others > 1 else ''}: its own view is "
             "part of every number here")
    return (f"This model is one of the judges of {dataset_name(dataset)} ({judge}): it "
            f"judged its own answers {share}.", *contributed_notes(ctx, dataset, model))


@dataclass(frozen=True)
class JudgePanel:
    """One dataset's judges measured against each other (ffsite.metrics.panel); leniency
    and gaps are None with a single judge."""

    dataset: str
    data: panel.PanelData
    agreement: panel.Agreement
    leniency: pd.DataFrame | None
    gaps: pd.DataFrame | None


def judge_panels(ctx: SiteContext) -> dict[str, JudgePanel]:
    """Every scores dataset whose models answered more than once (Dataset.unit): its
    judges' agreement, leniency and self-rating gaps (ffsite.metrics.panel)."""
    found = {}
    present = set(ctx.scores.responses["dataset"])
    for dataset, unit in sorted(UNITS.items()):
        if dataset not in present:
            continue
        own = ctx.judge_scores if dataset in PANELS else ctx.scores
        data = panel.dense(own, dataset, unit=unit)
        record = find(dataset)
        several = len(data.judges) > 1
        found[dataset] = JudgePanel(
            dataset, data, panel.agreement(data, n_bootstrap=ctx.config.rating_resamples),
            panel.leniency(data, n_bootstrap=ctx.config.rating_resamples) if several
            else None,
            panel.self_rating_gap(data, record.judge_models if record else ())
            if several else None)
    return found
