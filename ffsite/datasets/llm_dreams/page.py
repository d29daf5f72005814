"""llm-dreams on a model page, after the panel's profile: each of the nine judges' own
means, the self-rating gap when the model is one of the judges, its near-empty
continuations, and one of its dreams, credited."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ffsite.datasets.llm_dreams import DATASET
from ffsite.datasets.llm_dreams.reader import NEAR_EMPTY_BYTES, continuation_id, opening_id
from ffsite.format import read_file_metadata
from ffsite.site.context import SiteContext
from ffsite.site.judging import judge_panels, self_judge_notes
from ffsite.site.output import Download
from ffsite.site.render import response_html
from ffsite.site.sections import Credit, Section, model_page, source_credit
from ffsite.site.urls import TRAITS, link
from ffsite.site.views import Cell, Column, Table, estimate_cell, heat_class

SHOWN_DREAM = 1  # the opening whose continuation a model page shows (answer set 0)
DREAM_LIMIT = 2500  # characters of it shown


@dataclass(frozen=True, kw_only=True)
class DreamsSection(Section):
    source: Credit | None
    measures: str
    opening: str | None  # the dream opening shown, and the model's continuation of it
    dream: object | None  # Markup
    cut: bool
    near_empty: int  # of the model's 30 continuations


def model_section(ctx: SiteContext, model: str) -> list[Section]:
    """The section, or none when the model is not in llm-dreams."""
    own = ctx.prepared(judge_means_by_model).get(model)
    if own is None:
        return []
    slug, page = model_page(ctx, model)
    own = own.assign(trait=own["trait_id"].map(ctx.labels))
    download = ctx.output.data(f"models/{slug}/llm-dreams-judges", own,
                               f"{ctx.registry.display_name(model)}: each llm-dreams "
                               "judge's mean per trait, with 95% intervals", page)
    tables = [judges_table(ctx, page, own, download)]
    gap = self_gap_table(ctx, page, model)
    if gap is not None:
        tables.append(gap)
    names = set(own["source_model"])
    opening, dream, cut = shown_dream(ctx, sorted(names)[0])
    return [DreamsSection(
        id="llm-dreams-judges", heading="llm-dreams: each judge's reading",
        summary=f"{own['judge'].nunique()} judges' own means on {own['trait_id'].nunique()} "
                "traits", judged_by=", ".join(DATASET.judges),
        partial="sections/llm_dreams.html", datasets=(DATASET.id,), tables=tuple(tables),
        notes=self_judge_notes(ctx, DATASET.id, model), source=source_credit(DATASET.id),
        measures=DATASET.measures, opening=opening, dream=dream, cut=cut,
        near_empty=sum(ctx.prepared(near_empty).get(name, 0) for name in names))]


def judge_means_by_model(ctx: SiteContext) -> dict[str, pd.DataFrame]:
    """Each model's rows of the judges' means, split once for every page rather than
    filtered out of all the models' rows on each (the rows in their order there)."""
    means = ctx.score_results.judge_means
    means = means[means["dataset"] == DATASET.id]
    return dict(tuple(means.groupby("model", sort=False)))


def judges_table(ctx: SiteContext, page: str, own: pd.DataFrame, download: Download
                 ) -> Table:
    """Traits as rows, judges as columns: each judge's mean with its interval."""
    judges = sorted(set(own["judge"]))
    # The cells by (trait, judge) from plain lists: indexing the frame per cell cost
    # more than everything else on the page.
    by_cell = {(trait_id, judge): (mean, low, high) for trait_id, judge, mean, low, high
               in zip(*(own[c].tolist() for c in ("trait_id", "judge", "mean", "ci_low",
                                                  "ci_high")), strict=True)}
    rows = []
    for trait_id, label in sorted(set(zip(own["trait_id"], own["trait"], strict=True)),
                                  key=lambda pair: pair[1]):
        row = [Cell(label, href=link(page, ctx.slugs.page(TRAITS, trait_id)), header=True)]
        for judge in judges:
            r = by_cell.get((trait_id, judge))
            row.append(Cell("–") if r is None else estimate_cell(
                *r, what=f"{judge}'s mean"))
        rows.append(row)
    return Table("llm-dreams-judges", "Each judge's mean score per trait (1-10), with its "
                 "95% interval over the model's two answer sets", [
                     Column("trait", "Trait", numeric=False)] + [
                     Column(f"j{i}", judge, vertical=True) for i, judge in enumerate(judges)],
                 rows, download, note="Judges differ in leniency (the Judges page): compare "
                 "a judge's numbers with that judge's numbers for other models, not with "
                 "another judge's.")


