# long: means, agreement, leniency and the self-rating gap share the dense panel, its
# bootstrap weights over models and its moderated variances; apart, each would import
# the others' internals.
"""A panel of judges scoring the same answers: means, agreement, leniency, self-rating.

`dense` lays one dataset's scores out as values[model, unit, judge, seed, trait]: a unit is
an independent answer of a model (llm-dreams' answer set, `meta.answer_set`; poem-eval's
poem, `meta.run`), a seed a judge's repetition; scores sharing a cell are averaged.  Means
are nested (seeds, judges, units): on dense data the plain average.  The judges are the
declared panel, FIXED: a panel mean estimates what this panel would say of a model's
answers, uncertain through answer and repetition noise, never "which judges".

Mean intervals (`panel_means`, `judge_means`): a mean over U units varies as s2 / U, s2
the variance between unit means.  With U = 2 a model's own s2 has 1 degree of freedom (a
t-interval 6.5 times the normal one) and a bootstrap over 2 units is degenerate, so s2 is
moderated (empirical Bayes, Smyth 2004's moderated t), one prior per judge or panel:
s2~ = (d0 s0^2 + d s2) / (d0 + d), t with d0 + d degrees of freedom, log s0^2 = a[trait] +
b[model], the trait's level over all models plus the model's factor from its OTHER traits
(independent of the s2 it moderates).  A model factor because on llm-dreams log s2 varies
between models far beyond chi-square noise (excess variance 1.0 on average over traits, up
to 2.6: some models write very different answer sets) and the factor explains it all.
trigamma(d0 / 2) = the excess variance of log s2 around the prior, corrected for the noise
the factor shares with s2 (one answer set moves every trait: unit deviations correlate 0.5
across llm-dreams' traits), never below the prior's own estimation noise.  An s2 of 0
(unit means tied on the scores' grid: 11% of a judge's) is censored below a quarter of the
smallest non-zero one.  Simulated at llm-dreams' shape (tests/panel_simulation.py: 236 models
x 2 answer sets x 9 judges x 2 repetitions x 15 traits; homogeneous, answer variance spread
over models or models and traits, answer effects correlated over traits, heavy tails,
scores on a 0.5 grid), 95% intervals cover 0.94-0.96 (panel) and 0.95 (judges); 0.92 with
answer effects correlated 0.9 over traits.  Pooling s2 over models covers 0.94 on average
but 0.65-0.75 for the noisiest tenth of the models, where these cover 0.93-0.96.

`agreement` per trait, between judges across models (each judge's per-model mean):
Pearson and Spearman matrices (models every judge scored); Krippendorff's alpha (interval,
missing values allowed); Cronbach's alpha (items judges, cases models, complete cases);
answer-set test-retest, Pearson across models of two units' panel means (mean over unit
pairs), raw (one answer set's reliability) and by Spearman-Brown, U r / (1 + (U - 1) r),
the reliability of the published mean of U exchangeable units; judge repeat, Pearson of
two repetitions pooled over models, units and judges (leniency counts as agreement), not
stepped up (it describes one scoring).  `leniency`: a judge's mean over the models it
scored minus the panel's over them.  Both: percentile bootstrap over models, all
replicates at once as multinomial weights on the models.

`self_rating_gap`: D_m = judge J's mean for model m minus the other judges' mean for m;
gap = D_M - the mean of D_m over the other models, with a prediction interval gap +- t *
sqrt(tau^2 + v_M + var(D) / n): tau^2 the spread of D over the other models less their
answer noise (how far J's view of any model strays), v_M D_M's moderated answer noise, t
with Satterthwaite's degrees of freedom.  Simulated gaps (0, 0.5) are covered 0.94-0.95.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from ffsite.format import Scores
from ffsite.metrics.ranking import average_ranks
from ffsite.models import Registry

AXES = ("model", "unit", "judge", "seed", "trait")
JudgeModels = Mapping[str, str] | Iterable[tuple[str, str]]  # judge -> the model it is


@dataclass(frozen=True)
class PanelData:
    """values[model, unit, judge, seed, trait]: the mean score of each cell, NaN where
    there is none; counts: how many scores each cell averages; then each axis' labels."""

    dataset: str
    values: np.ndarray
    counts: np.ndarray
    models: np.ndarray
    units: np.ndarray
    judges: np.ndarray
    seeds: np.ndarray
    traits: np.ndarray

    @classmethod
    def from_array(cls, values: np.ndarray, dataset: str = "array", **labels: Iterable
                   ) -> PanelData:
        """From a 5-d array (NaN: no score); unnamed axes (models=...) count 0, 1, ..."""
        values = np.asarray(values, dtype=np.float64)
        named = [np.asarray(list(labels.get(f"{axis}s", range(size))), dtype=object)
                 for axis, size in zip(AXES, values.shape, strict=True)]
        return cls(dataset, values, np.isfinite(values).astype(np.int64), *named)


