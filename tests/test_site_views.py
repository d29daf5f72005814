"""ffsite.site.views: the least width of a numeric header, which keeps its name to two
lines (test_browser_first_screen measures the lines in Chromium on every page)."""

from __future__ import annotations

import pytest

from ffsite.site.views import Column


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
