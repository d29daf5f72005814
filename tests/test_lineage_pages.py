"""What the lineage pages, the model pages' versions and the home page's largest shifts
tell a reader, on the default site: which condition a mean is of, why a release shows
no change, and intervals whose printed bounds agree with the ▲/▼ beside them."""

from __future__ import annotations

import json
import math
import re
from html import unescape
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pyarrow.parquet as pq
import pytest
from site_fixture import REPO

from ffsite.metrics.lineage import INDEPENDENT
from ffsite.site.pages.lineage import change_cell, change_text


def text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def cells(html: str, table_id: str) -> list[list[str]]:
    """Each row's visible cell texts ('value | interval' where an interval shows)."""
    table = re.search(rf'<table class="data sortable" id="{re.escape(table_id)}">(.*?)'
                      "</table>", html, re.S).group(1)
    return [[unescape(re.sub(r"<[^>]+>", "", re.sub(
        r'<span class="ci">(.*?)</span>', r" | \1", c))).strip()
        for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", tr, re.S)]
        for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)]


def versions_note(site: Path, page: str) -> str:
    html = (site / "models" / f"{page}.html").read_text("utf-8")
    section = html[html.index('id="versions"'):]
    section = section[:section.index("</section>")]
    assert "<table" not in section, page  # a release without changes
    return text(re.findall(r'<p class="note">(.*?)</p>', section, re.S)[-1])


# --- 1. "at baseline" only where the dataset has conditions ---------------------------

def conditions(dataset: str) -> set[str]:
    """The conditions in the dataset's scores file, read straight from the parquet."""
    path = REPO / "annotations" / dataset / "scores.parquet"
    if "condition" not in pq.read_schema(path).names:
        return set()
    return {c for c in pq.read_table(path, columns=["condition"]).column(
        "condition").to_pylist() if c}


LANE_DATASETS = {"Behavioral Profiling": "behavioral_profiling",
                 "llm-dreams": "llm_dreams", "poem-eval": "poem_eval"}


def test_only_a_dataset_with_conditions_says_its_means_are_at_baseline(default_site):
    # By hand (and read from the files below): Behavioral Profiling's responses have a
    # baseline and five pressure conditions; llm-dreams' and poem-eval's have none.
    assert "baseline" in conditions("behavioral_profiling")
    assert conditions("llm_dreams") == conditions("poem_eval") == set()
    seen = set()
    for page in sorted((default_site / "lineage").glob("*.html")):
        html = page.read_text("utf-8")
        for heading, lead in re.findall(r'<h2 id="[^"]*-heading">(.*?), judged by .*?</h2>'
                                        r"\s*<p>(.*?)</p>", html, re.S):
            heading = unescape(heading)
            if heading not in LANE_DATASETS:  # Elo ratings (EQ-Bench 3)
                assert "Elo rating" in lead, (page.name, heading)
                continue
            seen.add(heading)
            assert ("at baseline" in lead) == bool(conditions(LANE_DATASETS[heading])), (
                page.name, heading, lead)
    assert seen == set(LANE_DATASETS)
    # The pages the audit named: llm-dreams on ChatGPT-4o (latest)'s, poem-eval on
    # Claude Sonnet's.
    sonnet = text((default_site / "lineage" / "claude-sonnet.html").read_text("utf-8"))
    assert re.search(r"poem-eval, judged by openai/gpt-5\.2 \d+ releases; each number is "
                     r"the mean score, with its 95% interval\.", sonnet)
    assert re.search(r"Behavioral Profiling, judged by [^;]*? \d+ releases; each number "
                     r"is the mean score at baseline \(", sonnet)
    chatgpt = text((default_site / "lineage" / "chatgpt-4o-latest.html").read_text("utf-8"))
    assert "3 releases; each number is the mean score, with its 95% interval." in chatgpt
    assert "baseline" not in chatgpt


# --- 2. why a release's page shows no change -----------------------------------------

