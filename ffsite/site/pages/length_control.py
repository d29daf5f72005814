"""A dataset page's length-controlled preferences (ffsite.metrics.length_control): each
trait's strength against the preference annotator and each model's win rate against
the reference, raw and with the two answers' length difference held at zero, side by
side with their 95% intervals.  Lengths are the response-metrics files' characters
(words where they have no characters)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ffsite.metrics import results
from ffsite.metrics.length_control import LENGTH_MEASURES
from ffsite.site.context import SiteContext
from ffsite.site.render import number, signed
from ffsite.site.sections import Section
from ffsite.site.urls import TRAITS, link
from ffsite.site.views import CUE_BETTER, CUE_ENCOURAGED, Cell, Column, Table, estimate_cell

METHOD = ("Length held at zero: a logistic model of the annotator's choice with the "
          "standardised length difference of the two answers, tanh((length A − length B) "
          "/ its standard deviation), as AlpacaEval's length-controlled win rate has it, is "
          "read with that term at zero. For a trait: logit P(A preferred) = side + g · "
          "trait vote (+1 A, −1 B, 0 none) + b · length term; its controlled strength is "
          "relevance × (2·sigmoid(g) − 1), the side and length terms at zero. For a model: "
          "logit P(it wins) = a + b · length term; its controlled win rate is sigmoid(a). "
          "Fits are Firth-penalised; intervals are Wald intervals of g and a, mapped the "
          "same way (trait votes and lengths taken as given). Without AlpacaEval's "
          "instruction-difficulty term, these are not its published length-controlled "
          "win rates.")


def lengths(ctx: SiteContext) -> tuple[np.ndarray, np.ndarray]:
    """Per comparison, the length of its A and B answers in characters (in words when
    the metrics files have no characters), once per build."""
    metrics = ctx.response_metrics
    measure = next((m for m in LENGTH_MEASURES if m in metrics.columns), LENGTH_MEASURES[0])
    return results.response_lengths(ctx.annotations, metrics, measure)


def length_control_sections(ctx: SiteContext, dataset: str) -> list[Section]:
    """Raw and length-controlled strengths and win rates, for a dataset whose answers
    have lengths and whose comparisons a preference annotator decided."""
    # datasets.py lists this provider, so its helpers are imported when first used.
    from ffsite.site.pages.datasets import dataset_page_path, default_annotator

    both = ctx.prepared(lengths)
    comparisons = (ctx.annotations.comparisons["dataset"] == dataset).to_numpy()
    judge = default_annotator(ctx, dataset)
    if judge is None or not (comparisons & ~np.isnan(both[0]) & ~np.isnan(both[1])).any():
        return []
    slug, page = dataset_page_path(ctx, dataset)
    tables = []
    strengths = results.length_controlled_strengths(ctx.annotations, ctx.votes, both,
                                                    dataset=dataset)
    raw = ctx.dataset_traits[ctx.dataset_traits["dataset"] == dataset]
    if len(strengths) and len(raw):
        frame = raw[["trait_id", "trait", "strength", "strength_low", "strength_high"]].merge(
            strengths.drop(columns="judge"), on="trait_id").sort_values(
            ["strength", "trait_id"], ascending=[False, True], kind="stable")
        download = ctx.output.data(f"datasets/{slug}/length-controlled-traits", frame,
                                   f"{dataset}: traits vs the preference annotator, raw "
                                   "and with length held at zero", page)
        tables.append(Table("length-traits", "Strength of each trait against the preference "
                            "annotations: raw, and with the length difference held at zero",
                            [Column("trait", "Trait", numeric=False),
                             Column("strength", "Strength", cue=CUE_ENCOURAGED),
                             Column("lc_strength", "Length held at 0", cue=CUE_ENCOURAGED,
                                    title="the strength the trait would have if the "
                                          "annotator gave length no weight"),
                             Column("length_effect", "Length effect",
                                    title="b: log-odds of preferring an answer per unit of "
                                          "the length term, in the trait's fit")],
                            [[Cell(r.trait, href=link(page, ctx.slugs.page(TRAITS, r.trait_id)),
                                   header=True),
                              estimate_cell(r.strength, r.strength_low, r.strength_high,
                                            signs=True),
                              estimate_cell(r.lc_strength, r.lc_low, r.lc_high, signs=True),
                              estimate_cell(r.length_effect, r.length_effect_low,
                                            r.length_effect_high, signs=True)]
                             for r in frame.itertuples(index=False)], download))
    wins = results.length_controlled_win_rates(ctx.annotations, dataset,
                                               ctx.models.reference_model, both)
    if wins is not None and len(wins):
        download = ctx.output.data(f"datasets/{slug}/length-controlled-win-rates", wins,
                                   f"{dataset}: win rates against the reference, raw and "
                                   "with length held at zero", page)
        tables.append(_win_table(ctx, page, wins, download))
    if not tables:
        return []
    effect = _overall_effect(strengths)
    return [Section(id="length-control", heading="Length held at zero",
                    summary=f"what {judge} prefers once the answers' length difference is "
                            "held at zero",
                    judged_by=str(judge), datasets=(dataset,), tables=tuple(tables),
                    notes=((effect,) if effect else ()) + (METHOD,))]


def _win_table(ctx: SiteContext, page: str, wins: pd.DataFrame, download) -> Table:
    from ffsite.site.pages.datasets import model_cell

    wins = wins.sort_values(["win_rate", "model"], ascending=[False, True], kind="stable")
    rows = [[model_cell(ctx, page, w.model),
             estimate_cell(w.win_rate, w.win_rate_low, w.win_rate_high, digits=1),
             estimate_cell(w.lc_win_rate, w.lc_low, w.lc_high, digits=1),
             estimate_cell(w.length_effect, w.length_effect_low, w.length_effect_high,
                           signs=True),
             Cell(f"{int(w.n):,}", int(w.n))] for w in wins.itertuples(index=False)]
    return Table("length-win-rates", f"Win rate (%) against {ctx.models.reference_model}: "
                 "raw, and with the length difference held at zero",
                 [Column("model", "Model", numeric=False),
                  Column("win_rate", "Win rate", cue=CUE_BETTER),
                  Column("lc_win_rate", "Length held at 0", cue=CUE_BETTER,
                         title="the win rate if the model's answers were as long as the "
                               "reference's"),
                  Column("length_effect", "Length effect",
                         title="b: log-odds of winning per unit of the length term"),
                  Column("n", "Compared", title="comparisons with both answers' lengths")],
                 rows, download, note="A tie counts as half a win in both. Wilson's interval "
                 "under the raw win rate; under the controlled one, the Wald interval of a "
                 "mapped through the sigmoid.")


def _overall_effect(strengths: pd.DataFrame) -> str:
    """One sentence on how strongly the annotator follows length, from the trait fits'
    length effects (they differ little: each fit holds one trait)."""
    if strengths.empty:
        return ""
    middle = strengths.iloc[(strengths["n"] == strengths["n"].max()).to_numpy().argmax()]
    odds = np.exp(middle["length_effect"])
    return (f"How much length sways the annotator: b is about {signed(middle['length_effect'])} "
            f"(95% interval {signed(middle['length_effect_low'])} to "
            f"{signed(middle['length_effect_high'])}): an answer a standard deviation longer "
            f"(length term tanh(1) = 0.76) has {number(odds ** np.tanh(1))} times the odds of "
            "being preferred, other things equal.")
