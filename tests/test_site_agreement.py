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
    assert ("The votes are <strong>claude-3.7-sonnet</strong>'s on EQ-Bench 3; "
            "<strong>rules-1</strong>'s on AlpacaEval, HH-RLHF:" in html)


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
            assert (row["either_relevant"], row["both_relevant"]) == (either, both)
            checked += 1
    # 14 criteria, 91 pairs: 36 never asked together, 55 listed.
    assert len(criteria) == 14 and (absent, checked) == (36, 55)
