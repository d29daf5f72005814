"""A dataset page's length-controlled preferences (ffsite.metrics.length_control): each
trait's strength against the preference annotator and each model's win rate against
the reference, raw and with the two answers' length difference held at zero, side by
side with their 95% intervals.  Lengths are the response-metrics files' characters
(words where they have no characters).

The section's notes say what this page fitted (trait fits, model fits, or both), what
each fit holds at zero and the unit of length; the overall length effect is the median
of the fits the page's numbers come from (`overall_length_effect`).  A trait with too
few A/B votes gets no controlled strength, and a controlled win rate that rests on too
few comparisons is marked extrapolated, with the rule in the table's note."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from ffsite.metrics import results
from ffsite.metrics.length_control import (
    EXTRAPOLATED_SHARE,
    LENGTH_MEASURES,
    LENGTH_TRAIT_SHARE,
    OverallEffect,
    length_traits,
    overall_length_effect,
)
from ffsite.site.context import SiteContext
from ffsite.site.judging import reference_judge_notes
from ffsite.site.render import number, percent, signed
from ffsite.site.sections import Section
from ffsite.site.urls import TRAITS, link
from ffsite.site.views import (
    CUE_BETTER,
    CUE_ENCOURAGED,
    Cell,
    Column,
    Table,
    estimate_cell,
    strength_cell,
)

TANH_1 = float(np.tanh(1.0))  # the length term of an answer one s longer
EXTRAPOLATED = "extrapolated"  # the mark beside an extrapolated controlled win rate


def length_measure(ctx: SiteContext) -> str:
    """The response-metrics measure the page counts length in: characters, or words when
    the metrics files have no characters."""
    columns = ctx.response_metrics.columns
    return next((m for m in LENGTH_MEASURES if m in columns), LENGTH_MEASURES[0])


def lengths(ctx: SiteContext) -> tuple[np.ndarray, np.ndarray]:
    """Per comparison, the length of its A and B answers in `length_measure` units, once
    per build."""
    return results.response_lengths(ctx.annotations, ctx.response_metrics,
                                    length_measure(ctx))


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
    unit = length_measure(ctx)
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
        findings = dict(zip(raw["trait_id"], raw["finding"], strict=True))
        tables.append(_trait_table(ctx, page, frame, findings, download))
    wins = results.length_controlled_win_rates(ctx.annotations, dataset,
                                               ctx.models.reference_model, both)
    if wins is not None and len(wins):
        download = ctx.output.data(f"datasets/{slug}/length-controlled-win-rates", wins,
                                   f"{dataset}: win rates against the reference, raw and "
                                   "with length held at zero", page)
        tables.append(_win_table(ctx, page, wins, download, unit))
    else:
        wins = None
    if not tables:
        return []
    effect = overall_length_effect(strengths, wins, min_valid_votes=ctx.min_valid)
    notes = (effect_note(effect, ctx.labels, ctx.registry.display_name, unit, strengths,
                         ctx.min_valid),
             method_note(strengths if any(t.id == "length-traits" for t in tables) else None,
                         ctx.models.reference_model if wins is not None else None,
                         str(judge), unit),
             *reference_judge_notes(dataset, judge))
    return [Section(id="length-control", heading="Length held at zero",
                    summary=f"what {judge} prefers once the answers' length difference is "
                            "held at zero",
                    judged_by=str(judge), datasets=(dataset,), tables=tuple(tables),
                    notes=tuple(note for note in notes if note))]


# ------------------------------------------------------------------------ tables

def _trait_table(ctx: SiteContext, page: str, frame: pd.DataFrame,
                 findings: dict[str, bool], download) -> Table:
    min_valid = ctx.min_valid
    rows = []
    # A trait that is length itself (its votes nearly always pick the longer answer, or
    # the shorter) is collinear with the length term: its held strength is an artefact.
    is_length = dict(zip(frame["trait_id"], length_traits(frame), strict=True))
    for r in frame.itertuples(index=False):
        raw = estimate_cell(r.strength, r.strength_low, r.strength_high, signs=True)
        if r.valid_votes == 0:
            raw = strength_cell(r.strength, False, 0, min_valid)  # a dash: nothing measured
        elif not findings.get(r.trait_id, True):  # the site's rule for the raw strength
            raw = Cell(raw.text, raw.value, css="nf", interval=raw.interval,
                       title=f"too few valid votes to count as a finding (fewer than "
                             f"{min_valid})")
        enough = r.valid_votes >= min_valid and np.isfinite(r.lc_strength)
        rows.append([
            Cell(r.trait, href=link(page, ctx.slugs.page(TRAITS, r.trait_id)), header=True),
            raw,
            too_few_votes(int(r.valid_votes), min_valid) if not enough else
            Cell("– (length itself)", css="nf", title=(
                f"its A/B votes pick the longer answer {percent(100 * r.picks_longer)} of the "
                "time: the trait and the length term say the same thing, so no strength is "
                "left once length is held at zero")) if is_length[r.trait_id] else
            estimate_cell(r.lc_strength, r.lc_low, r.lc_high, signs=True),
            estimate_cell(r.length_effect, r.length_effect_low, r.length_effect_high,
                          signs=True) if np.isfinite(r.length_effect) else
            Cell("–", title="no fit: the trait has no A/B vote on these comparisons")])
    short = frame[frame["valid_votes"] < min_valid]
    note = (f"Too few votes: a trait with fewer than {min_valid} A/B votes (the site's "
            "threshold for a finding) gets no length-held strength ("
            + ", ".join(f"{t}: {int(v):,}" for t, v in zip(short["trait"],
                                                            short["valid_votes"],
                                                            strict=True))
            + "); its length effect, where there is a fit, is the annotator's, not the "
            "trait's.") if len(short) else ""
    return Table("length-traits", "Strength of each trait against the preference "
                 "annotations: raw, and with the length difference held at zero",
                 [Column("trait", "Trait", numeric=False),
                  Column("strength", "Strength", cue=CUE_ENCOURAGED),
                  Column("lc_strength", "Length held at 0", cue=CUE_ENCOURAGED,
                         title="the strength the trait would have if the annotator gave "
                               "length no weight"),
                  Column("length_effect", "Length effect",
                         title="b: log-odds of preferring an answer per unit of the "
                               "length term, in the trait's fit")],
                 rows, download, note=note)


def too_few_votes(votes: int, min_valid: int) -> Cell:
    """The length-held strength of a trait with fewer A/B votes than the site's minimum:
    words, not a number from a fit they cannot carry."""
    return Cell("no votes" if votes == 0 else "too few votes", css="nf",
                title=f"{votes} A/B vote{'' if votes == 1 else 's'} of this trait (fewer "
                      f"than {min_valid}): no length-held strength")


def _win_table(ctx: SiteContext, page: str, wins: pd.DataFrame, download,
               unit: str) -> Table:
    from ffsite.site.pages.datasets import model_cell

    wins = wins.sort_values(["win_rate", "model"], ascending=[False, True], kind="stable")
    rows = [[model_cell(ctx, page, w.model),
             estimate_cell(w.win_rate, w.win_rate_low, w.win_rate_high, digits=1),
             _controlled_cell(w),
             estimate_cell(w.length_effect, w.length_effect_low, w.length_effect_high,
                           signs=True),
             Cell(f"{int(w.n):,}", int(w.n))] for w in wins.itertuples(index=False)]
    note = ("A tie counts as half a win in both. Wilson's interval under the raw win rate; "
            "under the controlled one, the Wald interval of a mapped through the sigmoid.")
    flagged = wins[wins["extrapolated"]]
    if len(flagged):
        names = ", ".join(ctx.registry.display_name(m) for m in flagged["model"])
        note += (f" “{EXTRAPOLATED}” ({names}): the controlled win rate is the fitted "
                 "curve read at equal length, and few of the model's comparisons inform it "
                 "there. Either it is as precise as a plain win rate from fewer than "
                 f"{EXTRAPOLATED_SHARE:.0%} of them (effective number 1 / (p (1 − p) "
                 "se(a)²), p the controlled rate), because they lie far from equal length "
                 "or because the curve jumps there (a near-separated fit: the length term "
                 "all but decides the verdict); or equal length lies outside them "
                 "altogether (answers all shorter, or all longer, than the reference's). "
                 "The number is kept, but it is an extrapolation of the fit, not a win "
                 "rate the model showed at equal length.")
    return Table("length-win-rates", f"Win rate (%) against {ctx.models.reference_model}: "
                 "raw, and with the length difference held at zero",
                 [Column("model", "Model", numeric=False),
                  Column("win_rate", "Win rate", cue=CUE_BETTER),
                  Column("lc_win_rate", "Length held at 0", cue=CUE_BETTER,
                         title="the win rate if the model's answers were as long as the "
                               "reference's"),
                  Column("length_effect", "Length effect",
                         title="b: log-odds of winning per unit of the length term"),
                  Column("n", "Compared", title=f"comparisons with both answers' lengths "
                                                f"(in {unit})")],
                 rows, download, note=note)


def _controlled_cell(w) -> Cell:
    """A model's controlled win rate, marked when it is extrapolated."""
    found = estimate_cell(w.lc_win_rate, w.lc_low, w.lc_high, digits=1)
    if not w.extrapolated:
        return found
    if np.isfinite(w.effective_n):
        why = (f"as precise as a plain win rate from about {w.effective_n:,.0f} of its "
               f"{int(w.n):,} comparisons (fewer than {EXTRAPOLATED_SHARE:.0%})")
    else:
        why = (f"its {int(w.n):,} answers are all shorter, or all longer, than the "
               "reference's: equal length lies outside its comparisons")
    return Cell(found.text, found.value, title=found.title, interval=found.interval,
                badge=EXTRAPOLATED,
                badge_title=f"{why}: an extrapolation of its fit (length effect b = "
                            f"{signed(w.length_effect)}), not a win rate it showed at "
                            "equal length")


