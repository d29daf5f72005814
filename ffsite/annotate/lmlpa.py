"""One `ffsite lmlpa run`: a model answers LMLPA's items, a rater scores the answers, and
the ratings become a scores file (docs/lmlpa.md).

1. Answering: each used item, per seed 0..K-1, in a call of its own to the model
   (`lmlpa_prompt.answer_messages`); the seed is in the request, so runs are separate
   draws and separate cache entries.
2. Rating: the rater, at temperature 0, scores each answer on the item trait's labelled
   scale (and, with order reversal, once more with the options listed from the other
   end).  Both phases go through one `Session`: one client, cache and budget.
3. Storing: the ratings through the Likert importer's row builder (`rating_rows`), so
   imported and collected ratings share one layout; the answers as base data (JSON).

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
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ffsite import bfi
from ffsite._atomic import all_or_nothing, write_text
from ffsite._names import safe_name
from ffsite.annotate.cache import Cache
from ffsite.annotate.calls import Call, Outcome
from ffsite.annotate.client import Endpoint
from ffsite.annotate.cost import Budget
from ffsite.annotate.lmlpa_prompt import (
    ANSWER_VERSION,
    RATER_VERSION,
    answer_messages,
    parse_rating,
    rater_messages,
    trait_point,
)
from ffsite.annotate.plan import MAX_INVALID
from ffsite.annotate.session import (
    Api,
    Phase,
    Session,
    check_name,
    estimate_line,
    report_lines,
    run_numbers,
    run_sync,
)
from ffsite.errors import FfsiteError
from ffsite.format import write_scores
from ffsite.importers.likert import DATASET, rating_rows

TOOL = "ffsite lmlpa run"
ANNOTATIONS = Path("annotations")
ANSWERS = Path("lmlpa-answers")
RATER_TEMPERATURE = 0.0  # as LMLPA: the rater's number should not be a draw
RATER_MAX_TOKENS = 64  # the rater replies with a number; room for a label or a few words
# --dry-run's guesses: a one-sentence answer, and the words that stand in for an answer
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


def default_out(model: str) -> Path:
    return ANNOTATIONS / "lmlpa" / f"{safe_name(model)}.parquet"


def default_answers_out(model: str) -> Path:
    return ANSWERS / f"{safe_name(model)}.json"


def check_paths(out: Path, answers_out: Path) -> None:
    """The answers are texts: base data, never in an annotations folder (the site reads
    every file there) nor beside the scores file."""
    answers = answers_out.resolve()
    folders = answers.parents
    if (ANNOTATIONS.resolve() in folders or any(f.name == ANNOTATIONS.name for f in folders)
            or answers.parent == out.resolve().parent):
        raise FfsiteError(f"--answers-out {answers_out}: the answers are texts and stay out "
                          "of annotation folders and away from the scores file; give a "
                          f"path outside them (default: {ANSWERS}/<model>.json)")


def check_names(settings: LmlpaSettings) -> None:
    """Names the scores file can hold, checked before any call is paid for."""
    for flag, value in (("--model", settings.model), ("--rater", settings.rater),
                        ("--dataset", settings.dataset)):
        check_name(flag, value)


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


# ------------------------------------------------------------------------ the run

def run_lmlpa(settings: LmlpaSettings, endpoint: Endpoint, *, dry: bool = False,
              echo: Callable[[str], None] = print) -> dict | None:
    """Run (or with `dry`, estimate) one model's answers and ratings; return the file's
    summary."""
    check_paths(settings.out, settings.answers_out)
    check_names(settings)
    answering = plan(settings)
    if dry:
        for line in dry_run(settings, answering):
            echo(line)
        return None
    started = time.monotonic()
    settings.api.check_prices([settings.model, settings.rater])
    answered, rated, asked, budget, damaged = run_sync(_execute(settings, endpoint,
                                                                   answering))
    ratings = collect(settings, answering, answered, rated, asked)
    if not ratings:
        raise FfsiteError("nothing was rated: the --max-cost budget ran out before the "
                          "first rating (answers already made are cached); raise it (see "
                          "--dry-run for the estimate)")
    frame = score_rows(settings, ratings)
    summary = _summary(settings, answering, answered, rated, ratings, not budget.stopped)
    _check_invalid(settings, ratings, summary)
    records = answer_records(settings, answering, answered)
    with all_or_nothing(settings.out, settings.answers_out):
        write_scores(frame, settings.out, judges={settings.rater: _rater_description()},
                     extra=summary)
        write_text(settings.answers_out,
                   json.dumps(records, indent=1, ensure_ascii=False) + "\n")
    for line in _report(settings, summary, answered, rated, budget, len(records),
                        time.monotonic() - started, damaged):
        echo(line)
    return summary


async def _execute(settings: LmlpaSettings, endpoint: Endpoint, answering: list[Answering]
                   ) -> tuple[Phase, Phase | None, list[tuple[int, bool]], Budget, int]:
    """Both phases; also which ratings were asked for and how many damaged cache entries
    were ignored."""
    async with Session(settings.api, endpoint) as session:
        answered = await session.run("answer", [answer_call(settings, a) for a in answering])
        texts = answered.texts()
        asked = ratings_asked(settings, texts)
        rated = None
        if asked:
            rated = await session.run("rate", [
                rating_call(settings, answering[index], texts[index], reversed_order)
                for index, reversed_order in asked])
    return answered, rated, asked, session.budget, session.cache.damaged


def dry_run(settings: LmlpaSettings, answering: list[Answering]) -> list[str]:
    """Calls, tokens and cost per model, answers and ratings apart; nothing is sent.
    Cached answers are rated as they are; an answer not made yet is priced with a stand-in
    of a typical length."""
    cache = Cache(settings.api.cache_dir)
    calls = [answer_call(settings, a) for a in answering]
    texts = [(cache.get(call.key) or {}).get("content", STAND_IN_ANSWER) for call in calls]
    asked = ratings_asked(settings, texts)
    ratings = [rating_call(settings, answering[index], texts[index], reversed_order)
               for index, reversed_order in asked]
    return [
        _headline(settings),
        estimate_line("answers", settings.model, calls,
                      [min(settings.max_tokens, ANSWER_TOKENS)] * len(calls), cache),
        estimate_line("ratings", settings.rater, ratings, [RATING_TOKENS] * len(ratings),
                      cache),
        "dry run: nothing was sent",
    ]


# ------------------------------------------------------------------------ the ratings

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


def collect(settings: LmlpaSettings, answering: list[Answering], answered: Phase,
            rated: Phase | None, asked: list[tuple[int, bool]]) -> list[Rated]:
    """Every rating the run has, in plan order (answer, then normal before reversed).  A
    failed or empty answer gets its ratings as invalid, with the reason; a call the
    budget stopped before it started gets none (the run is incomplete)."""
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


# ------------------------------------------------------------------ summary, report

def _summary(settings: LmlpaSettings, answering: list[Answering], answered: Phase,
             rated: Phase | None, ratings: list[Rated], complete: bool) -> dict:
    """The run's numbers for the file: deterministic (from cached answers in plan order;
    no times, no split into new and cached calls), so a resumed run writes the same
    bytes as an uninterrupted one."""
    return {
        "tool": TOOL, "dataset": settings.dataset, "model": settings.model,
        "rater": settings.rater, "answer_prompt": ANSWER_VERSION,
        "rater_prompt": RATER_VERSION, "items": len({a.item.id for a in answering}),
        "include_dropped": settings.include_dropped, "seeds": settings.seeds,
        "order_reversal": settings.order_reversal, "temperature": settings.temperature,
        "rater_temperature": RATER_TEMPERATURE, "max_tokens": settings.max_tokens,
        "rater_max_tokens": settings.rater_max_tokens,
        **run_numbers({"answer": answered, "rating": rated}, counted="ratings",
                      n=len(ratings), invalid=sum(r.number is None for r in ratings),
                      complete=complete),
    }


def _check_invalid(settings: LmlpaSettings, ratings: list[Rated], summary: dict) -> None:
    """Refuse to write a file whose ratings are mostly failures: a run where every call
    failed would otherwise look like a result."""
    if summary["invalid_rate"] <= settings.max_invalid:
        return
    raise FfsiteError(f"{summary['invalid_rate']:.1%} of the ratings are invalid, more than "
                      f"--max-invalid {settings.max_invalid:.0%} (most common reason: "
                      f"{_common_reason(ratings)[:200]}); nothing was written; fix the "
                      "cause and rerun (answered calls are cached)")


def _common_reason(ratings: list[Rated]) -> str:
    notes = Counter(r.note for r in ratings if r.note is not None)
    # Ties go to the reason met first, so the message is the same on every run.
    return notes.most_common(1)[0][0] if notes else "no reason recorded"


def _rater_description() -> str:
    return (f"AI rater of LMLPA's open-ended BFI answers ({TOOL}, prompt {RATER_VERSION}, "
            f"temperature {RATER_TEMPERATURE:g})")


def _headline(settings: LmlpaSettings) -> str:
    items = len(bfi.instrument().used(settings.include_dropped))
    return (f"lmlpa run: {settings.model} answers {items} items x {settings.seeds} "
            f"run{'s' if settings.seeds != 1 else ''}, rated by {settings.rater}"
            + (" in both option orders" if settings.order_reversal else ""))


def _report(settings: LmlpaSettings, summary: dict, answered: Phase, rated: Phase | None,
            budget: Budget, n_answers: int, elapsed: float, damaged: int) -> list[str]:
    new = answered.new + (rated.new if rated else 0)
    lines = [_headline(settings),
             *report_lines(summary, new=new, elapsed=elapsed, damaged=damaged,
                           max_cost=settings.api.max_cost, spent=budget.spent,
                           counted="ratings")]
    lines.append(f"wrote {settings.out}: {summary['ratings']} ratings")
    lines.append(f"wrote {settings.answers_out}: {n_answers} answers")
    return lines
