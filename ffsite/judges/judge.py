"""The judge seam: what `ffsite annotate` and the dataset runner ask of any judge.

A judge votes, trait by trait, on a batch of comparisons (`Pairs`): which of the two
responses each trait selects, on the file's sides.  It does no I/O.  A judge that asks a
model over an API returns the `Request`s it needs; the caller sends them (the cache, the
budget, retries and progress are the caller's business) and hands back one `Reply` per
request, in order.  A judge that needs no API returns no requests and votes from the
texts alone.  The same two calls also serve `--dry-run`, which prices the requests and
sends none.

Two judges implement it: `ffsite.collect.annotate.llm_judge.LlmJudge` (an LLM over an
OpenAI-compatible API) and `ffsite.judges.rules.RulesJudge`.

A panel of judges is a third implementation, with no change to annotate: its requests
are its members' requests one after the other (it remembers where each member's slice
starts), its `votes` gives each member its slice of the replies and combines the
members' votes per comparison and trait (a majority, say) into its own, under its own
`id`; its `api_models` are the members' together and its `traits` those they share.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from ffsite.traits import Trait


@dataclass(frozen=True)
class Pairs:
    """A batch of comparisons for a judge: per comparison its id, the user's message and
    the two responses on the file's sides (A, B)."""

    comparison_ids: np.ndarray
    instructions: np.ndarray
    texts_a: np.ndarray
    texts_b: np.ndarray
    # What else identifies the batch beyond its texts (annotate: the model and the
    # reference); a judge that caches answers keys them on it.
    labels: Mapping[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.comparison_ids)


@dataclass(frozen=True)
class Votes:
    """Votes on the file's sides: row k is pair `rows[k]` voted with `seeds[k]`, one vote
    and one note per trait."""

    rows: np.ndarray
    seeds: np.ndarray
    votes: np.ndarray  # [k, traits] "A" | "B" | "tie" | "neither" | "invalid"
    notes: np.ndarray  # [k, traits] why a vote is invalid, else None

    def plus(self, other: Votes) -> Votes:
        return Votes(np.concatenate([self.rows, other.rows]),
                     np.concatenate([self.seeds, other.seeds]),
                     np.vstack([self.votes, other.votes]), np.vstack([self.notes, other.notes]))


@dataclass(frozen=True)
class Request:
    """One API call a judge needs answered."""

    key: str  # the same key, the same answer: the caller may answer from its cache
    body: dict  # an OpenAI chat-completions request
    answer_tokens: int  # about how long the answer will be (for --dry-run estimates)


@dataclass(frozen=True)
class Reply:
    """What became of a request: its answer, why it failed, or neither (never sent)."""

    text: str | None = None
    finish_reason: str | None = None
    failure: str | None = None


class Judge(Protocol):
    @property
    def id(self) -> str:
        """The judge's name in annotation files (their `judge` column)."""

    @property
    def version(self) -> str:
        """What decides its votes (a prompt template, a rule set); in the run summary."""

    @property
    def traits(self) -> tuple[Trait, ...]:
        """The traits it votes on, in the order of a `Votes` row."""

    @property
    def seeds(self) -> tuple[int, ...]:
        """The seed of each of its votes on a comparison (one entry per vote)."""

    @property
    def api_models(self) -> tuple[str, ...]:
        """The models it asks over the API; empty when it needs no API."""

    def describe(self) -> str:
        """How a run's headline names it, e.g. "the rule-based judge"."""

    def requests(self, pairs: Pairs) -> list[Request]:
        """The API calls voting on `pairs` takes (none for a judge without an API)."""

    def votes(self, pairs: Pairs, replies: Sequence[Reply]) -> Votes:
        """Its votes on `pairs`, given one reply per request of `requests(pairs)`.

        A request never sent (the budget ran out) leaves its votes out."""
