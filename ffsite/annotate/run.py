"""One `ffsite annotate` run: answers (given or generated), judge votes, a votes file.

1. The prompt set and the reference answers come from the base dataset; `--responses`
   gives the model's answers, otherwise phase one asks the model (one user turn).
2. Phase two asks the judge about every trait at once, once per vote seed, with the
   samples in the seed's order, and turns the answers back to the file's sides; or the
   rule-based judge votes without any API.
3. The votes file records every vote and, in its metadata, a summary (calls, retries,
   invalid rate, tokens, cost) computed from the cached answers in a fixed order, so a
   resumed run writes the same bytes as an uninterrupted one.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ffsite._atomic import write_text
from ffsite.annotate.cache import Cache
from ffsite.annotate.calls import Call, Outcome, run_calls
from ffsite.annotate.client import ChatClient, Endpoint, require_key
from ffsite.annotate.cost import Budget, Price, Tally, find_price
from ffsite.annotate.estimate import dry_run
from ffsite.annotate.parse import parse_answer
from ffsite.annotate.plan import (
    Settings,
    Work,
    generation_call,
    headline,
    judge_call,
    prepare,
    vote_seeds,
)
from ffsite.annotate.progress import Progress
from ffsite.annotate.prompt import TEMPLATE_VERSION, shown_swapped
from ffsite.annotate.votes import unflip, vote_rows
from ffsite.base import alpaca_eval
from ffsite.errors import FfsiteError
from ffsite.format.write import write_votes
from ffsite.traits import Trait

TOOL = "ffsite annotate"


@dataclass
class Phase:
    """The outcomes of one phase's calls (generation or judging), in planned order."""

    outcomes: list[Outcome]
    price: Price | None

    def tally(self) -> Tally:
        tally = Tally()
        for outcome in self.outcomes:
            if outcome.entry is not None:
                tally.add(outcome.entry, self.price, new=outcome.new)
            elif outcome.failure is not None:
                tally.add_failure(outcome.failure.attempts)
        return tally


def annotate_model(settings: Settings, endpoint: Endpoint, *, dry: bool = False,
                   echo: Callable[[str], None] = print) -> dict | None:
    """Run (or with `dry`, estimate) one annotation; return the file's summary."""
    work = prepare(settings)
    if dry:
        for line in dry_run(settings, work):
            echo(line)
        return None
    started = time.monotonic()
    if work.given is None or not settings.by_rules:
        _check_prices(settings, work)
        generation, judged, budget = asyncio.run(_execute(settings, endpoint, work))
    else:  # the rule-based judge on given answers: no API at all
        generation, judged, budget = None, None, Budget(None)
    frame, complete = _votes(settings, work, generation, judged, budget)
    summary = _summary(settings, work, generation, judged, frame, complete)
    write_votes(frame, settings.out, extra=summary)
    if generation is not None and settings.responses_out is not None:
        _write_responses(settings, work, generation)
    for line in _report(settings, summary, generation, judged, budget,
                        time.monotonic() - started):
        echo(line)
    return summary


def _check_prices(settings: Settings, work: Work) -> None:
    if settings.max_cost is None:
        return
    models = ([settings.model] if work.given is None else []) + (
        [] if settings.by_rules else [settings.judge])
    for model in models:
        if find_price(settings.prices, model) is None:
            raise FfsiteError(f"--max-cost needs a price for '{model}': add it to a --prices "
                              'file ({"model": {"input": USD_per_million, "output": ...}})')


async def _execute(settings: Settings, endpoint: Endpoint, work: Work
                   ) -> tuple[Phase | None, Phase | None, Budget]:
    cache = Cache(settings.cache_dir)
    budget = Budget(settings.max_cost)
    n = len(work.table)
    async with ChatClient(endpoint, concurrency=settings.concurrency,
                          policy=settings.policy) as client:
        generation = None
        texts = work.given
        if texts is None:
            calls = [generation_call(settings, text) for text in work.instructions]
            generation = Phase(await _phase("generate", calls, client, cache, budget),
                               calls[0].price)
            texts = np.array([o.entry["content"] if o.entry else None
                              for o in generation.outcomes], dtype=object)
        judged = None
        if not settings.by_rules:
            rows = [row for row in range(n) if texts[row] is not None]
            price = find_price(settings.prices, settings.judge)
            calls = [judge_call(settings, work, row, texts[row], seed, price)
                     for row in rows for seed in vote_seeds(settings)]
            judged = Phase(await _phase("judge", calls, client, cache, budget), price)
    return generation, judged, budget


