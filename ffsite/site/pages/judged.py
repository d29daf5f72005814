"""The home page's lead: judged personality at a glance (Behavioral Profiling's judge panel)
and emotional intelligence (EQ-Bench 3's judge), each number with its 95% interval.

The rule-judged text statistics follow on the home page, under their own heading.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ffsite.datasets import DATASETS, is_apart
from ffsite.site.context import SiteContext
from ffsite.site.judging import judge_badge
from ffsite.site.model_meta import meta_cells, meta_columns
from ffsite.site.output import Download
from ffsite.site.urls import MODELS, TRAITS, link
from ffsite.site.views import (
    FLOOR_COUNTED,
    Cell,
    Column,
    Glance,
    Table,
    below_floor,
    estimate_cell,
    floor_marks,
    glance,
    rank_rows,
    standings,
)

BASELINE = "baseline"
GLANCE = 3  # models listed at each end of a trait
MORE_GLANCE = 2  # the same for the datasets after the lead one: the home page stays light


@dataclass(frozen=True)
class Judged:
    """What the home page shows of the judged data (None parts are left out)."""

    judge: str
    judge_description: str
    n_models: int
    n_prompts: int
    glances: list[Glance]
    table: Table
    eq: Table | None
    eq_anchor: str | None
    eq_download: Download | None


def judged_overview(ctx: SiteContext, page: str) -> Judged | None:
    """The judged-personality section, or None when no scores were read."""
    if not len(ctx.scores):
        return None
    scored = ctx.score_results
    means = scored.means[(scored.means["condition"] == BASELINE).to_numpy()
                         & ~scored.means["dataset"].map(is_apart).to_numpy(bool)]
    if means.empty:
        return None
    traits = ctx.traits[ctx.traits["scored"]].set_index("trait_id")
    means = means[means["trait_id"].isin(traits.index)]
    # The traits on which the models differ most come first (FF's "max diff", on means).
    by_trait = means.groupby("trait_id")["mean"]
    spread = (by_trait.max() - by_trait.min()).rename("spread").reset_index()
    order = list(spread.sort_values(["spread", "trait_id"], ascending=[False, True],
                                    kind="stable")["trait_id"])
    judge = str(means["judge"].iloc[0])
    names = {model: ctx.registry.display_name(model) for model in means["model"].unique()}
    download = ctx.output.data(
        "personality", _published(means, traits),
        f"Judged personality: each model's mean score per trait, {BASELINE} (judge: {judge})",
        page)

    glances = [_glance(ctx, page, traits.loc[t], means[means["trait_id"] == t], names)
               for t in order]
    table = _table(ctx, page, means, order, traits, names, download)
    # No chart here: the cards link each trait's page, whose chart ranks every model, and
    # the table has every number (a home page within its weight budget).
    # A dataset of judged pairs may add its headline table (EQ-Bench 3's overall EQ).
    eq, eq_anchor, eq_download = next((table for table in (
        d.hook("home")(ctx, page) for d in DATASETS if d.home) if table[0] is not None),
        (None, None, None))
    return Judged(judge=judge, judge_description=scored.judges.get(judge, ""),
                  n_models=means["model"].nunique(), n_prompts=int(means["n_prompts"].max()),
                  glances=glances, table=table, eq=eq, eq_anchor=eq_anchor,
                  eq_download=eq_download)


def _published(means: pd.DataFrame, traits: pd.DataFrame) -> pd.DataFrame:
    """The downloadable table: the means with each trait's label and scale."""
    frame = means.drop(columns="condition").copy()
    frame.insert(frame.columns.get_loc("trait_id") + 1, "trait",
                 frame["trait_id"].map(traits["label"]).to_numpy())
    return frame.sort_values(["trait_id", "mean", "model"], ascending=[True, False, True],
                             kind="stable").reset_index(drop=True)


