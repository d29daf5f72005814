"""Tokens and money: prices, per-call cost, the run's tally and token estimates.

A call's cost is the provider's own figure when the answer carries one (OpenRouter puts
it in `usage.cost`), else its token usage times the model's price from the table below
or a price file, else unknown (and said so).  Token estimates for a dry run use about
four characters per token; the budget (`budget.py`) holds a pessimistic three characters
per token plus the full output allowance for every call in flight.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field

from ffsite.errors import FfsiteError


@dataclass(frozen=True)
class Price:
    input: float  # USD per million prompt tokens
    output: float  # USD per million completion tokens

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input + completion_tokens * self.output) / 1e6


# Published list prices (USD per million tokens, mid-2025).  Providers change them:
# check yours and give a price file with {"model": {"input": x, "output": y}}.
BUILT_IN_PRICES: dict[str, Price] = {
    "google/gemini-2.5-flash": Price(0.30, 2.50),
    "google/gemini-2.5-flash-lite": Price(0.10, 0.40),
    "google/gemini-2.5-pro": Price(1.25, 10.00),
    "openai/gpt-4o-mini": Price(0.15, 0.60),
    "openai/gpt-4o": Price(2.50, 10.00),
    "openai/gpt-4.1": Price(2.00, 8.00),
    "openai/gpt-4.1-mini": Price(0.40, 1.60),
    "openai/gpt-4.1-nano": Price(0.10, 0.40),
    "anthropic/claude-3.5-haiku": Price(0.80, 4.00),
    "anthropic/claude-sonnet-4": Price(3.00, 15.00),
    # Behavioral Profiling's panel (its protocol's judges, ffsite protocol run).
    "anthropic/claude-sonnet-4.5": Price(3.00, 15.00),
    "meta-llama/llama-4-maverick": Price(0.15, 0.60),
    "deepseek/deepseek-r1": Price(0.55, 2.19),
}


def load_prices(path: str | os.PathLike | None) -> dict[str, Price]:
    """The built-in table, overridden model by model by a JSON file."""
    prices = dict(BUILT_IN_PRICES)
    if path is None:
        return prices
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise FfsiteError(f"{path}: cannot read the price file ({exc.strerror})") from None
    except ValueError as exc:
        raise FfsiteError(f"{path}: not valid JSON ({exc}); write "
                          '{"model": {"input": USD_per_million, "output": USD_per_million}}'
                          ) from None
    if not isinstance(data, dict):
        raise FfsiteError(f"{path}: expected a JSON object mapping model names to prices")
    for model, entry in data.items():
        try:
            price = Price(float(entry["input"]), float(entry["output"]))
        except (TypeError, KeyError, ValueError):
            raise FfsiteError(f"{path}: model '{model}': give numbers for \"input\" and "
                              "\"output\" (USD per million tokens)") from None
        if not all(math.isfinite(v) and v >= 0 for v in (price.input, price.output)):
            raise FfsiteError(f"{path}: model '{model}': prices must be finite and not "
                              f"negative (got {entry['input']!r} and {entry['output']!r})")
        prices[model] = price
    return prices


def find_price(prices: dict[str, Price], model: str) -> Price | None:
    """Exact name first, then the name without its provider prefix ("gpt-4o-mini")."""
    if model in prices:
        return prices[model]
    bare = model.rsplit("/", 1)[-1]
    matches = [price for name, price in prices.items() if name.rsplit("/", 1)[-1] == bare]
    return matches[0] if len(matches) == 1 else None


def estimated_tokens(text: str) -> int:
    return len(text) // 4 + 1


def reserved_tokens(text: str) -> int:
    return len(text) // 3 + 1


def table_cost(entry: dict, price: Price | None) -> float | None:
    """The price table's figure for the tokens an answered call used (None: no price)."""
    return None if price is None else price.cost(entry["prompt_tokens"],
                                                 entry["completion_tokens"])


def budget_cost(entry: dict, price: Price | None) -> float | None:
    """What a call counts against the budget: the higher of the provider's figure and the
    price table's for the tokens used (either alone may be wrong or missing)."""
    known = [cost for cost in (entry.get("provider_cost"), table_cost(entry, price))
             if cost is not None]
    return max(known) if known else None


def entry_cost(entry: dict, price: Price | None) -> tuple[float | None, str]:
    """(cost, source) of one answered call: provider figure, price table, or unknown."""
    if entry.get("provider_cost") is not None:
        return float(entry["provider_cost"]), "provider"
    if price is not None:
        return table_cost(entry, price), "price table"
    return None, "unknown"


@dataclass
class Tally:
    """What a set of calls cost.  `calls` are the answered calls the result rests on."""

    calls: int = 0
    new_calls: int = 0
    failed_calls: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    cost_sources: dict[str, int] = field(default_factory=dict)

    def add(self, entry: dict, price: Price | None, *, new: bool) -> float | None:
        self.calls += 1
        self.new_calls += int(new)
        self.retries += entry["attempts"] - 1
        self.prompt_tokens += entry["prompt_tokens"]
        self.completion_tokens += entry["completion_tokens"]
        cost, source = entry_cost(entry, price)
        self.cost += cost or 0.0
        self.cost_sources[source] = self.cost_sources.get(source, 0) + 1
        return cost

    def add_failure(self, attempts: int) -> None:
        self.failed_calls += 1
        self.retries += attempts - 1

    def merge(self, other: Tally) -> Tally:
        sources = dict(self.cost_sources)
        for source, n in other.cost_sources.items():
            sources[source] = sources.get(source, 0) + n
        return Tally(self.calls + other.calls, self.new_calls + other.new_calls,
                     self.failed_calls + other.failed_calls, self.retries + other.retries,
                     self.prompt_tokens + other.prompt_tokens,
                     self.completion_tokens + other.completion_tokens,
                     self.cost + other.cost, sources)

    @property
    def cost_usd(self) -> float | None:
        """The known cost, or None when no call could be priced."""
        known = sum(n for source, n in self.cost_sources.items() if source != "unknown")
        return round(self.cost, 6) if known or not self.cost_sources else None

    @property
    def cost_source(self) -> str:
        """"provider", "price table", both joined by " + ", "unknown", or "incomplete"."""
        if not self.cost_sources:
            return "none"
        known = sorted(s for s in self.cost_sources if s != "unknown")
        if not known:
            return "unknown"
        if "unknown" in self.cost_sources:
            return "incomplete (no price for some calls)"
        return " + ".join(known)
