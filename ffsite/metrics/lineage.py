"""How a model family's traits change from one release to the next.

A family is a line of releases in the registry (`Model.family`, content/models.toml).
Its releases are put in order by release date; an undated release with a predecessor
comes right after it (its predecessor's date, one step later), and an undated release
without one is not placed.  Ties of date go by the length of the predecessor chain, then
by id.

The numbers are estimates with 95% intervals, each keyed by (dataset, judge, trait):
judge-score means, Elo ratings.  Two releases are *successive* for a key when both have
an estimate for it and no release of the family placed between them has one: the change
is always between two numbers of one dataset, one judge (or declared panel) and one
trait, never across judges.

The change's 95% interval is either
- **paired** (`paired` rows): the same bootstrap resamples behind both releases'
  numbers, the interval being the percentiles of the resampled difference: of prompts
  behind two means (`from_scores.paired_mean_differences`), for datasets whose models
  answered the same prompts, or of the refits behind two Elo ratings of one
  Bradley-Terry fit (`refit_differences`), whose difference does not depend on the
  anchor; or
- **independent** (otherwise): the MOVER interval of Zou & Donner (2008) for a
  difference of two independent estimates, from their own intervals:
      L = d - sqrt((v2 - l2)^2 + (u1 - v1)^2),  U = d + sqrt((u2 - v2)^2 + (v1 - l1)^2)
  with d = v2 - v1 (later minus earlier), (l, u) the 95% bounds.  With symmetric
  intervals this is d +- 1.96 sqrt(se1^2 + se2^2).  When the two estimates are positively
  correlated (shared prompts, a shared Elo anchor) it is wider than needed.

A change is **real** when its 95% interval excludes 0.  Each interval is for one change
on its own, not simultaneous: among many changes that are truly zero, about one in 20
would still be marked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ffsite.format import Scores
from ffsite.metrics.from_scores import paired_mean_differences
from ffsite.metrics.resampling import nan_quantiles
from ffsite.models import Model, Registry

KEY = ["dataset", "judge", "trait_id"]
ESTIMATE_COLUMNS = (*KEY, "model", "value", "ci_low", "ci_high")
ORDER_COLUMNS = ("family", "model", "position", "released", "predecessor")
PAIR_COLUMNS = ("family", *KEY, "earlier", "later")
CHANGE_COLUMNS = (*PAIR_COLUMNS, "earlier_value", "later_value", "change", "ci_low",
                  "ci_high", "method", "real")
PAIRED, INDEPENDENT = "paired bootstrap", "independent (MOVER)"


def release_order(registry: Registry) -> pd.DataFrame:
    """One row per model with a family: family, model, position (0, 1, ... within the
    family; NaN when it cannot be placed), released (None if unknown), predecessor."""
    rows = []
    for family, members in registry.families().items():
        by_id = {m.id: m for m in members}
        keyed = [(_placed(by_id, m.id), _depth(by_id, m.id), m.id) for m in members]
        ordered = sorted((k for k in keyed if k[0] is not None),
                         key=lambda k: (k[0][0], k[0][1], k[1], k[2]))
        position = {model_id: number for number, (_, _, model_id) in enumerate(ordered)}
        for model in members:
            rows.append((family, model.id, position.get(model.id, np.nan), model.released,
                         model.predecessor))
    return pd.DataFrame(rows, columns=list(ORDER_COLUMNS))


def _placed(by_id: Mapping[str, Model], model_id: str) -> tuple[str, int] | None:
    """(date, steps after it): the model's release date, or its nearest dated
    predecessor's in the family and how many steps back that is; None without either."""
    steps, current = 0, by_id[model_id]
    while not current.released:
        if current.predecessor not in by_id or steps >= len(by_id):
            return None
        steps, current = steps + 1, by_id[current.predecessor]
    return current.released, steps


def _depth(by_id: Mapping[str, Model], model_id: str) -> int:
    """How many predecessors in the family the model has, one after the other."""
    steps, current = 0, by_id[model_id].predecessor
    while current in by_id and steps < len(by_id):
        steps, current = steps + 1, by_id[current].predecessor
    return steps


