"""The LLM judge: one model over an OpenAI-compatible API, behind the judge seam.

Per comparison and vote seed it asks about every trait at once (`prompt`), with the two
samples in an order drawn from the seed, reads the answer tolerantly (`parse_answer`)
and turns it back to the file's sides.  The caller sends the requests through its
client, cache and budget.  Every request and its cache key are pure functions of the
judge, the texts and `Pairs.labels`: the key covers the compared models, the judge, the
prompt-template version, the trait list, the vote's seed and the order the judge sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ffsite.collect.annotate.prompt import TEMPLATE_VERSION, judge_messages, shown_swapped
from ffsite.collect.api import call_key
from ffsite.collect.shared import cut_off, parse_answer
from ffsite.judges.judge import Pairs, Reply, Request, Votes
from ffsite.traits import FF_V1, Trait

# A judge answer's length: about '"12": "A", ' per rule.
JUDGE_TOKENS_PER_RULE = 6


@dataclass(frozen=True)
class LlmJudge:
    model: str  # the judge model on the API
    traits: tuple[Trait, ...] = FF_V1
    n_votes: int = 1  # independent votes per comparison, with seeds seed, seed+1, ...
    seed: int = 0
    temperature: float = 0.0
    max_tokens: int = 1024  # longest answer

    @property
    def id(self) -> str:
        return self.model

    @property
    def version(self) -> str:
        return TEMPLATE_VERSION

    @property
    def seeds(self) -> tuple[int, ...]:
        return tuple(self.seed + k for k in range(self.n_votes))

    @property
    def api_models(self) -> tuple[str, ...]:
        return (self.model,)

    def describe(self) -> str:
        return (f"judge {self.model}, {len(self.traits)} traits, "
                f"{self.n_votes} vote{'s' if self.n_votes > 1 else ''} each")

    def requests(self, pairs: Pairs) -> list[Request]:
        """One call per comparison and seed, comparison by comparison."""
        return [self._request(pairs, row, seed) for row in range(len(pairs))
                for seed in self.seeds]

    def _request(self, pairs: Pairs, row: int, seed: int) -> Request:
        flipped = shown_swapped(pairs.comparison_ids[row], seed)
        side_a, side_b = pairs.texts_a[row], pairs.texts_b[row]
        first, second = (side_b, side_a) if flipped else (side_a, side_b)
        rules = [t.wording for t in self.traits]
        instruction = pairs.instructions[row]
        body = {"model": self.model,
                "messages": judge_messages(instruction, first, second, rules),
                "temperature": self.temperature, "max_tokens": self.max_tokens,
                "seed": seed}  # OpenAI's sampling seed: repeated votes are separate draws
        key = call_key(kind="judge", **pairs.labels, judge=self.model,
                       template=TEMPLATE_VERSION, prompt=instruction, first=first,
                       second=second, traits=rules, seed=seed, order=flipped,
                       temperature=self.temperature, max_tokens=self.max_tokens)
        return Request(key, body, JUDGE_TOKENS_PER_RULE * len(self.traits) + 8)

    def votes(self, pairs: Pairs, replies: Sequence[Reply]) -> Votes:
        """Parse each answer (one per comparison and seed) and un-flip it."""
        n_traits = len(self.traits)
        rows, seeds, votes, notes, flipped = [], [], [], [], []
        answers = iter(replies)  # in the order of `requests`: comparison, then seed
        for row in range(len(pairs)):
            for seed in self.seeds:
                reply = next(answers)
                if reply.text is not None:
                    answer_votes, answer_notes = parse_answer(reply.text, n_traits)
                    answer_notes = cut_off(answer_notes, reply.finish_reason)
                elif reply.failure is not None:
                    answer_votes = ["invalid"] * n_traits
                    answer_notes = [f"judge call failed: {reply.failure}"] * n_traits
                else:
                    continue  # never sent: the budget ran out
                rows.append(row)
                seeds.append(seed)
                votes.append(answer_votes)
                notes.append(answer_notes)
                flipped.append(shown_swapped(pairs.comparison_ids[row], seed))
        shape = (len(rows), n_traits)
        shown = np.array(votes, dtype=object).reshape(shape)
        return Votes(np.array(rows, np.int64), np.array(seeds, np.int64),
                     _unflip(shown, np.array(flipped, bool)),
                     np.array(notes, dtype=object).reshape(shape))


def _unflip(votes: np.ndarray, flipped: np.ndarray) -> np.ndarray:
    """Votes as the judge saw the samples -> votes on the file's sides (rows flipped: swap)."""
    flipped = np.asarray(flipped, bool)[:, None]
    return np.where(flipped & (votes == "A"), "B",
                    np.where(flipped & (votes == "B"), "A", votes)).astype(object)