async def _phase(label: str, calls: list[Call], client: ChatClient, cache: Cache,
                 budget: Budget) -> list[Outcome]:
    if any(call.key not in cache for call in calls):  # a rerun of a finished run needs none
        require_key(client.endpoint)
    progress = Progress(label, len(calls))
    client.on_retry = lambda reason: progress.retried()
    return await run_calls(calls, client=client, cache=cache, budget=budget,
                           progress=progress)


# ------------------------------------------------------------------------ the votes

@dataclass(frozen=True)
class Block:
    """Votes on the file's sides: row k is comparison `rows[k]` voted with `seeds[k]`,
    one vote and one note per trait."""

    rows: np.ndarray
    seeds: np.ndarray
    votes: np.ndarray  # [k, traits] "A" | "B" | "tie" | "neither" | "invalid"
    notes: np.ndarray  # [k, traits] why a vote is invalid, else None

    def plus(self, other: Block) -> Block:
        return Block(np.concatenate([self.rows, other.rows]),
                     np.concatenate([self.seeds, other.seeds]),
                     np.vstack([self.votes, other.votes]), np.vstack([self.notes, other.notes]))


def _votes(settings: Settings, work: Work, generation: Phase | None, judged: Phase | None,
           budget: Budget) -> tuple[pd.DataFrame, bool]:
    """The votes frame and whether every planned vote is in it (not stopped by budget)."""
    texts, no_answer = _model_answers(work, generation)
    answered = [row for row in range(len(texts)) if texts[row] is not None]
    if settings.by_rules:
        traits, judge, block = _rule_votes(settings, work, answered, texts)
        seeds = [settings.seed]
    else:
        traits, judge = settings.traits, settings.judge
        block = _judge_votes(settings, work, answered, judged)
        seeds = vote_seeds(settings)
    # A prompt the model could not answer still gets its votes: invalid, with the reason.
    failed = np.repeat(np.array(sorted(no_answer), np.int64), len(seeds))
    reasons = np.array([no_answer[row] for row in failed], dtype=object)
    block = block.plus(Block(failed, np.tile(np.array(seeds, np.int64), len(no_answer)),
                             np.full((len(failed), len(traits)), "invalid", dtype=object),
                             np.repeat(reasons[:, None], len(traits), axis=1)))
    if len(block.rows) == 0:
        raise FfsiteError("nothing was annotated: the --max-cost budget is too small for a "
                          "single call; raise it (see --dry-run for the estimate)")
    frame = vote_rows(work.table, block.rows, block.seeds, block.votes, block.notes, traits,
                      judge)
    return frame, not budget.stopped


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


def _judge_votes(settings: Settings, work: Work, answered: list[int], judged: Phase) -> Block:
    """Parse each judge answer (one per comparison and seed) and un-flip it."""
    n_traits = len(settings.traits)
    rows, seeds, votes, notes, flipped = [], [], [], [], []
    outcomes = iter(judged.outcomes)  # in the order the calls were made: row, then seed
    for row in answered:
        for seed in vote_seeds(settings):
            outcome = next(outcomes)
            if outcome.entry is not None:
                answer_votes, answer_notes = parse_answer(outcome.entry["content"], n_traits)
                if outcome.entry.get("finish_reason") == "length":
                    answer_notes = [note and f"{note} (answer cut off at --judge-max-tokens)"
                                    for note in answer_notes]
            elif outcome.failure is not None:
                answer_votes = ["invalid"] * n_traits
                answer_notes = [f"judge call failed: {outcome.failure.reason}"] * n_traits
            else:
                continue  # never started: the budget ran out
            rows.append(row)
            seeds.append(seed)
            votes.append(answer_votes)
            notes.append(answer_notes)
            flipped.append(shown_swapped(work.comparison_ids[row], seed))
    shape = (len(rows), n_traits)
    shown = np.array(votes, dtype=object).reshape(shape)
    return Block(np.array(rows, np.int64), np.array(seeds, np.int64),
                 unflip(shown, np.array(flipped, bool)),
                 np.array(notes, dtype=object).reshape(shape))


