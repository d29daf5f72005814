"""The trait page of an EQ-Bench 3 criterion (called from the traits builder): its
wording and scenario type, the judge, every model's Elo and its strength against the other
models, from the same tables as the EQ-Bench 3 page."""

from __future__ import annotations

from ffsite.datasets.eqbench3.page import (
    BOTH,
    CUE_STRENGTH,
    DATASET,
    JUDGE_NAME,
    PAGE,
    SOURCE_URL,
    criteria_table,
    display,
    model_cell,
    rank_columns,
    rank_row,
    rating_rows,
    strength_estimate,
    strength_rows,
    type_text,
)
from ffsite.site import charts
from ffsite.site.context import SiteContext
from ffsite.site.urls import TRAITS, link, page_path
from ffsite.site.views import Column, Table, chart, count_cell, estimate_cell, tied_first


def trait_page(ctx: SiteContext, trait, page: str) -> bool:
    """Draw the page of an EQ-Bench 3 criterion (the traits builder asks of every trait);
    True when `trait` is one."""
    if not trait.trait_id.startswith("eq-") or trait.scored:
        return False
    criterion_page(ctx, trait, page)
    return True


def criterion_page(ctx: SiteContext, trait, page: str) -> None:
    """The trait page of an EQ-Bench 3 criterion: its wording and scenario type, the
    judge, every model's Elo (chart and table) and strength against the other models."""
    found = ctx.pairwise.get(DATASET)
    criteria = criteria_table(ctx)
    facts = criteria[criteria["trait_id"] == trait.trait_id]
    kind = facts["scenario_type"].iloc[0] if len(facts) else BOTH
    slug = ctx.slugs.traits[trait.trait_id]
    output = ctx.output
    elo_table = elo_chart = strength_table = strength_chart = None
    anchor = None
    if found is not None and len(facts):
        anchor = display(ctx, found.anchor)
        ratings = rating_rows(ctx, found, criteria)
        own = ratings[ratings["trait_id"] == trait.trait_id]
        if len(own):
            download = output.data(f"traits/{slug}/ratings", own, f"{trait.label}: Elo per "
                                   f"model (EQ-Bench 3, judge {JUDGE_NAME})", page)
            tied = tied_first(own)
            elo_table = Table("eq-trait-elo", f"Elo of each model (judge {JUDGE_NAME}; 95% "
                              "interval under each value)", rank_columns(),
                              [rank_row(ctx, page, r, len(own), tied)
                               for r in own.itertuples(index=False)],
                              download)
            ranked = own.sort_values(["elo", "model"], ascending=[False, True],
                                     kind="stable")
            elo_chart = chart("eq-trait-elo-chart", charts.interval_dots(
                ranked.assign(name=ranked["model_name"], value=ranked["elo"],
                              low=ranked["ci_low"], high=ranked["ci_high"]), "Elo",
                f"Elo of every model on '{trait.label}' (judge {JUDGE_NAME}), highest "
                f"first, with its 95% interval; {anchor} is fixed at 1000.",
                value_format=",.0f"))
        strengths = strength_rows(ctx, found, criteria)
        mine = strengths[strengths["trait_id"] == trait.trait_id].sort_values(
            ["strength", "model"], ascending=[False, True], kind="stable")
        if len(mine):
            download = output.data(f"traits/{slug}/strength", mine, f"{trait.label}: each "
                                   f"model against the others (EQ-Bench 3, judge "
                                   f"{JUDGE_NAME})", page)
            strength_table = Table(
                "eq-trait-strength", "Strength against the other models (95% interval "
                "under each value)", [
                    Column("model", "Model", numeric=False),
                    Column("strength", "Strength", cue=CUE_STRENGTH,
                           title="(shown more − shown less) / comparisons"),
                    Column("relevance", "Relevance", title="share of comparisons where "
                           "both orders picked the same side"),
                    Column("valid", "Valid votes", title="comparisons with an A/B vote"),
                    Column("n", "Comparisons")],
                [[model_cell(ctx, page, r.model), strength_estimate(r, ctx.min_valid),
                  estimate_cell(r.relevance, r.relevance_low, r.relevance_high,
                                what="relevance"),
                  count_cell(r.valid_votes), count_cell(r.num_votes)]
                 for r in mine.itertuples(index=False)], download)
            strength_chart = chart("eq-trait-strength-chart", charts.strength_bars(
                mine.assign(name=mine["model_name"]), "model",
                f"Strength of '{trait.label}' for each model against the other models "
                f"(judge {JUDGE_NAME}), highest first, with 95% intervals."))
    shown = [c for c in (elo_chart, strength_chart) if c]
    output.page(page, "trait_eqbench.html", section=page_path(TRAITS), trait=trait,
                summary=trait.trait.split(": ", 1)[-1], asked_in=type_text(kind),
                judge=JUDGE_NAME, source_url=SOURCE_URL, eq_page=link(page, PAGE),
                anchor=anchor, elo_table=elo_table, elo_chart=elo_chart,
                strength_table=strength_table, strength_chart=strength_chart, charts=shown,
                min_valid=ctx.min_valid)
