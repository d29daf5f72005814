"""A page per model id (ctx.slugs.models): the model's profile across all its datasets.

One page whatever each dataset calls the model (the registry, content/models.toml):
- judged personality from judge scores (Behavioral Profiling): baseline means with their
  rank, the strength against the other models from votes derived from the scores, and a
  compact summary of how the scores move under pressure;
- judged pairs without the reference model (EQ-Bench 3): Elo and strength per criterion;
- the comparisons with the reference model (AlpacaEval): the traits the rule-based judge
  counts (text statistics, not personality), ratings, communication traits, example pairs.
A section appears only when the model has data for it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from ffsite._names import safe_name
from ffsite.datasets import BASELINE, CONDITIONS, SOURCES, condition_label, dataset_name
from ffsite.format.read import Annotations
from ffsite.metrics.ranking import grouped_interval_ranks
from ffsite.metrics.results import PairwiseResults, ScoreResults, model_dataset_counts
from ffsite.site import charts
from ffsite.site.context import SiteContext, labelled
from ffsite.site.examples import Example, ExamplePool, choose_examples
from ffsite.site.model_meta import meta_facts
from ffsite.site.pages import big_five, communication, eigenbench
from ffsite.site.pages.ratings import rating_table
from ffsite.site.render import NOT_ZERO, heat_class, number
from ffsite.site.urls import DATASETS, MODELS, TRAITS, link, page_path
from ffsite.site.views import (
    Cell,
    Column,
    Table,
    chart,
    count_cell,
    estimate_cell,
    metric_columns,
    rank_cell,
    sort_value,
)

TOP = 5  # traits listed as most / least exhibited
TOP_SHIFTS = 5  # the largest trait shifts under pressure listed on a model page

PRESSURE_PAGE = page_path("pressure")  # the Under pressure page: every model, every condition
EQBENCH_PAGE = page_path("eqbench")  # the EQ-Bench 3 page: every model, every criterion
CUE_MORE = "higher = shown more"


def judge_name(ctx: SiteContext, judge: str) -> str:
    """A judge as pages name it: the registry's name when the judge is a registered model
    (EQ-Bench 3's claude-3.7-sonnet), else its id."""
    return ctx.registry.display_name(judge)


def build(ctx: SiteContext) -> None:
    judged = JudgedScores.create(ctx.score_results()) if len(ctx.scores) else None
    pairwise = {dataset: (results, pairwise_by_model(ctx, results))
                for dataset, results in ctx.pairwise().items()}
    versus = VersusReference.create(ctx)
    for model in ctx.progress.items("model pages", sorted(ctx.slugs.models, key=str.lower)):
        slug = ctx.slugs.models[model]
        page = page_path(MODELS, slug)
        personality = judged.sections(ctx, model, slug, page) if judged else []
        eqbench = [pairwise_section(ctx, results, by_model[model], model, slug, page)
                   for results, by_model in pairwise.values() if model in by_model]
        text = versus.section(ctx, model, slug, page)
        panel = big_five.model_panel(ctx, model, page)
        judged_by_peers = eigenbench.model_section(ctx, model, slug, page)
        found = [(s["id"], s["heading"], s["summary"])
                 for s in [*personality, *([panel] if panel else []),
                           *([judged_by_peers] if judged_by_peers else []), *eqbench]]
        if text:
            found.append((text["id"], text["heading"], text["summary"]))
        datasets = [s["dataset"] for s in [*personality, *eqbench]] + (
            text["datasets"] if text else []) + (
            judged_by_peers["datasets"] if judged_by_peers else [])
        charts_shown = [text["profile"]] if text and text.get("profile") else []
        name = ctx.registry.display_name(model)
        ctx.output.page(page, "model.html", section=page_path("index"), model=model,
                        name=name, description=model_description(ctx, model, name, found),
                        facts=model_facts(ctx, model, datasets), found=found,
                        personality=personality, big_five=panel,
                        eigenbench=judged_by_peers, eqbench=eqbench, text=text,
                        charts=charts_shown, trait_pages=ctx.slugs.pages(TRAITS))


def model_description(ctx: SiteContext, model: str, name: str,
                      found: list[tuple[str, str, str]]) -> str:
    """The page's one-sentence description (search results, link previews): the model,
    who made it, and what the page has on it."""
    entry = ctx.registry.get(model)
    by = f" by {entry.organisation}" if entry is not None and entry.organisation else ""
    if not found:
        return f"{name}{by}. None of the loaded datasets has numbers for this model."
    headings = [h[0].lower() + h[1:] if h[1:2].islower() else h for _, h, _ in found]
    return f"{name}{by}. On this page: " + "; ".join(headings) + "."


def model_facts(ctx: SiteContext, model: str, datasets: list[str]) -> list[tuple[str, str]]:
    """(label, value) pairs of the page's header: what the registry knows about the model,
    and its name in each dataset it appears in (its id, when the registry has no entry)."""
    entry = ctx.registry.get(model)
    facts = [("Id", model), *meta_facts(entry)]
    aliases = dict(entry.aliases) if entry is not None else {}
    for dataset in datasets:
        aliases.setdefault(dataset, (model,))
    for dataset, names in sorted(aliases.items(), key=lambda item: dataset_name(item[0])):
        facts.append((f"Name in {dataset_name(dataset)}", ", ".join(names)))
    if entry is not None and entry.note:
        facts.append(("Note", entry.note))
    return facts


def source_credit(dataset: str) -> dict[str, str] | None:
    found = SOURCES.get(dataset)
    return None if found is None else {"name": found[0], "url": found[1], "licence": found[2]}


# ------------------------------------------------------------- judged personality

@dataclass(frozen=True)
class JudgedScores:
    """What judge scores say, prepared once for every model page: the baseline means
    (ranked among the scored models, with the strength from derived votes), the shifts
    under pressure and the bend (ranked)."""

    baseline: dict[str, pd.DataFrame]  # by model
    shifts: dict[str, pd.DataFrame]  # by model
    bend: dict[str, pd.DataFrame]  # by model
    scales: dict[str, tuple[float, float]]  # trait id -> (lowest, highest) score
    judges: dict[str, str]  # judge id -> description

    @classmethod
    def create(cls, results: ScoreResults) -> JudgedScores:
        means = results.means
        # The baseline of a dataset: its "baseline" condition, else its only one ("" when
        # the responses have no condition).
        conditions = means.groupby("dataset")["condition"].agg(lambda c: sorted(set(c)))
        chosen = {d: BASELINE if BASELINE in c else c[0] for d, c in conditions.items()}
        baseline = means[(means["condition"] == means["dataset"].map(chosen)).to_numpy()]
        by = ["dataset", "condition", "trait_id", "judge"]
        baseline = baseline.assign(
            rank=grouped_interval_ranks(baseline, by),
            models_ranked=baseline.groupby(by)["mean"].transform("size").astype(np.int64))
        strengths = results.strengths.rename(columns={
            "strength": "strength_derived_from_scores", "ci_low": "strength_ci_low",
            "ci_high": "strength_ci_high", "relevance": "derived_relevance",
            "cohens_kappa": "derived_cohens_kappa", "wins": "derived_wins",
            "losses": "derived_losses", "ties": "derived_ties",
            "comparisons": "derived_comparisons"}).drop(columns="source_model")
        baseline = baseline.merge(strengths, how="left",
                                  on=["dataset", "condition", "model", "trait_id", "judge"])
        bend = results.bend
        by = ["dataset", "condition", "judge"]
        bend = bend.assign(rank=grouped_interval_ranks(bend, by),
                           models_ranked=bend.groupby(by)["bend"].transform("size").astype(
                               np.int64))
        scales = {t: (float(lo), float(hi)) for t, lo, hi in results.traits[
            ["trait_id", "scale_min", "scale_max"]].itertuples(index=False)}
        return cls(by_model(baseline), by_model(results.shifts), by_model(bend), scales,
                   dict(results.judges))

    def sections(self, ctx: SiteContext, model: str, slug: str, page: str
                 ) -> list[dict[str, Any]]:
        """One section per scored dataset the model has baseline scores in."""
        own = self.baseline.get(model)
        if own is None:
            return []
        own = own.assign(trait=own["trait_id"].map(ctx.labels))
        published = own[["dataset", "condition", "model", "source_model", "trait_id", "trait",
                         "judge", "mean", "ci_low", "ci_high", "n", "n_prompts", "rank",
                         "models_ranked", "strength_derived_from_scores", "strength_ci_low",
                         "strength_ci_high", "derived_relevance", "derived_cohens_kappa",
                         "derived_wins", "derived_losses", "derived_ties",
                         "derived_comparisons"]]
        name = ctx.registry.display_name(model)
        download = ctx.output.data(
            f"models/{slug}/personality", published,
            f"{name}: judged personality at baseline (means, rank, and strength against the "
            "other models from votes derived from scores)", page)
        shifts = self.shifts.get(model)
        bend = self.bend.get(model)
        pressure_downloads = None
        if shifts is not None and bend is not None:
            shifts = labelled(shifts, ctx.labels)
            pressure_downloads = (
                ctx.output.data(f"models/{slug}/bend", bend.drop(columns="models_ranked").assign(
                    models_compared=bend["models_ranked"]),
                    f"{name}: how much its judged personality bends under each pressure "
                    "condition", page),
                ctx.output.data(f"models/{slug}/pressure", shifts.sort_values(
                    ["dataset", "condition", "trait_id"], kind="stable"),
                    f"{name}: shift of each trait's score from baseline under each pressure "
                    "condition", page))
        found = []
        for (dataset, judge), part in own.groupby(["dataset", "judge"], sort=True):
            part = part.sort_values("trait", kind="stable")
            lowest, highest = self.scales.get(part["trait_id"].iloc[0], (np.nan, np.nan))
            section = {
                "id": "personality" if not found else f"personality-{len(found) + 1}",
                "dataset": dataset, "dataset_name": dataset_name(dataset),
                "heading": f"Judged personality ({dataset_name(dataset)})",
                "summary": f"{len(part)} traits scored by {judge_name(ctx, judge)} on "
                           f"{int(part['n_prompts'].max()):,} prompts",
                "judge": judge_name(ctx, judge), "judge_description": self.judges.get(judge, ""),
                "condition": part["condition"].iloc[0],
                "scale": "no stated scale" if np.isnan(lowest) else f"{lowest:g} to {highest:g}",
                "prompts": int(part["n_prompts"].max()),
                "models": int(part["models_ranked"].max()),
                "source": source_credit(dataset),
                "table": personality_table(ctx, page, part, download),
                "bend": None, "shifts": None, "pressure_page": PRESSURE_PAGE}
            if pressure_downloads:  # how the scores move under pressure, if they were
                own_bend = bend[((bend["dataset"] == dataset)
                                 & (bend["judge"] == judge)).to_numpy()]
                own_shifts = shifts[((shifts["dataset"] == dataset)
                                     & (shifts["judge"] == judge)).to_numpy()]
                if len(own_bend):
                    section["bend"] = bend_table(own_bend, pressure_downloads[0])
                    section["shifts"] = shifts_table(ctx, page, own_shifts,
                                                     pressure_downloads[1])
            found.append(section)
        return found


def by_model(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    return dict(tuple(frame.groupby("model", sort=False)))


def personality_table(ctx: SiteContext, page: str, part: pd.DataFrame, download) -> Table:
    """Per trait: the baseline mean (95% interval), its rank, and the strength from
    derived votes against every other model."""
    models = int(part["models_ranked"].max())
    rows = []
    for r in part.itertuples(index=False):
        rows.append([
            Cell(r.trait, href=link(page, ctx.slugs.page(TRAITS, r.trait_id)), header=True),
            estimate_cell(r.mean, r.ci_low, r.ci_high, what="mean score"),
            rank_cell(r.rank, r.models_ranked),
            estimate_cell(r.strength_derived_from_scores, r.strength_ci_low,
                          r.strength_ci_high, signs=True,
                          css=heat_class(r.strength_derived_from_scores),
                          what="strength derived from scores"),
            count_cell(r.n_prompts)])
    return Table("personality", "Mean score per trait at baseline, and strength against "
                 "the other models (derived from scores)", [
                     Column("trait", "Trait", numeric=False),
                     Column("mean", "Mean score", cue=CUE_MORE,
                            title="the average of the panel's scores over the prompts"),
                     Column("rank", "Rank", cue="1 = highest mean",
                            title=f"among the {models} scored models: 1 + those whose 95% "
                            "interval lies wholly above"),
                     Column("strength", "Strength vs others (derived from scores)",
                            cue="higher = shown more than the others",
                            title="(wins − losses) / comparisons against every other model "
                                  "on the same prompts, from votes derived from the scores"),
                     Column("prompts", "Prompts")], rows, download)


def bend_table(bend: pd.DataFrame, download) -> Table:
    """Per pressure condition: the bend (mean size of the trait shifts) and its rank."""
    rows = []
    for r in bend.itertuples(index=False):
        label, what = CONDITIONS.get(r.condition, (r.condition, ""))
        rows.append([Cell(label, header=True, title=what or None),
                     estimate_cell(r.bend, r.ci_low, r.ci_high, what="bend"),
                     rank_cell(r.rank, r.models_ranked),
                     count_cell(r.n_pairs)])
    return Table("bend", "How much the scores bend under each condition", [
        Column("condition", "Condition", numeric=False),
        Column("bend", "Bend (points)", cue="higher = moves more",
               title="the mean, over the traits, of the size of the shift from baseline"),
        Column("rank", "Rank", cue="1 = bends most", title="among the models scored under "
               "the condition: 1 + those whose 95% interval lies wholly above"),
        Column("pairs", "Paired questions",
               title="questions asked both at baseline and under the condition")],
        rows, download)


def shifts_table(ctx: SiteContext, page: str, shifts: pd.DataFrame, download) -> Table:
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


# ------------------------------------------------------------- judged pairs (EQ-Bench 3)

def pairwise_by_model(ctx: SiteContext, results: PairwiseResults) -> dict[str, pd.DataFrame]:
    """Per model of a dataset of judged pairs: per criterion, its strength against the
    other models and its Elo, ranked among the rated models (the published columns)."""
    ratings = results.ratings
    ranked = ratings.assign(
        elo_rank=grouped_interval_ranks(ratings, ["trait_id"]),
        models_rated=ratings.groupby("trait_id")["elo"].transform("size").astype(np.int64))[
        ["model", "trait_id", "elo", "ci_low", "ci_high", "elo_rank", "models_rated", "n"]
    ].rename(columns={"ci_low": "elo_ci_low", "ci_high": "elo_ci_high",
                      "n": "rated_comparisons"})
    strengths = results.models.traits[
        ["model", "trait_id", "strength", "strength_low", "strength_high", "relevance",
         "cohens_kappa", "valid_votes", "num_votes", "finding"]]
    merged = strengths.merge(ranked, how="outer", on=["model", "trait_id"])
    merged.insert(0, "dataset", results.dataset)
    merged = labelled(merged, ctx.labels, label_column="criterion")
    merged = merged.sort_values(["model", "criterion", "trait_id"], kind="stable")
    return {model: own.reset_index(drop=True)
            for model, own in merged.groupby("model", sort=False)}


def pairwise_section(ctx: SiteContext, results: PairwiseResults, merged: pd.DataFrame,
                     model: str, slug: str, page: str) -> dict[str, Any]:
    """The model's Elo and strength per criterion on a dataset of judged pairs without
    the reference model (`merged`: its rows of `pairwise_by_model`)."""
    name = ctx.registry.display_name(model)
    dataset = results.dataset
    judges = sorted(set(ctx.traits.set_index("trait_id")["judge"].reindex(
        merged["trait_id"]).dropna()))
    download = ctx.output.data(
        f"models/{slug}/dataset-{safe_name(dataset)}", merged,
        f"{name}: Elo and strength against the other models per criterion "
        f"({dataset_name(dataset)})", page)
    anchor = results.anchor
    rows = []
    for r in merged.itertuples(index=False):
        if pd.isna(r.elo):
            elo = Cell("–")
        elif r.model == anchor:
            elo = Cell(number(r.elo, 0), sort_value(r.elo), interval="anchor, fixed",
                       title="the anchor: fixed at 1000 on every criterion")
        else:
            elo = estimate_cell(r.elo, r.elo_ci_low, r.elo_ci_high, digits=0, what="Elo")
        finding = bool(r.finding) if not pd.isna(r.finding) else False
        strength = Cell("–") if pd.isna(r.strength) else estimate_cell(
            r.strength, r.strength_low, r.strength_high, signs=True,
            css=heat_class(r.strength, finding), what="strength")
        rows.append([
            Cell(r.criterion, href=link(page, ctx.slugs.page(TRAITS, r.trait_id)),
                 header=True),
            elo,
            rank_cell(r.elo_rank, r.models_rated),
            strength,
            Cell("–") if pd.isna(r.valid_votes) else count_cell(r.valid_votes),
            Cell("–") if pd.isna(r.num_votes) else count_cell(r.num_votes)])
    table = Table(f"pairs-{slug_of(dataset)}", "Elo and strength per criterion", [
        Column("criterion", "Criterion", numeric=False),
        Column("elo", "Elo", cue=CUE_MORE, title=f"Bradley–Terry with Firth's penalty; "
               f"{ctx.registry.display_name(anchor) if anchor else 'the anchor'} = 1000"),
        Column("rank", "Rank", cue="1 = highest Elo", title="1 + the rated models whose "
               "95% interval lies wholly above this one's"),
        Column("strength", "Strength vs others", cue="higher = shown more than the others",
               title="(agreed − disagreed) / comparisons, against every other model it met"),
        Column("valid", "Valid votes", title="comparisons with an A/B vote on the criterion"),
        Column("n", "Comparisons")], rows, download)
    return {"id": slug_of(dataset), "dataset": dataset, "dataset_name": dataset_name(dataset),
            "heading": dataset_name(dataset),
            "summary": f"{len(merged)} criteria judged in pairs by "
                       + ", ".join(judge_name(ctx, j) for j in judges),
            "judges": [judge_name(ctx, j) for j in judges],
            "anchor": ctx.registry.display_name(anchor) if anchor else None,
            "anchor_page": ctx.slugs.page(MODELS, anchor) if anchor else None,
            "is_anchor": model == anchor, "min_valid": ctx.min_valid,
            "source": source_credit(dataset), "table": table,
            "page": EQBENCH_PAGE if dataset == "eqbench3" else None}


def slug_of(dataset: str) -> str:
    """An HTML id for a dataset's section."""
    return {"eqbench3": "eqbench"}.get(dataset, f"pairs-{dataset}")


# ------------------------------------------------------------- against the reference

@dataclass(frozen=True)
class VersusReference:
    """What every page's "against the reference" section needs, prepared once."""

    counts: pd.DataFrame
    summaries: dict[str, list[dict[str, Any]]]
    by_model: dict[str, pd.DataFrame]
    pool: ExamplePool | None
    ratings_of: dict[str, pd.DataFrame]
    indices_of: dict[str, pd.DataFrame]
    rows: dict[str, tuple[int, int]]  # model -> (comparisons with the reference, all)

    @classmethod
    def create(cls, ctx: SiteContext) -> VersusReference:
        results = ctx.models
        if results.models.empty:
            return cls(pd.DataFrame(columns=["model", "dataset", "comparisons"]), {}, {},
                       None, {}, {}, {})
        datasets = sorted(set(ctx.annotations.comparisons["dataset"].astype(object).to_numpy()[
            results.reference.comparison]))
        pool = ExamplePool.create(ctx.annotations, ctx.votes, ctx.labels,
                                  ctx.slugs.pages(TRAITS), ctx.texts, ctx.preference_of,
                                  datasets)
        return cls(model_dataset_counts(ctx.annotations, results),
                   run_summaries_by_model(ctx.annotations, results.reference_model),
                   dict(tuple(results.traits.groupby("model", sort=False))), pool,
                   dict(tuple(ctx.ratings().groupby("model", sort=False))),
                   dict(tuple(ctx.indices().groupby("model", sort=False))),
                   {m: (int(n), int(a)) for m, n, a in results.models.itertuples(index=False)})

    def section(self, ctx: SiteContext, model: str, slug: str, page: str
                ) -> dict[str, Any] | None:
        """The model against the reference, or what being the reference means; None when
        the model has neither."""
        reference = ctx.models.reference_model
        if model in self.rows:
            return self.compared(ctx, model, slug, page)
        if model == reference and reference is not None:
            return reference_section(ctx, model, slug, page)
        return None

    def compared(self, ctx: SiteContext, model: str, slug: str, page: str) -> dict[str, Any]:
        results = ctx.models
        n_reference, n_all = self.rows[model]
        own = self.by_model.get(model, results.traits.iloc[:0])  # none: never asked a trait
        own = own.sort_values(["strength", "trait_id"], ascending=[False, True], kind="stable")
        examples, anchors = choose_examples(self.pool, ctx.votes, results, model)
        name = ctx.registry.display_name(model)
        download = ctx.output.data(f"models/{slug}/traits", own, f"{name}: traits vs the reference",
                                   page)
        counts = self.counts[self.counts["model"] == model]
        datasets = list(counts["dataset"])
        judges = sorted(set(ctx.traits.set_index("trait_id")["judge"].reindex(
            own["trait_id"]).dropna()))
        rules = bool(judges) and all(j.startswith("rules") for j in judges)
        where = ", ".join(dataset_name(d) for d in datasets)
        heading = (f"Text statistics ({where}, rule-based judge)" if rules
                   else f"Traits against the reference ({where})")
        findings = own[own["finding"]]
        profile = chart("profile", charts.strength_bars(
            own.assign(name=own["trait"]), "trait",
            f"Strength of each trait for {name} against the reference, strongest first; "
            "faint bars have too few valid votes to count as findings. The table below "
            "lists the same numbers."))
        return {
            "id": "text-statistics", "heading": heading, "rules": rules,
            "judges": judges, "datasets": datasets, "dataset_names": where,
            "summary": f"{len(own)} traits {'counted by program' if rules else 'judged'} in "
                       f"{n_reference:,} comparisons with {reference_name(ctx)}",
            "is_reference": False, "reference": results.reference_model,
            "reference_page": reference_page(ctx), "reference_name": reference_name(ctx),
            "n_reference": n_reference, "n_all": n_all,
            "trait_table": traits_table(ctx, page, own, anchors, download),
            "count_table": comparisons_table(ctx, counts, name, slug, page),
            "rated": ratings_and_indices(ctx, model, name, slug, page,
                                         self.ratings_of.get(model), self.indices_of.get(model)),
            "talk": communication.model_table(ctx, model),
            "most": findings[findings["strength"] >= NOT_ZERO].head(TOP),
            "least": findings[findings["strength"] <= -NOT_ZERO].sort_values(
                "strength").head(TOP),
            "profile": profile, "examples": examples,
            # The preference judge asked about these pairs but rated none (AlpacaEval's
            # judge rated only some models): said once, in plain words.
            "unrated_by": unrated_by(examples),
            "summaries": self.summaries.get(model, []),
            "sources": [c for d in datasets if (c := source_credit(d))]}


def unrated_by(examples: list[Example]) -> str | None:
    """The judge's name when it was asked about every example pair and rated none."""
    judges = {ex.preference_judge for ex in examples}
    if not examples or None in judges or len(judges) != 1 or any(ex.rated for ex in examples):
        return None
    return judges.pop()


def reference_name(ctx: SiteContext) -> str:
    reference = ctx.models.reference_model
    return ctx.registry.display_name(reference) if reference else "the other models"


def reference_page(ctx: SiteContext) -> str | None:
    reference = ctx.models.reference_model
    return ctx.slugs.page(MODELS, reference) if reference else None


def reference_section(ctx: SiteContext, model: str, slug: str, page: str) -> dict[str, Any]:
    """The reference model's own section: every other model is measured against it, so it
    has no strengths of its own; its comparisons per dataset and communication traits."""
    comparisons = ctx.annotations.comparisons
    mine = ((comparisons["model_a"] == model) | (comparisons["model_b"] == model)).to_numpy()
    counts = comparisons["dataset"].astype(object)[mine].value_counts().sort_index()
    datasets = list(counts.index)
    where = ", ".join(dataset_name(d) for d in datasets)
    download = ctx.output.data(
        f"models/{slug}/comparisons", pd.DataFrame({"dataset": datasets,
                                                    "comparisons": counts.to_numpy()}),
        f"{ctx.registry.display_name(model)}: comparisons per dataset (the reference model)",
        page)
    table = Table("comparisons", "Comparisons with the other models, per dataset",
                  [Column("dataset", "Dataset", numeric=False),
                   Column("comparisons", "Comparisons")],
                  [[Cell(dataset_name(d), href=link(page, ctx.slugs.page(DATASETS, d)),
                         header=True), count_cell(n)] for d, n in counts.items()], download)
    return {"id": "text-statistics", "heading": f"The reference model ({where})",
            "is_reference": True, "datasets": datasets, "dataset_names": where,
            "summary": f"every other {where} model is compared with it",
            "anchor": bool(len(ctx.ratings())),
            "n_all": int(mine.sum()), "count_table": table,
            "talk": communication.model_table(ctx, model),
            "sources": [c for d in datasets if (c := source_credit(d))]}


def traits_table(ctx: SiteContext, page: str, own: pd.DataFrame, anchors: dict[str, str],
                 download) -> Table:
    """The model's FF metrics per trait (intervals in view), each trait linked to its
    example pair."""
    columns = [Column("trait", "Trait", numeric=False), *metric_columns()]
    if anchors:
        columns.append(Column("example", "Example", numeric=False))
    rows = []
    for row in own.itertuples(index=False):
        cells = [Cell(row.trait, href=link(page, ctx.slugs.page(TRAITS, row.trait_id)),
                      header=True),
                 *estimate_metric_cells(row, ctx.min_valid)]
        if anchors:
            anchor = anchors.get(row.trait_id)
            cells.append(Cell("see example", href=f"#{anchor}") if anchor else Cell(""))
        rows.append(cells)
    return Table("traits", "Strength of each trait against the reference",
                 columns, rows, download)


def estimate_metric_cells(row: Any, min_valid: int) -> list[Cell]:
    """views.metric_cells with the 95% intervals in view (strength, relevance, kappa)."""
    strength = estimate_cell(row.strength, row.strength_low, row.strength_high, signs=True,
                             css=heat_class(row.strength, row.finding), what="strength")
    if not row.finding:
        strength = replace(strength, title=f"{strength.title or ''}; only {row.valid_votes} "
                           f"valid votes (fewer than {min_valid})".lstrip("; "))
    return [strength,
            estimate_cell(row.relevance, row.relevance_low, row.relevance_high,
                          what="relevance"),
            estimate_cell(row.cohens_kappa, row.cohens_kappa_low, row.cohens_kappa_high,
                          signs=True, what="kappa"),
            count_cell(row.valid_votes), count_cell(row.num_votes)]


def comparisons_table(ctx: SiteContext, counts: pd.DataFrame, name: str, slug: str,
                      page: str) -> Table:
    """The model's comparisons with the reference, per dataset."""
    mine = counts[["dataset", "comparisons"]]
    download = ctx.output.data(f"models/{slug}/comparisons", mine,
                               f"{name}: comparisons per dataset", page)
    return Table("comparisons", "Comparisons with the reference, per dataset",
                 [Column("dataset", "Dataset", numeric=False),
                  Column("comparisons", "Comparisons")],
                 [[Cell(dataset_name(d), href=link(page, ctx.slugs.page(DATASETS, d)),
                        header=True),
                   count_cell(n)] for d, n in mine.itertuples(index=False)], download)


def ratings_and_indices(ctx: SiteContext, model: str, name: str, slug: str, page: str,
                        ratings: pd.DataFrame | None, indices: pd.DataFrame | None
                        ) -> list[Table]:
    """The model's Elo per trait and its index scores (none when it was not rated)."""
    shown = []
    if ratings is not None:
        own = ratings.sort_values(["elo", "trait_id"], ascending=[False, True], kind="stable")
        download = ctx.output.data(f"models/{slug}/ratings", own, f"{name}: Elo per trait",
                                   page)
        shown.append(rating_table(
            own, "ratings", "Elo rating per trait (the reference is 1000)",
            Column("trait", "Trait", numeric=False),
            lambda r: Cell(r.trait, href=link(page, ctx.slugs.page(TRAITS, r.trait_id)),
                           header=True),
            download))
    if indices is not None:
        download = ctx.output.data(f"models/{slug}/indices", indices,
                                   f"{name}: index scores", page)
        shown.append(Table("model-indices", "Index scores (1–100)", [
            Column("index", "Index", numeric=False),
            Column("score", "Score", cue="higher = shows the index's traits more"),
            Column("interval", "95% interval", numeric=False),
            Column("traits", "Rated traits")],
            [[Cell(r.index, href=link(page, page_path("ratings")), header=True),
              Cell(number(r.score, 0), sort_value(r.score)),
              Cell(f"{number(r.ci_low, 0)} to {number(r.ci_high, 0)}"),
              count_cell(r.traits_used)] for r in indices.itertuples(index=False)], download))
    return shown


def run_summaries_by_model(annotations: Annotations, reference: str | None
                           ) -> dict[str, list[dict[str, Any]]]:
    """Annotate-run summaries (file metadata `extra`) of files about one model (compared
    with the reference), by model."""
    found: dict[str, list[dict[str, Any]]] = {}
    for path, summary in sorted(annotations.run_summaries.items()):
        sides = pq.read_table(path, columns=["model_a", "model_b"])
        models = {m for column in sides.columns for m in column.unique().to_pylist() if m}
        others = sorted(models - {reference})
        if len(others) != 1:
            continue  # a file about many models is not one model's run
        for model in others:
            found.setdefault(model, []).append({"file": Path(path).name,
                                                "items": flatten(summary)})
    return found


# Readable labels of the keys `ffsite annotate` writes in a run summary (annotate/run.py);
# any other key is shown with its underscores as spaces.
SUMMARY_LABELS = {
    "tool": "Tool", "dataset": "Dataset", "model": "Model", "reference": "Reference model",
    "judge": "Judge", "judge_prompt": "Judge prompt version", "trait_set": "Trait set",
    "traits": "Traits", "prompts": "Prompts", "votes_per_comparison": "Votes per comparison",
    "combine": "Votes combined by", "seed": "Seed", "responses": "Responses",
    "temperature": "Temperature", "max_tokens": "Longest answer (tokens)",
    "calls": "API calls", "generation_calls": "Answer calls", "judge_calls": "Judge calls",
    "failed_calls": "Failed calls", "retries": "Retries", "votes": "Votes",
    "invalid_votes": "Invalid votes", "invalid_rate": "Invalid share",
    "prompt_tokens": "Tokens in", "completion_tokens": "Tokens out",
    "total_tokens": "Tokens in all", "cost_usd": "Cost (US$)", "cost_source": "Cost from",
    "complete": "Complete run",
}


def flatten(summary: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """(label, value) pairs of a run summary, readable: known keys get their label, empty
    values (None, "") are left out, yes/no for true/false; nested mappings become
    "outer: inner" labels."""
    items = []
    for key, value in summary.items():
        label = prefix + SUMMARY_LABELS.get(key, str(key).replace("_", " "))
        if isinstance(value, dict):
            items.extend(flatten(value, f"{label}: "))
        elif value is None or value == "":
            continue
        elif isinstance(value, bool):
            items.append((label, "yes" if value else "no"))
        elif key == "invalid_rate" and isinstance(value, int | float):
            items.append((label, f"{value:.1%}"))
        elif key == "cost_usd" and isinstance(value, int | float):
            items.append((label, f"${value:,.4f}"))
        elif isinstance(value, float):
            items.append((label, f"{value:,.4g}"))
        elif isinstance(value, int) and key != "seed":
            items.append((label, f"{value:,}"))
        else:
            items.append((label, str(value)))
    return items
