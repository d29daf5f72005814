# long: the one results API every report reads; each of its sections is short
"""Every result ffsite reports, as numbers: what `ffsite metrics`, `ffsite ratings` and
the tables of `ffsite build` show (methods.md).

- Trait tables (Feedback Forensics): each trait against a reference annotation, with
  95% intervals, per group: per model against the reference model (Result B,
  `model_results`), per dataset against its preference annotator (Result A,
  `dataset_results`), a dataset split by metadata or by preference annotator
  (`dataset_details`), or any of these as `ffsite metrics` asks (`metrics_table`).
- Ratings (Bradley–Terry Elo per trait and model) and the indices built on them.
- Lineage (`lineage_results`): each model family's changes between successive releases.
- Win rates, model and dataset summaries, trait agreement.
- Communication traits (ffsite.metrics.communication): per model and measure, the mean
  over its responses with their number and a 95% interval.
- Length-controlled win rates and trait strengths (ffsite.metrics.length_control), with
  lengths from the response-metrics files (`response_lengths`).
- Datasets of judged pairs without a reference model (`pairwise_results`: EQ-Bench 3)
  and judge scores (`score_results`: means, strength from derived votes, shifts under
  pressure, ratings).

Tables are long DataFrames keyed by model, dataset and trait id.  The engines beside
this module compute them (strength: votes and counts; intervals; ratings; indices;
agreement); labels, page names and formatting belong to the site (ffsite/site/).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ffsite.errors import FfsiteError, ParameterError
from ffsite.format import schema
from ffsite.format.read import Annotations
from ffsite.format.scores import Scores, empty_scores
from ffsite.metrics import panel
from ffsite.metrics.agreement import trait_agreement
from ffsite.metrics.combine import combine
from ffsite.metrics.communication import communication_averages, communication_estimates
from ffsite.metrics.derived import derive_votes
from ffsite.metrics.from_scores import (
    bend_index,
    pressure_shifts,
    score_means,
    strength_from_scores,
)
from ffsite.metrics.indices import DEFAULT_INDICES, indices_table
from ffsite.metrics.intervals import metric_frame_with_intervals, wilson_interval
from ffsite.metrics.length_control import controlled_strengths, controlled_win_rates
from ffsite.metrics.lineage import Lineage, lineage_results
from ffsite.metrics.ranking import grouped_rank_ranges
from ffsite.metrics.ratings import RATING_COLUMNS, ratings_table
from ffsite.metrics.strength import (
    METRIC_COLUMNS,
    Reference,
    TraitVotes,
    default_preference_judge,
    group_by_column,
    max_diff,
    model_reference,
    preference_judges,
    preference_sides,
    sides_reference,
    trait_votes,
)
from ffsite.models import Registry

__all__ = [
    "DEFAULT_INDICES", "METRICS", "RATING_COLUMNS", "DatasetDetails", "Lineage",
    "ModelResults", "PairwiseResults", "Reference", "ScoreResults", "TraitVotes",
    "anchor_model", "communication_averages", "communication_estimates",
    "controlled_win_rate_table",
    "pairwise_results", "score_results",
    "dataset_details", "dataset_results", "dataset_summary", "default_preference_judge",
    "indices_table", "length_controlled_strengths", "length_controlled_win_rates",
    "lineage_results", "metrics_table", "model_dataset_counts", "model_results",
    "preference_codes", "ratings_table", "spread", "trait_agreement", "trait_results",
    "response_lengths", "trait_votes", "win_rates", "with_length_control",
]

# The metric columns of every trait table, in this order; <m>_low and <m>_high bound a
# 95% interval (ffsite.metrics.intervals).
METRICS = ("strength", "strength_low", "strength_high", "relevance", "relevance_low",
           "relevance_high", "cohens_kappa", "cohens_kappa_low", "cohens_kappa_high",
           "cohens_kappa_sklearn", "agreement", "num_votes", "valid_votes", "agreed",
           "disagreed", "not_applicable", "invalid")
# What `ffsite metrics` prints after the trait columns: every count and metric, the
# strength's 95% interval right after it.
METRICS_TABLE_COLUMNS = tuple(name for metric in METRIC_COLUMNS for name in (
    (metric, "ci_low", "ci_high") if metric == "strength" else (metric,)))
# Intervals are Monte Carlo: one seed everywhere, so a table's bounds never change.
INTERVAL_SEED = 0
# In datasets of judged pairs, a trait counts only where this metadata asked it at all.
SCOPE_COLUMN = schema.META_PREFIX + "scenario_type"
# A metadata column is a useful split when it has this many values (FF's tables have few).
MAX_SPLIT_VALUES = 30


# ---------------------------------------------------------------------- trait tables

def trait_results(votes: TraitVotes, reference: Reference, group: str,
                  min_valid_votes: int) -> pd.DataFrame:
    """Every FF metric with its 95% interval, per (group, trait): `group`, trait_id,
    METRICS, finding (enough valid votes to count as a finding)."""
    frame = metric_frame_with_intervals(votes, reference, group_name=group,
                                        min_valid_votes=min_valid_votes, seed=INTERVAL_SEED)
    columns = {group: frame[group].astype(object).to_numpy(),
               "trait_id": frame["trait_id"].to_numpy()}
    valid_votes = frame["agreed"].to_numpy() + frame["disagreed"].to_numpy()
    for name in METRICS:
        columns[name] = valid_votes if name == "valid_votes" else frame[name].to_numpy()
    # Cells with too few A/B votes are shown but not presented as findings.
    columns["finding"] = ~frame["too_few_votes"].to_numpy()
    return pd.DataFrame(columns)


def metrics_table(annotations: Annotations, *, against: str = "preference",
                  reference_models: Sequence[str] | None = None,
                  dataset: str | None = None, split_by: str | None = None,
                  rule: str = "majority", judges: Sequence[str] | None = None
                  ) -> pd.DataFrame:
    """What `ffsite metrics` prints: one row per trait (per split value when split), with
    METRICS_TABLE_COLUMNS; `ci_low`, `ci_high` are the strength's 95% interval, as the
    site computes it.

    `against` is "preference", "preference:JUDGE" or "model:NAME".
    """
    mask = _dataset_mask(annotations, dataset)
    votes = trait_votes(annotations, rule=rule, judges=judges)
    group_codes, groups = group_by_column(annotations, split_by, mask)
    if against == "preference" or against.startswith("preference:"):
        if reference_models:  # silently ignoring them would answer another question
            raise ParameterError("{reference_models} only applies with {against} model:NAME; "
                                 "drop it or compare with a model", "reference_models",
                                 "against")
        judge = against.partition(":")[2] or None
        reference = sides_reference(preference_sides(annotations, judge=judge, rule=rule),
                                    group_codes, groups)
    elif against.startswith("model:"):
        model = against.partition(":")[2]
        by_model = model_reference(annotations, targets=[model],
                                   reference_models=reference_models, mask=mask)
        keep = group_codes[by_model.comparison] >= 0
        reference = Reference(by_model.comparison[keep],
                              group_codes[by_model.comparison[keep]],
                              by_model.side[keep], groups)
    else:
        raise ParameterError(f"{{against}} {against}: use 'preference', 'preference:JUDGE' or "
                             "'model:NAME'", "against")
    frame = metric_frame_with_intervals(votes, reference, group_name="split",
                                        seed=INTERVAL_SEED)
    frame = frame.rename(columns={"strength_low": "ci_low", "strength_high": "ci_high"})
    keys = ["trait_id", "description", "judge"] if split_by is None else [
        "split", "trait_id", "description", "judge"]
    return frame[[*keys, *METRICS_TABLE_COLUMNS]]


LENGTH_COLUMNS = ("lc_strength", "lc_ci_low", "lc_ci_high", "length_effect",
                  "length_effect_low", "length_effect_high", "lc_n")


def with_length_control(table: pd.DataFrame, annotations: Annotations,
                        lengths: tuple[np.ndarray, np.ndarray], *, against: str = "preference",
                        dataset: str | None = None, rule: str = "majority",
                        judges: Sequence[str] | None = None) -> pd.DataFrame:
    """`metrics_table`'s rows (not split) with each trait's length-controlled strength
    (`length_controlled_strengths`, on the same comparisons and preference annotator):
    LENGTH_COLUMNS after them; NaN for a trait without lengths."""
    if not (against == "preference" or against.startswith("preference:")):
        raise ParameterError("{length_control} holds a preference annotator's length "
                             "preference at zero: use it with {against} preference or "
                             "preference:JUDGE", "length_control", "against")
    votes = trait_votes(annotations, rule=rule, judges=judges)
    found = length_controlled_strengths(annotations, votes, lengths, dataset=dataset,
                                        judge=against.partition(":")[2] or None)
    found = found.rename(columns={"lc_low": "lc_ci_low", "lc_high": "lc_ci_high",
                                  "n": "lc_n"}).set_index("trait_id")
    extra = found.reindex(table["trait_id"])[list(LENGTH_COLUMNS)].reset_index(drop=True)
    return pd.concat([table.reset_index(drop=True), extra], axis=1)


def spread(frame: pd.DataFrame) -> pd.Series:
    """Per trait, max - min strength across a table's groups (FF's "max diff")."""
    return max_diff(frame, "strength", "trait_id")


def with_max_diff(frame: pd.DataFrame) -> pd.DataFrame:
    """Add each trait's max diff and order traits by it (largest first), as FF does."""
    frame = frame.assign(max_diff=frame["trait_id"].map(spread(frame)).to_numpy())
    return frame.sort_values(["max_diff", "trait_id"], ascending=[False, True],
                             kind="stable").reset_index(drop=True)


