"""`--dry-run`: how many calls a run would make, their tokens and cost; nothing is sent.

Calls already in the cache are counted apart (they are free).  Tokens are estimated at
about four characters each; a judge answer's length is the judge's own estimate.
"""

from __future__ import annotations

import numpy as np

from ffsite.annotate.cache import Cache
from ffsite.annotate.cost import estimated_tokens
from ffsite.annotate.plan import Settings, Work, generation_call, headline, judge_call, pairs
from ffsite.annotate.session import estimate_line


def dry_run(settings: Settings, work: Work) -> list[str]:
    """Lines estimating calls, tokens and cost; nothing is sent."""
    cache = Cache(settings.api.cache_dir)
    n = len(work.table)
    lines = [headline(settings, work.prompts, n)]
    texts = work.given
    if texts is None:
        calls = [generation_call(settings, text) for text in work.instructions]
        out_tokens = [min(settings.max_tokens, estimated_tokens(reference))
                      for reference in work.reference_texts]
        lines.append(estimate_line("generation", settings.model, calls, out_tokens, cache))
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
        lines.append(estimate_line("judge", model, [judge_call(settings, r) for r in asked],
                                   [r.answer_tokens for r in asked], cache))
    lines.append("dry run: nothing was sent")
    return lines
