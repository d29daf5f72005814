"""Length-controlled preferences: what a preference judge's verdicts say once the length
difference of the two answers is held at zero, in the spirit of AlpacaEval's
length-controlled win rate (Dubois et al. 2024, "length_controlled_minimal": its formula
without the instruction-difficulty term and without the regularisation towards gamed
baselines of its v1, so these are not AlpacaEval's published numbers).

Lengths are a response-metrics measure (`characters`, or `words`) of both answers.  For
a comparison, z = (length of one answer - length of the other) / s, s the standard
deviation of that difference over the comparisons of the fit (not centred: a model that
always writes more keeps z > 0), and the length term is tanh(z), as AlpacaEval has it.

- **Win rate** (per model, against the reference; ties half a win, as a soft label of
  0.5): logit P(model preferred) = a + b tanh(z), z from the model's length minus the
  reference's, s over the model's own comparisons.  The length-controlled win rate is
  sigmoid(a): the length term held at zero.  Its 95% interval is sigmoid(a +- 1.96 se(a)).
- **Trait strength** (per trait, against the dataset's preference annotator, Feedback
  Forensics' Result A): logit P(A preferred) = d + g x + b tanh(z), x = +1 when the trait
  vote picks A, -1 when it picks B, 0 otherwise (tie, neither, invalid, no vote), z from
  A's length minus B's, s over the dataset's decided comparisons; d absorbs a preference
  for the first side.  The length-controlled strength is relevance x (2 sigmoid(g) - 1),
  with the length term and the side term both held at zero: the strength the trait
  would have if its votes carried no length.  relevance is the trait's share of A/B
  votes among the decided comparisons, as in its raw strength.  Its 95% interval maps
  g +- 1.96 se(g) the same way (relevance held fixed: the trait votes and lengths are
  taken as given, only the preferences as random).

Fits are Firth-penalised maximum likelihood (finite when a model wins or loses every
comparison, like the Bradley-Terry ratings), solved by Fisher scoring, all models (or
traits) at once; se from the inverse Fisher information at the solution.  Without the
penalty (`firth=False`) the fit is plain logistic regression and matches statsmodels'
(tests/test_length_control.py).  A fit the data cannot identify (a trait without a
single A/B vote, a model whose length difference never varies: its Fisher information
is singular) has no estimate: its numbers are NaN, never the zeros it started from.

What the numbers rest on:

- **Extrapolated win rates.**  The controlled win rate reads the fitted curve at equal
  length.  effective_n = 1 / (p (1 - p) se(a)^2), p = sigmoid(a), is the number of
  comparisons at equal length whose plain win rate would be as precise; it is small when
  the model's comparisons lie far from equal length, or when the fitted curve jumps
  there (a near-separated fit: the length term all but decides the verdict), so that few
  comparisons inform the value at equal length.  A rate is `extrapolated` when its
  effective_n is below EXTRAPOLATED_SHARE (5%) of the model's comparisons, or when equal
  length lies outside them altogether (every answer of the model shorter than the
  reference's, or every one longer: then a and b can run off together and effective_n
  means nothing).
- **Too few votes.**  A trait's `valid_votes` are its A/B votes in the fit; a page shows
  no controlled strength for a trait with fewer than the site's minimum (10).
- **Length traits.**  `picks_longer` is the share of a trait's A/B votes, on comparisons
  whose answers differ in length, that pick the longer answer; a trait at or beyond
  LENGTH_TRAIT_SHARE (95%) either way ("is more verbose", "is more concise") is length
  itself, and its fit's length effect is not the annotator's (`overall_length_effect`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit

Z95 = 1.959963984540054
LENGTH_MEASURES = ("characters", "words")
# A controlled win rate resting on fewer effective comparisons than this share of the
# model's comparisons is marked extrapolated (module docstring).
EXTRAPOLATED_SHARE = 0.05
# A trait whose A/B votes pick the longer answer (or the shorter one) at least this often
# is length itself (module docstring).
LENGTH_TRAIT_SHARE = 0.95


def fit_logistic(x: np.ndarray, y: np.ndarray, weight: np.ndarray, *, firth: bool = True,
                 tolerance: float = 1e-10, max_steps: int = 100
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Batched logistic regression: x [batches, rows, terms], y [batches, rows] in [0, 1]
    (soft labels allowed), weight [batches, rows] (0: padding).  Returns (coefficients
    [batches, terms], covariance [batches, terms, terms]: the inverse Fisher information
    at the solution; NaN where it is singular)."""
    batches, _, terms = x.shape
    beta = np.zeros((batches, terms))
    transposed = np.swapaxes(x, 1, 2)  # [batches, terms, rows]

    def information(p: np.ndarray) -> np.ndarray:
        return (transposed * (weight * p * (1 - p))[:, None, :]) @ x

    def objective(b: np.ndarray) -> np.ndarray:
        """The (penalised) log-likelihood of each batch."""
        eta = (x @ b[:, :, None])[:, :, 0]
        # y log p + (1 - y) log(1 - p) = y eta - log(1 + e^eta)
        value = (weight * (y * eta - np.logaddexp(0, eta))).sum(axis=1)
        if firth:
            sign, logdet = np.linalg.slogdet(information(expit(eta)))
            value = value + 0.5 * np.where(sign > 0, logdet, -np.inf)
        return value

    current = objective(beta)
    for _ in range(max_steps):
        p = expit((x @ beta[:, :, None])[:, :, 0])
        info = information(p)
        inverse = _inverse(info)
        residual = weight * (y - p)
        if firth:  # leverage of each row: its Firth pseudo-data h (1/2 - p)
            leverage = weight * p * (1 - p) * ((x @ inverse) * x).sum(axis=2)
            residual = residual + leverage * (0.5 - p)
            # The modified score's slope (h held fixed) is -(I + H), H = sum h p(1-p) x x':
            # stepping with it, not I alone, keeps Fisher scoring from overshooting.
            inverse = _inverse(info + (transposed * (leverage * p * (1 - p))[:, None, :])
                               @ x)
        score = (transposed @ residual[:, :, None])[:, :, 0]
        step = (inverse @ score[:, :, None])[:, :, 0]
        step = np.where(np.isfinite(step), step, 0.0)
        largest = np.abs(step).max(axis=1, keepdims=True)
        step = step * np.minimum(1.0, 2.0 / np.maximum(largest, 1e-300))  # at most 2 logits
        # Halve a step that lowers the objective (scoring with Firth's pseudo-data can
        # overshoot and cycle when a batch has few rows).
        for _ in range(20):
            trial = objective(beta + step)
            worse = ~(trial >= current - 1e-12 * np.abs(current))
            if not worse.any():
                break
            step[worse] *= 0.5
        beta = beta + step
        before, current = current, objective(beta)
        # A batch is done when it no longer moves, or when its objective no longer
        # changes at all (an ill-conditioned batch, a trait with a single A/B vote, can
        # creep along a direction its objective cannot tell apart).
        with np.errstate(invalid="ignore"):
            gain = np.where(np.isfinite(current - before), current - before, 0.0)
        scale = np.abs(np.where(np.isfinite(current), current, 0.0))
        moving = (np.abs(step).max(axis=1) >= tolerance) & (np.abs(gain) > 4e-16 * scale)
        if not moving.any():
            break
    return beta, _inverse(information(expit((x @ beta[:, :, None])[:, :, 0])))


