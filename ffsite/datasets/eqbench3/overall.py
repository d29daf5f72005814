"""EQ-Bench 3's overall emotional intelligence, first on its page and on the home page:
EQ-Bench's own rating recomputed on its published scale (scale.py), ffsite's
Bradley-Terry of the overall-EQ verdicts put on the same scale, how far the two agree and
why a model differs; and how strongly the fourteen criteria agree with each other."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ffsite.datasets.eqbench3.page import (
    DATASET,
    JUDGE_NAME,
    OVERALL,
    PAGE,
    criteria_table,
    display,
    model_cell,
)
from ffsite.datasets.eqbench3.scale import ANCHORS, eqbench_scale, matchups, normalise
from ffsite.metrics.agreement import prompt_codes
from ffsite.metrics.ranking import correlation_interval, spearman
from ffsite.metrics.ratings import trait_refits
from ffsite.metrics.results import trait_agreement, trait_votes
from ffsite.site import charts
from ffsite.site.context import SiteContext
from ffsite.site.judging import judge_badge, self_judges
from ffsite.site.model_meta import meta_cells, meta_columns
from ffsite.site.output import Download
from ffsite.site.render import number, signed
from ffsite.site.urls import MODELS, link
from ffsite.site.views import (
    Cell,
    Chart,
    Column,
    Table,
    chart,
    count_cell,
    estimate_cell,
    rank_column,
    ranked_cell,
    sort_value,
    tied_first,
)

HOME_TOP = 5  # models the home page lists
APART = 50  # points beyond the common shift at which a model's difference is explained
CLOSE_KAPPA = 0.9
CUE = "higher = more emotionally intelligent"


@dataclass(frozen=True)
class Overall:
    """The overall-EQ section: both ratings per model, and what the page says of them."""

    frame: pd.DataFrame  # one row per model, highest on EQ-Bench's scale first
    anchors: tuple[str, str]  # display names of the two models the scale pins
    pearson: float
    spearman: float
    pearson_interval: tuple[float, float]  # 95%, bootstrap over the models
    spearman_interval: tuple[float, float]
    shift: float  # median of EQ-Bench's scale minus the Bradley-Terry, points
    spread: float  # median distance from that shift, points
    halfwidth: float  # median half-width of EQ-Bench's ratings' intervals, points
    reasons: list[str]  # why the models apart by more than APART beyond the shift are
    top_shares: tuple[float, float]  # the top anchor's matchup share, verdict share


def overall(ctx: SiteContext) -> Overall | None:
    """Computed once per build (`ctx.prepared`); None without EQ-Bench's two anchors or
    without overall-EQ ratings."""
    found = ctx.pairwise.get(DATASET)
    if found is None or found.anchor is None:
        return None
    comparisons = ctx.annotations.comparisons
    own = ctx.annotations.where((comparisons["dataset"] == DATASET).to_numpy())
    anchors = tuple(ctx.registry.ids([DATASET] * len(ANCHORS), [a for a, _ in ANCHORS]))
    games = matchups(ctx.seeded_votes(DATASET), own.comparisons)
    scaled = eqbench_scale(games, anchors)
    refits = trait_refits(own, OVERALL, anchor=found.anchor,
                          n_bootstrap=ctx.config.rating_resamples)
    if scaled is None or refits is None:
        return None
    models, rated = refits
    where = [models.index(a) for a in anchors]
    targets = [t for _, t in ANCHORS]
    bt = normalise(rated.elo[None, :], where, targets)[0]
    drawn = normalise(rated.refits, where, targets)
    low, high = np.nanquantile(drawn, [0.025, 0.975], axis=0)
    bradley = pd.DataFrame({"model": models, "bt": bt, "bt_low": low, "bt_high": high})
    frame = scaled.table.merge(bradley, on="model", how="left")
    frame = frame.assign(model_name=[display(ctx, m) for m in frame["model"]],
                         difference=frame["rating"] - frame["bt"],
                         **{name: frame["model"].map(values) for name, values in shares(
                             ctx.seeded_votes(DATASET), own.comparisons, games).items()})
    # The anchors agree by construction: what the two ratings say apart is in the rest.
    both = frame.dropna(subset=["bt"])
    both = both[~both["model"].isin(anchors)]
    shift = float(np.median(both["difference"]))
    return Overall(frame, (display(ctx, anchors[0]), display(ctx, anchors[1])),
                   float(both["rating"].corr(both["bt"])),
                   spearman(both["rating"], both["bt"]),
                   *(correlation_interval(both["rating"], both["bt"], ranks=ranks,
                                          n_bootstrap=ctx.config.rating_resamples)
                     for ranks in (False, True)), shift,
                   float(np.median(np.abs(both["difference"] - shift))),
                   float(np.median((both["ci_high"] - both["ci_low"]) / 2)),
                   reasons(both, shift, {m for d, m in ctx.prepared(self_judges)
                                         if d == DATASET}), tuple(frame.set_index("model").loc[
                       anchors[0], ["matchup_share", "verdict_share"]].astype(float)))


def shares(votes: pd.DataFrame, comparisons: pd.DataFrame, games: pd.DataFrame
           ) -> dict[str, pd.Series]:
    """Per model: verdict_share, the share of its overall-EQ verdicts (each order
    counted) that pick it, what the Bradley-Terry sees; matchup_share, its mean share of
    its matchups, every criterion's margin counted, what EQ-Bench's rating sees."""
    sides = comparisons.set_index("comparison_id")[["model_a", "model_b"]]
    overall_votes = votes[(votes["trait_id"] == OVERALL)
                          & votes["vote"].isin(["A", "B"])].join(sides, on="comparison_id")
    picked = np.where(overall_votes["vote"] == "A", overall_votes["model_a"],
                      overall_votes["model_b"])
    met = pd.concat([overall_votes["model_a"], overall_votes["model_b"]]).value_counts()
    verdict = pd.Series(picked).value_counts().reindex(met.index, fill_value=0) / met
    mine = pd.concat([pd.DataFrame({"model": games["first"], "share": games["share"]}),
                      pd.DataFrame({"model": games["second"], "share": 1 - games["share"]})])
    matchup = mine.groupby("model")["share"].mean()
    return {"verdict_share": verdict, "matchup_share": matchup}


def reasons(frame: pd.DataFrame, shift: float, judges: set[str] = frozenset()
            ) -> list[str]:
    """A sentence per model whose two ratings are apart by more than APART points beyond
    the common shift, saying what in the data puts it there."""
    found = []
    apart = frame[(frame["difference"] - shift).abs() > APART].sort_values(
        "difference", key=lambda d: -(d - shift).abs())
    for r in apart.itertuples(index=False):
        side = "lower" if r.difference < shift else "higher"
        said = (f"{r.model_name} sits {number(abs(r.difference - shift), 0)} points "
                f"{side} on EQ-Bench's scale than the shift alone would put it: its "
                f"matchups, every criterion's margin counted, give it "
                f"{r.matchup_share:.0%} against {r.verdict_share:.0%} of its overall-EQ "
                "verdicts")
        gap = r.matchup_share - r.verdict_share
        if abs(gap) < 0.02:
            said += (f", so the two measures agree on it, and the gap comes from whom it "
                     f"met and TrueSkill's order of updates over its {r.matchups} "
                     "matchups")
        elif gap < 0:
            said += (" (it wins the overall verdict more often than it wins the margins "
                     "over all the criteria)")
        else:
            said += " (its wins are by wide margins, and on more criteria than overall EQ)"
        if r.model in judges:
            said += (f"; {r.model_name} is the judge here, and these are its verdicts on "
                     "its own transcripts")
        found.append(said + ".")
    return found


def overall_table(ctx: SiteContext, found: Overall, download: Download) -> Table:
    """Both ratings of every model, EQ-Bench's scale first."""
    frame = found.frame
    tied = tied_first(frame)
    rows = [[model_cell(ctx, PAGE, r.model), on_scale(r.rating, r.ci_low, r.ci_high),
             ranked_cell(r, len(frame), tied=tied),
             on_scale(r.bt, r.bt_low, r.bt_high),
             Cell("–") if pd.isna(r.difference) else Cell(signed(r.difference, 0),
                                                          sort_value(r.difference)),
             count_cell(r.matchups)]
            for r in frame.itertuples(index=False)]
    # (The paragraph above the table gives the scale's two anchors.)
    return Table("eq-overall", f"Overall EQ of {len(frame)} models on EQ-Bench's scale "
                 f"(judge {JUDGE_NAME})", [
                     Column("model", "Model", numeric=False),
                     Column("eqbench", "EQ-Bench's rating", cue=CUE,
                            title="EQ-Bench 3's own method, recomputed from the verdicts"),
                     rank_column(ranks="eqbench"),
                     Column("bt", "ffsite's Bradley–Terry", cue=CUE,
                            title="the overall-EQ verdicts alone, on the same scale"),
                     Column("difference", "Difference", cue="EQ-Bench's minus ffsite's"),
                     Column("n", "Matchups", title="scenarios judged against another "
                            "model (both orders)")], rows, download)


