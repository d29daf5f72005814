"""EigenBench constitutions: a name and a list of criteria, read from a file.

A constitution file holds one criterion per line in the writer's own words (`#` lines
are comments), or, as EigenBench publishes its constitutions (its repository's
`data/constitutions/*.json`), a JSON list of criterion strings; its name is the file's
stem.  Criteria are taken as written (EigenBench's begin "Criterion 1 for Kindness:
..."), so the same file gives the same trait ids wherever it is read.  Two ship with
ffsite, in
ffsite/data/constitutions/: `ff-personality` (a good conversational personality, built
on the Feedback Forensics traits) and `hhh` (helpful, honest, harmless).  In the votes
each criterion is a trait (id: the hash of its wording) and the constitution its trait
set, so `ffsite eigenbench fit` finds it by the constitution's name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ffsite._read import loads_json
from ffsite.errors import FfsiteError, ParameterError
from ffsite.format import text_problem
from ffsite.traits import Trait, trait_id

SHIPPED = ("ff-personality", "hhh")
# One judge answer covers every criterion; EigenBench's longest published constitutions
# (claude, openai) have 39.
MAX_CRITERIA = 40
MAX_CRITERION_CHARS = 500
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True)
class Constitution:
    name: str
    criteria: tuple[Trait, ...]

    @property
    def wordings(self) -> list[str]:
        return [criterion.wording for criterion in self.criteria]


def load_constitution(constitution: str) -> Constitution:
    """A shipped constitution by name, or a file of criteria."""
    if constitution in SHIPPED:
        text = resources.files("ffsite").joinpath(
            f"data/constitutions/{constitution}.txt").read_text(encoding="utf-8")
        return parse_constitution(constitution, text, constitution)
    path = Path(constitution)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or "not UTF-8 text"
        raise ParameterError(f"{{constitution}} {constitution}: not {' or '.join(SHIPPED)} nor a "
                             f"readable file ({reason})", "constitution") from None
    if not _NAME.match(path.stem):
        raise FfsiteError(f"{path}: the file's name is the constitution's name; use letters, "
                          "digits, '.', '_' and '-' (up to 64)")
    if path.suffix == ".json":
        return parse_json_constitution(path.stem, text, str(path))
    return parse_constitution(path.stem, text, str(path))


def parse_json_constitution(name: str, text: str, source: str) -> Constitution:
    """EigenBench's own format: a JSON list of criterion strings."""
    items = loads_json(text, source=source)
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise FfsiteError(f"{source}: expected a JSON list of criteria (strings), as "
                          "EigenBench publishes its constitutions")
    return _constitution(name, source, [(f"criterion {number}", item.strip()) for number, item
                                        in enumerate(items, start=1)])


def parse_constitution(name: str, text: str, source: str) -> Constitution:
    """ffsite's own format: one criterion per line, `#` lines are comments."""
    return _constitution(name, source, [
        (f"line {number}", line.strip()) for number, line in enumerate(text.splitlines(),
                                                                        start=1)
        if line.strip() and not line.strip().startswith("#")])


def _constitution(name: str, source: str, wordings: list[tuple[str, str]]) -> Constitution:
    criteria: list[Trait] = []
    seen: dict[str, str] = {}
    for where, wording in wordings:
        if not wording:
            raise FfsiteError(f"{source}: {where} is empty")
        if len(wording) > MAX_CRITERION_CHARS:
            raise FfsiteError(f"{source}: {where}: a criterion of {len(wording)} "
                              f"characters; keep each under {MAX_CRITERION_CHARS}")
        problem = text_problem(wording)
        if problem:
            raise FfsiteError(f"{source}: {where}: {problem}")
        if wording in seen:
            raise FfsiteError(f"{source}: {where} repeats {seen[wording]}")
        seen[wording] = where
        criteria.append(Trait(trait_id(wording), wording, name))
    if not criteria:
        raise FfsiteError(f"{source}: no criteria; write one per line")
    if len(criteria) > MAX_CRITERIA:
        raise FfsiteError(f"{source}: {len(criteria)} criteria; a constitution has at most "
                          f"{MAX_CRITERIA} (split it into several)")
    return Constitution(name, tuple(criteria))