def _dataset_mask(annotations: Annotations, dataset: str | None) -> np.ndarray | None:
    if dataset is None:
        return None
    if dataset not in annotations.datasets:
        raise FfsiteError(f"dataset '{dataset}' is not in the annotations; use one of the "
                          "known datasets: " + ", ".join(annotations.datasets))
    return (annotations.comparisons["dataset"] == dataset).to_numpy()


# ------------------------------------------------------------------ models (Result B)

@dataclass(frozen=True)
class ModelResults:
    """Every model compared with the reference model(s), trait by trait."""

    reference_model: str | None
    models: pd.DataFrame  # model, comparisons (with the reference), all_comparisons
    traits: pd.DataFrame  # long: model, trait_id, METRICS, finding
    reference: Reference  # the comparisons behind `traits` (for example pairs)


def model_results(annotations: Annotations, votes: TraitVotes, reference_model: str | None,
                  min_valid_votes: int) -> ModelResults:
    """Result B for every model against `reference_model` (all other models if None).

    Models come in name order, ignoring case; the reference has no row of its own.
    """
    if not annotations.models:
        empty = Reference(*(np.zeros(0, np.int64) for _ in range(3)), [])
        return ModelResults(reference_model, pd.DataFrame(
            columns=["model", "comparisons", "all_comparisons"]),
            trait_results(votes, empty, "model", 1), empty)
    reference = model_reference(annotations,
                                reference_models=[reference_model] if reference_model else None)
    with_reference = np.bincount(reference.group, minlength=len(reference.groups))
    comparisons = annotations.comparisons
    sides = pd.concat([comparisons["model_a"].astype(object),
                       comparisons["model_b"].astype(object)], ignore_index=True)
    appearances = sides.value_counts()
    table = pd.DataFrame({"model": reference.groups, "comparisons": with_reference})
    table = table[table["comparisons"] > 0]
    table = table.iloc[np.argsort(table["model"].str.lower().to_numpy(), kind="stable")]
    table = table.reset_index(drop=True)
    table["all_comparisons"] = table["model"].map(appearances).astype(np.int64).to_numpy()
    frame = trait_results(votes, reference, "model", min_valid_votes)
    frame = frame[frame["model"].isin(table["model"])].reset_index(drop=True)
    return ModelResults(reference_model, table, frame, reference)


