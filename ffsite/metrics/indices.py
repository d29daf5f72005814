"""Personality indices: groups of traits summarised as one 1–100 score (methods.md §2).

For each index and model: z-score every member trait's Elo across the models rated on
that trait, average the model's z-scores (reversed traits negated), and turn the
average into a percentile rank across the models: the lowest gets 1, the highest 100,
the others in proportion to their rank (ties share the mean rank).

The range of model M's score (ci_low, ci_high): put every one of M's member traits at
its lower Elo bound (its upper bound for a reversed trait), leave the other models at
their Elo, redo the z-scores, averages and percentile ranks, and read M's score; then
the same with the upper bounds.  The range always contains the score.  It is a
sensitivity range, not a 95% interval (pages say so): the traits' refits are drawn
trait by trait, so combining them would treat traits sharing comparisons, and mirrored
traits, as independent; and the other models' uncertainty is left out.

Only traits present in the ratings take part; `traits_used` says how many did for each
(model, index).  An index none of whose traits were rated has no rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ffsite.traits import AA30_NAMES, FF_V1

INDEX_COLUMNS = ("model", "index", "score", "ci_low", "ci_high", "traits_used")


@dataclass(frozen=True)
class Index:
    """A named group of traits; a high score means the model shows them more."""

    name: str
    description: str
    traits: tuple[str, ...]  # trait ids
    reversed: tuple[str, ...] = ()  # members that count against the index


def _aa(name: str, description: str, members: Sequence[str],
        reversed_members: Sequence[str] = ()) -> Index:
    ids = {trait_name: trait_id for trait_id, trait_name in AA30_NAMES.items()}
    return Index(name, description, tuple(ids[m] for m in members),
                 tuple(ids[m] for m in reversed_members))


# AA-PersonalityBench's eight indices over its 30 traits (methods.md §2).
AA_INDICES: tuple[Index, ...] = (
    _aa("Expressiveness", "Rich, varied, well-crafted language",
        ["Lexically Varied", "Eloquent", "Literate", "Natural Sounding", "Metaphorical"]),
    _aa("Organization", "Well-structured, scannable, answer-first",
        ["Structured", "Scannable", "Bottom-Line Summary", "Answer First"]),
    _aa("Informativeness", "Practical depth, evidence, actionable content",
        ["Information Dense", "Evidence-Based", "Resource-Specific", "Actionable Guidance",
         "Pragmatic"]),
    _aa("Transparency", "Truthful, acknowledges uncertainty, non-sycophantic",
        ["Truthful", "Admits Uncertainty", "Disclaims Assumptions", "Flags Nuances",
         "Sycophantic"], reversed_members=["Sycophantic"]),
    _aa("Warmth", "Friendly, humorous, sincere, emotionally attuned",
        ["Friendly", "Humorous", "Sincere", "Emotionally Intelligent"]),
    _aa("Conviction", "Direct, confident positions and constructive pushback",
        ["Direct", "Confident", "Opinionated", "Constructive Pushback"]),
    _aa("Imagination", "Creative, exploratory, open-ended thinking",
        ["Creative", "Open-Ended"]),
    _aa("Slop", "Use of filler and generic language", ["Slop"]),
)


def _ff(name: str, description: str, members: Sequence[str],
        reversed_members: Sequence[str] = ()) -> Index:
    ids = {trait.short: trait.id for trait in FF_V1}
    return Index(name, description, tuple(ids[m] for m in [*members, *reversed_members]),
                 tuple(ids[m] for m in reversed_members))


# Our grouping of the 40 Feedback Forensics traits (docs/uncertainty.md explains it).
# Every trait belongs to exactly one index; names differ from AA's so both can be shown.
FF_INDICES: tuple[Index, ...] = (
    _ff("Verbosity", "Long, example-rich answers",
        ["is more verbose", "provides more examples"], ["is more concise"]),
    _ff("Formatting", "Lists, structure and emphasis",
        ["provides a numbered list format", "has more structured formatting",
         "uses more bold and italics text"]),
    _ff("Friendliness", "Polite, friendly, emotionally warm and upbeat",
        ["is more polite", "has a friendlier tone", "is more empathetic to the user",
         "expresses more emotion", "uses a more enthusiastic tone", "is more optimistic"]),
    _ff("Engagement", "Talks with the reader: questions, pronouns, follow-ups",
        ["ends with a follow-up question",
         "actively engages the reader with rhetorical questions",
         "more actively engages with the user", "uses more personal pronouns (I, we, you)"]),
    _ff("Playfulness", "Casual, humorous, creative",
        ["uses more casual language", "uses more humour", "uses more emojis",
         "is more creative and original"], ["uses more formal language"]),
    _ff("Caution", "Hedges, refuses, adds caveats and ethics",
        ["has a more avoidant tone", "refuses to answer the question",
         "includes more ethical considerations",
         "acknowledges own limitations or uncertainty more",
         "contains less harmful information"], ["makes more confident statements"]),
    _ff("Sycophancy", "Flatters and agrees with the user",
        ["compliments the user's question or prompt", "agrees more with the user",
         "agrees with user even if factually incorrect", "reinforces user's beliefs more",
         "reinforces user's anger more"]),
    _ff("Rigour", "Correct, sourced, precise and fully reasoned",
        ["is more factually correct", "includes more references to other sources",
         "more strictly follows the requested output format",
         "uses more mathematical symbols and notation"],
        ["provides conclusions without full reasoning"]),
    _ff("Toxicity", "Inappropriate, offensive or illegal content",
        ["includes inappropriate language", "suggests illegal activities",
         "is more offensive"]),
)

DEFAULT_INDICES: tuple[Index, ...] = AA_INDICES + FF_INDICES


def percentile_ranks(values: np.ndarray) -> np.ndarray:
    """1 for the lowest, 100 for the highest, linear in rank between (NaN stays NaN).

    Works along the last axis; ties share their mean rank; a single value gets 100.
    """
    values = np.asarray(values, dtype=float)
    valid = ~np.isnan(values)
    below = (values[..., None, :] < values[..., :, None]).sum(axis=-1)
    equal = (values[..., None, :] == values[..., :, None]).sum(axis=-1) - 1
    others = valid.sum(axis=-1, keepdims=True) - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(others > 0, (below + 0.5 * equal) / np.maximum(others, 1), 1.0)
    return np.where(valid, 1 + 99 * share, np.nan)


def _z_scores(elo: np.ndarray) -> np.ndarray:
    """z-score along the last axis (models), ignoring NaN; population standard deviation.

    A trait on which all rated models have the same Elo gives z = 0 for all.
    """
    with np.errstate(all="ignore"):
        mean = np.nanmean(elo, axis=-1, keepdims=True)
        spread = np.nanstd(elo, axis=-1, keepdims=True)
        z = np.divide(elo - mean, spread, out=np.zeros_like(elo), where=spread > 0)
    return np.where(np.isnan(elo), np.nan, z)


def _scores(elo: np.ndarray, sign: np.ndarray) -> np.ndarray:
    """Percentile rank per model from elo [..., traits, models] and sign per trait."""
    z = _z_scores(elo) * sign[:, None]
    with np.errstate(all="ignore"):
        average = np.nanmean(z, axis=-2)
    return percentile_ranks(average)


def indices_table(ratings: pd.DataFrame,
                  grouping: Sequence[Index] = DEFAULT_INDICES) -> pd.DataFrame:
    """INDEX_COLUMNS, one row per (model, index) with at least one rated member trait."""
    models = sorted(ratings["model"].unique())
    rated_traits = set(ratings["trait_id"])
    frames = []
    for index in grouping:
        present = [t for t in index.traits if t in rated_traits]
        if not present:
            continue
        sign = np.array([-1.0 if t in index.reversed else 1.0 for t in present])
        grid = {column: ratings.pivot(index="trait_id", columns="model", values=column)
                .reindex(index=present, columns=models).to_numpy(dtype=float)
                for column in ("elo", "ci_low", "ci_high")}
        elo = grid["elo"]  # [traits, models]
        score = _scores(elo, sign)
        bounds = []
        for low_column, high_column in (("ci_low", "ci_high"), ("ci_high", "ci_low")):
            # Scenario s moves only model s to its bounds: [models (scenario), traits, models]
            bound = np.where(sign[:, None] > 0, grid[low_column], grid[high_column])
            scenario = np.repeat(elo[None], len(models), axis=0)
            own = np.arange(len(models))
            scenario[own, :, own] = np.where(np.isnan(bound), elo, bound).T
            bounds.append(_scores(scenario, sign)[own, own])
        used = (~np.isnan(elo)).sum(axis=0)
        rated = used > 0
        frames.append(pd.DataFrame({
            "model": np.array(models, dtype=object)[rated], "index": index.name,
            "score": score[rated],
            "ci_low": np.minimum(bounds[0], score)[rated],
            "ci_high": np.maximum(bounds[1], score)[rated],
            "traits_used": used[rated],
        }))
    if not frames:
        return pd.DataFrame({name: [] for name in INDEX_COLUMNS})
    return pd.concat(frames, ignore_index=True)[list(INDEX_COLUMNS)]
