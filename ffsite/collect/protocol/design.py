"""Which answers a panel compares, and which judge compares them (AA-PersonalityBench's
design, seed 001 / methods.md §2, with every number a setting).

Per trait, each model being added gets `target` comparisons on that trait's questions:

1. round(`anchor_share` x target) of them against the anchor (the anchor is compared
   more than any other model, which steadies its Elo, fixed at 1000);
2. the rest against the other models (added ones and those already rated), always the
   one with the fewest comparisons so far on the trait (ties in a seeded order), until
   the model has its target.  A comparison between two added models counts for both,
   so a model may end one above its target ("up to a fixed target").

Each comparison gets the trait's next question (a seeded order, round and round) and
goes to one judge: the one with the fewest of the two models' comparisons so far (ties:
the fewest in all, then the panel's order), so every model's comparisons split about
evenly over the judges.  Which answer the judge sees first is a seeded coin per
comparison.  Everything is a pure function of the models, the settings and the seed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ffsite.errors import ParameterError


@dataclass(frozen=True)
class Comparison:
    trait: str  # trait id
    question: str  # question id
    first: str  # the two models, as designed (the file's sides are a coin flip)
    second: str
    judge: int  # index into the panel
    id: str

    @property
    def shown_swapped(self) -> bool:
        """Whether the judge sees `second`'s answer first."""
        return bool(hashlib.sha256(f"order:{self.id}".encode()).digest()[0] & 1)


def design(questions: Mapping[str, Sequence[str]], added: Sequence[str],
           others: Sequence[str], anchor: str, *, target: int, anchor_share: float,
           judges: int, seed: int) -> list[Comparison]:
    """Every comparison, trait by trait (in `questions`' order): `questions` maps a trait
    id to its question ids; `added` are the models given targets, `others` the models
    already rated (the anchor may be among either)."""
    models = list(dict.fromkeys([anchor, *added, *others]))
    if len(models) < 2:
        raise ParameterError("a panel needs two models to compare: add a {model} or an "
                             "{anchor} other than it", "model", "anchor")
    found = []
    for number, (trait, ids) in enumerate(questions.items()):
        if not ids:
            raise ParameterError(f"trait {trait} has no questions", "protocol")
        rng = np.random.default_rng([seed, number])
        pairs = _pairs(models, added, anchor, target, anchor_share, rng)
        order = [ids[i] for i in rng.permutation(len(ids))]
        found += _assigned(trait, pairs, order, judges)
    return found


def _pairs(models: list[str], added: Sequence[str], anchor: str, target: int,
           share: float, rng: np.random.Generator) -> list[tuple[str, str]]:
    count = dict.fromkeys(models, 0)
    rank = {m: int(r) for m, r in zip(models, rng.permutation(len(models)), strict=True)}
    pairs = []
    rated = [m for m in dict.fromkeys(added) if m != anchor]
    for model in rated:
        for _ in range(min(target, round(share * target))):
            pairs.append((model, anchor))
            count[model] += 1
            count[anchor] += 1
    while True:
        short = [m for m in rated if count[m] < target]
        if not short:
            return pairs
        model = min(short, key=lambda m: (count[m], rated.index(m)))
        rivals = [m for m in models if m not in (model, anchor)] or [anchor]
        rival = min(rivals, key=lambda m: (count[m], rank[m]))
        pairs.append((model, rival))
        count[model] += 1
        count[rival] += 1


def _assigned(trait: str, pairs: list[tuple[str, str]], questions: list[str],
              judges: int) -> list[Comparison]:
    load: dict[str, list[int]] = {}
    total = [0] * judges
    seen: dict[tuple, int] = {}
    found = []
    for k, (first, second) in enumerate(pairs):
        question = questions[k % len(questions)]
        for model in (first, second):
            load.setdefault(model, [0] * judges)
        judge = min(range(judges), key=lambda j: (load[first][j] + load[second][j],
                                                  total[j], j))
        load[first][judge] += 1
        load[second][judge] += 1
        total[judge] += 1
        low, high = sorted((first, second))
        again = seen.get((question, low, high), 0)
        seen[(question, low, high)] = again + 1
        digest = hashlib.sha256(f"{trait}\0{question}\0{low}\0{high}\0{again}".encode())
        found.append(Comparison(trait, question, first, second, judge,
                                f"aa-{digest.hexdigest()[:20]}"))
    return found
