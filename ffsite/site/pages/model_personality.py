"""A model page's judged personality (judge scores: Behavioral Profiling): per scored
dataset, the baseline means with their rank, the strength against the other models from
votes derived from the scores, and how the scores move under pressure."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ffsite.datasets import BASELINE, CONDITIONS, condition_label, dataset_name, find
from ffsite.metrics.ranking import grouped_rank_ranges
from ffsite.site.context import SiteContext, labelled
from ffsite.site.judging import judge_badge, self_judge_notes
from ffsite.site.output import Download
from ffsite.site.pages.pressure import bend_cell, floor_counts
from ffsite.site.render import heat_class, number
from ffsite.site.sections import (
    Credit,
    Headline,
    Section,
    judge_name,
    model_page,
    rank_text,
    source_credit,
)
from ffsite.site.urls import TRAITS, link, page_path
from ffsite.site.views import (
    FLOOR_COUNTED,
    FLOOR_NOTE,
    Cell,
    Column,
    Table,
    below_floor,
    count_cell,
    estimate_cell,
    interval_text,
    rank_cell,
    sort_value,
)

TOP_SHIFTS = 5  # the largest trait shifts under pressure listed on a model page
PRESSURE_PAGE = page_path("pressure")  # the Under pressure page: every model, every condition
CUE_MORE = "higher = shown more"
PUBLISHED = ["dataset", "condition", "model", "source_model", "trait_id", "trait", "judge",
             "mean", "ci_low", "ci_high", "n", "n_prompts", "below_rubric_floor", "rank",
             "rank_low", "rank_high", "models_ranked",
             "strength_derived_from_scores", "strength_ci_low", "strength_ci_high",
             "derived_relevance", "derived_cohens_kappa", "derived_wins", "derived_losses",
             "derived_ties", "derived_comparisons"]


@dataclass(frozen=True, kw_only=True)
class PersonalitySection(Section):
    judge_description: str
    condition: str
    scale: str  # "1 to 10", or "no stated scale"
    prompts: int  # the units the means average: prompts, or the model's repeated answers
    unit: str  # what one is called
    interval: str  # how the 95% interval is made
    models: int  # the models the judge scored: ranks are among them
    source: Credit | None
    derived: bool = True  # votes were derived from its scores (not from repeated answers)
    pressure_page: str = PRESSURE_PAGE


def personality_sections(ctx: SiteContext, model: str) -> list[Section]:
    """One section per scored dataset the model has baseline scores in."""
    if not len(ctx.scores):
        return []
    return ctx.prepared(JudgedScores.create).sections(ctx, model)


@dataclass(frozen=True)
class JudgedScores:
    """What judge scores say, prepared once for every model page: the baseline means
    (ranked among the scored models, with the strength from derived votes), the shifts
    under pressure and the bend (ranked)."""

    baseline: dict[str, pd.DataFrame]  # by model, each trait labelled
    parts: dict[str, list[tuple[str, str, pd.DataFrame]]]  # by model: model_parts
    shifts: dict[str, pd.DataFrame]  # by model
    bend: dict[str, pd.DataFrame]  # by model
    scales: dict[str, tuple[float, float]]  # trait id -> (lowest, highest) score
    judges: dict[str, str]  # judge id -> description

    @classmethod
    def create(cls, ctx: SiteContext) -> JudgedScores:
        results = ctx.score_results
        means = results.means
        # The baseline of a dataset: its "baseline" condition, else its only one ("" when
        # the responses have no condition).
        conditions = means.groupby("dataset")["condition"].agg(lambda c: sorted(set(c)))
        chosen = {d: BASELINE if BASELINE in c else c[0] for d, c in conditions.items()}
        baseline = means[(means["condition"] == means["dataset"].map(chosen)).to_numpy()]
        by = ["dataset", "condition", "trait_id", "judge"]
        baseline = baseline.assign(  # rank, rank_low, rank_high: the means' own
            models_ranked=baseline.groupby(by)["mean"].transform("size").astype(np.int64))
        strengths = results.strengths.rename(columns={
            "strength": "strength_derived_from_scores", "ci_low": "strength_ci_low",
            "ci_high": "strength_ci_high", "relevance": "derived_relevance",
            "cohens_kappa": "derived_cohens_kappa", "wins": "derived_wins",
            "losses": "derived_losses", "ties": "derived_ties",
            "comparisons": "derived_comparisons"}).drop(columns="source_model")
        baseline = baseline.merge(strengths, how="left",
                                  on=["dataset", "condition", "model", "trait_id", "judge"])
        baseline = baseline.assign(trait=baseline["trait_id"].map(ctx.labels))
        bend = results.bend
        by = ["dataset", "condition", "judge"]
        bend = pd.concat([bend, grouped_rank_ranges(bend, by, "bend")], axis=1).assign(
            models_ranked=bend.groupby(by)["bend"].transform("size").astype(np.int64))
        scales = {t: (float(lo), float(hi)) for t, lo, hi in results.traits[
            ["trait_id", "scale_min", "scale_max"]].itertuples(index=False)}
        return cls(by_model(baseline), model_parts(baseline), by_model(results.shifts),
                   by_model(bend), scales, dict(results.judges))

    def sections(self, ctx: SiteContext, model: str) -> list[Section]:
        own = self.baseline.get(model)
        if own is None:
            return []
        slug, page = model_page(ctx, model)
        name = ctx.registry.display_name(model)
        download = ctx.output.data(
            f"models/{slug}/personality", own[PUBLISHED],
            f"{name}: judged personality (means, rank, and strength against the other "
            "models from votes derived from scores), at baseline where there are "
            "conditions", page)
        pressure = self.pressure(ctx, model)
        found: list[Section] = []
        for dataset, judge, part in self.parts.get(model, []):
            lowest, highest = self.scales.get(part["trait_id"].iloc[0], (np.nan, np.nan))
            record = find(dataset)
            if record and record.rubric:  # its rubric's ends, not the stored 0-10
                lowest, highest = record.rubric
            unit = record.unit_label if record else "prompt"
            section_id = "personality" if not found else f"personality-{len(found) + 1}"
            # Strengths only where votes were derived (not from repeated answers).
            derived = bool(part["strength_derived_from_scores"].notna().any())
            tables = [personality_table(ctx, page, part, download, f"{section_id}-means",
                                        derived=derived)]
            if pressure:  # how the scores move under pressure, if they were
                tables += pressure_tables(ctx, page, dataset, judge, *pressure)
            found.append(PersonalitySection(
                id=section_id,
                heading=f"Judged personality ({dataset_name(dataset)})",
                summary=f"{len(part)} traits scored by {judge_name(ctx, judge)} on "
                        f"{int(part['n_prompts'].max()):,} {unit}s",
                judged_by=judge_name(ctx, judge), partial="sections/personality.html",
                datasets=(dataset,), tables=tuple(tables),
                judge_description=self.judges.get(judge, ""),
                condition=part["condition"].iloc[0],
                scale="no stated scale" if np.isnan(lowest) else f"{lowest:g} to {highest:g}",
                notes=self_judge_notes(ctx, dataset, model),
                prompts=int(part["n_prompts"].max()), unit=unit,
                interval=(f"comes from how far the model's {unit}s differ, weighed against "
                          "how far every model's do (Methodology: “Means over a model's "
                          "repeated answers”)"
                          if record and record.unit else "resamples the prompts"),
                models=int(part["models_ranked"].max()), source=source_credit(dataset),
                derived=derived, headline=highest_place(ctx, page, part, judge_badge(
                    ctx, dataset, model))))
        return found

    def pressure(self, ctx: SiteContext, model: str
                 ) -> tuple[pd.DataFrame, pd.DataFrame, Download, Download] | None:
        """The model's bend and shifts (labelled) and their downloads, or None when it was
        not scored under pressure."""
        shifts, bend = self.shifts.get(model), self.bend.get(model)
        if shifts is None or bend is None:
            return None
        slug, page = model_page(ctx, model)
        name = ctx.registry.display_name(model)
        shifts = labelled(shifts, ctx.labels)
        return (bend, shifts,
                ctx.output.data(f"models/{slug}/bend", bend.drop(columns="models_ranked").assign(
                    models_compared=bend["models_ranked"]),
                    f"{name}: how much its judged personality bends under each pressure "
                    "condition", page),
                ctx.output.data(f"models/{slug}/pressure", shifts.sort_values(
                    ["dataset", "condition", "trait_id"], kind="stable"),
                    f"{name}: shift of each trait's score from baseline under each pressure "
                    "condition", page))


def by_model(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    return dict(tuple(frame.groupby("model", sort=False)))


def model_parts(baseline: pd.DataFrame) -> dict[str, list[tuple[str, str, pd.DataFrame]]]:
    """Each model's (dataset, judge, its rows) in that order, the rows by trait label
    (stable): one sort and one grouping for every model, not one per page.  Sorting all
    the rows before grouping orders each group as sorting the group alone would."""
    found: dict[str, list[tuple[str, str, pd.DataFrame]]] = {}
    ordered = baseline.sort_values("trait", kind="stable")
    for (model, dataset, judge), part in ordered.groupby(["model", "dataset", "judge"],
                                                          sort=True):
        found.setdefault(model, []).append((dataset, judge, part))
    return found


# The columns personality_table reads, in its order: only these become Python values,
# in one conversion (itertuples over every published column cost more than the rest of
# the section).
TABLE_COLUMNS = ["trait", "trait_id", "mean", "ci_low", "ci_high", "below_rubric_floor", "n",
                 "rank", "models_ranked", "rank_low", "rank_high",
                 "strength_derived_from_scores", "strength_ci_low", "strength_ci_high",
                 "n_prompts"]


def pressure_tables(ctx: SiteContext, page: str, dataset: str, judge: str,
                    bend: pd.DataFrame, shifts: pd.DataFrame, bend_download: Download,
                    shifts_download: Download) -> list[Table]:
    """The bend and the largest shifts of one dataset and judge (none without a bend)."""
    own_bend = bend[((bend["dataset"] == dataset) & (bend["judge"] == judge)).to_numpy()]
    if not len(own_bend):
        return []
    own_shifts = shifts[((shifts["dataset"] == dataset)
                         & (shifts["judge"] == judge)).to_numpy()]
    return [bend_table(own_bend, bend_download, ctx.prepared(floor_counts)),
            shifts_table(ctx, page, own_shifts, shifts_download)]


def highest_place(ctx: SiteContext, page: str, part: pd.DataFrame,
                  marks: dict[str, str]) -> Headline | None:
    """The trait on which the model takes its highest place among the scored models
    (the higher mean breaks a tie), for the top of its page; None when nothing is
    ranked.  `marks`: its judge_badge."""
    ranked = part[part["rank"].fillna(0) > 0]
    if ranked.empty:
        return None
    best = ranked.sort_values(["rank", "mean", "trait_id"], ascending=[True, False, True],
                              kind="stable").iloc[0]
    return Headline("highest place", best["trait"],
                    link(page, ctx.slugs.page(TRAITS, best["trait_id"])),
                    number(best["mean"]), interval_text(best["ci_low"], best["ci_high"]),
                    rank_text(best["rank"], best["models_ranked"], best["rank_low"],
                              best["rank_high"]), **marks)


def personality_table(ctx: SiteContext, page: str, part: pd.DataFrame,
                      download: Download, table_id: str = "personality", *,
                      derived: bool = True) -> Table:
    """Per trait: the baseline mean (95% interval), its rank, and, when votes were
    `derived` from the scores, the strength against every other model."""
    condition = part["condition"].iloc[0]
    record = find(str(part["dataset"].iloc[0]))
    unit = record.unit_label if record else "prompt"
    models = int(part["models_ranked"].max())
    rows = []
    for (trait, trait_id, mean, low, high, below, n, rank, ranked, rank_low, rank_high,
         strength, strength_low, strength_high, prompts
         ) in part[TABLE_COLUMNS].to_numpy(dtype=object).tolist():
        rows.append([
            Cell(trait, href=link(page, ctx.slugs.page(TRAITS, trait_id)), header=True),
            below_floor(estimate_cell(mean, low, high, what="mean score"), below, n),
            rank_cell(rank, ranked, rank_low, rank_high),
            *([estimate_cell(strength, strength_low, strength_high, signs=True,
                             css=heat_class(strength), what="strength derived from scores")]
              if derived else []),
            count_cell(prompts)])
    strength_column = [Column("strength", "Strength vs others (derived from scores)",
                              cue="higher = shown more than the others",
                              title="(wins − losses) / comparisons against every other "
                                    "model on the same prompts, from votes derived from "
                                    "the scores")] if derived else []
    return Table(table_id, f"Mean score per trait{' at ' + condition if condition else ''}"
                 + (", and strength against the other models (derived from scores)"
                    if derived else ""), [
                     Column("trait", "Trait", numeric=False),
                     Column("mean", "Mean score", cue=CUE_MORE,
                            title="the average of the panel's scores over the prompts"),
                     Column("rank", "Rank", cue="1 = highest mean; 95% range under it",
                            title=f"place among the {models} scored models by the mean; "
                            "under it, the 95% range of the rank over the bootstrap "
                            "resamples"),
                     *strength_column,
                     Column("prompts", "Prompts" if unit == "prompt" else f"{unit.capitalize()}s")],
                 rows, download,
                 note=FLOOR_COUNTED if part["below_rubric_floor"].any() else "")


def bend_table(bend: pd.DataFrame, download: Download,
               floors: dict[tuple[str, str, str], tuple[int, int]]) -> Table:
    """Per pressure condition: the bend (mean size of the trait shifts) and its rank;
    marked where scores under the rubric's floor lie behind it (`floors`)."""
    rows = []
    marked = False
    for r in bend.itertuples(index=False):
        label, what = CONDITIONS.get(r.condition, (r.condition, ""))
        marked |= (r.dataset, r.condition, r.model) in floors
        rows.append([Cell(label, header=True, title=what or None),
                     bend_cell(r, floors),
                     rank_cell(r.rank, r.models_ranked, r.rank_low, r.rank_high),
                     count_cell(r.n_pairs)])
    return Table("bend", "How much the scores bend under each condition", [
        Column("condition", "Condition", numeric=False),
        Column("bend", "Bend (points)", cue="higher = moves more",
               title="the mean, over the traits, of the size of the shift from baseline"),
        Column("rank", "Rank", cue="1 = bends most; 95% range under it",
               title="place among the models scored under the condition; under it, the "
               "95% range of the rank (drawn from each model's interval)"),
        Column("pairs", "Paired questions",
               title="questions asked both at baseline and under the condition")],
        rows, download, note=FLOOR_NOTE if marked else "")


