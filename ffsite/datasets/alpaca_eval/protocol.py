"""AlpacaEval's Feedback Forensics protocol: the model answers the 805 instructions, and
ffsite's LLM judge votes on all 40 of FF's traits against the reference's answers
(`ffsite annotate`'s method, its judge and settings fixed so runs are comparable)."""

from __future__ import annotations

from ffsite.collect.annotate.prompt import TEMPLATE_VERSION
from ffsite.collect.protocol.spec import Judge, VotesProtocol
from ffsite.datasets.alpaca_eval import DATASET
from ffsite.traits import FF_V1

# ffsite's choice of judge for FF v1 on AlpacaEval (AlpacaEval's own judge picks a
# preferred answer, not traits).
JUDGE = "google/gemini-2.5-flash"


def protocol() -> VotesProtocol:
    return VotesProtocol(
        name="alpaca-eval", dataset=DATASET.id, version=TEMPLATE_VERSION,
        about=(f"the model answers AlpacaEval's 805 instructions; {JUDGE} votes on all 40 "
               f"Feedback Forensics traits, the answer against {DATASET.reference_model}'s"),
        reproduces=("Feedback Forensics' pairwise trait votes (its 40 v1 traits, one judge "
                    "call per comparison, sides a seeded coin) on AlpacaEval's prompts and "
                    "reference answers"),
        differs=("ffsite's judge prompt and judge model (FF's own annotations of AlpacaEval "
                 "are not published); the site's rule judge covers 10 of the traits, and "
                 "a trait both judges vote on is shown once per judge"),
        judges=(Judge(JUDGE, JUDGE),), traits=FF_V1)
