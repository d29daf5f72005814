"""What the default site's EigenBench pages say to a reader (llm-dreams' fifteen traits):
ranks with their 95% range over the fit's own bootstrap refits (never "sure" unless the
range is one place), the trait as the judges were really asked it, an Elo cue that says
what a higher Elo means here, and an overview whose width column says it is a median
and why a constitution is weakly identified.  The expected values are computed here from
the downloads, the published protocol and refits rebuilt from the judgments, not taken
from the page code."""

from __future__ import annotations

import html as html_module
import re

import numpy as np
import pandas as pd
import pytest
from site_fixture import REPO

from ffsite.datasets import PANELS
from ffsite.datasets.llm_dreams.peers import peer_judgments
from ffsite.format import read_scores
from ffsite.metrics import eigenbench as eb
from ffsite.metrics.judges import pool_panels
from ffsite.models import load_registry

pytestmark = pytest.mark.slow

MOTIVATION = "llm-dreams-achievement-motivation"
TRAITS = (MOTIVATION, "llm-dreams-adaptability")  # refitted here: about 2 s each


def text(fragment: str) -> str:
    return html_module.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment)))


def table(page: str, table_id: str) -> str:
    return re.search(rf'<table[^>]*id="{table_id}".*?</table>', page, re.S).group(0)


def body_rows(fragment: str) -> list[str]:
    return re.findall(r"<tr[^>]*>.*?</tr>", fragment.split("<tbody>", 1)[1], re.S)


def cells(row: str) -> list[str]:
    return re.findall(r"<t[hd][^>]*>.*?</t[hd]>", row, re.S)


def range_text(low: int, high: int) -> str:
    return "sure" if low == high else f"{low}–{high}"


