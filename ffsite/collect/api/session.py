"""One session of calls for a run: its API settings, and its phases of calls.

A method plans its calls as pure functions of its inputs (`Call`: body and cache key),
then sends them phase by phase through one `Session`: one client (retries, concurrency,
redaction), one cache (kill -9-safe, no answered call paid twice) and one budget for the
whole run.  A phase may also be a `Stream`, its calls sent as they become ready, so the
next phase does not wait for the last call of the one before.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ffsite.collect.api.budget import Budget
from ffsite.collect.api.cache import Cache, call_key
from ffsite.collect.api.calls import Call, Outcome, run_calls
from ffsite.collect.api.client import ChatClient, Endpoint, RetryPolicy, require_key
from ffsite.collect.api.cost import BUILT_IN_PRICES, Price, Tally, find_price
from ffsite.errors import ParameterError
from ffsite.progress import Progress, Task


@dataclass(frozen=True)
class Api:
    """How a run calls the API: cache, lanes, budget (`max_cost`, USD), prices, retries."""

    cache_dir: Path
    concurrency: int = 16
    max_cost: float | None = None
    prices: dict[str, Price] = field(default_factory=lambda: dict(BUILT_IN_PRICES))
    policy: RetryPolicy = RetryPolicy()

    def call(self, kind: str, body: dict, **key_fields: Any) -> Call:
        """A call whose cache key covers its kind, its whole body and `key_fields`."""
        return Call(call_key(kind=kind, **body, **key_fields), body,
                    find_price(self.prices, body["model"]))

    def check_prices(self, models: Sequence[str]) -> None:
        """Under a budget every model called needs a price, or the budget cannot count."""
        if self.max_cost is None:
            return
        for model in models:
            if find_price(self.prices, model) is None:
                raise ParameterError(f"{{max_cost}} needs a price for '{model}': add it to "
                                     'a {prices} file ({"model": {"input": USD_per_million, '
                                     '"output": ...}})', "max_cost", "prices")


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
    """`async with Session(api, endpoint) as session: phase = await session.run(...)`.

    The client is made by the first phase, so a run without one (answers given, a judge
    without an API) makes none."""

    def __init__(self, api: Api, endpoint: Endpoint):
        self.api = api
        self.endpoint = endpoint
        self.cache = Cache(api.cache_dir)
        self.budget = Budget(api.max_cost)
        self._client: ChatClient | None = None

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._client is not None:
            await self._client.__aexit__(*exc_info)

    async def run(self, label: str, calls: list[Call]) -> Phase:
        """Send the calls not answered yet (concurrently), with a progress line."""
        self._open(calls)
        progress = Progress().task(label, len(calls), unit="calls",
                                   counters=("retries", "failed"))
        self._client.on_retry = lambda reason: progress.advance(0, retries=1)
        outcomes = await run_calls(calls, client=self._client, cache=self.cache,
                                   budget=self.budget, progress=progress)
        return Phase(calls, outcomes)

    def stream(self, label: str, total: int) -> Stream:
        """A phase whose calls are sent in batches as they become ready (a judge call as
        soon as the answers it shows are in), under one progress line; several streams
        run at once through the same lanes, cache and budget.  The method puts the
        batches' outcomes together in planned order (`Phase`), so the files do not
        depend on which batch finished first."""
        return Stream(self, Progress().task(label, total, unit="calls",
                                            counters=("retries", "failed")))

    def _open(self, calls: Sequence[Call]) -> None:
        if any(call.key not in self.cache for call in calls):  # a finished rerun needs none
            require_key(self.endpoint)
        if self._client is None:
            self._client = ChatClient(self.endpoint, concurrency=self.api.concurrency,
                                      policy=self.api.policy)


class Stream:
    """`outcomes = await stream.send(calls)`, as often as needed; then `close()`."""

    def __init__(self, session: Session, progress: Task):
        self.session = session
        self.progress = progress

    async def send(self, calls: list[Call]) -> list[Outcome]:
        session = self.session
        session._open(calls)
        session._client.on_retry = lambda reason: self.progress.advance(0, retries=1)
        return await run_calls(calls, client=session._client, cache=session.cache,
                               budget=session.budget, progress=self.progress, close=False)

    def close(self) -> None:
        self.progress.close()
