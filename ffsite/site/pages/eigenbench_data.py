"""What the EigenBench pages and model sections show, computed once per build: every
constitution rated (from votes in the annotations, `SiteContext.eigenbench_results`, and
from judgments a dataset derives from its scores, `Dataset.peer_judgments`), and for a
derived one the dataset's own panel scores of the same models beside it, and the 95% range
of every model's place over the bootstrap refits behind its intervals."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from ffsite.datasets import DATASETS, PANELS, dataset_name, find
from ffsite.metrics import eigenbench as eb
from ffsite.metrics.ranking import RankRanges, rank_ranges, spearman
from ffsite.site.context import SiteContext

SEED = 0  # the site's fits: the same judgments always give the same pages


@dataclass(frozen=True)
class Rated:
    """One constitution's fit as the pages show it.  `ranges`: each model's place by Elo
    and its 95% range over the fit's bootstrap refits, in `result.ratings` order
    (`place_ranges`); `derived`: how its judgments were made when a dataset derived them
    (None: votes asked as pairwise questions); `compared`: for a derived one, each
    model's EigenBench rating beside the dataset's own mean score of the trait
    (`panel_comparison`)."""

    name: str
    label: str
    result: eb.EigenBenchResult
    datasets: tuple[str, ...]
    ranges: RankRanges
    derived: eb.Derived | None = None
    compared: pd.DataFrame | None = None
    scorer: str = ""  # whose mean scores `compared` holds (a panel's name, or a judge)

    @property
    def tied_first(self) -> int:
        """How many models' 95% rank ranges reach first place."""
        return int((self.ranges.low == 1).sum())


def rated(ctx: SiteContext) -> dict[str, Rated]:
    """Every constitution with its fit, by name: the annotations' (as found), then the
    datasets' derived ones (in the records' order), each fitted with seed SEED and the
    site's `eigenbench_resamples` refits (`ctx.prepared(rated)`: once per build); a
    derived one beside its dataset's mean scores."""
    found: dict[str, Rated] = {}
    sets = ctx.constitutions.set_index("constitution")["datasets"] if len(
        ctx.constitutions) else pd.Series(dtype=object)
    for name, result in ctx.eigenbench_results.items():
        found[name] = Rated(name, name, result, tuple(sets.get(name, ())),
                            place_ranges(result))
    for item, result in ctx.prepared(derived_fits):
        compared, scorer = panel_comparison(ctx, item, result)
        found[item.name] = Rated(item.name, item.label, result, (item.dataset,),
                                 place_ranges(result), item, compared, scorer)
    return found


def place_ranges(result: eb.EigenBenchResult) -> RankRanges:
    """Each model's place by Elo, in `result.ratings` order, with its 95% range over the
    bootstrap refits behind its intervals (`result.refits`): in each refit every model
    is ranked, so the range says where the data can put it among these models
    (ffsite.metrics.ranking.rank_ranges); without refits, no range."""
    column = {model: k for k, model in enumerate(result.models)}
    order = [column[model] for model in result.ratings["model"]]
    elo = result.ratings["elo"].to_numpy(float)
    refits = result.refits[:, order] if result.refits is not None else elo[None]
    return rank_ranges(elo, refits, level=result.level)


def derived_fits(ctx: SiteContext) -> list[tuple[eb.Derived, eb.EigenBenchResult]]:
    """The fits of the datasets' derived constitutions whose name no constitution of
    votes has (the first of each name), in the records' order.  The table computed
    ahead (ffsite.site.ahead), apart from `rated`, so that the child never needs the
    score results, which this process computes meanwhile."""
    derived = eb.derived_constitutions(DATASETS, ctx.scores, ctx.judge_scores, PANELS,
                                       ctx.registry)
    if derived:
        ctx.progress.step(f"EigenBench: fitting {len(derived)} sets of judgments derived "
                          "from scores")
    todo: dict[str, eb.Derived] = {}
    for item in derived:
        if item.name not in ctx.eigenbench_results:
            todo.setdefault(item.name, item)
    # The fits are independent and numpy lets go of the lock in their heavy parts: one
    # thread per core, BLAS at one thread throughout (so every fit's arithmetic is the
    # same however the threads interleave).
    refits = ctx.config.eigenbench_resamples
    with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(
            max(1, min(2, os.cpu_count() or 1))) as pool:
        results = list(pool.map(lambda item: eb.eigenbench(
            item.judgments, n_bootstrap=refits, seed=SEED), todo.values()))
    return list(zip(todo.values(), results, strict=True))


