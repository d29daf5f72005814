"""`ffsite eigenbench run` as a collecting method: answers, reflections, comparisons.

1. **Design.** Who judges what (`design.py`): every model judges pairs of the population,
   its own answer among them as often as any other (self-judgments), unless excluded.
2. **Answers.** Each model answers each scenario it appears in (the same call, and cache
   entry, as `ffsite annotate`'s generation).
3. **Reflections.** The judge reflects on each answer it will compare, alone, against the
   constitution (`prompt.py`); one reflection serves every comparison that shows that
   answer to that judge.
4. **Comparisons.** The judge compares the two answers with their reflections, in both
   orders (seed 0 shows side A first, seed 1 side B), one verdict per criterion.  The
   votes are stored as given; the both-orders rule (contradictions become ties) is
   applied when the judgments are fitted, so the file keeps what the judge said.

The votes file is an ordinary annotation file (docs/eigenbench.md) with a deterministic
summary; the answers go beside it (`files.responses_file`).  Names, the estimate, the
budget, the invalid share, the write and the report are the skeleton's (collect/run.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite._atomic import write_text
from ffsite.collect.api import Cache, Call, Estimate, Session, estimated_tokens
from ffsite.collect.eigenbench.design import Design, RunSettings, plan
from ffsite.collect.eigenbench.prompt import (
    TEMPLATE_VERSION,
    comparison_messages,
    reflection_messages,
)
from ffsite.collect.run import Collected, Method, Phases, invalid_votes
from ffsite.collect.shared import cut_off, generation_body, parse_answer
from ffsite.datasets.prompt_set import PromptSet
from ffsite.format import schema
from ffsite.format.write import write_votes

TOOL = "ffsite eigenbench run"
ORDERS = (0, 1)  # vote seeds: 0 shows side A first, 1 shows side B first
REFLECTION_TOKENS_PER_CRITERION = 60  # about how long a reflection is, for estimates
VERDICT_TOKENS_PER_CRITERION = 6


# ----------------------------------------------------------------------------- calls

def answer_calls(settings: RunSettings, design: Design) -> tuple[list[tuple[int, int]],
                                                                  list[Call]]:
    """(model, scenario) of every answer the comparisons need, and its call."""
    needed = sorted(_tuples(design.side_a, design.scenario)
                    | _tuples(design.side_b, design.scenario))
    instructions = design.prompts["instruction"].to_numpy(object)
    return needed, [settings.api.call("generate", generation_body(
        settings.models[model], instructions[scenario], settings.temperature,
        settings.max_tokens)) for model, scenario in needed]


def _tuples(*columns: np.ndarray) -> set[tuple[int, ...]]:
    return set(zip(*(column.tolist() for column in columns), strict=True))


def reflection_calls(settings: RunSettings, design: Design, answers: dict
                     ) -> tuple[list[tuple[int, int, int]], list[Call]]:
    """(judge, scenario, evaluee) of every reflection needed on an existing answer."""
    needed = sorted(_tuples(design.judge, design.scenario, design.side_a)
                    | _tuples(design.judge, design.scenario, design.side_b))
    needed = [n for n in needed if answers.get((n[2], n[1])) is not None]
    instructions = design.prompts["instruction"].to_numpy(object)
    criteria = settings.constitution.wordings
    calls = []
    for judge, scenario, evaluee in needed:
        body = {"model": settings.models[judge],
                "messages": reflection_messages(criteria, instructions[scenario],
                                                answers[(evaluee, scenario)]),
                "temperature": 0.0, "max_tokens": settings.reflection_max_tokens}
        calls.append(settings.api.call("eigenbench-reflect", body, template=TEMPLATE_VERSION))
    return needed, calls


def comparison_calls(settings: RunSettings, design: Design, answers: dict,
                     reflections: dict) -> tuple[list[tuple[int, int]], list[Call]]:
    """(judgment, order) of every comparison whose answers and reflections exist."""
    instructions = design.prompts["instruction"].to_numpy(object)
    criteria = settings.constitution.wordings
    needed, calls = [], []
    for row in range(len(design.judge)):
        judge, scenario = int(design.judge[row]), int(design.scenario[row])
        shown = []
        for side in (int(design.side_a[row]), int(design.side_b[row])):
            answer = answers.get((side, scenario))
            reflection = reflections.get((judge, scenario, side))
            shown.append((answer, reflection))
        if any(text is None for pair in shown for text in pair):
            continue
        for order in ORDERS:
            (first, first_note), (second, second_note) = shown[::-1] if order else shown
            body = {"model": settings.models[judge],
                    "messages": comparison_messages(criteria, instructions[scenario], first,
                                                    first_note, second, second_note),
                    "temperature": 0.0, "max_tokens": settings.judge_max_tokens,
                    "seed": order}
            needed.append((row, order))
            calls.append(settings.api.call("eigenbench-compare", body,
                                           template=TEMPLATE_VERSION))
    return needed, calls


# ---------------------------------------------------------------------------- method

@dataclass(frozen=True)
class Judged:
    """The votes, and the models' answers as base-data records."""

    frame: pd.DataFrame
    answers: list[dict]