# ------------------------------------------------------------------------ notes

def effect_note(effect: OverallEffect | None, labels: pd.Series,
                model_name: Callable[[str], str], unit: str, strengths: pd.DataFrame,
                min_valid: int) -> str:
    """One paragraph on how strongly the annotator follows length: the median length
    effect of the fits the page's numbers come from, with their range and what was left
    out, and the odds it means."""
    if effect is None:
        return ""
    if effect.source == "models":
        names = ", ".join(model_name(m) for m in effect.left_out["model"])
        left_out = (f"; left out: {names}, whose "
                    f"controlled win rate is {EXTRAPOLATED}") if len(effect.left_out) else ""
        text = (f"How much length sways the annotator: in the fits behind the controlled "
                f"win rates, one per model, the length effect b has a median of "
                f"{signed(effect.median)} ({signed(effect.low)} to {signed(effect.high)} "
                f"over {len(effect.used)} model{_s(len(effect.used))}{left_out}). At the "
                f"median, an answer longer than the reference's by one standard deviation s "
                f"of the model's length difference (each model's own s, a median of "
                f"{effect.scale:,.0f} {unit}; length term tanh(1) = {TANH_1:.2f}) has "
                f"{number(np.exp(effect.median * TANH_1))} times the odds of winning, other "
                "things equal.")
        pooled = overall_length_effect(strengths, None, min_valid_votes=min_valid)
        if pooled is not None:
            text += (f" The trait fits below pool the dataset's decided comparisons, all "
                     f"models together, on one scale (s = {pooled.scale:,.0f} {unit}): their "
                     f"b ({signed(pooled.low)} to {signed(pooled.high)}, length traits left "
                     "out) is not comparable with the models'.")
        return text
    names = [labels.get(t, t) for t in effect.left_out["trait_id"]] \
        if "trait_id" in effect.left_out else []
    left_out = (f"; left out: {', '.join(names)}, which are length itself: their votes "
                f"pick the longer, or the shorter, answer at least {LENGTH_TRAIT_SHARE:.0%} "
                "of the time") if names else ""
    return (f"How much length sways the annotator: in the trait fits, the length effect b "
            f"has a median of {signed(effect.median)} ({signed(effect.low)} to "
            f"{signed(effect.high)} over {len(effect.used)} trait{_s(len(effect.used))} "
            f"with at least {min_valid} A/B votes{left_out}). At the median, an answer one "
            f"standard deviation (s = {effect.scale:,.0f} {unit}) longer (length term "
            f"tanh(1) = {TANH_1:.2f}) has {number(np.exp(effect.median * TANH_1))} times "
            "the odds of being preferred, other things equal.")


