"""One run of a collecting method: the skeleton every method plugs into.

A method (`ffsite annotate`, `eigenbench run`, `lmlpa run`, and the next one) is a
`Method`: it says which calls it makes and what their answers become.  `run` does the
rest, in the same order for every method:

1. **Names.** Every name its files will hold (`Method.names`) is checked before anything
   is paid for: a control character would fail the write after the whole run.
2. **Plan.** `Method.plan()`: the work, a pure function of the settings and inputs (and
   the method's own checks of them).
3. **Estimate.** Under a budget every model called (`Method.models`) needs a price.  The
   headline and the estimate (`Method.estimate`: per model and step, calls, tokens and
   cost) are printed before any call; a dry run stops there.
4. **Phases.** `Method.collect` sends its phases of calls through one `Session`: one
   client, cache and budget for the whole run.
5. **Result.** `Method.result` turns the answers into votes or ratings (`Collected`);
   none at all is an error (the budget ran out first).
6. **Summary.** The method's own fields (`Method.summary`), then `run_numbers` (calls,
   tokens, cost, completeness), counted from the cached answers in planned order: a
   resumed run writes the same bytes as an uninterrupted one.
7. **Invalid share.** `check_invalid`: when more than `max_invalid` (by default
   `MAX_INVALID`) of the votes or ratings are invalid, nothing is written.
8. **Write.** `Method.write` inside `all_or_nothing(*Method.outputs())`: every file of
   the run is replaced, or none.
9. **Report.** The headline, `report_lines` and `Method.written`.

A method's settings carry `api` (an `Api`) and `max_invalid`.  Messages name parameters
(`{max_cost}`, as `ParameterError` does), never the CLI's flags: `run`'s `name_of` (the
CLI passes its flag wording) words them.  Where the files go is `files.py`.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Generic, Protocol, TypeVar

from ffsite._atomic import all_or_nothing
from ffsite.collect.api import (
    Api,
    Cache,
    Endpoint,
    Estimate,
    Phase,
    Session,
    Tally,
    estimate_line,
    run_sync,
)
from ffsite.errors import ParameterError
from ffsite.format import text_problem

if TYPE_CHECKING:
    import pandas as pd

MAX_INVALID = 0.2  # a file with more invalid votes says more about the run than the model

P = TypeVar("P")  # a method's plan
T = TypeVar("T")  # what a method's answers became
Phases = dict[str, Phase | None]  # by the name the summary counts them under (`run_numbers`)


class Settings(Protocol):
    """What the skeleton reads of a method's settings."""

    api: Api
    max_invalid: float


@dataclass(frozen=True)
class Collected(Generic[T]):
    """What a run's answers became: `items` (the method's own: a votes frame, ratings),
    `n` votes or ratings, and the note of each invalid one (None: no note)."""

    items: T
    n: int
    invalid: list[str | None]


def invalid_votes(frame: pd.DataFrame) -> list[str | None]:
    """The notes of a votes frame's invalid votes (one vote per row)."""
    return frame.loc[frame["vote"] == "invalid", "note"].tolist()


class Method(ABC, Generic[P, T]):
    """A collecting method: its plan (which calls), its prompts and parsing, and how the
    answers become a file.  Subclasses are frozen dataclasses with a `settings` field."""

    tool: ClassVar[str]  # the summary's "tool": the command that collects
    counted: ClassVar[str]  # what its file counts: "votes" or "ratings"
    nothing: ClassVar[str]  # the error when nothing was collected, naming {max_cost}
    settings: Settings

    @abstractmethod
    def names(self) -> list[tuple[str, str]]:
        """(parameter, value) of every name the files will hold (models, judges, ...)."""

    @abstractmethod
    def plan(self) -> P:
        """The work: a pure function of the settings and inputs, checked."""

    @abstractmethod
    def headline(self, plan: P) -> str:
        """The first line of the estimate and of the report."""

    @abstractmethod
    def estimate(self, plan: P, cache: Cache) -> list[Estimate | str]:
        """Per model and step, the calls and their expected answer lengths (or a line);
        `cache` holds the answers already made, for steps that depend on them."""

    @abstractmethod
    def models(self, plan: P) -> list[str]:
        """The models the run calls (each needs a price under a budget)."""

    @abstractmethod
    async def collect(self, plan: P, session: Session) -> Phases:
        """Send the phases of calls through `session`; every phase, None if not sent."""

    @abstractmethod
    def result(self, plan: P, phases: Phases) -> Collected[T]:
        """The votes or ratings the answers give: failed steps give invalid ones with the
        reason, calls the budget never sent give none."""

    @abstractmethod
    def summary(self, plan: P, collected: Collected[T]) -> dict:
        """The method's own fields of the file's summary (deterministic: no times)."""

    @abstractmethod
    def outputs(self) -> tuple[Path, ...]:
        """Every file `write` writes."""

    @abstractmethod
    def write(self, plan: P, collected: Collected[T], summary: dict) -> None:
        """Write the files (atomically each; the skeleton makes them all or nothing)."""

    @abstractmethod
    def written(self, collected: Collected[T], summary: dict) -> list[str]:
        """The report's last lines: what was written where."""

    def detail(self, summary: dict) -> str:
        """What the calls were, said after "from cache" in the report."""
        return ""


