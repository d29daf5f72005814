"""The trait-agreement page on the default site: whose votes, and only the pairs that
were ever relevant together."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ffsite.format.read import vote_rows

REPO = Path(__file__).resolve().parents[1]


def test_agreement_lists_pairs_relevant_together_and_names_the_judges(default_site):
    pairs = pd.read_csv(default_site / "data" / "trait-agreement.csv")
    never = pairs[pairs["both_relevant"] == 0]
    html = (default_site / "agreement.html").read_text()
    table = html[html.index('id="agreement"'):]
    table = table[table.index("<tbody"):table.index("</table>")]
    assert table.count("<tr") == len(pairs) - len(never)
    # Every kappa and overlap has its 95% interval, in the table and the download.
    shown = pairs[pairs["both_relevant"] > 0]
    assert table.count('<span class="ci">') == shown["cohens_kappa"].notna().sum() + len(shown)
    defined = shown[shown["cohens_kappa"].notna()]
    assert (defined["kappa_low"] <= defined["cohens_kappa"] + 1e-9).all()
    assert (defined["cohens_kappa"] <= defined["kappa_high"] + 1e-9).all()
    assert (shown["overlap_low"] <= shown["overlap_high"]).all()
    assert ("bootstrap over each dataset&#39;s prompts, every comparison of a drawn prompt "
            "kept (200 resamples)") in html
    assert ("Votes of <strong>claude-3.7-sonnet</strong> on EQ-Bench 3; "
            "<strong>rules-1</strong> on AlpacaEval, HH-RLHF." in html)


def test_eqbench_pairs_count_only_the_comparisons_that_asked_both(default_site):
    """EQ-Bench 3 asks some criteria of analysis scenarios only and others of role-play
    only.  Counted here from the committed votes with pandas: per comparison, a
    criterion's two seeds make one vote (A and A: A; A and B: no side), and a pair's
    overlap counts only comparisons that asked both criteria.  Pairs never asked
    together are not listed at all (they were listed with an overlap of 0, and every
    pair of a scoped criterion had its overlap understated: 0.36 where it is 0.67)."""
    votes = vote_rows(REPO / "annotations" / "eqbench3" / "votes.parquet").select(
        ["comparison_id", "trait_id", "vote"]).to_pandas()
    sides = votes.groupby(["comparison_id", "trait_id"])["vote"].agg(
        lambda v: v.iloc[0] if (v == v.iloc[0]).all() else "split").unstack()
    asked, relevant = sides.notna(), sides.isin(["A", "B"])
    listed = pd.read_csv(default_site / "data" / "trait-agreement.csv").set_index(
        ["trait_id_a", "trait_id_b"])
    criteria = sorted(sides.columns)
    checked = absent = 0
    for i, first in enumerate(criteria):
        for second in criteria[i + 1:]:
            both_asked = asked[first] & asked[second]
            either = (both_asked & (relevant[first] | relevant[second])).sum()
            both = (relevant[first] & relevant[second]).sum()
            if not both_asked.any():
                assert (first, second) not in listed.index
                absent += 1
                continue
            row = listed.loc[(first, second)]
            assert (row["either_relevant"], row["both_relevant"], row["asked_both"]) == (
                either, both, both_asked.sum())
            checked += 1
    # 14 criteria, 91 pairs: 36 never asked together, 55 listed.
    assert len(criteria) == 14 and (absent, checked) == (36, 55)


def test_eqbench_criteria_median_kappa_has_its_interval(default_site):
    """The EQ-Bench page's median kappa between two criteria is the median of the 55
    criteria pairs' kappas in the download, with a 95% interval around it."""
    import re

    listed = pd.read_csv(default_site / "data" / "trait-agreement.csv")
    criteria = listed[listed["trait_id_a"].str.startswith("eq-")
                      & listed["trait_id_b"].str.startswith("eq-")]
    html = (default_site / "eqbench.html").read_text("utf-8")
    found = re.search(r"has a median of <strong>(\d\.\d\d)</strong> \(95% interval "
                      r"(\d\.\d\d)–(\d\.\d\d), bootstrap over the scenarios\), and "
                      r"(\d+)% \((\d+)–(\d+)%\) of the 55 pairs", html)
    assert found, "the median kappa and its interval are not on the EQ-Bench page"
    median, low, high, close, close_low, close_high = map(float, found.groups())
    assert len(criteria) == 55 and median == round(criteria["cohens_kappa"].median(), 2)
    assert low <= median <= high and high - low < 0.1
    assert close == round(100 * (criteria["cohens_kappa"] >= 0.9).mean())
    assert close_low <= close <= close_high
