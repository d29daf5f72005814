"""Datasets (FF Result A): what each dataset's preference annotations encourage.

Per dataset, in sections (ffsite/site/sections.py) from the providers of DATASET_SECTIONS:
every trait against the default preference annotator; the same split by each useful
metadata column and by preference annotator, traits sorted by max diff; each model's win
rate against the reference.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ffsite.datasets import DATASETS as DATASET_RECORDS
from ffsite.datasets import dataset_name, find
from ffsite.format import read_file_metadata
from ffsite.judges.rules import RULES_VERSION
from ffsite.site import charts
from ffsite.site.context import SiteContext
from ffsite.site.judging import reference_judge_notes
from ffsite.site.pages.length_control import length_control_sections
from ffsite.site.render import NOT_ZERO, number, percent
from ffsite.site.sections import Section, SectionProvider
from ffsite.site.urls import (
    DATASETS,
    MODELS,
    TRAITS,
    constitution_path,
    file_names,
    link,
    page_path,
)
from ffsite.site.views import (
    CUE_BETTER,
    CUE_ENCOURAGED,
    HEAT,
    Cell,
    Column,
    ListedTrait,
    Table,
    chart,
    count_cell,
    listed_traits,
    metric_cells,
    metric_columns,
    sort_value,
    strength_cell,
)

TOP = 5


def build(ctx: SiteContext) -> None:
    summary = ctx.datasets
    output = ctx.output
    index = page_path(DATASETS)
    index_download = output.data("datasets", summary, "Datasets", index)
    all_download = output.data("dataset-traits", ctx.dataset_traits,
                               "Every dataset's traits vs its preference annotator", index)
    rows = [[Cell(row.dataset, href=link(index, ctx.slugs.page(DATASETS, row.dataset)),
                  header=True),
             count_cell(row.comparisons),
             count_cell(row.models) if row.models else Cell("not named"),
             Cell(row.preference_annotators or "none")]
            for row in summary.itertuples(index=False)]
    table = Table("datasets", "The datasets of pairwise votes and their annotators", [
        Column("dataset", "Dataset", numeric=False),
        Column("comparisons", "Comparisons"),
        Column("models", "Models"),
        Column("annotators", "Preference annotators", numeric=False)], rows, index_download)
    output.page(index, "datasets.html", section=index, table=table,
                all_download=all_download, cards=dataset_cards(ctx, index))

    for row in ctx.progress.items("dataset pages", list(summary.itertuples(index=False))):
        dataset_page(ctx, row)


@dataclass(frozen=True)
class DatasetCard:
    """One dataset as the Datasets index lists it."""

    id: str
    name: str
    href: str | None  # its own page, if it has one
    kind: str  # "judge scores" or "pairwise votes"
    measures: str
    judges: str
    models: int
    size: str  # "6,452 comparisons" / "25,310 scored answers"
    traits: list[tuple[str, str | None]]  # (label, trait page) of its traits
    source: tuple[str, str, str] | None  # credit, address, licence
    judges_page: str
    defects: list[str]  # what its import left out or kept and marks (its known defects)


def dataset_cards(ctx: SiteContext, index: str) -> list[DatasetCard]:
    """Every dataset the site holds, votes and scores alike, in DATASETS' order (then
    any other by name): what it measures, its judges, its models and its traits."""
    summary = ctx.datasets.set_index("dataset")
    responses = ctx.scores.responses if len(ctx.scores) else None
    means = ctx.score_results.means if len(ctx.scores) else None
    present = set(summary.index) | (set(responses["dataset"]) if responses is not None
                                    else set())
    order = [d.id for d in DATASET_RECORDS if d.id in present] + sorted(
        present - {d.id for d in DATASET_RECORDS})
    traits_of = trait_lists(ctx)
    judges = ctx.traits.set_index("trait_id")["judge"].astype(str)
    judges_of = judges.to_dict()
    # Datasets an LLM judged come first; those only the rule-based judge's traits last.
    order.sort(key=lambda d: all(judges.get(t, "").startswith(RULES_VERSION.split("-")[0])
                                 for t in traits_of.get(d, [])) and bool(traits_of.get(d)))
    labels = ctx.labels
    cards = []
    for dataset in order:
        record = find(dataset)
        if dataset in summary.index:
            row = summary.loc[dataset]
            href = link(index, ctx.slugs.page(DATASETS, dataset))
            kind, size = "pairwise votes", f"{int(row['comparisons']):,} comparisons"
            models = int(row["models"])
        else:
            own = responses[responses["dataset"] == dataset]
            href, kind = None, "judge scores"
            # A dataset of repeated answers scores each answer set or poem as one.
            unit = record.unit_label if record and record.unit else "answer"
            size = f"{len(own):,} scored {unit}s"
            models = int(means.loc[means["dataset"] == dataset, "model"].nunique())
        if record and record.page:
            href = link(index, page_path(record.page))
        judges = (f"{record.panel} ({', '.join(record.judges)})" if record and record.panel
                  else ", ".join(record.judges) if record and record.judges else "")
        # A dataset of preferences whose traits another judge decides says both.
        voters = sorted({judges_of.get(t, "") for t in traits_of.get(dataset, [])} - {""})
        if record and record.kind == "votes" and voters and judges and not set(
                voters) <= set(record.judges):
            judges = f"preferences: {judges}; traits: {', '.join(voters)}"
        cards.append(DatasetCard(
            id=dataset, name=dataset_name(dataset), href=href, kind=kind,
            measures=record.measures if record else "", judges=judges, models=models,
            size=size, traits=[(labels.get(t, t), link(index, ctx.slugs.page(TRAITS, t)))
                               for t in traits_of.get(dataset, [])],
            source=tuple(record.source) if record else None,
            judges_page=link(index, page_path("judges")),
            defects=[*ctx.prepared(left_out).get(dataset, []),
                     *ctx.prepared(kept_defects).get(dataset, [])]))
    return cards


def kept_defects(ctx: SiteContext) -> dict[str, list[str]]:
    """Per scores dataset, the defects its import recorded in the file's metadata:
    scores under the rubric's floor (kept, marked "has 0s"), scores under keys that
    are none of its traits (left out), near-empty answers (kept, marked)."""
    found: dict[str, list[str]] = {}
    for path in ctx.files:
        extra = read_file_metadata(path).get("extra") or {}
        dataset = str(extra.get("source") or "")
        said = found.setdefault(dataset, [])
        below = int(extra.get("scores_below_rubric_floor") or 0)
        if below:
            said.append(f"{below:,} scores below the rubric's floor of 1 (a judge of the "
                        "panel answered 0): kept, as the dataset published them, and marked "
                        "“has 0s”")
        keys: dict[str, int] = {}
        for counts in (extra.get("dropped_dimension_keys") or {}).values():
            for key, n in counts.items():
                keys[key] = keys.get(key, 0) + int(n)
        if keys:
            listed = ", ".join(f"{k} ({n})" for k, n in sorted(
                keys.items(), key=lambda kv: (-kv[1], kv[0])))
            said.append(f"{sum(keys.values())} scores under keys that are none of its traits "
                        f"(the judges' misspellings): left out, {listed}")
        short = extra.get("near_empty_continuations") or {}
        if short:
            said.append(f"{sum(short.values())} near-empty continuations in {len(short)} "
                        "models' answers: kept as the judges scored them, and marked")
    return {dataset: said for dataset, said in found.items() if said}


def trait_lists(ctx: SiteContext) -> dict[str, list[str]]:
    """Per dataset, the trait ids judged on it, by label."""
    found: dict[str, set[str]] = {}
    votes = ctx.votes
    for d, dataset in enumerate(votes.datasets):
        found.setdefault(dataset, set()).update(
            str(t) for t in votes.traits["trait_id"].to_numpy()[votes.in_scope[d]])
    if len(ctx.scores):
        means = ctx.score_results.means
        for dataset, part in means.groupby("dataset"):
            found.setdefault(str(dataset), set()).update(part["trait_id"].astype(str))
    labels = ctx.labels
    return {d: sorted(ts, key=lambda t: str(labels.get(t, t)).lower())
            for d, ts in found.items()}


def dataset_page(ctx: SiteContext, row) -> None:
    dataset = row.dataset
    page = page_path(DATASETS, ctx.slugs.datasets[dataset])
    # Each provider's sections, kept apart: the page leaves a blank line after each
    # provider's (an empty one too), as it did when each kind had its own slot.
    by_provider = [provider(ctx, dataset) for provider in DATASET_SECTIONS]
    descriptions = ctx.annotations.preference_descriptions
    annotator_names = [a for a in row.preference_annotators.split(", ") if a]
    ctx.output.page(page, "dataset.html", section=page_path(DATASETS), dataset=dataset,
                    name=dataset_name(dataset),
                    row=row, annotators=[(a, descriptions.get(a, "")) for a in annotator_names],
                    by_provider=by_provider,
                    charts=[c for found in by_provider for s in found for c in s.charts],
                    trait_pages=ctx.slugs.pages(TRAITS),
                    eigenbench=eigenbench_links(ctx, dataset, page),
                    left_out=ctx.prepared(left_out).get(dataset, []),
                    own_page=link(page, page_path(record.page)) if (
                        record := find(dataset)) and record.page else None)


# What a default annotation file holds, as a reader would say it.
FILE_WORDS = {"preferences": "the preference votes", "rules": "the rule judge's votes",
              "model-pairs": "the rule judge's pairs of models"}


def left_out(ctx: SiteContext) -> dict[str, list[str]]:
    """Per dataset, what its files' imports left out, as their metadata records it, one
    entry per reason: "comparisons with an empty answer: 25 in the preference votes, 25
    in the rule judge's votes" (each file counts its own; they may be the same ones)."""
    counted: dict[str, dict[str, list[str]]] = {}
    for path in ctx.files:
        metadata = read_file_metadata(path)
        extra = metadata.get("extra") or {}
        dataset = extra.get("dataset") or extra.get("source") or next(
            iter(metadata.get("default_preference") or {}), None)
        for why, n in sorted((extra.get("left_out") or {}).items()):
            if dataset and n:
                counted.setdefault(str(dataset), {}).setdefault(why, []).append(
                    f"{int(n):,} in {FILE_WORDS.get(path.stem, path.stem)}")
    return {dataset: [f"{why}: {', '.join(files)}" for why, files in reasons.items()]
            for dataset, reasons in counted.items()}


