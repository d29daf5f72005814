"""The home page leads with judged personality: checked against the scores themselves."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

PHONE, DESKTOP = 390, 1440


def _personality(default_site):
    return pd.DataFrame(json.loads((default_site / "data" / "personality.json").read_text()))


def test_the_published_means_are_plain_averages_of_the_source(default_site, shared_data):
    means = _personality(default_site)
    assert means["model"].nunique() == 46 and means["trait_id"].nunique() == 9
    assert set(means["judge"]) == {"Claude-4.5-Sonnet + Llama-4-Maverick + DeepSeek-R1"}
    jobs = json.loads((shared_data / "behavioral_profiling" / "contributions" /
                       "baseline.json").read_text())["job_contributions"]
    # GPT-4.1 is "GPT-4.1" in the source and "gpt-4.1" on the site (content/models.toml).
    values = [job["contributions"]["GPT-4.1"]["hedging"]["score"] for job in jobs.values()]
    row = means[(means["model"] == "gpt-4.1") & (means["trait_id"] == "bp-hedging")].iloc[0]
    assert row["mean"] == pytest.approx(sum(values) / len(values), abs=1e-12)
    assert row["source_model"] == "GPT-4.1" and row["n"] == len(values)
    assert row["ci_low"] < row["mean"] < row["ci_high"]


def test_at_a_glance_lists_the_extremes_with_intervals(default_site):
    means = _personality(default_site)
    html = (default_site / "index.html").read_text()
    warmth = means[means["trait_id"] == "bp-warmth"].sort_values("mean", ascending=False)
    card = html[html.index('>Warmth</a></h4>'):]
    card = card[:card.index("</article>")]
    most = card[card.index("Most"):card.index("Least")]
    top = warmth.iloc[0]
    assert f"{top['mean']:.2f}" in most
    assert f"({top['ci_low']:.2f}–{top['ci_high']:.2f})" in most
    least = card[card.index("Least"):]
    assert f"{warmth.iloc[-1]['mean']:.2f}" in least
    # The judge is named next to the numbers, and the text statistics are labelled.
    assert "Claude-4.5-Sonnet + Llama-4-Maverick + DeepSeek-R1" in html
    assert html.index("Judged personality") < html.index("Text statistics (rule-based judge)")



def test_each_card_names_its_own_scale_ends(default_site):
    """The ends under a card's title are the scale's own: 1-10 for Behavioral
    Profiling, 1-5 for poem-eval (its README: six bipolar 1-5 scales), not one
    template's 1 and 10 for every dataset."""
    html = (default_site / "index.html").read_text()

    def ends(card_title: str, after: str = "") -> str:
        card = html[html.index(card_title, html.index(after) if after else 0):]
        return re.search(r'<p class="ends">([^<]*)</p>', card[:card.index("</article>")]
                         ).group(1)

    assert ends(">Warmth</a></h4>") == "1 cold, clinical · 10 warm, nurturing"
    assert ends(">Self-doubt</a></h4>", 'id="poem-eval-heading"') == (
        "1 sure of what it is · 5 unsure, puzzled, unknowable to itself")
    # The intro names every judged dataset the page then shows.
    intro = html[:html.index('id="judged-heading"')]
    for name in ("Behavioral Profiling", "EQ-Bench 3", "llm-dreams", "poem-eval"):
        assert name in intro, name
    assert "four public datasets" in intro

