"""EigenBench, all of it: d chosen by held-out log-likelihood when not given, the fit from
several cold starts (the best kept), the trust matrix, EigenTrust and Elo, seeded
bootstrap intervals (resampling comparisons; every refit from the full fit and from cold
starts, the best kept), the judges' diagnostics and whether the ratings are identified."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from ffsite._stored import remembered
from ffsite.errors import FfsiteError
from ffsite.metrics.eigenbench import btd, newton
from ffsite.metrics.eigenbench import judgments as judgments_module
from ffsite.metrics.eigenbench import trust as trust_module
from ffsite.metrics.eigenbench.btd import TIE, BtdFit
from ffsite.metrics.eigenbench.judgments import (
    MIN_MODELS,
    Judgments,
    count_tensor,
    resampled_counts,
)
from ffsite.metrics.eigenbench.trust import (
    eigentrust,
    elo_from_trust,
    self_preference,
    trust_matrix,
)

DIMENSION_CHOICES = (1, 2, 3, 4)
HELD_OUT_FOLDS = 5
RESTARTS = 8  # cold starts of the full fit
HELD_OUT_STARTS = 2  # cold starts of each held-out fit
BOOTSTRAP_STARTS = 1  # cold starts of each bootstrap refit, besides the full fit's optimum
SAME_OPTIMUM = 1e-9  # objectives (per judgment) closer than this are one optimum
# When the ratings count as weakly identified (docs/eigenbench.md, "Identification"):
WIDE_INTERVAL = 400.0  # an interval wider than this (Elo): a tenfold range of trust
FLAT_SPREAD = 1.0  # equally good cold starts whose ratings differ by more (Elo)
REFIT_JUMP = 25.0  # a bootstrap refit's starts ending this far apart (Elo) disagree ...
REFIT_SHARE = 0.05  # ... and more than this share of refits disagreeing is a warning


@dataclass(frozen=True)
class Identification:
    """Whether the data pin the ratings down.  `weak` with the reasons, each a sentence."""

    restarts: int  # cold starts of the full fit
    restarts_at_best: int  # how many of them reached the best optimum
    restart_spread: float  # largest Elo difference between starts at the best optimum
    refits_disagreeing: float  # share of bootstrap refits whose starts disagree
    widest_interval: float  # Elo
    without_self_judgments: tuple[str, ...]  # judges never judging a pair with themselves
    reasons: tuple[str, ...] = ()

    @property
    def weak(self) -> bool:
        return bool(self.reasons)


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
    identification: Identification | None = None
    level: float = 0.95
    # The bootstrap refits' Elo [refits, models in `models` order]: its intervals are
    # their percentiles, and a rank's range is read from them (None without refits).
    refits: np.ndarray | None = None

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


@dataclass(frozen=True)
class Bootstrap:
    """Per refit (rows) and model (columns): Elo and self-preference; per refit whether
    its starts ended in optima whose ratings differ by more than REFIT_JUMP."""

    elo: np.ndarray
    self_preference: np.ndarray
    disagreeing: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))


def ratings_of(fit: BtdFit) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(T, t, Elo) of a fit."""
    trust = trust_matrix(fit.lenses, fit.dispositions, fit.lambdas)
    t = eigentrust(trust)
    return trust, t, elo_from_trust(t)


def _elo_of(x: np.ndarray, n: int, dims: int) -> tuple[np.ndarray, np.ndarray]:
    """(trust matrices, Elo) of packed parameters (B x P)."""
    nd = n * dims
    trust = trust_matrix(x[:, :nd].reshape(-1, n, dims), x[:, nd:2 * nd].reshape(-1, n, dims),
                         np.exp(x[:, 2 * nd:]))
    return trust, elo_from_trust(eigentrust(trust))


