"""The explorer page's JSON (docs/site-data.md): its shape, numbers checked by hand on the
tiny site (site_fixture.py), sizes and agreement with the published model table on the
default site, and byte-identical rebuilds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from site_fixture import CONCISE, VERBOSE, build_tiny

from ffsite.site.explore_data import (
    CAP,
    CAP_WITHOUT_MODELS,
    TEXT_BUDGET,
    TEXT_LIMIT,
    triple_metric,
)

INDEX_BLOCK = re.compile(r'<script type="application/json" id="explore-index">(.*?)</script>',
                         re.S)


def explore_index(site: Path) -> dict:
    html = (site / "explore.html").read_text("utf-8")
    return json.loads(INDEX_BLOCK.search(html).group(1))


def load(site: Path, path: str) -> dict:
    return json.loads((site / path).read_text("utf-8"))


def pair_points(site: Path, dataset: dict, k: int) -> dict:
    """Pair k's datapoints: in the file its dataset's counts name (`f`)."""
    counts = load(site, dataset["counts"])
    found = load(site, f"{dataset['points']}{counts['f'][k]}.json")["pairs"]
    [document] = [d for d in found if d["k"] == k]
    return document


def test_index_names_models_traits_annotators_and_files(tiny_site):
    index = explore_index(tiny_site)
    assert index["models"] == ["R", "m1", "m2"]
    assert index["reference"] == "R" and index["judges"] == ["j"]
    assert {t[0] for t in index["traits"]} == {VERBOSE["trait_id"], CONCISE["trait_id"]}
    assert all(t[3].startswith("traits/") for t in index["traits"])
    # two traits of judge j and the preference annotators pj, pj2
    assert sorted((a[0], a[1]) for a in index["annotators"]) == [
        ("p", "pj"), ("p", "pj2"), ("t", "j"), ("t", "j")]
    [dataset] = index["datasets"]
    assert dataset["name"] == "d" and dataset["splits"] == ["topic"]
    assert dataset["preference"] == "pj" and dataset["comparisons"] == 6
    assert dataset["preferences"] == ["pj", "pj2"]
    assert (tiny_site / dataset["counts"]).is_file()


def test_counts_by_hand(tiny_site):
    index = explore_index(tiny_site)
    counts = load(tiny_site, index["datasets"][0]["counts"])
    traits = [index["traits"][t][0] for t in counts["t"]]
    v, c = traits.index(VERBOSE["trait_id"]), traits.index(CONCISE["trait_id"])
    # pairs (R, m1): c1-c3, (R, m2): c4-c5, (m1, m2): c6
    assert counts["p"] == [[0, 1, 3], [0, 2, 2], [1, 2, 1]]
    assert counts["s"] == [["", ["all"]], ["topic", ["x", "y"]]]
    # "all" is left to the browser (the sum of topic's values)
    assert counts["pc"][0] is None and counts["rc"][0][0] is None
    x, y = ({row[0]: row[1:] for row in rows} for rows in counts["pc"][1])
    # (R, m1) is all topic x: verbose c1 A = m1, c2 B = m1, c3 B = R -> R 1, m1 2 of 3
    assert x[0][3 * v:3 * v + 3] == [1, 2, 3]
    # (R, m2): c4 (x) verbose B = R; c5 (y) verbose A = R
    assert x[1][3 * v:3 * v + 3] == [1, 0, 1] and y[1][3 * v:3 * v + 3] == [1, 0, 1]
    # (m1, m2) only in topic y: c6 concise B = m2
    assert 2 not in x and y[2][3 * c:3 * c + 3] == [0, 1, 1]
    # Against pj (A B tie B A A): verbose agrees on c1, c2, c4 (x; c3's tie counts for
    # no side) and c5, c6 (y); concise (B neither A A B B) disagrees on c1, c4, c5, c6.
    rc_x, rc_y = counts["rc"][0][1]  # pj, the default, comes first
    assert rc_x[3 * v:3 * v + 3] == [3, 0, 3] and rc_y[3 * v:3 * v + 3] == [2, 0, 2]
    assert rc_x[3 * c:3 * c + 3] == [0, 2, 3] and rc_y[3 * c:3 * c + 3] == [0, 2, 2]
    # Against pj2 (B B - A A B): verbose (A B B B A A) agrees on c2 (x) and c5 (y),
    # disagrees on c1, c4 (x) and c6 (y); c3 has no pj2 vote.
    rc2_x, rc2_y = counts["rc"][1][1]
    assert rc2_x[3 * v:3 * v + 3] == [1, 2, 3] and rc2_y[3 * v:3 * v + 3] == [1, 1, 2]


def test_datapoints_carry_votes_and_texts(tiny_site):
    index = explore_index(tiny_site)
    dataset = index["datasets"][0]
    first = pair_points(tiny_site, dataset, 0)
    assert first["pair"] == [0, 1] and first["total"] == 3
    assert sorted(p["id"] for p in first["c"]) == ["c1", "c2", "c3"]
    by_id = {p["id"]: p for p in first["c"]}
    c3 = by_id["c3"]
    assert (c3["a"], c3["b"], c3["m"]) == (1, 0, ["x"])
    assert c3["pref"] == 0  # a tie picks no side
    assert c3["texts"] == ["Prompt of c3?", "**m1** answers c3 " + "at length " * 3,
                           "R answers c3."]
    # every annotator's vote, in the index's annotator order: pj says tie, pj2 nothing
    votes = {tuple(a[:2]) + (a[2],): v for a, v in zip(index["annotators"], c3["v"],
                                                       strict=True)}
    assert votes[("p", "pj", -1)] == 3 and votes[("p", "pj2", -1)] == 0
    traits = [t[0] for t in index["traits"]]
    assert c3["tv"][traits.index(VERBOSE["trait_id"])] == "2"  # B
    assert c3["tv"][traits.index(CONCISE["trait_id"])] == "1"  # A


def test_judge_bias_by_hand(tiny_site):
    rows = load(tiny_site, "data/judge-bias.json")
    by_judge = {(r["judge"], r["role"]): r for r in rows}
    # j's trait votes: verbose A B B B A A, concise B neither A A B B: 11 A/B votes, 5 A
    # (A is shown first); the tiny set's response metrics have no characters: no lengths
    j = by_judge[("j", "traits")]
    assert (j["decided"], j["first"], j["with_length"]) == (11, 5, 0)
    assert j["first_share"] == pytest.approx(5 / 11) and j["longer_share"] is None
    assert j["first_low"] < 5 / 11 < j["first_high"]
    # pj: A B tie B A A -> 5 decided, 3 A; pj2: B B - A A B -> 5 decided, 2 A
    assert (by_judge[("pj", "preference")]["decided"], by_judge[("pj", "preference")][
        "first"]) == (5, 3)
    assert (by_judge[("pj2", "preference")]["decided"], by_judge[("pj2", "preference")][
        "first"]) == (5, 2)


def test_page_reads_without_script(tiny_site):
    html = (tiny_site / "explore.html").read_text("utf-8")
    assert "<noscript>" in html
    assert 'id="explore-table"' in html and 'id="overview"' in html
    assert "<script>" not in html  # only src= scripts and JSON blocks
    # The side biases moved to the Judges page, which needs no script either.
    judges = (tiny_site / "judges.html").read_text("utf-8")
    assert 'id="bias"' in judges and 'href="judges.html"' in html


def test_without_texts_the_page_says_why(tmp_path):
    site = build_tiny(tmp_path, texts=False)
    index = explore_index(site)
    note = index["datasets"][0]["textNote"]
    assert "base dataset is not part of this build" in note
    assert note in (site / "explore.html").read_text("utf-8")
    point = pair_points(site, index["datasets"][0], 0)["c"][0]
    assert "texts" not in point and point["v"]


def test_explore_files_rebuild_byte_identical(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    one, two = build_tiny(tmp_path / "one"), build_tiny(tmp_path / "two")
    files = sorted(p.relative_to(one) for p in (one / "data" / "explore").iterdir())
    assert files and files == sorted(p.relative_to(two) for p in
                                     (two / "data" / "explore").iterdir())
    for name in [*files, Path("explore.html"), Path("data/judge-bias.json")]:
        assert (one / name).read_bytes() == (two / name).read_bytes(), name


# ---------------------------------------------------------------- the default site

def test_default_counts_agree_with_the_published_model_table(default_site):
    """Strength from the explorer's triples, against the reference model, equals what
    the model tables publish (computed by results.model_results, another path)."""
    index = explore_index(default_site)
    published = {(r["model"], r["trait_id"]): r["strength"]
                 for r in load(default_site, "data/model-traits.json")}
    reference = index["models"].index(index["reference"])
    checked = 0
    for dataset in index["datasets"]:
        counts = load(default_site, dataset["counts"])
        rows = counts["pc"][0][0] if counts["pc"][0] is not None else None
        if rows is None:  # the sum of the first split's values
            summed: dict[int, list[int]] = {}
            for value_rows in counts["pc"][1]:
                for row in value_rows:
                    old = summed.get(row[0], [0] * (len(row) - 1))
                    summed[row[0]] = [a + b for a, b in zip(old, row[1:], strict=True)]
            rows = [[k, *v] for k, v in summed.items()]
        for row in rows:
            a, b, _ = counts["p"][row[0]]
            if reference not in (a, b):
                continue
            target = b if a == reference else a
            for position, trait in enumerate(counts["t"]):
                triple = row[1 + 3 * position:4 + 3 * position]
                if a == reference:  # the target is the second model: its side "disagreed"
                    triple = [triple[1], triple[0], triple[2]]
                key = (index["models"][target], index["traits"][trait][0])
                if key in published and published[key] is not None:
                    value = float(triple_metric(np.array(triple), "strength"))
                    assert value == pytest.approx(published[key], abs=1e-9), key
                    checked += 1
    assert checked >= 600  # 66 models x 10 traits of AlpacaEval


def test_default_explore_files_stay_small(default_site):
    folder = default_site / "data" / "explore"
    sizes = {p.name: p.stat().st_size for p in folder.iterdir()}
    assert max(size for name, size in sizes.items() if "-counts" not in name) < 120_000
    assert max(size for name, size in sizes.items() if "-counts" in name) < 600_000
    assert sum(sizes.values()) < 9_000_000, sum(sizes.values())
    assert len(sizes) < 400  # pairs bundled: a few hundred files, not thousands
    assert (default_site / "explore.html").stat().st_size < 300_000
    index = explore_index(default_site)
    for dataset in index["datasets"]:
        for path in sorted(folder.glob(Path(dataset["points"]).name + "*.json"))[:50]:
            for document in json.loads(path.read_text("utf-8"))["pairs"]:
                assert len(document["c"]) <= CAP_WITHOUT_MODELS
                for point in document["c"]:
                    for text in point.get("texts") or []:
                        assert text is None or len(text) <= TEXT_LIMIT + 2
    # the cap per pair holds
    chunk = pair_points(default_site, index["datasets"][0], 0)
    assert 0 < len(chunk["c"]) <= CAP
    assert TEXT_BUDGET <= 2_000_000
    # the largest pairs get texts first: every pair with the reference model has them
    counts = load(default_site, index["datasets"][0]["counts"])
    reference = index["models"].index(index["reference"])
    for k, (a, b, _) in enumerate(counts["p"]):
        if reference in (a, b):
            chunk = pair_points(default_site, index["datasets"][0], k)
            assert all(point.get("texts") for point in chunk["c"]), k


def test_default_eqbench_points_carry_the_judges_reasoning(default_site):
    index = explore_index(default_site)
    [eq] = [d for d in index["datasets"] if d["name"] == "eqbench3"]
    counts = load(default_site, eq["counts"])
    largest = max(range(len(counts["p"])), key=lambda k: counts["p"][k][2])
    chunk = pair_points(default_site, eq, largest)
    assert any(point.get("why") and point["why"][0] for point in chunk["c"])
    assert "transcripts are not public" in eq["textNote"]
