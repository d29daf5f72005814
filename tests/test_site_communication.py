"""The communication page and the models' communication tables show each mean with its
95% interval and the responses behind it (the session's tiny site, site_fixture.py)."""

from __future__ import annotations

import csv
import json
import re

import pandas as pd
import pytest
from site_fixture import REPO


@pytest.fixture(scope="module")
def site(tiny_site):
    """The session's tiny site (read only)."""
    return tiny_site


def row_cells(html: str, table_id: str, header: str) -> list[str]:
    """The cells (td, inner HTML) of the row of `table_id` whose header reads `header`."""
    table = re.search(rf'<table[^>]*id="{table_id}".*?</table>', html, re.S).group(0)
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S):
        head = re.search(r"<th scope=\"row\">(.*?)</th>", row, re.S)
        if head and re.sub(r"<[^>]+>", "", head.group(1)) == header:
            return re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
    raise AssertionError(f"no row {header!r} in {table_id}")


def test_download_has_each_measures_interval_and_the_responses(site):
    with open(site / "data" / "communication.csv", newline="", encoding="utf-8") as handle:
        rows = {row["model"]: row for row in csv.DictReader(handle)}
    assert list(rows["m1"]) == ["model", "responses", "empty", "words", "words_low",
                                "words_high",
                                "ends_with_question", "ends_with_question_low",
                                "ends_with_question_high"]
    assert {m: int(r["responses"]) for m, r in rows.items()} == {"m1": 4, "m2": 3, "R": 2}
    m1 = {key: float(value) for key, value in rows["m1"].items() if key != "model"}
    # m1's words 10, 20, 30, 20 by hand: mean 20, sd sqrt(200 / 3) = 8.164966,
    # half-width 1.959964 * 8.164966 / 2 = 8.001519.
    assert m1["words"] == 20
    assert m1["words_low"] == pytest.approx(11.998481, abs=1e-6)
    assert m1["words_high"] == pytest.approx(28.001519, abs=1e-6)
    # 1 of 4 ends with a question; Wilson by hand (z^2 = 3.841459): centre
    # (0.25 + z^2/8) / (1 + z^2/4) = 0.730182 / 1.960365 = 0.372473, half-width
    # z / 1.960365 * sqrt(0.25 * 0.75 / 4 + z^2 / 64) = 0.999796 * 0.326952 = 0.326885.
    assert m1["ends_with_question"] == 0.25
    assert m1["ends_with_question_low"] == pytest.approx(0.045587, abs=1e-6)
    assert m1["ends_with_question_high"] == pytest.approx(0.699358, abs=1e-6)
    published = json.loads((site / "data" / "communication.json").read_text("utf-8"))
    assert [row["model"] for row in published] == ["R", "m1", "m2"]


def test_the_page_shows_the_interval_under_each_mean_and_the_responses(site):
    html = (site / "communication.html").read_text("utf-8")
    assert 'data-key="responses"' in html
    responses, words, question = row_cells(html, "communication", "m1")
    assert re.fullmatch(r"4", responses)
    assert words == '20<span class="ci">12–28</span>'
    assert question == '25.0%<span class="ci">4.6–69.9%</span>'
    assert "Wilson" in html and "1.96 standard errors" in html
    # The chart draws dots with their intervals (error bars), not bars from zero.
    figure = re.search(r'id="communication-chart".*?</svg>', html, re.S).group(0)
    assert 'class="mark-symbol role-mark"' in figure and 'class="mark-rule role-mark"' in figure
    assert 'class="mark-rect role-mark"' not in figure


def test_a_model_page_shows_its_interval_beside_the_references(site):
    html = (site / "models" / "m1.html").read_text("utf-8")
    assert [re.sub(r"<[^>]+>", "", cell) for cell in
            row_cells(html, "model-communication", "Responses")] == ["4", "2"]
    mine, reference = row_cells(html, "model-communication", "Words")
    assert mine == '20<span class="ci">12–28</span>'
    assert reference == '8<span class="ci">8–8</span>'  # 8 and 8: no spread at all
    mine, reference = row_cells(html, "model-communication", "Ends with a question")
    # R: 1 of 2, Wilson by hand: centre (0.5 + z^2/4) / (1 + z^2/2) = 0.5, half-width
    # z / 2.920729 * sqrt(0.125 + z^2 / 16) = 0.671053 * 0.604228 = 0.405469:
    # 0.094531 to 0.905469.
    assert (mine, reference) == ('25.0%<span class="ci">4.6–69.9%</span>',
                                 '50.0%<span class="ci">9.5–90.5%</span>')


def test_the_chart_names_the_models_as_the_table_does(default_site):
    """The chart's labels are the registry's display names, as in the table beside it
    (it showed the raw AlpacaEval ids, "FuseChat-Gemma-2-9B-Instruct")."""
    html = (default_site / "communication.html").read_text("utf-8")
    figure = re.search(r'id="communication-chart".*?</svg>', html, re.S).group(0)
    labels = [re.sub(r"<[^>]+>", "", text) for text in re.findall(r"<text[^>]*>(.*?)</text>",
                                                                  figure, re.S)]
    assert any(label.startswith("FuseChat Gemma 2") for label in labels), labels[:20]
    assert not any(label.startswith("FuseChat-Gemma") for label in labels)
    assert "FuseChat Gemma 2 9B Instruct</a>" in html  # the table's link


def test_the_charts_axis_claims_no_percent_for_counts(default_site):
    """The axis title is shared by every measure of the menu: "%" belongs to the share's
    own name, not to the axis of character counts (0-2,400)."""
    html = (default_site / "communication.html").read_text("utf-8")
    figure = re.search(r'id="communication-chart".*?</svg>', html, re.S).group(0)
    assert "mean per response" in figure and "%" not in re.sub(r"<[^>]+>", "", figure)
    assert '"Ends with a question (% of responses)"' in html  # the menu's choice


def test_a_models_answers_without_text_are_counted_beside_its_means(default_site,
                                                                    shared_data):
    """AlpacaEval's known defect: 22 of gemma-2b-it's outputs are empty (counted here in
    the base data); with the answers that hold only code or web addresses they have no
    body text (counted in the committed metrics with pandas), count as zeros in its
    means, and its row says how many."""
    outputs = json.loads((shared_data / "alpaca_eval" / "model_outputs" / "gemma-2b-it.json"
                          ).read_text("utf-8"))
    assert sum(1 for o in outputs if not o["output"].strip()) == 22
    metrics = pd.read_parquet(REPO / "annotations" / "alpaca_eval" / "communication.parquet")
    without = (metrics[metrics["characters"] == 0].groupby("model").size())
    assert without["gemma-2b-it"] >= 22
    with open(default_site / "data" / "communication.csv", newline="",
              encoding="utf-8") as handle:
        rows = {row["model"]: row for row in csv.DictReader(handle)}
    assert {m: int(r["empty"]) for m, r in rows.items() if int(r["empty"])} == \
        without.to_dict()
    count = int(without["gemma-2b-it"])
    html = (default_site / "communication.html").read_text("utf-8")
    row = re.search(r'<tr[^>]*><th scope="row"[^>]*><a href="models/gemma-2b-it\.html">.*?</tr>',
                    html, re.S).group(0)
    assert f'title="{count} of its 805 responses have no body text' in row
    assert f">{count} without text</span>" in row