def _glance(ctx: SiteContext, page: str, trait: pd.Series, own: pd.DataFrame,
            names: dict[str, str], per_end: int = GLANCE) -> Glance:
    """A trait's card: the models with the highest and lowest means, with their places
    and the 95% ranges of their ranks (from the means' own bootstrap: the rank columns
    of the scores' means), and how many could be first or last; no ranks when no two
    models' intervals are disjoint."""
    ranked = rank_rows(own.rename(columns={"mean": "value", "ci_low": "low",
                                           "ci_high": "high"})[
        ["model", "value", "low", "high", "rank", "rank_low", "rank_high"]])
    dataset = str(own["dataset"].iat[0])
    floors = {m: (int(b), int(n)) for m, b, n in zip(
        own["model"], own["below_rubric_floor"], own["n"], strict=True) if b > 0}

    most, least = standings(ranked, per_end, names.__getitem__,
                            lambda model: link(page, ctx.slugs.page(MODELS, model)),
                            marks=lambda model: floor_marks(judge_badge(ctx, dataset, model),
                                                            *floors.get(model, (0, 0))))
    low_end, high_end = _ends(trait["trait"])
    return glance(trait["label"], link(page, ctx.slugs.page(TRAITS, trait.name)), ranked,
                  most, least, name=names.__getitem__, low_end=low_end, high_end=high_end,
                  no_signal="No signal: every model's interval overlaps every other's, so "
                            "no model is ranked.")


def _ends(wording: str) -> tuple[str, str]:
    """The scale's two ends, each with its number ("1 cold, clinical", "10 warm,
    nurturing"), from a "Label: 1 low words; 10 high words" wording: the numbers are the
    wording's own, since scales differ (poem-eval's run 1-5)."""
    _, _, scale = wording.partition(": ")
    low, _, high = scale.partition("; ")
    return low.strip(), high.strip()


def _table(ctx: SiteContext, page: str, means: pd.DataFrame, order: list[str],
           traits: pd.DataFrame, names: dict[str, str], download: Download) -> Table:
    by_cell = means.set_index(["model", "trait_id"])
    dataset = str(means["dataset"].iloc[0])
    models = sorted(means["model"].unique(), key=lambda m: names[m].lower())
    columns = [Column("model", "Model", numeric=False)] + [
        Column(t, traits.at[t, "label"], title=traits.at[t, "trait"]) for t in order
    ] + meta_columns()  # the registry's facts last: the numbers first on a phone
    rows = []
    for model in models:
        row = [Cell(names[model], href=link(page, ctx.slugs.page(MODELS, model)),
                    header=True, **judge_badge(ctx, dataset, model))]
        for trait_id in order:
            if (model, trait_id) in by_cell.index:
                found = by_cell.loc[(model, trait_id)]
                # No title repeating the visible mean and interval: the home page stays
                # under its weight budget (the column header names the trait).
                row.append(below_floor(estimate_cell(
                    found["mean"], found["ci_low"], found["ci_high"], titled=False),
                    found["below_rubric_floor"], found["n"]))
            else:
                row.append(Cell("–"))
        rows.append(row + meta_cells(ctx.registry, model))
    return Table("personality", "Mean score per trait (rubric 1–10), with its 95% interval",
                 columns, rows, download,
                 note="Higher means more of the trait; the traits on which models differ "
                      "most come first. Sort by any column." + (
                          " " + FLOOR_COUNTED if means["below_rubric_floor"].any() else ""))


@dataclass(frozen=True)
class MoreJudged:
    """A scored dataset after the lead one on the home page: its traits at a glance."""

    id: str
    name: str
    measures: str
    judge: str  # its judge, or its panel and how many judges sit on it
    n_models: int
    glances: list[Glance]
    source: tuple[str, str, str] | None
    n_judges: int = 1


def more_judged(ctx: SiteContext, page: str) -> list[MoreJudged]:
    """Every scored dataset without conditions (the lead one has them): llm-dreams'
    panel, poem-eval's judge; each trait's most and least, ranked by the interval rule."""
    means = ctx.score_results.means
    means = means[means["condition"] == ""]
    traits = ctx.traits[ctx.traits["scored"]].set_index("trait_id")
    found = []
    for dataset in (d for d in DATASETS if d.id in set(means["dataset"])):
        own = means[(means["dataset"] == dataset.id) & means["trait_id"].isin(traits.index)]
        names = {m: ctx.registry.display_name(m) for m in own["model"].unique()}
        glances = [_glance(ctx, page, traits.loc[t], own[own["trait_id"] == t], names,
                           per_end=MORE_GLANCE)
                   for t in sorted(own["trait_id"].unique(),
                                   key=lambda t: traits.at[t, "label"])]
        judge = (f"{dataset.panel}, the mean of {len(dataset.judges)} judges"
                 if dataset.panel else ", ".join(dataset.judges))
        found.append(MoreJudged(dataset.id.replace("_", "-"), dataset.name, dataset.measures,
                                judge, len(names), glances, dataset.source,
                                len(dataset.judges)))
    return found
