"""The Feedback Forensics metrics (methods.md §1), counted with numpy.

A table compares every trait's votes with a reference annotation — the preference
annotator (Result A) or a target model's identity (Result B) — over groups of
comparisons (a dataset, a metadata value, a target model).  Everything reduces to one
count array: for each (group, trait), how many comparisons had each (trait vote,
reference side) combination.  All metrics are arithmetic on those counts, written in the
same order of operations as the published feedback-forensics package so the two agree
to the last bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ffsite.errors import FfsiteError, ParameterError
from ffsite.format import schema
from ffsite.format.read import Annotations
from ffsite.metrics.combine import combine

N_CODES = 7  # vote codes 0 (no vote) .. 6 (missing)
SIDE_A, SIDE_B = 1, 2

METRIC_COLUMNS = ("num_votes", "agreed", "disagreed", "not_applicable", "invalid",
                  "relevance", "cohens_kappa", "cohens_kappa_sklearn", "strength",
                  "agreement")


@dataclass(frozen=True)
class TraitVotes:
    """One combined vote per (comparison, trait), as a dense matrix of vote codes.

    `in_scope[d, t]` says whether trait t was annotated at all in dataset d; comparisons
    of datasets where a trait was never annotated do not count for that trait.
    """

    traits: pd.DataFrame  # trait_id, trait, trait_set, judge (one row per column)
    matrix: np.ndarray  # [comparisons, traits] int8 vote codes, 0 = no vote
    dataset_code: np.ndarray  # [comparisons] index into `datasets`
    datasets: list[str]
    in_scope: np.ndarray  # [datasets, traits] bool


@dataclass(frozen=True)
class Reference:
    """Which side the reference annotation picks, as rows (comparison, group, side)."""

    comparison: np.ndarray
    group: np.ndarray
    side: np.ndarray
    groups: list[str]


def trait_votes(annotations: Annotations, *, rule: str = "majority",
                judges: Sequence[str] | None = None) -> TraitVotes:
    """Combine repeated trait votes (several judges or seeds) into one per comparison."""
    annotators = annotations.annotators
    is_trait = (annotators["role"] == schema.ROLE_TRAIT).to_numpy()
    if judges:
        _check_judges(annotators, schema.ROLE_TRAIT, judges)
        is_trait = is_trait & annotators["judge"].isin(list(judges)).to_numpy()
    traits = annotations.traits()
    if judges:
        kept = annotators[is_trait]["trait_id"].unique()
        traits = traits[traits["trait_id"].isin(kept)].reset_index(drop=True)
        used = annotators[is_trait]
        judge_names = used.groupby("trait_id")["judge"].agg(lambda j: "+".join(sorted(set(j))))
        traits["judge"] = traits["trait_id"].map(judge_names)
    n_comparisons, n_traits = len(annotations.comparisons), len(traits)
    key_type = np.int32 if n_comparisons * max(n_traits, 1) < 2**31 else np.int64
    trait_index = pd.Series(np.arange(len(traits)), index=traits["trait_id"])
    annotator_trait = np.full(len(annotators), -1, dtype=key_type)
    annotator_trait[is_trait] = trait_index.reindex(
        annotators.loc[is_trait, "trait_id"]).to_numpy()

    votes = annotations.votes
    matrix = _grid_matrix(votes, n_comparisons, annotator_trait, n_traits)
    if matrix is None:
        vote_trait = annotator_trait[votes["annotator"].to_numpy()]
        keep = vote_trait >= 0
        keys = votes["comparison"].to_numpy()[keep].astype(key_type, copy=False)  # a copy
        keys *= n_traits
        keys += vote_trait[keep]
        del vote_trait
        keys, codes = combine(keys, votes["vote"].to_numpy()[keep], rule)
        matrix = np.zeros((n_comparisons, n_traits), dtype=np.int8)
        matrix.reshape(-1)[keys] = codes
        del keys, codes

    dataset_code, datasets = pd.factorize(annotations.comparisons["dataset"], sort=True)
    in_scope = np.zeros((len(datasets), n_traits), dtype=bool)
    for d in range(len(datasets)):
        in_scope[d] = (matrix[dataset_code == d] != 0).any(axis=0)
    return TraitVotes(traits=traits, matrix=matrix, dataset_code=dataset_code.astype(np.int32),
                      datasets=list(datasets), in_scope=in_scope)


def _grid_matrix(votes: pd.DataFrame, n_comparisons: int, annotator_trait: np.ndarray,
                 n_traits: int) -> np.ndarray | None:
    """The trait matrix straight from the votes, when every comparison has the same
    annotators in the same order and each trait one vote (the usual file): no keys, no
    combining, no scatter.  None when the votes do not have that shape."""
    if n_comparisons == 0 or len(votes) % n_comparisons:
        return None
    width = len(votes) // n_comparisons
    annotator = votes["annotator"].to_numpy().reshape(n_comparisons, width)
    trait_of = annotator_trait[annotator[0]]
    columns = np.flatnonzero(trait_of >= 0)
    if len(columns) != n_traits or len(np.unique(trait_of[columns])) != n_traits:
        return None  # a trait with several judges or seeds, or one some comparisons lack
    if not (annotator == annotator[0]).all():
        return None
    comparison = votes["comparison"].to_numpy().reshape(n_comparisons, width)
    if not (comparison == np.arange(n_comparisons)[:, None]).all():
        return None
    columns = columns[np.argsort(trait_of[columns])]
    # np.take keeps rows contiguous, like the general path's matrix: callers gather
    # whole comparisons.
    return np.take(votes["vote"].to_numpy().reshape(n_comparisons, width), columns, axis=1)


# ------------------------------------------------------------------------ references

def default_preference_judge(annotations: Annotations, dataset: str) -> str | None:
    """The preference annotator a dataset's pages compare with (None if it has none)."""
    judges = preference_judges(annotations, dataset)
    if not judges:
        return None
    chosen = annotations.default_preference.get(dataset)
    return chosen if chosen in judges else judges[0]


