"""EigenBench on llm-dreams (issue 24): its eight judges that are rated models judge each
other through their scores.  The derivation by hand on a small array, then against the
published files read here independently, then the default site's pages and `ffsite
eigenbench fit` reproducing them."""

from __future__ import annotations

import json
import re
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from annotate_helpers import run_subprocess
from site_fixture import REPO

from ffsite._names import safe_name
from ffsite.datasets import PANELS
from ffsite.datasets.llm_dreams import DATASET
from ffsite.datasets.llm_dreams.peers import judgments_from_values, peer_judgments
from ffsite.format import read_scores
from ffsite.metrics import eigenbench as eb
from ffsite.metrics.judges import pool_panels
from ffsite.models import load_registry

FIRST, SECOND, TIE = eb.FIRST, eb.SECOND, eb.TIE
# The judges' folders in ../shared/data/llm_dreams (its README names them).
FOLDERS = {"gpt-5.6-sol": "gpt56sol", "gpt-5.6-terra": "gpt56terra", "gpt-5.5": "gpt55",
           "grok-4.3": "grok43", "grok-4.5": "grok45", "grok-4.6": "grok46",
           "qwen/qwen3.6-plus": "qwen36-plus", "mistral-small-2603": "mistral2603"}


def test_judgments_from_scores_by_hand():
    # values[model, answer set, judge, repetition]; model m is judge m.
    nan = np.nan
    values = np.empty((3, 1, 3, 2))
    values[:, 0, 0] = [[5, 6], [3, 3], [5, 4]]  # judge 0 (model A) on A, B, C
    values[:, 0, 1] = [[2, 8], [7, 7], [7, nan]]  # judge 1 (model B)
    values[:, 0, 2] = 4.0  # judge 2 (model C): every score equal
    judgments = judgments_from_values(values, ("A", "B", "C"))
    got = Counter(zip(judgments.judge.tolist(), judgments.first.tolist(),
                      judgments.second.tolist(), judgments.outcome.tolist(), strict=True))
    assert got == Counter({
        # judge 0: A over B twice (a self-judgment); A ties C, then beats it (a tie with a
        # pick stays); C over B twice
        (0, 0, 1, FIRST): 2, (0, 0, 2, TIE): 1, (0, 0, 2, FIRST): 1, (0, 1, 2, SECOND): 2,
        # judge 1: B over A, then A over B: the repetitions disagree, both ties; C over A
        # once (no second score of C); B ties C once
        (0 + 1, 0, 1, TIE): 2, (1, 0, 2, SECOND): 1, (1, 1, 2, TIE): 1,
        # judge 2: all ties
        (2, 0, 1, TIE): 2, (2, 0, 2, TIE): 2, (2, 1, 2, TIE): 2})
    assert judgments.notes == {"votes": 16, "outside_population": 0, "turned_into_ties": 2}
    assert judgments.n_comparisons == 3  # one answer set, three pairs
    own = (judgments.judge == judgments.first) | (judgments.judge == judgments.second)
    assert np.bincount(judgments.judge[own]).tolist() == [4, 3, 4]


@pytest.fixture(scope="module")
def member_scores():
    scores = read_scores([REPO / "annotations"])
    return pool_panels(scores, PANELS)[1]


def test_the_population_is_the_eight_judges_that_are_rated_models(member_scores):
    derived = peer_judgments(member_scores, load_registry(REPO / "content"))
    assert len(derived) == 15  # one per trait
    registry = load_registry(REPO / "content")
    expected = sorted(registry.model_id(DATASET.id, model) for _, model in DATASET.judge_models)
    for item in derived:
        judgments = item.judgments
        assert list(judgments.models) == expected and len(expected) == 8
        # 28 pairs x 2 answer sets x 2 repetitions per judge, 7 x 2 x 2 of them its own
        assert len(judgments) == 8 * 112 and judgments.n_comparisons == 2 * 28
        assert np.bincount(judgments.judge).tolist() == [112] * 8
        own = (judgments.judge == judgments.first) | (judgments.judge == judgments.second)
        assert np.bincount(judgments.judge[own]).tolist() == [28] * 8
        assert item.name.startswith("llm-dreams-") and item.criterion.startswith(
            item.label.removeprefix("llm-dreams: "))


def test_the_judgments_follow_the_published_scores(member_scores, shared_data):
    """Every judgment of one trait, rebuilt from the published evaluation files (read
    here, not through ffsite), with the both-orders rule applied by hand."""
    trait = "Need for Control"
    folder = shared_data / "llm_dreams"
    models = sorted(model for _, model in DATASET.judge_models)
    judge_of = {model: judge for judge, model in DATASET.judge_models}
    expected: Counter = Counter()
    for judge_model in models:
        judge_folder = folder / f"evaluations-{FOLDERS[judge_of[judge_model]]}"
        for answer_set in (0, 1):
            for low, high in [(a, b) for i, a in enumerate(models) for b in models[i + 1:]]:
                picks = []
                for repetition in (0, 1):
                    a, b = (json.loads((judge_folder / f"{m}__{answer_set}__{repetition}.txt")
                                       .read_text("utf-8"))[trait] for m in (low, high))
                    picks.append(FIRST if a > b else SECOND if a < b else TIE)
                if FIRST in picks and SECOND in picks:
                    picks = [TIE, TIE]
                for pick in picks:
                    expected[(judge_model, low, high, pick)] += 1
    derived = next(d for d in peer_judgments(member_scores)
                   if d.criterion.startswith(trait))
    j = derived.judgments
    names = np.array(j.models, dtype=object)
    got = Counter(zip(names[j.judge], names[j.first], names[j.second], j.outcome.tolist(),
                      strict=True))
    assert got == expected and sum(expected.values()) == 896


