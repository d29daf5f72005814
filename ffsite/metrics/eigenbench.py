# long: the fit, trust matrix, EigenTrust and bootstrap of one method share their helpers
"""EigenBench (seed 002; methods.md section 3): models judge each other's answers against a
constitution, and one rating per model comes out that no single judge dictates.

The path, top to bottom:
1. `judgments_from_annotations`: trait votes whose judge is one of the compared models
   become judgments (judge i, evaluees j and k, outcome), after the both-orders rule.
2. `fit_btd`: the low-rank Bradley-Terry-Davidson model by maximum likelihood (L-BFGS-B
   with an analytic gradient), on a dense count tensor: identical judgments add up, so
   the cost does not grow with the number of votes.
3. `trust_matrix`, `eigentrust`, `elo_from_trust`: the trust matrix T, its left principal
   eigenvector t and Elo_j = 1500 + 400 log10(N t_j).
4. `eigenbench`: all of it, with d chosen by held-out log-likelihood when not given, seeded
   bootstrap intervals (resampling comparisons) and the diagnostics the method needs to be
   trusted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from threadpoolctl import threadpool_limits  # installed with scikit-learn

from ffsite.errors import FfsiteError
from ffsite.format import schema

# Outcomes, seen from the evaluee pair (j, k) as stored: j preferred, k preferred, tie.
FIRST, SECOND, TIE = 0, 1, 2
OUTCOMES = 3

ELO_BASE, ELO_SCALE = 1500.0, 400.0
POWER_TOLERANCE = 1e-10  # L1 change between power-iteration steps that ends the iteration
RIDGE = 1e-3  # a weak Gaussian prior on lenses and dispositions (why: see `fit_btd`)
LOG_LAMBDA_BOUNDS = (-8.0, 8.0)  # tie propensity between 3e-4 and 3e3
INIT_SCALE = 0.1  # lenses and dispositions start at N(0, 0.01 I), as in the paper
DIMENSION_CHOICES = (1, 2, 3, 4)
HELD_OUT_FOLDS = 5
MIN_MODELS = 3


@dataclass(frozen=True, eq=False)
class Judgments:
    """One row per judgment: `judge` judged evaluees `first` and `second` (indices into
    `models`) with `outcome` (FIRST, SECOND or TIE); `comparison` numbers the comparison
    (scenario and evaluee pair) it came from, the unit the bootstrap resamples."""

    models: tuple[str, ...]
    judge: np.ndarray
    first: np.ndarray
    second: np.ndarray
    outcome: np.ndarray
    comparison: np.ndarray
    notes: dict[str, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.outcome)

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def n_comparisons(self) -> int:
        return int(self.comparison.max()) + 1 if len(self.comparison) else 0


# ---------------------------------------------------------------- votes -> judgments

def constitutions(annotations, registry=None) -> pd.DataFrame:
    """Trait sets (constitutions) whose votes look like EigenBench data: at least
    MIN_MODELS models both judge and are judged. Columns: constitution, criteria, models,
    judgments, datasets (the datasets its votes are in, a sorted list)."""
    rows = []
    trait_rows = annotations.annotators[annotations.annotators["role"] == schema.ROLE_TRAIT]
    compared = set(annotations.models)
    for name in sorted(set(trait_rows["trait_set"].dropna())):
        judges = sorted(set(trait_rows.loc[trait_rows["trait_set"] == name, "judge"]
                            .astype(str)))
        if registry is not None:  # the judges as the registry names them, in any dataset
            datasets = annotations.datasets
            judges = registry.ids([d for d in datasets for _ in judges],
                                  judges * len(datasets))
        if len(set(judges) & compared) < MIN_MODELS:  # cheap: most sets are not EigenBench
            continue
        try:
            judgments = judgments_from_annotations(annotations, name, registry)
        except FfsiteError:
            continue
        criteria = trait_rows.loc[trait_rows["trait_set"] == name, "trait_id"].nunique()
        voted = np.isin(annotations.votes["annotator"].to_numpy(),
                        select_annotators(annotations, name))
        voted_on = np.unique(annotations.votes["comparison"].to_numpy()[voted])
        datasets = sorted(set(annotations.comparisons["dataset"].astype(str).to_numpy()[
            voted_on]))
        rows.append({"constitution": name, "criteria": int(criteria),
                     "models": judgments.n_models, "judgments": len(judgments),
                     "datasets": datasets})
    return pd.DataFrame(rows, columns=["constitution", "criteria", "models", "judgments",
                                       "datasets"])


def select_annotators(annotations, constitution: str | None) -> np.ndarray:
    """Positions of the trait annotators of `constitution` (a trait set, a trait id or a
    trait's wording); with None, those of the only trait set there is."""
    annotators = annotations.annotators
    is_trait = (annotators["role"] == schema.ROLE_TRAIT).to_numpy()
    sets = sorted(set(annotators.loc[is_trait, "trait_set"].dropna()))
    if not sets:
        raise FfsiteError("no judgments: the files hold no trait votes; EigenBench needs "
                          "votes whose judge is one of the compared models")
    if constitution is None:
        if len(sets) > 1:
            raise FfsiteError("the files hold several constitutions (" + ", ".join(sets)
                              + "); pick one with --constitution")
        constitution = sets[0]
    chosen = np.zeros(len(annotators), dtype=bool)
    for column in ("trait_set", "trait_id", "trait"):
        chosen |= (annotators[column] == constitution).to_numpy()
    chosen &= is_trait
    if not chosen.any():
        raise FfsiteError(f"unknown criterion '{constitution}': give a constitution (one of "
                          + ", ".join(sets) + "), a trait id or a trait's wording")
    return np.flatnonzero(chosen)


def judgments_from_annotations(annotations, constitution: str | None = None,
                               registry=None) -> Judgments:
    """The judgments of one constitution, after the both-orders rule.

    A vote counts when its judge is one of the models compared in these votes and also
    judges; the population is the models that both judge and are judged. A judge's votes
    on one comparison and criterion (its seeds: both orders, and any repeats) that pick
    both sides are all turned into ties (seed 002: an answer that flips with the order
    shows the order, not a preference). `neither`, `invalid` and `missing` are left out.
    """
    chosen = select_annotators(annotations, constitution)
    votes = annotations.votes
    annotator = votes["annotator"].to_numpy()
    code = votes["vote"].to_numpy()
    comparison = votes["comparison"].to_numpy()
    keep = np.isin(annotator, chosen) & np.isin(code, (schema.A, schema.B, schema.TIE))
    annotator, code, comparison = annotator[keep], code[keep], comparison[keep]

    judge_names = annotations.annotators["judge"].astype(str).to_numpy()[annotator]
    if registry is not None:
        datasets = annotations.comparisons["dataset"].astype(object).to_numpy()[comparison]
        judge_names = registry.ids(datasets, judge_names).astype(object)
    side_a = annotations.comparisons["model_a"].astype(object).to_numpy()[comparison]
    side_b = annotations.comparisons["model_b"].astype(object).to_numpy()[comparison]
    evaluees = set(pd.unique(np.concatenate([side_a, side_b]).astype(object))) - {None}
    evaluees = {m for m in evaluees if isinstance(m, str)}
    models = tuple(sorted(evaluees & set(judge_names)))
    if len(models) < MIN_MODELS:
        raise FfsiteError(f"fewer than {MIN_MODELS} models both judge and are judged "
                          f"({len(models)}: {', '.join(models) or 'none'}); EigenBench "
                          "needs every model as a judge and an evaluee")
    position = {name: n for n, name in enumerate(models)}
    judge = _positions(judge_names, position)
    first, second = _positions(side_a, position), _positions(side_b, position)
    usable = (judge >= 0) & (first >= 0) & (second >= 0) & (first != second)
    notes = {"votes": int(keep.sum()), "outside_population": int((~usable).sum())}
    judge, first, second = judge[usable], first[usable], second[usable]
    code, comparison, annotator = code[usable], comparison[usable], annotator[usable]
    if not len(code):
        raise FfsiteError("no judgments: no vote of a model on two other models of the "
                          "population")

    outcome = np.select([code == schema.A, code == schema.B], [FIRST, SECOND], TIE)
    outcome = both_orders_rule(comparison, annotator, outcome)
    notes["turned_into_ties"] = int(((code != schema.TIE) & (outcome == TIE)).sum())
    _, comparison = np.unique(comparison, return_inverse=True)
    return Judgments(models, judge.astype(np.int32), first.astype(np.int32),
                     second.astype(np.int32), outcome.astype(np.int8),
                     comparison.astype(np.int64), notes)


def _positions(names: np.ndarray, position: dict[str, int]) -> np.ndarray:
    return pd.Series(names, dtype=object).map(position).fillna(-1).to_numpy(np.int64)


def both_orders_rule(group_a: np.ndarray, group_b: np.ndarray,
                     outcome: np.ndarray) -> np.ndarray:
    """Outcomes with every group (same comparison and annotator) that picks both sides
    turned into ties."""
    key = np.asarray(group_a, np.int64) * (int(np.max(group_b, initial=0)) + 1) + group_b
    _, group = np.unique(key, return_inverse=True)
    picks_first = np.bincount(group, weights=outcome == FIRST) > 0
    picks_second = np.bincount(group, weights=outcome == SECOND) > 0
    contradictory = (picks_first & picks_second)[group]
    return np.where(contradictory, TIE, outcome)


# ---------------------------------------------------------------- the BTD model

def count_tensor(judgments: Judgments, weights: np.ndarray | None = None) -> np.ndarray:
    """counts[i, j, k, r]: (weighted) judgments of judge i on evaluees j < k with outcome r
    seen from j. A pair stored as (k, j) is turned round, its outcome with it."""
    n = judgments.n_models
    first, second, outcome = judgments.first, judgments.second, judgments.outcome
    swap = first > second
    low, high = np.where(swap, second, first), np.where(swap, first, second)
    turned = np.where(swap & (outcome != TIE), 1 - outcome, outcome)
    flat = ((judgments.judge.astype(np.int64) * n + low) * n + high) * OUTCOMES + turned
    counts = np.bincount(flat, weights=weights, minlength=n * n * n * OUTCOMES)
    return counts.reshape(n, n, n, OUTCOMES)


@dataclass(frozen=True)
class BtdFit:
    """Judge lenses u (N x d), dispositions v (N x d), tie propensities lambda (N)."""

    lenses: np.ndarray
    dispositions: np.ndarray
    log_lambdas: np.ndarray
    log_likelihood: float
    converged: bool

    @property
    def lambdas(self) -> np.ndarray:
        return np.exp(self.log_lambdas)

    def packed(self) -> np.ndarray:
        return np.concatenate([self.lenses.ravel(), self.dispositions.ravel(),
                               self.log_lambdas])


def _unpack(x: np.ndarray, n: int, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return x[:n * d].reshape(n, d), x[n * d:2 * n * d].reshape(n, d), x[2 * n * d:]


def log_likelihood(counts: np.ndarray, lenses: np.ndarray, dispositions: np.ndarray,
                   log_lambdas: np.ndarray) -> tuple[float, np.ndarray, np.ndarray,
                                                     np.ndarray]:
    """The log-likelihood of `counts` and its gradient in (u, v, log lambda).

    Judge i, evaluees j, k: logits a = u_i.v_j (j preferred), b = u_i.v_k (k preferred),
    c = log lambda_i + (a + b) / 2 (tie); each outcome's probability is its softmax."""
    theta = lenses @ dispositions.T  # theta[i, j] = u_i . v_j
    a = theta[:, :, None]
    b = theta[:, None, :]
    c = log_lambdas[:, None, None] + (a + b) / 2
    top = np.maximum(np.maximum(a, b), c)
    ea, eb, ec = np.exp(a - top), np.exp(b - top), np.exp(c - top)
    total = ea + eb + ec
    log_total = top + np.log(total)
    n_first, n_second, n_tie = counts[..., FIRST], counts[..., SECOND], counts[..., TIE]
    n_all = n_first + n_second + n_tie
    value = float((n_first * a + n_second * b + n_tie * c).sum() - (n_all * log_total).sum())
    # d value / d logit = observed count - expected count
    g_a = n_first - n_all * ea / total
    g_b = n_second - n_all * eb / total
    g_c = n_tie - n_all * ec / total
    d_theta = (g_a + g_c / 2).sum(axis=2) + (g_b + g_c / 2).sum(axis=1)
    return (value, d_theta @ dispositions, d_theta.T @ lenses,
            g_c.sum(axis=(1, 2)))


def fit_btd(counts: np.ndarray, dims: int, *, seed: int = 0,
            start: BtdFit | None = None) -> BtdFit:
    """Maximum likelihood (L-BFGS-B) of the low-rank BTD model on `counts`.

    A weak ridge (RIDGE) on u and v: the likelihood alone has flat directions (u and v
    can trade scale; a model never seen leaves its vector free) and, on tie-only data, no
    finite maximum; the ridge picks the smallest parameters among equals, so a tie-only
    data set gives u = v = 0 and equal ratings. log lambda is bounded (LOG_LAMBDA_BOUNDS).
    """
    n = counts.shape[0]
    if start is None:
        rng = np.random.default_rng(seed)
        x0 = np.concatenate([rng.normal(0.0, INIT_SCALE, 2 * n * dims), np.zeros(n)])
    else:
        x0 = start.packed()
    scale = max(float(counts.sum()), 1.0)  # the objective per judgment keeps L-BFGS tidy

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        lenses, dispositions, log_lambdas = _unpack(x, n, dims)
        value, g_u, g_v, g_l = log_likelihood(counts, lenses, dispositions, log_lambdas)
        penalty = RIDGE * (np.sum(lenses ** 2) + np.sum(dispositions ** 2))
        gradient = np.concatenate([(g_u - 2 * RIDGE * lenses).ravel(),
                                   (g_v - 2 * RIDGE * dispositions).ravel(), g_l])
        return -(value - penalty) / scale, -gradient / scale

    bounds = [(None, None)] * (2 * n * dims) + [LOG_LAMBDA_BOUNDS] * n
    result = minimize(objective, x0, jac=True, method="L-BFGS-B", bounds=bounds,
                      options={"maxiter": 2000, "ftol": 1e-12, "gtol": 1e-7})
    lenses, dispositions, log_lambdas = _unpack(result.x, n, dims)
    value = log_likelihood(counts, lenses, dispositions, log_lambdas)[0]
    return BtdFit(lenses.copy(), dispositions.copy(), log_lambdas.copy(), value,
                  bool(result.success))


# ---------------------------------------------------------------- trust and ratings

def trust_matrix(lenses: np.ndarray, dispositions: np.ndarray,
                 lambdas: np.ndarray) -> np.ndarray:
    """T_ij = (s_ij + lambda_i/2 sum_{k != j} sqrt(s_ij s_ik)) / (the same summed over j),
    s_ij = exp(u_i . v_j): how often judge i would prefer j, counting a tie as half."""
    theta = lenses @ dispositions.T
    theta = theta - theta.max(axis=1, keepdims=True)  # T's rows do not change; no overflow
    s = np.exp(theta)
    root = np.sqrt(s)
    tie_mass = root * (root.sum(axis=1, keepdims=True) - root)  # sum_{k != j} sqrt(s_ij s_ik)
    raw = s + lambdas[:, None] / 2 * tie_mass
    return raw / raw.sum(axis=1, keepdims=True)


def eigentrust(trust: np.ndarray, tolerance: float = POWER_TOLERANCE,
               max_steps: int = 1_000_000) -> np.ndarray:
    """The left principal eigenvector of the row-stochastic `trust`, summing to 1: power
    iteration t <- t T from uniform until the L1 change is below `tolerance`."""
    n = trust.shape[0]
    t = np.full(n, 1.0 / n)
    for _ in range(max_steps):
        following = t @ trust
        following /= following.sum()
        if np.abs(following - t).sum() < tolerance:
            return following
        t = following
    raise FfsiteError("EigenTrust did not converge; the trust matrix is not irreducible")


def elo_from_trust(t: np.ndarray) -> np.ndarray:
    """Elo_j = 1500 + 400 log10(N t_j); sum_j 10^((Elo_j - 1500) / 400) = N."""
    return ELO_BASE + ELO_SCALE * np.log10(len(t) * np.asarray(t))


def ratings_of(fit: BtdFit) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(T, t, Elo) of a fit."""
    trust = trust_matrix(fit.lenses, fit.dispositions, fit.lambdas)
    t = eigentrust(trust)
    return trust, t, elo_from_trust(t)


# ---------------------------------------------------------------- the whole method

@dataclass(frozen=True)
class EigenBenchResult:
    models: tuple[str, ...]
    dims: int
    fit: BtdFit
    trust: np.ndarray
    eigentrust: np.ndarray
    ratings: pd.DataFrame  # model, elo, ci_low, ci_high, trust
    held_out: pd.DataFrame  # dims, held_out_log_likelihood (per judgment), chosen
    judges: pd.DataFrame  # per judge: agreement, lens distance, lambda, self-preference
    n_judgments: int
    n_comparisons: int
    n_bootstrap: int
    notes: dict[str, int]

    def trust_frame(self) -> pd.DataFrame:
        """The trust matrix long: judge, model, trust (T[judge, model])."""
        n = len(self.models)
        names = np.array(self.models, dtype=object)
        return pd.DataFrame({"judge": np.repeat(names, n), "model": np.tile(names, n),
                             "trust": self.trust.ravel()})

    def vectors_frame(self) -> pd.DataFrame:
        """One row per model: its lens, disposition and tie propensity."""
        frame = pd.DataFrame({"model": list(self.models)})
        for axis in range(self.dims):
            frame[f"lens_{axis + 1}"] = self.fit.lenses[:, axis]
        for axis in range(self.dims):
            frame[f"disposition_{axis + 1}"] = self.fit.dispositions[:, axis]
        frame["tie_propensity"] = self.fit.lambdas
        return frame


def held_out_log_likelihood(judgments: Judgments, dims_choices: tuple[int, ...],
                            seed: int) -> pd.DataFrame:
    """Mean held-out log-likelihood per judgment for each d: comparisons split into
    HELD_OUT_FOLDS folds (seeded); fit on the others, score the fold."""
    rng = np.random.default_rng(seed)
    folds = rng.permutation(judgments.n_comparisons) % HELD_OUT_FOLDS
    fold_of = folds[judgments.comparison]
    tensors = [(count_tensor(judgments, (fold_of != f).astype(float)),
                count_tensor(judgments, (fold_of == f).astype(float)))
               for f in range(HELD_OUT_FOLDS)]
    rows = []
    for dims in dims_choices:
        total, scored = 0.0, 0.0
        for train, test in tensors:
            if not test.sum():
                continue
            fit = fit_btd(train, dims, seed=seed)
            total += log_likelihood(test, fit.lenses, fit.dispositions, fit.log_lambdas)[0]
            scored += test.sum()
        rows.append({"dims": dims, "held_out_log_likelihood": total / max(scored, 1.0)})
    frame = pd.DataFrame(rows)
    best = frame["held_out_log_likelihood"].idxmax()
    frame["chosen"] = frame.index == best
    return frame


def eigenbench(judgments: Judgments, *, dims: int | None = None, n_bootstrap: int = 200,
               seed: int = 0, level: float = 0.95) -> EigenBenchResult:
    """Fit, rate and bootstrap one constitution's judgments."""
    # One BLAS thread: the matrices are tiny, and L-BFGS-B's many small BLAS calls run
    # about twenty times slower when threads contend for the cores.
    with threadpool_limits(limits=1, user_api="blas"):
        return _eigenbench(judgments, dims, n_bootstrap, seed, level)


def _eigenbench(judgments: Judgments, dims: int | None, n_bootstrap: int, seed: int,
                level: float) -> EigenBenchResult:
    n = judgments.n_models
    if n < MIN_MODELS:
        raise FfsiteError(f"fewer than {MIN_MODELS} models ({n}); EigenBench needs at least "
                          f"{MIN_MODELS}")
    if not len(judgments):
        raise FfsiteError("no judgments to fit")
    if dims is None:
        choices = tuple(d for d in DIMENSION_CHOICES if d < n)
        held_out = held_out_log_likelihood(judgments, choices, seed)
        dims = int(held_out.loc[held_out["chosen"], "dims"].iloc[0])
    else:
        held_out = pd.DataFrame({"dims": [dims], "held_out_log_likelihood": [np.nan],
                                 "chosen": [True]})
    fit = fit_btd(count_tensor(judgments), dims, seed=seed)
    trust, t, elo = ratings_of(fit)

    low, high = np.full(n, np.nan), np.full(n, np.nan)
    if n_bootstrap:
        samples = bootstrap_elo(judgments, fit, n_bootstrap, seed)
        tail = (1 - level) / 2 * 100
        low, high = np.percentile(samples, [tail, 100 - tail], axis=0)
    ratings = pd.DataFrame({"model": list(judgments.models), "elo": elo, "ci_low": low,
                            "ci_high": high, "trust": t})
    ratings = ratings.sort_values(["elo", "model"], ascending=[False, True],
                                  kind="stable").reset_index(drop=True)
    return EigenBenchResult(judgments.models, dims, fit, trust, t, ratings, held_out,
                            judge_diagnostics(judgments, fit, trust, elo),
                            len(judgments), judgments.n_comparisons, n_bootstrap,
                            dict(judgments.notes))


def bootstrap_elo(judgments: Judgments, fit: BtdFit, n_bootstrap: int,
                  seed: int) -> np.ndarray:
    """Elo of `n_bootstrap` refits on comparisons resampled with replacement (a comparison
    brings all its judgments), each started from the full fit: it is close to every
    resample's optimum, so each refit takes a few steps only."""
    rng = np.random.default_rng(seed)
    n_comparisons = judgments.n_comparisons
    samples = np.empty((n_bootstrap, judgments.n_models))
    for b in range(n_bootstrap):
        drawn = np.bincount(rng.integers(0, n_comparisons, n_comparisons),
                            minlength=n_comparisons).astype(float)
        counts = count_tensor(judgments, drawn[judgments.comparison])
        refit = fit_btd(counts, fit.lenses.shape[1], start=fit)
        samples[b] = ratings_of(refit)[2]
    return samples


def judge_diagnostics(judgments: Judgments, fit: BtdFit, trust: np.ndarray,
                      elo: np.ndarray) -> pd.DataFrame:
    """Per judge: how often its decisive judgments side with the consensus (the model
    rated higher), how far its lens points from the mean lens (cosine distance; with
    d = 1 only 0 or 2), how far its trust row lies from the consensus t (L1 distance,
    0 to 2, as the paper compares judges), its tie propensity, and its self-preference:
    Elo of itself from its own trust row versus from the mean of the other judges'
    rows."""
    n = judgments.n_models
    decisive = judgments.outcome != TIE
    chosen = np.where(judgments.outcome == FIRST, judgments.first, judgments.second)
    other = np.where(judgments.outcome == FIRST, judgments.second, judgments.first)
    agrees = decisive & (elo[chosen] > elo[other])
    n_decisive = np.bincount(judgments.judge[decisive], minlength=n)
    n_agree = np.bincount(judgments.judge[agrees], minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        agreement = np.where(n_decisive > 0, n_agree / n_decisive, np.nan)
    mean_lens = fit.lenses.mean(axis=0)
    norms = np.linalg.norm(fit.lenses, axis=1) * np.linalg.norm(mean_lens)
    with np.errstate(invalid="ignore", divide="ignore"):
        cosine = np.where(norms > 0, fit.lenses @ mean_lens / norms, np.nan)
    self_trust = np.diag(trust)
    by_others = (trust.sum(axis=0) - self_trust) / (n - 1)
    return pd.DataFrame({
        "judge": list(judgments.models),
        "judgments": np.bincount(judgments.judge, minlength=n),
        "ties": np.bincount(judgments.judge[~decisive], minlength=n),
        "agreement": agreement,
        "lens_distance": 1 - cosine,
        "trust_distance": np.abs(trust - eigentrust(trust)[None, :]).sum(axis=1),
        "tie_propensity": fit.lambdas,
        "self_elo": elo_from_trust(self_trust),
        "others_elo": elo_from_trust(by_others),
        "self_preference": ELO_SCALE * np.log10(self_trust / by_others),
    })