def preference_judges(annotations: Annotations, dataset: str) -> list[str]:
    """Every preference annotator with votes in `dataset`, sorted."""
    votes = annotations.preference_votes
    in_dataset = (annotations.comparisons["dataset"] == dataset).to_numpy()
    used = votes["annotator"].to_numpy()[in_dataset[votes["comparison"].to_numpy()]]
    return sorted(annotations.annotators["judge"].iloc[np.unique(used)].unique())


def preference_sides(annotations: Annotations, *, judge: str | None = None,
                     rule: str = "majority") -> np.ndarray:
    """Per comparison, the side (1 = A, 2 = B, 0 = none) its preference annotator chose.

    Without `judge`, each dataset uses its default preference annotator.
    """
    comparisons = annotations.comparisons
    annotators = annotations.annotators
    dataset_code, datasets = pd.factorize(comparisons["dataset"], sort=True)
    # wanted[d, a]: annotator a is the preference judge pages use for dataset d.
    wanted = np.zeros((len(datasets), len(annotators)), dtype=bool)
    is_pref = (annotators["role"] == schema.ROLE_PREFERENCE).to_numpy()
    if judge:
        _check_judges(annotators, schema.ROLE_PREFERENCE, [judge])
    for d, dataset in enumerate(datasets):
        chosen = judge or default_preference_judge(annotations, dataset)
        wanted[d] = is_pref & (annotators["judge"] == chosen).to_numpy()
    votes = annotations.preference_votes
    comparison = votes["comparison"].to_numpy()
    keep = wanted[dataset_code[comparison], votes["annotator"].to_numpy()]
    keys, codes = combine(comparison[keep].astype(np.int64), votes["vote"].to_numpy()[keep],
                          rule)
    sides = np.zeros(len(comparisons), dtype=np.int8)
    decided = (codes == schema.A) | (codes == schema.B)
    sides[keys[decided]] = codes[decided]
    return sides


def _check_judges(annotators: pd.DataFrame, role: str, judges: Sequence[str]) -> None:
    """An unknown judge would give an empty table that looks like an answer: refuse it."""
    known = sorted(set(annotators.loc[annotators["role"] == role, "judge"]))
    unknown = [j for j in judges if j not in known]
    if unknown:
        raise FfsiteError(f"no {role} judge '{unknown[0]}' in the annotations; known "
                          f"{role} judges: " + (", ".join(known) or "none"))


def preference_reference(annotations: Annotations, group_codes: np.ndarray,
                         groups: list[str], **kwargs) -> Reference:
    """Reference rows for Result A: each comparison's preferred side, in its group."""
    return sides_reference(preference_sides(annotations, **kwargs), group_codes, groups)


def sides_reference(sides: np.ndarray, group_codes: np.ndarray, groups: list[str]
                    ) -> Reference:
    """Reference rows from per-comparison preferred sides (0 = none) and group codes
    (-1 = left out)."""
    rows = np.flatnonzero((sides > 0) & (group_codes >= 0))
    return Reference(rows.astype(np.int64), group_codes[rows].astype(np.int64),
                     sides[rows].astype(np.int64), groups)


