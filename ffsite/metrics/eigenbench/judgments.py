"""EigenBench's input: judgments (judge i, evaluees j and k, outcome), read from votes
whose judge is one of the compared models, after the both-orders rule; and their counts
per judge, pair and outcome, the only thing the fit reads."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import sparse

from ffsite.errors import FfsiteError
from ffsite.format import schema
from ffsite.metrics.eigenbench.btd import FIRST, OUTCOMES, SECOND, TIE

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


@dataclass(frozen=True, eq=False)
class Derived:
    """Judgments a dataset derives from data that are not pairwise votes (a record's
    `peer_judgments` hook: llm-dreams' judges scoring each other's answers), fitted and
    shown like a constitution's.  `name` is the constitution's name (pages, `ffsite
    eigenbench fit --constitution`), `label` how pages name it, `criterion` the trait's
    wording as the judges were asked it, `derivation` how the judgments were made, in
    sentences a page shows."""

    name: str
    label: str
    dataset: str
    trait_id: str
    criterion: str
    judgments: Judgments
    derivation: str


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


# ---------------------------------------------------------------- counts

def _cells(judgments: Judgments) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per judgment: judge, the lower and higher evaluee and the outcome seen from the
    lower (a pair stored as (k, j) turned round, its outcome with it)."""
    first, second, outcome = judgments.first, judgments.second, judgments.outcome
    swap = first > second
    low, high = np.where(swap, second, first), np.where(swap, first, second)
    turned = np.where(swap & (outcome != TIE), 1 - outcome, outcome)
    return judgments.judge.astype(np.int64), low.astype(np.int64), high.astype(np.int64), turned


def count_tensor(judgments: Judgments, weights: np.ndarray | None = None) -> np.ndarray:
    """counts[i, j, k, r]: (weighted) judgments of judge i on evaluees j < k with outcome r
    seen from j."""
    n = judgments.n_models
    judge, low, high, turned = _cells(judgments)
    flat = ((judge * n + low) * n + high) * OUTCOMES + turned
    counts = np.bincount(flat, weights=weights, minlength=n * n * n * OUTCOMES)
    return counts.reshape(n, n, n, OUTCOMES)


def resampled_counts(judgments: Judgments, draws: np.ndarray) -> np.ndarray:
    """Pair counts (B x judges x pairs j < k x outcomes, as `btd.pair_counts` lays them
    out) of B resamples at once: `draws[b, c]` is how often resample b draws comparison
    c, which brings all its judgments."""
    n = judgments.n_models
    pairs = n * (n - 1) // 2
    judge, low, high, turned = _cells(judgments)
    pair = low * n - low * (low + 1) // 2 + (high - low - 1)  # np.triu_indices order
    cell = (judge * pairs + pair) * OUTCOMES + turned
    by_comparison = sparse.csr_matrix(
        (np.ones(len(cell)), (judgments.comparison, cell)),
        shape=(judgments.n_comparisons, n * pairs * OUTCOMES))
    counts = by_comparison.T @ np.asarray(draws, dtype=np.float64).T  # cells x B
    return np.ascontiguousarray(counts.T).reshape(len(draws), n, pairs, OUTCOMES)
