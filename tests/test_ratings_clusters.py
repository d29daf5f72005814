"""Cluster bootstrap of the Bradley–Terry ratings (ffsite.metrics.ratings, `clusters`).

Votes derived from scores (ffsite.metrics.derived) pair every response of a prompt with
every other model's: one response takes part in all the comparisons of its model on that
prompt, so the comparisons are not independent.  Their ratings' bootstrap resamples
prompts, each bringing all its comparisons; judged votes keep resampling comparisons.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from helpers import trait, write_test_votes
from scipy.optimize import minimize

from ffsite import _stored
from ffsite.format import read_scores, write_scores
from ffsite.format.read import read_annotations
from ffsite.metrics import resampling
from ffsite.metrics.derived import derive_votes
from ffsite.metrics.ratings import (
    FIRST_WINS,
    SECOND_WINS,
    TIE,
    cluster_codes,
    fit_bradley_terry,
    rate_trait,
    ratings_table,
    trait_refits,
)
from ffsite.metrics.resampling import resample_cluster_counts, resample_counts
from ffsite.metrics.results import score_results

ELO = 400 / math.log(10)  # Elo points per logit


# ------------------------------------------------------------- the resampled counts

def test_one_comparison_per_cluster_draws_the_very_same_counts(monkeypatch):
    category = np.random.default_rng(0).integers(0, 7, 300)
    # A small memory budget: several chunks, which both must cut alike.
    monkeypatch.setattr(resampling, "DRAWS_AT_ONCE", 1000)
    single = resample_counts(category, 9, 40, np.random.default_rng(3))
    clustered = resample_cluster_counts(category, np.arange(300), 9, 40,
                                        np.random.default_rng(3))
    assert clustered.dtype == single.dtype and (clustered == single).all()


def test_a_resample_brings_whole_clusters():
    # Three clusters: {0, 0, 1}, {2}, {1, 1, 1, 2}.  Every resample is 3 clusters, so its
    # counts are a sum of three of the clusters' count vectors.
    category = np.array([0, 0, 1, 2, 1, 1, 1, 2])
    cluster = np.array([0, 0, 0, 1, 2, 2, 2, 2])
    counts = resample_cluster_counts(category, cluster, 4, 2000, np.random.default_rng(1))
    own = np.array([[2, 1, 0, 0], [0, 0, 1, 0], [0, 3, 1, 0]])
    weights = np.linalg.lstsq(own.T.astype(float), counts.T.astype(float), rcond=None)[0].T
    assert np.allclose(weights, np.rint(weights)) and (np.rint(weights).sum(axis=1) == 3).all()
    assert (np.rint(weights) >= 0).all()
    # Each cluster is drawn Binomial(3, 1/3) times: mean 1, variance 2/3.
    assert weights.mean(axis=0) == pytest.approx([1, 1, 1], abs=0.06)
    assert weights.var(axis=0) == pytest.approx([2 / 3] * 3, rel=0.1)
    assert (counts[:, 3] == 0).all()


def test_missing_cluster_values_stand_alone():
    codes = cluster_codes(pd.Series(["p1", None, "p2", "p1", np.nan], dtype=object))
    assert codes.tolist() == [0, 2, 1, 0, 3]


# ------------------------------------------------- the same as before, cluster by cluster

def crafted_votes(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(model_a, model_b, outcome) of 5 models, 20 comparisons per pair."""
    rng = np.random.default_rng(seed)
    first, second = np.triu_indices(5, 1)
    model_a, model_b = np.repeat(first, 20), np.repeat(second, 20)
    logit = np.array([0.0, 0.6, -0.4, 1.1, 0.2])
    p = 1 / (1 + np.exp(-(logit[model_a] - logit[model_b])))
    draw = rng.random(len(p))
    outcome = np.where(draw < p - 0.05, FIRST_WINS, np.where(draw < p + 0.05, TIE,
                                                              SECOND_WINS))
    return model_a, model_b, outcome


def test_one_comparison_per_cluster_is_todays_bootstrap_exactly():
    model_a, model_b, outcome = crafted_votes(2)
    labels = np.array([f"c{n}" for n in range(len(outcome))], dtype=object)
    today = rate_trait(model_a, model_b, outcome, 5, anchor=2, n_bootstrap=300, seed=4)
    clustered = rate_trait(model_a, model_b, outcome, 5, anchor=2, n_bootstrap=300, seed=4,
                           clusters=labels)
    for name in ("elo", "ci_low", "ci_high", "rank", "rank_low", "rank_high", "refits"):
        np.testing.assert_array_equal(getattr(clustered, name), getattr(today, name))


