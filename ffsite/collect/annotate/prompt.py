"""The Feedback Forensics multi-trait judge prompt (methods.md §1), in our own words.

One call asks about many traits at once.  The judge sees the user's message and the two
responses as Sample A and Sample B in an order drawn from the vote's seed, so the order
is random per comparison yet recomputable; `parse_answer` (collect/shared.py) reads the
answer in the order shown and the caller turns it back to the file's sides.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

# Bump when the wording below changes: it is part of every judge call's cache key.
TEMPLATE_VERSION = "ff-multi-1"

SYSTEM = ("You compare two samples of text and check, rule by rule, which sample each rule "
          "selects. You are careful and consistent.")

_USER = """A user sent this message:
<user_message>
{prompt}
</user_message>

Two assistants replied.

Sample A:
<sample_a>
{first}
</sample_a>

Sample B:
<sample_b>
{second}
</sample_b>

Rules:
{rules}

For every rule above, decide which sample it selects:
- "A" or "B": that sample, even when the difference is small; no ties between A and B.
- "Both": the rule is a yes/no property that both samples have, so neither can be picked.
- "None": the rule does not apply to either sample.
Answer every rule, even when unsure. Reply with one JSON object and nothing else, mapping
each rule number to "A", "B", "Both" or "None", for example {{"1": "A", "2": "None", "3": "B"}}."""


def judge_messages(prompt: str, first: str, second: str,
                   rules: Sequence[str]) -> list[dict[str, str]]:
    """Messages for one judge call; `first` is shown as Sample A, `second` as Sample B."""
    numbered = "\n".join(f"{number}. {rule}" for number, rule in enumerate(rules, start=1))
    user = _USER.format(prompt=prompt, first=first, second=second, rules=numbered)
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def shown_swapped(comparison_id: str, seed: int) -> bool:
    """Whether the judge sees the file's side B as Sample A for this vote.

    The lowest bit of the first byte of SHA-256("order:<seed>:<comparison id>"); a
    different seed gives an independent order, so repeated votes see both orders.
    """
    digest = hashlib.sha256(f"order:{seed}:{comparison_id}".encode()).digest()
    return bool(digest[0] & 1)
