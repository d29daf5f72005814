"""What a dataset's protocol says: the data its folder declares, in three kinds.

A protocol is how a dataset's own numbers were made, so that a new model can be added
the same way (`ffsite protocol run NAME`):

- `ScoredProtocol`: the model answers the dataset's prompts (`answer_sets` times); each
  judge scores each judged unit (one answer, or a set of answers read together) on the
  dataset's rubric, `repetitions` times; a scores file.  Behavioral Profiling,
  llm-dreams.
- `PanelProtocol`: models answer trait-eliciting questions; per trait, pairs of answers
  go to one judge of a panel each (balanced), which says which shows the trait more or
  that they tie; a votes file for Bradley-Terry ratings.  ffsite's AA-style panel.
- `VotesProtocol`: Feedback Forensics' batch judge against the prompt set's reference
  answers (`ffsite annotate`'s method, its settings fixed).  AlpacaEval.

Texts that are the dataset's own (prompts, rubrics, judge instructions) are read from
the base data at run time by the dataset's `load` (a `Material`), never kept in the
repository.  Every setting a protocol names has the value the dataset's numbers were
made with; a run that changes any of them, or its judges, is kept apart
(`compare.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ffsite.traits import Trait

Message = dict[str, str]
AnswerKey = tuple[str, int]  # (prompt id, answer set)


@dataclass(frozen=True)
class Judge:
    """A judge: its name as the dataset's files spell it, and its model on the API."""

    name: str
    model: str


@dataclass(frozen=True)
class ScoredTrait:
    """A trait a scoring judge answers: its key in the judge's reply, and how files name
    it (id, wording with the scale's ends)."""

    key: str
    id: str
    wording: str


@dataclass(frozen=True)
class Prompt:
    """Something the model answers: an id and the messages it is sent."""

    id: str
    messages: tuple[Message, ...]


@dataclass(frozen=True)
class Unit:
    """What one judge call scores: a response of the scores file, made of one or more
    answers (`parts`: (prompt id, answer set), in the order the judge reads them)."""

    response_id: str
    prompt_id: str
    condition: str | None
    meta: Mapping[str, str]
    parts: tuple[AnswerKey, ...]


@dataclass(frozen=True)
class Verdict:
    """A judge's reply read: a score (or None) and a note (why not, else None) per
    trait key."""

    scores: Mapping[str, float | None]
    notes: Mapping[str, str | None]

    @property
    def whole(self) -> bool:
        return all(value is not None for value in self.scores.values())


def unchanged(text: str) -> str:
    return text


@dataclass(frozen=True)
class Material:
    """What a scored protocol reads from the base data: the prompts, how a model's
    answers form the units its judges score, each judge call's messages, how a reply is
    read, and how an answer is stored (the benchmark may strip hidden reasoning)."""

    prompts: tuple[Prompt, ...]
    units: Callable[[str, int], list[Unit]]  # (model, answer sets) -> units
    judge_messages: Callable[[Unit, Mapping[AnswerKey, str]], list[Message]]
    read: Callable[[str], Verdict]
    clean: Callable[[str], str] = unchanged
    source: str = ""  # where the texts were read, for the estimate's first line


