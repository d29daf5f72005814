"""`ffsite lmlpa run` as a collecting method: a model answers LMLPA's items, a rater
scores the answers, and the ratings become a scores file (docs/lmlpa.md).

1. Answering: each used item, per seed 0..K-1, in a call of its own to the model
   (`prompt.answer_messages`); the seed is in the request, so runs are separate
   draws and separate cache entries.
2. Rating: the rater, at temperature 0, scores each answer on the item trait's labelled
   scale (and, with order reversal, once more with the options listed from the other
   end).
3. Storing: the ratings through the Likert importer's row builder (`rating_rows`), so
   imported and collected ratings share one layout; the answers as base data (JSON),
   outside the annotations folder.

Names, the estimate, the budget, the invalid share, the write and the report are the
skeleton's (collect/run.py).

The direction of a stored score.  The rater places the answer on the *trait's* scale, so
its number already points the trait's way, even on a reverse-keyed item (an answer
"I often stay with familiar topics" to an item about a limited range is rated towards
Very Conservative: low).  `ffsite big-five` turns reverse-keyed items round (6 - x), as
the BFI does with agreement scores.  So a reverse-keyed item's score is stored in the
item's direction, 6 - the rater's point, and keying gives the rater's point back; a
forward item's score is the rater's point.  The rater's own number stays in
`meta.rater_score`, and why a rating has no score in `meta.rating_note`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ffsite import bfi
from ffsite._atomic import write_text
from ffsite.collect.api import Api, Cache, Call, Estimate, Outcome, Phase, Session
from ffsite.collect.files import ANNOTATIONS, LMLPA_ANSWERS
from ffsite.collect.lmlpa.prompt import (
    ANSWER_VERSION,
    RATER_VERSION,
    answer_messages,
    parse_rating,
    rater_messages,
    trait_point,
)
from ffsite.collect.run import MAX_INVALID, Collected, Method, Phases
from ffsite.errors import ParameterError
from ffsite.format import write_scores
from ffsite.importers.likert import DATASET, rating_rows

TOOL = "ffsite lmlpa run"
RATER_TEMPERATURE = 0.0  # as LMLPA: the rater's number should not be a draw
RATER_MAX_TOKENS = 64  # the rater replies with a number; room for a label or a few words
# A dry run's guesses: a one-sentence answer, and the words that stand in for an answer
# not yet made when the rater's prompt is priced.
ANSWER_TOKENS = 60
RATING_TOKENS = 2
STAND_IN_ANSWER = ("I often do this, because it usually helps the person I am talking "
                   "with and suits the way I tend to write my answers.")


@dataclass(frozen=True)
class LmlpaSettings:
    model: str
    rater: str
    api: Api
    out: Path
    answers_out: Path
    seeds: int = 1
    order_reversal: bool = False
    include_dropped: bool = False
    temperature: float = 0.0
    max_tokens: int = 512
    rater_max_tokens: int = RATER_MAX_TOKENS
    max_invalid: float = MAX_INVALID
    dataset: str = DATASET


def check_paths(out: Path, answers_out: Path) -> None:
    """The answers are texts: base data, never in an annotations folder (the site reads
    every file there) nor beside the scores file."""
    answers = answers_out.resolve()
    folders = answers.parents
    if (ANNOTATIONS.resolve() in folders or any(f.name == ANNOTATIONS.name for f in folders)
            or answers.parent == out.resolve().parent):
        raise ParameterError(f"{{answers_out}} {answers_out}: the answers are texts and stay "
                             "out of annotation folders and away from the scores file; give "
                             f"a path outside them (default: {LMLPA_ANSWERS}/<model>.json)",
                             "answers_out")


# ------------------------------------------------------------------------- the calls

@dataclass(frozen=True)
class Answering:
    """One planned answer: an item, in run (seed) `seed`."""

    item: bfi.Item
    seed: int


def plan(settings: LmlpaSettings) -> list[Answering]:
    """Every used item in every run, item by item: the order of the file and the report."""
    return [Answering(item, seed) for item in bfi.instrument().used(settings.include_dropped)
            for seed in range(settings.seeds)]


def answer_call(settings: LmlpaSettings, answering: Answering) -> Call:
    body = {"model": settings.model, "messages": answer_messages(answering.item.text),
            "temperature": settings.temperature, "max_tokens": settings.max_tokens,
            "seed": answering.seed}
    return settings.api.call("lmlpa-answer", body, prompt=ANSWER_VERSION)


def rating_call(settings: LmlpaSettings, answering: Answering, answer: str,
                reversed_order: bool) -> Call:
    # The run's seed goes to the rater too: a provider that varies at temperature 0 gives
    # each run its own rating, and each run's rating its own cache entry.
    body = {"model": settings.rater,
            "messages": rater_messages(answering.item, answer, reversed_order),
            "temperature": RATER_TEMPERATURE, "max_tokens": settings.rater_max_tokens,
            "seed": answering.seed}
    return settings.api.call("lmlpa-rate", body, prompt=RATER_VERSION)


def orders(settings: LmlpaSettings) -> tuple[bool, ...]:
    """The option orders each answer is rated in (False: normal)."""
    return (False, True) if settings.order_reversal else (False,)


def ratings_asked(settings: LmlpaSettings, texts: list[str | None]
                  ) -> list[tuple[int, bool]]:
    """(answer index, reversed order) of every rating call: answers that have text."""
    return [(index, reversed_order) for index, text in enumerate(texts)
            if text is not None and text.strip() for reversed_order in orders(settings)]


# ------------------------------------------------------------------------ the method

@dataclass(frozen=True)
class Rated:
    """One rating of one answer: the rater's number as it answered (None: invalid, `note`
    says why) in the option order `reversed_order`."""

    answering: Answering
    reversed_order: bool
    number: int | None
    note: str | None

    @property
    def score(self) -> float:
        """What the scores file stores: the item-direction score (module docstring)."""
        if self.number is None:
            return float("nan")
        point = trait_point(self.number, self.reversed_order)
        return float(bfi.KEY_FLIP - point if self.answering.item.reverse_keyed else point)


@dataclass(frozen=True)
class Scored:
    """The ratings, in plan order, and the answers as base-data records."""

    ratings: list[Rated]
    answers: list[dict]


@dataclass(frozen=True)
class Lmlpa(Method[list[Answering], Scored]):
    """One model's answers and ratings (collect/run.py: `Method`)."""

    settings: LmlpaSettings

    tool = TOOL
    counted = "ratings"
    nothing = ("nothing was rated: the {max_cost} budget ran out before the first rating "
               "(answers already made are cached); raise it (see {dry_run} for the "
               "estimate)")

    def names(self) -> list[tuple[str, str]]:
        settings = self.settings
        return [("model", settings.model), ("rater", settings.rater),
                ("dataset", settings.dataset)]

    def plan(self) -> list[Answering]:
        check_paths(self.settings.out, self.settings.answers_out)
        return plan(self.settings)

    def headline(self, answering: list[Answering]) -> str:
        settings = self.settings
        items = len(bfi.instrument().used(settings.include_dropped))
        return (f"lmlpa run: {settings.model} answers {items} items x {settings.seeds} "
                f"run{'s' if settings.seeds != 1 else ''}, rated by {settings.rater}"
                + (" in both option orders" if settings.order_reversal else ""))

    def estimate(self, answering: list[Answering], cache: Cache) -> list[Estimate | str]:
        """Answers and ratings apart.  Cached answers are rated as they are; an answer
        not made yet is priced with a stand-in of a typical length."""
        settings = self.settings
        calls = [answer_call(settings, a) for a in answering]
        texts = [(cache.get(call.key) or {}).get("content", STAND_IN_ANSWER)
                 for call in calls]
        ratings = [rating_call(settings, answering[index], texts[index], reversed_order)
                   for index, reversed_order in ratings_asked(settings, texts)]
        return [Estimate("answers", settings.model, calls,
                         [min(settings.max_tokens, ANSWER_TOKENS)] * len(calls)),
                Estimate("ratings", settings.rater, ratings, [RATING_TOKENS] * len(ratings))]

    def models(self, answering: list[Answering]) -> list[str]:
        return [self.settings.model, self.settings.rater]

    async def collect(self, answering: list[Answering], session: Session) -> Phases:
        settings = self.settings
        answered = await session.run("answer", [answer_call(settings, a) for a in answering])
        texts = answered.texts()
        asked = ratings_asked(settings, texts)
        rated = None
        if asked:
            rated = await session.run("rate", [
                rating_call(settings, answering[index], texts[index], reversed_order)
                for index, reversed_order in asked])
        return {"answer": answered, "rating": rated}

    def result(self, answering: list[Answering], phases: Phases) -> Collected[Scored]:
        ratings = rated_answers(self.settings, answering, phases["answer"],
                                phases["rating"])
        records = answer_records(self.settings, answering, phases["answer"])
        return Collected(Scored(ratings, records), len(ratings),
                         [r.note for r in ratings if r.number is None])

    def summary(self, answering: list[Answering], collected: Collected[Scored]) -> dict:
        """Deterministic (from cached answers in plan order; no times, no split into new
        and cached calls), so a resumed run writes the same bytes as an uninterrupted
        one."""
        settings = self.settings
        return {
            "tool": TOOL, "dataset": settings.dataset, "model": settings.model,
            "rater": settings.rater, "answer_prompt": ANSWER_VERSION,
            "rater_prompt": RATER_VERSION, "items": len({a.item.id for a in answering}),
            "include_dropped": settings.include_dropped, "seeds": settings.seeds,
            "order_reversal": settings.order_reversal, "temperature": settings.temperature,
            "rater_temperature": RATER_TEMPERATURE, "max_tokens": settings.max_tokens,
            "rater_max_tokens": settings.rater_max_tokens,
        }

    def outputs(self) -> tuple[Path, ...]:
        return self.settings.out, self.settings.answers_out

    def write(self, answering: list[Answering], collected: Collected[Scored],
              summary: dict) -> None:
        settings = self.settings
        write_scores(score_rows(settings, collected.items.ratings), settings.out,
                     judges={settings.rater: _rater_description()}, extra=summary)
        write_text(settings.answers_out,
                   json.dumps(collected.items.answers, indent=1, ensure_ascii=False) + "\n")

    def written(self, collected: Collected[Scored], summary: dict) -> list[str]:
        return [f"wrote {self.settings.out}: {summary['ratings']} ratings",
                f"wrote {self.settings.answers_out}: {len(collected.items.answers)} answers"]


