"""From prompts and judge votes to votes-file rows, one row per vote (the shape the writer
takes)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ffsite.datasets.prompt_set import PromptSet
from ffsite.format import schema
from ffsite.judges.judge import Votes
from ffsite.sides import assign_sides, swapped
from ffsite.traits import Trait


def comparisons(prompts: PromptSet, model: str, seed: int) -> pd.DataFrame:
    """One comparison per prompt: `model` against the reference, sides by a seeded coin flip.

    The flip is the one every ffsite importer uses (`ffsite.sides`), so the
    comparison of a model that is already on the site gets the sides it has there.
    Column `model_on_b` remembers the flip for the caller.
    """
    reference = prompts.reference
    prompt_ids = prompts["prompt_id"].to_numpy(object)
    ids = np.array([prompts.comparison_id(p, model, reference) for p in prompt_ids],
                   dtype=object)
    swap = swapped(ids, seed)
    model_a, model_b = assign_sides(np.full(len(ids), model, object), reference, swap)
    own = np.array([prompts.response_id(model, p) for p in prompt_ids], dtype=object)
    theirs = np.array([prompts.response_id(reference, p) for p in prompt_ids], dtype=object)
    response_a, response_b = assign_sides(own, theirs, swap)
    return pd.DataFrame({
        "dataset": prompts.dataset, "comparison_id": ids, "prompt_id": prompt_ids,
        "model_a": model_a, "model_b": model_b,
        "response_a_id": response_a, "response_b_id": response_b,
        **{schema.META_PREFIX + name: prompts[name].to_numpy(object) for name in prompts.meta},
        "model_on_b": swap,
    })


def vote_rows(table: pd.DataFrame, votes: Votes, traits: Sequence[Trait], judge: str
              ) -> pd.DataFrame:
    """Rows of a votes file: one per (row of `votes`, trait).

    `votes.rows[k]` indexes a comparison of `table`; `votes.votes[k]` and `votes.notes[k]`
    hold one value per trait.
    """
    n_traits = len(traits)
    n_rows = len(votes.rows)
    picked = table.iloc[np.repeat(np.asarray(votes.rows, np.int64), n_traits)].reset_index(
        drop=True)
    frame = picked[[c for c in picked.columns if c != "model_on_b"]]
    frame = frame.assign(
        role=schema.ROLE_TRAIT, judge=judge,
        trait_id=np.tile(np.array([t.id for t in traits], object), n_rows),
        trait=np.tile(np.array([t.wording for t in traits], object), n_rows),
        trait_set=np.tile(np.array([t.trait_set for t in traits], object), n_rows),
        seed=pd.array(np.repeat(np.asarray(votes.seeds, np.int64), n_traits), dtype="Int64"),
        vote=np.asarray(votes.votes, object).reshape(-1),
        note=np.asarray(votes.notes, object).reshape(-1))
    return frame
