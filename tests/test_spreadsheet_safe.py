"""No CSV that ffsite writes (site downloads, `--format csv`) has a cell or a header a
spreadsheet would run as a formula; numbers, negative ones too, stay numbers."""

from __future__ import annotations

import csv
import io
import sys

import pandas as pd
from helpers import write_test_votes

from ffsite._spreadsheet import spreadsheet_safe
from ffsite.cli import main

FORMULAS = ["=1+1", "+cmd", "-2+3", "@SUM(A1)", "\tx"]  # (a "\r" is refused earlier)


def test_cells_and_headers_are_defused_and_numbers_kept():
    frame = pd.DataFrame({"=HYPERLINK(1)": ["=1+1", "plain", None], "score": [-1.5, 2.0, 0.0],
                          "@name": ["-x", "a-b", "+"]})
    safe = spreadsheet_safe(frame)
    assert list(safe.columns) == ["'=HYPERLINK(1)", "score", "'@name"]
    assert safe.iloc[:2, 0].tolist() == ["'=1+1", "plain"] and pd.isna(safe.iloc[2, 0])
    assert safe["score"].tolist() == [-1.5, 2.0, 0.0]
    assert safe.iloc[:, 2].tolist() == ["'-x", "a-b", "'+"]
    assert list(frame.columns) == ["=HYPERLINK(1)", "score", "@name"]  # input unchanged


def test_metrics_csv_defuses_hostile_trait_ids_and_names(tmp_path, monkeypatch, capsys):
    comparisons, votes = [], []
    for n, start in enumerate(FORMULAS):
        trait = {"role": "trait", "trait_id": f"{start}id{n}", "trait": f"{start} wording {n}",
                 "trait_set": "test"}
        for c in range(4):
            cid = f"c{c}"
            if n == 0:
                comparisons.append({"comparison_id": cid, "model_a": "=m", "model_b": "R"})
                votes.append({"comparison_id": cid, "role": "preference", "judge": "@pj",
                              "vote": "AB"[c % 2]})
            votes.append({"comparison_id": cid, **trait, "judge": "=j", "vote": "AB"[c // 2]})
    write_test_votes(tmp_path / "f.parquet", comparisons, votes)
    for args in (["metrics", str(tmp_path), "--format", "csv"],
                 ["metrics", str(tmp_path), "--format", "csv", "--against", "model:=m"]):
        monkeypatch.setattr(sys, "argv", ["ffsite", *args])
        main()
        rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
        assert len(rows) == 1 + len(FORMULAS)
        for row in rows:
            for cell in row:
                if cell.startswith("-"):
                    float(cell)  # a negative number, not a formula
                assert not cell.startswith(("=", "+", "@", "\t", "\r")), cell
        assert "'=1+1id0" in sum(rows, [])
