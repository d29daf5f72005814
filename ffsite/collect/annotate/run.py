"""`ffsite annotate` as a collecting method: a model's answers, judge votes, a votes file.

1. The prompt set (a `PromptSet`, built by its base dataset) holds the prompts and the
   reference answers; the model's answers are given, or phase one asks the model (one
   user turn).
2. The judge (any `ffsite.judges.judge.Judge`) votes on the comparisons: phase two sends
   the API calls it asks for (the LLM judge: one per comparison and vote seed) through
   the run's session; a judge without an API votes from the texts alone.
3. The votes file records every vote and, in its metadata, the run's summary; beside it
   go the communication traits of the model's answers and the answers themselves.

Names, the estimate, the budget, the invalid share, the write and the report are the
skeleton's (collect/run.py).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite._atomic import write_text
from ffsite.collect.annotate.plan import (
    Settings,
    Work,
    generation_call,
    headline,
    judge_call,
    pairs,
    prepare,
)
from ffsite.collect.annotate.votes import vote_rows
from ffsite.collect.api import Cache, Estimate, Outcome, Phase, Session, estimated_tokens
from ffsite.collect.files import communication_file
from ffsite.collect.run import Collected, Method, Phases, invalid_votes
from ffsite.datasets.prompt_set import PromptSet
from ffsite.format.write import write_response_metrics, write_votes
from ffsite.judges.apply import communication_rows, measure
from ffsite.judges.judge import Reply, Votes

TOOL = "ffsite annotate"


@dataclass(frozen=True)
class Annotated:
    """The votes, and the model's answer on each comparison (None: it has none)."""

    frame: pd.DataFrame
    texts: np.ndarray


