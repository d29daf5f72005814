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
goes to one judge, chosen so that every model's comparisons split about evenly over the
judges: greedy in a seeded order, then repaired by moving single comparisons and by
flipping alternating chains of two judges' comparisons (a model's split between any two
judges then differs by at most two, tested over seeds; a perfect split is not always
reached).  Which answer the judge sees first is a seeded coin per comparison.
Everything is a pure function of the models, the settings and the seed.
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
        found += _assigned(trait, pairs, order, judges, rng, number)
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
              judges: int, rng: np.random.Generator, turn: int) -> list[Comparison]:
    """Questions round and round; judges in balance: pairs in a seeded order, each to
    a judge at (or nearest) both models' fewest, then a repair pass that moves a
    comparison from a model's busiest judge to its idlest while that evens both."""
    order = rng.permutation(len(pairs))
    load: dict[str, list[int]] = {m: [0] * judges for pair in pairs for m in pair}
    total = [0] * judges
    judge_of = [0] * len(pairs)
    for k in order:
        first, second = pairs[k]

        def cost(j: int, a: str = first, b: str = second) -> tuple:
            # Ties go to the judges in an order that turns with the trait, so over the
            # traits no judge is favoured.
            return (max(load[a][j] - min(load[a]), load[b][j] - min(load[b])),
                    load[a][j] + load[b][j], total[j], (j - turn) % judges)

        judge = min(range(judges), key=cost)
        judge_of[k] = judge
        load[first][judge] += 1
        load[second][judge] += 1
        total[judge] += 1
    _repair(pairs, judge_of, load, judges)
    seen: dict[tuple, int] = {}
    found = []
    for k, (first, second) in enumerate(pairs):
        question = questions[k % len(questions)]
        low, high = sorted((first, second))
        again = seen.get((question, low, high), 0)
        seen[(question, low, high)] = again + 1
        digest = hashlib.sha256(f"{trait}\0{question}\0{low}\0{high}\0{again}".encode())
        found.append(Comparison(trait, question, first, second, judge_of[k],
                                f"aa-{digest.hexdigest()[:20]}"))
    return found


def _repair(pairs: list[tuple[str, str]], judge_of: list[int],
            load: dict[str, list[int]], judges: int) -> None:
    """Move single comparisons to another judge while that lowers the two models'
    summed squares of comparisons per judge (so spreads even out); then flip
    alternating chains of two judges' comparisons from a model whose split is off by
    more than one.  Stops when no move helps."""
    improved = True
    while improved:
        improved = False
        for k, (first, second) in enumerate(pairs):
            now = judge_of[k]
            for other in range(judges):
                gain = sum(load[m][other] - load[m][now] for m in (first, second)) + 2
                if other != now and gain < 0:
                    for model in (first, second):
                        load[model][now] -= 1
                        load[model][other] += 1
                    judge_of[k] = now = other
                    improved = True
        improved = _flip_chains(pairs, judge_of, load, judges) or improved


def _flip_chains(pairs: list[tuple[str, str]], judge_of: list[int],
                 load: dict[str, list[int]], judges: int) -> bool:
    """One Kempe-chain flip where it helps: from a model whose split between two judges
    is off by two or more, follow comparisons alternately of those judges and swap the
    two on the whole chain: the models inside keep their split, only its two ends
    change, and the flip is kept when their summed squares fall."""
    at: dict[str, list[int]] = {}
    for k, pair in enumerate(pairs):
        for model in pair:
            at.setdefault(model, []).append(k)
    for start in sorted(load):
        for busy in range(judges):
            for idle in range(judges):
                if load[start][busy] - load[start][idle] < 2:
                    continue
                chain, used, model, colour = [], set(), start, busy
                while True:
                    step = next((k for k in at[model] if k not in used
                                 and judge_of[k] == colour), None)
                    if step is None:
                        break
                    chain.append(step)
                    used.add(step)
                    first, second = pairs[step]
                    model = second if first == model else first
                    colour = idle if colour == busy else busy
                ends = {start, model}
                before = sum(c * c for m in ends for c in load[m])
                _swap(pairs, judge_of, load, chain, busy, idle)
                if sum(c * c for m in ends for c in load[m]) < before:
                    return True
                _swap(pairs, judge_of, load, chain, busy, idle)  # undo
    return False


def _swap(pairs: list[tuple[str, str]], judge_of: list[int], load: dict[str, list[int]],
          chain: list[int], one: int, two: int) -> None:
    for k in chain:
        new = two if judge_of[k] == one else one
        for model in pairs[k]:
            load[model][judge_of[k]] -= 1
            load[model][new] += 1
        judge_of[k] = new
