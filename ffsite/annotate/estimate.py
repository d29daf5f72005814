"""`--dry-run`: how many calls a run would make, their tokens and cost; nothing is sent.

Calls already in the cache are counted apart (they are free).  Tokens are estimated at
about four characters each; a judge answer's length is the judge's own estimate.
"""

from __future__ import annotations

import numpy as np

from ffsite.annotate.cache import Cache
from ffsite.annotate.cost import Price, estimated_tokens, find_price
from ffsite.annotate.plan import Settings, Work, generation_call, headline, pairs


def dry_run(settings: Settings, work: Work) -> list[str]:
    """Lines estimating calls, tokens and cost; nothing is sent."""
    cache = Cache(settings.cache_dir)
    n = len(work.table)
    lines = [headline(settings, work.prompts, n)]
    texts = work.given
    if texts is None:
        calls = [generation_call(settings, text) for text in work.instructions]
        missing = [i for i, call in enumerate(calls) if call.key not in cache]
        out_tokens = [min(settings.max_tokens, estimated_tokens(work.reference_texts[i]))
                      for i in missing]
        lines.append(_estimate_line("generation", settings.model, len(calls),
                                    [calls[i].body for i in missing], out_tokens,
                                    settings.prices))
        # Judge prompts need the answers: cached ones where they exist, else the
        # reference answer's length stands in for the unknown answer.
        texts = np.array([(cache.get(c.key) or {}).get("content", work.reference_texts[i])
                          for i, c in enumerate(calls)], dtype=object)
    judge = settings.judge
    requests = judge.requests(pairs(settings, work, range(n), texts))
    if not requests:
        lines.append(f"judge: {judge.describe()}, no API calls for {n} comparisons")
    for model in judge.api_models:
        asked = [r for r in requests if r.body["model"] == model]
        todo_requests = [r for r in asked if r.key not in cache]
        lines.append(_estimate_line("judge", model, len(asked),
                                    [r.body for r in todo_requests],
                                    [r.answer_tokens for r in todo_requests], settings.prices))
    lines.append("dry run: nothing was sent")
    return lines


def _estimate_line(label: str, model: str, n_calls: int, todo: list[dict],
                   out_tokens: list[int], prices: dict[str, Price]) -> str:
    """`todo`: the request bodies of the calls not in the cache."""
    tokens_in = sum(estimated_tokens("".join(m["content"] for m in body["messages"]))
                    for body in todo)
    tokens_out = sum(out_tokens)
    price = find_price(prices, model)
    cost = (f"~${price.cost(tokens_in, tokens_out):.4f}" if price else
            f"cost unknown (no price for {model}; give --prices FILE)")
    return (f"{label}: {len(todo)} calls to {model} ({n_calls - len(todo)} more cached), "
            f"~{tokens_in} tokens in, ~{tokens_out} out, {cost}")
