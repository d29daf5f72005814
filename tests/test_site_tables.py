"""The site's tables show the numbers computed by hand for the tiny fixture
(see tests/site_fixture.py for the table of votes)."""

from __future__ import annotations

import csv
import re

import pytest
from site_fixture import CONCISE, VERBOSE

V, C = VERBOSE["trait_id"], CONCISE["trait_id"]


@pytest.fixture(scope="module")
def site(tiny_site):
    """The session's tiny site (read only)."""
    return tiny_site


def rows(site, name: str) -> list[dict]:
    with open(site / "data" / f"{name}.csv", newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def by(rows_: list[dict], *keys: str) -> dict:
    return {tuple(row[k] for k in keys): row for row in rows_}


def test_model_leaderboard_by_hand(site):
    cells = by(rows(site, "model-traits"), "model", "trait_id")
    # m1 vs R: c1 V=A (m1's side), c2 V=B (m1's side), c3 V=B (R's side).
    m1v = cells[("m1", V)]
    assert (m1v["agreed"], m1v["disagreed"], m1v["num_votes"]) == ("2", "1", "3")
    assert float(m1v["strength"]) == pytest.approx(1 / 3)
    assert float(m1v["relevance"]) == pytest.approx(1.0)
    assert m1v["finding"] == "True"  # 3 valid votes, threshold 3
    # m1 C: c1 B (R's side), c2 neither, c3 A (m1's side).
    m1c = cells[("m1", C)]
    assert float(m1c["strength"]) == pytest.approx(0.0)
    assert float(m1c["relevance"]) == pytest.approx(2 / 3)
    assert m1c["finding"] == "False"  # 2 valid votes
    # m2 vs R: c4 (m2 = A) V=B, C=A; c5 (m2 = B) V=A, C=B.
    assert float(cells[("m2", V)]["strength"]) == pytest.approx(-1.0)
    assert float(cells[("m2", C)]["strength"]) == pytest.approx(1.0)
    models = by(rows(site, "models"), "model")
    assert (models[("m1",)]["comparisons"], models[("m1",)]["all_comparisons"]) == ("3", "4")
    assert (models[("m2",)]["comparisons"], models[("m2",)]["all_comparisons"]) == ("2", "3")
    assert ("R",) not in models  # the reference has no row of its own


def test_leaderboard_html_cells(site):
    html = (site / "index.html").read_text("utf-8")
    row = re.search(r'<a href="models/m1.html">m1</a></th>(.*?)</tr>', html, re.S).group(1)
    cells = re.findall(r'<td([^>]*)>([^<]*)(?:<span class="ci">([^<]*)</span>)?</td>', row)
    # Organisation, weights, release date come last: the tiny site has no registry, so
    # they are unknown.
    assert [text for _, text, _ in cells[-3:]] == ["–", "–", "–"]
    assert cells[0][1] == "3"  # comparisons
    shown = {text.strip(): (attrs, interval) for attrs, text, interval in cells[1:-3]}
    found = by(rows(site, "model-traits"), "model", "trait_id")
    attrs, interval = shown["+0.33"]
    assert 'class="hp3"' in attrs  # a finding, coloured (0.3 <= 0.33 < 0.5)
    # The interval is in the cell's text (not only on hover), as the CSV has it.
    low, high = float(found[("m1", V)]["strength_low"]), float(found[("m1", V)]["strength_high"])
    assert interval == f"{low:+.2f} to {high:+.2f}"
    assert "title" not in attrs
    attrs, _ = shown["+0.00"]
    assert 'class="nf"' in attrs and "only 2 valid votes" in attrs
    # Three valid votes cannot tell m1 apart from the reference: no rank anywhere.
    assert 'class="rank"' not in row


def test_home_says_which_traits_show_no_signal(site):
    html = (site / "index.html").read_text("utf-8")
    card = re.search(r'<article class="glance no-signal">(.*?)</article>', html, re.S).group(1)
    # Only m1's "verbose" is a finding (3 valid votes, threshold 3), and its interval
    # (checked above) reaches below -0.05 and above +0.05; "concise" has no finding at
    # all: no trait shows a signal.
    assert "is more verbose" in card and "is more concise" in card and "No signal" in card
    assert not re.search(r'<article class="glance"[ >]', html.split('id="text-glances"')[1]
                         .split("</div>")[0])
    assert "rules judge" in html or "rule-based judge" in html


def test_dataset_result_a_by_hand(site):
    cells = by(rows(site, "datasets/d/traits"), "trait_id")
    # pj: the tie on c3 drops out, N = 5; V agrees on all five; C disagrees on c1, c4,
    # c5, c6 and is "neither" on c2.
    assert float(cells[(V,)]["strength"]) == pytest.approx(1.0)
    assert float(cells[(C,)]["strength"]) == pytest.approx(-0.8)
    assert float(cells[(C,)]["relevance"]) == pytest.approx(0.8)
    assert cells[(C,)]["judge"] == "pj"


def test_split_by_metadata_sorted_by_max_diff(site):
    table = rows(site, "datasets/d/by-topic")
    cells = by(table, "value", "trait_id")
    # topic x: c1, c2, c4 (c3 is a tie); topic y: c5, c6.
    assert float(cells[("x", C)]["strength"]) == pytest.approx(-2 / 3)
    assert float(cells[("y", C)]["strength"]) == pytest.approx(-1.0)
    assert float(cells[("x", V)]["strength"]) == pytest.approx(1.0)
    assert float(cells[("y", V)]["strength"]) == pytest.approx(1.0)
    assert float(cells[("x", C)]["max_diff"]) == pytest.approx(1 / 3)
    assert [row["trait_id"] for row in table] == [C, C, V, V]  # largest max diff first


def test_annotator_groups(site):
    cells = by(rows(site, "datasets/d/annotators"), "annotator", "trait_id")
    # pj2 voted B, B, -, A, A, B on c1..c6.
    assert float(cells[("pj2", V)]["strength"]) == pytest.approx(-0.2)
    assert float(cells[("pj2", C)]["strength"]) == pytest.approx(0.4)
    assert float(cells[("pj", V)]["strength"]) == pytest.approx(1.0)


def test_win_rates_count_a_tie_as_half(site):
    table = rows(site, "datasets/d/win-rates")
    assert list(table[0])[:2] == ["model", "win_rate"]
    rates = {row["model"]: float(row["win_rate"]) for row in table}
    assert rates == pytest.approx({"m1": 100 * 2.5 / 3, "m2": 0.0})
    html = (site / "datasets" / "d.html").read_text("utf-8")
    assert "83.3%" in html
    # Wilson's 95% interval, worked by hand: m1 2.5 of 3, centre (5/6 + z²/6) / (1 + z²/3)
    # = 0.6461, half-width z / (1 + z²/3) * sqrt(5/108 + z²/36) = 0.3362; m2 0 of 2:
    # 0 to 2 * (z²/4) / (1 + z²/2) = 0.6576 (z = 1.96).
    bounds = {row["model"]: (float(row["win_rate_low"]), float(row["win_rate_high"]))
              for row in table}
    assert bounds["m1"] == pytest.approx((31.00, 98.23), abs=0.01)
    assert bounds["m2"] == pytest.approx((0.0, 65.76), abs=0.01)
    assert '<span class="ci">31.0–98.2%</span>' in html  # in view, not on hover
    assert 'id="win-rates-absent"' not in html  # the annotator rated both models


def test_trait_agreement_by_hand(site):
    (pair,) = rows(site, "trait-agreement")
    # Both relevant on c1, c3, c4, c5, c6 (always opposite sides); V alone on c2.
    # V says A on 3 of 5, C on 2 of 5: expected agreement 12/25, observed 0.
    assert float(pair["cohens_kappa"]) == pytest.approx(-12 / 13)
    assert float(pair["overlap"]) == pytest.approx(5 / 6)
    assert (pair["both_relevant"], pair["either_relevant"]) == ("5", "6")


def test_json_matches_csv(site):
    import json

    records = json.loads((site / "data" / "model-traits.json").read_text("utf-8"))
    assert len(records) == len(rows(site, "model-traits")) == 4
    first = records[0]
    assert first["model"] == "m1" and isinstance(first["strength"], float)


def test_every_cell_carries_its_interval(site):
    for row in rows(site, "model-traits") + rows(site, "datasets/d/by-topic"):
        for metric in ("strength", "relevance", "cohens_kappa"):
            low, value, high = (float(row[f"{metric}{end}"]) for end in ("_low", "", "_high"))
            assert low <= value <= high
    html = (site / "index.html").read_text("utf-8")
    assert "95% interval" in html


def test_ffsite_metrics_reports_the_intervals_the_site_shows(site):
    """The same table (Result A per dataset) gets the same 95% interval, same seed."""
    import io

    import pandas as pd
    from click.testing import CliRunner

    from ffsite.cli import cli

    result = CliRunner().invoke(cli, ["metrics", str(site.parent / "annotations"),
                                      "--split-by", "dataset", "--format", "csv"])
    assert result.exit_code == 0, result.output
    printed = pd.read_csv(io.StringIO(result.output)).set_index(["split", "trait_id"])
    for row in rows(site, "dataset-traits"):
        cli_row = printed.loc[(row["dataset"], row["trait_id"])]
        assert float(row["strength"]) == cli_row["strength"]
        assert (float(row["strength_low"]), float(row["strength_high"])) == (
            cli_row["ci_low"], cli_row["ci_high"])
