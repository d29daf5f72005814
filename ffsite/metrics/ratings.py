# long: the fit, its bootstrap (by comparison or by cluster) and the table share their
# pair coding and cache key; apart, each would need the others' internals.
"""Per-trait Bradley–Terry ratings with Firth's penalty, on the Elo scale (methods.md §2).

A comparison between two different models with trait vote A means model_a showed the
trait more: it "wins" that trait.  B is a win for model_b, a tie half a win for each;
"neither", invalid and missing votes carry no information and are left out.

Model: P(i beats j) = 1 / (1 + exp(-(t_i - t_j))), with the anchor's t fixed at 0.
Elo = 1000 + 400 / ln(10) * t, so 400 points are 10:1 odds and the anchor is exactly
1000.  Firth's penalty adds 1/2 log det I(t) to the log-likelihood (I = Fisher
information of the free ratings), which keeps ratings finite when a model wins or loses
everything and removes the first-order bias of the maximum-likelihood fit.

The penalised score (docs/uncertainty.md derives it) is, for every free model r,

    U*_r = sum over pairs k = (i, j) of x_kr * (w_k - n_k p_k + h_k (1/2 - p_k))

with x_k = e_i - e_j, w_k = wins of i over j (ties as 1/2), n_k = comparisons of the
pair, p_k = P(i beats j) and the leverage h_k = n_k p_k (1 - p_k) x_k' I^-1 x_k.  We
solve U* = 0 by Fisher scoring, t <- t + I^-1 U* (with a diagonal correction, see
`newton_step`), many bootstrap resamples at once (numpy batches), each warm-started
from the full-data fit.

95% intervals: percentiles of 1,000 refits on bootstrap resamples of the trait's
informative comparisons, or, given each comparison's cluster (`clusters`: the prompt of
votes derived from scores, whose comparisons share their responses), of whole clusters,
each bringing all its comparisons.  Ranks: a model's place by Elo, with the 95% range of
its rank over the same refits (ffsite.metrics.ranking.rank_ranges): in each refit every
model is ranked, so the range does not depend on which model is the anchor.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.linalg
from scipy import sparse
from threadpoolctl import threadpool_limits

from ffsite._stored import remembered
from ffsite.errors import FfsiteError
from ffsite.format import schema
from ffsite.format.read import Annotations
from ffsite.metrics import ranking, resampling
from ffsite.metrics.ranking import rank_ranges
from ffsite.metrics.resampling import nan_quantiles, resample_cluster_counts, resample_counts
from ffsite.metrics.strength import trait_votes

ANCHOR_ELO = 1000.0
ELO_PER_LOGIT = 400 / np.log(10)
RATING_COLUMNS = ("trait_id", "description", "model", "elo", "ci_low", "ci_high", "rank",
                  "rank_low", "rank_high", "n")

# Outcome of a comparison for its pair (first, second): first won, second won, tie.
FIRST_WINS, SECOND_WINS, TIE = 0, 1, 2
# A fit has converged when its largest step (in logits; 1 logit = 174 Elo) is below
# this.  Convergence is close to quadratic, so the error left is far smaller than the
# last step.  The bootstrap refits stop early, at a 40% lower cost: on the default
# site's 45 distinct trait problems their interval bounds move by at most 0.07 Elo
# against refits converged to _TOLERANCE (the Monte Carlo error of 1,000 resamples is
# several Elo).  A tolerance of 1e-2 would save 10% more and move bounds by 0.6 Elo.
_TOLERANCE = 1e-10
_BOOTSTRAP_TOLERANCE = 1e-3
_MAX_ITERATIONS = 100
_MAX_STEP = 2.0  # logits; damps the first steps of a cold start under separation
_RESAMPLES_PER_BATCH = 250
_GUIDED_STEPS = 3


@dataclass(frozen=True)
class Pairs:
    """The model pairs that met at least once: `first[k]` vs `second[k]`, first < second."""

    first: np.ndarray
    second: np.ndarray
    n_models: int


@dataclass(frozen=True)
class TraitRatings:
    """Ratings of the models on one trait; NaN for models not linked to the anchor."""

    elo: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    rank: np.ndarray  # place by Elo (0: not rated)
    n: np.ndarray  # informative comparisons per model
    rank_low: np.ndarray | None = None  # the 95% range of the rank over the refits
    rank_high: np.ndarray | None = None
    refits: np.ndarray | None = None  # [resamples, models] the bootstrap refits' Elo


# ------------------------------------------------------------------------ the fit

def _fit(pairs: Pairs, wins: np.ndarray, totals: np.ndarray, start: np.ndarray,
         anchor: int, *, firth: bool = True, isolated: np.ndarray | None = None,
         tolerance: float = _TOLERANCE, guided: bool = False) -> np.ndarray:
    # long: one Fisher-scoring loop with its step control and Firth's term reads best whole
    """Fisher scoring for a batch of problems; returns t [batch, models], t[anchor] = 0.

    wins / totals: [batch, pairs] (wins of `first`, comparisons of the pair).  Models in
    `isolated` [batch, models] have no comparison in that problem and keep their start.
    """
    batch, m = start.shape
    # Work with the anchor moved to the last position: the free ratings are then the
    # leading block, and the inverse of the information can carry a zero last row.
    order = np.concatenate([np.flatnonzero(np.arange(m) != anchor), [anchor]])
    position = np.argsort(order)
    first, second = position[pairs.first], position[pairs.second]
    # x_k as columns, and |x_k|: sparse, two entries a column (dense, their products
    # were a fifth of a 67-model trait's refits).
    rows, ones = np.arange(len(first)), np.ones(len(first))
    design = sparse.csr_array((np.r_[ones, -ones], (np.r_[first, second], np.r_[rows, rows])),
                              shape=(m, len(first)))
    touches = abs(design)
    free_pair = np.flatnonzero((first < m - 1) & (second < m - 1))
    lower = first[free_pair] * m + second[free_pair]
    upper = second[free_pair] * m + first[free_pair]
    diagonal = np.arange(m) * (m + 1)
    on_first, on_second, across = first * m + first, second * m + second, first * m + second
    held = np.zeros((batch, m)) if isolated is None else isolated[:, order].astype(float)
    held[:, -1] = 1.0  # the anchor's row of the information becomes (0 ... 0 1)

    # The loop works on [pairs or models, batch] arrays: rows gather and scatter fast.
    theta = start[:, order].T.astype(float)
    theta[-1] = 0.0
    wins, totals, held = wins.T, totals.T, held.T

    def laplacian(pair_weight: np.ndarray, hold: np.ndarray) -> np.ndarray:
        """[batch, m, m]: sum of w_k x_k x_k' over pairs, anchor row and column -> (0..0 1).

        `hold` [m, batch] adds 1 to the diagonal of models without comparisons.
        """
        matrix = np.zeros((m * m, pair_weight.shape[1]))
        matrix[lower] = matrix[upper] = -pair_weight[free_pair]
        matrix[diagonal] = touches @ pair_weight + hold
        matrix[diagonal[-1]] = 1.0
        return matrix.T.reshape(-1, m, m)

    def newton_step(t: np.ndarray, n: np.ndarray, w: np.ndarray, hold: np.ndarray,
                    shared: np.ndarray | None = None) -> np.ndarray:
        """The step [m, batch] of every problem: about (I + H)^-1 U* (see below).

        With `shared` (one inverse information for all problems) the cheaper
        approximation uses it in place of each problem's own I^-1.
        """
        p = 0.5 * (1 + np.tanh(0.5 * (t[first] - t[second])))  # overflow-free logistic
        weight = n * p * (1 - p)
        if shared is None:
            # SciPy's inverse (LU, then inversion from it): 30% faster than numpy's,
            # which solves against the identity, on batches of 67 x 67.
            covariance = scipy.linalg.inv(laplacian(weight, hold), check_finite=False)
            covariance[:, -1, -1] = 0.0  # the anchor is fixed: no variance
        else:
            covariance = shared
        residual = w - n * p
        score_scale = 1.0
        if firth:
            flat = np.ascontiguousarray(covariance.reshape(len(covariance), m * m).T)
            leverage = weight * (flat[on_first] + flat[on_second] - 2 * flat[across])
            residual += leverage * (0.5 - p)
            # The derivative of U* (h held fixed) is I + H, H = sum h p q x x'.  Scoring
            # with I alone overshoots by about (n + h) / n, which with one comparison per
            # model is 2: the iteration would oscillate for ever.  Rescaling by the
            # diagonals, (I + H)^-1 ~ D^-1/2 I^-1 D^-1/2 with D = 1 + diag(H) / diag(I),
            # keeps it converging and costs nothing.
            information_diagonal = touches @ weight + hold
            extra = touches @ (leverage * p * (1 - p))
            score_scale = 1 / np.sqrt(1 + extra / information_diagonal)
        score = design @ residual * score_scale
        score[-1] = 0.0
        if shared is not None:
            return (shared[0] @ score) * score_scale
        return np.matmul(covariance, score.T[:, :, None])[:, :, 0].T * score_scale

    active = np.arange(batch)
    if guided and batch > 1:
        # Cheap first steps: all problems share one inverse information, taken at their
        # mean.  The exact steps below then start close and need fewer inversions; the
        # answer is the same as they alone decide convergence.
        mean_weight = totals.mean(axis=1, keepdims=True)
        p = 0.5 * (1 + np.tanh(0.5 * (theta[first, :1] - theta[second, :1])))
        shared = scipy.linalg.inv(laplacian(mean_weight * p * (1 - p), held.min(
            axis=1, keepdims=True)), check_finite=False)
        shared[:, -1, -1] = 0.0
        for _ in range(_GUIDED_STEPS):
            step = newton_step(theta, totals, wins, held, shared)
            step *= np.minimum(1.0, _MAX_STEP / np.maximum(np.abs(step).max(axis=0), 1e-300))
            theta += step
    for _ in range(_MAX_ITERATIONS):
        if not len(active) or m < 2:
            break
        some = active if len(active) < batch else slice(None)
        step = newton_step(theta[:, some], totals[:, some], wins[:, some], held[:, some])
        largest = np.abs(step).max(axis=0)
        step *= np.minimum(1.0, _MAX_STEP / np.maximum(largest, 1e-300))
        theta[:, some] += step
        active = active[largest >= tolerance]
    return theta[position].T


def _linked_to_anchor(pairs: Pairs, totals: np.ndarray, anchor: int) -> np.ndarray:
    """[batch, models] True where a chain of comparisons links the model to the anchor."""
    met = totals > 0
    reached = np.zeros((len(totals), pairs.n_models), dtype=bool)
    reached[:, anchor] = True
    to_first = np.zeros((len(pairs.first), pairs.n_models))
    to_first[np.arange(len(pairs.first)), pairs.first] = 1.0
    to_second = np.zeros_like(to_first)
    to_second[np.arange(len(pairs.second)), pairs.second] = 1.0
    while True:
        spread = ((reached[:, pairs.second] & met) @ to_first
                  + (reached[:, pairs.first] & met) @ to_second) > 0
        grown = reached | spread
        if (grown == reached).all():
            return reached
        reached = grown


def _drop_unlinked(pairs: Pairs, wins: np.ndarray, totals: np.ndarray, linked: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Zero the pairs between models that no comparison links to the anchor."""
    cut = ~(linked[:, pairs.first] & linked[:, pairs.second])
    return np.where(cut, 0.0, wins), np.where(cut, 0.0, totals)