def on_scale(value: float, low: float, high: float) -> Cell:
    """A rating on EQ-Bench's scale with its interval; an anchor is fixed there."""
    if pd.isna(value):
        return Cell("–")
    if low == high:
        return Cell(number(value, 0), sort_value(value), interval="fixed (anchor)",
                    title="one of the two models EQ-Bench's scale is pinned on")
    return estimate_cell(value, low, high, digits=0, what="rating")


@dataclass(frozen=True)
class CriteriaAgreement:
    chart: Chart
    median: float  # median kappa between two criteria
    close: float  # share of criterion pairs with kappa at least CLOSE_KAPPA
    pairs: int
    median_low: float  # the median's 95% interval (bootstrap over the scenarios)
    median_high: float
    close_low: float  # the share's 95% interval, the same bootstrap
    close_high: float


def criteria_agreement(ctx: SiteContext) -> CriteriaAgreement | None:
    """Cohen's kappa between every two criteria over the pairs where both picked a side
    (ffsite.metrics.agreement), as a small heatmap, with its median."""
    comparisons = ctx.annotations.comparisons
    own = ctx.annotations.where((comparisons["dataset"] == DATASET).to_numpy())
    criteria = criteria_table(ctx)
    pairs, draws = trait_agreement(trait_votes(own), clusters=prompt_codes(own.comparisons),
                                   with_draws=True, n_bootstrap=ctx.config.rating_resamples)
    chosen = (pairs["trait_id_a"].isin(criteria["trait_id"])
              & pairs["trait_id_b"].isin(criteria["trait_id"])
              & pairs["cohens_kappa"].notna()).to_numpy()
    pairs, draws = pairs[chosen], draws[:, chosen]
    if pairs.empty:
        return None
    names = criteria.set_index("trait_id")["criterion"]
    kappa = pairs["cohens_kappa"]
    median, close = float(kappa.median()), float((kappa >= CLOSE_KAPPA).mean())
    # The intervals of the median and the share: over the criteria pairs in each resample
    # (all pairs are counted on the same resamples of the scenarios).  A resample of a
    # few scenarios may define no pair at all; it says nothing and is left out.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanquantile(np.nanmedian(draws, axis=1), [0.025, 0.975])
        close_low, close_high = np.nanquantile(np.nanmean(np.where(
            np.isnan(draws), np.nan, draws >= CLOSE_KAPPA), axis=1), [0.025, 0.975])
    frame = pairs.assign(trait_a=pairs["trait_id_a"].map(names),
                         trait_b=pairs["trait_id_b"].map(names))
    figure = chart("eq-agreement-chart", charts.agreement_heatmap(
        frame, list(criteria["criterion"]),
        f"Cohen's kappa between every two EQ-Bench 3 criteria (colour; the inner square: "
        f"how often both were asked and picked a side), over the pairs where both picked "
        f"a side: the median of the {len(pairs)} pairs is {median:.2f} (95% interval "
        f"{low:.2f}–{high:.2f}), and "
        f"{close:.0%} are {CLOSE_KAPPA} or more."))
    return CriteriaAgreement(figure, median, close, len(pairs), float(low), float(high),
                             float(close_low), float(close_high))