def method_note(strengths: pd.DataFrame | None, reference: str | None, judge: str,
                unit: str) -> str:
    """What this page fitted, what each fit holds at zero and the unit of length: the
    trait fits when the page has the trait table (`strengths`), the model fits when it
    has the win-rate table (`reference`)."""
    parts = [f"Length is each answer's number of {unit}; the length "
             "term is tanh(length difference / s), s the difference's standard deviation "
             "over the fit's comparisons (AlpacaEval's length term)."]
    if strengths is not None and len(strengths):
        n = int(strengths["n"].max())
        scales = strengths["length_scale"].dropna().unique()
        scale = (f"s = {scales[0]:,.0f} {unit}" if len(scales) == 1
                 else "s over each trait's comparisons")
        parts.append(
            f"For each trait, one fit over the {n:,} comparisons {judge} decided (A or B) "
            f"with both lengths: logit P(A preferred) = δ + g · x + b · tanh((length A − "
            f"length B) / s), x the trait vote (+1 A, −1 B, 0 none), {scale}. Held at "
            "zero: δ (a preference for the first side) and the length term (both answers "
            "equally long); the controlled strength is relevance × (2·sigmoid(g) − 1), its "
            "interval g's Wald interval mapped the same way (trait votes and lengths taken "
            "as given).")
    if reference is not None:
        parts.append(
            f"For each model, one fit over its comparisons with {reference}: logit P(it "
            f"wins) = a + b · tanh((its length − {reference}'s) / s), s over the model's "
            "own comparisons, a tie half a win. Held at zero: the length term (its answers "
            f"as long as {reference}'s); the controlled win rate is sigmoid(a), its interval "
            "a's Wald interval mapped the same way. AlpacaEval's instruction-difficulty term "
            "is not fitted, so these are not its published length-controlled win rates.")
    parts.append("Fits are Firth-penalised logistic regressions.")
    return " ".join(parts)


def _s(count: int) -> str:
    return "" if count == 1 else "s"