def successive_pairs(estimates: pd.DataFrame, order: pd.DataFrame) -> pd.DataFrame:
    """Every two successive releases of a family for each key (dataset, judge, trait)
    both have an estimate for: PAIR_COLUMNS, in family, key and release order."""
    placed = order[order["position"].notna()]
    frame = estimates[list(ESTIMATE_COLUMNS)].merge(placed[["family", "model", "position"]],
                                                     on="model")
    frame = frame.sort_values(["family", *KEY, "position", "model"], kind="stable")
    group = ["family", *KEY]
    later = frame.groupby(group, sort=False)["model"].shift(-1)
    keep = later.notna().to_numpy()
    pairs = frame.loc[keep, group].assign(earlier=frame["model"].to_numpy()[keep],
                                          later=later.to_numpy()[keep])
    return pairs[list(PAIR_COLUMNS)].reset_index(drop=True)


def mover_interval(v1: np.ndarray, l1: np.ndarray, u1: np.ndarray, v2: np.ndarray,
                   l2: np.ndarray, u2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """95% bounds of v2 - v1 for independent estimates with 95% intervals (l1, u1) and
    (l2, u2): the MOVER interval (Zou & Donner 2008), vectorised."""
    difference = v2 - v1
    low = difference - np.sqrt((v2 - l2) ** 2 + (u1 - v1) ** 2)
    high = difference + np.sqrt((u2 - v2) ** 2 + (v1 - l1) ** 2)
    return low, high


def release_changes(estimates: pd.DataFrame, pairs: pd.DataFrame,
                    paired: pd.DataFrame | None = None) -> pd.DataFrame:
    """The change (later minus earlier) of every pair of `pairs` with its 95% interval
    and whether it is real (the interval excludes 0): CHANGE_COLUMNS.  `paired`: rows
    (dataset, judge, trait_id, earlier, later, ci_low, ci_high) of paired intervals,
    which replace the independent ones where given."""
    values = estimates.set_index([*KEY, "model"])[["value", "ci_low", "ci_high"]]

    def side(column: str) -> pd.DataFrame:
        index = pd.MultiIndex.from_frame(pairs[[*KEY, column]].rename(
            columns={column: "model"}))
        return values.reindex(index)

    first, second = side("earlier"), side("later")
    v1, l1, u1 = (first[c].to_numpy(float) for c in ("value", "ci_low", "ci_high"))
    v2, l2, u2 = (second[c].to_numpy(float) for c in ("value", "ci_low", "ci_high"))
    low, high = mover_interval(v1, l1, u1, v2, l2, u2)
    method = np.full(len(pairs), INDEPENDENT, dtype=object)
    if paired is not None and len(paired) and len(pairs):
        keys = [*KEY, "earlier", "later"]
        found = paired.set_index(keys)[["ci_low", "ci_high"]].reindex(
            pd.MultiIndex.from_frame(pairs[keys]))
        given = found["ci_low"].notna().to_numpy()
        low = np.where(given, found["ci_low"].to_numpy(float), low)
        high = np.where(given, found["ci_high"].to_numpy(float), high)
        method[given] = PAIRED
    change = v2 - v1
    frame = pairs.assign(earlier_value=v1, later_value=v2, change=change, ci_low=low,
                         ci_high=high, method=method, real=(low > 0) | (high < 0))
    return frame[list(CHANGE_COLUMNS)].reset_index(drop=True)


def refit_differences(pairs: pd.DataFrame,
                      refits: Mapping[str, Mapping[str, tuple[np.ndarray, np.ndarray]]],
                      level: float = 0.95) -> pd.DataFrame:
    """Paired intervals (dataset, judge, trait_id, earlier, later, ci_low, ci_high) of the
    `pairs` whose two releases are rated in one fit: `refits[dataset][trait]` = (the
    rated models, their bootstrap Elo [refits, models]); the percentiles of the refits'
    differences, later minus earlier."""
    frames = []
    for (dataset, trait), own in pairs.groupby(["dataset", "trait_id"], sort=True):
        found = refits.get(dataset, {}).get(trait)
        if found is None:
            continue
        rated, drawn = found
        column = pd.Index(list(rated))
        earlier = column.get_indexer(own["earlier"])
        later = column.get_indexer(own["later"])
        keep = (earlier >= 0) & (later >= 0)
        if not keep.any():
            continue
        difference = (np.asarray(drawn, float)[:, later[keep]]
                      - np.asarray(drawn, float)[:, earlier[keep]])
        low, high = nan_quantiles(difference, [(1 - level) / 2, (1 + level) / 2], axis=0)
        frames.append(own[keep][[*KEY, "earlier", "later"]].assign(ci_low=low, ci_high=high))
    columns = [*KEY, "earlier", "later", "ci_low", "ci_high"]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)