def held_out_log_likelihood(judgments: Judgments, dims_choices: tuple[int, ...],
                            seed: int) -> pd.DataFrame:
    """Mean held-out log-likelihood per judgment for each d: comparisons split into
    HELD_OUT_FOLDS folds (seeded); fit on the others (the best of HELD_OUT_STARTS cold
    starts), score the fold."""
    rng = np.random.default_rng(seed)
    folds = rng.permutation(judgments.n_comparisons) % HELD_OUT_FOLDS
    draws = (folds[None, :] != np.arange(HELD_OUT_FOLDS)[:, None]).astype(float)
    train = resampled_counts(judgments, draws)
    test = resampled_counts(judgments, 1.0 - draws)
    scored = test.sum()
    n, rows = judgments.n_models, np.repeat(np.arange(HELD_OUT_FOLDS), HELD_OUT_STARTS)
    out = []
    for dims in dims_choices:
        starts = btd.cold_starts(np.random.default_rng([seed, dims]), len(rows), n, dims)
        fits = newton.fit_many(train, dims, starts, rows)
        best = np.argmin(fits.objective.reshape(HELD_OUT_FOLDS, HELD_OUT_STARTS), axis=1)
        chosen = fits.x[np.arange(HELD_OUT_FOLDS) * HELD_OUT_STARTS + best]
        total = btd.log_likelihoods(test, dims, chosen).sum()
        out.append({"dims": dims, "held_out_log_likelihood": total / max(scored, 1.0)})
    frame = pd.DataFrame(out)
    frame["chosen"] = frame.index == frame["held_out_log_likelihood"].idxmax()
    return frame


def eigenbench(judgments: Judgments, *, dims: int | None = None, n_bootstrap: int = 200,
               seed: int = 0, level: float = 0.95, restarts: int = RESTARTS,
               bootstrap_starts: int = BOOTSTRAP_STARTS) -> EigenBenchResult:
    """Fit, rate and bootstrap one constitution's judgments.  The same judgments and
    settings always give the same result: a build keeps it on disk (ffsite._stored),
    as a site's 15 fits take seconds."""
    def compute() -> EigenBenchResult:
        # One BLAS thread: the matrices are tiny, and many small BLAS calls run far
        # slower when threads contend for the cores.
        with threadpool_limits(limits=1, user_api="blas"):
            return _eigenbench(judgments, dims, n_bootstrap, seed, level, restarts,
                               bootstrap_starts)
    inputs = (judgments.models, judgments.judge, judgments.first, judgments.second,
              judgments.outcome, judgments.comparison, dict(judgments.notes), dims,
              n_bootstrap, seed, level, restarts, bootstrap_starts)
    return remembered("eigenbench", _FIT_MODULES, inputs, compute)


# What a fit's result depends on besides its inputs: the code of the whole method.
_FIT_MODULES = (btd, newton, trust_module, judgments_module, sys.modules[__name__])


def _eigenbench(judgments: Judgments, dims: int | None, n_bootstrap: int, seed: int,
                level: float, restarts: int, bootstrap_starts: int) -> EigenBenchResult:
    n = judgments.n_models
    if n < MIN_MODELS:
        raise FfsiteError(f"fewer than {MIN_MODELS} models ({n}); EigenBench needs at least "
                          f"{MIN_MODELS}")
    if not len(judgments):
        raise FfsiteError("no judgments to fit")
    if dims is None:
        held_out = held_out_log_likelihood(
            judgments, tuple(d for d in DIMENSION_CHOICES if d < n), seed)
        dims = int(held_out.loc[held_out["chosen"], "dims"].iloc[0])
    else:
        held_out = pd.DataFrame({"dims": [dims], "held_out_log_likelihood": [np.nan],
                                 "chosen": [True]})
    fit, starts = newton.fit_restarts(count_tensor(judgments), dims, seed=seed,
                                   restarts=restarts)
    trust, t, elo = ratings_of(fit)
    low, high = np.full(n, np.nan), np.full(n, np.nan)
    samples = None
    if n_bootstrap:
        samples = bootstrap(judgments, fit, n_bootstrap, seed, bootstrap_starts)
        tail = (1 - level) / 2 * 100
        low, high = np.percentile(samples.elo, [tail, 100 - tail], axis=0)
    ratings = pd.DataFrame({"model": list(judgments.models), "elo": elo, "ci_low": low,
                            "ci_high": high, "trust": t})
    judges = judge_diagnostics(judgments, fit, trust, elo, samples, level)
    identification = identify(judgments, starts, dims, ratings, samples)
    ratings = ratings.sort_values(["elo", "model"], ascending=[False, True],
                                  kind="stable").reset_index(drop=True)
    return EigenBenchResult(judgments.models, dims, fit, trust, t, ratings, held_out,
                            judges, len(judgments), judgments.n_comparisons, n_bootstrap,
                            dict(judgments.notes), identification, level,
                            samples.elo if samples is not None else None)