def _to_elo(theta: np.ndarray, linked: np.ndarray) -> np.ndarray:
    return np.where(linked, ANCHOR_ELO + ELO_PER_LOGIT * theta, np.nan)


def fit_bradley_terry(wins: np.ndarray, *, anchor: int, firth: bool = True) -> np.ndarray:
    """Elo ratings from wins[i, j] = times i beat j (a tie adds 1/2 to both directions).

    The anchor gets exactly 1000.  Models with no chain of comparisons to the anchor
    cannot be placed on its scale and get NaN.  Without Firth's penalty a model that
    wins (or loses) everything has no finite rating; use firth=True for real data.
    """
    wins = np.asarray(wins, dtype=float)
    totals = wins + wins.T
    first, second = np.nonzero(np.triu(totals, k=1) > 0)
    pairs = Pairs(first, second, len(wins))
    pair_totals = totals[first, second][None]
    linked = _linked_to_anchor(pairs, pair_totals, anchor)
    pair_wins, pair_totals = _drop_unlinked(pairs, wins[first, second][None], pair_totals,
                                            linked)
    try:
        theta = _fit(pairs, pair_wins, pair_totals, np.zeros((1, len(wins))), anchor,
                     firth=firth, isolated=~linked)
    except np.linalg.LinAlgError:  # only without Firth: p reached 0 or 1 exactly
        raise ValueError("no finite maximum-likelihood ratings (a model wins or loses all "
                         "its comparisons: complete separation); use firth=True") from None
    return _to_elo(theta, linked)[0]


