"""Scores files (format version 3): written, read back, and every rule broken once."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import expect_validate_error, run_here

from ffsite.errors import FfsiteError
from ffsite.format.scores import read_scores, read_scores_file, write_scores


def score_rows(**changes) -> pd.DataFrame:
    """Two models x two prompts, warmth and depth (1-10) by one judge: 8 scores."""
    rows = []
    for model in ("m1", "m2"):
        for prompt in ("p1", "p2"):
            for trait, base in (("warmth", 3.0), ("depth", 7.5)):
                rows.append({"dataset": "d", "response_id": f"{model}/{prompt}",
                             "prompt_id": prompt, "model": model, "condition": "baseline",
                             "meta.suite": "s", "judge": "panel", "trait_id": trait,
                             "trait": trait.title(), "trait_set": "t", "scale_min": 1,
                             "scale_max": 10, "seed": None,
                             "score": base + (model == "m2") + (prompt == "p2") / 2})
    frame = pd.DataFrame(rows)
    for name, value in changes.items():
        frame[name] = value
    return frame


def test_written_scores_read_back_exactly(tmp_path):
    path = tmp_path / "s.parquet"
    assert write_scores(score_rows(), path, judges={"panel": "three judges"}) == 8
    metadata = json.loads(pq.read_schema(path).metadata[b"ffsite"])
    assert metadata["format_version"] == "3" and metadata["kind"] == "scores"
    assert [(e["trait_id"], e["scale_min"], e["scale_max"]) for e in
            metadata["score_columns"]] == [("depth", 1, 10), ("warmth", 1, 10)]
    scores = read_scores([path])
    long = scores.long().sort_values(["response_id", "trait_id"]).reset_index(drop=True)
    expected = score_rows().sort_values(["response_id", "trait_id"]).reset_index(drop=True)
    assert long["score"].tolist() == expected["score"].tolist()
    assert long["model"].tolist() == expected["model"].tolist()
    assert scores.judges == {"panel": "three judges"}
    table = pq.read_table(path)
    assert table.num_rows == 4  # one row per response
    assert table.column("score:1").to_pylist() == [3.0, 3.5, 4.0, 4.5]  # warmth


def test_same_scores_same_bytes(tmp_path):
    write_scores(score_rows(), tmp_path / "a.parquet")
    write_scores(score_rows().iloc[::-1], tmp_path / "b.parquet")
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()


def test_validate_reports_a_scores_file(tmp_path):
    write_scores(score_rows(), tmp_path / "s.parquet")
    result = run_here("validate", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "8 scores on 4 responses, 2 score columns" in result.stdout


@pytest.mark.parametrize(("changes", "needle"), [
    ({"score": 11.0}, "outside the scale 1 to 10"),
    ({"score": np.inf}, "outside the scale"),
    ({"scale_min": 10, "scale_max": 1}, "scale_min < scale_max"),
    ({"judge": ""}, "'judge' must be a non-empty text"),
])
def test_the_writer_refuses_bad_scores(tmp_path, changes, needle):
    with pytest.raises(FfsiteError, match=needle):
        write_scores(score_rows(**changes), tmp_path / "s.parquet")
    assert not (tmp_path / "s.parquet").exists()


def test_the_writer_refuses_a_repeated_score(tmp_path):
    frame = score_rows()
    with pytest.raises(FfsiteError, match="row 8: a second score by judge 'panel'"):
        write_scores(pd.concat([frame, frame.iloc[[0]]], ignore_index=True),
                     tmp_path / "s.parquet")


def test_the_writer_refuses_a_trait_with_two_scales(tmp_path):
    frame = score_rows()
    frame.loc[3, "scale_max"] = 5
    with pytest.raises(FfsiteError, match="row 3: column 'scale_max' differs"):
        write_scores(frame, tmp_path / "s.parquet")


def _broken(tmp_path, change):
    """The good file, rewritten by plain pyarrow after `change(table, metadata)`."""
    good = tmp_path / "good.parquet"
    write_scores(score_rows(), good)
    table = pq.read_table(good)
    metadata = json.loads(table.schema.metadata[b"ffsite"])
    changed = change(table.replace_schema_metadata(None), metadata)
    table = changed if isinstance(changed, pa.Table) else table
    path = tmp_path / "bad.parquet"
    pq.write_table(table.replace_schema_metadata({b"ffsite": json.dumps(metadata)}), path)
    return path


def _set(table: pa.Table, name: str, values) -> pa.Table:
    return table.set_column(table.column_names.index(name), name, pa.array(values))


@pytest.mark.parametrize(("change", "needles"), [
    (lambda t, m: m.update(format_version="2"), ["need format_version 3"]),
    (lambda t, m: m.update(score_columns={"a": 1}),
     ["'score_columns' is a JSON object, not a list"]),
    (lambda t, m: t.drop_columns(["model"]), ["column 'model' missing"]),
    (lambda t, m: t.drop_columns(["score:1"]), ["column 'score:1' missing"]),
    (lambda t, m: m["score_columns"].pop(), ["'score:1' is not described"]),
    (lambda t, m: t.append_column("extra", pa.array(["x"] * 4)), ["unknown column 'extra'"]),
    (lambda t, m: _set(t, "response_id", ["a", "b", None, "d"]),
     ["column 'response_id': row 2 is empty"]),
    (lambda t, m: _set(t, "response_id", ["a", "b", "a", "d"]),
     ["row 2 repeats response 'a'"]),
    (lambda t, m: _set(t, "score:0", [1.0, 2.0, 30.0, 4.0]),
     ["column 'score:0': row 2: score 30.0 is outside the scale 1 to 10"]),
    (lambda t, m: _set(t, "score:0", ["1", "2", "3", "4"]), ["'score:0' is string, not a number"]),
    (lambda t, m: m["score_columns"][1].update(scale_min="low"), ["score_columns entry 1",
                                                                 "scale_min < scale_max"]),
    (lambda t, m: m["score_columns"][1].update(trait_id="depth", judge="other"),
     ["score_columns entry 1", "trait 'depth' has another wording or scale"]),
    (lambda t, m: m["score_columns"][1].update(trait_id="depth", trait="Depth"),
     ["score_columns entry 1", "already described by entry 0"]),
    (lambda t, m: m["score_columns"][0].update(seed=1.5), ["'seed' must be a whole number"]),
])
def test_every_rule_names_file_column_and_row(tmp_path, change, needles):
    path = _broken(tmp_path, change)
    with pytest.raises(FfsiteError) as caught:
        read_scores_file(path)
    message = str(caught.value)
    assert message.startswith(str(path)) and "\n" not in message
    for needle in needles:
        assert needle in message, message


def test_validate_fails_with_one_line(tmp_path):
    path = _broken(tmp_path, lambda t, m: _set(t, "score:0", [1.0, 2.0, 30.0, 4.0]))
    expect_validate_error(path, "bad.parquet", "score:0", "row 2", "outside the scale")


def test_two_files_merge_and_share_responses(tmp_path):
    """A second judge in another file scores the same responses: one response table."""
    write_scores(score_rows(), tmp_path / "a.parquet")
    write_scores(score_rows(judge="other"), tmp_path / "b.parquet")
    scores = read_scores([tmp_path])
    assert len(scores) == 16 and len(scores.responses) == 4 and len(scores.columns) == 4


def test_two_files_may_not_score_one_response_twice(tmp_path):
    write_scores(score_rows(), tmp_path / "a.parquet")
    write_scores(score_rows(), tmp_path / "b.parquet")
    with pytest.raises(FfsiteError, match="two scores by judge 'panel'"):
        read_scores([tmp_path])


def test_two_files_may_not_disagree_about_a_response(tmp_path):
    write_scores(score_rows(), tmp_path / "a.parquet")
    write_scores(score_rows(judge="other", model="m9"), tmp_path / "b.parquet")
    with pytest.raises(FfsiteError, match="has another 'model' in another scores file"):
        read_scores([tmp_path])


def test_two_files_may_not_disagree_about_a_scale(tmp_path):
    write_scores(score_rows(), tmp_path / "a.parquet")
    write_scores(score_rows(judge="other", scale_max=5, score=2.0), tmp_path / "b.parquet")
    with pytest.raises(FfsiteError, match="has another wording or scale"):
        read_scores([tmp_path])


def test_votes_readers_skip_scores_files(tmp_path):
    from helpers import two_comparisons, write_test_votes

    from ffsite.format.read import read_annotations

    write_test_votes(tmp_path / "v.parquet", *two_comparisons())
    write_scores(score_rows(), tmp_path / "s.parquet")
    assert len(read_annotations([tmp_path]).votes) == 4
    assert len(read_scores([tmp_path])) == 8