# ------------------------------------------------------------------ the default site

TRAIT_PAGE = re.compile(r"llm-dreams-[a-z-]+\.html")


@pytest.mark.slow
def test_the_default_site_has_an_eigenbench_page_per_trait(default_site):
    registry = load_registry(REPO / "content")
    pages = sorted(p.name for p in (default_site / "eigenbench").glob("*.html"))
    assert len([p for p in pages if TRAIT_PAGE.fullmatch(p)]) == 15
    summary = pd.read_csv(default_site / "data" / "eigenbench.csv").set_index("constitution")
    for page in pages:
        slug = page.removesuffix(".html")
        ratings = pd.read_csv(default_site / "data" / "eigenbench" / slug / "ratings.csv")
        assert len(ratings) == 8
        widths = ratings["ci_high"] - ratings["ci_low"]
        assert np.isfinite(ratings[["elo", "ci_low", "ci_high"]].to_numpy()).all()
        assert (widths > 0).all()
        assert (ratings["ci_low"] <= ratings["elo"]).all()
        assert (ratings["elo"] <= ratings["ci_high"]).all()
        html = (default_site / "eigenbench" / page).read_text("utf-8")
        assert "derived from absolute scores, not asked as pairwise questions" in html
        # Each model named as every other page names it: the registry's name, the id in
        # the title (GPT-5.5's registry name, say, is "GPT-5.5 (2026-04-23)").
        for model in ratings["model"]:
            assert (f'<th scope="row" title="{model}"><a href="../models/{safe_name(model)}'
                    f'.html">{registry.display_name(model)}</a></th>') in html, (page, model)
        assert registry.display_name("gpt-5.5") == "GPT-5.5 (2026-04-23)"
        assert (f"median {widths.median():.0f} Elo, widest {widths.max():.0f}" in html)
        weak = bool(summary.loc[slug, "weakly_identified"])
        assert ("Weakly identified" in html) == weak
        if (widths > eb.WIDE_INTERVAL).any():
            assert weak and f"wider than {eb.WIDE_INTERVAL:.0f} Elo" in html
        # The panel's mean and rank beside each rating, and how the orders differ.
        assert {"panel_mean", "panel_rank"} <= set(ratings.columns)
        assert "correlation between the two orders of these 8 models" in html
    overview = (default_site / "eigenbench.html").read_text("utf-8")
    assert overview.count("derived from llm-dreams") == 15


@pytest.mark.slow
def test_the_eight_model_pages_show_eigenbench_beside_the_panel(default_site):
    registry = load_registry(REPO / "content")
    for _, model in DATASET.judge_models:
        slug = safe_name(registry.model_id(DATASET.id, model))
        html = (default_site / "models" / f"{slug}.html").read_text("utf-8")
        assert 'id="eigenbench-llm_dreams"' in html
        assert "its place by EigenBench and by the mean score agree on" in html
        table = pd.read_csv(default_site / "data" / "models" / slug /
                            "eigenbench-llm_dreams.csv")
        assert len(table) == 15 and table["panel_mean"].notna().all()


@pytest.mark.slow
def test_eigenbench_fit_reproduces_the_site_from_the_committed_annotations(default_site):
    for name in ("llm-dreams-creativity", "llm-dreams-need-for-control"):
        process = run_subprocess(["eigenbench", "fit", str(REPO / "annotations"),
                                  "--content", str(REPO / "content"), "--constitution",
                                  name, "--format", "json"], {})
        stdout, stderr = process.communicate(timeout=300)
        assert process.returncode == 0, stderr
        fitted = pd.DataFrame(json.loads(stdout)["ratings"])
        site = pd.read_csv(default_site / "data" / "eigenbench" / name / "ratings.csv")
        for column in ("elo", "ci_low", "ci_high", "trust"):
            np.testing.assert_allclose(fitted[column], site[column], rtol=1e-12)
        assert list(fitted["model"]) == list(site["model"])
        assert json.loads(stdout)["derivation"].startswith("These judgments were not asked")


@pytest.mark.slow  # > 3 s: a kill and resume, a real build or fit (CI runs it)
def test_fit_names_the_derived_sets_when_the_constitution_is_unknown():
    process = run_subprocess(["eigenbench", "fit", str(REPO / "annotations"), "--content",
                              str(REPO / "content"), "--constitution", "no-such-thing"], {})
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 1 and "unknown criterion 'no-such-thing'" in stderr
    assert "derived from scores: llm-dreams-achievement-motivation" in stderr
    assert stderr.count("\n") == 1


def test_the_derivation_is_deterministic(member_scores):
    first = peer_judgments(member_scores)
    again = peer_judgments(member_scores)
    for a, b in zip(first, again, strict=True):
        assert a.name == b.name
        for field in ("judge", "first", "second", "outcome", "comparison"):
            assert np.array_equal(getattr(a.judgments, field), getattr(b.judgments, field))
