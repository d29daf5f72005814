"""poem-eval import: a tiny crafted CSV checked by hand, bad rows, then the real data."""

from __future__ import annotations

import csv
import time
from pathlib import Path

import pytest

from ffsite.datasets.poem_eval import reader
from ffsite.datasets.poem_eval.importer import import_poem_eval
from ffsite.errors import FfsiteError

HEADER = ["model_id", "label", "release", "run", "poem", "usage", "timestamp",
          *reader.SCALES, "brief_rationale"]


def make_folder(root: Path, rows: list[list]) -> Path:
    folder = root / "poem_eval"
    folder.mkdir(parents=True)
    with (folder / reader.RESULTS_FILE).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(HEADER)
        writer.writerows(rows)
    return folder


def row(model: str, run: int, scores: list[int], poem: str = "I am, and then\nI am not.",
        rationale: str = "It fades.") -> list:
    return [model, model.upper(), "2025-01", run, poem, "{}", "t", *scores, rationale]


def test_tiny_csv_by_hand(tmp_path):
    folder = make_folder(tmp_path, [row("org/b", 1, [1, 2, 3, 4, 5, 3]),
                                    row("org/a", 0, [5, 5, 5, 5, 5, 5])])
    frame = import_poem_eval(folder).frame
    assert len(frame) == 12
    b = frame[frame["model"] == "org/b"].set_index("trait_id")["score"]
    assert b.to_dict() == {"pe-ephemerality-persistence": 1, "pe-context-weights": 2,
                           "pe-singular-distributed": 3, "pe-passive-agentic": 4,
                           "pe-certainty-uncertainty": 5, "pe-human-alien": 3}
    assert set(frame["judge"]) == {"openai/gpt-5.2"}
    assert frame["response_id"].iloc[0] == "org/a/0"  # sorted by model, then run
    assert import_poem_eval(folder).extra["scores_of_3"] == 2
    _, texts = reader.load_texts(folder)
    assert texts["org/b/1"] == "I am, and then\nI am not."
    assert texts["org/b/1/rationale"] == "It fades."


@pytest.mark.parametrize(("bad", "expected"), [
    (row("org/a", 0, [1, 2, 3, 4, 5, 6]), "row 1: human_alien '6' is not a number from 1 to 5"),
    (row("org/a", 0, [1, 2, 3, 4, 5, "x"]), "row 1: human_alien 'x' is not a number"),
    (row("", 0, [1, 2, 3, 4, 5, 1]), "row 1: model_id is empty"),
    (row("org/a", "first", [1, 2, 3, 4, 5, 1]), "row 1: run 'first' is not a whole number"),
])
def test_a_bad_row_is_one_line_naming_file_and_row(tmp_path, bad, expected):
    folder = make_folder(tmp_path, [bad])
    with pytest.raises(FfsiteError, match=expected) as caught:
        import_poem_eval(folder)
    assert str(folder / reader.RESULTS_FILE) in str(caught.value)


def test_a_poem_twice_is_refused(tmp_path):
    folder = make_folder(tmp_path, [row("org/a", 0, [1] * 6), row("org/a", 0, [2] * 6)])
    with pytest.raises(FfsiteError, match="row 2: model 'org/a' has run 0 twice"):
        import_poem_eval(folder)


def test_real_data(shared_data):
    started = time.perf_counter()
    result = import_poem_eval(shared_data / "poem_eval")
    assert time.perf_counter() - started < 5
    frame = result.frame
    assert frame["model"].nunique() == 23 and frame["response_id"].nunique() == 115
    assert len(frame) == 115 * 6
    with (shared_data / "poem_eval" / reader.RESULTS_FILE).open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    by_hand = sum(float(r["human_alien"]) for r in rows) / len(rows)
    assert frame[frame["trait_id"] == "pe-human-alien"]["score"].mean() == pytest.approx(
        by_hand, abs=1e-12)
