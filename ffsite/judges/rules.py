"""The rule-based trait judge `rules`: votes on the FF traits that text statistics decide.

For a pair of responses it compares one number per trait (word count, emphasis runs,
emojis ...) and votes for the side with clearly more; within a margin the pair is a
"tie", and when neither side shows the trait at all the vote is "neither".  The numbers
come from `response_features`, computed once per response; `judge_pairs` then decides any
number of pairs with array operations.  docs/judges.md explains every rule and margin.
`RulesJudge` is the rules behind the judge seam (`ffsite.judges.judge`): the one place
their votes are built, for `ffsite annotate --judge rules` and for whole datasets.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ffsite.judges.body import parse_body
from ffsite.judges.communication import COMMUNICATION_TRAITS, traits_of_body
from ffsite.judges.judge import Pairs, Reply, Request, Votes
from ffsite.traits import Trait, ff_v1_by_short

RULES_VERSION = "rules-1"  # the judge id in annotation files; bump when a rule changes
_FF_V1 = ff_v1_by_short()

# Personal pronouns of the first and second person ("I" only in capitals, and "US" is
# a country, not "us").
_PRONOUN = re.compile(
    r"(?=[IMmWwUuOoYy])\b(?:I|[Mm](?:e|y|ine|yself)|[Ww]e|[Uu]s|[Oo]urs?|[Oo]urselves"
    r"|[Yy]ou(?:rs?|rself|rselves)?)\b")
# Mathematical notation: operator and math symbol blocks, Greek letters, super- and
# subscripts, LaTeX commands, and ASCII operators standing between operands ("a = b",
# "x^2"; not the pluses of "C++" or the arrow "->").
_MATH_SYMBOLS = ("\u00b1\u00d7\u00f7\u00ac\u2200-\u22ff\u2a00-\u2aff\u27c0-\u27ef\u2980-\u29ff"
                 "\u0391-\u03a9\u03b1-\u03c9\u00b2\u00b3\u00b9\u2070-\u209f")
_MATH = re.compile(  # (the leading look-ahead lets the regex engine skip fast)
    f"(?=[\\\\=+<>^{_MATH_SYMBOLS}])(?:[{_MATH_SYMBOLS}]"
    r"|\\[A-Za-z]+"
    r"|[=+<>^](?<=[\w)\s][=+<>^])(?=[\s\w(]))")
# Citations: numbered [1] [2, 3] [^4], and author-year "(Smith, 2020)", "(Lee et al., 2019)".
_CITATION = re.compile(
    r"\[\^?\d+(?:\s*[,\u2013-]\s*\d+)*\]"
    r"|\([A-Z][\w'’.-]*(?: et al\.?| (?:and|&) [A-Z][\w'’-]*)?,? (?:1[5-9]|20)\d\d[a-z]?\)")
# Phrases that point at a source.
_SOURCE_PHRASES = ("according to", "According to", "Source:", "Sources:", "source:",
                   "sources:")

_WORDS = COMMUNICATION_TRAITS.index("words")
EXTRA_FEATURES: tuple[str, ...] = (
    "list_items", "ordered_items", "table_rows", "numbered_list", "structure_elements",
    "emphasis_spans", "math_symbols", "pronouns", "pronoun_rate", "references",
)


def count_citations(text: str) -> int:
    """Numbered and author-year citations and phrases such as "according to"."""
    found = sum(text.count(phrase) for phrase in _SOURCE_PHRASES)
    if "[" in text or "(" in text:
        found += len(_CITATION.findall(text))
    return found


def response_features(texts: Sequence[str]) -> pd.DataFrame:
    """Everything the rules need, one row per text: the 21 communication traits
    (COMMUNICATION_TRAITS) followed by EXTRA_FEATURES.  All columns are floats."""
    rows = []
    for text in texts:
        body = parse_body(text if isinstance(text, str) else "")
        traits = traits_of_body(body)
        words = traits[_WORDS]
        pronouns = len(_PRONOUN.findall(body.text))
        rows.append(traits + (
            body.list_items, body.ordered_items, body.table_rows,
            body.ordered_items >= 2,
            body.headings + body.list_items + body.table_rows,
            body.bold + body.italics,
            len(_MATH.findall(body.text)),
            pronouns,
            100.0 * pronouns / words if words else 0.0,
            body.web_links + count_citations(body.text),
        ))
    return pd.DataFrame(rows, columns=[*COMMUNICATION_TRAITS, *EXTRA_FEATURES], dtype=float)


@dataclass(frozen=True)
class Rule:
    """Vote for the side whose `feature` is clearly larger.

    The trait does not apply ("neither") when both values are below `floor`.  Otherwise
    a side wins when its lead is at least `absolute` and more than `relative` times the
    larger value; a smaller lead is a "tie".  `mirror` swaps the sides (for traits that
    reward less of something, such as conciseness).
    """

    short: str  # the FF trait wording without "Select the response that"
    feature: str
    relative: float
    absolute: float
    floor: float
    mirror: bool = False

    @property
    def trait(self) -> Trait:
        return _FF_V1[self.short]


RULES: tuple[Rule, ...] = (
    Rule("is more verbose", "words", relative=0.10, absolute=1, floor=0),
    Rule("is more concise", "words", relative=0.10, absolute=1, floor=0, mirror=True),
    Rule("provides a numbered list format", "numbered_list", relative=0, absolute=1, floor=1),
    Rule("has more structured formatting", "structure_elements",
         relative=0.20, absolute=2, floor=2),
    Rule("uses more bold and italics text", "emphasis_spans", relative=0.20, absolute=1,
         floor=1),
    Rule("uses more emojis", "emojis", relative=0.20, absolute=1, floor=1),
    Rule("ends with a follow-up question", "ends_with_question", relative=0, absolute=1,
         floor=1),
    Rule("uses more mathematical symbols and notation", "math_symbols",
         relative=0.20, absolute=2, floor=2),
    Rule("uses more personal pronouns (I, we, you)", "pronoun_rate",
         relative=0.20, absolute=0.5, floor=0.1),
    Rule("includes more references to other sources", "references",
         relative=0.20, absolute=1, floor=1),
)
RULE_TRAITS: tuple[Trait, ...] = tuple(rule.trait for rule in RULES)

# What each rule's number is, for the trait pages (docs/judges.md has the details).
FEATURE_WORDS = {
    "words": "the words",
    "numbered_list": "a numbered list (at least two numbered items)",
    "structure_elements": "the headings, list items and table rows, together,",
    "emphasis_spans": "the bold and italic runs",
    "emojis": "the emojis",
    "ends_with_question": "a question mark as its last character",
    "math_symbols": "the mathematical symbols (operators, Greek letters, super- and "
                    "subscripts, LaTeX commands)",
    "pronoun_rate": "the first- and second-person pronouns per 100 words",
    "references": "the web links, citations such as [1] or (Smith, 2020), and phrases "
                  "such as \"according to\"",
}
_YES_OR_NO = {"numbered_list", "ends_with_question"}


def rule_text(trait_id: str) -> str | None:
    """How the rule-based judge decides the trait, in words (None: no rule decides it)."""
    rule = next((r for r in RULES if r.trait.id == trait_id), None)
    if rule is None:
        return None
    what = FEATURE_WORDS[rule.feature]
    if rule.feature in _YES_OR_NO:
        return (f"A program, not a model, checks each response for {what}: the side "
                "where it holds wins; both: a tie; neither: the trait does not apply.")
    side = "fewer" if rule.mirror else "more"
    margin = f"at least {rule.absolute:g}" + (
        f" and more than {rule.relative:.0%} of the larger count" if rule.relative else "")
    floor = (f"; when both have fewer than {rule.floor:g}, the trait does not apply"
             if rule.floor > 0 else "")
    return (f"A program, not a model, counts {what} in each response: the side with "
            f"{side} wins when its lead is {margin}; a smaller lead is a tie{floor}.")


def judge_pairs(features_a: pd.DataFrame, features_b: pd.DataFrame) -> pd.DataFrame:
    """Votes for pairs of responses (row i of A against row i of B), one column per trait
    id in RULE_TRAITS order, each "A", "B", "tie" or "neither"; indexed like features_a."""
    if len(features_a) != len(features_b):
        raise ValueError(f"{len(features_a)} rows of features for side A but "
                         f"{len(features_b)} for side B")
    votes = {}
    for rule in RULES:
        a = features_a[rule.feature].to_numpy(dtype=float)
        b = features_b[rule.feature].to_numpy(dtype=float)
        if rule.mirror:
            a, b = b, a
        votes[rule.trait.id] = _vote(a, b, rule)
    return pd.DataFrame(votes, index=features_a.index)


def _vote(a: np.ndarray, b: np.ndarray, rule: Rule) -> np.ndarray:
    larger = np.maximum(a, b)
    lead = a - b
    wins_a = (lead >= rule.absolute) & (lead > rule.relative * larger)
    wins_b = (-lead >= rule.absolute) & (-lead > rule.relative * larger)
    return np.select([larger < rule.floor, wins_a, wins_b], ["neither", "A", "B"],
                     default="tie").astype(object)


@dataclass(frozen=True)
class RulesJudge:
    """The rules as a `Judge`: no API, one vote per comparison on RULE_TRAITS."""

    seed: int = 0  # recorded with each vote (the run's seed); the rules draw nothing

    @property
    def id(self) -> str:
        return RULES_VERSION

    @property
    def version(self) -> str:
        return RULES_VERSION

    @property
    def traits(self) -> tuple[Trait, ...]:
        return RULE_TRAITS

    @property
    def seeds(self) -> tuple[int, ...]:
        return (self.seed,)

    @property
    def api_models(self) -> tuple[str, ...]:
        return ()

    def describe(self) -> str:
        return "the rule-based judge"

    def requests(self, pairs: Pairs) -> list[Request]:
        return []

    def votes(self, pairs: Pairs, replies: Sequence[Reply] = ()) -> Votes:
        """Each distinct text is measured once (a reference answer is in many pairs)."""
        codes, texts = pd.factorize(np.concatenate([np.asarray(pairs.texts_a, object),
                                                    np.asarray(pairs.texts_b, object)]),
                                    use_na_sentinel=False)
        features = response_features(list(texts))
        n = len(pairs)
        return self.votes_on(features.iloc[codes[:n]].reset_index(drop=True),
                             features.iloc[codes[n:]].reset_index(drop=True))

    def votes_on(self, features_a: pd.DataFrame, features_b: pd.DataFrame) -> Votes:
        """Its votes on pairs of already measured responses (`response_features` rows)."""
        decided = judge_pairs(features_a, features_b)
        votes = decided[[t.id for t in RULE_TRAITS]].to_numpy(object).reshape(
            len(decided), len(RULE_TRAITS))
        return Votes(np.arange(len(votes), dtype=np.int64),
                     np.full(len(votes), self.seed, np.int64), votes,
                     np.full(votes.shape, None, dtype=object))
