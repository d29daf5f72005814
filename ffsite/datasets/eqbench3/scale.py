"""EQ-Bench 3's overall rating on its own published scale, recomputed by ffsite from the
published verdicts, following the method EQ-Bench 3's repository describes (the code here
is ffsite's own):

1. A matchup is one scenario (and iteration) between two models, judged in both orders.
   Each side's "+" are counted over every criterion of both verdicts; the side with more
   wins the matchup (equal counts: a draw).
2. The margin: the difference of the counts over MAX_DIFF (at most 1), bent by `blend`
   (steep at first, then saturating), gives the winner's share 0.5 + blend / 2.
3. The share becomes pseudo-games: ceil((share - 0.5) / (0.5 / WIN_BINS)) wins in a row,
   at least 1 and at most WIN_BINS; a draw is one drawn game.
4. TrueSkill (mean 1200, sigma 350/3, beta 350/6, no drift, no draw margin) updates the
   two ratings after every pseudo-game, matchups in a shuffled order; the rating is the
   mean over SHUFFLES orders.
5. A straight line puts o3 at 1500 and Llama 3.2 1B at 200 (EQ-Bench's normalisation).

The 95% interval: the same fit on bootstrap resamples of the matchups (one shuffled
order each), each resample normalised by its own two anchors, so the anchors' intervals
have no width by construction; the ranks' ranges come from the same resamples and do
not depend on the anchors.  TrueSkill's own sigma, which EQ-Bench reports, only says how
far its sequential updates have settled, not how far another set of scenarios would
move the rating.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import log_ndtr

from ffsite._stored import remembered
from ffsite.metrics.ranking import rank_ranges

MAX_DIFF = 30  # "+" counts apart that make the widest margin
WIN_BINS = 20  # the most pseudo-games one matchup becomes
TS_MU, TS_SIGMA, TS_BETA = 1200.0, 350 / 3, 350 / 6
SHUFFLES = 10  # orders the point estimate averages over
RESAMPLES = 200  # bootstrap resamples of the matchups behind the intervals
# EQ-Bench's normalisation, in its own names: these two models are put at these ratings.
ANCHORS = (("o3", 1500.0), ("meta-llama/llama-3.2-1b-instruct", 200.0))
_LOG_ROOT_2PI = 0.5 * np.log(2 * np.pi)


def blend(x: np.ndarray) -> np.ndarray:
    """EQ-Bench's bend of a normalised margin x in [0, 1]: a line of slope 5 up to 0,
    joined by a smoothstep over [0, 0.11] to the saturating curve
    (1 - exp(-3 x^0.75)) / (1 - exp(-3)), which it follows beyond 0.11."""
    x = np.clip(np.asarray(x, float), 0.0, 1.0)
    curve = (1 - np.exp(-3 * x ** 0.75)) / (1 - np.exp(-3))
    t = np.clip(x / 0.11, 0.0, 1.0)
    weight = t * t * (3 - 2 * t)
    return (1 - weight) * 5 * x + weight * curve


def matchups(votes: pd.DataFrame, comparisons: pd.DataFrame) -> pd.DataFrame:
    """One row per matchup (model pair, scenario, iteration; both orders and both roles
    together), in the order the published file first names it: first, second (the pair
    sorted by name), plus_first, plus_second (their "+" over every criterion and
    verdict), share (the first model's share of the matchup).

    `votes`: the dataset's votes per order (comparison_id, vote "A"/"B", margin);
    `comparisons`: comparison_id, model_a, model_b (the sides of "A" and "B")."""
    sides = comparisons.set_index("comparison_id")[["model_a", "model_b"]]
    own = votes[votes["vote"].isin(["A", "B"])].join(sides, on="comparison_id")
    own = own[own["model_a"].notna() & own["model_b"].notna()]
    scenario, iteration = _scenario_and_iteration(own["comparison_id"])
    model_a, model_b = own["model_a"].astype(str), own["model_b"].astype(str)
    first = np.where(model_a <= model_b, model_a, model_b)
    second = np.where(model_a <= model_b, model_b, model_a)
    to_first = (own["vote"] == "A").to_numpy() == (model_a <= model_b).to_numpy()
    margin = own["margin"].to_numpy(float)
    frame = pd.DataFrame({"first": first, "second": second, "scenario": scenario,
                          "iteration": iteration,
                          "plus_first": np.where(to_first, margin, 0.0),
                          "plus_second": np.where(to_first, 0.0, margin)})
    keys = ["first", "second", "scenario", "iteration"]
    found = frame.groupby(keys, sort=False)[["plus_first", "plus_second"]].sum().reset_index()
    difference = found["plus_first"] - found["plus_second"]
    margin = blend(np.minimum(difference.abs() / MAX_DIFF, 1.0)) / 2 + 0.5
    share = np.where(difference > 0, margin, np.where(difference < 0, 1 - margin, 0.5))
    return found.assign(share=share)


def _scenario_and_iteration(ids: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """A comparison id is "<scenario>:<test>:<neighbour>:<iteration>" (rules.py)."""
    parts = ids.astype(str).str.split(":")
    return parts.str[0].to_numpy(object), parts.str[-1].to_numpy(object)


def pseudo_games(share: np.ndarray, bins: int = WIN_BINS) -> tuple[np.ndarray, np.ndarray]:
    """(games the first model wins, games the second wins) per matchup; a draw (share
    exactly 0.5) is (0, 0), played as one drawn game."""
    margin = np.abs(np.asarray(share, float) - 0.5)
    games = np.clip(np.ceil(np.round(margin / (0.5 / bins), 9)), 1, bins).astype(np.int64)
    draw = np.isclose(share, 0.5)
    return (np.where(~draw & (share > 0.5), games, 0),
            np.where(~draw & (share < 0.5), games, 0))


@dataclass(frozen=True)
class Games:
    """The pseudo-games of many chains at once, padded to one length, one row per step
    of every chain: winner, loser [games, chains] (model codes), draw and active flags.
    (Rows, as trueskill plays them, and 32-bit codes: the default site's 210 chains
    peaked at 472 MB laid out by chain with 64-bit codes and a transposed copy, 119 MB
    like this.)"""

    winner: np.ndarray
    loser: np.ndarray
    draw: np.ndarray
    active: np.ndarray


def chain_games(first: np.ndarray, second: np.ndarray, share: np.ndarray,
                orders: list[np.ndarray]) -> Games:
    """Each chain plays the matchups in its order (an array of matchup numbers, which may
    repeat them: a bootstrap resample), every matchup as its run of pseudo-games."""
    wins_first, wins_second = pseudo_games(share)
    runs = np.maximum(wins_first + wins_second, 1)  # a draw is one game
    first, second = np.asarray(first, np.int32), np.asarray(second, np.int32)
    length = max(int(runs[order].sum()) for order in orders)
    winner, loser = (np.zeros((length, len(orders)), np.int32) for _ in range(2))
    draw, active = (np.zeros((length, len(orders)), bool) for _ in range(2))
    for chain, order in enumerate(orders):
        count = runs[order]
        matchup = np.repeat(order, count)
        # Within a matchup the first model's wins come first, then the second's.
        step = np.arange(len(matchup)) - np.repeat(np.cumsum(count) - count, count)
        drawn = (wins_first[matchup] + wins_second[matchup]) == 0
        first_wins = (step < wins_first[matchup]) | drawn
        games = len(matchup)
        winner[:games, chain] = np.where(first_wins, first[matchup], second[matchup])
        loser[:games, chain] = np.where(first_wins, second[matchup], first[matchup])
        draw[:games, chain], active[:games, chain] = drawn, True
    return Games(winner, loser, draw, active)


def trueskill(games: Games, n_models: int) -> np.ndarray:
    """The TrueSkill means [chains, models] after every chain's games, one game at a
    time (all chains at once): the two-player update without a draw margin, where a
    draw pulls the two means together as far as their variances allow."""
    chains = games.winner.shape[1]
    mu = np.full(chains * n_models, TS_MU)
    var = np.full(chains * n_models, TS_SIGMA ** 2)
    # Each chain's models at their own place of one flat array: a game's look-ups are
    # then plain gathers (1.4x faster than [chain, model] pairs).  (A padded game names
    # model 0 twice and changes nothing.)
    offset = np.arange(chains, dtype=np.int32) * np.int32(n_models)
    for winner, loser, drawn, on in zip(games.winner, games.loser, games.draw,
                                        games.active, strict=True):
        w, lo = winner + offset, loser + offset
        mw, ml, vw, vl = mu[w], mu[lo], var[w], var[lo]
        c2 = 2 * TS_BETA ** 2 + vw + vl
        c = np.sqrt(c2)
        t = (mw - ml) / c
        # v = pdf(t) / cdf(t), from logs so that a far-favoured loser stays finite.
        v = np.exp(-0.5 * t * t - _LOG_ROOT_2PI - log_ndtr(t))
        v = np.where(drawn, -t, v)
        weight = np.where(drawn, 1.0, v * (v + t))
        v, weight = np.where(on, v, 0.0), np.where(on, weight, 0.0)
        mu[w] = mw + vw / c * v
        mu[lo] = ml - vl / c * v
        var[w] = vw * (1 - vw / c2 * weight)
        var[lo] = vl * (1 - vl / c2 * weight)
    return mu.reshape(chains, n_models)


def normalise(raw: np.ndarray, anchors: list[int], targets: list[float]) -> np.ndarray:
    """EQ-Bench's straight line through its two anchors, per row of `raw` [rows,
    models] (each row by its own anchors)."""
    (a, b), (ta, tb) = anchors, targets
    scale = (ta - tb) / (raw[:, a] - raw[:, b])
    found = raw * scale[:, None] + (ta - scale * raw[:, a])[:, None]
    found[:, a], found[:, b] = ta, tb  # exactly, not to the last bit
    return found


@dataclass(frozen=True)
class EqScale:
    """Ratings on EQ-Bench's scale, one row per model: model, rating, ci_low, ci_high,
    rank, rank_low, rank_high, raw (before normalising), matchups; and the anchors."""

    table: pd.DataFrame
    anchors: tuple[str, str]


def eqbench_scale(found: pd.DataFrame, anchors: tuple[str, str], *, seed: int = 0,
                  resamples: int = RESAMPLES, level: float = 0.95) -> EqScale | None:
    """EQ-Bench's rating of every model of `found` (`matchups`), normalised on
    `anchors` (the registry ids of ANCHORS' models); None without both anchors."""
    models = sorted(set(found["first"]) | set(found["second"]))
    if not set(anchors) <= set(models) or len(found) == 0:
        return None
    code = {m: k for k, m in enumerate(models)}
    first = found["first"].map(code).to_numpy(np.int64)
    second = found["second"].map(code).to_numpy(np.int64)
    share = found["share"].to_numpy(float)
    matchup = np.arange(len(found))
    # The point estimate: SHUFFLES orders of the matchups (Python's shuffle, seeded by
    # the order's number, as EQ-Bench averages them).
    orders = []
    for number in range(SHUFFLES):
        order = list(matchup)
        random.Random(number).shuffle(order)
        orders.append(np.array(order))
    rng = np.random.default_rng(seed)
    drawn = [rng.permutation(rng.integers(0, len(found), len(found)))
             for _ in range(resamples)]
    # All chains in one pass: the cost is the number of games, not of chains.  It takes
    # seconds, so a build keeps it on disk (ffsite._stored) for the next one.
    fitted = remembered("eqbench-trueskill", (sys.modules[__name__],),
                        (first, second, share, orders, drawn, len(models)),
                        lambda: trueskill(chain_games(first, second, share, orders + drawn),
                                          len(models)))
    raw = fitted[:SHUFFLES].mean(axis=0)
    targets = [target for _, target in ANCHORS]
    where = [code[a] for a in anchors]
    rating = normalise(raw[None, :], where, targets)[0]
    refits = normalise(fitted[SHUFFLES:], where, targets)
    low, high = np.quantile(refits, [(1 - level) / 2, (1 + level) / 2], axis=0)
    ranks = rank_ranges(rating, refits, level=level)
    counts = pd.concat([found["first"], found["second"]]).value_counts()
    table = pd.DataFrame({"model": models, "rating": rating, "ci_low": low, "ci_high": high,
                          "rank": ranks.rank, "rank_low": ranks.low, "rank_high": ranks.high,
                          "raw": raw, "matchups": counts.reindex(models).to_numpy(np.int64)})
    table = table.sort_values(["rating", "model"], ascending=[False, True], kind="stable")
    return EqScale(table.reset_index(drop=True), anchors)