@dataclass(frozen=True)
class EigenBench(Method[Design, Judged]):
    """One EigenBench run on `prompts` (collect/run.py: `Method`)."""

    settings: RunSettings
    prompts: PromptSet

    tool = TOOL
    counted = "votes"
    nothing = ("nothing was judged: the {max_cost} budget is too small for the answers, "
               "reflections and one comparison; raise it (see {dry_run})")

    def names(self) -> list[tuple[str, str]]:
        return [("models", model) for model in self.settings.models]

    def plan(self) -> Design:
        return plan(self.settings, self.prompts)

    def headline(self, design: Design) -> str:
        settings = self.settings
        return (f"eigenbench: {len(settings.models)} models judge each other on "
                f"{len(design.prompts)} scenarios ({len(design.table)} comparisons, both "
                f"orders) under '{settings.constitution.name}' "
                f"({len(settings.constitution.criteria)} criteria)")

    def estimate(self, design: Design, cache: Cache) -> list[Estimate | str]:
        """Per model and step.  Steps not yet answered are estimated with stand-ins: the
        prompt set's reference answer for an answer, a reflection of typical length for
        a reflection."""
        settings = self.settings
        reference = design.prompts["reference_output"].to_numpy(object)
        n_criteria = len(settings.constitution.criteria)
        needed, calls = answer_calls(settings, design)
        answers = {key: (cache.get(call.key) or {}).get("content", reference[key[1]])
                   for key, call in zip(needed, calls, strict=True)}
        lines = self._per_model("answers", calls, [
            min(settings.max_tokens, estimated_tokens(reference[s])) for _, s in needed])
        reflection_out = min(settings.reflection_max_tokens,
                             REFLECTION_TOKENS_PER_CRITERION * n_criteria)
        needed, calls = reflection_calls(settings, design, answers)
        stand_in = "x" * (4 * reflection_out)
        reflections = {key: (cache.get(call.key) or {}).get("content", stand_in)
                       for key, call in zip(needed, calls, strict=True)}
        lines += self._per_model("reflections", calls, [reflection_out] * len(calls))
        _, calls = comparison_calls(settings, design, answers, reflections)
        verdict_out = VERDICT_TOKENS_PER_CRITERION * n_criteria + 8
        return lines + self._per_model("comparisons", calls, [verdict_out] * len(calls))

    def _per_model(self, label: str, calls: list[Call], out_tokens: list[int]
                   ) -> list[Estimate | str]:
        estimates: list[Estimate | str] = []
        for model in self.settings.models:
            mine = [i for i, call in enumerate(calls) if call.body["model"] == model]
            if mine:
                estimates.append(Estimate(label, model, [calls[i] for i in mine],
                                          [out_tokens[i] for i in mine]))
        return estimates

    def models(self, design: Design) -> list[str]:
        return list(self.settings.models)

    async def collect(self, design: Design, session: Session) -> Phases:
        settings = self.settings
        needed, calls = answer_calls(settings, design)
        answers = await session.run("answer", calls)
        answer_texts = dict(zip(needed, answers.texts(), strict=True))
        needed, calls = reflection_calls(settings, design, answer_texts)
        reflections = await session.run("reflect", calls) if calls else None
        reflection_texts = dict(zip(needed, reflections.texts(), strict=True)
                                ) if reflections else {}
        _, calls = comparison_calls(settings, design, answer_texts, reflection_texts)
        comparisons = await session.run("compare", calls) if calls else None
        return {"answer": answers, "reflection": reflections, "comparison": comparisons}

    def result(self, design: Design, phases: Phases) -> Collected[Judged]:
        frame = _votes(self.settings, design, phases)
        return Collected(Judged(frame, _answer_records(self.settings, design, phases)),
                         len(frame), invalid_votes(frame))

    def summary(self, design: Design, collected: Collected[Judged]) -> dict:
        settings = self.settings
        return {
            "tool": TOOL, "constitution": settings.constitution.name,
            "criteria": len(settings.constitution.criteria), "models": list(settings.models),
            "scenario_set": design.prompts.dataset, "scenarios": len(design.prompts),
            "pairs_per_judge": settings.pairs_per_judge, "comparisons": len(design.table),
            "judgments": len(design.judge),
            "self_judgments": int(((design.judge == design.side_a)
                                   | (design.judge == design.side_b)).sum()),
            "judge_prompt": TEMPLATE_VERSION,
            "seed": settings.seed, "temperature": settings.temperature,
            "max_tokens": settings.max_tokens,
        }

    def outputs(self) -> tuple[Path, ...]:
        return self.settings.out, self.settings.responses_out

    def write(self, design: Design, collected: Collected[Judged], summary: dict) -> None:
        write_votes(collected.items.frame, self.settings.out, extra=summary)
        write_text(self.settings.responses_out,
                   json.dumps(collected.items.answers, indent=1, ensure_ascii=False) + "\n")

    def detail(self, summary: dict) -> str:
        return (f": {summary['answer_calls']} answers, {summary['reflection_calls']} "
                f"reflections, {summary['comparison_calls']} comparisons")

    def written(self, collected: Collected[Judged], summary: dict) -> list[str]:
        out = self.settings.out
        return [f"wrote {out}: {summary['votes']} votes; answers in "
                f"{self.settings.responses_out}", f"next: ffsite eigenbench fit {out}"]


