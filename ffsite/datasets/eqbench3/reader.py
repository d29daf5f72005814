"""EQ-Bench 3 as a base dataset: the judge's pairwise verdicts and the scenario prompts.

Layout (as in ../shared/data and as `ffsite fetch` writes it):
  eqbench3/pairwise_comparisons.json.gz
      {"__metadata__": {"global_pairwise_comparisons": [entry, ...]}}; an entry names the
      scenario, the pair (test_model, neighbor_model), the `order` ("A0493:test /
      A0488:other": the respondent codes of the two sides, the one shown first listed
      first) and the
      judge's response: a chain of thought and, per criterion, the code of the side that
      shows it more with one to five "+" (the margin); or an `error` instead.
  eqbench3/scenario_prompts.txt
      "######## <id> | <category> | <title>" headers, then "####### Prompt<k>" turns.
The transcripts are not public; the scenario prompts and the judge's reasoning are.
The reasoning stays base data (`read_reasoning`): pages join it to the votes by comparison
id and seed at build time; it is never written to annotations.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import NamedTuple

from ffsite._read import read_json
from ffsite.datasets.eqbench3 import DATASET
from ffsite.datasets.eqbench3.rules import comparison_id, pair
from ffsite.errors import FfsiteError

NAME = DATASET.id
COMPARISONS_FILE = "pairwise_comparisons.json.gz"
PROMPTS_FILE = "scenario_prompts.txt"
REASONING_KEY = "chain_of_thought_reasoning"

_SCENARIO = re.compile(r"^######## (\d+)\s*\|\s*([^|]*?)\s*\|\s*(.*?)\s*$")
_TURN = re.compile(r"^####### Prompt(\d+)\s*$")


def read_comparisons(path: str | os.PathLike) -> list[dict]:
    """The judged entries of a pairwise_comparisons.json(.gz) file."""
    document = read_json(path, hint="fetch it again")
    entries = (document.get("__metadata__") or {}).get("global_pairwise_comparisons") if (
        isinstance(document, dict)) else None
    if not isinstance(entries, list):
        raise FfsiteError(f"{path}: no '__metadata__.global_pairwise_comparisons' list; is "
                          "this EQ-Bench 3's pairwise_comparisons file?")
    return entries


def read_scenarios(path: str | os.PathLike) -> dict[str, dict]:
    """{scenario id: {"category", "title", "prompt"}} from scenario_prompts.txt; a
    scenario listed twice keeps its first listing.  The prompt joins the turns."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise FfsiteError(f"{path}: cannot read ({exc})") from None
    scenarios: dict[str, dict] = {}
    current: dict | None = None
    for line in lines:
        header = _SCENARIO.match(line)
        if header:
            current = None if header[1] in scenarios else {
                "category": header[2], "title": header[3], "turns": []}
            if current is not None:
                scenarios[header[1]] = current
        elif current is not None and _TURN.match(line):
            current["turns"].append([])
        elif current is not None and current["turns"]:
            current["turns"][-1].append(line)
    for scenario in scenarios.values():
        turns = ["\n".join(turn).strip() for turn in scenario.pop("turns")]
        scenario["prompt"] = "\n\n".join(f"Turn {k}:\n{text}" if len(turns) > 1 else text
                                         for k, text in enumerate(turns, start=1))
    return scenarios


def load_texts(root: Path) -> tuple[dict[str, str], dict[str, str]]:
    """(scenario prompts by scenario id, no responses: the transcripts are not public)."""
    path = root / PROMPTS_FILE
    if not path.is_file():
        return {}, {}
    return {sid: s["prompt"] for sid, s in read_scenarios(path).items()}, {}


class Reasoning(NamedTuple):
    """The judge's chain of thought for one verdict, and the respondent codes it uses for
    the side shown first and the side shown second (e.g. "A0493", "A0488")."""

    text: str
    first: str
    second: str


def reasoning_in(root: Path) -> dict[tuple[str, int], Reasoning]:
    """`read_reasoning` of the verdicts file in the eqbench3 folder `root` ({} without it)."""
    path = root / COMPARISONS_FILE
    return read_reasoning(path) if path.is_file() else {}


def longer_sides_in(root: Path) -> dict[str, int]:
    """{comparison id: the side whose model writes longer answers in that scenario}, from
    the verdicts file in the eqbench3 folder `root` ({} without it).

    The transcripts are not public, but every verdict carries both models' average
    response length in characters for its scenario: 1 where the test model's (side A)
    is the longer, 2 where the neighbour's is, 0 where they are equal or missing.
    Entries with an `error` carry no verdict and are skipped."""
    path = root / COMPARISONS_FILE
    return read_verdicts(path).longer_sides if path.is_file() else {}


def read_reasoning(path: str | os.PathLike) -> dict[tuple[str, int], Reasoning]:
    """{(comparison id, seed): the judge's reasoning} for every judged entry of a
    pairwise_comparisons file, with the importer's rules: the comparison id of
    `rules.comparison_id`, seed 0 when the test model (side A) was
    shown first and 1 when it was shown second.  Entries with an `error` have none."""
    return read_verdicts(path).reasoning


class Verdicts(NamedTuple):
    """What the site reads from a pairwise_comparisons file: `read_reasoning`'s answer
    and `longer_sides_in`'s.  Shared by whoever asks (read_verdicts): not to be changed."""

    reasoning: dict[tuple[str, int], Reasoning]
    longer_sides: dict[str, int]


# The file read last: its bytes, and its Verdicts.
_last: tuple[bytes, Verdicts] | None = None


def read_verdicts(path: str | os.PathLike) -> Verdicts:
    """The reasoning and the longer sides of a pairwise_comparisons file, in one pass.
    A build asks on two pages (the EQ-Bench 3 page's examples, the Judges page's length
    bias), so the answer for the file read last is kept and given again while the file
    holds the same bytes (compared whole: a few MB, read in a millisecond; the parse
    takes ~0.15 s)."""
    global _last
    try:
        data = Path(path).read_bytes()
    except OSError:  # read_comparisons says what is wrong
        data = None
    if data is not None and _last is not None and _last[0] == data:
        return _last[1]
    found = Verdicts({}, {})
    for number, entry in enumerate(read_comparisons(path)):
        if not isinstance(entry, dict) or "error" in entry:
            continue
        scenario, test, neighbour, iteration, order, test_first = pair(entry, path, number)
        comparison = comparison_id(scenario, test, neighbour, iteration)
        a = entry.get("test_model_avg_response_length")
        b = entry.get("neighbor_model_avg_response_length")
        known = all(isinstance(x, int | float) and not isinstance(x, bool) and x == x
                    for x in (a, b))
        found.longer_sides[comparison] = 0 if not known or a == b else 1 if a > b else 2
        text = (entry.get("judge_response") or {}).get(REASONING_KEY)
        if not isinstance(text, str):
            continue
        # `order` maps each code to its side; the test model's code was shown first in
        # seed 0, the other's in seed 1.
        first, second = sorted(order, key=lambda code: (order[code] == "test") != test_first)
        found.reasoning[(comparison, 0 if test_first else 1)] = Reasoning(text, first, second)
    if data is not None:
        _last = (data, found)
    return found

