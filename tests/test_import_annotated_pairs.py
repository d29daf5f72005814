"""Importing FF AnnotatedPairs JSON (v1 and v2), including the real FF example files."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from ffsite.cli import cli
from ffsite.format.read import read_annotations
from ffsite.metrics.results import metrics_table


@pytest.mark.parametrize("name", ["annotated_pairs.json", "070_annotations_train_ap.json"])
def test_real_ff_example_golden_values(shared_data, tmp_path, name):
    out = tmp_path / "ex.parquet"
    result = CliRunner().invoke(cli, ["import", "annotated-pairs",
                                      str(shared_data / "feedback_forensics_examples" / name),
                                      "--out", str(out), "--base-out", str(tmp_path / "base")])
    assert result.exit_code == 0, result.output
    table = metrics_table(read_annotations([out]))
    assert len(table) == 40
    assert (table["strength"] == 1).sum() == 5
    assert (table["strength"] == -1).sum() == 5
    assert (table["strength"] == 0).sum() == 30
    assert set(table["num_votes"]) == {1}


def _v2(comparisons, annotators=None, **metadata):
    annotators = annotators or {
        "pref": {"name": "preferred_text", "type": "unknown"},
        "t1": {"description": "Select the response that is more verbose", "type": "principle"},
        "np": {"description": "Select the response that is blue",
               "type": "non_preference_principle"},
    }
    return {"metadata": {"version": "2.0", "default_annotator": "pref", **metadata},
            "annotators": annotators, "comparisons": comparisons}


def _import(tmp_path, document, *extra):
    source = tmp_path / "in.json"
    source.write_text(json.dumps(document))
    out = tmp_path / "out.parquet"
    result = CliRunner().invoke(cli, ["import", "annotated-pairs", str(source), "--out",
                                      str(out), *extra])
    return result, out


def test_v2_semantics(tmp_path):
    comparisons = [
        {"id": "x1", "prompt": "p", "response_a": {"text": "a", "model": "m1"},
         "response_b": {"text": "b", "model": "m2"}, "metadata": {"topic": "t"},
         "annotations": {"pref": {"pref": "a"}, "t1": {"pref": "b"},
                         "np": {"pref": None, "no_pref_reason": "non_preference_annotation"}}},
        # metadata model_a/model_b override the responses' models
        {"id": "x2", "response_a": {"text": "a2", "model": "m1"},
         "response_b": {"text": "b2", "model": "m2"},
         "metadata": {"model_a": "m3", "model_b": "m4"},
         "annotations": {"pref": {"pref": None, "no_pref_reason": "both"},
                         "t1": {"pref": None, "no_pref_reason": "invalid"}}},
        {"id": "x1", "response_a": {"text": "dup"}, "response_b": {"text": "dup"},
         "annotations": {"pref": {"pref": "b"}}},  # repeated id: first kept
        {"id": "x3", "response_a": {"text": ""}, "response_b": {"text": "b"},
         "annotations": {"pref": {"pref": "b"}}},  # empty response: skipped
    ]
    result, out = _import(tmp_path, _v2(comparisons), "--dataset", "mine")
    assert result.exit_code == 0, result.output
    assert "1 duplicate" in result.output and "1 empty response" in result.output
    annotations = read_annotations([out])
    comparisons = annotations.comparisons.set_index("comparison_id")
    assert list(comparisons.index) == ["x1", "x2"]
    assert (comparisons.loc["x2", "model_a"], comparisons.loc["x2", "model_b"]) == ("m3", "m4")
    assert comparisons.loc["x1", "meta.topic"] == "t"
    assert set(comparisons["dataset"]) == {"mine"}
    frame = annotations.votes.merge(annotations.annotators, left_on="annotator",
                                    right_index=True)
    assert set(frame["judge"]) == {"pref", "unknown"}  # the non-preference principle is gone
    assert sorted(frame["vote"]) == [1, 2, 3, 5]  # A (pref x1), B (t1 x1), tie, invalid


def test_v1_text_fields_and_votes(tmp_path):
    document = {
        "metadata": {"version": "1.0", "default_annotator": "pref"},
        "annotators": {"pref": {"type": "unknown"},
                       "t1": {"description": "Select the response that is more verbose",
                              "type": "principle"}},
        "comparisons": [{"id": "c", "text_a": "long answer", "text_b": "short",
                         "annotations": {"pref": {"pref": "text_a"}, "t1": {"pref": "text_a"}}}],
    }
    result, out = _import(tmp_path, document)
    assert result.exit_code == 0, result.output
    row = metrics_table(read_annotations([out])).iloc[0]
    assert (row.agreed, row.strength) == (1, 1.0)


def test_default_annotator_fallback_to_preferred_text(tmp_path):
    document = _v2([{"id": "c", "response_a": {"text": "a"}, "response_b": {"text": "b"},
                     "annotations": {"pref": {"pref": "b"}, "t1": {"pref": "b"}}}])
    del document["metadata"]["default_annotator"]
    result, out = _import(tmp_path, document)
    assert result.exit_code == 0, result.output
    assert read_annotations([out]).default_preference == {"in": "pref"}


def test_not_json_is_a_one_line_error(tmp_path):
    source = tmp_path / "bad.json"
    source.write_text("{not json")
    result = CliRunner().invoke(cli, ["import", "annotated-pairs", str(source), "--out",
                                      str(tmp_path / "o.parquet")], standalone_mode=False)
    assert result.exception is not None
    assert "not valid JSON" in str(result.exception)
    assert not (tmp_path / "o.parquet").exists()


def test_a_file_without_usable_comparisons_is_an_error(tmp_path):
    document = _v2([{"id": "x", "response_a": {"text": ""}, "response_b": {"text": "b"},
                     "annotations": {"pref": {"pref": "a"}}}])
    result, out = _import(tmp_path, document)
    assert result.exit_code != 0
    assert "no comparison to import (1 empty response)" in str(result.exception)
    assert not out.exists()


def _both_ways(path):
    from ffsite.importers.annotated_pairs import read_annotated_pairs

    return (read_annotated_pairs(path, columnar=True),
            read_annotated_pairs(path, columnar=False))


@pytest.mark.parametrize("name", ["case_1.json", "case_2.json", "case_3.json"])
def test_columnar_and_struct_readers_agree(name):
    """The Arrow (fast) path and the typed-struct path give the same table, texts and
    counts: v1 and v2 files, ties, invalid and missing votes, empty responses, a repeat."""


    fast, general = _both_ways(Path(__file__).parent / "data" / "ff_parity" / name)
    assert fast.table.to_table().equals(general.table.to_table())
    assert (fast.prompts, fast.responses, fast.skipped) == (
        general.prompts, general.responses, general.skipped)


def test_files_the_columnar_reader_declines_still_import(tmp_path):
    from ffsite.importers._ap_votes import Unsupported
    from ffsite.importers.annotated_pairs import read_annotated_pairs

    comparisons = [
        # a number as a preference where other comparisons have strings: Arrow cannot
        # type that column, typed structs can
        {"id": "c1", "response_a": {"text": "a", "model": "m1"},
         "response_b": {"text": "b", "model": "m2"},
         "metadata": {"score": 0.5, "model_a": None},
         "annotations": {"pref": {"pref": "a"}, "t1": {"pref": 1}}},
        {"id": 2, "response_a": {"text": "a2"}, "response_b": {"text": "b2"},
         "annotations": {"pref": {"pref": "B"}, "t1": {"pref": "maybe"}}},
    ]
    source = tmp_path / "in.json"
    source.write_text(json.dumps(_v2(comparisons)))
    with pytest.raises(Unsupported):
        read_annotated_pairs(source, columnar=True)
    result = read_annotated_pairs(source)  # falls back by itself
    frame = result.table.to_table().to_pandas().astype(object)
    assert set(frame["meta.score"].dropna()) == {"0.5"}
    assert frame.loc[frame["comparison_id"] == "c1", "model_a"].isna().all()  # null wins
    assert set(frame.loc[frame["comparison_id"] == "c1", "model_b"]) == {"m2"}
    assert set(frame["comparison_id"]) == {"c1", "2"}
    notes = set(frame["note"].dropna())
    assert notes == {"unknown preference 1", "unknown preference 'maybe'"}
    annotator = frame["judge"].where(frame["trait_id"].isna(), frame["trait_id"])
    votes = dict(zip(zip(frame["comparison_id"], annotator, strict=True), frame["vote"],
                     strict=True))
    assert votes == {("c1", "pref"): "A", ("c1", "t1"): "invalid",
                     ("2", "pref"): "B", ("2", "t1"): "invalid"}


def test_a_pretty_printed_file_reads_like_a_compact_one(tmp_path):
    from ffsite.importers.annotated_pairs import read_annotated_pairs

    source = Path(__file__).parent / "data" / "ff_parity" / "case_2.json"
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(json.loads(source.read_text()), indent=2))
    assert pretty.read_text().count("\n") > 100
    compact = read_annotated_pairs(source, columnar=True)
    spread = read_annotated_pairs(pretty, columnar=True)  # Arrow's path, not the fallback
    assert spread.table.to_table().equals(compact.table.to_table())
    assert spread.responses == compact.responses


def test_a_malformed_annotation_names_its_comparison(tmp_path):
    document = _v2([
        {"id": "ok", "response_a": {"text": "a"}, "response_b": {"text": "b"},
         "annotations": {"pref": {"pref": "a"}}},
        {"id": "broken", "response_a": {"text": "a"}, "response_b": {"text": "b"},
         "annotations": {"pref": "a"}},  # a string where a vote object belongs
    ])
    result, out = _import(tmp_path, document)
    assert result.exit_code != 0
    message = str(result.exception)
    assert "comparison 'broken': annotations: Expected `object`, got `str`" in message
    assert "\n" not in message
    assert not out.exists()


@pytest.mark.parametrize("every_vote", [True, False])
def test_unknown_preferences_are_invalid_with_a_note_on_both_paths(tmp_path, every_vote):
    """Votes like "maybe" become invalid with a note naming them, at the right vote, on
    Arrow's path and on the typed-struct path, whether or not every annotator voted."""
    from ffsite.importers.annotated_pairs import read_annotated_pairs

    comparisons = [
        {"id": f"c{i}", "response_a": {"text": "a"}, "response_b": {"text": "b"},
         "annotations": {"pref": {"pref": "a"},
                         "t1": {"pref": "maybe" if i == 2 else "B" if i == 3 else "b"}}}
        for i in range(5)]
    if not every_vote:
        del comparisons[1]["annotations"]["t1"]
    source = tmp_path / "in.json"
    source.write_text(json.dumps(_v2(comparisons)))
    fast = read_annotated_pairs(source, columnar=True)
    general = read_annotated_pairs(source, columnar=False)
    assert fast.table.to_table().equals(general.table.to_table())
    frame = fast.table.to_table().to_pandas().astype(object)
    trait_votes = frame[frame["trait_id"] == "t1"].set_index("comparison_id")
    assert trait_votes.loc["c2", "vote"] == "invalid"
    assert trait_votes.loc["c2", "note"] == "unknown preference 'maybe'"
    assert trait_votes.loc["c3", "vote"] == "B" and pd.isna(trait_votes.loc["c3", "note"])
    assert frame["note"].notna().sum() == 1
    assert len(trait_votes) == (5 if every_vote else 4)


def test_a_file_without_a_single_vote_is_an_error(tmp_path):
    document = _v2([{"id": "c", "response_a": {"text": "a"}, "response_b": {"text": "b"}},
                    {"id": "d", "response_a": {"text": "a"}, "response_b": {"text": "b"},
                     "annotations": {"someone else": {"pref": "a"}}}])
    result, out = _import(tmp_path, document)
    assert result.exit_code != 0
    assert "no votes to import: none of the 2 comparisons has an annotation" in str(
        result.exception)
    assert not out.exists()
