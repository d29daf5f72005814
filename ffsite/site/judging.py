"""The site's facts about judges: the models that are also judges of a dataset (the
records' `judge_models`: they judged their own answers, and every table and page that
shows their numbers says so), and each panel's judges measured against each other."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ffsite.datasets import DATASETS, PANELS, UNITS, dataset_name, find
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


def judge_badge(ctx: SiteContext, dataset: str, model: str) -> dict[str, str]:
    """The Cell fields that mark a model that judged `dataset` ({} otherwise)."""
    judge = ctx.prepared(self_judges).get((dataset, model))
    if judge is None:
        return {}
    return {"badge": "judge", "badge_title": f"this model is one of the judges of "
            f"{dataset_name(dataset)} ({judge}): it scored its own answers too"}


def self_judge_notes(ctx: SiteContext, dataset: str, model: str) -> tuple[str, ...]:
    """The note a model's section on `dataset` carries when the model judged it."""
    judge = ctx.prepared(self_judges).get((dataset, model))
    if judge is None:
        return ()
    record = find(dataset)
    others = len(record.judges) - 1 if record else 0
    share = ("alone: every number here is its own judgement" if others == 0 else
             f"with {others} other judge{'s' if others > 1 else ''}: its own view is "
             "part of every number here")
    return (f"This model is one of the judges of {dataset_name(dataset)} ({judge}): it "
            f"judged its own answers {share}.",)


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
