"""Annotations whose every field that reaches a page is an attack: script tags, event
handlers, `javascript:` URLs, unbalanced HTML and very long strings.  A script that runs
would open a dialog (alert) or set `window.__pwned`; the browser tests check neither
happens.  Used by test_site_hostile.py (the HTML) and test_browser_hostile.py."""

from __future__ import annotations

from pathlib import Path

from helpers import write_test_votes
from site_fixture import REPO, write_content

from ffsite.datasets.texts import write_texts
from ffsite.traits import PREFIX, trait_id

LONG = "W" * 50_000
SCRIPT_MODEL = '<script>alert("model")</script>'
LONG_MODEL = "m" + "<b>long</b>" * 300
FORMULA_MODEL = '=HYPERLINK("https://evil.example","open me")'  # a spreadsheet would run it
MODELS = [SCRIPT_MODEL, '" onmouseover="alert(1)', "javascript:alert(1)", LONG_MODEL,
          "<svg/onload=window.__pwned='model'>", FORMULA_MODEL]
DATASET = "<img src=x onerror=alert('dataset')>"
WORDING = PREFIX + 'is <b onclick="alert(1)">evil</b> & "quoted" <script>window.__pwned=1</script>'
LABEL = WORDING.removeprefix(PREFIX)  # what pages call the trait
TRAIT_SET = "x<y"
TRAITS = [
    {"role": "trait", "trait_id": trait_id(WORDING), "trait": WORDING, "trait_set": TRAIT_SET},
    {"role": "trait", "trait_id": "<svg onload=alert(1)>", "trait": PREFIX + "plain",
     "trait_set": "javascript:alert(1)"},
]
JUDGE = "<script>alert('judge')</script>"
META_NAME = "<i onmouseover=alert(1)>"
META_VALUES = ["</table><script>x</script>", "javascript:alert(2)",
               "<img src=x onerror=window.__pwned=1>"]
PROMPT_START = "<script>alert('prompt')</script> <svg onload=\"window.__pwned='prompt'\">"
# Every response carries every attack, so whichever pair a page shows has them all.
RESPONSE_ATTACKS = [
    '<img src="https://evil.example/x.png" onerror="alert(1)"> <script>alert(1)</script>',
    "[click](javascript:alert(1)) and ![pic](https://evil.example/y.png)",
    '<a href="https://evil.example" onclick="alert(1)">x</a> <style>body{display:none}</style>',
    "<iframe src='https://evil.example'></iframe>",
    "[relative](../../index.html) <svg onload=alert(1)>",
    "<script>window.__pwned='response'</script> [run](javascript:window.__pwned=1)",
    "<div><table><tr><td>unbalanced <b>bold <i>and",
]
RESPONSE = "\n\n".join([*RESPONSE_ATTACKS, LONG])


def write_hostile(root: Path) -> None:
    """One annotation file per model (with an annotate-run summary), and the texts."""
    responses = {}
    for i, model in enumerate(MODELS):
        comparisons, votes = [], []
        for j in range(3):
            cid = f"c{i}-{j}"
            a, b = (model, "R") if j % 2 else ("R", model)
            comparisons.append({"dataset": DATASET, "comparison_id": cid,
                                "prompt_id": f"p{i}", "model_a": a, "model_b": b,
                                "response_a_id": f"ra{cid}", "response_b_id": f"rb{cid}",
                                f"meta.{META_NAME}": META_VALUES[j]})
            responses[f"ra{cid}"] = responses[f"rb{cid}"] = RESPONSE
            for k, columns in enumerate(TRAITS):
                votes.append({"comparison_id": cid, **columns, "judge": JUDGE,
                              "vote": "AB"[(i + j + k) % 2]})
            votes.append({"comparison_id": cid, "role": "preference", "judge": JUDGE,
                          "vote": "AB"[j % 2]})
        write_test_votes(root / "annotations" / f"hostile-{i}.parquet", comparisons, votes,
                         annotators={JUDGE: "<script>alert('description')</script>"},
                         extra={"model": model, "cost": "<img src=x onerror=alert(1)>",
                                "calls": 3})
    prompts = {f"p{i}": PROMPT_START + "\n" + LONG for i in range(len(MODELS))}
    write_texts(root / "base", DATASET, prompts, responses)


def build_hostile(root: Path) -> Path:
    """Write the hostile annotations and texts under `root`; build root/site."""
    from ffsite.site.build import build_site

    write_hostile(root)
    build_site(root / "annotations", root / "site", base_data=root / "base",
               content=write_content(root / "content", min_valid_votes=1),
               templates=REPO / "templates")
    return root / "site"