def model_dataset_counts(annotations: Annotations, results: ModelResults) -> pd.DataFrame:
    """Per (model, dataset): comparisons with the reference."""
    reference = results.reference
    datasets = annotations.comparisons["dataset"].astype(object).to_numpy()
    frame = pd.DataFrame({"model": np.array(reference.groups, dtype=object)[reference.group],
                          "dataset": datasets[reference.comparison]})
    counts = frame.groupby(["model", "dataset"]).size().rename("comparisons").reset_index()
    return counts.sort_values(["model", "dataset"], kind="stable").reset_index(drop=True)


# --------------------------------------------------------------- datasets (Result A)

def dataset_summary(annotations: Annotations) -> pd.DataFrame:
    """One row per dataset: dataset, comparisons, models, preference_annotators
    (comma-separated), default_annotator."""
    comparisons = annotations.comparisons
    rows = []
    for dataset in annotations.datasets:
        subset = comparisons[(comparisons["dataset"] == dataset).to_numpy()]
        models = pd.concat([subset["model_a"].astype(object), subset["model_b"].astype(object)])
        rows.append({"dataset": dataset, "comparisons": len(subset),
                     "models": int(models.dropna().nunique()),
                     "preference_annotators": ", ".join(preference_judges(annotations,
                                                                          dataset)),
                     "default_annotator": default_preference_judge(annotations, dataset)})
    return pd.DataFrame(rows, columns=["dataset", "comparisons", "models",
                                       "preference_annotators", "default_annotator"])


