"""Accessibility, checked on every page in real Chromium: heading order, labelled
controls, text alternatives on charts and tables, named sort buttons, and the contrast
of the heat colours in both colour schemes (WCAG 2 formula, computed here)."""

from __future__ import annotations

import re

import pytest
from browser import SCHEMES

ARROWS = set("↕▲▼")


def every(visits, key):
    """(page, item) for each item of PAGE_FACTS[key] on every page."""
    return [(path, item) for path, visit in visits.items() for item in visit.facts[key]]


def test_one_h1_and_no_heading_level_skipped(tiny_visits):
    for path, visit in tiny_visits["light"].items():
        levels = [h["level"] for h in visit.facts["headings"]]
        assert levels.count(1) == 1 and levels[0] == 1, (path, levels)
        skips = [(a, b) for a, b in zip(levels, levels[1:], strict=False) if b > a + 1]
        assert skips == [], (path, levels)
        assert all(h["text"] for h in visit.facts["headings"]), path


def test_every_form_control_is_labelled(tiny_visits):
    controls = every(tiny_visits["light"], "controls")
    unlabelled = [(path, c["what"]) for path, c in controls
                  if not (any(c["labels"]) or c["ariaLabel"] or c["labelledBy"])]
    assert unlabelled == []
    # The home page's trait filter, the compare page's two menus, the ratings chart's menu.
    assert len(controls) >= 4


def test_every_chart_and_table_has_a_text_alternative(tiny_visits):
    for path, chart in every(tiny_visits["light"], "charts"):
        described = chart["ariaLabel"] or chart["labelledBy"] or chart["describedBy"]
        assert described and chart["figcaption"], (path, chart["id"])
    for path, table in every(tiny_visits["light"], "tables"):
        assert table["caption"] or table["ariaLabel"] or table["labelledBy"], (path, table)


def test_the_browser_names_every_control_chart_and_table(tiny_visits):
    """Chromium's own accessible names (its accessibility tree), not just our markup."""
    for path, visit in tiny_visits["light"].items():
        roles = [role for role, _ in visit.accessible]
        unnamed = [role for role, name in visit.accessible if not name and role != "figure"]
        assert unnamed == [], path
        facts = visit.facts
        assert roles.count("table") == len(facts["tables"]), path
        assert roles.count("graphics-document") + roles.count("image") == len(
            facts["charts"]), path


def test_sort_buttons_are_named_by_their_column(tiny_visits):
    for path, visit in tiny_visits["light"].items():
        buttons = visit.facts["sortButtons"]
        others = set(visit.facts["otherButtons"])  # e.g. the explorer's cells and paging
        names = [name for role, name in visit.accessible if role == "button"
                 and name not in others]
        assert len(names) == len(buttons), path
        for button, name in zip(buttons, names, strict=True):
            assert button["label"] and name.startswith(button["label"]), (path, name)
            assert not ARROWS & set(name), (path, name)  # the sort arrows are decoration
    assert sum(len(v.facts["sortButtons"]) for v in tiny_visits["light"].values()) > 40


# ------------------------------------------------------------------- contrast (WCAG 2)

def parse_colour(css: str) -> tuple[float, float, float, float]:
    """rgb(...) / rgba(...) as red, green, blue in 0-255 and alpha in 0-1."""
    values = [float(v) for v in re.findall(r"[\d.]+", css)]
    return (*values[:3], values[3] if len(values) > 3 else 1.0)


def over(top: tuple, bottom: tuple) -> tuple:
    """`top` composited over an opaque `bottom`."""
    alpha = top[3]
    return (*(alpha * t + (1 - alpha) * b for t, b in zip(top[:3], bottom[:3],
                                                           strict=True)), 1.0)


def relative_luminance(colour: tuple) -> float:
    def linear(channel: float) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    red, green, blue = (linear(c) for c in colour[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(first: tuple, second: tuple) -> float:
    light, dark = sorted([relative_luminance(first), relative_luminance(second)], reverse=True)
    return (light + 0.05) / (dark + 0.05)


def effective_background(chain: list[str]) -> tuple:
    """The colour behind an element: its and its ancestors' backgrounds, composited from
    the page's canvas (white) up."""
    colour = (255.0, 255.0, 255.0, 1.0)
    for css in reversed(chain):
        colour = over(parse_colour(css), colour)
    return colour


def test_contrast_formula_on_known_pairs():
    black, white = (0.0, 0.0, 0.0, 1.0), (255.0, 255.0, 255.0, 1.0)
    assert contrast(black, white) == pytest.approx(21.0)
    assert contrast(white, white) == pytest.approx(1.0)
    # #777777 on white: 4.48 (the classic just-failing grey).
    assert contrast((119.0, 119.0, 119.0, 1.0), white) == pytest.approx(4.48, abs=0.01)
    assert effective_background(["rgba(0, 0, 0, 0)", "rgb(10, 20, 30)"]) == (10, 20, 30, 1)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_heat_colours_have_enough_contrast(tiny_visits, scheme):
    cells = every(tiny_visits[scheme], "heat")
    ratios = {}
    for path, cell in cells:
        background = effective_background(cell["backgrounds"])
        text = over(parse_colour(cell["color"]), background)
        css = cell["css"].split()[0] if cell["css"] else ""
        ratios[css] = min(ratios.get(css, 99.0), contrast(text, background))
        assert contrast(text, background) >= 4.5, (scheme, path, cell)
    # Every heat step was on some page (the legend shows them all).
    assert set(ratios) >= {"h0", "hp1", "hp2", "hp3", "hp4", "hn1", "hn2", "hn3", "hn4",
                           "nf"}
