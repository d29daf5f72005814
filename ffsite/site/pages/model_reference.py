"""A model page's comparisons with the reference model (AlpacaEval, HH-RLHF): the traits
the rule-based judge counts (text statistics, not personality) or a judge votes on, the
ratings, the communication traits and example pairs.  The reference model itself gets
what being the reference means instead."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from ffsite.datasets import dataset_name
from ffsite.metrics.results import model_dataset_counts
from ffsite.site import charts
from ffsite.site.context import SiteContext
from ffsite.site.examples import Example, ExamplePool, choose_examples
from ffsite.site.judging import self_judge_notes
from ffsite.site.output import Download
from ffsite.site.pages import communication
from ffsite.site.pages.model_runs import RunSummary, run_summaries
from ffsite.site.pages.ratings import rating_table, trait_boards
from ffsite.site.render import NOT_ZERO, heat_class, number, signed
from ffsite.site.sections import Credit, Headline, Section, model_page, source_credit
from ffsite.site.urls import DATASETS, MODELS, TRAITS, link, page_path
from ffsite.site.views import (
    Cell,
    Column,
    ListedTrait,
    Table,
    chart,
    count_cell,
    estimate_cell,
    interval_text,
    listed_traits,
    metric_columns,
    sort_value,
)

TOP = 5  # traits listed as most / least exhibited
SECTION_ID = "text-statistics"


@dataclass(frozen=True, kw_only=True)
class VersusReferenceSection(Section):
    rules: bool  # every trait is counted by the rule-based judge
    reference_name: str
    reference_page: str | None
    n_reference: int  # comparisons with the reference
    n_all: int  # comparisons in all
    sources: tuple[Credit, ...]
    most: tuple[ListedTrait, ...]  # findings shown most, strongest first
    least: tuple[ListedTrait, ...]
    examples: list[Example]
    summaries: list[RunSummary]  # the annotation runs about the model alone


@dataclass(frozen=True, kw_only=True)
class ReferenceModelSection(Section):
    dataset_names: str
    n_all: int  # comparisons with the other models
    anchor: bool  # it anchors the ratings
    sources: tuple[Credit, ...]


def reference_sections(ctx: SiteContext, model: str) -> list[Section]:
    """The model against the reference, or what being the reference means; none when the
    model has neither."""
    versus = ctx.prepared(VersusReference.create)
    reference = ctx.models.reference_model
    if model in versus.rows:
        return [versus.compared(ctx, model)]
    if model == reference and reference is not None:
        return [reference_section(ctx, model)]
    return []


@dataclass(frozen=True)
class VersusReference:
    """What every page's "against the reference" section needs, prepared once."""

    counts: pd.DataFrame
    by_model: dict[str, pd.DataFrame]
    pool: ExamplePool | None
    ratings_of: dict[str, pd.DataFrame]
    boards: dict[str, tuple[int, bool]]  # per trait: models rated, any disjoint intervals
    indices_of: dict[str, pd.DataFrame]
    rows: dict[str, tuple[int, int]]  # model -> (comparisons with the reference, all)
    # Per dataset, the prompts its comparisons with the reference cover (any model's).
    prompts: dict[str, int]

    @classmethod
    def create(cls, ctx: SiteContext) -> VersusReference:
        results = ctx.models
        if results.models.empty:
            return cls(pd.DataFrame(columns=["model", "dataset", "comparisons"]), {}, None,
                       {}, {}, {}, {}, {})
        datasets = sorted(set(ctx.annotations.comparisons["dataset"].astype(object).to_numpy()[
            results.reference.comparison]))
        pool = ExamplePool.create(ctx.annotations, ctx.votes, ctx.labels,
                                  ctx.slugs.pages(TRAITS), ctx.texts, ctx.preference_of,
                                  datasets)
        return cls(model_dataset_counts(ctx.annotations, results),
                   dict(tuple(results.traits.groupby("model", sort=False))), pool,
                   dict(tuple(ctx.ratings.groupby("model", sort=False))),
                   trait_boards(ctx.ratings),
                   dict(tuple(ctx.indices.groupby("model", sort=False))),
                   {m: (int(n), int(a)) for m, n, a in results.models.itertuples(index=False)},
                   reference_prompts(ctx))

    def compared(self, ctx: SiteContext, model: str) -> VersusReferenceSection:
        slug, page = model_page(ctx, model)
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
        findings = own[own["finding"]]
        profile = chart("profile", charts.strength_bars(
            own.assign(name=own["trait"]), "trait",
            f"Strength of each trait for {name} against the reference, strongest first; "
            "faint bars have too few valid votes to count as findings. The table below "
            "lists the same numbers."))
        tables = [traits_table(ctx, page, own, anchors, download),
                  *ratings_and_indices(ctx, model, name, slug, page,
                                       self.ratings_of.get(model), self.indices_of.get(model),
                                       self.boards),
                  communication.model_table(ctx, model),
                  comparisons_table(ctx, counts, name, slug, page)]
        judge = unrated_by(examples)
        # A model compared on fewer of a dataset's prompts than the others says so: the
        # rest are missing (AlpacaEval's import leaves out comparisons with an empty
        # answer: 22 of gemma-2b-it's), not hidden.
        missing = tuple(
            f"{dataset_name(d)}: {n:,} of the {self.prompts[d]:,} prompts compared with the "
            "reference are compared for this model; the others are missing (the dataset's "
            "page lists what its import left out, such as comparisons with an empty answer)."
            for d, n in zip(counts["dataset"], counts["comparisons"], strict=True)
            if n < self.prompts.get(d, 0))
        return VersusReferenceSection(
            id=SECTION_ID, heading=(f"Text statistics ({where}, rule-based judge)" if rules
                                    else f"Traits against the reference ({where})"),
            summary=f"{len(own)} traits "
                    f"{'counted by program' if rules else 'judged by ' + ', '.join(judges)} "
                    f"in {n_reference:,} comparisons with {reference_name(ctx)}",
            judged_by=", ".join(judges), partial="sections/versus_reference.html",
            datasets=tuple(datasets), tables=tuple(t for t in tables if t is not None),
            charts=(profile,),
            # The preference judge asked about these pairs but rated none (AlpacaEval's
            # judge rated only some models): said once, in plain words.
            notes=((f"No preference on these pairs: the preference judge, {judge}, did not "
                    "rate them (it rated the comparisons of only some models).",)
                   if judge else ()) + missing,
            rules=rules, reference_name=reference_name(ctx),
            reference_page=reference_page(ctx), n_reference=n_reference, n_all=n_all,
            sources=credits(datasets),
            most=listed_traits(findings[findings["strength"] >= NOT_ZERO].head(TOP)),
            least=listed_traits(findings[findings["strength"] <= -NOT_ZERO].sort_values(
                "strength").head(TOP)),
            examples=examples, summaries=run_summaries(ctx, model),
            headline=strongest(ctx, page, findings))