def _inverse(matrices: np.ndarray) -> np.ndarray:
    """Inverses of [batches, k, k] matrices; NaN for a singular one."""
    found = np.full_like(matrices, np.nan)
    finite = np.isfinite(matrices).all(axis=(1, 2))
    singular = ~finite
    if finite.any():
        singular[finite] = np.linalg.cond(matrices[finite]) > 1e12
    if (~singular).any():
        found[~singular] = np.linalg.inv(matrices[~singular])
    return found


def length_scale(difference: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """Per group, s: the sample standard deviation (ddof 1) of the difference, pandas' std
    as AlpacaEval takes it (NaN for a group of fewer than two rows)."""
    count = np.bincount(group, minlength=n_groups).astype(float)
    total = np.bincount(group, difference, n_groups)
    squares = np.bincount(group, difference ** 2, n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = (squares - total ** 2 / count) / (count - 1)
    return np.sqrt(np.maximum(variance, 0.0))


def length_term(difference: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """tanh(difference / s), s the sample standard deviation (ddof 1) of the difference
    within each group (`length_scale`); the difference itself is not centred.  0 where s
    is 0 or undefined."""
    scale = length_scale(difference, group, n_groups)[group]
    with np.errstate(invalid="ignore"):
        return np.where(scale > 0, np.tanh(difference / np.where(scale > 0, scale, 1)), 0.0)


def _identified(beta: np.ndarray, covariance: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """(coefficients, standard errors), NaN for every batch whose Fisher information is
    singular at the solution: its data do not identify the fit, and the coefficients are
    only where the solver stopped."""
    se = np.sqrt(np.diagonal(covariance, axis1=1, axis2=2))
    known = np.isfinite(se).all(axis=1) & np.isfinite(beta).all(axis=1)
    return (np.where(known[:, None], beta, np.nan), np.where(known[:, None], se, np.nan))


def padded(group: np.ndarray, n_groups: int, *columns: np.ndarray) -> list[np.ndarray]:
    """Rows sorted into [groups, most rows] arrays (padding 0), the first a weight of 1
    for real rows: what `fit_logistic` takes for one fit per group."""
    order = np.argsort(group, kind="stable")
    group = group[order]
    sizes = np.bincount(group, minlength=n_groups)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    slot = np.arange(len(group)) - starts[group]
    width = int(sizes.max(initial=0))
    out = [np.zeros((n_groups, width))]
    out[0][group, slot] = 1.0
    for column in columns:
        grid = np.zeros((n_groups, width))
        grid[group, slot] = column[order]
        out.append(grid)
    return out


WIN_RATE_COLUMNS = ["model", "n", "lc_win_rate", "lc_low", "lc_high", "length_effect",
                    "length_effect_low", "length_effect_high", "length_scale", "effective_n",
                    "extrapolated"]


def controlled_win_rates(model: np.ndarray, outcome: np.ndarray, difference: np.ndarray,
                         *, firth: bool = True) -> pd.DataFrame:
    """Per model: its comparisons with the reference (`outcome` 1 win, 0.5 tie, 0 loss;
    `difference` its answer's length minus the reference's; rows with a NaN left out).
    Columns model, n, lc_win_rate, lc_low, lc_high (percent), length_effect (b, the
    log-odds per unit of tanh(z)), length_effect_low, length_effect_high, length_scale (s,
    in the difference's unit), effective_n (NaN when equal length lies outside the
    model's comparisons) and extrapolated (module docstring).  A model whose fit is not
    identified has NaN numbers and is not marked extrapolated."""
    keep = ~(np.isnan(outcome) | np.isnan(difference)) & pd.notna(model)
    codes, models = pd.factorize(pd.Series(model[keep], dtype=object), sort=True)
    if not len(models):
        return pd.DataFrame(columns=WIN_RATE_COLUMNS)
    term = length_term(difference[keep], codes, len(models))
    weight, y, t = padded(codes, len(models), outcome[keep], term)
    beta, se = _identified(*fit_logistic(np.stack([weight, t], axis=-1), y, weight,
                                         firth=firth))
    n = np.bincount(codes, minlength=len(models))
    p = expit(beta[:, 0])
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        effective = 1.0 / (p * expit(-beta[:, 0]) * se[:, 0] ** 2)
    kept = difference[keep]
    one_side = (np.bincount(codes, kept < 0, len(models)) == n) | (
        np.bincount(codes, kept > 0, len(models)) == n)  # equal length outside the data
    effective = np.where(one_side, np.nan, effective)
    return pd.DataFrame({
        "model": np.asarray(models, dtype=object),
        "n": n,
        "lc_win_rate": 100 * p,
        "lc_low": 100 * expit(beta[:, 0] - Z95 * se[:, 0]),
        "lc_high": 100 * expit(beta[:, 0] + Z95 * se[:, 0]),
        "length_effect": beta[:, 1],
        "length_effect_low": beta[:, 1] - Z95 * se[:, 1],
        "length_effect_high": beta[:, 1] + Z95 * se[:, 1],
        "length_scale": length_scale(difference[keep], codes, len(models)),
        "effective_n": effective,
        "extrapolated": np.isfinite(beta[:, 0]) & (
            one_side | (effective < EXTRAPOLATED_SHARE * n))})


def controlled_strengths(sides: np.ndarray, trait_sides: np.ndarray,
                         difference: np.ndarray, *, firth: bool = True) -> pd.DataFrame:
    """Per trait (a column of `trait_sides`): the length-controlled strength against the
    preferences `sides` (1 = A preferred, 2 = B, one per decided comparison in the
    trait's scope); `trait_sides` [comparisons, traits]: 1 the trait vote picks A, 2 B,
    0 otherwise, -1 out of the trait's scope; `difference` A's length minus B's (a NaN
    row is left out).  Columns trait (column number), n, valid_votes (its A/B votes),
    relevance, lc_strength, lc_low, lc_high, length_effect, length_effect_low,
    length_effect_high, length_scale (s, in the difference's unit) and picks_longer
    (module docstring).  A trait whose fit is not identified (no A/B vote) has NaN
    numbers."""
    usable = ~np.isnan(difference) & ((sides == 1) | (sides == 2))
    in_scope = (trait_sides >= 0) & usable[:, None]
    fitted = np.flatnonzero(in_scope.any(axis=0))  # a trait with no row gets no fit
    in_scope, trait_sides = in_scope[:, fitted], trait_sides[:, fitted]
    n_traits = len(fitted)
    trait_of, comparison = np.nonzero(in_scope.T)  # trait-major: one fit per trait
    vote = trait_sides.T[in_scope.T]
    x = np.where(vote == 1, 1.0, np.where(vote == 2, -1.0, 0.0))
    term = length_term(difference[comparison], trait_of, n_traits)
    weight, y, side_x, t = padded(trait_of, n_traits,
                                  (sides[comparison] == 1).astype(float), x, term)
    beta, se = _identified(*fit_logistic(np.stack([weight, side_x, t], axis=-1), y, weight,
                                         firth=firth))
    n = weight.sum(axis=1)
    votes = (side_x != 0).sum(axis=1)
    differs = (side_x != 0) & (t != 0)  # t has the sign of the length difference
    with np.errstate(invalid="ignore", divide="ignore"):
        relevance = np.where(n > 0, votes / np.maximum(n, 1), np.nan)
        picks_longer = (side_x * t > 0).sum(axis=1) / differs.sum(axis=1)
    gamma, gamma_se = beta[:, 1], se[:, 1]
    return pd.DataFrame({
        "trait": fitted, "n": n.astype(np.int64), "valid_votes": votes.astype(np.int64),
        "relevance": relevance,
        "lc_strength": relevance * (2 * expit(gamma) - 1),
        "lc_low": relevance * (2 * expit(gamma - Z95 * gamma_se) - 1),
        "lc_high": relevance * (2 * expit(gamma + Z95 * gamma_se) - 1),
        "length_effect": beta[:, 2], "length_effect_low": beta[:, 2] - Z95 * se[:, 2],
        "length_effect_high": beta[:, 2] + Z95 * se[:, 2],
        "length_scale": length_scale(difference[comparison], trait_of, n_traits),
        "picks_longer": picks_longer})


def length_traits(strengths: pd.DataFrame) -> np.ndarray:
    """Per row of `controlled_strengths`: True for a trait that is length itself, whose
    A/B votes pick the longer answer, or the shorter, at least LENGTH_TRAIT_SHARE of the
    time."""
    share = strengths["picks_longer"].to_numpy(float)
    with np.errstate(invalid="ignore"):
        return (share >= LENGTH_TRAIT_SHARE) | (share <= 1 - LENGTH_TRAIT_SHARE)


@dataclass(frozen=True)
class OverallEffect:
    """How strongly the annotator follows length, in one line: the middle of several fits'
    length effects b (`overall_length_effect`)."""

    source: str  # "models": the win-rate fits; "traits": the trait fits
    median: float
    low: float  # the smallest of the fits' b
    high: float  # the largest
    used: pd.DataFrame  # the rows summarised
    left_out: pd.DataFrame  # rows with a fit but left out (extrapolated; length traits)
    scale: float  # the median length scale s of the fits summarised


def overall_length_effect(strengths: pd.DataFrame, wins: pd.DataFrame | None = None, *,
                          min_valid_votes: int = 10) -> OverallEffect | None:
    """The annotator's length effect as one number.  With win-rate fits (`wins`, rows of
    `controlled_win_rates`): the median b of the models' fits, those whose controlled
    rate is extrapolated left out, since those fits are what the controlled win rates
    come from.  Without (no models, as in HH-RLHF): the median b of the trait fits
    (`controlled_strengths` rows) with at least `min_valid_votes` A/B votes, the length
    traits left out (their fits split length between the trait and the length term).
    None when no fit qualifies."""
    if wins is not None and len(wins):
        fitted = wins[np.isfinite(wins["length_effect"].to_numpy(float))]
        out = fitted["extrapolated"].to_numpy(bool)
        source = "models"
    else:
        fitted = strengths[np.isfinite(strengths["length_effect"].to_numpy(float))
                           & (strengths["valid_votes"].to_numpy() >= min_valid_votes)]
        out = length_traits(fitted)
        source = "traits"
    used = fitted[~out]
    if used.empty:
        return None
    effects = used["length_effect"].to_numpy(float)
    return OverallEffect(source, float(np.median(effects)), float(effects.min()),
                         float(effects.max()), used, fitted[out],
                         float(np.median(used["length_scale"].to_numpy(float))))