def _own_name(param: str) -> str:
    return param


def run(method: Method[P, T], endpoint: Endpoint, *, dry: bool = False,
        echo: Callable[[str], None] = print,
        name_of: Callable[[str], str] = _own_name) -> dict | None:
    """Run `method` (with `dry`, only estimate it); return its file's summary."""
    check_names(method.names())
    plan = method.plan()
    api = method.settings.api
    if not dry:
        api.check_prices(method.models(plan))
    cache = Cache(api.cache_dir)
    echo(method.headline(plan))
    for line in method.estimate(plan, cache):
        echo(line if isinstance(line, str) else estimate_line(line, cache, name_of))
    if dry:
        echo("dry run: nothing was sent")
        return None
    started = time.monotonic()
    phases, session = run_sync(_collect(method, plan, endpoint))
    collected = method.result(plan, phases)
    if collected.n == 0:
        raise ParameterError(method.nothing, "max_cost", "dry_run")
    summary = {**method.summary(plan, collected),
               **run_numbers(phases, counted=method.counted, n=collected.n,
                             invalid=len(collected.invalid),
                             complete=not session.budget.stopped)}
    check_invalid(method.counted, collected, method.settings.max_invalid)
    with all_or_nothing(*method.outputs()):
        method.write(plan, collected, summary)
    new = sum(phase.new for phase in phases.values() if phase)
    for line in [method.headline(plan),
                 *report_lines(summary, new=new, elapsed=time.monotonic() - started,
                               damaged=session.cache.damaged, max_cost=api.max_cost,
                               spent=session.budget.spent, counted=method.counted,
                               detail=method.detail(summary), name_of=name_of),
                 *method.written(collected, summary)]:
        echo(line)
    return summary


async def _collect(method: Method[P, T], plan: P, endpoint: Endpoint
                   ) -> tuple[Phases, Session]:
    async with Session(method.settings.api, endpoint) as session:
        phases = await method.collect(plan, session)
    return phases, session


# ------------------------------------------------------------------------ the checks

def check_names(names: Iterable[tuple[str, str]]) -> None:
    """Names the output files can hold, as (parameter, value), checked before any call is
    paid for (a control character would fail the write after the whole run)."""
    for param, value in names:
        problem = text_problem(value) or ("empty" if not value.strip() else None)
        if problem:
            raise ParameterError(f"{{{param}}} {value!r}: {problem}", param)


def check_invalid(counted: str, collected: Collected, max_invalid: float) -> None:
    """Refuse to write a file whose votes or ratings are mostly failures (every call
    failing gave a file of 100% invalid votes, which looked like a result)."""
    rate = round(len(collected.invalid) / collected.n, 6)
    if rate <= max_invalid:
        return
    notes = Counter(note for note in collected.invalid if note is not None)
    # Ties go to the reason met first, so the message is the same on every run.
    common = notes.most_common(1)[0][0] if notes else "no reason recorded"
    raise ParameterError(f"{rate:.1%} of the {counted} are invalid, more than "
                         f"{{max_invalid}} {max_invalid:.0%} (most common reason: "
                         f"{common[:200]}); nothing was written; fix the cause and rerun "
                         "(answered calls are cached)", "max_invalid")


# ------------------------------------------------------------------------ the report

def run_numbers(phases: Phases, *, counted: str, n: int, invalid: int,
                complete: bool) -> dict:
    """The numbers every collecting method's file summary records: calls (all, and per
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
                 detail: str = "", name_of: Callable[[str], str] = _own_name) -> list[str]:
    """What a run reports after its headline, from its file's summary (`calls`,
    `failed_calls`, `retries`, `<counted>`, `invalid_<counted>`, `invalid_rate`, tokens,
    cost, `complete`): calls, the votes or ratings, tokens and cost, time, and notes on
    damaged cache entries and a budget stop.  `new`: calls this run made; `detail`: what
    the calls were, said after "from cache"."""
    cost = summary["cost_usd"]
    prices, budget = name_of("prices"), name_of("max_cost")
    lines = [
        f"calls: {summary['calls']} answered ({new} new, {summary['calls'] - new} from "
        f"cache{detail}), {summary['failed_calls']} failed, {summary['retries']} retries",
        f"{counted}: {summary[counted]}, invalid {summary['invalid_' + counted]} "
        f"({summary['invalid_rate']:.1%})",
        f"tokens: {summary['prompt_tokens']} in, {summary['completion_tokens']} out; cost "
        + (f"${cost:.4f} ({summary['cost_source']})" if cost is not None else
           f"unknown (no price for these models: give {prices} FILE)"),
        f"time: {elapsed:.1f}s ({new / max(elapsed, 1e-9):.1f} new calls/s)",
    ]
    if damaged:
        lines.append(f"cache: {damaged} damaged entries were ignored and their calls made "
                     "again")
    if not summary["complete"]:
        lines.append(f"stopped at the budget: {budget} {max_cost} (spent ${spent:.4f} in "
                     "this run); the files hold what is done; rerun with a higher "
                     f"{budget} to finish (answered calls are cached)")
    return lines