def test_a_release_without_changes_says_why(default_site):
    # content/models.toml, by hand: both EQ-Bench 3 runs of chatgpt-4o-latest are in the
    # family "ChatGPT-4o (latest)" with no release date and no predecessor, so neither
    # has a place in the release order (EQ-Bench 3 scored both).
    # (Their names differ in their first 17 letters: a phone's chart cuts labels there.)
    for page, other in (("chatgpt-4o-latest", "OpenRouter id 'openai/chatgpt-4o-latest'"),
                        ("chatgpt-4o-latest-openrouter", "OpenAI id 'chatgpt-4o-latest'")):
        note = versions_note(default_site, page)
        assert note.startswith("This release has no release date, nor a dated "
                               "predecessor in its family, so it has no place in the "
                               "family's release order"), note
        assert (f"Of its family, EQ-Bench 3 also scored ChatGPT-4o ({other}); that "
                "release has no place in the order either.") in note
        assert "No dataset scored" not in note
        html = (default_site / "models" / f"{page}.html").read_text("utf-8")
        assert html.count('<span class="date">undated, not placed</span>') == 2
    # DeepSeek-V4 Flash is dated (2026-04-24); its other release in llm-dreams,
    # DeepSeek-V4 Flash (0731), has neither a date nor a predecessor.
    assert versions_note(default_site, "deepseek-v4-flash") == (
        "Of its family, llm-dreams also scored DeepSeek-V4 Flash (0731); but that release "
        "has no release date, nor a dated predecessor, so no place in the family's "
        "release order, and no change is shown.")
    # Amazon Nova Lite: nova-lite is only in Behavioral Profiling, nova-2-lite only in
    # llm-dreams; Claude 2 is only in AlpacaEval's text statistics, which the lineage
    # does not compare.
    assert versions_note(default_site, "nova-lite") == (
        "Of its family, Behavioral Profiling scored only this release, so there is no "
        "change to show.")
    assert versions_note(default_site, "claude-2").startswith(
        "None of the datasets whose numbers are compared across releases (Behavioral "
        "Profiling, EQ-Bench 3, llm-dreams, poem-eval) scored this release")


# --- 3. printed bounds agree with the mark --------------------------------------------

@pytest.mark.parametrize(("value", "digits", "shown"), [
    (-1.2388888888888872, 2, "-1.24"), (-0.0021408117882657507, 2, "-0.002"),
    (0.00040000000000017246, 2, "+0.0004"), (0.0015943129918989107, 2, "+0.002"),
    (-0.0027777777777764356, 2, "-0.003"), (0.0, 2, "+0.00"), (-0.0, 2, "+0.00"),
    (0.3, 0, "+0.3"), (-0.04, 0, "-0.04"), (12.6, 0, "+13"), (float("nan"), 2, "–")])
def test_a_number_that_rounds_to_zero_keeps_its_sign_and_first_digit(value, digits,
                                                                     shown):
    assert change_text(value, digits) == shown


def test_a_real_change_never_shows_a_bound_of_zero():
    # Claude Opus, llm-dreams, Work-related Stress: 7.0222 - 8.2611 = -1.2389, MOVER
    # interval -2.4756 to -0.0021 (a bound that used to print "+0.00").
    row = SimpleNamespace(change=-1.2388888888888872, ci_low=-2.4756369659895077,
                          ci_high=-0.0021408117882657507, real=True, method=INDEPENDENT)
    cell = change_cell("mean", row, "Claude 3 Opus", "Claude 4.1 Opus")
    assert (cell.text, cell.interval) == ("▼ -1.24", "-2.48 to -0.002")
    assert cell.title.startswith("Claude 4.1 Opus minus Claude 3 Opus: -1.24, 95% "
                                 "interval -2.48 to -0.002 (independent); real")
    up = SimpleNamespace(change=7.0, ci_low=0.4, ci_high=13.5, real=True,
                         method=INDEPENDENT)
    assert change_cell("Elo", up, "a", "b").interval == "+0.4 to +14"


MARKED = re.compile(r'<td[^>]*>([▲▼]) ([+-][0-9.]+)<span class="ci">([^<]*)</span>')


def test_every_marked_change_on_the_site_prints_an_interval_that_excludes_zero(
        default_site):
    """Every ▲/▼ on the lineage pages, the model pages and the home page: both printed
    bounds are on the side of 0 the mark says (read as numbers from the page)."""
    found = []
    pages = [default_site / "index.html", *(default_site / "lineage").glob("*.html"),
             *(default_site / "models").glob("*.html")]
    for page in pages:
        for mark, value, interval in MARKED.findall(page.read_text("utf-8")):
            low, high = (float(b) for b in interval.split(" to "))
            sign = 1 if mark == "▲" else -1
            assert sign * float(value) > 0 and sign * low > 0 and sign * high > 0, (
                page.name, mark, value, interval)
            found.append(page.relative_to(default_site).as_posix())
    assert "lineage/claude-opus.html" in found and "index.html" in found
    # The bound the audit found, worked out by hand from the two releases' own means
    # and intervals (MOVER: U = d + sqrt((u2 - v2)^2 + (v1 - l1)^2)).
    releases = json.loads((default_site / "data" / "lineage-releases.json").read_text(
        "utf-8"))
    own = {r["model"]: r for r in releases if r["trait_id"] == "ld-work-related-stress"
           and r["dataset"] == "llm_dreams"}
    one, two = own["claude-3-opus-20240229"], own["claude-4.1-opus"]
    high = two["value"] - one["value"] + math.sqrt(
        (two["ci_high"] - two["value"]) ** 2 + (one["value"] - one["ci_low"]) ** 2)
    assert -0.005 < high < -0.0015  # "-0.002", not "+0.00"
    html = (default_site / "lineage" / "claude-opus.html").read_text("utf-8")
    stress = next(row for row in cells(html, "changes-llm-dreams")
                  if row[0] == "Work-related Stress")
    assert stress[1] == "▼ -1.24 | -2.48 to -0.002"