def dataset_results(annotations: Annotations, votes: TraitVotes,
                    min_valid_votes: int) -> pd.DataFrame:
    """Result A per dataset against its default preference annotator (long): dataset,
    judge (that annotator), trait_id, METRICS, finding."""
    codes, groups = group_by_column(annotations, "dataset")
    sides = preference_sides(annotations)
    frame = trait_results(votes, sides_reference(sides, codes, groups), "dataset",
                          min_valid_votes)
    judges = {d: default_preference_judge(annotations, d) for d in annotations.datasets}
    frame.insert(1, "judge", frame["dataset"].map(judges).to_numpy())
    return frame


@dataclass(frozen=True)
class DatasetDetails:
    """One dataset's Result A split several ways, and its models' win rates."""

    dataset: str
    # metadata column -> long table by value (value, trait_id, METRICS, finding,
    # max_diff; empty when no comparison has a preference), traits by max diff
    splits: dict[str, pd.DataFrame]
    skipped: dict[str, str]  # metadata column -> why it is not split on
    annotators: pd.DataFrame | None  # by preference annotator, when it has several
    win_rates: pd.DataFrame | None  # against the reference model


def dataset_details(annotations: Annotations, votes: TraitVotes,
                    reference_model: str | None, min_valid_votes: int
                    ) -> dict[str, DatasetDetails]:
    """Per dataset (in order): its splits, annotator groups and win rates."""
    sides = preference_sides(annotations)
    details = {}
    for dataset in annotations.datasets:
        mask = _dataset_mask(annotations, dataset)
        useful, skipped = split_columns(annotations, dataset)
        splits = {}
        for column in useful:
            codes, groups = group_by_column(annotations, column, mask)
            splits[column] = with_max_diff(trait_results(
                votes, sides_reference(sides, codes, groups), "value", min_valid_votes))
        details[dataset] = DatasetDetails(
            dataset, splits, skipped,
            annotator_results(annotations, votes, dataset, min_valid_votes),
            win_rates(annotations, dataset, reference_model))
    return details


def split_columns(annotations: Annotations, dataset: str) -> tuple[list[str], dict[str, str]]:
    """The metadata columns worth splitting `dataset` by, and why the others are not."""
    mask = _dataset_mask(annotations, dataset)
    useful, skipped = [], {}
    for column in annotations.meta_columns:
        values = annotations.comparisons[column].astype(object)[mask]
        n_values = values.fillna("(none)").astype(str).nunique()
        if values.isna().all():
            continue  # another dataset's column
        if n_values < 2:
            skipped[column] = "one value"
        elif n_values > MAX_SPLIT_VALUES:
            skipped[column] = f"{n_values} values (more than {MAX_SPLIT_VALUES})"
        else:
            useful.append(column)
    return useful, skipped


def annotator_results(annotations: Annotations, votes: TraitVotes, dataset: str,
                      min_valid_votes: int) -> pd.DataFrame | None:
    """Result A of `dataset` once per preference annotator, when it has several."""
    judges = preference_judges(annotations, dataset)
    if len(judges) < 2:
        return None
    codes = np.where(_dataset_mask(annotations, dataset), 0, -1).astype(np.int64)
    frames = [trait_results(votes, sides_reference(preference_sides(annotations, judge=judge),
                                                   codes, [judge]),
                            "annotator", min_valid_votes) for judge in judges]
    return with_max_diff(pd.concat(frames, ignore_index=True))


# --------------------------------------------------------------------- win rates

def preference_codes(annotations: Annotations, judge: str, rule: str = "majority"
                     ) -> np.ndarray:
    """Per comparison, `judge`'s combined preference vote code (0 = no vote)."""
    annotators = annotations.annotators
    votes = annotations.votes
    wanted = ((annotators["role"] == schema.ROLE_PREFERENCE)
              & (annotators["judge"] == judge)).to_numpy()
    keep = wanted[votes["annotator"].to_numpy()]
    keys, codes = combine(votes["comparison"].to_numpy()[keep].astype(np.int64),
                          votes["vote"].to_numpy()[keep], rule)
    result = np.zeros(len(annotations.comparisons), dtype=np.int8)
    result[keys] = codes
    return result


