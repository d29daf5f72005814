"""A scored protocol as a collecting method: the model answers, the judges score.

1. **Answers.** Every prompt of the dataset, `answer_sets` times (answer set k is part
   of the call's cache key, not of its request: the protocol's request is the same each
   time, and the provider's sampling makes the sets independent).
2. **Judging.** Each judge scores each unit (the dataset's: one answer, or a set read
   together) `repetitions` times; a reply without every score is asked again, up to
   `reasks` times (a new call each: its attempt is in the key).
3. **Scores.** One score per (unit, judge, repetition, trait) under the judge's name, or
   where the dataset publishes only its judges' mean (`ScoredProtocol.panel`), that mean
   per (unit, trait), each judge's repetitions averaged first, and only when every judge
   scored the trait: a mean of fewer judges would not be the dataset's number.  A score
   that could not be made is a rating without a score, its reason in the run's answers
   file, and counts against the invalid share.
4. **Files.** The scores file (numbers; its summary says how the run compares with the
   dataset: `compare.py`) and beside it the answers and every judge's reply (base data).

Names, the estimate, the budget, the invalid share, the write and the report are the
skeleton's (collect/run.py).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite._atomic import write_text
from ffsite.collect.api import Cache, Estimate, Outcome, Phase, Session
from ffsite.collect.protocol import compare
from ffsite.collect.protocol.scored_plan import (
    Asked,
    Plan,
    ScoredSettings,
    answer_call,
    judge_call,
    judged,
    make_plan,
)
from ffsite.collect.protocol.spec import AnswerKey, Verdict
from ffsite.collect.run import Collected, Method, Phases
from ffsite.format import write_scores

TOOL = "ffsite protocol run"


# ------------------------------------------------------------------------ the method

@dataclass(frozen=True)
class Judgement:
    """What became of one (unit, judge, repetition): its verdict and raw replies, or why
    there is none; `sent` False when the budget never sent it."""

    asked: Asked
    verdict: Verdict | None
    replies: list[str]
    failure: str | None
    sent: bool


@dataclass(frozen=True)
class Scored:
    frame: pd.DataFrame  # scores-file rows (NaN: no score)
    record: dict  # the answers file
    keys: list[str]  # every answered call's cache key (the run's date)


@dataclass(frozen=True)
class ScoredRun(Method[Plan, Scored]):
    """A model through a scored protocol (collect/run.py: `Method`)."""

    settings: ScoredSettings

    tool = TOOL
    counted = "ratings"
    nothing = ("nothing was scored: the {max_cost} budget ran out before the first judge "
               "call (answers already made are cached); raise it (see {dry_run})")

    def names(self) -> list[tuple[str, str]]:
        return [("model", self.settings.model),
                *(("judges", judge.name) for judge in self.settings.judges),
                *(("judges", judge.model) for judge in self.settings.judges)]

    def plan(self) -> Plan:
        return make_plan(self.settings)

    def headline(self, plan: Plan) -> str:
        settings, protocol = self.settings, self.settings.protocol
        judges = ", ".join(j.name if j.name == j.model else f"{j.name} ({j.model})"
                           for j in settings.judges)
        line = (f"protocol {protocol.name}: {settings.model} answers {len(plan.answers)} "
                f"prompts; {len(plan.units)} {protocol.unit}s scored by {judges}, "
                f"{settings.repetitions}x each")
        return line + ("" if plan.variant.comparable else
                       f"; apart from {protocol.dataset} ({'; '.join(plan.variant.differs)})")

    def estimate(self, plan: Plan, cache: Cache) -> list[Estimate | str]:
        """Answers, then each judge's calls on the cached answers or, where none is
        cached yet, a stand-in of a typical answer's length."""
        settings, protocol = self.settings, self.settings.protocol
        calls = [answer_call(settings, key) for key in plan.answers]
        stand_in = "word " * (protocol.answer_tokens * 4 // 5)
        texts = {key: settings.material.clean(
            (cache.get(call.key) or {}).get("content", stand_in))
            for key, call in zip(plan.answers, calls, strict=True)}
        lines: list[Estimate | str] = [Estimate(
            "answers", settings.model, calls,
            [min(settings.max_tokens, protocol.answer_tokens)] * len(calls))]
        asked = judged(settings, plan, texts)
        for index, judge in enumerate(settings.judges):
            mine = [judge_call(settings, plan, a, texts, 0) for a in asked if a.judge == index]
            lines.append(Estimate(f"judge {judge.name}", judge.model, mine,
                                  [min(settings.judge_max_tokens, protocol.verdict_tokens)]
                                  * len(mine)))
        if settings.reasks:
            lines.append(f"re-asks: up to {settings.reasks} per unreadable verdict, not "
                         "counted above")
        return lines

    def models(self, plan: Plan) -> list[str]:
        return [self.settings.model, *(judge.model for judge in self.settings.judges)]

    async def collect(self, plan: Plan, session: Session) -> Phases:
        """Answers and judge calls as streams: a unit's judges are called as soon as its
        answers are in (no wait for the last answer of the run); re-asks after."""
        settings = self.settings
        answering = session.stream("answer", len(plan.answers))
        judging = session.stream("judge", len(plan.units) * len(settings.judges)
                                 * settings.repetitions)
        asked_for: dict[AnswerKey, asyncio.Task] = {}

        async def answer(key: AnswerKey) -> Outcome:
            (outcome,) = await answering.send([answer_call(settings, key)])
            return outcome

        async def unit(index: int) -> list[Outcome]:
            parts = plan.units[index].parts
            for key in parts:  # each answer asked once, however many units show it
                if key not in asked_for:
                    asked_for[key] = asyncio.ensure_future(answer(key))
            done = await asyncio.gather(*(asked_for[key] for key in parts))
            if any(o.entry is None for o in done):
                return []
            texts = {key: settings.material.clean(o.entry["content"])
                     for key, o in zip(parts, done, strict=True)}
            calls = [judge_call(settings, plan, Asked(index, j, r), texts, 0)
                     for j in range(len(settings.judges)) for r in range(settings.repetitions)]
            return await judging.send(calls)

        try:
            judged_units = await asyncio.gather(*(unit(u) for u in range(len(plan.units))))
        finally:
            answering.close()
            judging.close()
        answered = Phase([answer_call(settings, key) for key in plan.answers],
                         [asked_for[key].result() for key in plan.answers])
        texts = _texts(settings, plan, answered)
        asked = judged(settings, plan, texts)  # the order `judged_units` is in
        first = Phase([judge_call(settings, plan, a, texts, 0) for a in asked],
                      [o for outcomes in judged_units for o in outcomes]) if asked else None
        again = Phase([], [])
        pending = [a for a, bad in zip(asked, _unreadable(settings, first.outcomes),
                                       strict=True) if bad] if first else []
        for attempt in range(1, settings.reasks + 1):
            if not pending:
                break
            phase = await session.run(f"re-ask {attempt}", [
                judge_call(settings, plan, a, texts, attempt) for a in pending])
            again = Phase(again.calls + phase.calls, again.outcomes + phase.outcomes)
            pending = [a for a, still in zip(pending, _unreadable(settings, phase.outcomes),
                                             strict=True) if still]
        return {"answer": answered, "judge": first, "reask": again if again.calls else None}

    def result(self, plan: Plan, phases: Phases) -> Collected[Scored]:
        settings = self.settings
        texts = _texts(settings, plan, phases["answer"])
        failed = {key: outcome.failure.reason for key, outcome in zip(
            plan.answers, phases["answer"].outcomes, strict=True) if outcome.failure}
        judgements = _judgements(settings, plan, texts, phases)
        frame = _rows(settings, plan, judgements, failed)
        invalid = frame.loc[frame["score"].isna(), "note"].tolist()
        record = _record(settings, plan, phases["answer"], judgements)
        keys = [call.key for phase in phases.values() if phase
                for call, outcome in zip(phase.calls, phase.outcomes, strict=True)
                if outcome.entry is not None]
        return Collected(Scored(frame.drop(columns="note"), record, keys), len(frame),
                         invalid)

    def summary(self, plan: Plan, collected: Collected[Scored]) -> dict:
        settings, protocol = self.settings, self.settings.protocol
        return {
            "tool": TOOL, **compare.summary_fields(protocol, plan.variant),
            "dataset": plan.dataset, "model": settings.model,
            "judges": [j.name for j in settings.judges],
            "judge_models": [j.model for j in settings.judges],
            "panel": protocol.panel if plan.variant.comparable else None,
            "unit": protocol.unit, "units": len(plan.units),
            "prompts": len({k[0] for k in plan.answers}),
            "answer_sets": settings.answer_sets, "repetitions": settings.repetitions,
            "reasks": settings.reasks, "temperature": settings.temperature,
            "max_tokens": settings.max_tokens,
            "judge_temperature": settings.judge_temperature,
            "judge_max_tokens": settings.judge_max_tokens, "limit": settings.limit,
            "date": Cache(settings.api.cache_dir).answered_on(collected.items.keys),
        }

    def outputs(self) -> tuple[Path, ...]:
        return self.settings.out, self.settings.answers_out

    def write(self, plan: Plan, collected: Collected[Scored], summary: dict) -> None:
        settings, protocol = self.settings, self.settings.protocol
        judges = ([summary["panel"]] if summary["panel"] else
                  [" + ".join(summary["judges"])] if protocol.panel else summary["judges"])
        write_scores(collected.items.frame, settings.out,
                     judges={j: protocol.describe_judge(j) for j in judges}, extra=summary)
        write_text(settings.answers_out, json.dumps(collected.items.record, indent=1,
                                                    ensure_ascii=False) + "\n")

    def detail(self, summary: dict) -> str:
        return (f": {summary['answer_calls']} answers, {summary['judge_calls']} judge "
                f"calls, {summary['reask_calls']} re-asks")

    def written(self, collected: Collected[Scored], summary: dict) -> list[str]:
        settings = self.settings
        where = ("ranked with the dataset's models" if summary["comparable"] else
                 f"kept apart as {summary['dataset']}")
        return [f"wrote {settings.out}: {summary['ratings']} ratings ({where}); answers "
                f"and judge replies in {settings.answers_out}",
                f"next: ffsite validate {settings.out} against the site's annotations"]


# ---------------------------------------------------------------------- the answers

def _texts(settings: ScoredSettings, plan: Plan, answered: Phase) -> dict[AnswerKey, str]:
    return {key: settings.material.clean(text) for key, text in zip(
        plan.answers, answered.texts(), strict=True) if text is not None}


def _unreadable(settings: ScoredSettings, outcomes: list[Outcome]) -> list[bool]:
    """Per call, whether it was answered without every score (so it is asked again)."""
    return [outcome.entry is not None and not settings.material.read(
        outcome.entry["content"]).whole for outcome in outcomes]


def _judgements(settings: ScoredSettings, plan: Plan, texts: dict, phases: Phases
                ) -> list[Judgement]:
    """Per judge call of `judged`, in order: the first whole verdict among its attempts,
    else the last one read, else why it failed; re-asks are matched by their calls."""
    asked = judged(settings, plan, texts)
    first = phases["judge"].outcomes if phases["judge"] else [Outcome()] * len(asked)
    later: dict[str, Outcome] = {}
    if phases["reask"] is not None:
        later = {call.key: o for call, o in zip(phases["reask"].calls,
                                               phases["reask"].outcomes, strict=True)}
    found = []
    for one, outcome in zip(asked, first, strict=True):
        replies, verdict, failure = [], None, None
        for attempt in range(settings.reasks + 1):
            if attempt:
                outcome = later.get(judge_call(settings, plan, one, texts, attempt).key)
                if outcome is None:
                    break
            if outcome.entry is not None:
                replies.append(outcome.entry["content"])
                verdict = settings.material.read(outcome.entry["content"])
                if verdict.whole:
                    break
            elif outcome.failure is not None:
                failure = outcome.failure.reason
                break
        sent = bool(replies) or failure is not None
        found.append(Judgement(one, verdict, replies, failure, sent))
    return found


def _rows(settings: ScoredSettings, plan: Plan, judgements: list[Judgement],
          failed: dict) -> pd.DataFrame:
    """Score rows (with `note`): per judge and repetition, or the judges' mean."""
    protocol = settings.protocol
    keys = [t.key for t in protocol.traits]
    rows: list[tuple[int, str, int | None, str, float, str | None]] = []
    by_unit: dict[int, list[Judgement]] = {}
    for one in judgements:
        by_unit.setdefault(one.asked.unit, []).append(one)
    for u, unit in enumerate(plan.units):
        lost = [failed[p] for p in unit.parts if p in failed]
        if lost:
            note = f"no answer: answer call failed: {lost[0]}"
            who = ([(None, None)] if protocol.panel else
                   [(j, r) for j in range(len(settings.judges))
                    for r in range(settings.repetitions)])
            rows += [(u, k, r, j, np.nan, note) for j, r in who for k in keys]
            continue
        mine = by_unit.get(u, [])
        # A call the budget never sent gives no row (the run is incomplete); a mean
        # needs every judge's.
        if protocol.panel:
            if mine and all(one.sent for one in mine):
                rows += _mean_rows(settings, u, mine, keys)
            continue
        rows += [(u, k, one.asked.repetition, one.asked.judge, *_score(one, k))
                 for one in mine if one.sent for k in keys]
    return _frame(settings, plan, rows)


def _score(one: Judgement, key: str) -> tuple[float, str | None]:
    if one.failure is not None:
        return np.nan, f"judge call failed: {one.failure}"
    value = one.verdict.scores[key]
    return (np.nan, one.verdict.notes[key]) if value is None else (value, None)


def _mean_rows(settings: ScoredSettings, u: int, mine: list[Judgement], keys: list[str]
               ) -> list[tuple]:
    """The judges' mean per trait: each judge's repetitions averaged, then the judges;
    no mean unless every judge has a score."""
    rows = []
    for key in keys:
        means, missing = [], None
        for j, judge in enumerate(settings.judges):
            values = [_score(one, key) for one in mine if one.asked.judge == j]
            scores = [value for value, _ in values if not np.isnan(value)]
            if not scores:
                missing = missing or f"{judge.name}: {next(n for _, n in values)}"
                continue
            means.append(float(np.mean(scores)))
        rows.append((u, key, None, None, np.nan if missing else float(np.mean(means)),
                     f"no mean of every judge: {missing}" if missing else None))
    return rows


def _frame(settings: ScoredSettings, plan: Plan, rows: list[tuple]) -> pd.DataFrame:
    protocol = settings.protocol
    traits = {t.key: t for t in protocol.traits}
    comparable = plan.variant.comparable
    names = [j.name for j in settings.judges]
    mean_name = protocol.panel if comparable else " + ".join(names)
    units = plan.units
    meta = sorted({name for unit in units for name in unit.meta})
    frame = pd.DataFrame({
        "dataset": plan.dataset,
        "response_id": [units[u].response_id for u, *_ in rows],
        "prompt_id": [units[u].prompt_id for u, *_ in rows],
        "model": settings.model,
        "condition": [units[u].condition for u, *_ in rows],
        "judge": [mean_name if j is None else names[j] for _, _, _, j, _, _ in rows],
        "trait_id": [traits[k].id for _, k, *_ in rows],
        "trait": [traits[k].wording for _, k, *_ in rows],
        "trait_set": protocol.trait_set,
        "scale_min": protocol.scale[0], "scale_max": protocol.scale[1],
        "seed": pd.array([r for _, _, r, *_ in rows], dtype="Int64"),
        "score": np.array([s for *_, s, _ in rows], float),
        "note": [n for *_, n in rows],
        **{f"meta.{name}": [units[u].meta.get(name) for u, *_ in rows] for name in meta},
    })
    return frame


def _record(settings: ScoredSettings, plan: Plan, answered: Phase,
            judgements: list[Judgement]) -> dict:
    """The run's texts, base data: every answer, and every judge's replies as given."""
    units = plan.units
    return {
        "protocol": settings.protocol.name, "version": settings.protocol.version,
        "model": settings.model,
        "answers": [{"prompt_id": key[0], "answer_set": key[1],
                     "answer": settings.material.clean(text)}  # as the dataset stores it
                    for key, text in zip(plan.answers, answered.texts(), strict=True)
                    if text is not None],
        "judgements": [{"response_id": units[one.asked.unit].response_id,
                        "judge": settings.judges[one.asked.judge].name,
                        "repetition": one.asked.repetition, "replies": one.replies,
                        "failure": one.failure,
                        "notes": {k: n for k, n in (one.verdict.notes.items()
                                                    if one.verdict else ()) if n}}
                       for one in judgements if one.sent],
    }