def test_every_mean_in_the_table_shows_its_interval(default_site):
    html = (default_site / "index.html").read_text()
    table = html[html.index('id="personality"'):]
    table = table[:table.index("</table>")]
    cells = re.findall(r'<td data-v="[^"]+"[^>]*>([0-9.]+)<span class="ci">([0-9.]+)–([0-9.]+)'
                       r'</span>(?: <span class="badge"[^>]*>[^<]*</span>)?</td>', table)
    assert len(cells) == 46 * 9
    assert all(float(low) <= float(mean) <= float(high) for mean, low, high in cells)


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_home_page_reads_on_phone_and_desktop(chromium, default_root, width, scheme):
    from browser import Watch, open_page, photograph

    context = chromium.new_context(viewport={"width": width, "height": 900},
                                   color_scheme=scheme)
    watch = Watch(default_root).attach(context)
    page = context.new_page()
    try:
        open_page(page, default_root + "index.html")
        facts = page.evaluate("""() => ({
            overflow: document.documentElement.scrollWidth - window.innerWidth,
            ci: [...document.querySelectorAll('#personality .ci')].slice(0, 20).map(e => {
                const r = e.getBoundingClientRect(); return [r.width, r.height]; }),
            glances: document.querySelectorAll('#judged-glances .glance').length,
            headers: [...document.querySelectorAll('#personality thead .label')].map(
                e => e.getBoundingClientRect().height),
        })""")
        assert watch.take() == []
        assert facts["overflow"] <= 0, "the page scrolls sideways"
        assert facts["glances"] == 9
        # The intervals are laid out (seen, not only on hover), and no column name breaks
        # inside a word (one line of text each).
        assert all(w > 20 and h > 5 for w, h in facts["ci"])
        assert max(facts["headers"]) < 30
        photograph(page, f"home-judged-{width}-{scheme}.png")
    finally:
        context.close()


def test_scored_traits_publish_derived_ratings_anchored_on_the_configured_model(default_site):
    ratings = pd.read_csv(default_site / "data" / "traits" / "warmth" / "ratings.csv")
    assert set(ratings["votes"]) == {"derived from scores"}
    assert len(ratings) == 46
    anchor = ratings[ratings["model"] == "gpt-4.1"].iloc[0]  # anchor_model in site.toml
    assert (anchor["elo"], anchor["ci_low"], anchor["ci_high"]) == (1000, 1000, 1000)
    # Ordered like the means: the warmest model by mean is near the top by rating too.
    means = _personality(default_site)
    warmest = means[means["trait_id"] == "bp-warmth"].sort_values("mean").iloc[-1]["model"]
    assert ratings.set_index("model").loc[warmest, "rank"] <= 3
    html = (default_site / "traits" / "warmth.html").read_text()
    assert "Bradley–Terry rating (derived from scores)" in html


def test_models_that_are_also_judges_are_marked(default_site):
    """Behavioral Profiling's three panel judges and EQ-Bench 3's judge are rated models
    too: the home table marks exactly those rows, their pages say so (issue 23)."""
    html = (default_site / "index.html").read_text()
    table = html[html.index('id="personality"'):]
    table = table[:table.index("</table>")]
    marked = re.findall(r'<a href="models/([^"]+)\.html">[^<]*</a> <span class="badge" '
                        r'title="this model is one of the judges of Behavioral Profiling '
                        r'\(([^)]+)\)', table)
    assert sorted(marked) == [("claude-4.5-sonnet", "Claude-4.5-Sonnet"),
                              ("deepseek-r1", "DeepSeek-R1"),
                              ("llama-4-maverick", "Llama-4-Maverick")]
    claude = (default_site / "models" / "claude-3.7-sonnet.html").read_text()
    assert ("This model is one of the judges of EQ-Bench 3 (claude-3.7-sonnet): it judged "
            "its own answers alone: every number here is its own judgement.") in claude
    judge = (default_site / "models" / "deepseek-r1.html").read_text()
    assert ("one of the judges of Behavioral Profiling (DeepSeek-R1): it judged its own "
            "answers with 2 other judges: its own view is part of every number here.") in judge
    other = (default_site / "models" / "gpt-4.1.html").read_text()
    assert "self-judged" not in other
    eq = (default_site / "eqbench.html").read_text()
    assert eq.count('class="badge" title="this model is one of the judges of EQ-Bench 3') >= 1


def test_scores_below_the_rubric_floor_are_counted_and_marked(default_site, shared_data):
    """Behavioral Profiling's known defect: some panel scores are below the rubric's 1
    (a judge answered 0).  Counted per model and trait straight from the source, they
    match the published column, and every such mean is marked on the home page."""
    from collections import Counter

    jobs = json.loads((shared_data / "behavioral_profiling" / "contributions" /
                       "baseline.json").read_text())["job_contributions"]
    nine = {"warmth", "formality", "hedging", "aggression", "transgression", "grandiosity",
            "tribalism", "depth", "authenticity"}
    by_hand = Counter((model, dimension) for job in jobs.values()
                      for model, scores in job["contributions"].items()
                      for dimension, entry in scores.items()
                      if dimension in nine and entry["score"] < 1)
    means = _personality(default_site)
    published = {(r.source_model, r.trait_id.removeprefix("bp-")): r.below_rubric_floor
                 for r in means.itertuples() if r.below_rubric_floor}
    assert published == dict(by_hand) and sum(by_hand.values()) == 41
    html = (default_site / "index.html").read_text()
    table = html[html.index('id="personality"'):]
    table = table[:table.index("</table>")]
    marks = re.findall(r'class="badge" title="[^"]*">([^<]*)</span>', table)
    assert sum("has 0s" in mark for mark in marks) == len(by_hand)
    assert "“has 0s”: on some answers behind that mean a judge of the panel answered 0" in html