def win_rates(annotations: Annotations, dataset: str, reference_model: str | None
              ) -> pd.DataFrame | None:
    """Each model's win rate (%) against the reference by the dataset's preference
    annotator, a tie counting half a win (AlpacaEval's discrete win rate), with Wilson's
    95% interval (wins + ties / 2 of the decided comparisons): model, win_rate,
    win_rate_low, win_rate_high, wins, ties, losses, best first."""
    found = _reference_outcomes(annotations, dataset, reference_model)
    if found is None:
        return None
    frame = pd.DataFrame({"model": found.model, "wins": found.outcome == 1,
                          "ties": found.outcome == 0.5, "losses": found.outcome == 0})
    counts = frame.groupby("model", sort=True)[["wins", "ties", "losses"]].sum()
    decided = counts.sum(axis=1)
    counts = counts[decided > 0]
    won, decided = counts["wins"] + 0.5 * counts["ties"], counts.sum(axis=1)
    low, high = wilson_interval(won.to_numpy(), decided.to_numpy())
    table = pd.DataFrame({"model": counts.index.to_numpy(),
                          "win_rate": (100 * won / decided).to_numpy(),
                          "win_rate_low": 100 * low, "win_rate_high": 100 * high,
                          **{name: counts[name].to_numpy() for name in counts.columns}})
    return table.sort_values(["win_rate", "model"], ascending=[False, True],
                             kind="stable").reset_index(drop=True)


@dataclass(frozen=True)
class _Outcomes:
    rows: np.ndarray  # comparisons of a model with the reference
    model: np.ndarray  # the other model
    outcome: np.ndarray  # 1 it won, 0.5 a tie, 0 it lost, NaN no verdict
    model_is_a: np.ndarray


def _reference_outcomes(annotations: Annotations, dataset: str,
                        reference_model: str | None) -> _Outcomes | None:
    """Every comparison of `dataset` between the reference and another model, with the
    default preference annotator's verdict for the other model; None without any."""
    judge = default_preference_judge(annotations, dataset)
    if judge is None or reference_model is None:
        return None
    comparisons = annotations.comparisons
    model_a = comparisons["model_a"].astype(object).to_numpy()
    model_b = comparisons["model_b"].astype(object).to_numpy()
    in_dataset = _dataset_mask(annotations, dataset)
    ref_a = (model_a == reference_model) & pd.notna(model_b) & (model_b != reference_model)
    ref_b = (model_b == reference_model) & pd.notna(model_a) & (model_a != reference_model)
    rows = np.flatnonzero(in_dataset & (ref_a | ref_b))
    if len(rows) == 0:
        return None
    codes = preference_codes(annotations, judge)[rows]
    model_side = np.where(ref_a[rows], schema.B, schema.A)
    outcome = np.select([codes == model_side, codes == schema.TIE, codes == 3 - model_side],
                        [1.0, 0.5, 0.0], np.nan)
    return _Outcomes(rows, np.where(ref_a[rows], model_b[rows], model_a[rows]), outcome,
                     ~ref_a[rows])


# ------------------------------------------------------------ length-controlled

def response_lengths(annotations: Annotations, metrics: pd.DataFrame,
                     measure: str = "characters") -> tuple[np.ndarray, np.ndarray]:
    """Per comparison, the `measure` (a response-metrics column: characters, words) of
    its A and of its B answer; NaN where the metrics files do not have it."""
    comparisons = annotations.comparisons
    if measure not in metrics.columns:
        nothing = np.full(len(comparisons), np.nan)
        return nothing, nothing.copy()
    keys = metrics["dataset"].astype(str) + "\x00" + metrics["response_id"].astype(str)
    values = pd.Series(metrics[measure].to_numpy(float), index=keys.to_numpy())
    values = values[~values.index.duplicated()]
    dataset = comparisons["dataset"].astype(object).fillna("").astype(str) + "\x00"

    def side(column: str) -> np.ndarray:
        wanted = dataset + comparisons[column].astype(object).fillna("").astype(str)
        at = values.index.get_indexer(wanted.to_numpy())
        return np.where(at >= 0, values.to_numpy()[np.maximum(at, 0)], np.nan)
    return side("response_a_id"), side("response_b_id")


def length_controlled_win_rates(annotations: Annotations, dataset: str,
                                reference_model: str | None,
                                lengths: tuple[np.ndarray, np.ndarray]) -> pd.DataFrame | None:
    """Each model's win rate against the reference with the length difference held at
    zero (ffsite.metrics.length_control): the raw `win_rates` columns (win_rate,
    win_rate_low, win_rate_high), then n (comparisons with both lengths), lc_win_rate,
    lc_low, lc_high, length_effect and its bounds; None without a reference or a
    preference annotator, or without lengths."""
    found = _reference_outcomes(annotations, dataset, reference_model)
    raw = win_rates(annotations, dataset, reference_model)
    if found is None or raw is None:
        return None
    length_a, length_b = (side[found.rows] for side in lengths)
    difference = np.where(found.model_is_a, length_a - length_b, length_b - length_a)
    if np.isnan(difference).all():
        return None
    controlled = controlled_win_rates(found.model, found.outcome, difference)
    return raw[["model", "win_rate", "win_rate_low", "win_rate_high"]].merge(
        controlled, on="model", how="inner")