def model_reference(annotations: Annotations, *, targets: Sequence[str] | None = None,
                    reference_models: Sequence[str] | None = None,
                    mask: np.ndarray | None = None) -> Reference:
    """Reference rows for Result B, one group per target model.

    A comparison votes for target M when exactly one side is M and the other side is a
    reference model (any other model when `reference_models` is empty).  Same model on
    both sides, or a side without a model: no vote — as in feedback-forensics.
    """
    comparisons = annotations.comparisons
    model_a = comparisons["model_a"].astype(object).to_numpy()
    model_b = comparisons["model_b"].astype(object).to_numpy()
    all_models = annotations.models
    targets = list(targets) if targets else all_models
    unknown = [m for m in [*targets, *(reference_models or [])] if m not in all_models]
    if unknown:
        raise FfsiteError(f"model '{unknown[0]}' is not in the annotations; use one of the "
                          "known models: " + ", ".join(all_models[:12])
                          + (" ..." if len(all_models) > 12 else ""))
    references = set(reference_models) if reference_models else set(all_models)
    valid = ~(pd.isna(model_a) | pd.isna(model_b)) & (model_a != model_b)
    if mask is not None:
        valid &= mask
    code_a, a_is_ref = _model_codes(comparisons["model_a"], targets, references)
    code_b, b_is_ref = _model_codes(comparisons["model_b"], targets, references)
    rows_a = np.flatnonzero(valid & (code_a >= 0) & b_is_ref)
    rows_b = np.flatnonzero(valid & (code_b >= 0) & a_is_ref)
    comparison = np.concatenate([rows_a, rows_b])
    group = np.concatenate([code_a[rows_a], code_b[rows_b]])
    side = np.concatenate([np.full(len(rows_a), SIDE_A), np.full(len(rows_b), SIDE_B)])
    return Reference(comparison, group, side, targets)