def bootstrap(judgments: Judgments, fit: BtdFit, n_bootstrap: int, seed: int,
              cold: int = BOOTSTRAP_STARTS) -> Bootstrap:
    """`n_bootstrap` refits on comparisons resampled with replacement (a comparison brings
    all its judgments), all at once: each refit starts from the full fit and from `cold`
    cold starts, and keeps the best optimum."""
    rng = np.random.default_rng(seed)
    n, dims, size = judgments.n_models, fit.dims, judgments.n_comparisons
    drawn = rng.integers(0, size, (n_bootstrap, size))
    draws = np.bincount((drawn + size * np.arange(n_bootstrap)[:, None]).ravel(),
                        minlength=n_bootstrap * size).reshape(n_bootstrap, size)
    counts = resampled_counts(judgments, draws)
    starts = np.concatenate([np.broadcast_to(fit.packed(), (n_bootstrap, len(fit.packed()))),
                             btd.cold_starts(np.random.default_rng([seed, 0]),
                                             n_bootstrap * cold, n, dims)])
    rows = np.tile(np.arange(n_bootstrap), cold + 1)
    fits = newton.fit_many(counts, dims, starts, rows, near=np.arange(len(rows)) < n_bootstrap)
    objective = fits.objective.reshape(cold + 1, n_bootstrap)
    trust, elo = _elo_of(fits.x, n, dims)
    trust = trust.reshape(cold + 1, n_bootstrap, n, n)
    elo = elo.reshape(cold + 1, n_bootstrap, n)
    best = np.argmin(objective, axis=0)
    pick = (best, np.arange(n_bootstrap))
    elsewhere = objective - objective[pick][None] > SAME_OPTIMUM
    apart = np.abs(elo - elo[pick][None]).max(axis=2)
    return Bootstrap(elo[pick], self_preference(trust[pick])["self_preference"],
                     (elsewhere & (apart > REFIT_JUMP)).any(axis=0))


def bootstrap_elo(judgments: Judgments, fit: BtdFit, n_bootstrap: int,
                  seed: int) -> np.ndarray:
    """Elo of the `bootstrap` refits (rows) per model (columns)."""
    with threadpool_limits(limits=1, user_api="blas"):
        return bootstrap(judgments, fit, n_bootstrap, seed).elo