@dataclass(frozen=True)
class ScoredProtocol:
    """A dataset's judges score a model's answers on its rubric."""

    name: str  # `ffsite protocol run <name>`
    dataset: str
    version: str  # the prompts' and parsing's version: in every call's cache key
    about: str  # what the run is, in a sentence
    reproduces: str  # what it reproduces exactly
    differs: str  # what it cannot reproduce, and what it adds
    judges: tuple[Judge, ...]
    traits: tuple[ScoredTrait, ...]
    trait_set: str
    scale: tuple[float, float]  # the files' scale_min, scale_max
    load: Callable[[Path], Material]  # (the dataset's base-data folder) -> its texts
    describe_judge: Callable[[str], str]  # judge name -> its description in the file
    # The name of the judges' mean where the dataset publishes only that mean (each
    # judge's repetitions averaged first); None: each judge's scores are the numbers.
    panel: str | None = None
    unit: str = "response"  # what one judged unit is called
    answer_sets: int = 1  # independent answers of the model to every prompt
    repetitions: int = 1  # each judge's calls per unit
    reasks: int = 0  # a reply without every score is asked again, up to this often
    temperature: float | None = None  # None: not sent (the provider's default)
    max_tokens: int = 4096  # longest answer (the budget needs a bound)
    judge_temperature: float | None = None
    judge_max_tokens: int = 2048
    answer_tokens: int = 400  # a typical answer's length, for the estimate
    verdict_tokens: int = 200  # a typical verdict's length

    kind = "scores"

    @property
    def settings(self) -> dict[str, Any]:
        """The settings a comparable run keeps (compare.py)."""
        return {"answer_sets": self.answer_sets, "repetitions": self.repetitions,
                "reasks": self.reasks, "temperature": self.temperature,
                "max_tokens": self.max_tokens, "judge_temperature": self.judge_temperature,
                "judge_max_tokens": self.judge_max_tokens}


@dataclass(frozen=True)
class Question:
    """A trait-eliciting question: its id, the trait it is for, its text."""

    id: str
    trait_id: str
    text: str


@dataclass(frozen=True)
class PanelProtocol:
    """A panel compares two models' answers one trait at a time: A, B or tie."""

    name: str
    dataset: str
    version: str
    about: str
    reproduces: str
    differs: str
    judges: tuple[Judge, ...]
    panel: str  # the judge name its votes carry (members in `meta.judge`)
    traits: tuple[Trait, ...]
    questions: Callable[[], tuple[Question, ...]]  # ffsite's own, from the repository
    # (trait, question, the answer shown first, the other) -> the judge call's messages
    messages: Callable[[Trait, str, str, str], list[Message]]
    read: Callable[[str], tuple[str | None, str | None]]  # reply -> (A | B | tie, why not)
    describe_panel: str  # the panel's description in the votes file
    anchor: str  # fixed at Elo 1000, compared more than the others
    comparisons: int = 20  # target comparisons per model and trait
    anchor_share: float = 0.4  # of a model's comparisons, the share against the anchor
    reasks: int = 1
    temperature: float | None = None
    max_tokens: int = 2048
    judge_temperature: float | None = 0.0
    judge_max_tokens: int = 16
    answer_tokens: int = 350
    verdict_tokens: int = 2

    kind = "votes"
    unit = "comparison"

    @property
    def settings(self) -> dict[str, Any]:
        """How an answer and a verdict are made.  The anchor, the target, the anchor's
        share and the seed say how many comparisons are drawn between whom, not how one
        is made: a run that changes them stays comparable (less or more precise)."""
        return {"reasks": self.reasks, "temperature": self.temperature,
                "max_tokens": self.max_tokens, "judge_temperature": self.judge_temperature,
                "judge_max_tokens": self.judge_max_tokens}

    @property
    def design(self) -> dict[str, Any]:
        return {"anchor": self.anchor, "comparisons": self.comparisons,
                "anchor_share": self.anchor_share}


@dataclass(frozen=True)
class VotesProtocol:
    """Feedback Forensics' judge on a prompt set: the model's answer against the
    reference's, every trait in one call (`ffsite annotate`)."""

    name: str
    dataset: str
    version: str
    about: str
    reproduces: str
    differs: str
    judges: tuple[Judge, ...]  # one
    traits: tuple[Trait, ...]
    votes: int = 1
    temperature: float = 0.0
    max_tokens: int = 2048
    judge_max_tokens: int = 1024
    extra: Mapping[str, Any] = field(default_factory=dict)

    kind = "votes"
    unit = "comparison"
    panel = None

    @property
    def settings(self) -> dict[str, Any]:
        return {"votes": self.votes, "temperature": self.temperature,
                "max_tokens": self.max_tokens, "judge_max_tokens": self.judge_max_tokens}


Protocol = ScoredProtocol | PanelProtocol | VotesProtocol


def judge_names(judges: Sequence[Judge]) -> tuple[str, ...]:
    return tuple(judge.name for judge in judges)
