"""The Judges page (issue 23): who judged each dataset, and for a panel of judges their
agreement, leniency and self-rating gaps, from a tiny llm-dreams-shaped site checked by
hand, then the default site."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from site_fixture import REPO, write_content, write_tiny

from ffsite.format import write_scores
from ffsite.site.build import build_site

JUDGES = ("gpt-5.5", "grok-4.3", "gemini-3.7-flash")
# gpt-5.5 and grok-4.3 are rated here under their llm-dreams names (the record's mapping).
MODELS = ("gpt-5.5-2026-04-23", "Grok-4.3-20260530", "m3", "m4")
TRAIT = ("ld-creativity", "Creativity: how inventive the dreamer's thinking is, 1 least, "
         "10 most")


def score(model: int, unit: int, judge: int, seed: int) -> float:
    """Model m scores 2 + m; gpt-5.5 scores everyone 1 higher, and itself 2 more; answer
    set 1 adds 0.5; repetition 1 adds 0.1."""
    value = 2.0 + model + (1.0 if judge == 0 else 0.0) + 0.5 * unit + 0.1 * seed
    return value + (2.0 if (judge, model) == (0, 0) else 0.0)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("judges")
    annotations = root / "annotations"
    write_tiny(annotations)
    rows = [{"dataset": "llm_dreams", "response_id": f"{MODELS[m]}/{u}",
             "prompt_id": f"dreams-{u}", "model": MODELS[m], "condition": None,
             "judge": JUDGES[j], "trait_id": TRAIT[0], "trait": TRAIT[1],
             "trait_set": "llm-dreams-15", "scale_min": 1, "scale_max": 10, "seed": s,
             "score": score(m, u, j, s), "meta.answer_set": str(u)}
            for m in range(4) for u in range(2) for j in range(3) for s in range(2)]
    write_scores(pd.DataFrame(rows), annotations / "dreams.parquet")
    content = write_content(root / "content", rating_resamples=50)
    build_site(annotations, root / "site", content=content, templates=REPO / "templates")
    return root / "site"


def stats_pearson(x: list[float], y: list[float]) -> float:
    """Pearson's r from its textbook formula."""
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    return sxy / (sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y)) ** 0.5


def load(site, name):
    return pd.DataFrame(json.loads((site / "data" / f"{name}.json").read_text()))


def test_leniency_is_each_judges_mean_minus_the_panels(site):
    leniency = load(site, "judges/llm-dreams-leniency").set_index("judge")
    # By hand: per model, the panel's mean is (sum over judges) / 3; gpt-5.5 adds 1 to
    # every model and 2 more to model 0, so over the 4 models it adds 1.5 on average:
    # its leniency is 1.5 - 1.5 / 3 = 1.0, and each other judge's is -0.5.
    assert leniency.loc["gpt-5.5", "leniency"] == pytest.approx(1.0)
    assert leniency.loc["grok-4.3", "leniency"] == pytest.approx(-0.5)
    assert leniency.loc["gemini-3.7-flash", "leniency"] == pytest.approx(-0.5)


def test_the_self_rating_gap_of_the_judge_that_favours_itself(site):
    gaps = load(site, "judges/llm-dreams-self-rating-gaps").set_index("judge")
    # gpt-5.5 on itself: 3 above the others' mean on model 0 (its +1 and +2 against the
    # others' 0), 1 on every other model: a gap of 3 - 1 = 2.  grok-4.3 on itself (model
    # 1): -0.5 from the others' mean (gpt-5.5's +1 halved), as on models 2 and 3, but -1.5
    # on model 0, where gpt-5.5 gives itself 2 more: a gap of -0.5 - (-2.5 / 3) = 1/3.
    assert set(gaps.index) == {"gpt-5.5", "grok-4.3"}  # gemini-3.7-flash is not rated
    assert gaps.loc["gpt-5.5", "gap"] == pytest.approx(2.0)
    assert gaps.loc["grok-4.3", "gap"] == pytest.approx(1 / 3)
    html = (site / "judges.html").read_text("utf-8")
    assert "gpt-5.5 on " in html and "Does a judge rate itself higher?" in html