# ------------------------------------------------------------------------- the votes

def _texts(settings: RunSettings, design: Design, phases: Phases
           ) -> tuple[dict, dict, dict]:
    """Answers and reflections by their keys, and why any failed (key -> reason)."""
    needed, _ = answer_calls(settings, design)
    answered, reflected = phases["answer"], phases["reflection"]
    answers = dict(zip(needed, answered.texts(), strict=True))
    failed = {key: outcome.failure.reason for key, outcome
              in zip(needed, answered.outcomes, strict=True) if outcome.failure}
    reflections = {}
    if reflected is not None:
        needed, _ = reflection_calls(settings, design, answers)
        reflections = dict(zip(needed, reflected.texts(), strict=True))
        failed.update({key: outcome.failure.reason for key, outcome
                       in zip(needed, reflected.outcomes, strict=True) if outcome.failure})
    return answers, reflections, failed


def _votes(settings: RunSettings, design: Design, phases: Phases) -> pd.DataFrame:
    """One row per judgment, order and criterion; failed steps give invalid votes with
    the reason, calls never sent (the budget) give no row."""
    answers, reflections, failed = _texts(settings, design, phases)
    n_criteria = len(settings.constitution.criteria)
    verdicts = {}
    if phases["comparison"] is not None:
        needed, _ = comparison_calls(settings, design, answers, reflections)
        for key, outcome in zip(needed, phases["comparison"].outcomes, strict=True):
            if outcome.entry is not None:
                votes, notes = parse_answer(outcome.entry["content"], n_criteria)
                notes = cut_off(notes, outcome.entry.get("finish_reason"))
                if key[1] == 1:  # side B was shown first: back to the file's sides
                    votes = [{"A": "B", "B": "A"}.get(v, v) for v in votes]
                verdicts[key] = (votes, notes)
            elif outcome.failure is not None:
                reason = f"judge call failed: {outcome.failure.reason}"
                verdicts[key] = (["invalid"] * n_criteria, [reason] * n_criteria)
    rows, seeds, votes, notes = [], [], [], []
    for row in range(len(design.judge)):
        judge, scenario = int(design.judge[row]), int(design.scenario[row])
        reason = _missing(settings, answers, reflections, failed, judge, scenario,
                          (int(design.side_a[row]), int(design.side_b[row])))
        for order in ORDERS:
            if reason is not None:
                verdict = (["invalid"] * n_criteria, [reason] * n_criteria)
            else:
                verdict = verdicts.get((row, order))
            if verdict is None:
                continue  # never sent: the budget ran out
            rows.append(row)
            seeds.append(order)
            votes.append(verdict[0])
            notes.append(verdict[1])
    return _frame(settings, design, np.array(rows, np.int64), np.array(seeds, np.int64),
                  np.array(votes, dtype=object), np.array(notes, dtype=object))


def _missing(settings: RunSettings, answers: dict, reflections: dict, failed: dict,
             judge: int, scenario: int, sides: tuple[int, int]) -> str | None:
    """Why a judgment cannot be made (a failed answer or reflection), else None.  A
    step that was never sent (budget) is no reason: the judgment is left out."""
    for side in sides:
        if (side, scenario) in failed:
            return (f"no answer from {settings.models[side]}: "
                    f"{failed[(side, scenario)]}")
        if (judge, scenario, side) in failed:
            return f"reflection failed: {failed[(judge, scenario, side)]}"
    return None


def _frame(settings: RunSettings, design: Design, rows: np.ndarray, seeds: np.ndarray,
           votes: np.ndarray, notes: np.ndarray) -> pd.DataFrame:
    criteria = settings.constitution.criteria
    n = len(criteria)
    picked = design.table.iloc[design.comparison[np.repeat(rows, n)]].reset_index(drop=True)
    models = np.array(settings.models, dtype=object)
    return picked[["dataset", "comparison_id", "prompt_id", "model_a", "model_b",
                   "response_a_id", "response_b_id"]].assign(
        role=schema.ROLE_TRAIT, judge=models[design.judge[np.repeat(rows, n)]],
        trait_id=np.tile(np.array([c.id for c in criteria], object), len(rows)),
        trait=np.tile(np.array([c.wording for c in criteria], object), len(rows)),
        trait_set=settings.constitution.name,
        seed=pd.array(np.repeat(seeds, n), dtype="Int64"),
        vote=votes.reshape(-1), note=notes.reshape(-1))


def _answer_records(settings: RunSettings, design: Design, phases: Phases) -> list[dict]:
    """The models' answers in the prompt set's own record layout (base data: the votes
    file holds ids only)."""
    needed, _ = answer_calls(settings, design)
    rows = design.prompts.table.to_dict("records")
    return [design.prompts.answer_record(settings.models[model], rows[scenario], text)
            for (model, scenario), text in zip(needed, phases["answer"].texts(), strict=True)
            if text is not None]