def largest_changes(changes: pd.DataFrame, per_key: int = 3) -> pd.DataFrame:
    """The real changes largest in size, `per_key` per (dataset, judge): sizes are
    compared only within one dataset and judge, whose numbers share a scale."""
    real = changes[changes["real"].astype(bool)]
    real = real.assign(size=real["change"].abs()).sort_values(
        ["dataset", "judge", "size", "family", "trait_id"],
        ascending=[True, True, False, True, True], kind="stable")
    return real.groupby(["dataset", "judge"], sort=False).head(per_key).drop(
        columns="size").reset_index(drop=True)


@dataclass(frozen=True)
class Lineage:
    """Every family's releases and their changes (see the module's docstring)."""

    order: pd.DataFrame  # ORDER_COLUMNS
    estimates: pd.DataFrame  # ESTIMATE_COLUMNS plus condition and kind ("mean" or "Elo")
    changes: pd.DataFrame  # CHANGE_COLUMNS


def lineage_results(means: pd.DataFrame, ratings: Mapping[str, pd.DataFrame],
                    trait_judges: Mapping[str, str], registry: Registry, *,
                    scores: Scores | None = None, paired_datasets: Iterable[str] = (),
                    refits: Mapping[str, Mapping[str, tuple[np.ndarray, np.ndarray]]]
                    | None = None, baseline: str = "baseline", n_bootstrap: int = 1000,
                    seed: int = 0) -> Lineage:
    """The lineage of every family from judge-score means (`from_scores.MEAN_COLUMNS`:
    the `baseline` condition of a dataset that has one, else its only one) and Elo
    ratings (per dataset, RATING_COLUMNS; each trait's judge from `trait_judges`).
    Changes of `paired_datasets` (whose models answered the same prompts, with means
    bootstrapped over them) get paired intervals from `scores`, the scores behind
    `means`, with the same `n_bootstrap` and `seed`; the Elo changes of a dataset in
    `refits` (per trait, its ratings' bootstrap refits) get them from the refits."""
    has_baseline = set(means.loc[means["condition"] == baseline, "dataset"])
    chosen = means[np.where(means["dataset"].isin(has_baseline),
                            means["condition"] == baseline, means["condition"] == "")]
    frames = [pd.DataFrame({
        **{c: chosen[c].to_numpy(object) for c in ("dataset", "judge", "trait_id", "model",
                                                   "condition")},
        "value": chosen["mean"].to_numpy(float), "ci_low": chosen["ci_low"].to_numpy(float),
        "ci_high": chosen["ci_high"].to_numpy(float), "kind": "mean"})]
    for dataset, table in sorted(ratings.items()):
        frames.append(pd.DataFrame({
            "dataset": dataset,
            "judge": table["trait_id"].map(trait_judges).to_numpy(object),
            "trait_id": table["trait_id"].to_numpy(object),
            "model": table["model"].to_numpy(object), "condition": "",
            "value": table["elo"].to_numpy(float), "ci_low": table["ci_low"].to_numpy(float),
            "ci_high": table["ci_high"].to_numpy(float), "kind": "Elo"}))
    estimates = pd.concat(frames, ignore_index=True).dropna(subset=["value", "judge"])
    order = release_order(registry)
    pairs = successive_pairs(estimates, order)
    paired = None
    wanted = pairs[pairs["dataset"].isin(set(paired_datasets))]
    if scores is not None and len(wanted):
        conditions = estimates.drop_duplicates("dataset").set_index("dataset")["condition"]
        paired = paired_mean_differences(
            scores, registry, wanted.assign(condition=wanted["dataset"].map(conditions)),
            n_bootstrap=n_bootstrap, seed=seed)
    if refits:
        rated = refit_differences(pairs[pairs["dataset"].isin(set(refits))], refits)
        paired = rated if paired is None else pd.concat([paired, rated], ignore_index=True)
    return Lineage(order, estimates, release_changes(estimates, pairs, paired))