def dense(scores: Scores, dataset: str, *, unit: str = "meta.answer_set") -> PanelData:
    """One dataset's scores as a PanelData, every axis sorted (a missing seed is one
    seed, None)."""
    responses = scores.responses
    if unit not in responses.columns:
        raise ValueError(f"the scores have no column '{unit}' to tell a model's answers "
                         f"apart; columns: {', '.join(responses.columns)}")
    keep = ((responses["dataset"] == dataset) & responses["model"].notna()).to_numpy(bool)
    chosen = keep[scores.response]
    if not chosen.any():
        raise ValueError(f"no scores of dataset '{dataset}' with a model")
    # Factorised once per response and per column (hundreds), then spread to the scores.
    codes, labels = [], []
    for frame, index, names in ((responses, scores.response, ("model", unit)),
                                (scores.columns, scores.column, ("judge", "seed", "trait_id"))):
        for name in names:
            code, label = pd.factorize(frame[name], sort=True,
                                       use_na_sentinel=False)
            used, code = np.unique(code[index[chosen]], return_inverse=True)
            codes.append(code)
            labels.append(np.array([None if pd.isna(v) else v for v in label[used]],
                                   dtype=object))
    shape = tuple(len(label) for label in labels)
    flat = np.ravel_multi_index(tuple(codes), shape)
    counts = np.bincount(flat, minlength=int(np.prod(shape))).reshape(shape)
    sums = np.bincount(flat, scores.value[chosen], minlength=counts.size).reshape(shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        return PanelData(dataset, np.where(counts > 0, sums / counts, np.nan), counts,
                         *labels)


def _mean(x: np.ndarray, axis: int | tuple[int, ...]) -> np.ndarray:
    """Mean of the finite values along `axis`; NaN where there are none (no warning)."""
    present = np.isfinite(x)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(present, x, 0).sum(axis) / present.sum(axis)


def _grid(axes: list[dict[str, np.ndarray]], values: dict[str, np.ndarray],
          keep: np.ndarray | bool = True) -> pd.DataFrame:
    """One row per cell of arrays shaped by `axes` (each axis: its label columns)."""
    shape = tuple(len(next(iter(axis.values()))) for axis in axes)
    index = np.indices(shape).reshape(len(shape), -1)
    out = {name: np.asarray(labels, dtype=object)[index[i]]
           for i, axis in enumerate(axes) for name, labels in axis.items()}
    out.update({name: np.broadcast_to(v, shape).reshape(-1) for name, v in values.items()})
    return pd.DataFrame(out)[np.broadcast_to(keep, shape).reshape(-1)].reset_index(drop=True)


def _t_quantile(level: float, df: np.ndarray) -> np.ndarray:
    """Two-sided t quantile, once per distinct df (few): stats.t.ppf's own function."""
    distinct, where = np.unique(np.nan_to_num(df, nan=-1.0), return_inverse=True)
    return np.where(distinct > 0, special.stdtrit(np.abs(distinct), 0.5 + level / 2),
                    np.nan)[where].reshape(np.shape(df))


def _trigamma_inverse(x: float) -> float:
    """y with trigamma(y) = x (Smyth's Newton iteration, as limma's trigammaInverse)."""
    if x > 1e7 or x < 1e-6:
        return 1 / np.sqrt(x) if x > 1e7 else 1 / x
    y = 0.5 + 1 / x
    for _ in range(50):
        tri = special.polygamma(1, y)
        step = tri * (1 - tri / x) / special.polygamma(2, y)
        y += step
        if -step / y < 1e-8:
            break
    return float(y)


def _log_square_correlation(rho: np.ndarray) -> np.ndarray:
    """corr(log X^2, log Y^2) of a standard bivariate normal with correlation rho: the
    sum over n >= 1 of (2 rho)^(2n) / (n^2 C(2n, n)), over its value at rho = 1, pi^2/2."""
    n = np.arange(1, 41).reshape(-1, *([1] * rho.ndim))
    log_terms = (2 * n * np.log(2 * np.abs(rho) + 1e-300) - 2 * np.log(n)
                 - special.gammaln(2 * n + 1) + 2 * special.gammaln(n + 1))
    return np.exp(log_terms).sum(0) / (np.pi ** 2 / 2)


def _moderated(s2: np.ndarray, d: np.ndarray, deviations: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """(moderated variance, degrees of freedom) of s2[model, group, trait] with d degrees
    of freedom, deviations[model, unit, group, trait] the unit means less their mean:
    the module docstring's rule, one prior per group."""
    ok = (d >= 1) & np.isfinite(s2)
    half = np.where(ok, d, 1) / 2
    # Near 0 a chi-square's log averages log(bound) - 2/d below a bound.
    zero = ok & (s2 <= 1e-9 * _mean(np.where(ok, s2, np.nan), 0))
    bound = np.min(np.where(ok & ~zero, s2, np.inf), 0) / 4
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(zero, np.log(bound) - 1 / half, np.log(np.where(ok & ~zero, s2, 1)))
    fit = ok & np.isfinite(logs)
    # e estimates log sigma^2 without bias (E log chi2_d / d = digamma(d/2) - log(d/2)).
    e = np.where(fit, logs - special.digamma(half) + np.log(half), np.nan)
    level = _mean(e, 0)  # a[group, trait]
    dev = np.where(fit, e - level, 0)
    rest = fit.sum(2, keepdims=True) - fit  # how many other traits the factor averages
    factor = (dev.sum(2, keepdims=True) - dev) / np.maximum(rest, 1)  # b[model, group]
    x = np.where(np.isfinite(deviations), deviations, 0)
    cov = np.einsum("mugt,mugs->gts", x, x)
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = np.sqrt(np.einsum("gtt->gt", cov))
        shared = _log_square_correlation(np.nan_to_num(cov / (sd[:, :, None] * sd[:, None])))
    # Mean correlation of a trait's log s2 noise with the other traits' (off-diagonal).
    shared = (shared.sum(2) - np.einsum("gtt->gt", shared)) / max(shared.shape[2] - 1, 1)
    noise = np.where(fit, special.polygamma(1, half), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a group without data
        excess = (np.nanmean(np.where(fit, dev - factor, np.nan) ** 2, axis=(0, 2))
                  - np.nanmean(noise * (1 - 2 * shared), axis=(0, 2)))
        # The prior's own estimation noise: the factor's (from `rest` traits) and the
        # level's (from the models).
        known = np.nanmean(noise * ((rest > 0) * (1 + (rest - 1) * shared) / np.maximum(
            rest, 1) + 1 / np.maximum(fit.sum(0, keepdims=True), 1)), axis=(0, 2))
    d0 = np.array([2 * _trigamma_inverse(v) if np.isfinite(v) else np.nan
                   for v in np.maximum(excess, known)])[:, None]  # one per group
    prior = np.exp(level + factor + special.digamma(d0 / 2) - np.log(d0 / 2))
    weight = np.where(ok, d, 0)
    return (d0 * prior + weight * np.where(ok, s2, 0)) / (d0 + weight), d0 + weight


def _interval(per_unit: np.ndarray, level: float) -> dict[str, np.ndarray]:
    """Mean over units (axis 1) of per_unit[model, unit, group, trait] with its moderated
    t-interval; every array [model, group, trait]."""
    mean = _mean(per_unit, 1)
    units = np.isfinite(per_unit).sum(1)
    deviations = per_unit - mean[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        s2 = np.where(units > 1, np.nansum(deviations ** 2, 1) / (units - 1), np.nan)
        variance, df = _moderated(s2, units - 1, deviations)
        half = _t_quantile(level, df) * np.sqrt(variance / units)
    return {"mean": mean, "ci_low": mean - half, "ci_high": mean + half, "s2": s2,
            "variance": variance, "df": df, "units": units}


def panel_means(data: PanelData, *, level: float = 0.95) -> pd.DataFrame:
    """Per model and trait: the panel's mean (judges fixed) with its moderated t-interval
    over units; columns model, trait_id, mean, ci_low, ci_high, n (scores)."""
    found = _interval(_mean(_mean(data.values, 3), 2)[:, :, None], level)
    n = data.counts.sum((1, 2, 3))
    return _grid([{"model": data.models}, {"trait_id": data.traits}],
                 {k: found[k][:, 0] for k in ("mean", "ci_low", "ci_high")} | {"n": n},
                 n > 0)


def judge_means(data: PanelData, *, level: float = 0.95) -> pd.DataFrame:
    """Per model, judge and trait: the judge's mean with the same kind of interval;
    columns model, judge, trait_id, mean, ci_low, ci_high, n."""
    found = _interval(_mean(data.values, 3), level)
    n = data.counts.sum((1, 3))
    return _grid([{"model": data.models}, {"judge": data.judges}, {"trait_id": data.traits}],
                 {k: found[k] for k in ("mean", "ci_low", "ci_high")} | {"n": n}, n > 0)


def _weights(n_models: int, n_bootstrap: int, seed: int) -> np.ndarray:
    """[1 + n_bootstrap, models]: ones (the estimate), then each resample's model counts."""
    draws = np.random.default_rng(seed).multinomial(
        n_models, np.full(n_models, 1 / n_models), size=n_bootstrap)
    return np.vstack([np.ones((1, n_models)), draws]).astype(np.float64)


def _weighted_sums(weights: np.ndarray, parts: np.ndarray) -> np.ndarray:
    """weights [B, M] times parts [M, ...] summed over models: [B, ...]."""
    flat = parts.reshape(parts.shape[0], -1)
    return (weights @ flat).reshape((weights.shape[0], *parts.shape[1:]))


def _percentiles(replicates: np.ndarray, level: float) -> np.ndarray:
    """[low, high] percentile interval of replicates[1:] (row 0 is the estimate)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN cells stay NaN
        return np.nanquantile(replicates[1:], [(1 - level) / 2, (1 + level) / 2], axis=0)


def _pearson(weights: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Weighted Pearson of paired x, y [model, cells, trait] (NaN: unpaired), pooled over
    a model's cells, per resample and trait: [B, trait]."""
    both = np.isfinite(x) & np.isfinite(y)
    x, y = np.where(both, x, 0), np.where(both, y, 0)
    parts = np.stack([both, x, y, x * x, y * y, x * y], 1).sum(2)  # [model, 6, trait]
    n, sx, sy, sxx, syy, sxy = _weighted_sums(weights, parts).transpose(1, 0, 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (n * sxy - sx * sy) / np.sqrt((n * sxx - sx ** 2) * (n * syy - sy ** 2))


def _pairs_pearson(weights: np.ndarray, x: np.ndarray, axis: int) -> np.ndarray:
    """Mean Pearson over every pair of positions along `axis` of x[model, ..., trait],
    pooled over the other axes: [B, trait]."""
    models, traits = x.shape[0], x.shape[-1]
    first, second = np.triu_indices(x.shape[axis], 1)
    if not len(first):
        return np.full((weights.shape[0], traits), np.nan)
    # The pairs join the trait axis, so one call does them all.
    a, b = (np.moveaxis(np.take(x, side, axis), axis, -2).reshape(
        models, -1, len(first) * traits) for side in (first, second))
    return _pearson(weights, a, b).reshape(-1, len(first), traits).mean(1)


def _krippendorff(weights: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Krippendorff's alpha, interval metric, of x[model (unit), judge (coder), trait]:
    1 - (N - 1) sum_u n_u SS_u / (n_u - 1) / (N SS_total), pairable units only."""
    present = np.isfinite(x)
    n = present.sum(1)
    pairable = n >= 2
    v = np.where(present, x, 0)
    s1, s2 = v.sum(1), (v * v).sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        within = np.where(pairable, n * (s2 - s1 ** 2 / n) / (n - 1), 0)
    parts = np.stack([n * pairable, s1 * pairable, s2 * pairable, within], 1)
    big_n, t1, t2, observed = _weighted_sums(weights, parts).transpose(1, 0, 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return 1 - (big_n - 1) * observed / (big_n * (t2 - t1 ** 2 / big_n))


def _cronbach(weights: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Cronbach's alpha of x[model (case), judge (item), trait], complete cases:
    k / (k - 1) (1 - the items' variances summed / the total's variance)."""
    k = x.shape[1]
    complete = np.isfinite(x).all(1, keepdims=True)  # [model, 1, trait]
    v = np.where(complete, x, 0)
    total = v.sum(1, keepdims=True)
    first = np.concatenate([v, total], 1)  # the k items, then their total
    sums = _weighted_sums(weights, np.concatenate([complete, first, first ** 2], 1))
    w = sums[:, :1]
    with np.errstate(invalid="ignore", divide="ignore"):
        variances = (sums[:, k + 2:] - sums[:, 1:k + 2] ** 2 / w) / (w - 1)
        items, whole = variances[:, :k].sum(1), variances[:, k]
        return k / (k - 1) * (1 - items / whole) if k > 1 else np.full(whole.shape, np.nan)


@dataclass(frozen=True)
class Agreement:
    """correlations: trait_id, judge_a, judge_b, pearson, pearson_low, pearson_high,
    spearman, n_models (all ordered pairs); judge_pairs: judge_a, judge_b, pearson (the
    mean of the pair's per-trait Pearson), ci_low, ci_high, traits (all ordered pairs);
    reliability: trait_id, statistic, estimate, ci_low, ci_high, n_models."""

    correlations: pd.DataFrame
    reliability: pd.DataFrame
    judge_pairs: pd.DataFrame


STATISTICS = ("krippendorff_alpha", "cronbach_alpha", "test_retest",
              "test_retest_spearman_brown", "judge_repeat")


def agreement(data: PanelData, *, n_bootstrap: int = 1000, seed: int = 0,
              level: float = 0.95) -> Agreement:
    """How far the judges agree, per trait (module docstring), with percentile bootstrap
    intervals over models."""
    units = _mean(data.values, 3)
    judge = _mean(units, 1)  # [model, judge, trait]
    # Matrices over the models every judge scored: each (judge a, judge b) pair is one
    # column of a single unweighted _pearson call.
    common = np.where(np.isfinite(judge).all(1, keepdims=True), judge, np.nan)
    pairs = np.indices((len(data.judges),) * 2).reshape(2, -1)
    matrices = {name: _pearson(np.ones((1, len(x))), *(x[:, side].reshape(len(x), 1, -1)
                                                        for side in pairs))
                for name, x in (("pearson", common), ("spearman", average_ranks(
                    common, axis=0)))}
    correlations = _grid([{"judge_a": data.judges}, {"judge_b": data.judges},
                          {"trait_id": data.traits}], {
        name: m.reshape(len(data.judges), len(data.judges), -1) for name, m in matrices.items()
    } | {"n_models": np.isfinite(common).all(1).sum(0)})
    weights = _weights(len(data.models), n_bootstrap, seed)
    correlations, judge_pairs = _judge_pair_intervals(data, common, weights, correlations,
                                                      level)
    retest = _pairs_pearson(weights, _mean(units, 2), 1)
    k = len(data.units)
    found = np.stack([_krippendorff(weights, judge), _cronbach(weights, judge), retest,
                      # Spearman-Brown: the mean of k units' reliability from one unit's.
                      k * retest / (1 + (k - 1) * retest),
                      _pairs_pearson(weights, data.values, 3)], 1)  # [B, statistic, trait]
    low, high = _percentiles(found, level)
    reliability = _grid([{"statistic": np.array(STATISTICS)}, {"trait_id": data.traits}], {
        "estimate": found[0], "ci_low": low, "ci_high": high,
        "n_models": np.isfinite(judge).any(1).sum(0)}, np.isfinite(found[0]))
    return Agreement(correlations, reliability[["trait_id", "statistic", "estimate",
                                                "ci_low", "ci_high", "n_models"]],
                     judge_pairs)


def _judge_pair_intervals(data: PanelData, common: np.ndarray, weights: np.ndarray,
                          correlations: pd.DataFrame, level: float
                          ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Percentile intervals (bootstrap over models, `weights`) of each judge pair's
    Pearson per trait, added to `correlations`, and of its mean over the traits (the
    judges page's matrix): the second frame.  A judge with itself: exactly 1, from 1 to 1."""
    judges, traits = len(data.judges), len(data.traits)
    first, second = np.triu_indices(judges, 1)
    replicates = _pearson(weights, *(common[:, side].reshape(len(common), 1, -1)
                                     for side in (first, second))).reshape(
        len(weights), len(first), traits)
    # A resample with one distinct model has no correlation (0 / 0, or rounding's x / 0).
    replicates = np.where(np.isfinite(replicates), np.clip(replicates, -1, 1), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a pair without any trait: NaN
        averaged = np.nanmean(replicates, axis=2)  # [B, pair]
    per_trait, mean = ((_percentiles(replicates, level), _percentiles(averaged, level))
                       if len(first) else (np.empty((2, 0, traits)), np.empty((2, 0))))

    def square(values: np.ndarray, diagonal: float) -> np.ndarray:
        """[pair, ...] over unordered pairs -> [judge, judge, ...], symmetric."""
        out = np.full((judges, judges, *values.shape[1:]), diagonal)
        out[first, second] = out[second, first] = values
        return out

    cells = correlations.set_index(["judge_a", "judge_b", "trait_id"]).index
    position = [pd.Index(labels).get_indexer(cells.get_level_values(i))
                for i, labels in enumerate((data.judges, data.judges, data.traits))]
    for name, bound in (("pearson_low", per_trait[0]), ("pearson_high", per_trait[1])):
        correlations[name] = square(bound, 1.0)[tuple(position)]
    correlations = correlations[["trait_id", "judge_a", "judge_b", "pearson", "pearson_low",
                                 "pearson_high", "spearman", "n_models"]]
    judge_pairs = _grid([{"judge_a": data.judges}, {"judge_b": data.judges}], {
        "pearson": square(averaged[0], 1.0), "ci_low": square(mean[0], 1.0),
        "ci_high": square(mean[1], 1.0),
        "traits": square(np.isfinite(replicates[0]).sum(1), traits)})
    return (correlations.sort_values(["trait_id", "judge_a", "judge_b"], ignore_index=True),
            judge_pairs)


def leniency(data: PanelData, *, n_bootstrap: int = 1000, seed: int = 0,
             level: float = 0.95) -> pd.DataFrame:
    """Per judge and trait: the judge's mean over the models it scored minus the panel's
    mean over the same models, bootstrap over models; columns judge, trait_id, leniency,
    ci_low, ci_high, judge_mean, panel_mean, n_models."""
    judge = _mean(_mean(data.values, 3), 1)  # [model, judge, trait]
    panel = np.broadcast_to(_mean(judge, 1)[:, None], judge.shape)
    scored = np.isfinite(judge) & np.isfinite(panel)
    parts = np.stack([scored, np.where(scored, judge, 0), np.where(scored, panel, 0)], 1)
    sums = _weighted_sums(_weights(len(data.models), n_bootstrap, seed), parts)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums[:, 1:] / sums[:, :1]  # [B, judge or panel, judge, trait]
    lenient = means[:, 0] - means[:, 1]
    low, high = _percentiles(lenient, level)
    n = scored.sum(0)
    return _grid([{"judge": data.judges}, {"trait_id": data.traits}], {
        "leniency": lenient[0], "ci_low": low, "ci_high": high, "judge_mean": means[0, 0],
        "panel_mean": means[0, 1], "n_models": n}, n > 0)


GAP_COLUMNS = ("judge", "model", "trait_id", "gap", "ci_low", "ci_high", "self_difference",
               "others_difference", "n_models")


def _own_models(data: PanelData, judge_models: JudgeModels, registry: Registry | None
                ) -> tuple[np.ndarray, np.ndarray]:
    """(judge index, model index) of every declared judge that scored here."""
    judges, models = [], []
    for judge, model in dict(judge_models).items():
        if judge not in set(data.judges):
            continue  # declared, but none of its scores are here
        names = [model, *([registry.model_id(data.dataset, model)] if registry else [])]
        m = np.flatnonzero(np.isin(data.models, names))
        if not len(m):
            raise ValueError(f"judge '{judge}' is declared as model '{model}', which "
                             f"dataset '{data.dataset}' does not rate")
        judges.append(np.flatnonzero(data.judges == judge)[0])
        models.append(m[0])
    return np.array(judges, dtype=np.int64), np.array(models, dtype=np.int64)


def self_rating_gap(data: PanelData, judge_models: JudgeModels,
                    registry: Registry | None = None, *, level: float = 0.95
                    ) -> pd.DataFrame:
    """Per judge that is a rated model, and trait: how much more the judge gives its own
    model than the other judges do, beyond what it gives any model (module docstring),
    with a prediction-style interval; columns GAP_COLUMNS.  `registry` finds a model
    named by the dataset's spelling when `data` names models by registry id."""
    judges, own = _own_models(data, judge_models, registry)
    if len(data.judges) < 2 or not len(judges):
        return pd.DataFrame({name: [] for name in GAP_COLUMNS})
    units = _mean(data.values, 3)  # [model, unit, judge, trait]
    present = np.isfinite(units)
    scored = np.where(present, units, 0)
    others = present.sum(2, keepdims=True) - 1
    with np.errstate(invalid="ignore", divide="ignore"):
        difference = np.where(present & (others > 0), units - (
            scored.sum(2, keepdims=True) - scored) / others, np.nan)
    found = {k: v[:, judges] for k, v in _interval(difference, level).items()}
    pick = np.arange(len(judges))
    d = found["mean"]  # [model, rated judge, trait]
    rest = np.isfinite(d)
    rest[own, pick] = False
    n = rest.sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = np.where(rest, d, 0).sum(0) / n
        spread = np.where(rest, (d - centre) ** 2, 0).sum(0) / (n - 1)
        noise = found["s2"] / found["units"]
        noisy = rest & np.isfinite(noise)
        noise = np.where(noisy, noise, 0).sum(0) / noisy.sum(0)
        # tau^2, how far J's view of a model strays from the others' anyway, and the
        # error of the centre; then M's own answer noise.
        between = np.maximum(spread - noise, 0) + spread / n
        mine = found["variance"][own, pick] / found["units"][own, pick]
        df = (between + mine) ** 2 / (between ** 2 / (n - 1)
                                      + mine ** 2 / found["df"][own, pick])
    gap = d[own, pick] - centre
    half = _t_quantile(level, df) * np.sqrt(between + mine)
    return _grid([{"judge": data.judges[judges], "model": data.models[own]},
                  {"trait_id": data.traits}], {
        "gap": gap, "ci_low": gap - half, "ci_high": gap + half,
        "self_difference": d[own, pick], "others_difference": centre, "n_models": n},
        np.isfinite(gap))
