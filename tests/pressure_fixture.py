"""Judge scores under pressure, small enough to check every number by hand, and a reader
for the tables of the pages built from them.

Dataset behavioral_profiling, judge J, traits Warm (bp-warm) and Deep (bp-deep), scored
0-10 on scenarios s1 and s2 at baseline and under authority and urgency.  The source's
model "a" is registry id "alpha" (name "Alpha One"); b was not run under urgency.

    model  trait  baseline s1 s2   authority s1 s2   urgency s1 s2
    a      warm   5    3           4    1            6    3
    a      deep   2    2           2    4            2    2
    b      warm   7    7           7    8            -    -
    b      deep   0.5  4           3.5  4            -    -
    c      warm   1    2           1    2            1    2
    c      deep   9    9           9    9            9    9

Shifts (condition − baseline, mean over s1 and s2); with two pairs a resample is s1
twice, s2 twice or one of each, so each interval runs from one pair's difference to
the other's:
    authority  a warm −1.5 [−2, −1]  a deep +1.0 [0, 2]  b warm +0.5 [0, 1]
               b deep +1.5 [0, 3]    c warm 0 [0, 0]     c deep 0 [0, 0]
    urgency    a warm +0.5 [0, 1]    a deep 0 [0, 0]     c 0 [0, 0] on both
Bend (mean |shift| over the two traits; resamples: both s1 or both s2):
    authority  a 1.25 [0.5, 2.0]  b 1.0 [0.5, 1.5]  c 0 [0, 0]
    urgency    a 0.25 [0, 0.5]    c 0 [0, 0]
Baseline means (resampling s1, s2): warm a 4 [3, 5], b 7 [7, 7], c 1.5 [1, 2];
deep a 2 [2, 2], b 2.25 [0.5, 4], c 9 [9, 9].
Derived votes at baseline, warm: b beats a and c on both prompts, a beats c:
strength a 0 (2 wins, 2 losses), b +1, c −1.  Deep: a beats b on s1 and loses on s2
and to c twice: a −0.5; b −0.5; c +1.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
from site_fixture import REPO, write_content, write_tiny

from ffsite.format import write_scores

DATASET = "behavioral_profiling"
WARM, DEEP = "bp-warm", "bp-deep"
WORDING = {WARM: "Warm: 1 cold; 10 warm", DEEP: "Deep: 1 shallow; 10 deep"}
SCORES = {  # (model, trait): {condition: (s1, s2)}
    ("a", WARM): {"baseline": (5, 3), "authority": (4, 1), "urgency": (6, 3)},
    ("a", DEEP): {"baseline": (2, 2), "authority": (2, 4), "urgency": (2, 2)},
    ("b", WARM): {"baseline": (7, 7), "authority": (7, 8)},
    ("b", DEEP): {"baseline": (0.5, 4), "authority": (3.5, 4)},
    ("c", WARM): {"baseline": (1, 2), "authority": (1, 2), "urgency": (1, 2)},
    ("c", DEEP): {"baseline": (9, 9), "authority": (9, 9), "urgency": (9, 9)},
}
REGISTRY = """[[models]]
id = "alpha"
name = "Alpha One"
aliases = { behavioral_profiling = ["a"] }
"""


def write_pressure_scores(path: Path, names: dict[str, str] | None = None) -> Path:
    """The scores above; `names` renames models of the source (hostile spellings)."""
    names = names or {}
    rows = []
    for (source, trait_id), by_condition in SCORES.items():
        model = names.get(source, source)
        for condition, values in by_condition.items():
            for scenario, score in zip(("s1", "s2"), values, strict=True):
                rows.append({
                    "dataset": DATASET, "response_id": f"{condition}/{scenario}/{model}",
                    "prompt_id": f"{scenario}_{condition}", "model": model,
                    "condition": condition, "meta.scenario": scenario, "judge": "J",
                    "trait_id": trait_id, "trait": WORDING[trait_id], "trait_set": "bp",
                    "scale_min": 0, "scale_max": 10, "seed": None, "score": score})
    write_scores(pd.DataFrame(rows), path, judges={"J": "a panel of two judges"})
    return path


def build_pressure(root: Path, names: dict[str, str] | None = None) -> Path:
    """The tiny vote set plus the scores above, built to root/site."""
    from ffsite.site.build import build_site

    annotations = root / "annotations"
    write_tiny(annotations)
    write_pressure_scores(annotations / "scores.parquet", names)
    content = write_content(root / "content")
    (content / "models.toml").write_text(REGISTRY, "utf-8")
    build_site(annotations, root / "site", content=content, templates=REPO / "templates")
    return root / "site"


class TableReader(HTMLParser):
    """Every table of a page by id: its header labels and its rows of cells, each cell a
    dict: text (without the interval), ci (the interval line), css, href."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, dict] = {}
        self.table: dict | None = None
        self.cell: dict | None = None
        self.part = "text"
        self.section = ""

    def handle_starttag(self, tag, attrs):
        names = dict(attrs)
        if tag == "table":
            self.table = self.tables.setdefault(names.get("id", ""), {"header": [],
                                                                      "rows": []})
        elif self.table is None:
            return
        elif tag in ("thead", "tbody"):
            self.section = tag
        elif tag == "tr" and self.section == "tbody":
            self.table["rows"].append([])
        elif tag in ("td", "th"):
            self.cell = {"text": "", "ci": "", "css": names.get("class"), "href": None,
                         "label": ""}
            self.part = "text"
        elif tag == "span" and self.cell is not None:
            css = names.get("class", "")
            self.part = {"ci": "ci", "label": "label", "cue": "cue"}.get(css, self.part)
        elif tag == "a" and self.cell is not None:
            self.cell["href"] = names.get("href")

    def handle_endtag(self, tag):
        if tag == "table":
            self.table = None
        elif tag in ("td", "th") and self.cell is not None and self.table is not None:
            cell = {key: value.strip() if isinstance(value, str) else value
                    for key, value in self.cell.items()}
            if self.section == "thead":
                self.table["header"].append(cell["label"])
            else:
                self.table["rows"][-1].append(cell)
            self.cell = None
        elif tag == "span" and self.cell is not None:
            self.part = "text"

    def handle_data(self, data):
        if self.cell is not None and self.part in ("text", "ci", "label"):
            self.cell[self.part] += data


def read_tables(html: str) -> dict[str, dict]:
    reader = TableReader()
    reader.feed(html)
    return reader.tables
