"""One `ffsite annotate` run: answers (given or generated), judge votes, a votes file.

1. The prompt set (a `PromptSet`, built by its base dataset) holds the prompts and the
   reference answers; `--responses` gives the model's answers, otherwise phase one asks
   the model (one user turn).
2. The judge (any `ffsite.judges.judge.Judge`) votes on the comparisons: phase two sends
   the API calls it asks for (the LLM judge: one per comparison and vote seed) through
   the same client, cache and budget; a judge without an API votes from the texts alone.
3. The votes file records every vote and, in its metadata, a summary (calls, retries,
   invalid rate, tokens, cost) computed from the cached answers in a fixed order, so a
   resumed run writes the same bytes as an uninterrupted one.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite._atomic import all_or_nothing, write_text
from ffsite.annotate.calls import Outcome
from ffsite.annotate.client import Endpoint
from ffsite.annotate.cost import Budget
from ffsite.annotate.estimate import dry_run
from ffsite.annotate.plan import (
    Settings,
    Work,
    generation_call,
    headline,
    judge_call,
    pairs,
    prepare,
)
from ffsite.annotate.session import Phase, Session, report_lines, run_numbers, run_sync
from ffsite.annotate.votes import check_invalid, vote_rows
from ffsite.datasets.prompt_set import PromptSet
from ffsite.errors import FfsiteError
from ffsite.format.write import write_response_metrics, write_votes
from ffsite.judges.apply import communication_rows, measure
from ffsite.judges.judge import Reply, Votes

TOOL = "ffsite annotate"


def annotate_model(settings: Settings, prompts: PromptSet, endpoint: Endpoint, *,
                   dry: bool = False, echo: Callable[[str], None] = print) -> dict | None:
    """Run (or with `dry`, estimate) one annotation of `prompts`; return the file's summary."""
    work = prepare(settings, prompts)
    if dry:
        for line in dry_run(settings, work):
            echo(line)
        return None
    started = time.monotonic()
    if work.given is None or settings.judge.api_models:
        settings.api.check_prices(([settings.model] if work.given is None else [])
                                  + list(settings.judge.api_models))
        generation, judged, budget, damaged = run_sync(_execute(settings, endpoint, work))
    else:  # a judge without an API on given answers: no API at all
        generation, judged, budget, damaged = None, None, Budget(None), 0
    frame, complete = _votes(settings, work, generation, judged, budget)
    summary = _summary(settings, work, generation, judged, frame, complete)
    check_invalid(frame, settings.max_invalid)
    texts, _ = _model_answers(work, generation)
    answers = [] if settings.responses_out is None else [settings.responses_out]
    with all_or_nothing(settings.out, communication_file(settings.out), *answers):
        write_votes(frame, settings.out, extra=summary)
        _write_communication(settings, work, texts)
        if answers:
            _write_responses(settings, work, texts)
    for line in _report(settings, work, summary, generation, judged, budget,
                        time.monotonic() - started, damaged):
        echo(line)
    return summary


async def _execute(settings: Settings, endpoint: Endpoint, work: Work
                   ) -> tuple[Phase | None, Phase | None, Budget, int]:
    """Both phases; also how many damaged cache entries were ignored."""
    async with Session(settings.api, endpoint) as session:
        generation = None
        texts = work.given
        if texts is None:
            generation = await session.run("generate", [generation_call(settings, text)
                                                        for text in work.instructions])
            texts = np.array(generation.texts(), dtype=object)
        judged = None
        rows = _answered(texts)
        calls = [judge_call(settings, request) for request in
                 settings.judge.requests(pairs(settings, work, rows, texts[rows]))]
        if calls:
            judged = await session.run("judge", calls)
    return generation, judged, session.budget, session.cache.damaged


# ------------------------------------------------------------------------ the votes

def _votes(settings: Settings, work: Work, generation: Phase | None, judged: Phase | None,
           budget: Budget) -> tuple[pd.DataFrame, bool]:
    """The votes frame and whether every planned vote is in it (not stopped by budget)."""
    judge = settings.judge
    texts, no_answer = _model_answers(work, generation)
    answered = _answered(texts)
    replies = [] if judged is None else [_reply(outcome) for outcome in judged.outcomes]
    voted = judge.votes(pairs(settings, work, answered, texts[answered]), replies)
    votes = Votes(answered[voted.rows], voted.seeds, voted.votes, voted.notes)
    # A prompt the model could not answer still gets its votes: invalid, with the reason.
    seeds = judge.seeds
    failed = np.repeat(np.array(sorted(no_answer), np.int64), len(seeds))
    reasons = np.array([no_answer[row] for row in failed], dtype=object)
    votes = votes.plus(Votes(failed, np.tile(np.array(seeds, np.int64), len(no_answer)),
                             np.full((len(failed), len(judge.traits)), "invalid", dtype=object),
                             np.repeat(reasons[:, None], len(judge.traits), axis=1)))
    if len(votes.rows) == 0:
        raise FfsiteError("nothing was annotated: the --max-cost budget is too small for a "
                          "single call; raise it (see --dry-run for the estimate)")
    frame = vote_rows(work.table, votes, judge.traits, judge.id)
    return frame, not budget.stopped