def home_table(ctx: SiteContext, page: str
               ) -> tuple[Table | None, str | None, Download | None]:
    """The home page's table of EQ-Bench 3: the top models on EQ-Bench's own scale, with
    their ranks; (table, the scale's anchors in words, download), or Nones."""
    found = ctx.prepared(overall)
    if found is None:
        return None, None, None
    frame = found.frame
    download = ctx.output.data("eqbench3-overall", frame, "EQ-Bench 3: overall emotional "
                               "intelligence on EQ-Bench's scale, and ffsite's "
                               "Bradley-Terry on the same scale", page)
    tied = tied_first(frame)
    rows = [[Cell(r.model_name, href=link(page, ctx.slugs.page(MODELS, r.model)),
                  header=True, **judge_badge(ctx, DATASET, r.model)),
             on_scale(r.rating, r.ci_low, r.ci_high),
             ranked_cell(r, len(frame), tied=tied), count_cell(r.matchups),
             *meta_cells(ctx.registry, r.model)]
            for r in frame.head(HOME_TOP).itertuples(index=False)]
    table = Table("eq-top", f"Highest overall EQ of {len(frame)} models (EQ-Bench 3)", [
        Column("model", "Model", numeric=False),
        Column("eqbench", "EQ-Bench's rating", cue=CUE,
               title=f"{found.anchors[0]} = 1500, {found.anchors[1]} = 200"),
        rank_column(ranks="eqbench"), Column("n", "Matchups"), *meta_columns()], rows, download)
    return table, f"{found.anchors[0]} at 1500 and {found.anchors[1]} at 200", download
