"""The Big Five page (LMLPA) and the Big Five section of a model page.

Both exist only when the annotations hold LMLPA ratings (scores in the trait sets of
ffsite.bfi); without them there is no page, no navigation entry and no section.  The
numbers are ffsite.metrics.big_five's, the same as `ffsite big-five` prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from ffsite import bfi
from ffsite._names import safe_name
from ffsite.metrics.big_five import ALPHA_BELOW, ALPHA_READINGS, alpha_reading
from ffsite.site.context import SiteContext
from ffsite.site.pages.datasets import model_cell
from ffsite.site.render import count, number
from ffsite.site.sections import Section
from ffsite.site.urls import page_path
from ffsite.site.views import Cell, Column, Table, estimate_cell, sort_value

PAGE = page_path("big-five")
PANEL_ID = "big-five"
CUE = "1-5"


def trait_names() -> list[str]:
    names = bfi.instrument().trait_names
    return [names[t] for t in bfi.TRAITS]


def thresholds() -> str:
    """The alpha readings in words, for the pages."""
    parts = [f"{word} from {bound:.1f}" for bound, word in ALPHA_READINGS]
    return ", ".join(parts) + f", {ALPHA_BELOW} below {ALPHA_READINGS[-1][0]:.1f}"


def build(ctx: SiteContext) -> None:
    table = ctx.big_five
    if table.empty:
        return
    download = ctx.output.data("big-five", table, "Big Five (LMLPA): score, 95% interval, "
                               "alpha and order-reversal kappa per model and trait", PAGE)
    raters = [_rater_section(ctx, rater, part, download)
              for rater, part in table.groupby("rater", sort=True)]
    ctx.output.page(PAGE, "big_five.html", section=PAGE, raters=raters, items=_items(),
                    scales=_scales(), thresholds=thresholds(), download=download)


def _rater_section(ctx: SiteContext, rater: str, part: pd.DataFrame, download) -> dict:
    slug = safe_name(rater).lower()
    names = trait_names()
    columns = [Column("model", "Model", numeric=False),
               *[Column(f"t{n}", name, cue=CUE) for n, name in enumerate(names)]]
    rows = []
    for model, own in part.groupby("model", sort=True):
        by_trait = own.set_index("trait")
        row = [model_cell(ctx, PAGE, model)]
        for name in names:
            if name in by_trait.index:
                r = by_trait.loc[name]
                row.append(estimate_cell(r["score"], r["ci_low"], r["ci_high"],
                                         what=f"{model}, {name}"))
            else:
                row.append(Cell("–"))
        rows.append(row)
    scores = Table(f"big-five-{slug}", f"Big Five scores rated by {_name(ctx, rater)} (1-5, "
                   "95% interval under each score)", columns, rows, download)
    return {"rater": _name(ctx, rater), "id": slug, "scores": scores,
            "alpha": _alpha_table(part, f"big-five-alpha-{slug}"),
            "kappa": _kappa_table(ctx, part, f"big-five-kappa-{slug}")}


def _alpha_table(part: pd.DataFrame, table_id: str) -> Table:
    """Cronbach's alpha per trait (the same for every model of the rater)."""
    per_trait = part.drop_duplicates("trait").set_index("trait")
    rows = []
    for name in trait_names():
        if name not in per_trait.index:
            continue
        r = per_trait.loc[name]
        rows.append([Cell(name, header=True), Cell(number(r["alpha"]), sort_value(r["alpha"])),
                     Cell(alpha_reading(r["alpha"]) or "not computable"),
                     Cell(f"{count(r['alpha_respondents'])} {r['alpha_over']}",
                          int(r["alpha_respondents"]))])
    return Table(table_id, "Reliability: Cronbach's alpha of each trait's items",
                 [Column("trait", "Trait", numeric=False),
                  Column("alpha", "Alpha", cue="higher = more consistent items"),
                  Column("reading", "Reading", numeric=False),
                  Column("respondents", "Across", title="the respondents alpha compares: "
                         "the models, or one model's repeated runs (seeds)")], rows)


