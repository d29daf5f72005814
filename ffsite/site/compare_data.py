"""The compare page's numbers: one section per dataset and judge, each model's value on
each trait with its 95% interval and, where the data pairs two models, the half-width
of the 95% interval of their difference.

- Judged scores (`ScoreResults.means`, at the baseline): a mean score per trait.  Where
  every model answered the same prompts (a dataset without `Dataset.unit`: Behavioral
  Profiling), the difference is resampled prompt by prompt (`from_scores.mean_
  differences`); where each model's answers are its own (llm-dreams' answer sets,
  poem-eval's poems), the two means are independent and the page combines their own
  intervals (no half-widths here).
- Pairwise criteria (`SiteContext.pairwise`, EQ-Bench 3): Bradley-Terry Elo; the
  difference's interval comes from the same bootstrap refits for both models.
- Text statistics (the rules judge against the reference model): the strength, paired
  by prompt (ffsite.metrics.differences), as the compare page always did.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ffsite.datasets import BASELINE, DATASETS, dataset_name, find
from ffsite.judges.rules import RULES_VERSION
from ffsite.metrics.differences import (
    difference_halfwidths,
    jeffreys_variance,
    prompt_count,
    strength_covariance,
)
from ffsite.metrics.from_scores import mean_differences
from ffsite.metrics.resampling import nan_quantiles
from ffsite.site.context import SiteContext
from ffsite.site.pages.home import leaderboard_traits


@dataclass(frozen=True)
class Section:
    id: str
    title: str  # the dataset's name
    what: str  # what a value is, in words ("mean score, 1 to 10")
    judge: str
    unit: str  # the difference's unit, in a column header ("points", "Elo")
    models: list[str]
    traits: list[tuple[str, str, str]]  # (trait id, label, trait page slug)
    value: np.ndarray  # [models, traits]; NaN: not judged on it
    low: np.ndarray
    high: np.ndarray
    halfwidth: np.ndarray | None  # [traits, models, models]; None: independent models
    signed: bool = False  # values are shown with a sign (strengths)
    digits: int = 2
    scale: int = 1000  # half-widths travel as integers in 1/scale (rounded up)
    note: str = ""
    dataset: str = ""  # the dataset whose judges made the numbers ("" for text statistics)

    def separation(self) -> np.ndarray:
        """[models, models] the sum over traits of |difference| / its half-width: how
        much two models' numbers say apart (the default pair is chosen by it)."""
        value = np.nan_to_num(self.value)
        difference = np.abs(value[:, None, :] - value[None, :, :])  # [m, m, traits]
        if self.halfwidth is not None:
            half = np.moveaxis(self.halfwidth, 0, 2)
        else:
            spread = np.nan_to_num((self.high - self.low) / 2)
            half = np.sqrt(spread[:, None, :] ** 2 + spread[None, :, :] ** 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(half > 0, difference / half, 0.0)
        return np.nan_to_num(ratio).sum(axis=2)


def sections(ctx: SiteContext) -> list[Section]:
    """Every section, judged datasets first (in DATASETS' order), text statistics last."""
    found = scored_sections(ctx) + pairwise_sections(ctx)
    text = text_section(ctx)
    return found + ([text] if text is not None else [])


def _trait_rows(ctx: SiteContext, trait_ids: list[str]) -> list[tuple[str, str, str]]:
    return [(t, str(ctx.labels.get(t, t)), ctx.slugs.traits.get(t, "")) for t in trait_ids]


def _grid(frame: pd.DataFrame, models: list[str], traits: list[str], value: str,
          low: str = "ci_low", high: str = "ci_high") -> tuple[np.ndarray, ...]:
    return tuple(frame.pivot_table(index="model", columns="trait_id", values=column,
                                   aggfunc="first").reindex(index=models, columns=traits)
                 .to_numpy(float) for column in (value, low, high))


def scored_sections(ctx: SiteContext) -> list[Section]:
    """A section per scored dataset and judge, at the baseline (or a dataset's only
    condition)."""
    if not len(ctx.scores):
        return []
    means = ctx.score_results.means
    found = []
    for dataset in [d.id for d in DATASETS] + sorted(set(means["dataset"]) - {
            d.id for d in DATASETS}):
        own = means[means["dataset"] == dataset]
        if own.empty:
            continue
        condition = BASELINE if BASELINE in set(own["condition"]) else sorted(
            set(own["condition"]))[0]
        own = own[own["condition"] == condition]
        record = find(dataset)
        for judge, part in own.groupby("judge", sort=True):
            traits = sorted(set(part["trait_id"]), key=lambda t: str(ctx.labels.get(t, t)))
            models = sorted(set(part["model"]))
            value, low, high = _grid(part, models, traits, "mean")
            halfwidth = None
            if record is None or record.unit is None:  # the same prompts: paired
                halfwidth = _paired_means(ctx, dataset, condition, str(judge), models,
                                          traits)
            lowest, highest = record.rubric if record and record.rubric else (
                np.nanmin(low), np.nanmax(high))
            found.append(Section(
                id=f"{dataset}-{len(found)}", title=dataset_name(dataset), dataset=dataset,
                what=f"mean score ({lowest:g} to {highest:g})", judge=str(judge),
                unit="points", models=models, traits=_trait_rows(ctx, traits), value=value,
                low=low, high=high, halfwidth=halfwidth,
                note="" if halfwidth is not None else (
                    "Each model's answers here are its own, so the two means are "
                    "independent: the difference's interval combines their two intervals.")))
    return found


def _paired_means(ctx: SiteContext, dataset: str, condition: str, judge: str,
                  models: list[str], traits: list[str]) -> np.ndarray:
    found = mean_differences(ctx.scores, ctx.registry, dataset=dataset,
                             condition=condition if condition else "",
                             n_bootstrap=ctx.config.rating_resamples)
    halfwidth = np.full((len(traits), len(models), len(models)), np.nan)
    for k, trait in enumerate(traits):
        if (trait, judge) not in found:
            continue
        own, half = found[(trait, judge)]
        at = pd.Index(own).get_indexer(models)
        keep = at >= 0
        halfwidth[k][np.ix_(keep, keep)] = half[np.ix_(at[keep], at[keep])]
    return halfwidth


def pairwise_sections(ctx: SiteContext) -> list[Section]:
    """A section per dataset of judged pairs: Elo per criterion, paired by refit."""
    found = []
    for dataset, results in ctx.pairwise.items():
        ratings = results.ratings
        if ratings.empty:
            continue
        order = list(dict.fromkeys(ratings.sort_values("trait_id")["trait_id"]))
        record = find(dataset)
        overall = [t for t in order if record is not None and t == record.lead_trait]
        traits = overall + [t for t in order if t not in overall]
        models = sorted(set(ratings["model"]))
        value, low, high = _grid(ratings, models, traits, "elo")
        halfwidth = np.full((len(traits), len(models), len(models)), np.nan)
        for k, trait in enumerate(traits):
            if trait not in results.refits:
                continue
            rated, refits = results.refits[trait]
            at = pd.Index(models).get_indexer(rated)
            difference = refits[:, :, None] - refits[:, None, :]
            lo, hi = nan_quantiles(difference, [0.025, 0.975], axis=0)
            halfwidth[k][np.ix_(at, at)] = (hi - lo) / 2
        judges = sorted(set(ctx.traits.set_index("trait_id")["judge"].reindex(traits)
                            .dropna().astype(str)))
        anchor = ctx.registry.display_name(results.anchor) if results.anchor else "one model"
        found.append(Section(
            id=f"{dataset}-{len(found)}", title=dataset_name(dataset), dataset=dataset,
            what=f"Bradley–Terry Elo per criterion ({anchor} = 1000)",
            judge=", ".join(judges), unit="Elo", models=models,
            traits=_trait_rows(ctx, traits), value=value, low=low, high=high,
            halfwidth=halfwidth, digits=0, scale=10,
            note="The difference of two models' Elo does not depend on the anchor; its "
                 "interval comes from the same bootstrap refits for both."))
    return found


def text_section(ctx: SiteContext) -> Section | None:
    """The text statistics: each model's strength against the reference (rules judge),
    the traits the leaderboard shows, paired by prompt."""
    long = ctx.models.traits
    models = list(ctx.models.models["model"])
    order = ctx.prepared(leaderboard_traits).shown
    if len(models) < 2 or not order:
        return None
    value, low, high = _grid(long, models, order, "strength", "strength_low",
                             "strength_high")
    halfwidth = pair_halfwidths(ctx, models, order, low, high)
    judges = sorted(set(ctx.traits.set_index("trait_id")["judge"].reindex(order)
                        .dropna().astype(str)))
    reference = ctx.models.reference_model
    rules = all(j.startswith(RULES_VERSION.split("-")[0]) for j in judges)
    return Section(
        id="text", title="Text statistics" if rules else "Traits against the reference",
        what=f"strength against {reference or 'the other models'}, −1 to +1",
        judge=", ".join(judges), unit="strength", models=models,
        traits=_trait_rows(ctx, order), value=value, low=low, high=high,
        halfwidth=halfwidth, signed=True,
        note="Both models answered the same prompts against the same reference response: "
             "the difference is paired by prompt (a cluster-robust standard error, never "
             "narrower than the two models' own intervals allow).")


def pair_halfwidths(ctx: SiteContext, models: list[str], order: list[str],
                    low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """halfwidth[trait (in `order`), model, model] of the 95% interval of the difference
    between two models' strengths, paired by prompt; `low`, `high` [models, traits]: each
    model's own 95% interval (Jeffreys), whose variance is the floor of its own."""
    reference = ctx.models.reference
    gram = strength_covariance(ctx.annotations, ctx.votes, reference)
    trait_index = np.array([list(ctx.votes.traits["trait_id"]).index(t) for t in order])
    group_index = {g: i for i, g in enumerate(reference.groups)}
    rows = np.array([group_index[m] for m in models])
    gram = gram[trait_index][:, rows][:, :, rows]
    return difference_halfwidths(gram, prompt_count(ctx.annotations, reference),
                                 floor=jeffreys_variance(low, high).T)

