"""Real model pages of the default site (annotations/ and ../shared/data) in Chromium, on a
phone (390 px) and a desktop (1440 px), light and dark: the sections each model's data
calls for, no horizontal page overflow, every 95% interval in view, whole words in table
cells, no console error or outside request, a page of reasonable height.

The models: Claude 3.5 Sonnet (June 2024), in AlpacaEval and Behavioral Profiling; GPT-4.1,
in Behavioral Profiling and EQ-Bench 3 (its anchor there); Alpaca 7B, in AlpacaEval only;
GPT-4 Turbo (1106 preview), AlpacaEval's reference model; and, if the data ever holds
one, a model in all three datasets.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser import SCHEMES, Watch, open_page, photograph

REPO = Path(__file__).resolve().parents[1]
# model id -> the sections its page must have ("In these datasets" lists them in order).
PAGES = {
    "claude-3-5-sonnet-20240620": ["personality", "versions", "text-statistics"],
    "gpt-4.1": ["personality", "personality-2", "llm-dreams-judges", "eqbench"],
    "alpaca-7b": ["text-statistics"],
    # llm-dreams too; both are releases of a line with other judged releases (versions).
    "gpt4_1106_preview": ["personality", "llm-dreams-judges", "versions", "text-statistics"],
}
WIDTHS = (390, 1440)
# Tallest page allowed (px): the AlpacaEval pages show example pairs of long answers.
MAX_HEIGHT = {390: 16_000, 1440: 11_000}

FACTS = """() => {
  const shown = el => { const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility === 'visible' && Number(s.opacity) > 0; };
  const cells = [...document.querySelectorAll(
      '.model-section .table-wrap thead th, .model-section .table-wrap td')];
  return {
    width: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
    listed: [...document.querySelectorAll('nav.in-datasets a[href^="#"]')].map(
        a => a.getAttribute('href').slice(1)),
    sections: [...document.querySelectorAll('section.model-section')].map(s => s.id),
    intervals: [...document.querySelectorAll('.model-section .ci')].map(ci => ({
        text: ci.textContent, shown: shown(ci),
        size: parseFloat(getComputedStyle(ci).fontSize)})),
    // A cell whose content is wider than the cell: a word that did not fit.
    overflowing: cells.filter(c => c.scrollWidth > c.clientWidth + 1).map(
        c => c.textContent.trim().slice(0, 40)),
    narrowest: Math.min(...[...document.querySelectorAll('.model-section .table-wrap thead th')]
        .map(th => th.getBoundingClientRect().width)),
  };
}"""
# An estimate's interval, or a rank's 95% range ("sure": the place in every resample).
# "5.09–6.42", "−0.38 to +0.12", "2,310–2,512" (characters), "0.9–2.6%" (a share)
INTERVAL = re.compile(r"[+-]?[\d,]+(\.\d+)?(–| to )[+-]?[\d,]+(\.\d+)?%?|anchor, fixed|sure")


def pages_to_visit(site: Path) -> dict[str, str]:
    """model id -> page: PAGES, plus the first model in three datasets, if any."""
    found = {model: f"models/{model}.html" for model in PAGES}
    for page in sorted((site / "models").glob("*.html")):
        listed = re.search(r'<nav class="in-datasets".*?</nav>', page.read_text("utf-8"), re.S)
        if listed and len(re.findall(r'href="#', listed.group(0))) >= 3:
            found[page.stem] = f"models/{page.name}"
            break
    return found


def test_every_model_id_has_a_page_and_every_model_link_resolves(default_site):
    pages = {p.stem for p in (default_site / "models").glob("*.html")}
    assert set(PAGES) <= pages
    assert len(pages) >= 46 + 26  # Behavioral Profiling's and EQ-Bench 3's models at least
    for page in default_site.rglob("*.html"):
        for target in re.findall(r'href="((?:\.\./)?models/[^"#]+)"', page.read_text("utf-8")):
            assert (page.parent / target).resolve().is_file(), (page, target)


def test_sections_follow_the_data(default_site):
    for model, sections in PAGES.items():
        html = (default_site / "models" / f"{model}.html").read_text("utf-8")
        listed = re.search(r'<nav class="in-datasets".*?</nav>', html, re.S).group(0)
        assert re.findall(r'href="#([^"]+)"', listed) == sections, model
    reference = (default_site / "models" / "gpt4_1106_preview.html").read_text("utf-8")
    assert "is the reference model on AlpacaEval" in reference
    claude = (default_site / "models" / "claude-3-5-sonnet-20240620.html").read_text("utf-8")
    assert "Claude-3.5-Sonnet-v1" in claude and "Text statistics (AlpacaEval, rule-based " \
        "judge)" in claude and "derived from the scores" in claude
    gpt = (default_site / "models" / "gpt-4.1.html").read_text("utf-8")
    assert "Claude 3.7 Sonnet" in gpt and "openai/gpt-4.1" in gpt


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_model_pages_on_phone_and_desktop(chromium, default_site, default_root, scheme, width):
    context = chromium.new_context(color_scheme=scheme,
                                   viewport={"width": width, "height": 900})
    watch = Watch(default_root).attach(context)
    page = context.new_page()
    try:
        for model, path in pages_to_visit(default_site).items():
            open_page(page, default_root + path)
            facts = page.evaluate(FACTS)
            where = (model, width, scheme)
            assert watch.take() == [], where
            assert facts["width"] <= width, where  # wide tables scroll inside their wrapper
            assert facts["height"] <= MAX_HEIGHT[width], (where, facts["height"])
            assert facts["listed"] == [s for s in facts["sections"]], where
            if model in PAGES:
                assert facts["listed"] == PAGES[model], where
            judged = {"personality", "eqbench"} & set(facts["sections"])
            if judged:  # every estimate of the judged sections shows its interval
                assert len(facts["intervals"]) >= 9 * len(judged), where
            for interval in facts["intervals"]:
                assert interval["shown"] and interval["size"] >= 10, (where, interval)
                assert INTERVAL.fullmatch(interval["text"]), (where, interval)
            assert facts["overflowing"] == [], where
            assert facts["narrowest"] >= 40, (where, facts["narrowest"])
            photograph(page, f"model-{model}-{width}-{scheme}.png", full_page=True)
    finally:
        context.close()