# ---------------------------------------------------------------------- bootstrap

def rate_trait(model_a: np.ndarray, model_b: np.ndarray, outcome: np.ndarray,
               n_models: int, *, anchor: int, n_bootstrap: int = 1000,
               seed: int | Sequence[int] = 0, level: float = 0.95,
               firth: bool = True, clusters: np.ndarray | None = None) -> TraitRatings:
    """Ratings with bootstrap intervals from one trait's informative comparisons.

    model_a / model_b: model codes 0..n_models-1 (different on every row); outcome:
    FIRST_WINS (model_a showed the trait more), SECOND_WINS or TIE.  Models without a
    chain of comparisons to the anchor get NaN.  `clusters`: each comparison's cluster
    (any values; equal values, one cluster): the bootstrap then resamples whole clusters
    instead of single comparisons.  None: every comparison on its own (judged votes).
    The estimate is the same either way; only the intervals and rank ranges differ.
    """
    if n_bootstrap < 1:
        raise ValueError("n_bootstrap must be at least 1")
    model_a, model_b = np.asarray(model_a), np.asarray(model_b)
    cluster = None
    if clusters is not None:
        if len(clusters) != len(model_a):
            raise ValueError("clusters must give one cluster per comparison")
        cluster = cluster_codes(clusters)
    n = np.bincount(np.concatenate([model_a, model_b]), minlength=n_models)
    elo, low, high = (np.full(n_models, np.nan) for _ in range(3))
    resampled = np.full((n_bootstrap, n_models), np.nan)
    # Fit only the models that appear: the cost grows with the cube of their number.
    present, local = np.unique(np.concatenate([model_a, model_b]), return_inverse=True)
    if anchor in present:
        fitted = _rate_present(local[:len(model_a)], local[len(model_a):],
                               np.asarray(outcome), len(present),
                               anchor=int(np.searchsorted(present, anchor)),
                               n_bootstrap=n_bootstrap, seed=seed, level=level, firth=firth,
                               cluster=cluster)
        elo[present], low[present], high[present], resampled[:, present] = fitted
    ranges = rank_ranges(elo, resampled, level=level)
    return TraitRatings(elo=elo, ci_low=low, ci_high=high, rank=ranges.rank, n=n,
                        rank_low=ranges.low, rank_high=ranges.high, refits=resampled)