def controlled_win_rate_table(annotations: Annotations, anchor: str, metrics: pd.DataFrame,
                              measure: str = "characters") -> pd.DataFrame:
    """What `ffsite ratings --win-rates` prints: per dataset (with a preference annotator
    and lengths) and model, `length_controlled_win_rates` against `anchor`, best raw
    win rate first: dataset, model, win_rate, win_rate_low, win_rate_high, n,
    lc_win_rate, lc_low, lc_high, length_effect, length_effect_low, length_effect_high."""
    lengths = response_lengths(annotations, metrics, measure)
    frames = []
    for dataset in annotations.datasets:
        found = length_controlled_win_rates(annotations, dataset, anchor, lengths)
        if found is not None and len(found):
            frames.append(found.assign(dataset=dataset))
    if not frames:
        return pd.DataFrame()
    table = pd.concat(frames, ignore_index=True)
    return table[["dataset", *[c for c in table.columns if c != "dataset"]]]


def length_controlled_strengths(annotations: Annotations, votes: TraitVotes,
                                lengths: tuple[np.ndarray, np.ndarray],
                                dataset: str | None = None, judge: str | None = None
                                ) -> pd.DataFrame:
    """Per trait, its strength against the preference annotator (each dataset's default,
    or `judge`) with the length difference held at zero (ffsite.metrics.length_control),
    on `dataset`'s comparisons (every dataset's when None): trait_id, judge (the trait
    vote's), n, relevance, lc_strength, lc_low, lc_high, length_effect and its bounds.
    Traits with no comparison in scope and with both lengths get no row."""
    sides = preference_sides(annotations, judge=judge)
    rows = np.flatnonzero(sides > 0) if dataset is None else np.flatnonzero(
        (sides > 0) & _dataset_mask(annotations, dataset))
    codes = votes.matrix[rows]
    in_scope = votes.in_scope[votes.dataset_code[rows]]
    trait_sides = np.where(in_scope, np.where((codes == schema.A) | (codes == schema.B),
                                              codes, 0), -1)
    difference = lengths[0][rows] - lengths[1][rows]
    table = controlled_strengths(sides[rows], trait_sides, difference)
    table.insert(0, "trait_id", votes.traits["trait_id"].to_numpy()[table["trait"]])
    table.insert(1, "judge", votes.traits["judge"].to_numpy()[table["trait"]])
    return table[table["n"] > 0].drop(columns="trait").reset_index(drop=True)


# ------------------------------------------------ datasets judged without a reference

def anchor_model(annotations: Annotations, preferred: str | None = None) -> str | None:
    """The model a dataset's ratings are anchored on: `preferred` when the dataset has
    it, else the model it compares most often (ties: the first by name)."""
    models = annotations.models
    if not models:
        return None
    if preferred in models:
        return preferred
    comparisons = annotations.comparisons
    sides = pd.concat([comparisons["model_a"].astype(object),
                       comparisons["model_b"].astype(object)], ignore_index=True).dropna()
    counts = sides.value_counts()
    most = counts[counts == counts.max()].index
    return sorted(most)[0]


@dataclass(frozen=True)
class PairwiseResults:
    """A dataset of judged pairs between models and no reference model (EQ-Bench 3):
    each model against all the others it met, and Bradley-Terry ratings."""

    dataset: str
    anchor: str | None  # Elo 1000 on every trait
    models: ModelResults  # reference_model None: against all others
    ratings: pd.DataFrame  # RATING_COLUMNS
    # Per trait: (rated models, their bootstrap Elo [resamples, models]), which pair
    # two models' ratings for the interval of their difference.
    refits: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)


def pairwise_results(annotations: Annotations, dataset: str, *, min_valid_votes: int,
                     preferred_anchor: str | None = None, n_bootstrap: int = 1000,
                     seed: int = 0, scope_column: str = SCOPE_COLUMN) -> PairwiseResults:
    """Result B against all other models, and the ratings, on one dataset's votes.

    When the comparisons carry `scope_column` (EQ-Bench 3's scenario type), a trait
    counts only on the comparisons of the values where it was asked at all: a criterion
    that only analysis scenarios ask is not "not relevant" on every role-play pair (which
    would shrink its strength by the share of role-play pairs, and make one model's
    criteria impossible to compare with each other).
    """
    own = annotations.where((annotations.comparisons["dataset"] == dataset).to_numpy())
    votes = trait_votes(own)
    anchor = anchor_model(own, preferred_anchor)
    refits: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    ratings = ratings_table(own, anchor=anchor, seed=seed, n_bootstrap=n_bootstrap,
                            refits=refits) if (
        anchor is not None) else pd.DataFrame(columns=list(RATING_COLUMNS))
    models = model_results(own, votes, None, min_valid_votes)
    if scope_column in own.comparisons.columns:
        models = replace(models, traits=_scoped_traits(own, votes, models.traits,
                                                       scope_column, min_valid_votes))
    return PairwiseResults(dataset, anchor, models, ratings, refits)


