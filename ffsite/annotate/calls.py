"""Run a batch of API calls through the cache, the budget and the client, concurrently."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from ffsite.annotate.cache import Cache
from ffsite.annotate.client import CallFailed, ChatClient, NotAdmitted
from ffsite.annotate.cost import Budget, Price, budget_cost, reserved_tokens
from ffsite.progress import Task

log = logging.getLogger("ffsite.annotate")


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


def cache_entry(answer) -> dict:
    return {"content": answer.content, "finish_reason": answer.finish_reason,
            "prompt_tokens": answer.prompt_tokens,
            "completion_tokens": answer.completion_tokens,
            "provider_cost": answer.provider_cost, "attempts": answer.attempts}


async def run_calls(calls: Sequence[Call], *, client: ChatClient, cache: Cache,
                    budget: Budget, progress: Task) -> list[Outcome]:
    """One outcome per call, in the order given (completion order does not matter);
    `progress` counts them, with counters "failed" and (by the caller) "retries"."""

    async def one(call: Call) -> Outcome:
        entry = cache.get(call.key)
        if entry is not None:
            progress.advance()
            return Outcome(entry=entry)
        worst = call.worst_case_cost()
        held: list[float] = []

        def admit() -> bool:
            reserved = budget.reserve(worst)
            if reserved is not None:
                held.append(reserved)
            return reserved is not None

        async def keep(answer) -> dict:
            entry = cache_entry(answer)
            # File writes release the GIL: in a thread they overlap the event loop's work.
            await asyncio.to_thread(cache.put, call.key, entry)
            return entry

        try:
            entry = await client.complete(call.body, admit=admit, keep=keep)
        except NotAdmitted:
            return Outcome()
        except CallFailed as failed:
            budget.settle(held[0] if held else 0.0, worst, 0.0)
            log.warning("call to %s failed: %s", call.body["model"], failed.reason)
            progress.advance(failed=1)
            return Outcome(failure=Failure(failed.reason, failed.attempts))
        budget.settle(held[0], worst, budget_cost(entry, call.price))
        progress.advance()
        return Outcome(entry=entry, new=True)

    try:
        return list(await asyncio.gather(*(one(call) for call in calls)))
    finally:
        progress.close()