def shifts_table(ctx: SiteContext, page: str, shifts: pd.DataFrame,
                 download: Download) -> Table:
    """The model's largest trait shifts from baseline, over every condition."""
    largest = shifts.assign(size=shifts["shift"].abs()).sort_values(
        ["size", "condition", "trait_id"], ascending=[False, True, True], kind="stable"
    ).head(TOP_SHIFTS)
    rows = [[Cell(r.trait, href=link(page, ctx.slugs.page(TRAITS, r.trait_id)), header=True),
             Cell(condition_label(r.condition), css="text", title=CONDITIONS.get(
                 r.condition, ("", ""))[1] or None),
             estimate_cell(r.shift, r.ci_low, r.ci_high, signs=True, what="shift"),
             Cell(f"{number(r.baseline_mean)} → {number(r.condition_mean)}",
                  sort_value(r.condition_mean)),
             count_cell(r.n_pairs)] for r in largest.itertuples(index=False)]
    return Table("shifts", f"The {len(rows)} largest trait shifts from baseline", [
        Column("trait", "Trait", numeric=False),
        Column("condition", "Condition", numeric=False),
        Column("shift", "Shift (points)", cue="above zero = more under pressure",
               title="the condition's score minus the baseline's, averaged over paired "
                     "questions"),
        Column("means", "Baseline → condition", numeric=False),
        Column("pairs", "Paired questions")], rows, download)