@dataclass(frozen=True)
class Annotate(Method[Work, Annotated]):
    """One annotation of `prompts` (collect/run.py: `Method`)."""

    settings: Settings
    prompts: PromptSet

    tool = TOOL
    counted = "votes"
    nothing = ("nothing was annotated: the {max_cost} budget is too small for a single "
               "call; raise it (see {dry_run} for the estimate)")

    def names(self) -> list[tuple[str, str]]:
        return [("model", self.settings.model), ("judge", self.settings.judge.id)]

    def plan(self) -> Work:
        return prepare(self.settings, self.prompts)

    def headline(self, work: Work) -> str:
        return headline(self.settings, work.prompts, len(work.table))

    def estimate(self, work: Work, cache: Cache) -> list[Estimate | str]:
        """Generations, if the answers are not given, then the judge's calls on the
        answers: cached ones where they exist, else the reference answer's length stands
        in for the unknown answer."""
        settings, judge, n = self.settings, self.settings.judge, len(work.table)
        lines: list[Estimate | str] = []
        texts = work.given
        if texts is None:
            calls = [generation_call(settings, text) for text in work.instructions]
            lines.append(Estimate("generation", settings.model, calls, [
                min(settings.max_tokens, estimated_tokens(reference))
                for reference in work.reference_texts]))
            texts = np.array([(cache.get(c.key) or {}).get("content", work.reference_texts[i])
                              for i, c in enumerate(calls)], dtype=object)
        requests = judge.requests(pairs(settings, work, range(n), texts))
        if not requests:
            lines.append(f"judge: {judge.describe()}, no API calls for {n} comparisons")
        for model in judge.api_models:
            asked = [r for r in requests if r.body["model"] == model]
            lines.append(Estimate("judge", model, [judge_call(settings, r) for r in asked],
                                  [r.answer_tokens for r in asked]))
        return lines

    def models(self, work: Work) -> list[str]:
        generating = [self.settings.model] if work.given is None else []
        return generating + list(self.settings.judge.api_models)

    async def collect(self, work: Work, session: Session) -> Phases:
        settings = self.settings
        generation = None
        texts = work.given
        if texts is None:
            generation = await session.run("generate", [generation_call(settings, text)
                                                        for text in work.instructions])
            texts = np.array(generation.texts(), dtype=object)
        rows = _answered(texts)
        calls = [judge_call(settings, request) for request in
                 settings.judge.requests(pairs(settings, work, rows, texts[rows]))]
        judged = await session.run("judge", calls) if calls else None
        return {"generation": generation, "judge": judged}

    def result(self, work: Work, phases: Phases) -> Collected[Annotated]:
        judge = self.settings.judge
        texts, no_answer = _model_answers(work, phases["generation"])
        answered = _answered(texts)
        judged = phases["judge"]
        replies = [] if judged is None else [_reply(outcome) for outcome in judged.outcomes]
        voted = judge.votes(pairs(self.settings, work, answered, texts[answered]), replies)
        votes = Votes(answered[voted.rows], voted.seeds, voted.votes, voted.notes)
        # A prompt the model could not answer still gets its votes: invalid, with the reason.
        seeds = judge.seeds
        failed = np.repeat(np.array(sorted(no_answer), np.int64), len(seeds))
        reasons = np.array([no_answer[row] for row in failed], dtype=object)
        n_traits = len(judge.traits)
        votes = votes.plus(Votes(failed, np.tile(np.array(seeds, np.int64), len(no_answer)),
                                 np.full((len(failed), n_traits), "invalid", dtype=object),
                                 np.repeat(reasons[:, None], n_traits, axis=1)))
        frame = vote_rows(work.table, votes, judge.traits, judge.id)
        return Collected(Annotated(frame, texts), len(frame), invalid_votes(frame))

    def summary(self, work: Work, collected: Collected[Annotated]) -> dict:
        settings, judge, frame = self.settings, self.settings.judge, collected.items.frame
        return {
            "tool": TOOL, "dataset": work.prompts.dataset, "model": settings.model,
            "reference": work.prompts.reference, "judge": judge.id,
            "judge_prompt": judge.version,
            "trait_set": "+".join(sorted(frame["trait_set"].unique())),
            "traits": int(frame["trait_id"].nunique()), "prompts": len(work.table),
            "votes_per_comparison": len(judge.seeds),
            "combine": settings.combine, "seed": settings.seed,
            "responses": "given" if work.given is not None else "generated",
            "temperature": settings.temperature,
            "max_tokens": None if work.given is not None else settings.max_tokens,
        }

    def outputs(self) -> tuple[Path, ...]:
        out, answers = self.settings.out, self.settings.responses_out
        return (out, communication_file(out), *([answers] if answers else []))

    def write(self, work: Work, collected: Collected[Annotated], summary: dict) -> None:
        texts = collected.items.texts
        write_votes(collected.items.frame, self.settings.out, extra=summary)
        self._write_communication(work, texts)
        if self.settings.responses_out is not None:
            self._write_responses(work, texts)

    def written(self, collected: Collected[Annotated], summary: dict) -> list[str]:
        return [f"wrote {self.settings.out}: {summary['votes']} votes"]

    def _write_communication(self, work: Work, texts: np.ndarray) -> None:
        """The 21 communication traits of the model's answers, as a response-metrics
        file: the site's communication page then shows the model without anyone
        re-running anything."""
        model = self.settings.model
        answered = _answered(texts)
        prompt_ids = work.prompts["prompt_id"].to_numpy(object)[answered]
        ids = [work.prompts.response_id(model, p) for p in prompt_ids]
        features = measure(ids, dict(zip(ids, texts[answered], strict=True)))
        responses = pd.DataFrame({"dataset": work.prompts.dataset, "response_id": ids,
                                  "prompt_id": prompt_ids, "model": model})
        write_response_metrics(communication_rows(responses, features),
                               communication_file(self.settings.out),
                               extra={"measures": "communication", "tool": TOOL,
                                      "model": model})

    def _write_responses(self, work: Work, texts: Sequence[str | None]) -> None:
        """The model's answers (generated or given), in the layout of the prompt set's own
        answer files: texts stay out of the votes file; the site reads this one beside it
        for the model's example pairs, and it can be given back as the run's answers."""
        records = [work.prompts.answer_record(self.settings.model, prompt, text)
                   for prompt, text in zip(work.prompts.table.to_dict("records"), texts,
                                           strict=True) if text is not None]
        write_text(self.settings.responses_out,
                   json.dumps(records, indent=1, ensure_ascii=False) + "\n")


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