def cluster_codes(values: Sequence | np.ndarray | pd.Series) -> np.ndarray:
    """Codes 0..C-1 of the clusters, in order of first appearance; a missing value (None,
    NaN) is a cluster of its own: nothing says which comparisons it shares a prompt with,
    and treating it alone is what the bootstrap did before clusters."""
    codes = pd.factorize(pd.Series(values, dtype=object))[0].astype(np.int64)
    missing = codes < 0
    codes[missing] = codes.max(initial=-1) + 1 + np.arange(missing.sum())
    return codes


def _rate_present(model_a: np.ndarray, model_b: np.ndarray, outcome: np.ndarray,
                  n_models: int, *, anchor: int, n_bootstrap: int, seed: int | Sequence[int],
                  level: float, firth: bool, cluster: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(elo, ci_low, ci_high, the refits [resamples, models]) for models that all appear
    in at least one comparison; `cluster`: codes 0..C-1 per comparison, to resample
    whole clusters (None: single comparisons)."""
    swap = model_a > model_b
    first, second = np.where(swap, model_b, model_a), np.where(swap, model_a, model_b)
    outcome = np.where(swap & (outcome != TIE), 1 - outcome, outcome)
    pair_keys, pair_of_comparison = np.unique(first * n_models + second, return_inverse=True)
    pairs = Pairs(pair_keys // n_models, pair_keys % n_models, n_models)
    category = pair_of_comparison * 3 + outcome  # each comparison is one (pair, outcome)
    width = 3 * len(pairs.first)

    def fit(counts: np.ndarray, start: np.ndarray, tolerance: float,
            guided: bool = False) -> np.ndarray:
        """Elo per row of category counts; NaN for models cut off from the anchor."""
        counts = counts.reshape(len(counts), -1, 3)
        wins, totals = counts[..., 0] + 0.5 * counts[..., 2], counts.sum(axis=-1) * 1.0
        linked = _linked_to_anchor(pairs, totals, anchor)
        wins, totals = _drop_unlinked(pairs, wins, totals, linked)
        theta = _fit(pairs, wins, totals, start, anchor, firth=firth, isolated=~linked,
                     tolerance=tolerance, guided=guided)
        return _to_elo(theta, linked)

    elo = fit(np.bincount(category, minlength=width)[None], np.zeros((1, n_models)),
              _TOLERANCE)
    start = np.nan_to_num((elo - ANCHOR_ELO) / ELO_PER_LOGIT)  # warm start for the refits
    rng = np.random.default_rng(seed)
    resampled = np.empty((n_bootstrap, n_models))
    for begin in range(0, n_bootstrap, _RESAMPLES_PER_BATCH):
        size = min(_RESAMPLES_PER_BATCH, n_bootstrap - begin)
        counts = (resample_counts(category, width, size, rng) if cluster is None
                  else resample_cluster_counts(category, cluster, width, size, rng))
        resampled[begin:begin + size] = fit(counts, np.repeat(start, size, axis=0),
                                            _BOOTSTRAP_TOLERANCE, guided=True)
    resampled[:, np.isnan(elo[0])] = np.nan
    low, high = np.full(n_models, np.nan), np.full(n_models, np.nan)
    rated = ~np.isnan(resampled).all(axis=0)
    low[rated], high[rated] = nan_quantiles(
        resampled[:, rated], [(1 - level) / 2, (1 + level) / 2], axis=0)
    low[anchor] = high[anchor] = ANCHOR_ELO
    return elo[0], low, high, resampled


# -------------------------------------------------------------------------- table

def _trait_jobs(annotations: Annotations, anchor: str, traits: Sequence[str] | None
                ) -> tuple[np.ndarray, np.ndarray, list[tuple]]:
    """Model codes of every comparison's sides and, per trait to rate, (trait_id,
    description, which comparisons inform it, their outcomes)."""
    models = annotations.models
    if anchor not in models:
        known = ", ".join(models[:12]) + (" ..." if len(models) > 12 else "")
        raise FfsiteError(f"anchor model '{anchor}' is not in the annotations; pick one "
                          f"with --anchor (known models: {known or 'none'})")
    votes = trait_votes(annotations)
    comparisons = annotations.comparisons
    code_a = pd.Categorical(comparisons["model_a"], categories=models).codes
    code_b = pd.Categorical(comparisons["model_b"], categories=models).codes
    between_models = (code_a >= 0) & (code_b >= 0) & (code_a != code_b)
    to_outcome = np.full(schema.MISSING + 1, -1)
    to_outcome[[schema.A, schema.B, schema.TIE]] = [FIRST_WINS, SECOND_WINS, TIE]
    wanted = set(traits) if traits is not None else None
    jobs = []
    for column, row in votes.traits.iterrows():
        outcome = to_outcome[votes.matrix[:, column]]
        keep = between_models & (outcome >= 0)
        if keep.any() and (wanted is None or row["trait_id"] in wanted):
            jobs.append((row["trait_id"], row["trait"], keep, outcome))
    return code_a, code_b, jobs


def trait_refits(annotations: Annotations, trait_id: str, *, anchor: str,
                 n_bootstrap: int = 1000, seed: int = 0, level: float = 0.95,
                 clusters: str | None = None) -> tuple[list[str], TraitRatings] | None:
    """One trait's ratings as `ratings_table` rates it (the same seed and `clusters`, the
    same numbers), with the bootstrap refits (`TraitRatings.refits`): (the models, in
    code order; the ratings); None when the trait has no informative comparison."""
    code_a, code_b, jobs = _trait_jobs(annotations, anchor, [trait_id])
    if not jobs:
        return None
    _, _, keep, outcome = jobs[0]
    models, a, b, won = annotations.models, code_a[keep], code_b[keep], outcome[keep]
    cluster = _comparison_clusters(annotations, clusters)
    drawn = None if cluster is None else cluster[keep]
    # Kept on disk by a build, as ratings_table's tables are; the clusters are part of
    # the key, so intervals of one kind of resampling never stand in for the other's.
    return models, remembered(
        "trait-refits", _CODE, (a, b, won, len(models), anchor, models, n_bootstrap, seed,
                                trait_id, level, clusters, drawn),
        lambda: rate_trait(a, b, won, len(models), anchor=models.index(anchor),
                           n_bootstrap=n_bootstrap, seed=_trait_seed(seed, trait_id),
                           level=level, clusters=drawn))


def _comparison_clusters(annotations: Annotations, column: str | None) -> np.ndarray | None:
    """Each comparison's cluster code from `column` of the comparisons (None: none)."""
    if column is None:
        return None
    if column not in annotations.comparisons.columns:
        raise FfsiteError(f"no comparison column '{column}' to resample by")
    return cluster_codes(annotations.comparisons[column])


