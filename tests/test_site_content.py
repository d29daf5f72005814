"""The pages written from content/*.md on the default site: the About page credits every
dataset the site shows, as each licence asks, and says who produced which numbers."""

from __future__ import annotations

import html
import re


def _text(default_site, page: str) -> str:
    source = (default_site / page).read_text()
    source = re.sub(r"<script.*?</script>|<style.*?</style>", "", source, flags=re.S)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", source)))


def test_about_credits_every_dataset_the_site_shows(default_site):
    about = _text(default_site, "about.html")
    # The attributions ../shared/data/README.md asks for, with each licence.
    for credit, licence in (("llm-dreams-benchmark by Alessandro Berti", "Apache-2.0"),
                            ("poem-eval by Diana Markova", "MIT"),
                            ("Behavioral Profiling Framework", "Apache-2.0"),
                            ("EQ-Bench 3", "MIT"), ("AlpacaEval", "CC BY-NC 4.0"),
                            ("HH-RLHF", "MIT")):
        assert credit in about, credit
        after = about[about.index("Data sources and licences"):]
        assert licence in after[after.index(credit):][:400], credit


def test_about_judge_table_says_scores_for_scored_traits(default_site):
    """Behavioral Profiling's panel scored nine traits (scores, not votes: the votes
    derived from them are ffsite's); the rules judge votes on pairs."""
    source = (default_site / "about.html").read_text()
    table = source[source.index('id="judges"'):]
    rows = {(judge, role): what for judge, role, what in re.findall(
        r'<tr><th scope="row">([^<]*)</th><td>([^<]*)</td><td>([^<]*)</td></tr>',
        table[:table.index("</table>")])}
    assert rows[("DeepSeek-R1", "scores")] == "9 traits"
    assert ("DeepSeek-R1", "trait votes") not in rows
    assert any(role == "trait votes" and judge.startswith("rules")
               for judge, role in rows)


def test_methodology_quotes_this_sites_settings():
    """methodology.md names the threshold and the anchor model; they must be the ones
    content/site.toml sets."""
    import tomllib
    from pathlib import Path

    content = Path(__file__).resolve().parents[1] / "content"
    settings = tomllib.loads((content / "site.toml").read_text())
    text = re.sub(r"\s+", " ", (content / "methodology.md").read_text())
    assert settings["min_valid_votes"] == 10 and "fewer than 10 valid (A/B) votes" in text
    assert settings["anchor_model"] == "gpt-4.1" and "anchored at 1000 on GPT-4.1" in text
