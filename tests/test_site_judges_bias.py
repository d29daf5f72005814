"""The Judges page's position and length figures, and what it says of a single judge:
checked against the raw data in ../shared/data (counted here, not by ffsite), and by hand
on small frames.

- HH-RLHF and AlpacaEval do not record which answer their judge saw first (ffsite's sides
  are its own coin flip at import): no position figure, and the page says so.
- EQ-Bench 3 records the order of every verdict: its position figure stays, and its length
  figure comes from the per-model average lengths each verdict carries.
- poem-eval has one judge: no correlation or agreement between judges is published.
"""

from __future__ import annotations

import gzip
import json
import math
import re

import pandas as pd
import pytest

from ffsite.datasets.eqbench3.reader import COMPARISONS_FILE, longer_sides_in
from ffsite.format import schema
from ffsite.metrics.bias import side_bias

Z = 1.959963984540054  # the standard normal's 97.5% quantile


def wilson(k: int, n: int) -> tuple[float, float]:
    """The Wilson score interval, written out here from its textbook formula."""
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return centre - half, centre + half


def bias(site) -> dict[tuple[str, str], dict]:
    rows = json.loads((site / "data" / "judge-bias.json").read_text("utf-8"))
    return {(r["judge"], r["role"]): r for r in rows}


def bias_table_html(site) -> str:
    html = (site / "judges.html").read_text("utf-8")
    return html[html.index('id="judge-bias"'):html.index("</table>", html.index('id="bias"'))]


def row_of(html: str, judge: str) -> str:
    row = html[html.index(f'<th scope="row">{judge}</th>'):]
    return row[:row.index("</tr>")]


def eqbench3_verdicts(shared_data) -> list[dict]:
    """Per valid verdict of the raw file, one vote per criterion: whether it went to the
    side shown first and whether to the side with the longer average response."""
    path = shared_data / "eqbench3" / "pairwise_comparisons.json.gz"
    entries = json.loads(gzip.decompress(path.read_bytes()))["__metadata__"][
        "global_pairwise_comparisons"]
    votes = []
    for entry in entries:
        if "error" in entry:
            continue
        first_code, first_role, _, _ = re.fullmatch(
            r"(A\d+):(test|other) / (A\d+):(test|other)", entry["order"]).groups()
        test_longer = (entry["test_model_avg_response_length"]
                       > entry["neighbor_model_avg_response_length"])
        assert (entry["test_model_avg_response_length"]
                != entry["neighbor_model_avg_response_length"])  # no equal pair here
        for criterion, verdict in entry["judge_response"].items():
            if criterion == "chain_of_thought_reasoning":
                continue
            code = re.match(r"A\d+", verdict).group()
            for_test = (code == first_code) == (first_role == "test")
            votes.append({"first": code == first_code, "longer": for_test == test_longer})
    return votes


# ------------------------------------------------------------------ the default site

def test_no_position_figure_where_the_data_do_not_record_the_order(default_site,
                                                                   shared_data):
    rows = bias(default_site)
    hh = rows[("hh_rlhf_crowdworkers", "preference")]
    with gzip.open(shared_data / "hh_rlhf" / "harmless-base-test.jsonl.gz", "rt") as lines:
        pairs = [json.loads(line) for line in lines]
    # The raw lines are {chosen, rejected}: no order, one crowdworker vote each.
    assert {tuple(sorted(p)) for p in pairs} == {("chosen", "rejected")}
    assert hh["decided"] == len(pairs) == 2312
    annotations = [a for path in (shared_data / "alpaca_eval" / "judge_annotations").glob(
        "*.json") for a in json.loads(path.read_text("utf-8"))]
    # AlpacaEval's annotations name the reference as generator_1 every time, and no field
    # says which output the judge was shown first.
    assert {a["generator_1"] for a in annotations} == {"gpt4_1106_preview"}
    assert set().union(*(a.keys() for a in annotations)) == {
        "instruction", "dataset", "generator_1", "generator_2", "preference", "annotator"}
    for key in (("hh_rlhf_crowdworkers", "preference"),
                ("weighted_alpaca_eval_gpt4_turbo", "preference")):
        row = rows[key]
        assert row["first_share"] is None and row["first_low"] is None
        assert row["with_order"] == 0 and row["order_note"] == "order not in the data"
    html = bias_table_html(default_site)
    for judge in ("hh_rlhf_crowdworkers", "weighted_alpaca_eval_gpt4_turbo"):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row_of(html, judge))
        # Votes on, A/B votes, picks first shown, votes with lengths, picks longer.
        assert cells[2] == "order not in the data"
    # The shares the old page gave as position bias (A's share of a coin flip's sides).
    assert "48.0%" not in row_of(html, "hh_rlhf_crowdworkers")
    assert "50.3%" not in row_of(html, "weighted_alpaca_eval_gpt4_turbo")
    assert "the order the judge saw is not in the data" in html


