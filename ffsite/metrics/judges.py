"""Every number is one judge's: trait votes of two judges are never pooled.

Files may hold votes of different judges on the same trait (the rules judge's "is more
verbose" on every AlpacaEval pair, a contributor's LLM judge's on the pairs of one new
model).  Pooled, one judge's numbers would sit in the other's column and the rows would
be relabelled "judge1+judge2".  Instead each (trait, judge) becomes a trait of its own:
the judge with the most votes on the trait keeps the trait's id, every other judge's
votes become the trait `<trait id>@<judge>`, its wording naming the judge, so tables,
ratings, pages and downloads show it apart and never rank it against the first.
Repeated votes of one judge (seeds) still combine, as methods.md says.

Scores follow the same rule: a number is one judge's, or a declared panel's (a dataset's
record names its panel, `Dataset.panel`), never an unnamed average (`panel_scores`).  A
dataset's own judges are the ones its record names (`Dataset.score_judges`); scores on
it by any other judge (a contribution judged another way, a hand-made file) are moved to
a dataset of their own, `<dataset>@<judges>` (`keep_apart`), before any panel is pooled:
they never join its panel, its tables or its ranks, and change none of its numbers.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from ffsite.format import Scores, schema
from ffsite.format.read import Annotations
from ffsite.format.scores import merge

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


def keep_apart(scores: Scores, own: Mapping[str, Collection[str]]) -> Scores:
    """The same scores, those on a dataset of `own` ({dataset: its own judges}) by any
    other judge moved to the dataset `<dataset>@<judges>`, where <judges> are the other
    judges that scored that model there, sorted and joined by "+" (one label per
    contribution, however many judges it had).  Unchanged when every judge is a
    dataset's own, and for a dataset none of whose own judges' scores are here: with no
    originals to be ranked against, its numbers stand under its name (and their judge's
    key, which every page shows)."""
    if not len(scores):
        return scores
    responses, columns = scores.responses, scores.columns
    dataset = responses["dataset"].to_numpy(object)[scores.response]
    judge = columns["judge"].to_numpy(object)[scores.column]
    mine = pd.MultiIndex.from_tuples([(d, j) for d, judges in own.items() for j in judges],
                                     names=["dataset", "judge"])
    keyed = pd.MultiIndex.from_arrays([dataset, judge])
    is_own = keyed.isin(mine)
    foreign = np.isin(dataset, np.unique(dataset[is_own])) & ~is_own
    if not foreign.any():
        return scores
    model = responses["model"].to_numpy(object)[scores.response]
    found = pd.DataFrame({"dataset": dataset[foreign], "model": model[foreign],
                          "judge": judge[foreign]}).drop_duplicates()
    labels = found.groupby(["dataset", "model"], sort=True)["judge"].agg(
        lambda judges: "+".join(sorted(judges)))
    label = labels.reindex(pd.MultiIndex.from_arrays(
        [dataset[foreign], model[foreign]])).to_numpy(object)
    moved = responses.iloc[scores.response[foreign]].reset_index(drop=True)
    moved["dataset"] = [f"{d}{SEPARATOR}{how}" for d, how in zip(
        dataset[foreign], label, strict=True)]
    kept_rows = np.unique(scores.response[~foreign])
    keys = pd.concat([responses.iloc[kept_rows], moved], ignore_index=True)
    first = ~keys.duplicated(["dataset", "response_id"]).to_numpy()
    table = keys[first].reset_index(drop=True)
    index = pd.MultiIndex.from_frame(table[["dataset", "response_id"]].astype(object))
    response = np.empty(len(scores), np.int64)
    response[~foreign] = index.get_indexer(pd.MultiIndex.from_frame(
        responses.iloc[scores.response[~foreign]][["dataset", "response_id"]].astype(object)))
    response[foreign] = index.get_indexer(pd.MultiIndex.from_frame(
        moved[["dataset", "response_id"]].astype(object)))
    return replace(scores, responses=table, response=response)


def panel_scores(scores: Scores, dataset: str, panel: str, members: Sequence[str]
                 ) -> tuple[Scores, Scores]:
    """Split `dataset`'s scores by a declared panel: (every other score plus the panel's,
    the members' own scores).

    The panel's score of a response on a trait is the mean over its members of each
    member's mean over its repetitions (seeds); the panel is named as a judge of its own,
    seed None.  Outside a declared panel, scores of two judges are never averaged.
    """
    columns = scores.columns
    dataset_of = scores.responses["dataset"].to_numpy(object)[scores.response]
    member = columns["judge"].isin(list(members)).to_numpy()[scores.column]
    mine = (dataset_of == dataset) & member
    if not mine.any():
        return scores, _subset(scores, mine)
    trait_code, traits = pd.factorize(columns["trait_id"].to_numpy(object), sort=True)
    judge_code, _ = pd.factorize(columns["judge"].to_numpy(object), sort=True)
    n_traits, n_judges = len(traits), judge_code.max() + 1
    response, trait = scores.response[mine], trait_code[scores.column[mine]]
    judge, value = judge_code[scores.column[mine]], scores.value[mine]
    # Each member's mean over seeds, then the mean over members: sums per cell.
    cell = (response * n_traits + trait) * n_judges + judge
    cells, where = np.unique(cell, return_inverse=True)
    per_judge = np.bincount(where, value) / np.bincount(where)
    pair = cells // n_judges  # (response, trait) of each member's mean
    pairs, where = np.unique(pair, return_inverse=True)
    mean = np.bincount(where, per_judge) / np.bincount(where)
    scored, column = np.unique(pairs % n_traits, return_inverse=True)  # its traits only
    first = columns.drop_duplicates("trait_id").set_index("trait_id")
    entries = first.loc[list(traits[scored])].reset_index()
    entries = entries.assign(judge=panel, seed=None)[list(columns.columns)]
    pooled = Scores(scores.responses, entries, pairs // n_traits, column, mean,
                    {panel: panel_description(panel, members)})
    rest = _subset(scores, ~mine)
    return merge([rest, pooled]) if len(rest) else pooled, _subset(scores, mine)


def pool_panels(scores: Scores, panels: dict[str, tuple[str, Sequence[str]]]
                ) -> tuple[Scores, Scores]:
    """`panel_scores` for every declared panel ({dataset: (panel, members)}): (the scores
    the site reports, every member's own scores)."""
    members = []
    for dataset, (panel, judges) in sorted(panels.items()):
        scores, own = panel_scores(scores, dataset, panel, judges)
        members.append(own)
    return scores, merge(members)


def panel_description(panel: str, members: Sequence[str]) -> str:
    return (f"the mean of {len(members)} judges' scores ({', '.join(members)}), each "
            "judge's repetitions averaged first")


def _subset(scores: Scores, keep: np.ndarray) -> Scores:
    """The scores where `keep`, every response and column kept (unused ones are harmless)."""
    used = np.unique(scores.column[keep])
    renumber = np.full(len(scores.columns), -1)
    renumber[used] = np.arange(len(used))
    judges = set(scores.columns["judge"].iloc[used])
    return Scores(scores.responses, scores.columns.iloc[used].reset_index(drop=True),
                  scores.response[keep], renumber[scores.column[keep]], scores.value[keep],
                  {j: d for j, d in scores.judges.items() if j in judges})
