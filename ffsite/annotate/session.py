"""What every collecting command shares: its API settings, one session of calls, costs.

`ffsite annotate`, `ffsite eigenbench run` and `ffsite lmlpa run` each plan their calls
as pure functions of their inputs (`Call`: body and cache key), then send them phase by
phase through one `Session`: one client (retries, concurrency, redaction), one cache
(kill -9-safe, no answered call paid twice) and one budget (`--max-cost`) for the run.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ffsite.annotate.cache import Cache, call_key
from ffsite.annotate.calls import Call, Outcome, run_calls
from ffsite.annotate.client import ChatClient, Endpoint, RetryPolicy, require_key
from ffsite.annotate.cost import BUILT_IN_PRICES, Budget, Price, Tally, estimated_tokens, find_price
from ffsite.errors import FfsiteError
from ffsite.format import text_problem
from ffsite.progress import Progress


def check_name(flag: str, value: str) -> None:
    """A model, judge or dataset name the output files can hold, checked before any call
    is paid for (a control character would fail the write after the whole run)."""
    problem = text_problem(value) or ("empty" if not value.strip() else None)
    if problem:
        raise FfsiteError(f"{flag} {value!r}: {problem}")


@dataclass(frozen=True)
class Api:
    """How a run calls the API: cache, lanes, budget, prices and retries."""

    cache_dir: Path
    concurrency: int = 16
    max_cost: float | None = None
    prices: dict[str, Price] = field(default_factory=lambda: dict(BUILT_IN_PRICES))
    policy: RetryPolicy = RetryPolicy()

    def call(self, kind: str, body: dict, **key_fields) -> Call:
        """A call whose cache key covers its kind, its whole body and `key_fields`."""
        return Call(call_key(kind=kind, **body, **key_fields), body,
                    find_price(self.prices, body["model"]))

    def check_prices(self, models: Sequence[str]) -> None:
        """With --max-cost every model called needs a price, or the budget cannot count."""
        if self.max_cost is None:
            return
        for model in models:
            if find_price(self.prices, model) is None:
                raise FfsiteError(f"--max-cost needs a price for '{model}': add it to a "
                                  '--prices file ({"model": {"input": USD_per_million, '
                                  '"output": ...}})')


@dataclass
class Phase:
    """The calls of one phase and their outcomes, in planned order."""

    calls: list[Call]
    outcomes: list[Outcome]

    def tally(self) -> Tally:
        tally = Tally()
        for call, outcome in zip(self.calls, self.outcomes, strict=True):
            if outcome.entry is not None:
                tally.add(outcome.entry, call.price, new=outcome.new)
            elif outcome.failure is not None:
                tally.add_failure(outcome.failure.attempts)
        return tally

    def texts(self) -> list[str | None]:
        """Each call's answer, None when it failed or was never sent."""
        return [o.entry["content"] if o.entry else None for o in self.outcomes]

    @property
    def new(self) -> int:
        return sum(o.new for o in self.outcomes)


