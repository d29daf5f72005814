"""Big Five scores from LMLPA ratings (docs/lmlpa.md): trait means, intervals, reliability.

The ratings are scores under the trait sets of ffsite.bfi: one 1-5 rating per (model,
item, rater, seed), and, for LMLPA's order-reversal check, a second rating of the same
answer made with the rater's options in reversed order.  Per model, rater and trait:

- score: the mean of the trait's item scores, a reverse-keyed item counted as 6 - score;
  an item rated in several seeds (repeated runs) counts once, as its mean over them;
- ci_low, ci_high: a 95% percentile interval from resampling the trait's items and the
  seeds with replacement (seeded; all models share the draws, as in from_scores);
- alpha: Cronbach's alpha of the trait's keyed items, across respondents: the models the
  rater rated, or, with one model, its seeds (repeated runs);
- order_kappa: Cohen's weighted kappa between the normal and the reversed-order ratings of
  the same answers (all the model's items, keyed: on the trait's scale), when the data
  has reversed-order ratings.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ffsite import bfi
from ffsite.errors import FfsiteError
from ffsite.format import Scores
from ffsite.format.scores import empty_scores
from ffsite.models import Registry

COLUMNS = ("model", "rater", "trait", "score", "ci_low", "ci_high", "n_items", "n_seeds",
           "alpha", "alpha_over", "alpha_respondents", "order_kappa", "order_pairs")
KAPPA_WEIGHTS = ("linear", "quadratic")
# Plain-words reading of Cronbach's alpha (the usual rule of thumb), lowest bound first
# that the value reaches.
ALPHA_READINGS = ((0.8, "good"), (0.7, "acceptable"), (0.6, "questionable"))
ALPHA_BELOW = "poor"


# ------------------------------------------------------------------ the statistics

def cronbach_alpha(matrix: np.ndarray) -> float:
    """Cronbach's alpha of a respondents x items matrix: k/(k-1) (1 - sum of the item
    variances / variance of the respondents' totals), sample variances.  Respondents
    missing an item are left out; NaN with fewer than 2 items, 2 respondents, or no
    spread in the totals."""
    matrix = np.asarray(matrix, float)
    matrix = matrix[~np.isnan(matrix).any(axis=1)]
    respondents, k = matrix.shape
    if k < 2 or respondents < 2:
        return float("nan")
    total_variance = matrix.sum(axis=1).var(ddof=1)
    if total_variance == 0:
        return float("nan")
    return float(k / (k - 1) * (1 - matrix.var(axis=0, ddof=1).sum() / total_variance))


def weighted_kappa(first: np.ndarray, second: np.ndarray, weights: str = "linear",
                   categories: tuple[int, ...] = tuple(range(bfi.SCALE[0], bfi.SCALE[1] + 1))
                   ) -> float:
    """Cohen's weighted kappa of two ratings of the same things on an ordered scale:
    1 - (weighted observed disagreement) / (weighted disagreement expected by chance),
    with disagreement weight |i - j| (linear) or (i - j)^2 (quadratic) over the scale's
    points.  NaN when chance already explains everything (one category throughout)."""
    if weights not in KAPPA_WEIGHTS:
        raise ValueError(f"weights must be one of {KAPPA_WEIGHTS}")
    points = np.asarray(categories)
    a = np.searchsorted(points, np.rint(first).astype(int))
    b = np.searchsorted(points, np.rint(second).astype(int))
    n = len(points)
    observed = np.bincount(a * n + b, minlength=n * n).reshape(n, n).astype(float)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / max(observed.sum(), 1)
    distance = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :]).astype(float)
    weight = distance if weights == "linear" else distance ** 2
    chance = (weight * expected).sum()
    if chance == 0:
        return float("nan")
    return float(1 - (weight * observed).sum() / chance)


def alpha_reading(alpha: float) -> str:
    """good (>= 0.8), acceptable (>= 0.7), questionable (>= 0.6), else poor; '' if unknown."""
    if alpha is None or not np.isfinite(alpha):
        return ""
    return next((word for bound, word in ALPHA_READINGS if alpha >= bound), ALPHA_BELOW)


# ------------------------------------------------------------------ the ratings

def select(scores: Scores, keep: np.ndarray) -> Scores:
    """The scores of the columns where `keep` (bool, per column) holds, with only the
    responses that still have a score."""
    kept_column = np.flatnonzero(keep)
    chosen = keep[scores.column]
    new_column = np.full(len(scores.columns), -1, np.int64)
    new_column[kept_column] = np.arange(len(kept_column))
    used_responses = np.unique(scores.response[chosen])
    new_response = np.full(len(scores.responses), -1, np.int64)
    new_response[used_responses] = np.arange(len(used_responses))
    return Scores(scores.responses.iloc[used_responses].reset_index(drop=True),
                  scores.columns.iloc[kept_column].reset_index(drop=True),
                  new_response[scores.response[chosen]], new_column[scores.column[chosen]],
                  scores.value[chosen], dict(scores.judges))


def split_lmlpa(scores: Scores) -> tuple[Scores, Scores]:
    """(every other score, LMLPA's ratings): the ratings are items of a questionnaire,
    not traits of their own, so pages of scored traits leave them to the Big Five page."""
    if not len(scores.columns):
        return scores, empty_scores()
    lmlpa = scores.columns["trait_set"].isin(bfi.TRAIT_SETS).to_numpy()
    if not lmlpa.any():
        return scores, empty_scores()
    return select(scores, ~lmlpa), select(scores, lmlpa)


RATING_COLUMNS = ("model", "rater", "item", "trait", "reverse_keyed", "dropped",
                  "reversed_order", "seed", "score")


def lmlpa_ratings(scores: Scores, registry: Registry | None = None) -> pd.DataFrame:
    """One row per LMLPA rating (RATING_COLUMNS): the model by registry id, the item's
    trait and key from the instrument, the seed (-1 when none) and the raw 1-5 score."""
    columns = scores.columns
    if not len(columns):
        return _no_ratings()
    in_set = columns["trait_set"].isin(bfi.TRAIT_SETS).to_numpy()
    parsed = [bfi.parse_trait_id(t) if keep else None
              for t, keep in zip(columns["trait_id"], in_set, strict=True)]
    for n in np.flatnonzero(in_set):
        trait_id, trait_set = columns["trait_id"].iat[n], columns["trait_set"].iat[n]
        if parsed[n] is None or parsed[n][1] != (trait_set == bfi.REVERSED_SET):
            raise FfsiteError(f"score column of trait '{trait_id}' in trait set "
                              f"'{trait_set}': an LMLPA rating needs trait id bfi-Q<1-44> "
                              f"in {bfi.TRAIT_SET}, bfi-Q<1-44>-reversed in "
                              f"{bfi.REVERSED_SET}")
        if (columns["scale_min"].iat[n], columns["scale_max"].iat[n]) != bfi.SCALE:
            raise FfsiteError(f"score column of trait '{trait_id}': LMLPA ratings are on the "
                              f"scale {bfi.SCALE[0]}-{bfi.SCALE[1]}, not "
                              f"{columns['scale_min'].iat[n]:g}-{columns['scale_max'].iat[n]:g}")
    chosen = in_set[scores.column]
    column = scores.column[chosen]
    response = scores.response[chosen]
    items = {i.id: i for i in bfi.instrument().items}
    item_of = np.array([p[0] if p else "" for p in parsed], object)
    responses = scores.responses
    frame = pd.DataFrame({
        "model": (registry or Registry()).ids(
            responses["dataset"].to_numpy(object)[response],
            responses["model"].to_numpy(object)[response]),
        "rater": columns["judge"].to_numpy(object)[column],
        "item": item_of[column],
        "reversed_order": np.array([bool(p and p[1]) for p in parsed])[column],
        "seed": columns["seed"].fillna(-1).to_numpy(np.int64)[column],
        "score": scores.value[chosen],
    })
    frame = frame[frame["model"].notna().to_numpy()].reset_index(drop=True)
    if frame.empty:
        return _no_ratings()
    frame.insert(3, "trait", frame["item"].map({k: i.trait for k, i in items.items()}))
    frame.insert(4, "reverse_keyed", frame["item"].map(
        {k: i.reverse_keyed for k, i in items.items()}).astype(bool))
    frame.insert(5, "dropped", frame["item"].map({k: i.dropped for k, i in items.items()})
                 .astype(bool))
    return frame[list(RATING_COLUMNS)]


def _no_ratings() -> pd.DataFrame:
    return pd.DataFrame({name: pd.Series(dtype=bool if name in (
        "reverse_keyed", "dropped", "reversed_order") else float if name == "score"
        else np.int64 if name == "seed" else object) for name in RATING_COLUMNS})


def keyed(frame: pd.DataFrame) -> np.ndarray:
    """Each rating as it counts towards its trait: 6 - score for reverse-keyed items."""
    score = frame["score"].to_numpy(float)
    return np.where(frame["reverse_keyed"].to_numpy(bool), bfi.KEY_FLIP - score, score)


# ------------------------------------------------------------------ the table

def big_five(scores: Scores, registry: Registry | None = None, *,
             include_dropped: bool = False, n_bootstrap: int = 1000, seed: int = 0,
             level: float = 0.95, kappa_weights: str = "linear") -> pd.DataFrame:
    """One row per (model, rater, Big Five trait) with normal-order ratings: COLUMNS,
    sorted by model, rater and trait (O, C, E, A, N)."""
    if kappa_weights not in KAPPA_WEIGHTS:
        raise FfsiteError(f"kappa weights '{kappa_weights}' unknown; use linear or quadratic")
    ratings = lmlpa_ratings(scores, registry)
    if not include_dropped:
        ratings = ratings[~ratings["dropped"].to_numpy()]
    normal = ratings[~ratings["reversed_order"].to_numpy()]
    # One keyed score per (rater, model, item, seed): two datasets' ratings of one answer
    # (a model under two spellings, say) are averaged rather than one silently kept.
    normal = normal.assign(keyed=keyed(normal)).groupby(
        ["rater", "model", "trait", "item", "seed"], as_index=False, sort=True)["keyed"].mean()
    kappas = _order_kappas(ratings, kappa_weights)
    rng = np.random.default_rng(seed)
    frames = []
    for rater, own in normal.groupby("rater", sort=True):
        models, model_code = _codes(own["model"])
        seeds, seed_code = _codes(own["seed"])
        for trait in bfi.TRAITS:
            part = own["trait"].to_numpy() == trait
            if not part.any():
                continue
            items, item_code = _codes(own["item"][part])
            grid = np.full((len(models), len(items), len(seeds)), np.nan)
            grid[model_code[part], item_code, seed_code[part]] = own["keyed"].to_numpy()[part]
            frames.append(_trait_rows(grid, models, rater, trait, rng, n_bootstrap, level))
    if not frames:
        return pd.DataFrame(columns=list(COLUMNS))
    table = pd.concat(frames, ignore_index=True)
    table = table.merge(kappas, on=["model", "rater"], how="left")
    table["order_pairs"] = table["order_pairs"].fillna(0).astype(np.int64)
    table["trait"] = table["trait"].map(bfi.instrument().trait_names)
    order = {bfi.instrument().trait_names[t]: n for n, t in enumerate(bfi.TRAITS)}
    table = table.assign(_order=table["trait"].map(order)).sort_values(
        ["model", "rater", "_order"], kind="stable").drop(columns="_order")
    return table[list(COLUMNS)].reset_index(drop=True)


def _codes(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    codes, uniques = pd.factorize(values, sort=True)
    return np.asarray(uniques), codes


def _trait_rows(grid: np.ndarray, models: np.ndarray, rater: str, trait: str,
                rng: np.random.Generator, n_bootstrap: int, level: float) -> pd.DataFrame:
    """grid: keyed scores [models, items, seeds], NaN where not rated."""
    present = ~np.isnan(grid)
    filled = np.where(present, grid, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        item_mean = filled.sum(axis=2) / present.sum(axis=2)  # [models, items]
    rated = ~np.isnan(item_mean)
    n_items = rated.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(rated, item_mean, 0).sum(axis=1) / n_items

    # Resample items and seeds with replacement; a draw's weight is how often it was drawn.
    n_models, k, n_seeds = grid.shape
    item_times = _times(rng, n_bootstrap, k)  # [resamples, items]
    seed_times = _times(rng, n_bootstrap, n_seeds)  # [resamples, seeds]
    sums = np.einsum("bs,mis->bmi", seed_times, filled)
    counts = np.einsum("bs,mis->bmi", seed_times, present.astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        drawn_item_mean = sums / counts
        valid = ~np.isnan(drawn_item_mean)
        resampled = (np.einsum("bi,bmi->bm", item_times, np.where(valid, drawn_item_mean, 0))
                     / np.einsum("bi,bmi->bm", item_times, valid.astype(float)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a model with one rating
        low, high = np.nanquantile(resampled, [(1 - level) / 2, (1 + level) / 2], axis=0)

    # Respondents: the models, or a lone model's runs; those missing an item drop out.
    matrix, over = (item_mean, "models") if n_models >= 2 else (grid[0].T, "seeds")
    alpha = cronbach_alpha(matrix)
    respondents = int((~np.isnan(matrix)).all(axis=1).sum())
    return pd.DataFrame({
        "model": models, "rater": rater, "trait": trait, "score": score, "ci_low": low,
        "ci_high": high, "n_items": n_items.astype(np.int64),
        "n_seeds": present.any(axis=1).sum(axis=1).astype(np.int64), "alpha": alpha,
        "alpha_over": over, "alpha_respondents": np.int64(respondents)})[n_items > 0]


def _times(rng: np.random.Generator, n_bootstrap: int, n: int) -> np.ndarray:
    draws = rng.integers(0, n, size=(n_bootstrap, n))
    return np.bincount((draws + n * np.arange(n_bootstrap)[:, None]).ravel(),
                       minlength=n_bootstrap * n).reshape(n_bootstrap, n).astype(float)


def _order_kappas(ratings: pd.DataFrame, weights: str) -> pd.DataFrame:
    """Per (model, rater): the weighted kappa between the normal and the reversed-order
    rating of each answer (model, item, seed) that has both, and how many there are.
    Both on the trait's scale (keyed), as the rater gave them: LMLPA's kappa compares
    the rater's own numbers, and keying only some items would change the marginals."""
    keys = ["model", "rater", "item", "seed"]
    ratings = ratings[[*keys, "reversed_order"]].assign(score=keyed(ratings))
    reversed_mask = ratings["reversed_order"].to_numpy()
    pairs = ratings[~reversed_mask].merge(ratings[reversed_mask], on=keys,
                                          suffixes=("", "_reversed"))
    rows = [(model, rater, weighted_kappa(part["score"].to_numpy(),
                                          part["score_reversed"].to_numpy(), weights),
             len(part))
            for (model, rater), part in pairs.groupby(["model", "rater"], sort=True)]
    return pd.DataFrame(rows, columns=["model", "rater", "order_kappa", "order_pairs"])