def self_gap_table(ctx: SiteContext, page: str, model: str) -> Table | None:
    """The model's self-rating gap per trait, when it is one of the judges."""
    gaps = ctx.prepared(gaps_by_model).get(model)
    if gaps is None:
        return None
    rows = []
    for r in gaps.assign(trait=gaps["trait_id"].map(ctx.labels)).sort_values(
            "trait").itertuples(index=False):
        clear = bool(r.ci_low > 0 or r.ci_high < 0)
        rows.append([Cell(r.trait, href=link(page, ctx.slugs.page(TRAITS, r.trait_id)),
                          header=True),
                     estimate_cell(r.gap, r.ci_low, r.ci_high, signs=True,
                                   css=heat_class(r.gap / 2, clear), what="gap")])
    judge = gaps["judge"].iloc[0]
    return Table("llm-dreams-self-gap", f"As a judge ({judge}), does it rate itself higher? "
                 "Its own answers' mean minus the other judges', less what it gives any "
                 "model", [Column("trait", "Trait", numeric=False),
                           Column("gap", "Self-rating gap", cue="+ = favours itself")], rows,
                 note="Coloured where the 95% prediction interval excludes 0; the Judges page "
                      "explains how it is measured.")


def gaps_by_model(ctx: SiteContext) -> dict[str, pd.DataFrame]:
    """The self-rating gaps of each model that is one of the judges, by its id: the
    dataset's names resolved once, not once per page."""
    found = ctx.prepared(judge_panels).get(DATASET.id)
    if found is None or found.gaps is None or found.gaps.empty:
        return {}
    gaps = found.gaps
    ids = ctx.registry.ids([DATASET.id] * len(gaps), gaps["model"])
    return {model: gaps[ids == model] for model in dict.fromkeys(ids) if model is not None}


def answer_marks(ctx: SiteContext) -> dict[str, tuple[str, str]]:
    """{model id: the mark of its near-empty continuations}, for every list of its
    numbers (the model page says more)."""
    counts: dict[str, int] = {}
    for name, n in ctx.prepared(near_empty).items():
        model = ctx.registry.model_id(DATASET.id, name)
        counts[model] = counts.get(model, 0) + n
    return {model: ("near-empty", f"{n} of its 30 dreams are near-empty (under "
                    f"{NEAR_EMPTY_BYTES} bytes); the judges scored them as they are")
            for model, n in counts.items() if n}


def near_empty(ctx: SiteContext) -> dict[str, int]:
    """Near-empty continuations per model, as the import counted them (file metadata)."""
    found: dict[str, int] = {}
    for path in ctx.files:
        extra = read_file_metadata(path).get("extra") or {}
        if extra.get("source") == DATASET.id:
            found.update(extra.get("near_empty_continuations") or {})
    return found


def shown_dream(ctx: SiteContext, name: str) -> tuple[str | None, object | None, bool]:
    """(the opening, the model's continuation of it rendered, whether it was cut)."""
    texts = ctx.texts(DATASET.id)
    if texts is None:
        return None, None, False
    prompts, responses = texts
    text = responses.get(continuation_id(name, 0, SHOWN_DREAM))
    if text is None:
        return None, None, False
    dream, cut = response_html(text, DREAM_LIMIT)
    return prompts.get(opening_id(SHOWN_DREAM)), dream, cut
