"""`ffsite eigenbench run`: models answer scenarios, then judge each other's answers.

1. **Design.** Every model is a judge. For each scenario each judge gets
   `pairs_per_judge` pairs of *other* models, walking through a seeded shuffle of all
   such pairs, so over the run every judge sees every pair (hence every other model)
   equally often, give or take one.  A scenario and a pair of evaluees is one comparison
   (sides A/B by ffsite's seeded coin flip); several judges may vote on it.
2. **Answers.** Each model answers each scenario it appears in (the same call, and cache
   entry, as `ffsite annotate`'s generation).
3. **Reflections.** The judge reflects on each answer it will compare, alone, against the
   constitution (`eigenbench_prompt`); one reflection serves every comparison that shows
   that answer to that judge.
4. **Comparisons.** The judge compares the two answers with their reflections, in both
   orders (seed 0 shows side A first, seed 1 side B), one verdict per criterion.  The
   votes are stored as given; the both-orders rule (contradictions become ties) is
   applied when the judgments are fitted, so the file keeps what the judge said.

All calls go through one `Session` (retries, concurrency, cache, budget); the votes file
is an ordinary annotation file (docs/eigenbench.md) with a deterministic summary, and
the answers go beside it as `<name>.responses.json`.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite._atomic import all_or_nothing, write_text
from ffsite.annotate.cache import Cache
from ffsite.annotate.calls import Call
from ffsite.annotate.client import Endpoint
from ffsite.annotate.constitution import Constitution
from ffsite.annotate.cost import estimated_tokens
from ffsite.annotate.eigenbench_prompt import (
    TEMPLATE_VERSION,
    comparison_messages,
    reflection_messages,
)
from ffsite.annotate.parse import parse_answer
from ffsite.annotate.plan import MAX_INVALID
from ffsite.annotate.prompt import generation_body
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
from ffsite.annotate.votes import check_invalid
from ffsite.datasets.prompt_set import PromptSet
from ffsite.errors import FfsiteError
from ffsite.format import schema
from ffsite.format.write import write_votes
from ffsite.sides import swapped

TOOL = "ffsite eigenbench run"
ORDERS = (0, 1)  # vote seeds: 0 shows side A first, 1 shows side B first
REFLECTION_TOKENS_PER_CRITERION = 60  # about how long a reflection is, for estimates
VERDICT_TOKENS_PER_CRITERION = 6


@dataclass(frozen=True)
class RunSettings:
    models: tuple[str, ...]  # the population: every one answers and judges
    constitution: Constitution
    out: Path
    responses_out: Path
    api: Api
    pairs_per_judge: int = 1  # pairs each judge compares per scenario
    scenarios: int | None = None  # the first N prompts of the set (by id); None: all
    seed: int = 0  # the pair shuffle and the side flip
    temperature: float = 0.0  # of answers; judges always answer at 0
    max_tokens: int = 2048  # longest answer
    reflection_max_tokens: int = 1024
    judge_max_tokens: int = 512  # longest verdict
    max_invalid: float = MAX_INVALID

    @property
    def dataset(self) -> str:
        """The votes' dataset: its own, so EigenBench comparisons never mix into the
        prompt set's own dataset page."""
        return f"eigenbench-{self.constitution.name}"


@dataclass(frozen=True)
class Design:
    """Who judges what.  `table`: one row per comparison (scenario and pair, sides A/B
    fixed); the arrays: one entry per judgment (a judge on a comparison)."""

    prompts: PromptSet
    table: pd.DataFrame
    judge: np.ndarray  # model index
    comparison: np.ndarray  # row of `table`
    scenario: np.ndarray  # row of `prompts` (of the comparison)
    side_a: np.ndarray  # model index on side A (of the comparison)
    side_b: np.ndarray


def check_models(models: Sequence[str]) -> tuple[str, ...]:
    """The population, checked before any call: names the votes file can hold, each
    given once, at least three."""
    for model in models:
        check_name("--model", model)
    if len(set(models)) != len(models):
        repeated = next(m for m in models if models.count(m) > 1)
        raise FfsiteError(f"--model {repeated} is given twice; name each model once")
    if len(models) < 3:
        raise FfsiteError(f"EigenBench needs at least 3 models (got {len(models)}): each "
                          "judges pairs of the others; give --model three or more times")
    return tuple(models)


