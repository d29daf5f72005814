"""The trait-agreement page on the default site: whose votes, and only the pairs that
were ever relevant together."""

from __future__ import annotations

import pandas as pd


def test_agreement_lists_pairs_relevant_together_and_names_the_judges(default_site):
    pairs = pd.read_csv(default_site / "data" / "trait-agreement.csv")
    never = pairs[pairs["both_relevant"] == 0]
    assert len(never)  # EQ-Bench 3's role-play and analysis criteria, never asked together
    html = (default_site / "agreement.html").read_text()
    table = html[html.index('id="agreement"'):]
    table = table[table.index("<tbody"):table.index("</table>")]
    assert table.count("<tr") == len(pairs) - len(never)
    assert ("The votes are <strong>claude-3.7-sonnet</strong>'s on EQ-Bench 3; "
            "<strong>rules-1</strong>'s on AlpacaEval, HH-RLHF:" in html)