def test_eqbench3_keeps_its_position_figure_from_the_recorded_order(default_site,
                                                                    shared_data):
    votes = eqbench3_verdicts(shared_data)
    n, first = len(votes), sum(v["first"] for v in votes)
    assert (n, first) == (50896, 27401)  # counted from the raw file
    row = bias(default_site)[("claude-3.7-sonnet", "traits")]
    assert (row["decided"], row["with_order"], row["first"]) == (n, n, first)
    assert row["first_share"] == pytest.approx(first / n)
    assert (row["first_low"], row["first_high"]) == pytest.approx(wilson(first, n))
    assert row["order_note"] == ""
    assert "53.8%" in row_of(bias_table_html(default_site), "claude-3.7-sonnet")


def test_eqbench3_length_figure_from_the_per_model_average_lengths(default_site,
                                                                   shared_data):
    votes = eqbench3_verdicts(shared_data)
    n, longer = len(votes), sum(v["longer"] for v in votes)
    assert (n, longer) == (50896, 26917)  # counted from the raw file: 52.9%
    row = bias(default_site)[("claude-3.7-sonnet", "traits")]
    assert (row["with_length"], row["longer"]) == (n, longer)
    assert row["longer_share"] == pytest.approx(longer / n)
    assert (row["longer_low"], row["longer_high"]) == pytest.approx(wilson(longer, n))
    assert row["length_note"] == "per-model average lengths of the scenario"
    html = bias_table_html(default_site)
    cell = row_of(html, "claude-3.7-sonnet")
    assert "52.9%" in cell and "52.5% to 53.3%" in cell
    assert "per-model average lengths of the scenario" in cell
    assert "so its judge has no length figure" not in html
    assert "not for the longer transcript the judge read" in html
    # The other judges' length figures are the answers' own characters, unchanged.
    assert bias(default_site)[("hh_rlhf_crowdworkers", "preference")]["length_note"] == ""


def test_a_single_judge_has_no_agreement_table(default_site):
    judges = default_site / "data" / "judges"
    for name in ("poem-eval-correlations", "poem-eval-agreement"):
        assert not (judges / f"{name}.csv").exists()
        assert not (judges / f"{name}.json").exists()
    downloads = (default_site / "downloads.html").read_text("utf-8")
    assert "poem-eval: Pearson and Spearman correlations" not in downloads
    assert "poem-eval: agreement" not in downloads
    html = (default_site / "judges.html").read_text("utf-8")
    section = html[html.index('<section id="poem-eval"'):]
    section = section[:section.index("</section>")]
    assert "a single judge has no agreement to measure" in section
    assert 'id="judge-correlations"' not in section and 'id="agreement"' not in section
    assert "Krippendorff" not in section and "Cronbach" not in section
    # What one judge does have: its test-retest over the models' answers.
    reliability = pd.DataFrame(json.loads((judges / "poem-eval-reliability.json").read_text()))
    assert set(reliability["statistic"]) == {"test_retest", "test_retest_spearman_brown"}
    assert reliability["trait_id"].nunique() == 6 and 'id="reliability"' in section
    # The panel of nine keeps its agreement and correlations.
    assert (judges / "llm-dreams-correlations.json").is_file()
    assert (judges / "llm-dreams-agreement.json").is_file()
    assert "llm-dreams: Pearson and Spearman correlations between judges" in downloads


