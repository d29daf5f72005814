"""Every page of the fixture site in real Chromium, in light and dark mode: no console
error, no failed request, nothing from another host, every chart drawn; dark mode
really changes the colours; screenshots of the main pages for people to look at."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser import SCHEMES, SCREENSHOTS, open_page, site_pages


def chart_specs(site, path: str) -> set[str]:
    """The ids of the charts a page's HTML has (read from the file, not the browser)."""
    html = (site / path).read_text("utf-8")
    return set(re.findall(r'<div class="chart" id="([^"]+)"', html))


def brightness(css: str) -> float:
    """0 (black) to 1 (white): the mean of a computed colour's red, green and blue."""
    red, green, blue = (int(v) / 255 for v in re.findall(r"\d+", css)[:3])
    return (red + green + blue) / 3


def test_the_site_has_every_kind_of_page(tiny_site):
    assert site_pages(tiny_site) == [
        "404.html", "about.html", "agreement.html", "communication.html", "compare.html",
        "datasets.html", "datasets/d.html", "downloads.html", "eqbench.html", "explore.html",
        "index.html", "judges.html", "lineage.html", "methodology.html", "models/R.html",
        "models/m1.html", "models/m2.html", "pressure.html", "ratings.html",
        "sycophancy.html", "traits.html", "traits/is-more-concise.html",
        "traits/is-more-verbose.html"]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_every_page_loads_without_errors_or_foreign_requests(tiny_visits, scheme):
    problems = {path: visit.problems for path, visit in tiny_visits[scheme].items()
                if visit.problems}
    assert problems == {}


@pytest.mark.parametrize("scheme", SCHEMES)
def test_every_chart_is_drawn(tiny_site, tiny_visits, scheme):
    drawn = {path: {c["id"] for c in visit.facts["charts"] if c["marks"] and not c["failed"]}
             for path, visit in tiny_visits[scheme].items()}
    assert drawn == {path: chart_specs(tiny_site, path) for path in site_pages(tiny_site)}
    # Every page with data has a chart (compare's differences are the page's own elements).
    assert sum(map(len, drawn.values())) == 9


def test_dark_mode_changes_background_text_and_chart_colours(tiny_visits):
    for path, dark_visit in tiny_visits["dark"].items():
        light, dark = tiny_visits["light"][path].facts["colours"], dark_visit.facts["colours"]
        assert brightness(light["background"]) > 0.9 and brightness(dark["background"]) < 0.2
        assert brightness(light["text"]) < 0.2 and brightness(dark["text"]) > 0.8, path
        # Axis labels take the page's text colour, so charts stay readable in both.
        assert set(dark["axisText"]) <= {dark["text"]}, path
        assert set(light["axisText"]) <= {light["text"]}, path
    assert tiny_visits["dark"]["index.html"].facts["colours"]["axisText"]


SHOTS = {"home": "index.html", "model": "models/m1.html", "dataset": "datasets/d.html",
         "compare": "compare.html"}


def test_screenshots_of_the_main_pages_in_both_schemes(chromium, tiny_root):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for scheme in SCHEMES:
        context = chromium.new_context(color_scheme=scheme,
                                       viewport={"width": 1280, "height": 900})
        page = context.new_page()
        for name, path in SHOTS.items():
            open_page(page, tiny_root + path)
            target = SCREENSHOTS / f"{name}-{scheme}.png"
            target.unlink(missing_ok=True)
            page.screenshot(path=target, full_page=True)
            data = target.read_bytes()
            assert data[:8] == b"\x89PNG\r\n\x1a\n"
            assert int.from_bytes(data[16:20], "big") == 1280  # the IHDR width
        context.close()


def test_pages_are_photographed_only_when_asked(tmp_path, monkeypatch):
    """browser.photograph: nothing without $FFSITE_SCREENSHOTS; with it, the screenshot
    replaces the last one of that name, with the options given."""
    import browser

    taken = []

    class Target:  # what photograph needs of a Playwright page or locator
        def screenshot(self, path: str, **options) -> None:
            taken.append((path, options))
            Path(path).write_bytes(b"new")

    monkeypatch.setattr(browser, "SCREENSHOTS", tmp_path / "shots")
    monkeypatch.setattr(browser, "TAKE_SCREENSHOTS", False)
    browser.photograph(Target(), "p.png", full_page=True)
    assert taken == [] and not (tmp_path / "shots").exists()
    monkeypatch.setattr(browser, "TAKE_SCREENSHOTS", True)
    (tmp_path / "shots").mkdir()
    (tmp_path / "shots" / "p.png").write_bytes(b"old")
    browser.photograph(Target(), "p.png", full_page=True)
    assert taken == [(str(tmp_path / "shots" / "p.png"), {"full_page": True})]
    assert (tmp_path / "shots" / "p.png").read_bytes() == b"new"
