"""`--dry-run`: how many calls a run would make, their tokens and cost; nothing is sent.

Calls already in the cache are counted apart (they are free).  Tokens are estimated at
about four characters each; a judge answer at about six tokens per rule.
"""

from __future__ import annotations

import numpy as np

from ffsite.annotate.cache import Cache
from ffsite.annotate.calls import Call
from ffsite.annotate.cost import Price, estimated_tokens, find_price
from ffsite.annotate.plan import Settings, Work, generation_call, headline, judge_call, vote_seeds

# A judge answer's length: about '"12": "A", ' per rule.
JUDGE_TOKENS_PER_RULE = 6


def dry_run(settings: Settings, work: Work) -> list[str]:
    """Lines estimating calls, tokens and cost; nothing is sent."""
    cache = Cache(settings.cache_dir)
    n = len(work.table)
    lines = [headline(settings, n)]
    texts = work.given
    if texts is None:
        calls = [generation_call(settings, text) for text in work.instructions]
        todo = [i for i, call in enumerate(calls) if call.key not in cache]
        out_tokens = [min(settings.max_tokens, estimated_tokens(work.reference_texts[i]))
                      for i in todo]
        lines.append(_estimate_line("generation", settings.model, calls, todo, out_tokens,
                                    settings.prices))
        # Judge prompts need the answers: cached ones where they exist, else the
        # reference answer's length stands in for the unknown answer.
        texts = np.array([(cache.get(c.key) or {}).get("content", work.reference_texts[i])
                          for i, c in enumerate(calls)], dtype=object)
    if settings.by_rules:
        lines.append(f"judge: the rule-based judge, no API calls for {n} comparisons")
    else:
        price = find_price(settings.prices, settings.judge)
        calls = [judge_call(settings, work, row, texts[row], seed, price)
                 for row in range(n) for seed in vote_seeds(settings)]
        todo = [i for i, call in enumerate(calls) if call.key not in cache]
        out_tokens = [JUDGE_TOKENS_PER_RULE * len(settings.traits) + 8] * len(todo)
        lines.append(_estimate_line("judge", settings.judge, calls, todo, out_tokens,
                                    settings.prices))
    lines.append("dry run: nothing was sent")
    return lines


def _estimate_line(label: str, model: str, calls: list[Call], todo: list[int],
                   out_tokens: list[int], prices: dict[str, Price]) -> str:
    tokens_in = sum(estimated_tokens("".join(m["content"] for m in calls[i].body["messages"]))
                    for i in todo)
    tokens_out = sum(out_tokens)
    price = find_price(prices, model)
    cost = (f"~${price.cost(tokens_in, tokens_out):.4f}" if price else
            f"cost unknown (no price for {model}; give --prices FILE)")
    return (f"{label}: {len(todo)} calls to {model} ({len(calls) - len(todo)} more cached), "
            f"~{tokens_in} tokens in, ~{tokens_out} out, {cost}")
