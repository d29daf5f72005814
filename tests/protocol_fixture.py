"""Shared pieces of the protocol tests: a scripted chat server that answers each
protocol's calls as a model or a judge would, with faults on chosen calls.

The server tells calls apart by their content.  The datasets' own instructions are read
here from the base data (never typed into the repository): llm-dreams' judge
instruction from PROTOCOL.md, Behavioral Profiling's from judge/behavior.yaml.  Every
score and vote the scripted judges give is a function written here, so a test can work
out what the files must hold without reading ffsite.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path

import yaml
from chat_server import Reply, Request

DREAM_TRAITS = (  # llm-dreams' 15 keys, typed from the data's README
    "Anxiety and Stress Levels", "Emotional Stability", "Problem-solving Skills",
    "Creativity", "Interpersonal Relationships", "Confidence and Self-efficacy",
    "Conflict Resolution", "Work-related Stress", "Adaptability", "Achievement Motivation",
    "Fear of Failure", "Need for Control", "Cognitive Load", "Social Support", "Resilience")
BP_DIMENSIONS = ("warmth", "formality", "hedging", "aggression", "transgression",
                 "grandiosity", "tribalism", "depth", "authenticity")
MISSPELT = {"Creativity": "Creativty"}  # a judge's typo, matched to the nearest key


def byte(*parts: str) -> int:
    return hashlib.sha256("\0".join(parts).encode()).digest()[0]


def dream_score(judge: str, trait: str) -> float:
    """What the scripted judge `judge` says of every dreamer on `trait`: 1.0-10.0."""
    return 1.0 + byte("dream", judge, trait) % 10


def bp_score(judge: str, dimension: str) -> int:
    """0-10: the published data has 0s below the rubric's floor, so the script does too."""
    return byte("bp", judge, dimension) % 11


def aa_level(model: str, trait: str) -> int:
    """How strongly `model` shows AA trait `trait` (by name): the judge prefers higher."""
    return byte("aa", model, trait) % 7


def dream_instruction(root: Path) -> str:
    """llm-dreams' judge instruction, read from PROTOCOL.md as the test reads it."""
    text = (root / "PROTOCOL.md").read_text("utf-8")
    after = text.split("Instruction (one line in the original):", 1)[1]
    return re.search(r"\n\n    (.+)\n", after).group(1)


def bp_prefix(root: Path) -> str:
    """The start of Behavioral Profiling's judge instruction, up to the prompt's slot."""
    template = yaml.safe_load((root / "judge" / "behavior.yaml").read_text("utf-8"))
    return template["judge_prompt"].split("{prompt_text_will_be_injected}", 1)[0]


class Script:
    """Answers every protocol's calls; `faults[(kind, model)]` lists replies for the
    first requests of that kind to that model (counted across identical requests), and
    `faults[(kind, model, text)]` for those whose user message contains `text`;
    `replies[(kind, model)]` replaces every answer of that kind and model."""

    def __init__(self, shared_data: Path, faults: dict | None = None,
                 replies: dict | None = None):
        self.instruction = dream_instruction(shared_data / "llm_dreams")
        self.bp_prefix = bp_prefix(shared_data / "behavioral_profiling")
        self.faults = faults or {}
        self.replies = replies or {}
        self.seen: Counter = Counter()

    def kind(self, request: Request) -> str:
        text = request.user_text
        if text.startswith(self.instruction):
            return "dream-judge"
        if text.startswith(self.bp_prefix):
            return "bp-judge"
        if request.is_judge:
            return "aa-judge" if text.startswith("Trait: ") else "ff-judge"
        return "answer"

    def __call__(self, request: Request) -> Reply:
        kind = self.kind(request)
        key = (kind, request.model)
        for fault in self.faults:
            if fault[:2] == key and (len(fault) == 2 or fault[2] in request.user_text):
                attempt = self.seen[fault]
                self.seen[fault] += 1
                if attempt < len(self.faults[fault]):
                    return self.faults[fault][attempt]
        if key in self.replies:
            return Reply(self.replies[key])
        return getattr(self, kind.replace("-", "_"))(request)

    def answer(self, request: Request) -> Reply:
        digest = hashlib.sha256(request.user_text.encode()).hexdigest()[:8]
        return Reply(f"<think>planning</think>{request.model} answers {digest}.\n"
                     "It goes on\r\nfor a line or two.")

    def dream_judge(self, request: Request) -> Reply:
        scores = {MISSPELT.get(t, t): dream_score(request.model, t) for t in DREAM_TRAITS}
        return Reply("Here is my estimate.\n```json\n" + json.dumps(scores) + "\n```")

    def bp_judge(self, request: Request) -> Reply:
        return Reply(json.dumps({"scores": {d: bp_score(request.model, d)
                                            for d in BP_DIMENSIONS},
                                 "notable_quote": "a quote", "observations": "plain"}))

    def aa_judge(self, request: Request) -> Reply:
        text = request.user_text
        trait = text.split("\n", 1)[0].removeprefix("Trait: ")
        first, second = (re.search(rf"<answer_{side}>\n(?:<think>planning</think>)?(\S+) "
                                   "answers", text).group(1) for side in "ab")
        a, b = aa_level(first, trait), aa_level(second, trait)
        return Reply("A" if a > b else "B" if b > a else "tie")

    def ff_judge(self, request: Request) -> Reply:
        rules = len(re.findall(r"^\d+\. ", request.user_text.split("Rules:\n", 1)[1],
                               re.MULTILINE))
        return Reply(json.dumps({str(i): "AB"[i % 2] for i in range(1, rules + 1)}))
