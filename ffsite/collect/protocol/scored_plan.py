"""What a scored protocol run works on and which calls it makes: its settings, its
units and the answers they need, and every call as a pure function of them (cache key
included: the unit, the repetition and the attempt are in it, so no two judgements
share an answer)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ffsite.collect.api import Api, Call
from ffsite.collect.protocol import compare
from ffsite.collect.protocol.spec import AnswerKey, Judge, Material, ScoredProtocol, Unit
from ffsite.collect.run import MAX_INVALID
from ffsite.errors import ParameterError


@dataclass(frozen=True)
class ScoredSettings:
    protocol: ScoredProtocol
    material: Material
    model: str
    judges: tuple[Judge, ...]
    api: Api
    out: Path
    answers_out: Path
    answer_sets: int
    repetitions: int
    reasks: int
    temperature: float | None
    max_tokens: int
    judge_temperature: float | None
    judge_max_tokens: int
    limit: int | None = None  # the first N units: a trial
    max_invalid: float = MAX_INVALID

    @property
    def chosen(self) -> dict:
        return {name: getattr(self, name) for name in self.protocol.settings}


@dataclass(frozen=True)
class Plan:
    units: list[Unit]
    answers: list[AnswerKey]  # every answer the units need, in prompt then set order
    variant: compare.Variant
    dataset: str  # what the scores are filed under


@dataclass(frozen=True)
class Asked:
    """One judge call's place: unit index, judge index, repetition."""

    unit: int
    judge: int
    repetition: int


# ------------------------------------------------------------------------- the calls

def _body(model: str, messages: list, temperature: float | None, max_tokens: int) -> dict:
    body = {"model": model, "messages": messages, "max_tokens": max_tokens}
    if temperature is not None:  # None: the protocol sends none (the provider's default)
        body["temperature"] = temperature
    return body


def answer_call(settings: ScoredSettings, key: AnswerKey) -> Call:
    prompt = _prompts(settings)[key[0]]
    body = _body(settings.model, list(prompt.messages), settings.temperature,
                 settings.max_tokens)
    return settings.api.call("protocol-answer", body, protocol=settings.protocol.version,
                             answer_set=key[1])


def judge_call(settings: ScoredSettings, plan: Plan, asked: Asked, texts: dict,
               attempt: int) -> Call:
    unit, judge = plan.units[asked.unit], settings.judges[asked.judge]
    body = _body(judge.model, settings.material.judge_messages(unit, texts),
                 settings.judge_temperature, settings.judge_max_tokens)
    # The unit is in the key: two units whose answers happen to be the same text are
    # still two judgements, as the protocol asks.
    return settings.api.call("protocol-judge", body, protocol=settings.protocol.version,
                             unit=unit.response_id, repetition=asked.repetition,
                             attempt=attempt)


def _prompts(settings: ScoredSettings) -> dict:
    return {prompt.id: prompt for prompt in settings.material.prompts}


def judged(settings: ScoredSettings, plan: Plan, texts: dict) -> list[Asked]:
    """Every judge call of the units whose answers all exist."""
    return [Asked(u, j, r) for u, unit in enumerate(plan.units)
            if all(part in texts for part in unit.parts)
            for j in range(len(settings.judges)) for r in range(settings.repetitions)]


def make_plan(settings: ScoredSettings) -> Plan:
    protocol = settings.protocol
    for name, value in (("answer_sets", settings.answer_sets),
                        ("repetitions", settings.repetitions)):
        if value < 1:
            raise ParameterError(f"{{{name}}} {value}: give 1 or more", name)
    if len({j.name for j in settings.judges}) != len(settings.judges) or not settings.judges:
        raise ParameterError("{judges}: name each judge once, at least one", "judges")
    units = settings.material.units(settings.model, settings.answer_sets)
    if settings.limit is not None:
        units = units[:settings.limit]
    if not units:
        raise ParameterError(f"nothing to judge: {protocol.name} has no {protocol.unit}s "
                             "(check {limit})", "limit")
    order = {prompt.id: n for n, prompt in enumerate(settings.material.prompts)}
    needed = sorted({part for unit in units for part in unit.parts},
                    key=lambda p: (order[p[0]], p[1]))
    found = compare.variant(protocol, settings.judges, settings.chosen)
    return Plan(units, needed, found, compare.filed_under(protocol, found))
