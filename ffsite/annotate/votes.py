"""From prompts and judge answers to votes, one row per vote (the shape the writer takes)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ffsite.base import alpaca_eval
from ffsite.format import schema
from ffsite.sides import assign_sides, swapped
from ffsite.traits import Trait


def comparisons(prompts: pd.DataFrame, model: str, reference: str, seed: int) -> pd.DataFrame:
    """One comparison per prompt: `model` against `reference`, sides by a seeded coin flip.

    The flip is the one every ffsite importer uses (`ffsite.sides`), so the
    comparison of a model that is already on the site gets the sides it has there.
    Column `model_on_b` remembers the flip for the caller.
    """
    prompt_ids = prompts["prompt_id"].to_numpy(object)
    ids = np.array([alpaca_eval.comparison_id(p, model, reference) for p in prompt_ids],
                   dtype=object)
    swap = swapped(ids, seed)
    model_a, model_b = assign_sides(np.full(len(ids), model, object), reference, swap)
    own = np.array([alpaca_eval.response_id(model, p) for p in prompt_ids], dtype=object)
    theirs = np.array([alpaca_eval.response_id(reference, p) for p in prompt_ids], dtype=object)
    response_a, response_b = assign_sides(own, theirs, swap)
    return pd.DataFrame({
        "dataset": alpaca_eval.NAME, "comparison_id": ids, "prompt_id": prompt_ids,
        "model_a": model_a, "model_b": model_b,
        "response_a_id": response_a, "response_b_id": response_b,
        schema.META_PREFIX + "subset": prompts["subset"].to_numpy(object),
        "model_on_b": swap,
    })


def unflip(votes: np.ndarray, flipped: np.ndarray) -> np.ndarray:
    """Votes as the judge saw the samples -> votes on the file's sides (rows flipped: swap)."""
    flipped = np.asarray(flipped, bool)[:, None]
    return np.where(flipped & (votes == "A"), "B",
                    np.where(flipped & (votes == "B"), "A", votes)).astype(object)


def vote_rows(table: pd.DataFrame, rows: np.ndarray, seeds: np.ndarray, votes: np.ndarray,
              notes: np.ndarray, traits: Sequence[Trait], judge: str) -> pd.DataFrame:
    """Rows of a votes file: one per (row of `rows`, trait).

    `rows[k]` indexes a comparison of `table`; `votes[k]` and `notes[k]` hold one value
    per trait (file sides; "A", "B", "tie", "neither" or "invalid").
    """
    n_traits = len(traits)
    picked = table.iloc[np.repeat(np.asarray(rows, np.int64), n_traits)].reset_index(drop=True)
    frame = picked[[c for c in picked.columns if c != "model_on_b"]]
    frame = frame.assign(
        role=schema.ROLE_TRAIT, judge=judge,
        trait_id=np.tile(np.array([t.id for t in traits], object), len(rows)),
        trait=np.tile(np.array([t.wording for t in traits], object), len(rows)),
        trait_set=np.tile(np.array([t.trait_set for t in traits], object), len(rows)),
        seed=pd.array(np.repeat(np.asarray(seeds, np.int64), n_traits), dtype="Int64"),
        vote=np.asarray(votes, object).reshape(-1),
        note=np.asarray(notes, object).reshape(-1))
    return frame
