"""Run a batch of API calls through the cache, the budget and the client, concurrently."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from ffsite.collect.api.budget import Budget
from ffsite.collect.api.cache import Cache
from ffsite.collect.api.client import LOGGER, Answer, CallFailed, ChatClient, NotAdmitted
from ffsite.collect.api.cost import Price, budget_cost, reserved_tokens, table_cost
from ffsite.progress import Task

log = logging.getLogger(LOGGER)


@dataclass(frozen=True)
class Call:
    key: str  # cache key
    body: dict  # the chat-completions request
    price: Price | None

    def worst_case_cost(self) -> float:
        """What the call could cost at most (pessimistic tokens in, every token out)."""
        if self.price is None:
            return 0.0
        text = "".join(m["content"] for m in self.body["messages"])
        return self.price.cost(reserved_tokens(text), self.body["max_tokens"])


@dataclass(frozen=True)
class Failure:
    reason: str
    attempts: int


@dataclass(frozen=True)
class Outcome:
    """`entry` (an answered call), `failure`, or neither (not started: budget)."""

    entry: dict | None = None
    failure: Failure | None = None
    new: bool = False


def cache_entry(answer: Answer) -> dict:
    return {"content": answer.content, "finish_reason": answer.finish_reason,
            "prompt_tokens": answer.prompt_tokens,
            "completion_tokens": answer.completion_tokens,
            "provider_cost": answer.provider_cost, "attempts": answer.attempts}


async def run_calls(calls: Sequence[Call], *, client: ChatClient, cache: Cache,
                    budget: Budget, progress: Task, close: bool = True) -> list[Outcome]:
    """One outcome per call, in the order given (completion order does not matter);
    `progress` counts them, with counters "failed" and (by the caller) "retries", and is
    closed at the end unless `close` is False (a stream's batches share one)."""

    async def one(call: Call) -> Outcome:
        entry = cache.get(call.key)
        if entry is not None:
            progress.advance()
            return Outcome(entry=entry)
        worst = call.worst_case_cost()
        admitted = False

        async def admit() -> bool:
            nonlocal admitted
            admitted = await budget.admit(worst)
            return admitted

        async def keep(answer: Answer) -> dict:
            entry = cache_entry(answer)
            # File writes release the GIL: in a thread they overlap the event loop's work.
            await asyncio.to_thread(cache.put, call.key, entry)
            return entry

        try:
            entry = await client.complete(call.body, admit=admit, keep=keep)
        except NotAdmitted:
            return Outcome()
        except CallFailed as failed:
            budget.release(worst)
            log.warning("call to %s failed: %s", call.body["model"], failed.reason)
            progress.advance(failed=1)
            return Outcome(failure=Failure(failed.reason, failed.attempts))
        except BaseException:  # the run is ending (a fatal answer, a full disk, Ctrl-C)
            if admitted:
                budget.release(worst)
            raise
        budget.settle(worst, budget_cost(entry, call.price), table_cost(entry, call.price))
        progress.advance()
        return Outcome(entry=entry, new=True)

    try:
        return list(await asyncio.gather(*(one(call) for call in calls)))
    finally:
        if close:
            progress.close()