# A badge holding the mark "judge" (alone or among others: "judge · has 0s"), not
# "judge's variant".
JUDGE_MARK = r'class="badge"[^>]*>(?:[^<]* · )?judge(?: · [^<]*)?</span>'


def _card_entries(html: str, section_id: str, mark: str = JUDGE_MARK
                  ) -> list[tuple[str, bool]]:
    """(model name, has the badge `mark`) of every entry of a section's trait cards."""
    section = html[html.index(f'id="{section_id}"'):]
    section = section[:section.index("</div>\n")]
    return [(name, re.search(mark, rest) is not None)
            for name, rest in re.findall(
        r'<li>(?:<span class="rank">[^<]*</span> )?<a href="[^"]*">([^<]*)</a>(.*?)</li>',
        section)]


def test_cards_mark_models_that_judged_their_own_answers(default_site):
    """Behavioral Profiling's panel (Claude 4.5 Sonnet, Llama 4 Maverick, DeepSeek-R1)
    and llm-dreams' judges that are rated models (its README: eight of nine, Grok 4.3
    among them) scored their own answers: their entries on the cards say so, others'
    do not."""
    html = (default_site / "index.html").read_text()
    panel = {"Claude 4.5 Sonnet", "Llama 4 Maverick (17B active)", "DeepSeek-R1"}
    lead = _card_entries(html, "judged-glances")
    assert any(name == "DeepSeek-R1" for name, _ in lead)
    assert all(marked == (name in panel) for name, marked in lead), lead
    # Claude 4.5 Sonnet (thinking) is the registry's variant of a judge: its own badge.
    variant = _card_entries(html, "judged-glances", r"class=\"badge\"[^>]*>[^<]*judge&#39;s "
                            r"variant")
    assert all(marked == (name == "Claude 4.5 Sonnet (thinking)") for name, marked in variant)
    assert any(marked for _, marked in variant)  # (it is on the cards: bends, hedging)
    dreams = _card_entries(html, "llm-dreams-glances")
    assert any(name.startswith("Grok 4.3") and marked for name, marked in dreams)
    assert any(not marked for _, marked in dreams)
    assert not any(marked for _, marked in _card_entries(html, "text-glances"))


def test_cards_mark_models_with_near_empty_dreams(default_site, shared_data):
    """talkie-1930-13b-it wrote 7 of its 30 dreams in under 50 bytes (counted here from
    the answers); wherever the cards list it, the entry says so."""
    answers = sorted((shared_data / "llm_dreams" / "answers").glob(
        "talkie-1930-13b-it__dream*.txt"))
    assert len(answers) == 30
    assert sum(path.stat().st_size < 50 for path in answers) == 7
    html = (default_site / "index.html").read_text()
    section = html[html.index('id="llm-dreams-glances"'):]
    entries = re.findall(r'<li>(.*?)</li>', section[:section.index("</div>\n")])
    talkie = [entry for entry in entries if "talkie" in entry.lower()]
    assert talkie and all('title="7 of its 30 dreams are near-empty' in entry
                          for entry in talkie)


def test_a_single_judges_dataset_does_not_promise_agreement(default_site):
    html = re.sub(r"\s+", " ", (default_site / "index.html").read_text())
    poems = html[html.index('id="poem-eval-heading"'):]
    poems = poems[:poems.index("<h2")] if "<h2" in poems else poems
    dreams = html[html.index('id="llm-dreams-heading"'):html.index('id="poem-eval-heading"')]
    assert "How steady its one judge is from one answer to the next" in poems
    assert "How far its judges agree and which of them rate themselves" in dreams
    assert "share a rank" not in html  # ranks come with ranges