RATED = [trait("is more verbose"), trait("is more concise")]


def rated_file(tmp_path, prompts: int = 12):
    """Comparisons of ref, m1, m2 on `prompts` prompts (every pair on every prompt), two
    traits, with a prompt_id column."""
    rng = np.random.default_rng(8)
    comparisons, votes = [], []
    for prompt in range(prompts):
        for a, b in (("ref", "m1"), ("ref", "m2"), ("m1", "m2")):
            cid = f"p{prompt}/{a}/{b}"
            comparisons.append({"comparison_id": cid, "prompt_id": f"p{prompt}",
                                "model_a": a, "model_b": b})
            for number, rated in enumerate(RATED):
                shift = 0.2 * number  # the second trait leans the other way
                vote = rng.choice(["A", "B", "tie"], p=[0.55 - shift, 0.35 + shift, 0.1])
                votes.append({"comparison_id": cid, **rated, "judge": "j", "vote": vote})
    return write_test_votes(tmp_path / "v.parquet", comparisons, votes)


def test_a_table_clustered_by_comparison_is_todays_table(tmp_path):
    annotations = read_annotations([rated_file(tmp_path)])
    today = ratings_table(annotations, anchor="ref", n_bootstrap=100)
    by_comparison = ratings_table(annotations, anchor="ref", n_bootstrap=100,
                                  clusters="comparison_id")
    pd.testing.assert_frame_equal(by_comparison, today)
    by_prompt = ratings_table(annotations, anchor="ref", n_bootstrap=100, clusters="prompt_id")
    np.testing.assert_array_equal(by_prompt["elo"], today["elo"])  # the estimate stays
    assert not np.array_equal(by_prompt["ci_low"], today["ci_low"])


def test_the_kept_results_never_mix_the_two_bootstraps(tmp_path):
    annotations = read_annotations([rated_file(tmp_path)])
    verbose = RATED[0]["trait_id"]
    fresh = ratings_table(annotations, anchor="ref", n_bootstrap=60, clusters="prompt_id")
    fresh_refits = trait_refits(annotations, verbose, anchor="ref", n_bootstrap=60,
                                clusters="prompt_id")
    with _stored.kept_in(tmp_path / "cache"):
        plain = ratings_table(annotations, anchor="ref", n_bootstrap=60)
        kept = ratings_table(annotations, anchor="ref", n_bootstrap=60, clusters="prompt_id")
        trait_refits(annotations, verbose, anchor="ref", n_bootstrap=60)
        kept_refits = trait_refits(annotations, verbose, anchor="ref", n_bootstrap=60,
                                   clusters="prompt_id")
    assert len(list((tmp_path / "cache" / "ratings").glob("*.npz"))) == 2
    assert len(list((tmp_path / "cache" / "trait-refits").glob("*.npz"))) == 2
    pd.testing.assert_frame_equal(kept, fresh)
    assert not plain["ci_low"].equals(kept["ci_low"])
    np.testing.assert_array_equal(kept_refits[1].refits, fresh_refits[1].refits)
    # trait_refits rates a trait as ratings_table does: the same seed, the same bounds.
    row = fresh[(fresh["trait_id"] == verbose) & (fresh["model"] == "m1")].iloc[0]
    m1 = fresh_refits[0].index("m1")
    assert (fresh_refits[1].ci_low[m1], fresh_refits[1].ci_high[m1]) == (row["ci_low"],
                                                                         row["ci_high"])


# ------------------------------------------- an independent cluster bootstrap, by hand

N_MODELS, N_PROMPTS = 4, 30


def correlated_scores() -> np.ndarray:
    """score[model, prompt] on a 1-10 scale: a known model effect, brought out more by
    some prompts than others (a per-prompt strength shared by all comparisons of the
    prompt), plus each response's own noise (shared by all comparisons of the
    response)."""
    rng = np.random.default_rng(5)
    effect = np.linspace(-1, 1, N_MODELS)
    strength = rng.gamma(1.0, 1.0, N_PROMPTS)
    noise = rng.normal(0, 1, (N_MODELS, N_PROMPTS))
    return np.clip(np.rint(5.5 + strength[None] * effect[:, None] + noise), 1, 10)