# ------------------------------------------------------------------------ the ratings

def rated_answers(settings: LmlpaSettings, answering: list[Answering], answered: Phase,
                  rated: Phase | None) -> list[Rated]:
    """Every rating the run has, in plan order (answer, then normal before reversed).  A
    failed or empty answer gets its ratings as invalid, with the reason; a call the
    budget stopped before it started gets none (the run is incomplete)."""
    asked = ratings_asked(settings, answered.texts())
    outcomes = dict(zip(asked, rated.outcomes if rated else [], strict=True))
    ratings = []
    for index, (one, outcome) in enumerate(zip(answering, answered.outcomes, strict=True)):
        for reversed_order in orders(settings):
            missing = _no_answer(outcome)
            if missing is not None:
                ratings.append(Rated(one, reversed_order, None, missing))
                continue
            if outcome.entry is None:
                continue  # never asked: the budget stopped it
            rating = outcomes.get((index, reversed_order))
            if rating is None or (rating.entry is None and rating.failure is None):
                continue
            if rating.failure is not None:
                ratings.append(Rated(one, reversed_order, None,
                                     f"rating call failed: {rating.failure.reason}"))
                continue
            parsed = parse_rating(rating.entry["content"], one.item.trait, reversed_order)
            ratings.append(Rated(one, reversed_order, parsed.number, parsed.note))
    return ratings