def judge_diagnostics(judgments: Judgments, fit: BtdFit, trust: np.ndarray,
                      elo: np.ndarray, samples: Bootstrap | None = None,
                      level: float = 0.95) -> pd.DataFrame:
    """Per judge: its judgments, how many of them are self-judgments (the judge one of
    the two evaluees), how often its decisive judgments side with the consensus (the
    model rated higher), how far its lens points from the mean lens (cosine distance;
    with d = 1 only 0 or 2), how far its trust row lies from the consensus t (L1
    distance, 0 to 2, as the paper compares judges), its tie propensity, and its
    self-preference: Elo of itself from its own trust row versus from the mean of the
    other judges' rows, with its bootstrap interval."""
    n = judgments.n_models
    decisive = judgments.outcome != TIE
    chosen = np.where(judgments.outcome == btd.FIRST, judgments.first, judgments.second)
    other = np.where(judgments.outcome == btd.FIRST, judgments.second, judgments.first)
    agrees = decisive & (elo[chosen] > elo[other])
    n_decisive = np.bincount(judgments.judge[decisive], minlength=n)
    n_agree = np.bincount(judgments.judge[agrees], minlength=n)
    own = (judgments.judge == judgments.first) | (judgments.judge == judgments.second)
    with np.errstate(invalid="ignore", divide="ignore"):
        agreement = np.where(n_decisive > 0, n_agree / n_decisive, np.nan)
        mean_lens = fit.lenses.mean(axis=0)
        norms = np.linalg.norm(fit.lenses, axis=1) * np.linalg.norm(mean_lens)
        cosine = np.where(norms > 0, fit.lenses @ mean_lens / norms, np.nan)
    low = high = np.full(n, np.nan)
    if samples is not None:
        tail = (1 - level) / 2 * 100
        low, high = np.percentile(samples.self_preference, [tail, 100 - tail], axis=0)
    return pd.DataFrame({
        "judge": list(judgments.models),
        "judgments": np.bincount(judgments.judge, minlength=n),
        "self_judgments": np.bincount(judgments.judge[own], minlength=n),
        "ties": np.bincount(judgments.judge[~decisive], minlength=n),
        "agreement": agreement,
        "lens_distance": 1 - cosine,
        "trust_distance": np.abs(trust - eigentrust(trust)[None, :]).sum(axis=1),
        "tie_propensity": fit.lambdas,
        **self_preference(trust),
        "self_preference_low": low,
        "self_preference_high": high,
    })


def identify(judgments: Judgments, starts: btd.Fits, dims: int, ratings: pd.DataFrame,
             samples: Bootstrap | None) -> Identification:
    """Whether the ratings are identified: the reasons they may not be (each a sentence
    a page can show), from the full fit's cold starts, the bootstrap and the design."""
    n = judgments.n_models
    at_best = starts.objective - starts.objective.min() <= SAME_OPTIMUM
    _, elo = _elo_of(starts.x[at_best], n, dims)
    spread = float(np.ptp(elo, axis=0).max())
    width = (ratings["ci_high"] - ratings["ci_low"]).to_numpy()
    widest = float(np.nanmax(width)) if np.isfinite(width).any() else float("nan")
    own = np.bincount(judgments.judge[(judgments.judge == judgments.first)
                                      | (judgments.judge == judgments.second)], minlength=n)
    missing = tuple(m for m, k in zip(judgments.models, own, strict=True) if k == 0)
    share = float(samples.disagreeing.mean()) if samples is not None else float("nan")
    reasons = []
    if missing:
        reasons.append(f"{len(missing)} of {n} judges never judged a pair that includes "
                       "their own answer: their self-trust T_ii is extrapolated from the fit, "
                       "not seen, and the ratings lean on it")
    wide = ratings.loc[width > WIDE_INTERVAL, "model"].tolist()
    if wide:
        reasons.append(f"{len(wide)} of {n} intervals are wider than {WIDE_INTERVAL:.0f} Elo "
                       f"(widest {widest:.0f}): the data cannot place "
                       + ("that model" if len(wide) == 1 else "those models")
                       + " within a tenfold range of trust")
    if spread > FLAT_SPREAD:
        reasons.append(f"cold starts reach equally good fits whose ratings differ by up to "
                       f"{spread:.0f} Elo: the likelihood does not pin the ratings down")
    if share > REFIT_SHARE:
        reasons.append(f"in {share:.0%} of the bootstrap refits the starts end in different "
                       f"optima more than {REFIT_JUMP:.0f} Elo apart")
    return Identification(len(starts.objective), int(at_best.sum()), spread, share, widest,
                          missing, tuple(reasons))