@dataclass(frozen=True, kw_only=True)
class PreferenceSection(Section):
    encouraged: tuple[ListedTrait, ...]  # findings encouraged most, strongest first
    discouraged: tuple[ListedTrait, ...]


def preference_sections(ctx: SiteContext, dataset: str) -> list[Section]:
    """Every trait against the dataset's default preference annotator (FF Result A)."""
    own = ctx.dataset_traits[ctx.dataset_traits["dataset"] == dataset].sort_values(
        ["strength", "trait_id"], ascending=[False, True], kind="stable")
    if not len(own):
        return []
    slug, page = dataset_page_path(ctx, dataset)
    download = ctx.output.data(f"datasets/{slug}/traits", own,
                               f"{dataset}: traits vs the preference annotator", page)
    result = Table("result", "Strength of each trait against the preference annotations",
                   [Column("trait", "Trait", numeric=False), *metric_columns(CUE_ENCOURAGED)],
                   [[Cell(r.trait, href=link(page, ctx.slugs.page(TRAITS, r.trait_id)),
                          header=True), *metric_cells(r, ctx.min_valid)]
                    for r in own.itertuples(index=False)], download)
    profile = chart("result-chart", charts.strength_bars(
        own.assign(name=own["trait"]), "trait",
        f"Strength of each trait against the preference annotations of {dataset}: "
        "right of zero the annotators prefer the response that shows the trait more "
        "(encouraged), left less (discouraged). The table below lists the numbers."))
    findings = own[own["finding"]]
    judge = default_annotator(ctx, dataset)
    return [PreferenceSection(
        id="result", heading="What the preference annotations encourage",
        summary=f"{len(own)} traits against the preferences of {judge}",
        judged_by=str(judge or ""),
        partial="sections/preference.html", datasets=(dataset,), tables=(result,),
        charts=(profile,), notes=reference_judge_notes(dataset, judge),
        encouraged=listed_traits(findings[findings["strength"] >= NOT_ZERO].head(TOP)),
        discouraged=listed_traits(findings[findings["strength"] <= -NOT_ZERO].sort_values(
            "strength").head(TOP)))]