def _scoped_traits(annotations: Annotations, votes: TraitVotes, traits: pd.DataFrame,
                   column: str, min_valid_votes: int) -> pd.DataFrame:
    """`traits` (model_results rows), each trait measured on the comparisons whose
    `column` value asked it: traits asked by the same values are measured together."""
    values = annotations.comparisons[column].astype(object).fillna("").to_numpy()
    kinds = sorted(set(values))
    asked = {trait_id: frozenset(values[votes.matrix[:, number] != 0])
             for number, trait_id in enumerate(votes.traits["trait_id"])}
    everywhere = [trait_id for trait_id, scope in asked.items() if scope == set(kinds)]
    parts = [traits[traits["trait_id"].isin(everywhere)]]
    for scope in sorted({a for a in asked.values() if a != set(kinds)}, key=sorted):
        within = annotations.where(np.isin(values, list(scope)))
        found = model_results(within, trait_votes(within), None, min_valid_votes).traits
        ids = [t for t, a in asked.items() if a == scope]
        parts.append(found[found["trait_id"].isin(ids)])
    frame = pd.concat(parts, ignore_index=True)
    return frame.sort_values(["model", "trait_id"], kind="stable").reset_index(drop=True)


# --------------------------------------------------------------------- judge scores

@dataclass(frozen=True)
class ScoreResults:
    """What judge scores say about the models (ffsite.metrics.from_scores): per dataset,
    condition, model, trait and judge, the mean score and the strength against all
    other models (from derived votes), the shift from baseline and how much each model
    bends; Bradley-Terry ratings from the baseline's derived votes.  Every interval
    resamples prompts (scenarios for shifts): the ratings' too, each resampled prompt
    bringing all its comparisons.

    A dataset with a declared panel (its judges' mean, `judges.panel_scores`) has its
    tables under the panel's name and each member's means in `judge_means`."""

    means: pd.DataFrame  # from_scores.MEAN_COLUMNS
    strengths: pd.DataFrame  # from_scores.STRENGTH_COLUMNS
    shifts: pd.DataFrame  # from_scores.SHIFT_COLUMNS
    bend: pd.DataFrame  # from_scores.BEND_COLUMNS
    ratings: pd.DataFrame  # RATING_COLUMNS plus dataset, on derived votes
    traits: pd.DataFrame  # Scores.traits(): trait_id, trait, trait_set, scale, judge
    judges: dict[str, str]
    judge_means: pd.DataFrame  # MEAN_COLUMNS of the members of declared panels


# Fewer prompts than this give no ratings: Bradley-Terry on votes derived from two answer
# sets would rank on noise, and a bootstrap over so few prompts says little about it.
MIN_RATING_PROMPTS = 5