def _model_codes(models: pd.Series, targets: list[str], references: set[str]
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Per comparison: the side's target number (-1 if none) and whether it is a reference.

    Worked out once per distinct model name, then spread by the categorical codes.
    """
    categorical = models.astype("category")
    names = list(categorical.cat.categories)
    target_index = {m: i for i, m in enumerate(targets)}
    per_name = np.array([target_index.get(m, -1) for m in names] + [-1], dtype=np.int64)
    is_ref = np.array([m in references for m in names] + [False], dtype=bool)
    codes = categorical.cat.codes.to_numpy()  # -1 (missing) picks the appended entry
    return per_name[codes], is_ref[codes]


# ------------------------------------------------------------------------- counting

def count_outcomes(trait_votes: TraitVotes, reference: Reference) -> np.ndarray:
    """counts[group, trait, vote code, side - 1] over the reference rows."""
    n_groups, n_traits = len(reference.groups), trait_votes.matrix.shape[1]
    counts = np.zeros((n_groups, n_traits, N_CODES, 2), dtype=np.int64)
    if len(reference.comparison) == 0 or n_traits == 0:
        return counts
    datasets = trait_votes.dataset_code[reference.comparison]
    base = ((reference.group * N_CODES) * 2 + (reference.side - 1)).astype(np.intp)
    rows = trait_votes.matrix[reference.comparison]  # one gather for all traits
    all_in_scope = trait_votes.in_scope[np.unique(datasets)].all(axis=0)
    key = np.empty(len(base), dtype=np.intp)  # reused: no fresh memory per trait
    for trait in range(n_traits):
        np.multiply(rows[:, trait], 2, out=key, dtype=np.intp, casting="unsafe")
        key += base
        counted = key if all_in_scope[trait] else key[trait_votes.in_scope[datasets, trait]]
        counts[:, trait] = np.bincount(counted, minlength=n_groups * N_CODES * 2).reshape(
            n_groups, N_CODES, 2)
    return counts


def asked(counts: np.ndarray) -> np.ndarray:
    """Per (group, trait) of `counts`: whether any comparison of the group has a vote on
    the trait.  A group never asked a trait (a contributor's judge voted on other models'
    comparisons only) gets no row: its comparisons are not "not applicable" votes."""
    return counts[..., 1:, :].sum(axis=(-1, -2)) > 0


def metrics_from_counts(counts: np.ndarray) -> dict[str, np.ndarray]:
    """Every FF metric from counts[..., vote code, side]; shapes follow counts[..., 0, 0]."""
    counts = np.asarray(counts, dtype=np.int64)  # (no copy when it is already)
    a_a, a_b = counts[..., schema.A, 0], counts[..., schema.A, 1]
    b_a, b_b = counts[..., schema.B, 0], counts[..., schema.B, 1]
    num_votes = counts.sum(axis=(-1, -2))
    agreed = a_a + b_b
    disagreed = a_b + b_a
    invalid = counts[..., schema.INVALID, :].sum(axis=-1)
    not_applicable = num_votes - agreed - disagreed - invalid
    valid = agreed + disagreed
    with np.errstate(divide="ignore", invalid="ignore"):
        accuracy = np.where(valid > 0, agreed / np.where(valid > 0, valid, 1), 0.5)
        agreement = np.where(valid > 0, accuracy, np.nan)
        relevance = np.where(num_votes > 0, valid / np.where(num_votes > 0, num_votes, 1),
                             np.nan)
        cohens_kappa = 2 * (accuracy - 0.5)
        strength = cohens_kappa * relevance
        # scikit-learn's cohen_kappa_score on the A/B votes (rows: trait, cols: reference),
        # with its own undefined cases: no A/B trait vote -> error -> 0 in FF; a single
        # shared label -> NaN.
        ref_a, ref_b = (a_a + b_a).astype(float), (a_b + b_b).astype(float)
        trait_a, trait_b = (a_a + a_b).astype(float), (b_a + b_b).astype(float)
        total = ref_a + ref_b
        expected = ref_a * trait_b / total + ref_b * trait_a / total
        observed = a_b.astype(float) + b_a.astype(float)
        sklearn_kappa = np.where(valid == 0, 0.0,
                                 np.where(expected == 0, np.nan, 1 - observed / expected))
    return {
        "num_votes": num_votes, "agreed": agreed, "disagreed": disagreed,
        "not_applicable": not_applicable, "invalid": invalid, "relevance": relevance,
        "cohens_kappa": cohens_kappa, "cohens_kappa_sklearn": sklearn_kappa,
        "strength": strength, "agreement": agreement,
    }


def metric_frame(trait_votes: TraitVotes, reference: Reference, *,
                 group_name: str = "group", drop_empty: bool = True,
                 counts: np.ndarray | None = None) -> pd.DataFrame:
    """Long table: one row per (group, trait) with every metric column.

    `counts`, when the caller already has them, is count_outcomes(trait_votes, reference).
    """
    if counts is None:
        counts = count_outcomes(trait_votes, reference)
    metrics = metrics_from_counts(counts)
    n_groups, n_traits = counts.shape[:2]
    frame = pd.DataFrame({
        group_name: np.repeat(np.array(reference.groups, dtype=object), n_traits),
        "trait_id": np.tile(trait_votes.traits["trait_id"].to_numpy(), n_groups),
        "description": np.tile(trait_votes.traits["trait"].to_numpy(), n_groups),
        "judge": np.tile(trait_votes.traits["judge"].to_numpy(), n_groups),
        **{name: values.reshape(-1) for name, values in metrics.items()},
    })
    if drop_empty:
        frame = frame[asked(counts).reshape(-1)]
    return frame.reset_index(drop=True)


def max_diff(frame: pd.DataFrame, column: str = "strength", by: str = "trait_id") -> pd.Series:
    """Per trait, max - min of `column` across the table's columns (groups)."""
    grouped = frame.groupby(by, sort=False)[column]
    return (grouped.max() - grouped.min()).rename("max_diff")


# ------------------------------------------------------------------------- grouping

def group_by_column(annotations: Annotations, column: str | None,
                    mask: np.ndarray | None = None) -> tuple[np.ndarray, list[str]]:
    """Group code per comparison for a split column ('dataset' or a metadata column).

    Missing metadata values form their own group "(none)".  Comparisons outside `mask`
    get -1.  Without a column everything is one group "all".
    """
    comparisons = annotations.comparisons
    n = len(comparisons)
    if column is None:
        codes, groups = np.zeros(n, dtype=np.int64), ["all"]
    else:
        name = resolve_split_column(annotations, column)
        values = comparisons[name].astype(object).where(comparisons[name].notna(), "(none)")
        codes, uniques = pd.factorize(values.astype(str), sort=True)
        codes, groups = codes.astype(np.int64), list(uniques)
    if mask is not None:
        codes = np.where(mask, codes, -1)
    return codes, groups


def resolve_split_column(annotations: Annotations, column: str) -> str:
    comparisons = annotations.comparisons
    for name in (column, schema.META_PREFIX + column):
        if name in comparisons.columns:
            return name
    available = ["dataset", *[c[len(schema.META_PREFIX):] for c in annotations.meta_columns]]
    raise ParameterError(f"{{split_by}} {column}: no such column; available: "
                         + ", ".join(available), "split_by")