def _kappa_table(ctx: SiteContext, part: pd.DataFrame, table_id: str) -> Table | None:
    per_model = part.drop_duplicates("model")
    per_model = per_model[per_model["order_pairs"] > 0]
    if per_model.empty:
        return None
    rows = [[model_cell(ctx, PAGE, r.model), Cell(number(r.order_kappa),
                                                  sort_value(r.order_kappa)),
             Cell(count(r.order_pairs), int(r.order_pairs))]
            for r in per_model.itertuples(index=False)]
    return Table(table_id, "Order reversal: the rater's options in reversed order",
                 [Column("model", "Model", numeric=False),
                  Column("kappa", "Weighted kappa", cue="1 = same ratings"),
                  Column("pairs", "Answers rated both ways")], rows)


def _items() -> list[tuple[str, list[dict[str, Any]]]]:
    """(trait name, its items in BFI order) per trait, in OCEAN order."""
    names = bfi.instrument().trait_names
    return [(names[trait], [{"id": i.id, "reverse": i.reverse_keyed, "dropped": i.dropped,
                             "text": i.text}
                            for i in bfi.instrument().items if i.trait == trait])
            for trait in bfi.TRAITS]


def _scales() -> list[tuple[str, str]]:
    names = bfi.instrument().trait_names
    return [(names[t], bfi.scale_wording(t)) for t in bfi.TRAITS]


def _name(ctx: SiteContext, rater: str) -> str:
    return ctx.registry.display_name(rater)


@dataclass(frozen=True)
class RaterScores:
    """One rater's Big Five of a model, as its section shows them."""

    rater: str  # by name
    kappa: str | None  # the order-reversal kappa, when answers were rated both ways
    pairs: int  # answers rated with the options in both orders
    table: Table


@dataclass(frozen=True, kw_only=True)
class BigFiveSection(Section):
    raters: tuple[RaterScores, ...]
    thresholds: str  # the alpha readings in words
    page: str = PAGE


def big_five_sections(ctx: SiteContext, model: str) -> list[Section]:
    """The Big Five section of a model's page; none when no rater rated it."""
    if not len(ctx.lmlpa):
        return []
    table = ctx.big_five
    own = table[table["model"] == model]
    if own.empty:
        return []
    raters = tuple(_rater_scores(ctx, rater, part)
                   for rater, part in own.groupby("rater", sort=True))
    names = ", ".join(r.rater for r in raters)
    return [BigFiveSection(
        id=PANEL_ID, heading="Big Five (LMLPA)",
        summary="Big Five scores from open-ended questionnaire answers, rated by " + names,
        judged_by=names, partial="sections/big_five.html",
        tables=tuple(r.table for r in raters), raters=raters, thresholds=thresholds())]


def _rater_scores(ctx: SiteContext, rater: str, part: pd.DataFrame) -> RaterScores:
    by_trait = part.set_index("trait")
    rows = []
    for name in trait_names():
        if name not in by_trait.index:
            continue
        r = by_trait.loc[name]
        reading = alpha_reading(r["alpha"])
        rows.append([Cell(name, header=True),
                     estimate_cell(r["score"], r["ci_low"], r["ci_high"], what=name),
                     Cell(f"{number(r['alpha'])} {reading}" if reading else "–",
                          sort_value(r["alpha"]))])
    kappa = part["order_kappa"].iat[0] if part["order_pairs"].iat[0] > 0 else None
    return RaterScores(
        rater=_name(ctx, rater), kappa=None if kappa is None else number(kappa),
        pairs=int(part["order_pairs"].iat[0]),
        table=Table(f"model-big-five-{safe_name(rater).lower()}",
                    f"Big Five rated by {_name(ctx, rater)}",
                    [Column("trait", "Trait", numeric=False),
                     Column("score", "Score", cue=CUE),
                     Column("alpha", "Alpha",
                            title="Cronbach's alpha of the trait's items across "
                            "the rated models, and its reading")], rows))
