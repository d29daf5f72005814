"""The AA-style panel's protocol (AA-PersonalityBench's design in ffsite's words).

The questions are ffsite's own (ffsite/data/aa_questions.toml: five per trait); the
judge prompt below is ffsite's own.  A judge gets the trait's name and definition
(ffsite.traits.AA30), the question and two anonymous answers, and answers A, B or tie.
"""

from __future__ import annotations

import tomllib
from importlib import resources

from ffsite.collect.protocol.parse import read_choice
from ffsite.collect.protocol.spec import Judge, Message, PanelProtocol, Question
from ffsite.datasets.aa_personality import DATASET
from ffsite.errors import FfsiteError
from ffsite.traits import AA30, AA30_NAMES, Trait

VERSION = "aa-panel-1"
QUESTIONS = "aa_questions.toml"
ANCHOR = "openai/gpt-4o-mini"

SYSTEM = ("You compare two answers written by AI assistants on one trait of their style "
          "or personality. A trait is not a grade: judge only how strongly each answer "
          "shows it, not which answer is better.")

_USER = """Trait: {name}
Definition: an answer shows this trait when it {definition}.

A user asked:
<question>
{question}
</question>

Answer A:
<answer_a>
{first}
</answer_a>

Answer B:
<answer_b>
{second}
</answer_b>

Which answer shows the trait "{name}" more strongly? Reply with one word: A, B, or tie \
(when they show it equally, or neither shows it)."""


def definition(trait: Trait) -> str:
    """The definition in an AA30 wording ("...: it <definition>")."""
    return trait.wording.split(": it ", 1)[1]


def messages(trait: Trait, question: str, first: str, second: str) -> list[Message]:
    user = _USER.format(name=AA30_NAMES[trait.id], definition=definition(trait),
                        question=question, first=first, second=second)
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def questions() -> tuple[Question, ...]:
    """Every question, trait by trait in AA30's order, each trait's in the file's."""
    path = resources.files("ffsite").joinpath("data", QUESTIONS)
    data = tomllib.loads(path.read_text("utf-8"))
    ids = {name: trait_id for trait_id, name in AA30_NAMES.items()}
    found = []
    for trait in AA30:
        name = AA30_NAMES[trait.id]
        entry = data.get(name)
        if not isinstance(entry, dict) or not entry.get("questions"):
            raise FfsiteError(f"{path}: trait {name!r} has no questions")
        found += [Question(f"{entry['key']}-{n}", ids[name], text)
                  for n, text in enumerate(entry["questions"], start=1)]
    return tuple(found)


def protocol() -> PanelProtocol:
    return PanelProtocol(
        name="aa-personality", dataset=DATASET.id, version=VERSION,
        about=("the models answer 150 trait-eliciting questions (5 per trait); per trait, "
               "each model gets a target of comparisons (the anchor oversampled), each "
               "judged by one of three judges, balanced: A, B or tie"),
        reproduces=("AA-PersonalityBench's design: one trait per judge call with a tie, a "
                    "panel of three with balanced assignment, a target of comparisons per "
                    "model and trait with the anchor oversampled, answers in one user "
                    "turn without a system prompt; Bradley-Terry with Firth and the eight "
                    "indices"),
        differs=("ffsite's own 150 questions (AA's 900 are private), its own judge prompt "
                 "and definitions, its own panel and anchor; AA's numbers cannot be "
                 "compared with these"),
        judges=tuple(Judge(j, j) for j in DATASET.judges), panel=DATASET.panel,
        traits=AA30, questions=questions, messages=messages, read=read_choice,
        describe_panel=(f"{DATASET.panel}: each comparison to one of the three, balanced "
                        "per model; the member in meta.judge"),
        anchor=ANCHOR)