_CODE = (sys.modules[__name__], ranking, resampling)  # what the fits' results depend on


def _trait_seed(seed: int, trait_id: str) -> list[int]:
    """A per-trait seed, so a trait's intervals do not depend on which others are rated."""
    return [seed, int(hashlib.md5(str(trait_id).encode("utf-8")).hexdigest()[:8], 16)]


def ratings_table(annotations: Annotations, *, anchor: str, n_bootstrap: int = 1000,
                  seed: int = 0, traits: Sequence[str] | None = None,
                  level: float = 0.95,
                  refits: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
                  clusters: str | None = None) -> pd.DataFrame:
    """One row per (trait, rated model): RATING_COLUMNS, sorted by trait then Elo.

    Only models linked to the anchor by comparisons on a trait are rated on it; a trait
    on which the anchor has no informative comparison has no rows.  `refits`, when
    given, receives each trait's (rated models, their bootstrap Elo [resamples,
    models]): a difference between two models then has its paired interval.
    `clusters`: a column of `annotations.comparisons` (such as "prompt_id") whose equal
    values make a cluster the bootstrap resamples whole, for comparisons that are not
    independent (votes derived from scores: every comparison of a prompt shares its
    responses); a missing value is a cluster of its own.  None (judged votes, methods.md
    §2): the bootstrap resamples single comparisons.
    """
    models = annotations.models
    code_a, code_b, jobs = _trait_jobs(annotations, anchor, traits)
    cluster = _comparison_clusters(annotations, clusters)
    # The same comparisons and settings always give the same table: a build keeps it on
    # disk (ffsite._stored), as its refits take seconds.  The clusters are in the key:
    # a table resampled by prompt never stands in for one resampled by comparison.
    inputs = (models, anchor, n_bootstrap, seed, level, refits is not None, clusters,
              [(t, d, code_a[keep], code_b[keep], o[keep],
                None if cluster is None else cluster[keep]) for t, d, keep, o in jobs])
    table, found = remembered("ratings", _CODE, inputs,
                              lambda: _rated_table(models, anchor, code_a, code_b, jobs,
                                                   n_bootstrap, seed, level, refits, cluster))
    if refits is not None:
        refits.update(found)
    return table


