"""Every number is one judge's: trait votes of two judges are never pooled.

Files may hold votes of different judges on the same trait (the rules judge's "is more
verbose" on every AlpacaEval pair, a contributor's LLM judge's on the pairs of one new
model).  Pooled, one judge's numbers would sit in the other's column and the rows would
be relabelled "judge1+judge2".  Instead each (trait, judge) becomes a trait of its own:
the judge with the most votes on the trait keeps the trait's id, every other judge's
votes become the trait `<trait id>@<judge>`, its wording naming the judge, so tables,
ratings, pages and downloads show it apart and never rank it against the first.
Repeated votes of one judge (seeds) still combine, as methods.md says.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from ffsite.format import schema
from ffsite.format.read import Annotations

SEPARATOR = "@"


def judge_trait_id(trait_id: str, judge: str) -> str:
    """The id of another judge's votes on a trait: `<trait id>@<judge>`."""
    return f"{trait_id}{SEPARATOR}{judge}"


def separate_judges(annotations: Annotations) -> Annotations:
    """The same votes, each trait voted on by several judges split into one trait per
    judge (see the module docstring); unchanged when every trait has one judge."""
    annotators = annotations.annotators
    is_trait = (annotators["role"] == schema.ROLE_TRAIT).to_numpy()
    traits = annotators[is_trait]
    if traits.empty or not traits.groupby("trait_id")["judge"].nunique().gt(1).any():
        return annotations
    votes = np.bincount(annotations.votes["annotator"].to_numpy(), minlength=len(annotators))
    per_judge = pd.DataFrame({"trait_id": traits["trait_id"].to_numpy(object),
                              "judge": traits["judge"].astype(str).to_numpy(object),
                              "votes": votes[is_trait]})
    totals = per_judge.groupby(["trait_id", "judge"], sort=True)["votes"].sum().reset_index()
    # Most votes first; a tie goes to the judge whose name sorts first.
    totals = totals.sort_values(["trait_id", "votes", "judge"], ascending=[True, False, True],
                                kind="stable")
    main = totals.drop_duplicates("trait_id").set_index("trait_id")["judge"]
    other = (per_judge["judge"] != per_judge["trait_id"].map(main)).to_numpy()
    trait_id = per_judge["trait_id"].to_numpy(object).copy()
    trait_id[other] = [judge_trait_id(t, j) for t, j in zip(
        trait_id[other], per_judge["judge"].to_numpy(object)[other], strict=True)]
    wording = traits["trait"].to_numpy(object).copy()
    wording[other] = [f"{w} [judged by {j}]" for w, j in zip(
        wording[other], per_judge["judge"].to_numpy(object)[other], strict=True)]
    separated = annotators.copy()
    separated["trait_id"] = separated["trait_id"].astype(object)
    separated["trait"] = separated["trait"].astype(object)
    rows = np.flatnonzero(is_trait)
    separated.iloc[rows, separated.columns.get_loc("trait_id")] = trait_id
    separated.iloc[rows, separated.columns.get_loc("trait")] = wording
    return replace(annotations, annotators=separated)
