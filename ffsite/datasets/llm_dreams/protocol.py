"""llm-dreams' protocol: how a new model is added the way the benchmark made its numbers.

Everything textual comes from the base data at run time: the 15 openings
(`incipits/`), and the answering prompt and the judge instruction from `PROTOCOL.md`
(the benchmark's own prompts, taken from its `answer.py` and `evaluation.py`).  As
PROTOCOL.md says:

- the model continues each opening twice (answer sets k = 0, 1): one user message, the
  answering prompt then the opening; any text up to `</think>` or `</thought>` is
  removed from the reply;
- each of the nine judges reads all 15 answers of one set in one user message, the
  instruction then, per answer in file-name order, the opening, one space and the answer
  with every newline and carriage return replaced by a space, the parts joined by two
  newlines; twice (repetitions r = 0, 1);
- the reply's JSON (the last fenced ```json block, else the last {...}) is read, a key
  spelled slightly differently matched to the nearest expected key, and a reply without
  all 15 numbers asked again;
- no temperature or other sampling setting is sent.

What ffsite adds: a `max_tokens` bound on every call (the budget needs one), and at most
two re-asks (the benchmark's count is not published).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from ffsite.collect.protocol.parse import read_scores
from ffsite.collect.protocol.spec import (
    AnswerKey,
    Judge,
    Material,
    Message,
    Prompt,
    ScoredProtocol,
    ScoredTrait,
    Unit,
    Verdict,
)
from ffsite.datasets.llm_dreams import DATASET, importer, reader
from ffsite.errors import FfsiteError

PROTOCOL_FILE = "PROTOCOL.md"
VERSION = "llm-dreams-1"
OPENING = "<contents of incipits/dreamNNN.txt>"  # where PROTOCOL.md puts the opening
REASONING_ENDS = ("</think>", "</thought>")
_NEWLINE = re.compile(r"[\r\n]")


def _blocks(text: str, after: str) -> str:
    """The first indented (code) block after the line `after` starts, unindented."""
    lines = text.splitlines()
    start = next((n for n, line in enumerate(lines) if line.startswith(after)), None)
    if start is None:
        raise ValueError(after)
    block = []
    for line in lines[start + 1:]:
        if line.startswith("    "):
            block.append(line[4:])
        elif block:
            break
    if not block:
        raise ValueError(after)
    return "\n".join(block)


def read_prompts(root: Path) -> tuple[str, str]:
    """(the text before the opening in the answering prompt, the judge instruction),
    from PROTOCOL.md."""
    path = root / PROTOCOL_FILE
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise FfsiteError(f"{path}: cannot read it ({exc.strerror}); it holds the "
                          "benchmark's own prompts: give the llm_dreams folder of "
                          "../shared/data as the base data") from None
    try:
        answering = _blocks(text, "## Answering")
        instruction = _blocks(text, "Instruction")
    except ValueError as missing:
        raise FfsiteError(f"{path}: no indented prompt after '{missing}'; is this "
                          "llm-dreams' PROTOCOL.md?") from None
    if OPENING not in answering:
        raise FfsiteError(f"{path}: the answering prompt has no {OPENING}; is this "
                          "llm-dreams' PROTOCOL.md?")
    # PROTOCOL.md writes the two newlines as `\n\n` ("`\n\n` is two newlines").
    before = answering.split(OPENING, 1)[0].replace("\\n", "\n")
    return before, instruction


def clean(answer: str) -> str:
    """The reply as the benchmark stores it: any text up to the end of a reasoning
    block removed."""
    for end in REASONING_ENDS:
        if end in answer:
            answer = answer.rpartition(end)[2]
    return answer


def judge_message(instruction: str, openings: Mapping[str, str], answers: list[str]) -> str:
    """The judge's one user message for one answer set (answers in opening order)."""
    parts = [opening + " " + _NEWLINE.sub(" ", answer)
             for opening, answer in zip(openings.values(), answers, strict=True)]
    return "\n\n".join([instruction, *parts])


def load(root: Path) -> Material:
    """The openings and PROTOCOL.md's prompts of the llm_dreams folder `root`."""
    openings = reader.read_openings(root)
    before, instruction = read_prompts(root)
    prompts = tuple(Prompt(dream, ({"role": "user", "content": before + text},))
                    for dream, text in openings.items())

    def units(model: str, answer_sets: int) -> list[Unit]:
        return [Unit(reader.answer_set_id(model, k), f"dreams-{k}", None,
                     {"answer_set": str(k)}, tuple((dream, k) for dream in openings))
                for k in range(answer_sets)]

    def messages(unit: Unit, texts: Mapping[AnswerKey, str]) -> list[Message]:
        answers = [texts[part] for part in unit.parts]
        return [{"role": "user", "content": judge_message(instruction, openings, answers)}]

    return Material(prompts, units, messages, read, clean,
                    source=f"{root / reader.OPENINGS_DIR} and {root / PROTOCOL_FILE}")


def read(text: str) -> Verdict:
    return read_scores(text, reader.TRAITS, scale=reader.SCALE, nearest=True)


def describe(judge: str) -> str:
    return importer.JUDGE_DESCRIPTIONS.get(
        judge, f"{judge}: reads a model's 15 dreams together and estimates the dreamer's "
               "15 traits, 1-10 (llm-dreams' protocol, run by ffsite)")


def protocol() -> ScoredProtocol:
    return ScoredProtocol(
        name="llm-dreams", dataset=DATASET.id, version=VERSION,
        about=("the model continues the 15 dream openings twice; each of the nine judges "
               "estimates the dreamer's 15 traits (1-10) from one answer set's dreams, "
               "twice"),
        reproduces=("the answering prompt, the judge prompt (byte for byte, from "
                    "PROTOCOL.md and the openings), the reasoning strip, the reading of "
                    "the reply, the nine judges, two answer sets and two repetitions, no "
                    "sampling settings"),
        differs=("a max_tokens bound on every call; at most two re-asks of an unreadable "
                 "reply; the judges' names on your API must stand for the benchmark's "
                 "(--judge-model), which ffsite cannot check"),
        judges=tuple(Judge(name, name) for name in DATASET.judges),
        traits=tuple(ScoredTrait(t, importer.trait_id(t), importer.trait_wording(t))
                     for t in reader.TRAITS),
        trait_set=importer.TRAIT_SET, scale=reader.SCALE, load=load,
        describe_judge=describe, unit="answer set", answer_sets=len(reader.ANSWER_SETS),
        repetitions=len(reader.REPETITIONS), reasks=2, max_tokens=4096,
        judge_max_tokens=2048, answer_tokens=450, verdict_tokens=220)
