"""llm-dreams as EigenBench: eight of its nine judges are rated models too
(`DATASET.judge_models`), so they form a population of models judging each other's
answers (seed 002).  The judges gave absolute scores, not pairwise verdicts; this module
derives the pairwise judgments EigenBench fits, one trait at a time.

For judge J, trait t, answer set k and J's repetition r: J's score of model A's answer
set k against J's score of model B's answer set k (the same set index; both scored by J
in its repetition r) is one judgment on the pair (A, B): the higher score shows the trait
more, equal scores are a tie.  J's two repetitions play the part of EigenBench's two
orders: when they order the pair oppositely, both judgments become ties (the both-orders
rule, here a rule against scoring noise: the scores carry no order effect).  A pair that
includes J's own model is a self-judgment (J is one of the two evaluees), as in the
paper.  A comparison, the unit the bootstrap resamples, is an answer set and a pair.
"""

from __future__ import annotations

import numpy as np

from ffsite.datasets.llm_dreams import DATASET
from ffsite.format import Scores
from ffsite.metrics import eigenbench as eb
from ffsite.metrics import panel
from ffsite.models import Registry

DERIVATION = (
    "These judgments were not asked as pairwise questions: they are derived from "
    "llm-dreams' absolute scores. Each of the {judges} judges that are also rated models "
    "scored every model's two answer sets (15 dreams each) on 1-10, twice. For this "
    "trait, a judge's score of one model's answer set against its score of another "
    "model's answer set with the same index is one judgment: the higher score shows the "
    "trait more, equal scores are a tie. Each of the judge's two repetitions gives one "
    "judgment, and when the two order the pair oppositely both count as ties (the "
    "both-orders rule, applied here to repeated scoring). A pair that includes the "
    "judge's own model is a self-judgment. Every judge judges all {pairs} pairs of the "
    "{judges} models on both answer sets: {per_judge} judgments each, {own} of them "
    "self-judgments.")


def population(scores: Scores, registry: Registry | None = None
               ) -> tuple[panel.PanelData, list[tuple[str, int, int]]]:
    """The judges' scores laid out (`panel.dense`), and the population: (the model's
    name, as the registry names it when given; its row in the data; its judge's
    column), sorted by name."""
    data = panel.dense(scores, DATASET.id, unit=DATASET.unit)
    members = []
    for judge, model in DATASET.judge_models:
        judged = np.flatnonzero(data.judges == judge)
        rated = np.flatnonzero(data.models == model)
        if not (len(judged) and len(rated)):
            continue
        name = registry.model_id(DATASET.id, model) if registry is not None else model
        members.append((name, int(rated[0]), int(judged[0])))
    return data, sorted(members)


def peer_judgments(scores: Scores, registry: Registry | None = None) -> list[eb.Derived]:
    """One set of judgments per trait (see the module docstring); none when fewer than
    eb.MIN_MODELS of the judges that are rated models have scores here."""
    if DATASET.id not in set(scores.responses["dataset"]):
        return []
    data, members = population(scores, registry)
    if len(members) < eb.MIN_MODELS:
        return []
    names = tuple(name for name, _, _ in members)
    rows = np.array([row for _, row, _ in members])
    columns = np.array([column for _, _, column in members])
    values = data.values[rows][:, :, columns]  # [model, answer set, judge, repetition, trait]
    n, units, _, seeds, _ = values.shape
    pairs = n * (n - 1) // 2
    out = []
    for t, trait_id in enumerate(data.traits):
        wording = _wording(scores, str(trait_id))
        out.append(eb.Derived(
            name=f"{DATASET.name}-{str(trait_id).removeprefix('ld-')}",
            label=f"{DATASET.name}: {wording.split(':')[0]}", dataset=DATASET.id,
            trait_id=str(trait_id), criterion=wording,
            judgments=judgments_from_values(values[..., t], names),
            derivation=DERIVATION.format(judges=n, pairs=pairs, per_judge=pairs * units * seeds,
                                         own=(n - 1) * units * seeds)))
    return out


def judgments_from_values(values: np.ndarray, names: tuple[str, ...]) -> eb.Judgments:
    """The judgments of one trait from scores values[model, answer set, judge,
    repetition] (NaN: no score), model m being judge m: every judge on every pair j < k
    of the same answer set, once per repetition, then the both-orders rule over each
    judge's repetitions.  A comparison is an answer set and a pair."""
    n, units, _, seeds = values.shape
    first, second = np.triu_indices(n, 1)
    # Every (pair, answer set, judge, repetition), flattened in that order.
    pair, unit, judge, seed = np.indices((len(first), units, n, seeds)).reshape(4, -1)
    a = values[first[pair], unit, judge, seed]
    b = values[second[pair], unit, judge, seed]
    scored = np.isfinite(a) & np.isfinite(b)
    outcome = np.select([a > b, a < b], [eb.FIRST, eb.SECOND], eb.TIE)[scored]
    comparison = (unit * len(first) + pair)[scored]
    who = judge[scored]
    ruled = eb.both_orders_rule(comparison, who, outcome)
    _, renumbered = np.unique(comparison, return_inverse=True)
    return eb.Judgments(
        names, who.astype(np.int32), first[pair][scored].astype(np.int32),
        second[pair][scored].astype(np.int32), ruled.astype(np.int8),
        renumbered.astype(np.int64),
        {"votes": int(scored.sum()), "outside_population": 0,
         "turned_into_ties": int(((outcome != eb.TIE) & (ruled == eb.TIE)).sum())})


def _wording(scores: Scores, trait_id: str) -> str:
    """The trait's wording ("Creativity: 1 conventional, literal; 10 inventive, ...")."""
    wording = scores.columns.loc[scores.columns["trait_id"] == trait_id, "trait"]
    return str(wording.iloc[0]) if len(wording) else trait_id