def _rule_votes(settings: Settings, work: Work, answered: list[int], texts: np.ndarray
                ) -> tuple[tuple[Trait, ...], str, Block]:
    """The rule-based judge's votes, straight on the file's sides."""
    from ffsite.judges import rules  # imported late: the API path does not need it

    traits = tuple(rules.RULE_TRAITS)
    rows = np.array(answered, np.int64)
    votes = np.empty((0, len(traits)), dtype=object)
    if len(rows):
        model_texts, reference_texts = texts[rows], work.reference_texts[rows]
        on_b = work.model_on_b[rows]
        decided = rules.judge_pairs(
            rules.response_features(list(np.where(on_b, reference_texts, model_texts))),
            rules.response_features(list(np.where(on_b, model_texts, reference_texts))))
        votes = decided[[t.id for t in traits]].to_numpy(object)
    return traits, rules.RULES_VERSION, Block(
        rows, np.full(len(rows), settings.seed, np.int64), votes,
        np.full(votes.shape, None, dtype=object))


# ------------------------------------------------------------------ summary, output

def _summary(settings: Settings, work: Work, generation: Phase | None, judged: Phase | None,
             frame: pd.DataFrame, complete: bool) -> dict:
    """The run's numbers for the file: deterministic (no times, no cached/new split)."""
    gen_tally = generation.tally() if generation else Tally()
    judge_tally = judged.tally() if judged else Tally()
    total = gen_tally.merge(judge_tally)
    invalid = int((frame["vote"] == "invalid").sum())
    trait_sets = sorted(frame["trait_set"].unique())
    if settings.by_rules:
        from ffsite.judges import rules

        judge_prompt = rules.RULES_VERSION
    else:
        judge_prompt = TEMPLATE_VERSION
    return {
        "tool": TOOL, "dataset": alpaca_eval.NAME, "model": settings.model,
        "reference": settings.reference, "judge": frame["judge"].iat[0],
        "judge_prompt": judge_prompt, "trait_set": "+".join(trait_sets),
        "traits": int(frame["trait_id"].nunique()), "prompts": len(work.table),
        "votes_per_comparison": 1 if settings.by_rules else settings.votes,
        "combine": settings.combine, "seed": settings.seed,
        "responses": "given" if work.given is not None else "generated",
        "temperature": settings.temperature,
        "max_tokens": None if work.given is not None else settings.max_tokens,
        "calls": total.calls, "generation_calls": gen_tally.calls,
        "judge_calls": judge_tally.calls, "failed_calls": total.failed_calls,
        "retries": total.retries, "votes": len(frame), "invalid_votes": invalid,
        "invalid_rate": round(invalid / len(frame), 6),
        "prompt_tokens": total.prompt_tokens, "completion_tokens": total.completion_tokens,
        "total_tokens": total.prompt_tokens + total.completion_tokens,
        "cost_usd": total.cost_usd, "cost_source": total.cost_source,
        "complete": complete,
    }


def _write_responses(settings: Settings, work: Work, generation: Phase) -> None:
    """The generated answers, in AlpacaEval's model_outputs layout: texts stay out of the
    votes file; this one can join the base data (pages then show examples) or be given
    back with --responses."""
    records = [{"dataset": subset, "instruction": instruction,
                "output": outcome.entry["content"], "generator": settings.model}
               for subset, instruction, outcome in zip(
                   work.table["meta.subset"], work.instructions, generation.outcomes,
                   strict=True) if outcome.entry is not None]
    write_text(settings.responses_out, json.dumps(records, indent=1, ensure_ascii=False) + "\n")


def _report(settings: Settings, summary: dict, generation: Phase | None,
            judged: Phase | None, budget: Budget, elapsed: float) -> list[str]:
    new = sum(o.new for phase in (generation, judged) if phase for o in phase.outcomes)
    cost = summary["cost_usd"]
    lines = [
        headline(settings, summary["prompts"]),
        f"calls: {summary['calls']} answered ({new} new, {summary['calls'] - new} from "
        f"cache), {summary['failed_calls']} failed, {summary['retries']} retries",
        f"votes: {summary['votes']}, invalid {summary['invalid_votes']} "
        f"({summary['invalid_rate']:.1%})",
        f"tokens: {summary['prompt_tokens']} in, {summary['completion_tokens']} out; cost "
        + (f"${cost:.4f} ({summary['cost_source']})" if cost is not None else
           "unknown (no price for these models: give --prices FILE)"),
        f"time: {elapsed:.1f}s ({new / max(elapsed, 1e-9):.1f} new calls/s)",
    ]
    if not summary["complete"]:
        lines.append(f"stopped at the budget: --max-cost {settings.max_cost} (spent "
                     f"${budget.spent:.4f} in this run); the file holds what is done; rerun "
                     "with a higher --max-cost to finish (answered calls are cached)")
    lines.append(f"wrote {settings.out}: {summary['votes']} votes")
    return lines