def _no_answer(outcome: Outcome) -> str | None:
    """Why an answer cannot be rated, or None (it can, or it was never asked)."""
    if outcome.failure is not None:
        return f"no answer: answer call failed: {outcome.failure.reason}"
    if outcome.entry is not None and not outcome.entry["content"].strip():
        return "no answer: the model's reply was empty"
    return None


def score_rows(settings: LmlpaSettings, ratings: list[Rated]) -> pd.DataFrame:
    """The ratings as scores-file rows: the Likert importer's layout, plus per answer the
    rater's own numbers and the reasons for missing scores (`meta.*`, one value per
    response, so each order has its own column)."""
    index = pd.RangeIndex(len(ratings))
    reversed_order = [r.reversed_order for r in ratings]
    frame = rating_rows(
        settings.dataset,
        pd.Series(settings.model, index=index, dtype=object),
        pd.Series([r.answering.item.id for r in ratings], index=index, dtype=object),
        pd.Series(settings.rater, index=index, dtype=object),
        pd.Series([r.answering.seed for r in ratings], index=index, dtype="Int64"),
        pd.Series(reversed_order, dtype=bool).to_numpy(),
        pd.Series([r.score for r in ratings], index=index, dtype=float))
    per_answer: dict[tuple[str, int], dict[str, str | None]] = {}
    for rating in ratings:
        suffix = "_reversed" if rating.reversed_order else ""
        columns = per_answer.setdefault((rating.answering.item.id, rating.answering.seed), {})
        columns[f"meta.rater_score{suffix}"] = (None if rating.number is None
                                                else str(rating.number))
        columns[f"meta.rating_note{suffix}"] = rating.note
    names = [f"meta.{name}{suffix}" for suffix in (
        ("", "_reversed") if settings.order_reversal else ("",))
        for name in ("rater_score", "rating_note")]
    for name in names:
        frame[name] = [per_answer[(r.answering.item.id, r.answering.seed)].get(name)
                       for r in ratings]
    return frame


def answer_records(settings: LmlpaSettings, answering: list[Answering], answered: Phase
                   ) -> list[dict]:
    """The answers made, as base data: item by item, run by run."""
    return [{"model": settings.model, "item": one.item.id, "seed": one.seed,
             "question": one.item.text, "answer": text}
            for one, text in zip(answering, answered.texts(), strict=True)
            if text is not None]


def _rater_description() -> str:
    return (f"AI rater of LMLPA's open-ended BFI answers ({TOOL}, prompt {RATER_VERSION}, "
            f"temperature {RATER_TEMPERATURE:g})")