def split_sections(ctx: SiteContext, dataset: str) -> list[Section]:
    """The same strengths within each value of each useful metadata column, and the
    columns not split on (why, in a note)."""
    details = ctx.dataset_details[dataset]
    slug, page = dataset_page_path(ctx, dataset)
    splits = []
    split_names = file_names([c.removeprefix("meta.") for c in details.splits])
    for position, (column, long) in enumerate(details.splits.items(), start=1):
        name = column.removeprefix("meta.")
        if long.empty:
            continue
        download = ctx.output.data(f"datasets/{slug}/by-{split_names[name]}", long,
                                   f"{dataset}: traits by {name}", page)
        splits.append(wide_table(ctx, page, f"split-{position}", f"Strength by {name}, "
                                 "traits sorted by max diff", long, "value", download))
    skipped = [f"{column.removeprefix('meta.')} ({why})"
               for column, why in sorted(details.skipped.items())]
    if not splits and not skipped:
        return []
    return [Section(id="splits", heading="Split by metadata",
                    summary=f"the strengths by {len(splits)} metadata columns",
                    judged_by=str(default_annotator(ctx, dataset) or ""),
                    partial="sections/splits.html",
                    datasets=(dataset,), tables=tuple(splits),
                    notes=("Not split by: " + ", ".join(skipped) + ".",) if skipped else ())]