def score_results(scores: Scores, registry: Registry | None = None, *,
                  baseline: str = "baseline", preferred_anchor: str | None = None,
                  n_bootstrap: int = 1000, seed: int = 0, members: Scores | None = None,
                  floors: Mapping[str, float] | None = None,
                  units: Mapping[str, str] | None = None) -> ScoreResults:
    """Every table of `ScoreResults`, seeded.  `scores` with declared panels pooled and
    `members` their judges' own scores (`judges.pool_panels`), when there are panels;
    `floors`: each dataset's rubric floor, for the means' `below_rubric_floor`; `units`:
    the column of each dataset whose values are a model's repeated answers, whose means
    get `ffsite.metrics.panel`'s intervals."""
    options = {"n_bootstrap": n_bootstrap, "seed": seed}
    ratings = []
    derived_all = derive_votes(scores, registry, condition=baseline)
    prompts = scores.responses.groupby("dataset")["prompt_id"].nunique()
    # No votes are derived where a dataset's "prompts" are a model's repeated answers to
    # one task (`units`: llm-dreams' answer sets, poem-eval's poems): one model's answer
    # set 0 has nothing to do with another's, so pairing them makes no comparison (and a
    # bootstrap over two of them gave intervals of next to no width).
    repeated = set(units or ())
    for dataset in sorted(scores.responses["dataset"].unique()):
        if prompts.get(dataset, 0) < MIN_RATING_PROMPTS or dataset in repeated:
            continue
        derived = derived_all.where((derived_all.comparisons["dataset"] == dataset).to_numpy())
        anchor = anchor_model(derived, preferred_anchor)
        if anchor is not None:
            # The comparisons of one prompt share its responses (one response meets every
            # other model's): the bootstrap resamples prompts, as the means' does, not
            # the comparisons, which gave intervals several times too narrow.  Judged
            # votes (pairwise_results) still resample their judgments.
            ratings.append(ratings_table(derived, anchor=anchor, clusters="prompt_id",
                                         **options).assign(dataset=dataset))
    members = members if members is not None else empty_scores()
    means = score_means(scores, registry, floors=floors, **options)
    judge_means = score_means(members, registry, floors=floors, **options)
    present = set(scores.responses["dataset"])
    for dataset, unit in sorted((units or {}).items()):
        if dataset not in present:
            continue
        means, judge_means = unit_intervals(means, judge_means, scores, members, dataset,
                                            unit, registry or Registry())
    strengths = strength_from_scores(scores, registry, **options)
    return ScoreResults(
        means=means,
        strengths=strengths[~strengths["dataset"].isin(repeated).to_numpy()].reset_index(
            drop=True),
        shifts=pressure_shifts(scores, registry, baseline=baseline, floors=floors, **options),
        bend=bend_index(scores, registry, baseline=baseline, **options),
        ratings=pd.concat(ratings, ignore_index=True) if ratings else pd.DataFrame(
            columns=[*RATING_COLUMNS, "dataset"]),
        traits=scores.traits() if len(scores) else pd.DataFrame(
            columns=["trait_id", "trait", "trait_set", "scale_min", "scale_max", "judge"]),
        judges=dict(scores.judges),
        judge_means=judge_means)


def unit_intervals(means: pd.DataFrame, judge_means: pd.DataFrame, scores: Scores,
                   members: Scores, dataset: str, unit: str, registry: Registry
                   ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`means` and `judge_means` with `dataset`'s intervals from ffsite.metrics.panel: the
    moderated t over the model's repeated answers (`unit`) instead of a bootstrap over
    two or five prompts; a panel's rows get `panel_means`', each judge's `judge_means`'."""
    scales = scores.columns.drop_duplicates("trait_id").set_index("trait_id")

    def replaced(frame: pd.DataFrame, found: pd.DataFrame) -> pd.DataFrame:
        # A t-interval may pass the scale's ends, which no mean can: clipped to them.
        lowest = scales["scale_min"].reindex(found["trait_id"]).to_numpy(float)
        highest = scales["scale_max"].reindex(found["trait_id"]).to_numpy(float)
        found = found.assign(model=registry.ids([dataset] * len(found), found["model"]),
                             ci_low=np.maximum(found["ci_low"].to_numpy(float), lowest),
                             ci_high=np.minimum(found["ci_high"].to_numpy(float), highest))
        keys = ["model", "trait_id", "judge"]
        index = pd.MultiIndex.from_frame(found[keys].astype(object))
        own = (frame["dataset"] == dataset).to_numpy()
        at = index.get_indexer(pd.MultiIndex.from_frame(frame.loc[own, keys].astype(object)))
        frame = frame.copy()
        for column in ("ci_low", "ci_high", "n"):  # n: a panel's mean has its members' n
            values = frame[column].to_numpy().copy()
            values[np.flatnonzero(own)[at >= 0]] = found[column].to_numpy()[at[at >= 0]]
            frame[column] = values
        # The ranks follow the new intervals: the models' answers are their own, so
        # their means are drawn independently from those intervals.
        ranks = grouped_rank_ranges(frame[own], ["condition", "trait_id", "judge"], "mean")
        for column in ranks.columns:
            values = frame[column].to_numpy().copy()
            values[own] = ranks[column].to_numpy()
            frame[column] = values
        return frame

    in_members = (members.responses["dataset"] == dataset).to_numpy()[members.response]
    if in_members.any():  # a panel: its members' scores give both kinds of interval
        data = panel.dense(members, dataset, unit=unit)
        panel_name = means.loc[means["dataset"] == dataset, "judge"].iloc[0]
        means = replaced(means, panel.panel_means(data).assign(judge=panel_name))
        return means, replaced(judge_means, panel.judge_means(data))
    data = panel.dense(scores, dataset, unit=unit)
    return replaced(means, panel.judge_means(data)), judge_means