def test_elo_changes_are_paired_by_the_fits_refits(default_site):
    """EQ-Bench 3's ratings of two releases come from one fit: their changes are paired
    by its refits, and each such interval is no wider than the one the two ratings' own
    intervals give as if independent (MOVER, written out here)."""
    changes = pd.read_csv(default_site / "data" / "lineage-changes.csv")
    eq = changes[changes["dataset"] == "eqbench3"]
    assert len(eq) and (eq["method"] == "paired bootstrap").all()
    releases = pd.read_csv(default_site / "data" / "lineage-releases.csv")
    own = releases[releases["dataset"] == "eqbench3"].set_index(["trait_id", "model"])
    for row in eq.itertuples():
        v1, l1, u1 = own.loc[(row.trait_id, row.earlier), ["value", "ci_low", "ci_high"]]
        v2, l2, u2 = own.loc[(row.trait_id, row.later), ["value", "ci_low", "ci_high"]]
        width = (((v2 - l2) ** 2 + (u1 - v1) ** 2) ** 0.5
                 + ((u2 - v2) ** 2 + (v1 - l1) ** 2) ** 0.5)
        assert row.ci_high - row.ci_low <= width + 1e-9, row
        assert row.real == (row.ci_low > 0 or row.ci_high < 0)


def test_means_below_the_rubric_floor_are_marked_on_lineage_pages(default_site):
    """Llama 3 70B Instruct's baseline tribalism has scores below the rubric's floor (the
    published means count them, personality.json): its lineage page marks the cell, as
    every other page does, and says what the mark means."""
    means = pd.DataFrame(json.loads((default_site / "data" / "personality.json").read_text()))
    row = means[(means["model"] == "Meta-Llama-3-70B-Instruct")
                & (means["trait_id"] == "bp-tribalism")].iloc[0]
    assert row["below_rubric_floor"] > 0
    page = (default_site / "lineage" / "llama-70b.html").read_text()
    table = page[page.index('id="values-behavioral-profiling"'):]
    table = table[:table.index("</table>")]
    tribalism = table[table.index(">Tribalism<"):]
    tribalism = tribalism[:tribalism.index("</tr>")]
    assert f'title="{row["below_rubric_floor"]} of the {row["n"]} scores behind this mean' \
        in tribalism
    assert "“has 0s”: on some answers behind that mean a judge of the panel answered 0" in (
        page[page.index('id="values-behavioral-profiling"'):])


def test_changes_resting_on_scores_under_the_floor_are_marked(default_site):
    """A change compares two releases' baseline means: its download counts their scores
    under the rubric's floor (the personality download's below_rubric_floor, summed) and
    the family page marks it "has 0s" (Llama 3 70B -> 3.1 70B on tribalism: a "real"
    rise that the earlier release's 18 sub-floor scores may make)."""
    changes = pd.read_csv(default_site / "data" / "lineage-changes.csv")
    means = pd.read_csv(default_site / "data" / "personality.csv").set_index(
        ["model", "trait_id"])["below_rubric_floor"]
    bp = changes[changes["dataset"] == "behavioral_profiling"]
    assert len(bp)
    expected = [int(means.get((r.earlier, r.trait_id), 0) + means.get((r.later, r.trait_id), 0))
                for r in bp.itertuples(index=False)]
    assert bp["below_rubric_floor"].tolist() == expected
    assert (changes.loc[changes["dataset"] != "behavioral_profiling",
                        "below_rubric_floor"] == 0).all()
    llama = bp[(bp["family"] == "Llama 70B") & (bp["trait_id"] == "bp-tribalism")
               & (bp["earlier"] == "Meta-Llama-3-70B-Instruct")]
    assert len(llama) == 1 and bool(llama["real"].iloc[0])
    assert llama["below_rubric_floor"].iloc[0] >= 18
    page = (default_site / "lineage" / "llama-70b.html").read_text("utf-8")
    table = re.search(r'id="changes-behavioral-profiling">(.*?)</table>', page, re.S).group(1)
    row = next(tr for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)
               if ">Tribalism<" in tr)
    assert "has 0s" in row and "behind this change" in row