def annotator_sections(ctx: SiteContext, dataset: str) -> list[Section]:
    """The strengths by preference annotator, when the dataset has several."""
    annotators = ctx.dataset_details[dataset].annotators
    if annotators is None or not len(annotators):
        return []
    slug, page = dataset_page_path(ctx, dataset)
    download = ctx.output.data(f"datasets/{slug}/annotators", annotators,
                               f"{dataset}: traits by preference annotator", page)
    table = wide_table(ctx, page, "annotators", "Strength by preference annotator, traits "
                       "sorted by max diff", annotators, "annotator", download)
    names = sorted(set(annotators["annotator"]))
    return [Section(id="annotators", heading="Annotator groups",
                    summary=f"the strengths by each of {len(names)} preference annotators",
                    judged_by=", ".join(names), partial="sections/annotator_groups.html",
                    datasets=(dataset,), tables=(table,))]


@dataclass(frozen=True, kw_only=True)
class WinRateSection(Section):
    absent: list[str]  # models compared with the reference that have no win rate


def win_rate_sections(ctx: SiteContext, dataset: str) -> list[Section]:
    """Each model's win rate against the reference, by the default preference annotator."""
    wins = ctx.dataset_details[dataset].win_rates
    if wins is None:
        return []
    slug, page = dataset_page_path(ctx, dataset)
    judge = default_annotator(ctx, dataset)
    download = ctx.output.data(f"datasets/{slug}/win-rates", wins,
                               f"{dataset}: win rates against the reference", page)
    table = Table("win-rates", f"Win rate against {ctx.models.reference_model} "
                  f"(judged by {judge}; a tie counts as half a win)",
                  [Column("model", "Model", numeric=False),
                   Column("win_rate", "Win rate", cue=CUE_BETTER),
                   Column("wins", "Wins"),
                   Column("ties", "Ties"),
                   Column("losses", "Losses", cue="lower is better")],
                  [[model_cell(ctx, page, w.model),
                    win_rate_cell(w.win_rate, w.win_rate_low, w.win_rate_high),
                    count_cell(w.wins), count_cell(w.ties), count_cell(w.losses)]
                   for w in wins.itertuples(index=False)], download,
                  note="Under each win rate, its 95% interval: Wilson's score "
                       "interval for wins + ties / 2 out of the comparisons the "
                       "annotator decided.")
    return [WinRateSection(id="win-rates", heading="Win rates",
                           summary=f"{len(wins)} models' win rates against "
                                   f"{ctx.models.reference_model}",
                           judged_by=str(judge or ""), partial="sections/win_rates.html",
                           datasets=(dataset,), tables=(table,),
                           notes=reference_judge_notes(dataset, judge),
                           absent=absent_models(ctx, dataset, set(wins["model"])))]