T = TypeVar("T")


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run`, also where an event loop is already running (a Jupyter notebook, or
    a test process that drives a browser): there the run gets a thread and a loop of its
    own, since a running loop cannot be entered twice."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="ffsite-run") as pool:
        return pool.submit(asyncio.run, coroutine).result()


class Session:
    """`async with Session(api, endpoint) as session: phase = await session.run(...)`."""

    def __init__(self, api: Api, endpoint: Endpoint):
        self.api = api
        self.endpoint = endpoint
        self.cache = Cache(api.cache_dir)
        self.budget = Budget(api.max_cost)

    async def __aenter__(self) -> Session:
        self._client = ChatClient(self.endpoint, concurrency=self.api.concurrency,
                                  policy=self.api.policy)
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self._client.__aexit__(*exc_info)

    async def run(self, label: str, calls: list[Call]) -> Phase:
        """Send the calls not answered yet (concurrently), with a progress line."""
        if any(call.key not in self.cache for call in calls):  # a finished rerun needs none
            require_key(self.endpoint)
        progress = Progress().task(label, len(calls), unit="calls",
                                   counters=("retries", "failed"))
        self._client.on_retry = lambda reason: progress.advance(0, retries=1)
        outcomes = await run_calls(calls, client=self._client, cache=self.cache,
                                   budget=self.budget, progress=progress)
        return Phase(calls, outcomes)


def estimate_line(label: str, model: str, calls: Sequence[Call], out_tokens: Sequence[int],
                  cache: Cache) -> str:
    """`--dry-run`'s line for one model's calls: how many, how many cached, tokens, cost.
    `out_tokens` is the expected answer length of each call."""
    todo = [(call, out) for call, out in zip(calls, out_tokens, strict=True)
            if call.key not in cache]
    tokens_in = sum(estimated_tokens("".join(m["content"] for m in call.body["messages"]))
                    for call, _ in todo)
    tokens_out = sum(out for _, out in todo)
    price = calls[0].price if calls else None
    cost = (f"~${price.cost(tokens_in, tokens_out):.4f}" if price else
            f"cost unknown (no price for {model}; give --prices FILE)")
    return (f"{label}: {len(todo)} calls to {model} ({len(calls) - len(todo)} more cached), "
            f"~{tokens_in} tokens in, ~{tokens_out} out, {cost}")


def run_numbers(phases: dict[str, Phase | None], *, counted: str, n: int, invalid: int,
                complete: bool) -> dict:
    """The numbers every collecting command's file summary records: calls (all, and per
    phase as `<phase>_calls`), failed calls, retries, the votes or ratings (`counted`:
    `n` of them, `invalid` invalid), tokens, cost and whether the run finished.  Counted
    from the cached answers in planned order, so a resumed run records what an
    uninterrupted one does."""
    tallies = {name: phase.tally() if phase else Tally() for name, phase in phases.items()}
    total = Tally()
    for tally in tallies.values():
        total = total.merge(tally)
    return {
        "calls": total.calls, **{f"{name}_calls": t.calls for name, t in tallies.items()},
        "failed_calls": total.failed_calls, "retries": total.retries,
        counted: n, f"invalid_{counted}": invalid, "invalid_rate": round(invalid / n, 6),
        "prompt_tokens": total.prompt_tokens, "completion_tokens": total.completion_tokens,
        "total_tokens": total.prompt_tokens + total.completion_tokens,
        "cost_usd": total.cost_usd, "cost_source": total.cost_source, "complete": complete,
    }


def report_lines(summary: dict, *, new: int, elapsed: float, damaged: int,
                 max_cost: float | None, spent: float, counted: str = "votes",
                 detail: str = "") -> list[str]:
    """What a collecting command reports after its headline, from its file's summary
    (`calls`, `failed_calls`, `retries`, `<counted>`, `invalid_<counted>`,
    `invalid_rate`, tokens, cost, `complete`): calls, the votes or ratings, tokens and
    cost, time, and notes on damaged cache entries and a budget stop.  `new`: calls this
    run made; `detail`: what the calls were, said after "from cache"."""
    cost = summary["cost_usd"]
    lines = [
        f"calls: {summary['calls']} answered ({new} new, {summary['calls'] - new} from "
        f"cache{detail}), {summary['failed_calls']} failed, {summary['retries']} retries",
        f"{counted}: {summary[counted]}, invalid {summary['invalid_' + counted]} "
        f"({summary['invalid_rate']:.1%})",
        f"tokens: {summary['prompt_tokens']} in, {summary['completion_tokens']} out; cost "
        + (f"${cost:.4f} ({summary['cost_source']})" if cost is not None else
           "unknown (no price for these models: give --prices FILE)"),
        f"time: {elapsed:.1f}s ({new / max(elapsed, 1e-9):.1f} new calls/s)",
    ]
    if damaged:
        lines.append(f"cache: {damaged} damaged entries were ignored and their calls made "
                     "again")
    if not summary["complete"]:
        lines.append(f"stopped at the budget: --max-cost {max_cost} (spent ${spent:.4f} "
                     "in this run); the files hold what is done; rerun with a higher "
                     "--max-cost to finish (answered calls are cached)")
    return lines