def refit_ranges(elo: np.ndarray, refits: np.ndarray, level: float = 0.95
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(place, best, worst) of each model, counted here: its place by Elo (1 + the models
    rated higher), and the 2.5% and 97.5% points of its place over the refits (numpy's
    inverted-CDF quantile: one of the refits' places, never between two), widened to hold
    its place (and nothing else: each range is the model's own)."""
    place = 1 + (elo[None, :] > elo[:, None]).sum(axis=1)
    drawn = 1 + (refits[:, None, :] > refits[:, :, None]).sum(axis=2)  # [refit, model]
    tail = (1 - level) / 2
    best, worst = np.quantile(drawn, [tail, 1 - tail], axis=0,
                              method="inverted_cdf").astype(int)
    return place, np.minimum(best, place), np.maximum(worst, place)


@pytest.fixture(scope="module")
def derived_judgments():
    scores = read_scores([REPO / "annotations"])
    members = pool_panels(scores, PANELS)[1]
    return {item.name: item.judgments
            for item in peer_judgments(members, load_registry(REPO / "content"))}


def test_ranks_carry_their_range_over_the_fits_own_refits(default_site, derived_judgments):
    """The audit's finding: every rank read "1 of 8 sure" or the like.  Each rank is now
    the model's place by Elo with its 95% range over the 200 refits behind the intervals,
    rebuilt here: their percentiles are the published intervals, and the ranges counted
    from them are the page's."""
    for name in TRAITS:
        ratings = pd.read_csv(default_site / "data" / "eigenbench" / name / "ratings.csv")
        judgments = derived_judgments[name]
        fit = eb.eigenbench(judgments, n_bootstrap=200, seed=0)
        refits = eb.bootstrap_elo(judgments, fit.fit, 200, 0)
        refits = refits[:, [judgments.models.index(m) for m in ratings["model"]]]
        low, high = np.percentile(refits, [2.5, 97.5], axis=0)
        np.testing.assert_allclose(low, ratings["ci_low"], rtol=1e-12)
        np.testing.assert_allclose(high, ratings["ci_high"], rtol=1e-12)
        elo = ratings["elo"].to_numpy(float)
        assert len(set(elo)) == len(elo)
        place, best, worst = refit_ranges(elo, refits)
        assert ratings["rank"].tolist() == place.tolist() == list(range(1, 9))
        assert ratings["rank_low"].tolist() == best.tolist(), name
        assert ratings["rank_high"].tolist() == worst.tolist(), name
        page = (default_site / "eigenbench" / f"{name}.html").read_text("utf-8")
        tied = int((best == 1).sum())
        for row, k, b, w in zip(body_rows(table(page, "eigenbench-ratings")), place, best,
                                worst, strict=True):
            expected = f"{k} of 8 {range_text(b, w)}" + (
                ", tied for first" if b == 1 and tied > 1 else "")
            assert text(cells(row)[2]).strip() == expected, (name, row)
            assert f'data-rank="{b} {w}"' in cells(row)[2]
    # The audit's example: four models were "1 of 8 sure"; by the refits, three of them
    # can be first (Grok 4.3, 4.5 and 4.6), as the overview now says.
    page = (default_site / "eigenbench" / f"{MOTIVATION}.html").read_text("utf-8")
    assert "1 of 8 sure" not in page
    overview = (default_site / "eigenbench.html").read_text("utf-8")
    row = re.search(rf'<tr[^>]*><th scope="row"><a href="eigenbench/{MOTIVATION}.html">'
                    r".*?</tr>", overview, re.S).group(0)
    assert "3 of 8 could be first" in row


def test_no_rank_is_sure_unless_its_range_is_one_place(default_site):
    """On every constitution page and every model page's section: a rank cell says
    "sure" only when its range (data-rank) is one place, and each range holds its own
    place; the overview's count of models that could be first is the number of ranges
    on the page that reach first place."""
    summary = pd.read_csv(default_site / "data" / "eigenbench.csv").set_index("constitution")
    pages = sorted((default_site / "eigenbench").glob("*.html"))
    assert len(pages) == 15
    ranked = 0
    for path in pages:
        ratings = pd.read_csv(default_site / "data" / "eigenbench" / path.stem /
                              "ratings.csv")
        assert (ratings["rank_low"] <= ratings["rank"]).all()
        assert (ratings["rank"] <= ratings["rank_high"]).all()
        assert summary.loc[path.stem, "could_be_first"] == (ratings["rank_low"] == 1).sum()
        page = path.read_text("utf-8")
        for row in body_rows(table(page, "eigenbench-ratings")):
            for cell in cells(row):
                found = re.search(r'data-rank="(\d+) (\d+)"', cell)
                if found:
                    ranked += 1
                    one = found.group(1) == found.group(2)
                    assert ("sure" in text(cell)) == one, (path.name, cell)
        # The panel's mean has a range too: two models whose intervals each hold the
        # other's mean cannot be told apart, so neither rank is sure.
        means = ratings.set_index("model")
        for model, mine in means.iterrows():
            near = means[(means.index != model) & (means["panel_low"] <= mine["panel_mean"])
                         & (mine["panel_mean"] <= means["panel_high"])
                         & (mine["panel_low"] <= means["panel_mean"])
                         & (means["panel_mean"] <= mine["panel_high"])]
            if len(near):
                assert mine["panel_rank_low"] < mine["panel_rank_high"], (path.name, model)
    assert ranked == 15 * 8 * 2  # the rating's rank and the mean's, per model
    section = table((default_site / "models" / "qwen3.6-plus.html").read_text("utf-8"),
                    "model-eigenbench-llm_dreams")
    own = pd.read_csv(default_site / "data" / "models" / "qwen3.6-plus" /
                      "eigenbench-llm_dreams.csv").set_index("constitution")
    motivation = pd.read_csv(default_site / "data" / "eigenbench" / MOTIVATION /
                             "ratings.csv")
    # The audit's model: fifth by Elo on Achievement Motivation (four models rated
    # higher), shown as "1 of 8 sure" before.
    elo = motivation.set_index("model")["elo"]
    assert 1 + (elo > elo["qwen3.6-plus"]).sum() == 5 == own.loc[MOTIVATION, "rank"]
    for row in body_rows(section):
        rank = cells(row)[2]
        found = re.search(r'data-rank="(\d+) (\d+)"', rank)
        assert found and ("sure" in text(rank)) == (found.group(1) == found.group(2))
        if f"{MOTIVATION}.html" in row:
            low, high = own.loc[MOTIVATION, ["rank_low", "rank_high"]]
            assert text(rank).strip() == f"5 of 8 {range_text(low, high)}"
            assert low < high  # its interval overlaps GPT-5.5's and Grok 4.6's


def test_the_trait_is_worded_as_the_judges_were_given_it(default_site, shared_data):
    """The judges got the fifteen trait names and a 1.0-10.0 scale (llm-dreams'
    PROTOCOL.md); the ends' wording is ffsite's, and the page says so."""
    protocol = (shared_data / "llm_dreams" / "PROTOCOL.md").read_text("utf-8")
    scale = "a number from 1.0 (minimum score) to 10.0 (maximum score)"
    assert scale in protocol and "indifferent to success" not in protocol
    assert "'Achievement Motivation'" in protocol
    page = (default_site / "eigenbench" / f"{MOTIVATION}.html").read_text("utf-8")
    assert "as the judges were asked it: <em>Achievement Motivation: 1" not in page
    said = text(page)
    assert ("The judges were given only the trait's name, Achievement Motivation (with "
            "the other traits' names, in one request), and asked for \"" + scale + "\".") \
        in said
    assert ("The wording of the ends this site shows, 1 indifferent to success; 10 "
            "driven to succeed , is ffsite's own, not the judges'.") in said


def test_the_elo_cue_says_more_of_the_trait_not_preferred(default_site):
    """A higher Elo on a trait means the judges see more of it (the page's own prose: a
    trait is not a grade), in the column's cue on the trait's page and on the model
    pages."""
    cue = "(higher = more of the trait, as judged)"
    for path in sorted((default_site / "eigenbench").glob("*.html")):
        ratings = table(path.read_text("utf-8"), "eigenbench-ratings")
        header = re.search(r'<th scope="col" data-key="elo".*?</th>', ratings, re.S).group(0)
        assert text(header).strip() == f"Elo {cue}", path.name
        assert "preferred more" not in text(ratings)
    section = table((default_site / "models" / "qwen3.6-plus.html").read_text("utf-8"),
                    "model-eigenbench-llm_dreams")
    assert cue in text(section) and "preferred more" not in text(section)


def test_the_overview_width_is_a_median_and_says_why_a_fit_is_weak(default_site):
    """The overview's width column: named a median over the models, each cell the median
    of the constitution's interval widths, and under it, for a weakly identified one,
    how many intervals are wider than 400 Elo, with a note that explains the mark."""
    overview = (default_site / "eigenbench.html").read_text("utf-8")
    constitutions = table(overview, "eigenbench-constitutions")
    header = re.search(r'<th scope="col" data-key="width".*?</th>', constitutions,
                       re.S).group(0)
    assert text(header).strip() == ("Median width (median of its models' 95% interval "
                                    "widths, Elo)")
    assert "Interval width" not in overview and "(weakly identified)" not in overview
    summary = pd.read_csv(default_site / "data" / "eigenbench.csv")
    weak = 0
    for row in body_rows(constitutions):
        name = re.search(r'href="eigenbench/([^"]+)\.html"', row).group(1)
        ratings = pd.read_csv(default_site / "data" / "eigenbench" / name / "ratings.csv")
        widths = ratings["ci_high"] - ratings["ci_low"]
        wide = int((widths > 400).sum())
        shown = text(cells(row)[3]).strip()
        expected = f"{widths.median():.0f}" + (f" weak: {wide} over 400" if wide else "")
        assert shown == expected, (name, shown)
        page = (default_site / "eigenbench" / f"{name}.html").read_text("utf-8")
        assert ("Weakly identified" in page) == bool(wide)  # the site's only reason here
        assert bool(summary.set_index("constitution").loc[name, "weakly_identified"]) == (
            wide > 0)
        weak += wide > 0
    # Achievement Motivation's median width (269) beside its top model's own interval
    # (1546-1783, 237 wide): the note says which is which.
    assert weak == 8
    note = text(re.search(r'<p class="note">Median width.*?</p>', overview, re.S).group(0))
    assert "the interval under Its Elo is the top model's own" in note
    assert "\"2 over 400\", two models' intervals are wider than 400 Elo" in note


def test_the_own_row_gap_says_it_is_not_corrected_for_the_lens(default_site):
    """EigenBench's own-row-minus-others' Elo is not a self-preference corrected for how
    a judge spreads every model (Qwen3.6 Plus: -453 on fear of failure, where the Judges
    page's corrected gap is -0.12 with an interval across 0): its name and text say so,
    and point to the corrected gap."""
    page = (default_site / "eigenbench" / f"{MOTIVATION}.html").read_text("utf-8")
    assert "Self-preference<" not in page
    assert "Own row − others&#39;" in page or "Own row − others'" in page
    assert "not corrected for how widely the judge spreads every model" in page
    model = (default_site / "models" / "qwen3.6-plus.html").read_text("utf-8")
    assert "Self-preference<" not in model and "Not corrected for how widely" in model
