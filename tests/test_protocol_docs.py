"""The protocol commands in CONTRIBUTING.md and docs/protocols.md are real: every flag
they use is an option of the command they run."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from ffsite.commands.protocol import protocol_group

REPO = Path(__file__).resolve().parents[1]
DOCS = ("CONTRIBUTING.md", "docs/protocols.md")


def commands() -> list[tuple[str, list[str]]]:
    found = []
    for doc in DOCS:
        text = (REPO / doc).read_text("utf-8").replace("\\\n", " ")
        for line in re.findall(r"^ffsite protocol .*$", text, re.MULTILINE):
            found.append((doc, shlex.split(line.split("#")[0])))
    return found


def test_the_docs_show_every_protocol_run():
    runs = {words[3] for _, words in commands() if words[2] == "run"}
    assert runs == {"aa-personality", "alpaca-eval", "behavioral-profiling", "llm-dreams"}


@pytest.mark.parametrize(("doc", "words"), commands(), ids=lambda v: str(v)[:60])
def test_every_flag_in_the_docs_is_an_option(doc, words):
    command = protocol_group.commands[words[2]]
    flags = {flag for param in command.params for flag in getattr(param, "opts", [])}
    used = [w for w in words if w.startswith("--")]
    assert set(used) <= flags, (doc, set(used) - flags)