def test_the_page_names_every_datasets_judges_and_the_rated_ones(site):
    html = (site / "judges.html").read_text("utf-8")
    table = html[html.index('id="judges-overview"'):]
    table = table[:table.index("</table>")]
    assert "llm-dreams panel" in table
    # llm-dreams' record: 8 of its 9 judges are rated models, named as their model pages
    # name them (here, with no registry entry, by the model's id: gpt-5.5's is MODELS[0]).
    assert f"8 of 9: openaigpt-5.6-sol, openaigpt-5.6-terra, {MODELS[0]}, {MODELS[1]}, " in table
    assert 'href="judges.html"' in (site / "index.html").read_text("utf-8")  # in the nav
    agreement = load(site, "judges/llm-dreams-agreement")
    # By hand, from each judge's mean per model (2.3 + m, gpt-5.5's 1 higher and 3 on
    # model 0): variances 2/3 (gpt-5.5), 5/3, 5/3 and 10 for the sum, so Cronbach's alpha
    # is 3/2 (1 - 4/10) = 0.9.
    cronbach = agreement[agreement["statistic"] == "cronbach_alpha"]["estimate"]
    assert cronbach.iloc[0] == pytest.approx(0.9)
    assert np.isfinite(agreement["estimate"]).all()
    # The judges' correlation matrix: each pair's Pearson across the 4 models (grok-4.3
    # and gemini-3.7-flash score 2.3 + m: exactly 1; gpt-5.5 is 3 on model 0 where the
    # others' trend puts 1.5 higher) with its bootstrap interval in view and published.
    pairs = load(site, "judges/llm-dreams-judge-pairs").set_index(["judge_a", "judge_b"])
    assert pairs.loc[("grok-4.3", "gemini-3.7-flash"), "pearson"] == pytest.approx(1)
    other = pairs.loc[("gpt-5.5", "grok-4.3")]
    assert other["pearson"] == pytest.approx(stats_pearson([5.3, 4.3, 5.3, 6.3],
                                                           [2.3, 3.3, 4.3, 5.3]))
    assert other["ci_low"] <= other["pearson"] <= other["ci_high"]
    matrix = html[html.index('id="judge-correlations"'):]
    matrix = matrix[:matrix.index("</table>")]
    assert matrix.count('<span class="ci">') == 6  # every pair of the 3 judges, both ways
    assert "95% intervals (bootstrap over models)" in matrix
    assert "data/judges/llm-dreams-correlations.csv" in html


@pytest.mark.slow
def test_the_default_site_measures_llm_dreams_judges(default_site):
    html = (default_site / "judges.html").read_text("utf-8")
    for name in ("AlpacaEval", "HH-RLHF", "Behavioral Profiling", "EQ-Bench 3", "llm-dreams",
                 "poem-eval"):
        assert f"<th scope=\"row\">{name}</th>" in html
    agreement = load(default_site, "judges/llm-dreams-agreement")
    assert agreement["trait_id"].nunique() == 15
    gaps = load(default_site, "judges/llm-dreams-self-rating-gaps")
    assert gaps["judge"].nunique() == 8 and len(gaps) == 8 * 15
    assert re.search(r'id="bias"', html) and (default_site / "data/judge-bias.json").is_file()


@pytest.mark.slow
def test_test_retest_is_named_for_the_datasets_unit_and_count(default_site):
    """poem-eval has five poems per model, llm-dreams two answer sets: the stepped-up
    reliability is Spearman-Brown with k = 5 (5r / (1 + 4r), checked here from the raw
    test-retest in the download) and k = 2, and the headers say so."""
    poems = load(default_site, "judges/poem-eval-reliability").pivot(
        index="trait_id", columns="statistic", values="estimate")
    r = poems["test_retest"]
    assert np.allclose(poems["test_retest_spearman_brown"], 5 * r / (1 + 4 * r))
    html = (default_site / "judges.html").read_text("utf-8")
    assert ">Test-retest, all 5 poems<" in html and "k = 5" in html
    assert ">Test-retest, both answer sets<" in html and "k = 2" in html
    assert "both sets" not in html
