"""A tiny annotation set for the site tests, small enough to compute every number by hand.

Dataset "d": models m1 and m2 against the reference R, two traits (verbose V, concise C),
two preference judges (pj, the default, and pj2), a metadata column `topic`.

    comparison  A   B   V        C        pj   pj2  topic
    c1          m1  R   A        B        A    B    x
    c2          R   m1  B        neither  B    B    x
    c3          m1  R   B        A        tie  -    x
    c4          m2  R   B        A        B    A    x
    c5          R   m2  A        B        A    A    y
    c6          m1  m2  A        B        A    B    y
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from helpers import trait, write_test_votes

from ffsite.datasets.texts import write_texts
from ffsite.format.write import write_response_metrics

REPO = Path(__file__).resolve().parents[1]
VERBOSE = trait("is more verbose")
CONCISE = trait("is more concise")

ROWS = [  # comparison, model_a, model_b, V, C, pj, pj2, topic
    ("c1", "m1", "R", "A", "B", "A", "B", "x"),
    ("c2", "R", "m1", "B", "neither", "B", "B", "x"),
    ("c3", "m1", "R", "B", "A", "tie", None, "x"),
    ("c4", "m2", "R", "B", "A", "B", "A", "x"),
    ("c5", "R", "m2", "A", "B", "A", "A", "y"),
    ("c6", "m1", "m2", "A", "B", "A", "B", "y"),
]


def write_tiny(folder: Path) -> Path:
    """The annotation file above in `folder`/tiny.parquet."""
    comparisons, votes = [], []
    for cid, model_a, model_b, v, c, pj, pj2, topic in ROWS:
        comparisons.append({"comparison_id": cid, "prompt_id": f"p-{cid}",
                            "model_a": model_a, "model_b": model_b,
                            "response_a_id": f"{model_a}/{cid}",
                            "response_b_id": f"{model_b}/{cid}", "meta.topic": topic})
        votes.append({"comparison_id": cid, **VERBOSE, "judge": "j", "vote": v})
        votes.append({"comparison_id": cid, **CONCISE, "judge": "j", "vote": c})
        votes.append({"comparison_id": cid, "role": "preference", "judge": "pj", "vote": pj})
        if pj2:
            votes.append({"comparison_id": cid, "role": "preference", "judge": "pj2",
                          "vote": pj2})
    folder.mkdir(parents=True, exist_ok=True)
    write_tiny_metrics(folder / "metrics.parquet")
    return write_test_votes(folder / "tiny.parquet", comparisons, votes,
                            default_preference={"d": "pj"},
                            annotators={"pj": "the first annotator"})


def write_tiny_metrics(path: Path) -> Path:
    """Two communication traits per response: m1 averages 20 words and ends with a
    question in 1 of 4 responses; m2 averages 5 words; R 8."""
    rows = [("m1", "c1", 10, 1), ("m1", "c2", 20, 0), ("m1", "c3", 30, 0), ("m1", "c6", 20, 0),
            ("m2", "c4", 4, 0), ("m2", "c5", 6, 0), ("m2", "c6", 5, 0),
            ("R", "c1", 8, 0), ("R", "c2", 8, 1)]
    frame = pd.DataFrame([{"dataset": "d", "response_id": f"{m}/{c}", "prompt_id": f"p-{c}",
                           "model": m, "words": float(w), "ends_with_question": float(q)}
                          for m, c, w, q in rows])
    write_response_metrics(frame, path)
    return path


def write_tiny_texts(base: Path) -> Path:
    """Prompts and responses for every comparison of the tiny set."""
    prompts, responses = {}, {}
    for cid, model_a, model_b, *_ in ROWS:
        prompts[f"p-{cid}"] = f"Prompt of {cid}?"
        responses[f"{model_a}/{cid}"] = f"**{model_a}** answers {cid} " + "at length " * (
            1 + len(cid))
        responses[f"{model_b}/{cid}"] = f"{model_b} answers {cid}."
    return write_texts(base, "d", prompts, responses)


def write_content(folder: Path, **settings) -> Path:
    """A content folder: the repository's Markdown pages and a site.toml with `settings`."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("intro.md", "methodology.md", "about.md"):
        (folder / name).write_text((REPO / "content" / name).read_text("utf-8"), "utf-8")
    settings = {"title": "Test site", "reference_model": "R", "min_valid_votes": 3,
                "base_url": "/ffsite/", **settings}
    lines = [f"{key} = {value!r}".replace("'", '"') if isinstance(value, str)
             else f"{key} = {str(value).lower() if isinstance(value, bool) else value}"
             for key, value in settings.items()]
    (folder / "site.toml").write_text("\n".join(lines) + "\n", "utf-8")
    return folder


def build_tiny(root: Path, *, texts: bool = True, **settings) -> Path:
    """Write the tiny set (and its texts) under `root` and build its site to root/site."""
    from ffsite.site.build import build_site

    annotations = root / "annotations"
    write_tiny(annotations)
    base = None
    if texts:
        base = root / "base"
        write_tiny_texts(base)
    content = write_content(root / "content", **settings)
    build_site(annotations, root / "site", content=content, templates=REPO / "templates",
               base_data=base)
    return root / "site"
