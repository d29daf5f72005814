"""Every number the site shows, computed with the metrics engine (methods.md §1).

Each function returns a plain DataFrame in the long form the site publishes under
`data/` (docs/site-data.md); pages pivot them for display.  Nothing here knows HTML.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ffsite._names import safe_name
from ffsite.errors import FfsiteError
from ffsite.format import schema
from ffsite.format.read import Annotations
from ffsite.metrics.combine import combine
from ffsite.metrics.intervals import metric_frame_with_intervals
from ffsite.metrics.strength import (
    Reference,
    TraitVotes,
    default_preference_judge,
    group_by_column,
    max_diff,
    model_reference,
    preference_judges,
    preference_sides,
)
from ffsite.traits import AA30_NAMES, short_wording

# The metric columns every published FF table carries, in this order; <m>_low and
# <m>_high bound a 95% interval (ffsite.metrics.intervals).
METRICS = ("strength", "strength_low", "strength_high", "relevance", "relevance_low",
           "relevance_high", "cohens_kappa", "cohens_kappa_low", "cohens_kappa_high",
           "cohens_kappa_sklearn", "agreement", "num_votes", "valid_votes", "agreed",
           "disagreed", "not_applicable", "invalid")
# A metadata column is a useful split when it has this many values (FF's tables have few).
MAX_SPLIT_VALUES = 30


def trait_table(votes: TraitVotes) -> pd.DataFrame:
    """One row per trait: trait_id, label (what pages show), trait (full wording),
    trait_set, judge, slug (its page name)."""
    traits = votes.traits
    labels = [AA30_NAMES.get(tid) or short_wording(wording)
              for tid, wording in zip(traits["trait_id"], traits["trait"], strict=True)]
    table = pd.DataFrame({
        "trait_id": traits["trait_id"].to_numpy(),
        "label": labels,
        "trait": traits["trait"].to_numpy(),
        "trait_set": traits["trait_set"].to_numpy(),
        "judge": traits["judge"].to_numpy(),
    })
    table["slug"] = unique_slugs(table["trait_id"], "trait id")
    return table


def unique_slugs(names: pd.Series, what: str) -> list[str]:
    """`safe_name` of each name; stop if two names would share a page."""
    slugs = [safe_name(str(name)) for name in names]
    folded = pd.Series([slug.lower() for slug in slugs])
    if folded.duplicated().any():
        clash = names.iloc[int(np.argmax(folded.duplicated().to_numpy()))]
        raise FfsiteError(f"{what} '{clash}' gives the same page name as another {what} "
                          "(names differing only in case or punctuation); rename one")
    return slugs


def measure(votes: TraitVotes, reference: Reference, group: str, traits: pd.DataFrame,
            min_valid_votes: int) -> pd.DataFrame:
    """Every FF metric with its 95% interval, per (group, trait), as published."""
    frame = metric_frame_with_intervals(votes, reference, group_name=group,
                                        min_valid_votes=min_valid_votes, seed=0)
    return tidy(frame, group, traits, min_valid_votes)


def tidy(frame: pd.DataFrame, group: str, traits: pd.DataFrame,
         min_valid_votes: int) -> pd.DataFrame:
    """A metric frame as published: group, trait_id, trait label, METRICS, finding."""
    labels = traits.set_index("trait_id")["label"]
    out = pd.DataFrame({group: frame[group].astype(object).to_numpy(),
                        "trait_id": frame["trait_id"].to_numpy()})
    out["trait"] = out["trait_id"].map(labels).to_numpy()
    frame = frame.assign(valid_votes=frame["agreed"] + frame["disagreed"])
    for name in METRICS:
        out[name] = frame[name].to_numpy()
    # Cells with too few A/B votes are shown but not presented as findings.
    out["finding"] = out["valid_votes"].to_numpy() >= min_valid_votes
    return out


# ------------------------------------------------------------------ models (Result B)

@dataclass(frozen=True)
class ModelResults:
    """Every model compared with the reference model(s), trait by trait."""

    reference_model: str | None
    models: pd.DataFrame  # model, slug, comparisons (with the reference), all_comparisons
    traits: pd.DataFrame  # long: model, trait_id, trait, METRICS, finding
    reference: Reference  # the comparisons behind `traits` (for example pairs)


def model_results(annotations: Annotations, votes: TraitVotes, traits: pd.DataFrame,
                  reference_model: str | None, min_valid_votes: int,
                  config_file: str = "site.toml") -> ModelResults:
    """Result B for every model against `reference_model` (all other models if None)."""
    models = annotations.models
    if reference_model is not None and models and reference_model not in models:
        raise FfsiteError(f"{config_file}: reference_model '{reference_model}' is not in the "
                          "annotations; set it to one of: " + ", ".join(models[:10])
                          + (" ..." if len(models) > 10 else ""))
    if not models:
        empty = Reference(*(np.zeros(0, np.int64) for _ in range(3)), [])
        return ModelResults(reference_model, pd.DataFrame(
            columns=["model", "slug", "comparisons", "all_comparisons"]),
            measure(votes, empty, "model", traits, 1), empty)
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
    table = table.reset_index(drop=True)  # rows in name order, ignoring case
    table["all_comparisons"] = table["model"].map(appearances).astype(np.int64).to_numpy()
    table.insert(1, "slug", unique_slugs(table["model"], "model"))
    frame = measure(votes, reference, "model", traits, min_valid_votes)
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


def spread(frame: pd.DataFrame) -> pd.Series:
    """Per trait, max - min strength across the table's groups (FF's "max diff")."""
    return max_diff(frame, "strength", "trait_id")


# --------------------------------------------------------------- datasets (Result A)

def dataset_results(annotations: Annotations, votes: TraitVotes, traits: pd.DataFrame,
                    min_valid_votes: int) -> pd.DataFrame:
    """Result A per dataset against its default preference annotator (long)."""
    codes, groups = group_by_column(annotations, "dataset")
    sides = preference_sides(annotations)
    frame = measure(votes, reference_from_sides(sides, codes, groups), "dataset", traits,
                    min_valid_votes)
    judges = {d: default_preference_judge(annotations, d) for d in annotations.datasets}
    frame.insert(1, "judge", frame["dataset"].map(judges).to_numpy())
    return frame


def reference_from_sides(sides: np.ndarray, codes: np.ndarray, groups: list[str]
                         ) -> Reference:
    """Reference rows from per-comparison preferred sides and group codes (-1 = left out)."""
    rows = np.flatnonzero((sides > 0) & (codes >= 0))
    return Reference(rows.astype(np.int64), codes[rows].astype(np.int64),
                     sides[rows].astype(np.int64), groups)


def dataset_mask(annotations: Annotations, dataset: str) -> np.ndarray:
    return (annotations.comparisons["dataset"] == dataset).to_numpy()


def split_columns(annotations: Annotations, dataset: str) -> tuple[list[str], dict[str, str]]:
    """The metadata columns worth splitting `dataset` by, and why the others are not."""
    mask = dataset_mask(annotations, dataset)
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


def split_results(annotations: Annotations, votes: TraitVotes, traits: pd.DataFrame,
                  dataset: str, column: str, sides: np.ndarray,
                  min_valid_votes: int) -> pd.DataFrame:
    """Result A of `dataset` split by a metadata column (long, with the trait's max_diff)."""
    codes, groups = group_by_column(annotations, column, dataset_mask(annotations, dataset))
    frame = measure(votes, reference_from_sides(sides, codes, groups), "value", traits,
                    min_valid_votes)
    return with_max_diff(frame)


def annotator_results(annotations: Annotations, votes: TraitVotes, traits: pd.DataFrame,
                      dataset: str, min_valid_votes: int) -> pd.DataFrame | None:
    """Result A of `dataset` once per preference annotator, when it has several."""
    judges = preference_judges(annotations, dataset)
    if len(judges) < 2:
        return None
    mask = dataset_mask(annotations, dataset)
    codes = np.where(mask, 0, -1).astype(np.int64)
    frames = []
    for judge in judges:
        sides = preference_sides(annotations, judge=judge)
        frames.append(measure(votes, reference_from_sides(sides, codes, [judge]),
                              "annotator", traits, min_valid_votes))
    return with_max_diff(pd.concat(frames, ignore_index=True))


def with_max_diff(frame: pd.DataFrame) -> pd.DataFrame:
    """Add each trait's max diff and order traits by it (largest first), as FF does."""
    frame = frame.assign(max_diff=frame["trait_id"].map(spread(frame)).to_numpy())
    return frame.sort_values(["max_diff", "trait_id"], ascending=[False, True],
                             kind="stable").reset_index(drop=True)


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
    annotator, a tie counting half a win (AlpacaEval's discrete win rate)."""
    judge = default_preference_judge(annotations, dataset)
    if judge is None or reference_model is None:
        return None
    comparisons = annotations.comparisons
    model_a = comparisons["model_a"].astype(object).to_numpy()
    model_b = comparisons["model_b"].astype(object).to_numpy()
    in_dataset = dataset_mask(annotations, dataset)
    ref_a = (model_a == reference_model) & pd.notna(model_b) & (model_b != reference_model)
    ref_b = (model_b == reference_model) & pd.notna(model_a) & (model_a != reference_model)
    rows = np.flatnonzero(in_dataset & (ref_a | ref_b))
    if len(rows) == 0:
        return None
    codes = preference_codes(annotations, judge)[rows]
    model_side = np.where(ref_a[rows], schema.B, schema.A)
    frame = pd.DataFrame({
        "model": np.where(ref_a[rows], model_b[rows], model_a[rows]),
        "wins": codes == model_side,
        "ties": codes == schema.TIE,
        "losses": codes == 3 - model_side,
    })
    counts = frame.groupby("model", sort=True)[["wins", "ties", "losses"]].sum()
    decided = counts.sum(axis=1)
    counts = counts[decided > 0]
    rates = 100 * (counts["wins"] + 0.5 * counts["ties"]) / counts.sum(axis=1)
    table = pd.DataFrame({"model": counts.index.to_numpy(), "win_rate": rates.to_numpy(),
                          **{name: counts[name].to_numpy() for name in counts.columns}})
    return table.sort_values(["win_rate", "model"], ascending=[False, True],
                             kind="stable").reset_index(drop=True)


def dataset_summary(annotations: Annotations) -> pd.DataFrame:
    """One row per dataset: dataset, slug, comparisons, models, preference annotators."""
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
    table = pd.DataFrame(rows, columns=["dataset", "comparisons", "models",
                                        "preference_annotators", "default_annotator"])
    table.insert(1, "slug", unique_slugs(table["dataset"], "dataset"))
    return table
