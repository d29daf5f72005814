"""A dry run's estimate: per model and step, how many calls, tokens and what they cost.

Calls already in the cache are counted apart (they are free).  Tokens in are estimated
at about four characters each; tokens out are the method's own guess per call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ffsite.collect.api.cache import Cache
from ffsite.collect.api.calls import Call
from ffsite.collect.api.cost import estimated_tokens


@dataclass(frozen=True)
class Estimate:
    """One model's calls of one step (`label`), with the expected answer length of each."""

    label: str
    model: str
    calls: Sequence[Call]
    out_tokens: Sequence[int]


def estimate_line(estimate: Estimate, cache: Cache, name_of: Callable[[str], str]) -> str:
    """The estimate as one line: calls (and how many more are cached), tokens, cost.
    `name_of` names a parameter as the caller does (the CLI: by its flag)."""
    todo = [(call, out) for call, out in zip(estimate.calls, estimate.out_tokens,
                                             strict=True) if call.key not in cache]
    tokens_in = sum(estimated_tokens("".join(m["content"] for m in call.body["messages"]))
                    for call, _ in todo)
    tokens_out = sum(out for _, out in todo)
    price = estimate.calls[0].price if estimate.calls else None
    cost = (f"~${price.cost(tokens_in, tokens_out):.4f}" if price else
            f"cost unknown (no price for {estimate.model}; give {name_of('prices')} FILE)")
    return (f"{estimate.label}: {len(todo)} calls to {estimate.model} "
            f"({len(estimate.calls) - len(todo)} more cached), ~{tokens_in} tokens in, "
            f"~{tokens_out} out, {cost}")