def _answered(texts: np.ndarray) -> np.ndarray:
    """The comparisons with an answer of the model."""
    return np.array([row for row in range(len(texts)) if texts[row] is not None], np.int64)


def _reply(outcome: Outcome) -> Reply:
    if outcome.entry is not None:
        return Reply(text=outcome.entry["content"],
                     finish_reason=outcome.entry.get("finish_reason"))
    if outcome.failure is not None:
        return Reply(failure=outcome.failure.reason)
    return Reply()


def _model_answers(work: Work, generation: Phase | None) -> tuple[np.ndarray, dict[int, str]]:
    """The model's answer per comparison (None: none), and why a generation failed."""
    if generation is None:
        return work.given, {}
    texts = np.full(len(work.table), None, dtype=object)
    failed = {}
    for row, outcome in enumerate(generation.outcomes):
        if outcome.entry is not None:
            texts[row] = outcome.entry["content"]
        elif outcome.failure is not None:
            failed[row] = f"no answer: generation failed: {outcome.failure.reason}"
    return texts, failed


# ------------------------------------------------------------------ summary, output

def _summary(settings: Settings, work: Work, generation: Phase | None, judged: Phase | None,
             frame: pd.DataFrame, complete: bool) -> dict:
    """The run's numbers for the file: deterministic (no times, no cached/new split)."""
    trait_sets = sorted(frame["trait_set"].unique())
    judge = settings.judge
    return {
        "tool": TOOL, "dataset": work.prompts.dataset, "model": settings.model,
        "reference": work.prompts.reference, "judge": judge.id,
        "judge_prompt": judge.version, "trait_set": "+".join(trait_sets),
        "traits": int(frame["trait_id"].nunique()), "prompts": len(work.table),
        "votes_per_comparison": len(judge.seeds),
        "combine": settings.combine, "seed": settings.seed,
        "responses": "given" if work.given is not None else "generated",
        "temperature": settings.temperature,
        "max_tokens": None if work.given is not None else settings.max_tokens,
        **run_numbers({"generation": generation, "judge": judged}, counted="votes",
                      n=len(frame), invalid=int((frame["vote"] == "invalid").sum()),
                      complete=complete),
    }


def communication_file(votes_file: Path) -> Path:
    """Where a run's communication traits go: beside its votes, `<name>.communication.parquet`."""
    return votes_file.with_name(votes_file.name.removesuffix(".parquet")
                                + ".communication.parquet")


def _write_communication(settings: Settings, work: Work, texts: np.ndarray) -> None:
    """The 21 communication traits of the model's answers, as a response-metrics file: the
    site's communication page then shows the model without anyone re-running anything."""
    answered = _answered(texts)
    prompt_ids = work.prompts["prompt_id"].to_numpy(object)[answered]
    ids = [work.prompts.response_id(settings.model, p) for p in prompt_ids]
    features = measure(ids, dict(zip(ids, texts[answered], strict=True)))
    responses = pd.DataFrame({"dataset": work.prompts.dataset, "response_id": ids,
                              "prompt_id": prompt_ids, "model": settings.model})
    write_response_metrics(communication_rows(responses, features),
                           communication_file(settings.out),
                           extra={"measures": "communication", "tool": TOOL,
                                  "model": settings.model})


def _write_responses(settings: Settings, work: Work, texts: np.ndarray) -> None:
    """The model's answers (generated or given), in the layout of the prompt set's own
    answer files: texts stay out of the votes file; the site reads this one beside it for
    the model's example pairs, and it can be given back with --responses."""
    records = [work.prompts.answer_record(settings.model, prompt, text)
               for prompt, text in zip(work.prompts.table.to_dict("records"), texts,
                                       strict=True) if text is not None]
    write_text(settings.responses_out, json.dumps(records, indent=1, ensure_ascii=False) + "\n")


def _report(settings: Settings, work: Work, summary: dict, generation: Phase | None,
            judged: Phase | None, budget: Budget, elapsed: float, damaged: int = 0
            ) -> list[str]:
    new = sum(phase.new for phase in (generation, judged) if phase)
    return [headline(settings, work.prompts, summary["prompts"]),
            *report_lines(summary, new=new, elapsed=elapsed, damaged=damaged,
                          max_cost=settings.api.max_cost, spent=budget.spent),
            f"wrote {settings.out}: {summary['votes']} votes"]