def _rated_table(models: list[str], anchor: str, code_a: np.ndarray, code_b: np.ndarray,
                 jobs: list[tuple], n_bootstrap: int, seed: int, level: float,
                 refits: dict | None, cluster: np.ndarray | None = None
                 ) -> tuple[pd.DataFrame, dict]:
    """`ratings_table`'s table and, when `refits` is not None, its refits."""
    found: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def rate(job: tuple) -> pd.DataFrame:
        trait_id, description, keep, outcome = job
        rated = rate_trait(code_a[keep], code_b[keep], outcome[keep], len(models),
                           anchor=models.index(anchor), n_bootstrap=n_bootstrap,
                           seed=_trait_seed(seed, trait_id), level=level,
                           clusters=None if cluster is None else cluster[keep])
        shown = ~np.isnan(rated.elo)
        if refits is not None:
            found[trait_id] = (np.array(models, dtype=object)[shown],
                               rated.refits[:, shown].astype(np.float32))
        return pd.DataFrame({
            "trait_id": trait_id, "description": description,
            "model": np.array(models, dtype=object)[shown], "elo": rated.elo[shown],
            "ci_low": rated.ci_low[shown], "ci_high": rated.ci_high[shown],
            "rank": rated.rank[shown], "rank_low": rated.rank_low[shown],
            "rank_high": rated.rank_high[shown], "n": rated.n[shown],
        })

    # Traits are independent and numpy releases the GIL in the heavy parts: one thread
    # per core.  BLAS gets one thread each: its own threads on 70x70 matrices spin and
    # cost more CPU than they save (2.4x more CPU time in benchmarks/bench_ratings.py).
    workers = max(1, min(len(jobs), os.cpu_count() or 1))
    with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(workers) as pool:
        frames = list(pool.map(rate, jobs))
    if not frames:
        return pd.DataFrame({name: [] for name in RATING_COLUMNS}), found
    table = pd.concat(frames, ignore_index=True)
    table = table.sort_values(["trait_id", "elo", "model"], ascending=[True, False, True],
                              kind="mergesort")
    return table.reset_index(drop=True)[list(RATING_COLUMNS)], found
