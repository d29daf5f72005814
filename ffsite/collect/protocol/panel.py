"""A panel protocol as a collecting method: answers, then one judge per comparison.

1. **Answers.** Every model being added (and the anchor, when no earlier run answered
   for it) answers every question once: one user turn, no system prompt.  Models
   already rated bring their answers from earlier runs (`population`).
2. **Comparisons.** `design.py`: per trait, each added model's target of comparisons,
   the anchor oversampled, each to one judge of the panel in balance.
3. **Judging.** One call per comparison: the trait and its definition, the question and
   the two answers (the order a seeded coin); the judge says A, B or tie.  A reply that
   cannot be read is asked again, up to `reasks` times.
4. **Votes.** One vote per comparison on its trait, under the panel's name (the member
   who judged it in `meta.judge`), turned back to the file's sides: Bradley-Terry with
   Firth (`ffsite ratings`) and the indices read them as they read any trait votes.
   Apart runs (compare.py) file their traits as `<trait id>@<judge key>`.
5. **Files.** The votes file, the answers made in this run beside it (base data, which
   later runs bring as their population) and their communication traits.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ffsite._atomic import write_text
from ffsite.collect.api import Api, Cache, Call, Estimate, Outcome, Phase, Session
from ffsite.collect.files import communication_file
from ffsite.collect.protocol import compare
from ffsite.collect.protocol.design import Comparison, design
from ffsite.collect.protocol.spec import Judge, PanelProtocol, Question
from ffsite.collect.run import MAX_INVALID, Collected, Method, Phases, invalid_votes
from ffsite.errors import ParameterError
from ffsite.format import schema
from ffsite.format.write import write_response_metrics, write_votes
from ffsite.judges.apply import communication_rows, measure
from ffsite.metrics.judges import judge_trait_id
from ffsite.sides import assign_sides, swapped

TOOL = "ffsite protocol run"


@dataclass(frozen=True)
class PanelSettings:
    protocol: PanelProtocol
    models: tuple[str, ...]  # being added
    judges: tuple[Judge, ...]
    population: Mapping[str, Mapping[str, str]]  # rated model -> question id -> answer
    api: Api
    out: Path
    responses_out: Path
    anchor: str
    comparisons: int
    anchor_share: float
    reasks: int
    temperature: float | None
    max_tokens: int
    judge_temperature: float | None
    judge_max_tokens: int
    seed: int = 0
    limit: int | None = None  # the first N comparisons of each trait: a trial
    max_invalid: float = MAX_INVALID

    @property
    def chosen(self) -> dict:
        return {name: getattr(self, name) for name in self.protocol.settings}


@dataclass(frozen=True)
class Plan:
    questions: tuple[Question, ...]
    answering: list[tuple[str, str]]  # (model, question id) this run asks
    comparisons: list[Comparison]
    variant: compare.Variant
    judge_key: str  # the votes' judge: the panel, or the apart label


# ------------------------------------------------------------------------- the calls

def _body(model: str, messages: list, temperature: float | None, max_tokens: int) -> dict:
    body = {"model": model, "messages": messages, "max_tokens": max_tokens}
    if temperature is not None:
        body["temperature"] = temperature
    return body


def answer_call(settings: PanelSettings, text: str, model: str) -> Call:
    body = _body(model, [{"role": "user", "content": text}], settings.temperature,
                 settings.max_tokens)
    return settings.api.call("protocol-answer", body, protocol=settings.protocol.version)


def judge_call(settings: PanelSettings, plan: Plan, one: Comparison,
               texts: Mapping[tuple[str, str], str], attempt: int) -> Call:
    protocol = settings.protocol
    trait = next(t for t in protocol.traits if t.id == one.trait)
    question = _question(plan, one.question).text
    shown = (one.second, one.first) if one.shown_swapped else (one.first, one.second)
    messages = protocol.messages(trait, question, texts[(shown[0], one.question)],
                                 texts[(shown[1], one.question)])
    judge = settings.judges[one.judge]
    return settings.api.call("protocol-compare", _body(
        judge.model, messages, settings.judge_temperature, settings.judge_max_tokens),
        protocol=protocol.version, comparison=one.id, attempt=attempt)


def _question(plan: Plan, question_id: str) -> Question:
    return next(q for q in plan.questions if q.id == question_id)


def _texts(settings: PanelSettings, plan: Plan, answered: Phase | None
           ) -> dict[tuple[str, str], str]:
    texts = {(model, q): text for model, answers in settings.population.items()
             for q, text in answers.items()}
    if answered is not None:
        texts.update({key: text for key, text in zip(plan.answering, answered.texts(),
                                                     strict=True) if text is not None})
    return texts


def _ready(plan: Plan, texts: Mapping) -> list[Comparison]:
    return [c for c in plan.comparisons
            if (c.first, c.question) in texts and (c.second, c.question) in texts]


def make_plan(settings: PanelSettings) -> Plan:
    protocol = settings.protocol
    questions = protocol.questions()
    by_trait = {t.id: [q.id for q in questions if q.trait_id == t.id]
                for t in protocol.traits}
    rated = set(settings.population)
    again = sorted(rated & set(settings.models))
    if again:
        raise ParameterError(f"{{model}} {again[0]} already has answers in the "
                             "{population}; leave it out of one of them", "model",
                             "population")
    asked = [*settings.models, *([settings.anchor] if settings.anchor not in rated
                                 and settings.anchor not in settings.models else [])]
    comparisons = design(by_trait, settings.models, sorted(rated), settings.anchor,
                         target=settings.comparisons, anchor_share=settings.anchor_share,
                         judges=len(settings.judges), seed=settings.seed)
    if settings.limit is not None:
        seen: dict[str, int] = {}
        kept = []
        for one in comparisons:
            seen[one.trait] = seen.get(one.trait, 0) + 1
            if seen[one.trait] <= settings.limit:
                kept.append(one)
        comparisons = kept
    answering = [(m, q.id) for m in asked for q in questions]
    if settings.limit is not None:  # a trial answers only what its comparisons show
        shown = {(m, c.question) for c in comparisons for m in (c.first, c.second)}
        answering = [key for key in answering if key in shown]
    if not comparisons:
        raise ParameterError("nothing to compare: check {model}, {anchor} and {limit}",
                             "model", "anchor", "limit")
    found = compare.variant(protocol, settings.judges, settings.chosen)
    key = protocol.panel if found.comparable else found.label
    return Plan(questions, answering, comparisons, found, key)


# ------------------------------------------------------------------------ the method

@dataclass(frozen=True)
class Judged:
    frame: pd.DataFrame  # votes-file rows
    answers: list[dict]  # the answers made in this run (base data)
    texts: dict  # (model, question id) -> answer, every one the run had
    keys: list[str]  # every answered call's cache key (the run's date)


@dataclass(frozen=True)
class PanelRun(Method[Plan, Judged]):
    """Models through a panel protocol (collect/run.py: `Method`)."""

    settings: PanelSettings

    tool = TOOL
    counted = "votes"
    nothing = ("nothing was compared: the {max_cost} budget ran out before the first "
               "judge call (answers already made are cached); raise it (see {dry_run})")

    def names(self) -> list[tuple[str, str]]:
        settings = self.settings
        return [*(("model", m) for m in settings.models), ("anchor", settings.anchor),
                *(("judges", j.model) for j in settings.judges),
                *(("population", m) for m in settings.population)]

    def plan(self) -> Plan:
        return make_plan(self.settings)

    def headline(self, plan: Plan) -> str:
        settings, protocol = self.settings, self.settings.protocol
        line = (f"protocol {protocol.name}: {', '.join(settings.models)} "
                f"({len(settings.population)} rated models already); "
                f"{len(plan.comparisons)} comparisons on {len(protocol.traits)} traits, "
                f"anchor {settings.anchor}, judged by "
                f"{', '.join(j.model for j in settings.judges)}")
        return line + ("" if plan.variant.comparable else
                       f"; apart from {protocol.dataset} ({'; '.join(plan.variant.differs)})")

    def estimate(self, plan: Plan, cache: Cache) -> list[Estimate | str]:
        settings, protocol = self.settings, self.settings.protocol
        text = {q.id: q.text for q in plan.questions}
        lines: list[Estimate | str] = []
        stand_in = "word " * (protocol.answer_tokens * 4 // 5)
        texts = _texts(settings, plan, None)
        for model in dict.fromkeys(m for m, _ in plan.answering):
            keys = [k for k in plan.answering if k[0] == model]
            calls = [answer_call(settings, text[q], model) for _, q in keys]
            texts.update({key: (cache.get(call.key) or {}).get("content", stand_in)
                          for key, call in zip(keys, calls, strict=True)})
            lines.append(Estimate("answers", model, calls, [
                min(settings.max_tokens, protocol.answer_tokens)] * len(calls)))
        for index, judge in enumerate(settings.judges):
            calls = [judge_call(settings, plan, c, texts, 0) for c in plan.comparisons
                     if c.judge == index]
            lines.append(Estimate(f"judge {index + 1}", judge.model, calls, [
                min(settings.judge_max_tokens, protocol.verdict_tokens)] * len(calls)))
        if settings.reasks:
            lines.append(f"re-asks: up to {settings.reasks} per unreadable verdict, not "
                         "counted above")
        return lines

    def models(self, plan: Plan) -> list[str]:
        return list(dict.fromkeys([*(m for m, _ in plan.answering),
                                   *(j.model for j in self.settings.judges)]))

    async def collect(self, plan: Plan, session: Session) -> Phases:
        """Answers and comparisons as streams: a comparison is sent as soon as its two
        answers are in; re-asks after."""
        settings = self.settings
        text = {q.id: q.text for q in plan.questions}
        texts = _texts(settings, plan, None)  # the population's, then each answer made
        answering = session.stream("answer", len(plan.answering))
        judging = session.stream("judge", len(plan.comparisons))

        async def answer(key: tuple[str, str]) -> Outcome:
            (outcome,) = await answering.send([answer_call(settings, text[key[1]], key[0])])
            if outcome.entry is not None:
                texts[key] = outcome.entry["content"]
            return outcome

        asked_for = {key: asyncio.ensure_future(answer(key)) for key in plan.answering}

        async def compare(one: Comparison) -> Outcome | None:
            keys = [(one.first, one.question), (one.second, one.question)]
            await asyncio.gather(*(asked_for[k] for k in keys if k in asked_for))
            if not all(k in texts for k in keys):
                return None
            (outcome,) = await judging.send([judge_call(settings, plan, one, texts, 0)])
            return outcome

        try:
            compared = await asyncio.gather(*(compare(c) for c in plan.comparisons))
            await asyncio.gather(*asked_for.values())  # (answers no comparison shows)
        finally:
            answering.close()
            judging.close()
        answered = Phase([answer_call(settings, text[q], m) for m, q in plan.answering],
                         [asked_for[key].result() for key in plan.answering])
        ready = _ready(plan, texts)
        first = Phase([judge_call(settings, plan, c, texts, 0) for c in ready],
                      [o for o in compared if o is not None]) if ready else None
        again = Phase([], [])
        pending = [c for c, o in zip(ready, first.outcomes, strict=True)
                   if o.entry and _read(settings, o.entry["content"])[0] is None
                   ] if first else []
        for attempt in range(1, settings.reasks + 1):
            if not pending:
                break
            phase = await session.run(f"re-ask {attempt}", [
                judge_call(settings, plan, c, texts, attempt) for c in pending])
            again = Phase(again.calls + phase.calls, again.outcomes + phase.outcomes)
            pending = [c for c, o in zip(pending, phase.outcomes, strict=True)
                       if o.entry and _read(settings, o.entry["content"])[0] is None]
        return {"answer": answered, "judge": first, "reask": again if again.calls else None}

    def result(self, plan: Plan, phases: Phases) -> Collected[Judged]:
        settings = self.settings
        texts = _texts(settings, plan, phases["answer"])
        failed = {key: o.failure.reason for key, o in zip(
            plan.answering, phases["answer"].outcomes, strict=True) if o.failure}
        verdicts = _verdicts(settings, plan, texts, phases)
        frame = _votes(settings, plan, verdicts, failed)
        answers = [{"model": m, "question_id": q, "trait_id": _question(plan, q).trait_id,
                    "question": _question(plan, q).text, "answer": texts[(m, q)]}
                   for m, q in plan.answering if (m, q) in texts]
        keys = [call.key for phase in phases.values() if phase
                for call, outcome in zip(phase.calls, phase.outcomes, strict=True)
                if outcome.entry is not None]
        return Collected(Judged(frame, answers, texts, keys), len(frame),
                         invalid_votes(frame))

    def summary(self, plan: Plan, collected: Collected[Judged]) -> dict:
        settings, protocol = self.settings, self.settings.protocol
        frame = collected.items.frame
        return {
            "tool": TOOL, **compare.summary_fields(protocol, plan.variant),
            "dataset": protocol.dataset, "model": settings.models[0]
            if len(settings.models) == 1 else None, "models": list(settings.models),
            "population": sorted(settings.population), "anchor": settings.anchor,
            "judge": plan.judge_key, "judges": [j.name for j in settings.judges],
            "judge_models": [j.model for j in settings.judges],
            "trait_set": "+".join(sorted(set(frame["trait_set"]))) if len(frame) else None,
            "traits": int(frame["trait_id"].nunique()) if len(frame) else 0,
            "comparisons_per_trait": settings.comparisons,
            "anchor_share": settings.anchor_share, "seed": settings.seed,
            "reasks": settings.reasks, "temperature": settings.temperature,
            "max_tokens": settings.max_tokens,
            "judge_temperature": settings.judge_temperature,
            "judge_max_tokens": settings.judge_max_tokens, "limit": settings.limit,
            "date": Cache(settings.api.cache_dir).answered_on(collected.items.keys),
        }

    def outputs(self) -> tuple[Path, ...]:
        out = self.settings.out
        return out, self.settings.responses_out, communication_file(out)

    def write(self, plan: Plan, collected: Collected[Judged], summary: dict) -> None:
        settings = self.settings
        write_votes(collected.items.frame, settings.out, extra=summary)
        write_text(settings.responses_out,
                   json.dumps(collected.items.answers, indent=1, ensure_ascii=False) + "\n")
        answers = collected.items.answers
        ids = [f"{a['model']}/{a['question_id']}" for a in answers]
        features = measure(ids, dict(zip(ids, (a["answer"] for a in answers), strict=True)))
        responses = pd.DataFrame({"dataset": settings.protocol.dataset, "response_id": ids,
                                  "prompt_id": [a["question_id"] for a in answers],
                                  "model": [a["model"] for a in answers]})
        write_response_metrics(communication_rows(responses, features),
                               communication_file(settings.out),
                               extra={"measures": "communication", "tool": TOOL,
                                      "models": sorted({a["model"] for a in answers})})

    def detail(self, summary: dict) -> str:
        return (f": {summary['answer_calls']} answers, {summary['judge_calls']} "
                f"comparisons, {summary['reask_calls']} re-asks")

    def written(self, collected: Collected[Judged], summary: dict) -> list[str]:
        settings = self.settings
        where = ("ranked with the dataset's models" if summary["comparable"] else
                 f"kept apart under the judge key '{summary['judge']}'")
        return [f"wrote {settings.out}: {summary['votes']} votes ({where}); answers in "
                f"{settings.responses_out}",
                f"next: ffsite ratings {settings.out}, anchored on {settings.anchor}, "
                "and its indices"]


def _read(settings: PanelSettings, text: str) -> tuple[str | None, str | None]:
    return settings.protocol.read(text)


def _verdicts(settings: PanelSettings, plan: Plan, texts: dict, phases: Phases
              ) -> dict[str, tuple[str, str | None] | None]:
    """Per comparison sent: (vote as the judge saw the answers, note); None: never sent."""
    ready = _ready(plan, texts)
    first = phases["judge"].outcomes if phases["judge"] else []
    later = {}
    if phases["reask"] is not None:
        later = {c.key: o for c, o in zip(phases["reask"].calls, phases["reask"].outcomes,
                                          strict=True)}
    found: dict[str, tuple[str, str | None] | None] = {}
    for one, outcome in zip(ready, first, strict=True):
        verdict = None
        for attempt in range(settings.reasks + 1):
            if attempt:
                outcome = later.get(judge_call(settings, plan, one, texts, attempt).key)
                if outcome is None:
                    break
            if outcome.failure is not None:
                verdict = ("invalid", f"judge call failed: {outcome.failure.reason}")
                break
            if outcome.entry is None:
                break
            vote, note = _read(settings, outcome.entry["content"])
            verdict = (vote, None) if vote else ("invalid", note)
            if vote:
                break
        found[one.id] = verdict
    return found


def _votes(settings: PanelSettings, plan: Plan, verdicts: Mapping[str, Any],
           failed: Mapping[tuple[str, str], str]) -> pd.DataFrame:
    """One votes-file row per comparison that has a vote (invalid ones with their
    reason), on the file's sides."""
    protocol = settings.protocol
    traits = {t.id: t for t in protocol.traits}
    rows = []
    for one in plan.comparisons:
        lost = [failed[(m, one.question)] for m in (one.first, one.second)
                if (m, one.question) in failed]
        if lost:
            rows.append((one, "invalid", f"no answer: answer call failed: {lost[0]}"))
        elif verdicts.get(one.id) is not None:
            vote, note = verdicts[one.id]
            if one.shown_swapped:  # the judge saw `second` first: back to first/second
                vote = {"A": "B", "B": "A"}.get(vote, vote)
            rows.append((one, vote, note))
    ids = np.array([one.id for one, *_ in rows], dtype=object)
    swap = swapped(ids, settings.seed)  # the file's sides: ffsite's seeded coin
    first = np.array([one.first for one, *_ in rows], dtype=object)
    second = np.array([one.second for one, *_ in rows], dtype=object)
    model_a, model_b = assign_sides(first, second, swap)
    votes = np.array([{"A": "B", "B": "A"}.get(v, v) if s else v
                      for (_, v, _), s in zip(rows, swap, strict=True)], dtype=object)
    questions = np.array([one.question for one, *_ in rows], dtype=object)
    apart = not plan.variant.comparable
    trait_ids = [one.trait for one, *_ in rows]
    return pd.DataFrame({
        "dataset": protocol.dataset, "comparison_id": ids, "prompt_id": questions,
        "model_a": model_a, "model_b": model_b,
        "response_a_id": [f"{m}/{q}" for m, q in zip(model_a, questions, strict=True)],
        "response_b_id": [f"{m}/{q}" for m, q in zip(model_b, questions, strict=True)],
        schema.META_PREFIX + "judge": [settings.judges[one.judge].model
                                       for one, *_ in rows],
        "role": schema.ROLE_TRAIT, "judge": plan.judge_key,
        "trait_id": [judge_trait_id(t, plan.judge_key) if apart else t for t in trait_ids],
        "trait": [traits[t].wording + (f" [judged by {plan.judge_key}]" if apart else "")
                  for t in trait_ids],
        "trait_set": [traits[t].trait_set for t in trait_ids],
        "seed": pd.array([0] * len(rows), dtype="Int64"),
        "vote": votes, "note": [note for *_, note in rows],
    })