# ------------------------------------------------------------------ by hand

def test_votes_of_unknown_order_leave_the_position_counts():
    # Judge 0: four decided votes (A, A, B, B), the first two of unknown order (first
    # side 0), the third with B shown first, the fourth with A: 2 with an order, 1 of them
    # (the third) for the side shown first.  Judge 1: two votes, both of unknown order.
    judge = [0, 0, 0, 0, 1, 1]
    vote = [schema.A, schema.A, schema.B, schema.B, schema.A, schema.TIE]
    first = [0, 0, 2, 1, 0, 0]
    table = side_bias(judge, vote, first, [0] * 6, ["j0", "j1"]).set_index("judge")
    assert (table.loc["j0", "decided"], table.loc["j0", "with_order"],
            table.loc["j0", "first"]) == (4, 2, 1)
    assert table.loc["j0", "first_share"] == pytest.approx(0.5)
    assert (table.loc["j0", "first_low"], table.loc["j0", "first_high"]
            ) == pytest.approx(wilson(1, 2))
    assert (table.loc["j1", "decided"], table.loc["j1", "with_order"]) == (1, 0)
    assert math.isnan(table.loc["j1", "first_share"]) and math.isnan(table.loc["j1",
                                                                              "first_low"])


def test_eqbench3_longer_side_per_comparison(tmp_path):
    def entry(test, other, a, b, order="A1:test / A2:other"):
        return {"scenario_id": "7", "order": order, "judge_response": {},
                "pair": {"test_model": test, "neighbor_model": other,
                         "iteration_index": "1"},
                "test_model_avg_response_length": a,
                "neighbor_model_avg_response_length": b}

    entries = [entry("m1", "m2", 900.0, 400.0), entry("m1", "m2", 900.0, 400.0,
                                                       "A2:other / A1:test"),
               entry("m3", "m1", 300.0, 800.0), entry("m2", "m3", 500.0, 500.0),
               entry("m3", "m2", None, 500.0),
               {"scenario_id": "7", "order": "forward", "error": "judge failed",
                "pair": {"test_model": "m4", "neighbor_model": "m1",
                         "iteration_index": "1"}}]
    assert longer_sides_in(tmp_path) == {}  # no verdicts file: nothing known
    (tmp_path / COMPARISONS_FILE).write_bytes(gzip.compress(json.dumps(
        {"__metadata__": {"global_pairwise_comparisons": entries}}).encode()))
    # Side A is the test model: 1 where its average is the longer, 2 where the
    # neighbour's is, 0 where equal or unknown; an entry with an error has no verdict.
    assert longer_sides_in(tmp_path) == {
        "7:m1:m2:1": 1, "7:m3:m1:1": 2, "7:m2:m3:1": 0, "7:m3:m2:1": 0}


def test_a_site_of_scores_alone_has_no_side_biases(tmp_path):
    """poem-eval's published scores alone (one judge scoring answers, no pair voted on):
    the site builds, the Judges page says there are no side biases, and the table is
    published empty (the build ended in pandas' string methods on the empty column)."""
    from site_fixture import REPO, write_content

    from ffsite.site.build import build_site

    content = write_content(tmp_path / "content")
    (content / "site.toml").write_text('title = "Scores alone"\n', "utf-8")  # no reference
    site = tmp_path / "site"
    build_site(REPO / "annotations" / "poem_eval", site, content=content,
               templates=REPO / "templates")
    assert json.loads((site / "data" / "judge-bias.json").read_text("utf-8")) == []
    html = (site / "judges.html").read_text("utf-8")
    assert "No judge of these annotations votes on pairs" in html
    assert '<table class="data sortable" id="bias">' not in html