# What a dataset's page shows after its annotators, in order: each provider gives the
# dataset's sections of one kind (none when it has no such numbers).  A dataset's own
# kind of numbers adds its provider here.
DATASET_SECTIONS: list[SectionProvider] = [
    preference_sections,
    split_sections,
    annotator_sections,
    win_rate_sections,
    length_control_sections,
]


def dataset_page_path(ctx: SiteContext, dataset: str) -> tuple[str, str]:
    """(slug, page path) of a dataset's page: its own tables go under datasets/<slug>/."""
    slug = ctx.slugs.datasets[dataset]
    return slug, page_path(DATASETS, slug)


def default_annotator(ctx: SiteContext, dataset: str) -> str | None:
    """The preference annotator whose votes the dataset's page counts."""
    found = ctx.datasets.loc[ctx.datasets["dataset"] == dataset, "default_annotator"]
    return found.iloc[0] if len(found) else None


def eigenbench_links(ctx: SiteContext, dataset: str, page: str) -> list[tuple[str, str]]:
    """(constitution, link) of the EigenBench judgments among the dataset's votes."""
    found = ctx.constitutions
    return [(row.constitution, link(page, constitution_path(row.constitution)))
            for row in found.itertuples(index=False) if dataset in row.datasets]


def win_rate_cell(rate: float, low: float, high: float) -> Cell:
    """A win rate (%) with its 95% interval in view."""
    return Cell(percent(rate), sort_value(rate),
                interval=f"{number(low, 1)}–{number(high, 1)}%")


def absent_models(ctx: SiteContext, dataset: str, rated: set[str]) -> list[str]:
    """The dataset's models compared with the reference that have no win rate: the
    preference annotator decided none of their comparisons."""
    comparisons = ctx.annotations.comparisons
    own = comparisons[(comparisons["dataset"] == dataset).to_numpy()]
    reference = ctx.models.reference_model
    models = (set(own["model_a"][own["model_b"] == reference].dropna())
              | set(own["model_b"][own["model_a"] == reference].dropna()))
    return sorted(models - rated - {reference}, key=str.lower)


def model_cell(ctx: SiteContext, page: str, model: str) -> Cell:
    """A row header naming a model as every page does (the registry's name; its id in the
    title when they differ), linked to its page when it has one."""
    name = ctx.registry.display_name(model)
    target = ctx.slugs.page(MODELS, model)
    return Cell(name, href=link(page, target) if target else None, header=True,
                title=model if name != model else None)


def wide_table(ctx: SiteContext, page: str, table_id: str, caption: str,
               long: pd.DataFrame, group: str, download) -> Table:
    """Traits as rows (in the frame's max-diff order), one strength column per group."""
    groups = list(dict.fromkeys(long[group]))
    sizes = long.groupby(group)["num_votes"].max()
    columns = [Column("trait", "Trait", numeric=False)]
    columns += [Column(f"g{i}", str(g), cue=CUE_ENCOURAGED, title=f"{g}: {sizes[g]:,} "
                       "comparisons with a preference") for i, g in enumerate(groups)]
    columns.append(Column("max_diff", "Max diff", cue="higher = groups differ more"))
    cells = {(r[0], r[1]): r[2:] for r in long[[group, "trait_id", *HEAT]].itertuples(
        index=False)}
    rows = []
    for trait_id, trait, diff in long[["trait_id", "trait", "max_diff"]].drop_duplicates(
            "trait_id").itertuples(index=False):
        row = [Cell(trait, href=link(page, ctx.slugs.page(TRAITS, trait_id)), header=True)]
        for g in groups:
            found = cells.get((g, trait_id))
            if found:
                value, finding, valid, low, high = found
                row.append(strength_cell(value, finding, valid, ctx.min_valid, low, high))
            else:
                row.append(Cell("–"))
        row.append(Cell(number(diff), sort_value(diff)))
        rows.append(row)
    return Table(table_id, caption, columns, rows, download)