def panel_comparison(ctx: SiteContext, item: eb.Derived, result: eb.EigenBenchResult
                     ) -> tuple[pd.DataFrame, str]:
    """Per model of the population, in rating order: its EigenBench Elo and rank among
    the population (by Elo), and the dataset's published mean score of the same trait
    (its panel's, when it has one) with its interval and its rank among the same
    models, with the 95% range of that rank (`panel_rank_low`, `panel_rank_high`: from
    the means' own intervals, as the dataset's pages rank them; NaN without a mean);
    and whose means they are."""
    panel = PANELS.get(item.dataset)
    record = find(item.dataset)
    scorer = panel[0] if panel else (record.judges[0] if record and record.judges else "")
    means = ctx.score_results.means
    own = means[(means["dataset"] == item.dataset) & (means["trait_id"] == item.trait_id)
                & (means["judge"] == scorer)].set_index("model")
    ratings = result.ratings.reset_index(drop=True)
    frame = pd.DataFrame({
        "model": ratings["model"], "elo": ratings["elo"], "ci_low": ratings["ci_low"],
        "ci_high": ratings["ci_high"],
        "eigenbench_rank": np.arange(1, len(ratings) + 1),
        "panel_mean": own["mean"].reindex(ratings["model"]).to_numpy(),
        "panel_low": own["ci_low"].reindex(ratings["model"]).to_numpy(),
        "panel_high": own["ci_high"].reindex(ratings["model"]).to_numpy()})
    ranges = rank_ranges(frame["panel_mean"].to_numpy(float),
                         low=frame["panel_low"].to_numpy(float),
                         high=frame["panel_high"].to_numpy(float))
    for column, values in (("panel_rank", ranges.rank), ("panel_rank_low", ranges.low),
                           ("panel_rank_high", ranges.high)):
        frame[column] = np.where(values > 0, values, np.nan)
    return frame, scorer


def ranking_difference(compared: pd.DataFrame, names) -> str:
    """How the EigenBench order and the panel's order of the same models differ, in a
    sentence: Spearman's correlation and the models that move most."""
    usable = compared.dropna(subset=["panel_mean"])
    if len(usable) < 3:
        return ""
    rho = spearman(usable["elo"], usable["panel_mean"])
    moved = (usable["eigenbench_rank"] - usable["panel_rank"]).abs()
    same = int((moved == 0).sum())
    text = (f"Spearman's correlation between the two orders of these {len(usable)} models "
            f"is {rho:.2f}; {same} of them hold the same place in both.")
    largest = usable[moved == moved.max()] if moved.max() >= 2 else usable.iloc[:0]
    if len(largest):
        text += " Largest moves: " + "; ".join(
            f"{names(r.model)} ({_ordinal(r.eigenbench_rank)} by EigenBench, "
            f"{_ordinal(r.panel_rank)} by the mean score)"
            for r in largest.itertuples(index=False)) + "."
    return text


def _ordinal(rank: float) -> str:
    rank = int(rank)
    suffix = "th" if 10 <= rank % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(rank % 10,
                                                                                "th")
    return f"{rank}{suffix}"


def source_name(item: Rated) -> str:
    """Where a constitution's judgments come from, as the overview names it."""
    if item.derived is None:
        return "judgments asked as pairs"
    return f"derived from {dataset_name(item.derived.dataset)}'s scores"