def penalised_fit(wins: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Bradley–Terry + Firth, model 0 fixed at 0: the maximum of log L + 1/2 log det I,
    written out from the definition (logits of models 1..m-1)."""
    m = len(wins)
    first, second = np.triu_indices(m, 1)
    w, n = wins[first, second], wins[first, second] + wins[second, first]

    def minus(free: np.ndarray) -> float:
        theta = np.r_[0.0, free]
        gap = theta[first] - theta[second]
        log_p, log_q = -np.logaddexp(0, -gap), -np.logaddexp(0, gap)
        weight = n * np.exp(log_p + log_q)
        information = np.zeros((m, m))
        np.add.at(information, (first, first), weight)
        np.add.at(information, (second, second), weight)
        np.add.at(information, (first, second), -weight)
        np.add.at(information, (second, first), -weight)
        penalty = 0.5 * np.linalg.slogdet(information[1:, 1:])[1]
        return -(np.sum(w * log_p + (n - w) * log_q) + penalty)

    return minimize(minus, start, method="BFGS", options={"gtol": 1e-8}).x


def test_cluster_intervals_match_a_bootstrap_by_hand_and_are_wider():
    score = correlated_scores()
    # Per prompt, wins[p, i, j]: 1 when i's response scored higher, 1/2 on a tie.
    higher = score.T[:, :, None] > score.T[:, None, :]
    per_prompt = higher + 0.5 * (score.T[:, :, None] == score.T[:, None, :])
    per_prompt[:, np.arange(N_MODELS), np.arange(N_MODELS)] = 0.0

    first, second = np.triu_indices(N_MODELS, 1)
    model_a, model_b = np.repeat(first, N_PROMPTS), np.repeat(second, N_PROMPTS)
    prompt = np.tile(np.arange(N_PROMPTS), len(first))
    gap = score[model_a, prompt] - score[model_b, prompt]
    outcome = np.select([gap > 0, gap < 0], [FIRST_WINS, SECOND_WINS], TIE)
    clustered = rate_trait(model_a, model_b, outcome, N_MODELS, anchor=0, n_bootstrap=2000,
                           seed=1, clusters=prompt)
    single = rate_trait(model_a, model_b, outcome, N_MODELS, anchor=0, n_bootstrap=2000,
                        seed=1)

    # The full-data fit by hand is the library's.
    full = penalised_fit(per_prompt.sum(axis=0), np.zeros(N_MODELS - 1))
    np.testing.assert_allclose(clustered.elo, 1000 + ELO * np.r_[0.0, full], atol=1e-3)

    # The cluster bootstrap by hand: draw 30 prompts with replacement, add their wins up,
    # refit; a plain loop with a generator of its own.
    rng = np.random.default_rng(2024)
    by_hand = np.array([penalised_fit(per_prompt[rng.integers(0, N_PROMPTS, N_PROMPTS)]
                                      .sum(axis=0), full) for _ in range(400)])
    by_hand = 1000 + ELO * by_hand
    hand_low, hand_high = np.quantile(by_hand, [0.025, 0.975], axis=0)
    hand_sd = by_hand.std(axis=0)
    library_sd = clustered.refits[:, 1:].std(axis=0)
    # Monte Carlo error: a standard deviation from 400 and 2,000 refits differs by about
    # 4%, a 95% interval's width by about 5%, a bound by about 0.15 sd.
    np.testing.assert_allclose(library_sd, hand_sd, rtol=0.15)
    hand_width = hand_high - hand_low
    library_width = (clustered.ci_high - clustered.ci_low)[1:]
    np.testing.assert_allclose(library_width, hand_width, rtol=0.15)
    assert np.abs(clustered.ci_low[1:] - hand_low).max() < 0.6 * hand_sd.min()
    assert np.abs(clustered.ci_high[1:] - hand_high).max() < 0.6 * hand_sd.min()

    # On this correlated data, resampling comparisons one by one gives intervals about
    # 1.4 times too narrow (the estimate is the same).
    np.testing.assert_array_equal(single.elo, clustered.elo)
    single_width = (single.ci_high - single.ci_low)[1:]
    assert (library_width > 1.2 * single_width).all()
    assert (hand_width > 1.2 * single_width).all()


@pytest.mark.slow
def test_cluster_intervals_cover_the_population_ratings():
    """Coverage, simulated: 400 data sets of 30 prompts drawn like correlated_scores'
    (a new prompt strength and new response noise each time), against the ratings of
    the population (the plain Bradley–Terry fit to 200,000 such prompts, written out
    here with fit_bradley_terry on the summed wins; Firth's penalty is nothing there).
    The prompt bootstrap's 95% intervals cover them about 95% of the time; resampling
    comparisons one by one covers far less (0.83 when written)."""
    effect = np.linspace(-1, 1, N_MODELS)

    def scores(rng: np.random.Generator, prompts: int) -> np.ndarray:
        strength = rng.gamma(1.0, 1.0, prompts)
        noise = rng.normal(0, 1, (N_MODELS, prompts))
        return np.clip(np.rint(5.5 + strength[None] * effect[:, None] + noise), 1, 10)

    population = scores(np.random.default_rng(99), 200_000)
    wins = ((population[:, None] > population[None]).sum(2)
            + 0.5 * (population[:, None] == population[None]).sum(2))
    np.fill_diagonal(wins, 0)
    truth = fit_bradley_terry(wins, anchor=0, firth=False)[1:]
    first, second = np.triu_indices(N_MODELS, 1)
    model_a, model_b = np.repeat(first, N_PROMPTS), np.repeat(second, N_PROMPTS)
    prompt = np.tile(np.arange(N_PROMPTS), len(first))
    covered = {"prompts": [], "comparisons": []}
    for replicate in range(400):
        score = scores(np.random.default_rng(replicate), N_PROMPTS)
        gap = score[model_a, prompt] - score[model_b, prompt]
        outcome = np.select([gap > 0, gap < 0], [FIRST_WINS, SECOND_WINS], TIE)
        for kind, clusters in (("prompts", prompt), ("comparisons", None)):
            rated = rate_trait(model_a, model_b, outcome, N_MODELS, anchor=0,
                               n_bootstrap=400, seed=replicate, clusters=clusters)
            covered[kind].append((rated.ci_low[1:] <= truth) & (truth <= rated.ci_high[1:]))
    by_prompt, by_comparison = np.mean(covered["prompts"]), np.mean(covered["comparisons"])
    assert 0.91 <= by_prompt <= 0.98, by_prompt
    assert by_comparison < by_prompt - 0.07, (by_comparison, by_prompt)


def test_score_results_rates_derived_votes_by_prompt(tmp_path):
    """The ratings of score_results are ratings_table's on the derived votes, resampled
    by prompt; the means' bootstrap, by prompt too, agrees with them on the spread."""
    score = correlated_scores()
    frame = pd.DataFrame([
        {"dataset": "d", "response_id": f"m{m}/p{p}", "prompt_id": f"p{p:02d}",
         "model": f"m{m}", "condition": "baseline", "judge": "J", "trait_id": "warm",
         "trait": "Warmth", "trait_set": "s", "scale_min": 1, "scale_max": 10,
         "seed": None, "score": score[m, p]}
        for m in range(N_MODELS) for p in range(N_PROMPTS)])
    write_scores(frame, tmp_path / "d.parquet")
    scores = read_scores([tmp_path / "d.parquet"])
    found = score_results(scores, n_bootstrap=200, preferred_anchor="m0").ratings
    derived = derive_votes(scores, condition="baseline")
    expected = ratings_table(derived, anchor="m0", n_bootstrap=200, clusters="prompt_id")
    pd.testing.assert_frame_equal(found.drop(columns="dataset"), expected)
    plain = ratings_table(derived, anchor="m0", n_bootstrap=200)
    np.testing.assert_array_equal(found["elo"], plain["elo"])
    wider = (found["ci_high"] - found["ci_low"]) > (plain["ci_high"] - plain["ci_low"])
    assert wider[found["model"] != "m0"].all()


# ----------------------------------------------------------------- the default site

def test_warmth_ratings_are_no_surer_than_the_means(default_site):
    """Behavioral Profiling's warmth: the Elo table's rank ranges now resample prompts, as
    the means' do.  Resampling comparisons, Grok 4's Elo rank was 3, "sure" (3-3), while
    its mean ranked 1-4: no model may be sure of its Elo place where its mean's range
    spans several places."""
    folder = default_site / "data" / "traits" / "warmth"
    ratings = pd.read_csv(folder / "ratings.csv").set_index("model")
    means = pd.read_csv(folder / "means.csv")
    means = means[means["condition"].fillna("baseline") == "baseline"].set_index("model")
    shared = ratings.index.intersection(means.index)
    assert len(shared) == len(ratings) >= 40
    elo_span = (ratings["rank_high"] - ratings["rank_low"]).reindex(shared)
    mean_span = (means["rank_high"] - means["rank_low"]).reindex(shared)
    assert not (elo_span[mean_span >= 2] == 0).any()
    # The ranges are about as wide as the means' (before: a quarter of them).
    assert elo_span.median() >= 0.6 * mean_span.median()
    grok = ratings.loc["grok-4-0709"]
    assert grok["rank_low"] < grok["rank"] < grok["rank_high"]
    assert grok["rank_low"] <= 2 and grok["rank_high"] >= 4
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ",
                                      (default_site / "traits" / "warmth.html").read_text()))
    assert "come from refits on bootstrap resamples of the prompts, as the means" in text
    assert "narrower than the uncertainty" not in text
