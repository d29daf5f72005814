"""ffsite.site.views: the least width of a numeric header, which keeps its name to two
lines (test_browser_first_screen measures the lines in Chromium on every page), and
what a rank cell says."""

from __future__ import annotations

import pandas as pd
import pytest

from ffsite.site.views import (
    Column,
    also_text,
    glance,
    rank_cell,
    rank_rows,
    standings,
    strength_cell,
)


@pytest.mark.parametrize(("label", "width"), [
    # one or two words: half the name plus four (ceil), as the table macro always gave
    ("Elo", 6), ("Strength", 8), ("Win rate", 8),
    # words that split unevenly: the wider line of the best break, plus the sort arrow
    # (2) and padding (3): "Muse Spark" | "1.1" + arrow -> 10 + 3
    ("Muse Spark 1.1", 13),
    # an even split: half plus four is wider (21 / 2 + 4 -> 15; the best break is
    # "Win rate vs" | "reference" + 2, 11 + 3 = 14)
    ("Win rate vs reference", 15),
    # a hyphen is a break: "GPT-4o" | "mini" + 2 = 6 + 3 < 10, half plus four
    ("GPT-4o mini", 10),
])
def test_a_numeric_header_is_wide_enough_for_two_lines(label, width):
    assert Column("k", label).header_width == width


def test_text_and_rotated_headers_set_no_width():
    assert Column("k", "Muse Spark 1.1", numeric=False).header_width == 0
    assert Column("k", "Muse Spark 1.1", vertical=True).header_width == 0


def test_a_rank_cell_gives_its_range_and_says_when_it_may_be_first():
    # Third by the estimate, 1-3 by the resamples, its range one of three reaching 1:
    # the cell says "tied for first" (narrow, for a phone); its title says with how many.
    cell = rank_cell(3, 46, 1, 3, tied=3)
    assert (cell.text, cell.value, cell.interval, cell.rank_range) == (
        "3 of 46", 3, "1–3, tied for first", (1, 3))
    assert cell.title == ("3 of 46 by the estimate; 95% interval of its rank: 1 to 3; "
                          "tied for first with 2 others")
    assert rank_cell(1, 9, 1, 2, tied=2).title.endswith("tied for first with 1 other")
    # Alone in reaching first place, or not reaching it: no tie.
    assert rank_cell(1, 9, 1, 1, tied=1).interval == "sure"
    assert rank_cell(2, 9, 2, 5, tied=3).interval == "2–5"
    assert rank_cell(0, 9).text == rank_cell(float("nan"), 9).text == "–"


def test_a_rank_without_a_range_claims_no_certainty():
    """Without resampled ranks the cell gives the place alone: never "sure" (EigenBench's
    ranks once all read "1 of 8 sure")."""
    for low, high in ((None, None), (float("nan"), float("nan")), (1, None)):
        cell = rank_cell(3, 8, low, high)
        assert (cell.text, cell.value, cell.interval, cell.rank_range) == (
            "3 of 8", 3, None, None)
        assert cell.title == "3 of 8 by the estimate (no interval of its rank)"


def test_a_strength_of_no_votes_is_a_dash_and_one_vote_a_number():
    empty = strength_cell(0.0, False, 0, 10, 0.0, 0.0)
    assert empty.text == "–" and empty.interval is None and "no valid votes" in empty.title
    few = strength_cell(0.5, False, 2, 10, 0.1, 0.9)
    assert few.text == "+0.50" and few.interval == "+0.10 to +0.90"
    assert few.title == "only 2 valid votes (fewer than 10)"


def test_a_card_names_who_else_could_be_at_its_end():
    """A card lists the top two by estimate; a third model whose range reaches first
    place (poorly measured, lower down) is named after the count, not left a mystery."""
    frame = pd.DataFrame({"model": ["a", "b", "c", "d"], "value": [4.0, 3.0, 2.0, 1.0],
                          "low": [3.5, 2.5, 0.0, 0.9], "high": [4.5, 3.5, 5.0, 1.1],
                          "rank": [1, 2, 3, 4], "rank_low": [1, 2, 1, 4],
                          "rank_high": [2, 3, 4, 4]})
    ranked = rank_rows(frame)
    most, least = standings(ranked, 2, str.upper, lambda m: None)
    card = glance("T", None, ranked, most, least, name=str.upper)
    assert [s.model for s in most] == ["A", "B"]
    assert card.most_note == "tied: 2 of 4 could be first (not listed below: C)"
    assert also_text(tuple("PQRSU")) == " (not listed below: P; Q; R and 2 more)"
