"""Trait agreement (FF paper, fig. 11): kappa and relevance overlap for every trait pair."""

from __future__ import annotations

import numpy as np

from ffsite.datasets import dataset_name
from ffsite.metrics.agreement import prompt_codes, trait_agreement
from ffsite.site import charts
from ffsite.site.context import SiteContext, labelled
from ffsite.site.pages.home import trait_order
from ffsite.site.urls import TRAITS, link, page_path
from ffsite.site.views import Cell, Column, Table, chart, count_cell, estimate_cell


def build(ctx: SiteContext) -> None:
    page = page_path("agreement")
    labels = ctx.labels
    resamples = ctx.config.rating_resamples
    pairs = trait_agreement(ctx.votes, clusters=prompt_codes(ctx.annotations.comparisons),
                            n_bootstrap=resamples)
    pairs = labelled(labelled(pairs, labels, "trait_id_a", "trait_a"), labels, "trait_id_b",
                     "trait_b")
    pairs = pairs.sort_values(["cohens_kappa", "trait_id_a", "trait_id_b"],
                              ascending=[False, True, True], kind="stable",
                              na_position="last").reset_index(drop=True)
    download = ctx.output.data("trait-agreement", pairs, "Trait agreement: kappa and "
                               "relevance overlap for every pair of traits", page)
    table = Table("agreement", "Every pair of traits that were relevant together", [
        Column("trait_a", "Trait", numeric=False),
        Column("trait_b", "Other trait", numeric=False),
        Column("kappa", "Kappa", cue="higher = same side more often"),
        Column("overlap", "Overlap", title="both relevant / at least one relevant"),
        Column("both", "Both relevant"),
        Column("either", "Either relevant")],
        [[Cell(r.trait_a, href=link(page, ctx.slugs.page(TRAITS, r.trait_id_a)), header=True),
          Cell(r.trait_b, href=link(page, ctx.slugs.page(TRAITS, r.trait_id_b))),
          estimate_cell(r.cohens_kappa, r.kappa_low, r.kappa_high, signs=True,
                        what="kappa", titled=False),
          estimate_cell(r.overlap, r.overlap_low, r.overlap_high, what="overlap",
                        titled=False),
          count_cell(r.both_relevant), count_cell(r.either_relevant)]
         # Pairs never relevant together say nothing: in the download, not the table.
         # (Pairs never asked together, such as EQ-Bench 3's role-play and analysis
         # criteria, are in neither.)
         for r in pairs.itertuples(index=False) if r.both_relevant > 0], download,
        note=f"95% intervals: bootstrap over each dataset's prompts, every comparison "
             f"of a drawn prompt kept ({resamples:,} resamples).")
    heatmap = None
    if len(pairs):
        present = set(pairs["trait_id_a"]) | set(pairs["trait_id_b"])
        order = [labels[t] for t in trait_order(ctx) if t in present]
        heatmap = chart("agreement-chart", charts.agreement_heatmap(
            pairs, order, "Heatmap of Cohen's kappa between every pair of traits on the "
            "comparisons where both gave an A/B vote (blue: they pick the same side, red: "
            "opposite sides); the inner square's size is the relevance overlap. The table "
            "below lists every pair."))
    # Whose votes: each judge with the datasets its traits were voted on.
    votes = ctx.votes
    judged: dict[str, set[str]] = {}
    for column, judge in enumerate(votes.traits["judge"].astype(str)):
        for d in np.flatnonzero(votes.in_scope[:, column]):
            judged.setdefault(judge, set()).add(dataset_name(votes.datasets[d]))
    ctx.output.page(page, "agreement.html", section=page, table=table, heatmap=heatmap,
                    charts=[heatmap] if heatmap else [],
                    judged=[(j, ", ".join(sorted(d))) for j, d in sorted(judged.items())])
