"""`ffsite import likert`: LMLPA ratings from a CSV to a scores file, and its errors."""

from __future__ import annotations

import pytest
from helpers import run_here
from lmlpa_fixture import write_csv

from ffsite import bfi
from ffsite.errors import FfsiteError
from ffsite.format import read_scores
from ffsite.format.read import read_file_metadata
from ffsite.importers.likert import import_likert


def test_import_writes_a_version_3_scores_file_with_the_items_as_columns(tmp_path):
    source = write_csv(tmp_path / "r.csv", [
        ("model-one", "Q1", "4", "rater-a", "0", ""),
        ("model-one", "q6", "2", "rater-a", "0", "reversed"),
        ("model-one", "Q6", "5", "", "", ""),
        ("model-two", "Q44", "1", "rater-a", "3", "normal"),
    ])
    out = tmp_path / "r.parquet"
    result = run_here("import", "likert", str(source), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "wrote" in result.stdout and "4 ratings" in result.stdout

    metadata = read_file_metadata(out)
    assert (metadata["kind"], metadata["format_version"]) == ("scores", "3")
    entries = {(e["judge"], e["trait_id"], e["seed"]): e for e in metadata["score_columns"]}
    assert set(entries) == {("rater-a", "bfi-Q1", 0), ("rater-a", "bfi-Q6-reversed", 0),
                            ("unknown", "bfi-Q6", None), ("rater-a", "bfi-Q44", 3)}
    q1 = entries[("rater-a", "bfi-Q1", 0)]
    assert q1["trait"] == bfi.instrument().item("Q1").text
    assert (q1["trait_set"], q1["scale_min"], q1["scale_max"]) == ("lmlpa-bfi", 1, 5)
    assert entries[("rater-a", "bfi-Q6-reversed", 0)]["trait_set"] == "lmlpa-bfi-reversed"

    scores = read_scores([out])
    long = scores.long().sort_values(["model", "trait_id", "judge"]).reset_index(drop=True)
    assert long["trait_id"].tolist() == ["bfi-Q1", "bfi-Q6", "bfi-Q6-reversed", "bfi-Q44"]
    assert long["score"].tolist() == [4.0, 5.0, 2.0, 1.0]
    assert long["prompt_id"].tolist() == ["Q1", "Q6", "Q6", "Q44"]
    assert long["meta.bfi_trait"].tolist() == ["E", "E", "E", "O"]
    assert long["meta.bfi_key"].tolist() == ["forward", "reverse", "reverse", "forward"]
    # A seed is a run of its own (another answer); no seed is one run.
    assert long["response_id"].tolist() == ["model-one/Q1/seed-0", "model-one/Q6",
                                            "model-one/Q6/seed-0", "model-two/Q44/seed-3"]
    assert long.loc[long["trait_id"] == "bfi-Q1", "response_id"].iat[0] == \
        "model-one/Q1/seed-0"


@pytest.mark.parametrize(("rows", "needles"), [
    ([("m", "Q45", "3")], ["line 2", "column 'item'", "unknown item 'Q45'"]),
    ([("m", "Q1", "3"), ("m", "B7", "3")], ["line 3", "column 'item'", "'B7'"]),
    ([("m", "Q1", "0")], ["line 2", "column 'score'", "'0'", "1 to 5"]),
    ([("m", "Q1", "6")], ["line 2", "column 'score'", "'6'"]),
    ([("m", "Q1", "3"), ("m", "Q2", "2.5")], ["line 3", "column 'score'", "'2.5'"]),
    ([("m", "Q1", "")], ["line 2", "column 'score'"]),
    ([("m", "Q1", "high")], ["line 2", "column 'score'", "'high'"]),
    ([("", "Q1", "3")], ["line 2", "column 'model'", "empty"]),
    ([("m", "Q1", "3", "r", "x")], ["line 2", "column 'seed'", "'x'"]),
    ([("m", "Q1", "3", "r", "-1")], ["line 2", "column 'seed'", "'-1'"]),
    ([("m", "Q1", "3", "r", "", "sideways")], ["line 2", "column 'order'", "'sideways'"]),
    ([("m", "Q1", "3", "r"), ("m", "Q2", "3", "r"), ("m", "q1", "4", "r")],
     ["line 4", "second rating of Q1", "model 'm'", "rater 'r'", "first is on line 2"]),
    ([("m", "Q1", "3", "r", "1"), ("m", "Q1", "4", "r", "1")],
     ["line 3", "second rating", "seed 1"]),
])
def test_bad_rows_fail_with_one_line_naming_row_and_column(tmp_path, rows, needles):
    source = write_csv(tmp_path / "bad.csv", rows)
    with pytest.raises(FfsiteError) as caught:
        import_likert(source)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(source))
    for needle in needles:
        assert needle in message, message


def test_the_same_item_by_two_raters_or_seeds_or_orders_is_fine(tmp_path):
    source = write_csv(tmp_path / "ok.csv", [
        ("m", "Q1", "3", "r1", "", ""), ("m", "Q1", "3", "r2", "", ""),
        ("m", "Q1", "3", "r1", "1", ""), ("m", "Q1", "2", "r1", "", "reversed")])
    assert len(import_likert(source).frame) == 4


@pytest.mark.parametrize(("text", "needle"), [
    ("model,item\nm,Q1\n", "column 'score' is missing"),
    ("item,score\nQ1,3\n", "column 'model' is missing"),
    ("model,item,score,colour\nm,Q1,3,red\n", "column 'colour' is not one"),
    ("model,item,score,score\nm,Q1,3,4\n", "appears twice"),
    ("model,item,score\n", "no ratings"),
    ("", "empty"),
])
def test_bad_files_fail_with_one_line(tmp_path, text, needle):
    source = tmp_path / "bad.csv"
    source.write_text(text)
    result = run_here("import", "likert", str(source), "--out", str(tmp_path / "o.parquet"))
    assert result.returncode == 1
    assert needle in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o.parquet").exists()


def test_missing_file(tmp_path):
    result = run_here("import", "likert", str(tmp_path / "none.csv"), "--out",
                     str(tmp_path / "o.parquet"))
    assert result.returncode == 1 and "no such file" in result.stderr


def test_a_spreadsheets_csv_with_byte_order_mark_and_crlf_reads(tmp_path):
    source = tmp_path / "excel.csv"
    source.write_bytes("\ufeffModel , Item,Score\r\nm,Q1,3\r\nm,Q2,5\r\n".encode())
    frame = import_likert(source).frame
    assert frame["trait_id"].tolist() == ["bfi-Q1", "bfi-Q2"]
    assert frame["score"].tolist() == [3.0, 5.0]