def strongest(ctx: SiteContext, page: str, findings: pd.DataFrame) -> Headline | None:
    """The finding farthest from 0 (shown most or least against the reference), for the
    top of the model's page; None without a finding beyond ±NOT_ZERO."""
    clear = findings[findings["strength"].abs() >= NOT_ZERO]
    if clear.empty:
        return None
    row = clear.loc[clear["strength"].abs().idxmax()]
    return Headline("shown most" if row["strength"] > 0 else "shown least", row["trait"],
                    link(page, ctx.slugs.page(TRAITS, row["trait_id"])),
                    signed(row["strength"]), interval_text(row["strength_low"],
                                                           row["strength_high"], signs=True))


def reference_prompts(ctx: SiteContext) -> dict[str, int]:
    """Per dataset, how many prompts its comparisons with the reference cover."""
    reference = ctx.models.reference
    comparisons = ctx.annotations.comparisons
    frame = pd.DataFrame({
        "dataset": comparisons["dataset"].astype(object).to_numpy()[reference.comparison],
        "prompt": comparisons["prompt_id"].astype(object).to_numpy()[reference.comparison]})
    return {str(d): int(n) for d, n in frame.groupby("dataset")["prompt"].nunique().items()}


def credits(datasets: list[str]) -> tuple[Credit, ...]:
    return tuple(c for d in datasets if (c := source_credit(d)))


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


def reference_section(ctx: SiteContext, model: str) -> ReferenceModelSection:
    """The reference model's own section: every other model is measured against it, so it
    has no strengths of its own; its comparisons per dataset and communication traits."""
    slug, page = model_page(ctx, model)
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
    talk = communication.model_table(ctx, model)
    return ReferenceModelSection(
        id=SECTION_ID, heading=f"The reference model ({where})",
        summary=f"every other {where} model is compared with it",
        judged_by="", partial="sections/reference_model.html", datasets=tuple(datasets),
        tables=(table, talk) if talk else (table,), dataset_names=where,
        notes=tuple(note for d in datasets for note in self_judge_notes(ctx, d, model)),
        n_all=int(mine.sum()), anchor=bool(len(ctx.ratings)), sources=credits(datasets))


def traits_table(ctx: SiteContext, page: str, own: pd.DataFrame, anchors: dict[str, str],
                 download: Download) -> Table:
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
                        ratings: pd.DataFrame | None, indices: pd.DataFrame | None,
                        boards: dict[str, tuple[int, bool]]) -> list[Table]:
    """The model's Elo per trait and its index scores (none when it was not rated); its
    rank on each trait is among the models that trait rates (`boards`)."""
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
            download, boards=boards))
    if indices is not None:
        download = ctx.output.data(f"models/{slug}/indices", indices,
                                   f"{name}: index scores", page)
        shown.append(Table("model-indices", "Index scores (1–100)", [
            Column("index", "Index", numeric=False),
            Column("score", "Score", cue="higher = shows the index's traits more"),
            Column("interval", "Range", numeric=False,
                   title="every member trait at the ends of its 95% Elo interval, the "
                   "other models held still: a sensitivity range, not a 95% interval"),
            Column("traits", "Rated traits")],
            [[Cell(r.index, href=link(page, page_path("ratings")), header=True),
              Cell(number(r.score, 0), sort_value(r.score)),
              Cell(f"{number(r.ci_low, 0)} to {number(r.ci_high, 0)}"),
              count_cell(r.traits_used)] for r in indices.itertuples(index=False)], download))
    return shown