def plan(settings: RunSettings, prompts: PromptSet) -> Design:
    """The run's comparisons and judgments (a pure function of the settings)."""
    n_models = len(settings.models)
    n_pairs = (n_models - 1) * (n_models - 2) // 2
    if settings.pairs_per_judge > n_pairs:
        raise FfsiteError(f"--pairs-per-judge {settings.pairs_per_judge}: with "
                          f"{n_models} models a judge has only {n_pairs} pairs of others")
    if settings.scenarios is not None:
        prompts = prompts.head(settings.scenarios)
    if len(prompts) == 0:
        raise FfsiteError("no scenarios: the prompt set is empty")
    rng = np.random.default_rng(settings.seed)
    n_scenarios, per = len(prompts), settings.pairs_per_judge
    steps = np.arange(n_scenarios * per)
    judges, scenarios, firsts, seconds = [], [], [], []
    for judge in range(n_models):
        others = [m for m in range(n_models) if m != judge]
        pairs = np.array(list(itertools.combinations(others, 2)), np.int64)
        walk = pairs[rng.permutation(len(pairs))[steps % len(pairs)]]
        judges.append(np.full(len(steps), judge))
        scenarios.append(steps // per)
        firsts.append(walk[:, 0])
        seconds.append(walk[:, 1])
    judge, scenario = np.concatenate(judges), np.concatenate(scenarios)
    low, high = np.concatenate(firsts), np.concatenate(seconds)
    order = np.lexsort((judge, high, low, scenario))  # by comparison, then judge
    judge, scenario, low, high = judge[order], scenario[order], low[order], high[order]
    keys = scenario * n_models * n_models + low * n_models + high
    unique_keys, first_row, comparison = np.unique(keys, return_index=True,
                                                   return_inverse=True)
    table = _comparisons(settings, prompts, scenario[first_row], low[first_row],
                         high[first_row])
    side_a = table["side_a"].to_numpy(np.int64)[comparison]
    side_b = table["side_b"].to_numpy(np.int64)[comparison]
    return Design(prompts, table, judge, comparison, scenario, side_a, side_b)


def _comparisons(settings: RunSettings, prompts: PromptSet, scenario: np.ndarray,
                 low: np.ndarray, high: np.ndarray) -> pd.DataFrame:
    models = np.array(settings.models, dtype=object)
    prompt_ids = prompts["prompt_id"].to_numpy(object)[scenario]
    ids = np.array([_comparison_id(p, models[a], models[b])
                    for p, a, b in zip(prompt_ids, low, high, strict=True)], dtype=object)
    swap = swapped(ids, settings.seed)
    side_a, side_b = np.where(swap, high, low), np.where(swap, low, high)
    return pd.DataFrame({
        "dataset": settings.dataset, "comparison_id": ids, "prompt_id": prompt_ids,
        "model_a": models[side_a], "model_b": models[side_b],
        "response_a_id": [prompts.response_id(m, p)
                          for m, p in zip(models[side_a], prompt_ids, strict=True)],
        "response_b_id": [prompts.response_id(m, p)
                          for m, p in zip(models[side_b], prompt_ids, strict=True)],
        "scenario": scenario, "side_a": side_a, "side_b": side_b})


def _comparison_id(prompt_id: str, model: str, other: str) -> str:
    """The same scenario and pair give the same id in every run (names sorted)."""
    low, high = sorted((model, other))
    digest = hashlib.sha256(f"{prompt_id}\0{low}\0{high}".encode()).hexdigest()
    return f"eb-{digest[:20]}"


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


# ------------------------------------------------------------------------------- run

@dataclass
class Phases:
    answers: Phase
    reflections: Phase | None
    comparisons: Phase | None

    def all(self) -> list[Phase]:
        return [p for p in (self.answers, self.reflections, self.comparisons) if p]


def run_eigenbench(settings: RunSettings, prompts: PromptSet, endpoint: Endpoint, *,
                   dry: bool = False, echo: Callable[[str], None] = print) -> dict | None:
    """Collect the judgments (or with `dry`, estimate them); return the file's summary."""
    design = plan(settings, prompts)
    estimate = dry_run(settings, design)
    if dry:
        for line in estimate:
            echo(line)
        return None
    settings.api.check_prices(settings.models)
    for line in estimate[:-1]:  # what the run will take, before it starts
        echo(line)
    started = time.monotonic()
    phases, session = run_sync(_execute(settings, design, endpoint))
    frame = _votes(settings, design, phases)
    summary = _summary(settings, design, phases, frame, complete=not session.budget.stopped)
    check_invalid(frame, settings.max_invalid)
    with all_or_nothing(settings.out, settings.responses_out):
        write_votes(frame, settings.out, extra=summary)
        _write_responses(settings, design, phases)
    for line in _report(settings, summary, phases, time.monotonic() - started,
                        session.cache.damaged, session.budget.spent):
        echo(line)
    return summary


async def _execute(settings: RunSettings, design: Design, endpoint: Endpoint
                   ) -> tuple[Phases, Session]:
    async with Session(settings.api, endpoint) as session:
        needed, calls = answer_calls(settings, design)
        answers = await session.run("answer", calls)
        answer_texts = dict(zip(needed, answers.texts(), strict=True))
        needed, calls = reflection_calls(settings, design, answer_texts)
        reflections = await session.run("reflect", calls) if calls else None
        reflection_texts = dict(zip(needed, reflections.texts(), strict=True)
                                ) if reflections else {}
        _, calls = comparison_calls(settings, design, answer_texts, reflection_texts)
        comparisons = await session.run("compare", calls) if calls else None
    return Phases(answers, reflections, comparisons), session


def _texts(settings: RunSettings, design: Design, phases: Phases
           ) -> tuple[dict, dict, dict]:
    """Answers and reflections by their keys, and why any failed (key -> reason)."""
    needed, _ = answer_calls(settings, design)
    answers = dict(zip(needed, phases.answers.texts(), strict=True))
    failed = {key: outcome.failure.reason for key, outcome
              in zip(needed, phases.answers.outcomes, strict=True) if outcome.failure}
    reflections = {}
    if phases.reflections is not None:
        needed, _ = reflection_calls(settings, design, answers)
        reflections = dict(zip(needed, phases.reflections.texts(), strict=True))
        failed.update({key: outcome.failure.reason for key, outcome
                       in zip(needed, phases.reflections.outcomes, strict=True)
                       if outcome.failure})
    return answers, reflections, failed


def _votes(settings: RunSettings, design: Design, phases: Phases) -> pd.DataFrame:
    """One row per judgment, order and criterion; failed steps give invalid votes with
    the reason, calls never sent (the budget) give no row."""
    answers, reflections, failed = _texts(settings, design, phases)
    n_criteria = len(settings.constitution.criteria)
    verdicts = {}
    if phases.comparisons is not None:
        needed, _ = comparison_calls(settings, design, answers, reflections)
        for key, outcome in zip(needed, phases.comparisons.outcomes, strict=True):
            if outcome.entry is not None:
                votes, notes = parse_answer(outcome.entry["content"], n_criteria)
                if outcome.entry.get("finish_reason") == "length":
                    notes = [note and f"{note} (answer cut off at --judge-max-tokens)"
                             for note in notes]
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
    if not rows:
        raise FfsiteError("nothing was judged: the --max-cost budget is too small for the "
                          "answers, reflections and one comparison; raise it (see --dry-run)")
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


# ------------------------------------------------------------------ summary, output

def _summary(settings: RunSettings, design: Design, phases: Phases, frame: pd.DataFrame,
             *, complete: bool) -> dict:
    """The run's numbers for the file: deterministic (no times, no cached/new split)."""
    return {
        "tool": TOOL, "constitution": settings.constitution.name,
        "criteria": len(settings.constitution.criteria), "models": list(settings.models),
        "scenario_set": design.prompts.dataset, "scenarios": len(design.prompts),
        "pairs_per_judge": settings.pairs_per_judge, "comparisons": len(design.table),
        "judgments": len(design.judge), "judge_prompt": TEMPLATE_VERSION,
        "seed": settings.seed, "temperature": settings.temperature,
        "max_tokens": settings.max_tokens,
        **run_numbers({"answer": phases.answers, "reflection": phases.reflections,
                       "comparison": phases.comparisons}, counted="votes", n=len(frame),
                      invalid=int((frame["vote"] == "invalid").sum()), complete=complete),
    }


def _write_responses(settings: RunSettings, design: Design, phases: Phases) -> None:
    """The models' answers in the prompt set's own record layout (base data: the votes
    file holds ids only)."""
    needed, _ = answer_calls(settings, design)
    rows = design.prompts.table.to_dict("records")
    records = [design.prompts.answer_record(settings.models[model], rows[scenario], text)
               for (model, scenario), text in zip(needed, phases.answers.texts(),
                                                  strict=True) if text is not None]
    write_text(settings.responses_out,
               json.dumps(records, indent=1, ensure_ascii=False) + "\n")


def _report(settings: RunSettings, summary: dict, phases: Phases, elapsed: float,
            damaged: int, spent: float) -> list[str]:
    new = sum(phase.new for phase in phases.all())
    lines = [headline(settings, summary["scenarios"], summary["comparisons"]),
             *report_lines(summary, new=new, elapsed=elapsed, damaged=damaged,
                           max_cost=settings.api.max_cost, spent=spent,
                           detail=f": {summary['answer_calls']} answers, "
                           f"{summary['reflection_calls']} reflections, "
                           f"{summary['comparison_calls']} comparisons")]
    lines.append(f"wrote {settings.out}: {summary['votes']} votes; answers in "
                 f"{settings.responses_out}")
    lines.append(f"next: ffsite eigenbench fit {settings.out}")
    return lines


def headline(settings: RunSettings, n_scenarios: int, n_comparisons: int) -> str:
    return (f"eigenbench: {len(settings.models)} models judge each other on "
            f"{n_scenarios} scenarios ({n_comparisons} comparisons, both orders) under "
            f"'{settings.constitution.name}' ({len(settings.constitution.criteria)} "
            "criteria)")


# --------------------------------------------------------------------------- dry run

def dry_run(settings: RunSettings, design: Design) -> list[str]:
    """Calls, tokens and cost per model and step; nothing is sent.  Steps not yet
    answered are estimated with stand-ins: the prompt set's reference answer for an
    answer, a reflection of typical length for a reflection."""
    cache = Cache(settings.api.cache_dir)
    reference = design.prompts["reference_output"].to_numpy(object)
    n_criteria = len(settings.constitution.criteria)
    needed, calls = answer_calls(settings, design)
    answers = {key: (cache.get(call.key) or {}).get("content", reference[key[1]])
               for key, call in zip(needed, calls, strict=True)}
    answer_out = [min(settings.max_tokens, estimated_tokens(reference[s])) for _, s in needed]
    lines = [headline(settings, len(design.prompts), len(design.table))]
    lines += _per_model(settings, "answers", calls, answer_out, cache)
    reflection_out = min(settings.reflection_max_tokens,
                         REFLECTION_TOKENS_PER_CRITERION * n_criteria)
    needed, calls = reflection_calls(settings, design, answers)
    stand_in = "x" * (4 * reflection_out)
    reflections = {key: (cache.get(call.key) or {}).get("content", stand_in)
                   for key, call in zip(needed, calls, strict=True)}
    lines += _per_model(settings, "reflections", calls, [reflection_out] * len(calls), cache)
    _, calls = comparison_calls(settings, design, answers, reflections)
    verdict_out = VERDICT_TOKENS_PER_CRITERION * n_criteria + 8
    lines += _per_model(settings, "comparisons", calls, [verdict_out] * len(calls), cache)
    lines.append("dry run: nothing was sent")
    return lines


def _per_model(settings: RunSettings, label: str, calls: list[Call], out_tokens: list[int],
               cache: Cache) -> list[str]:
    lines = []
    for model in settings.models:
        mine = [i for i, call in enumerate(calls) if call.body["model"] == model]
        if mine:
            lines.append(estimate_line(label, model, [calls[i] for i in mine],
                                       [out_tokens[i] for i in mine], cache))
    return lines
