"""ICAI CSV import: text_a, text_b, preferred_text (+ models, prompt, metadata)."""

from __future__ import annotations

from helpers import run_here

from ffsite.datasets.texts import read_texts
from ffsite.format.read import read_annotations


def test_real_example_csv(shared_data, tmp_path):
    out = tmp_path / "x.parquet"
    result = run_here("import", "icai-csv", str(shared_data / "feedback_forensics_examples" /
                                                "example.csv"), "--out", str(out),
                     "--base-out", str(tmp_path / "base"))
    assert result.returncode == 0, result.stderr
    annotations = read_annotations([out])
    assert len(annotations.comparisons) == 1
    assert annotations.votes["vote"].tolist() == [1]  # preferred_text = text_a
    prompts, responses = read_texts(tmp_path / "base", "example")
    assert len(responses) == 2 and prompts == {}


def test_columns_models_prompt_and_metadata(tmp_path):
    source = tmp_path / "pairs.csv"
    source.write_text("text_a,text_b,preferred_text,model_a,model_b,prompt,topic\n"
                      "one,two,text_b,m1,m2,hi,chat\n"
                      "three,four,tie,m2,m1,hey,code\n")
    out = tmp_path / "x.parquet"
    assert run_here("import", "icai-csv", str(source), "--out", str(out)).returncode == 0
    annotations = read_annotations([out])
    comparisons = annotations.comparisons
    assert comparisons["model_a"].tolist() == ["m1", "m2"]
    assert comparisons["meta.topic"].tolist() == ["chat", "code"]
    assert comparisons["prompt_id"].notna().all()
    assert sorted(annotations.votes["vote"].tolist()) == [2, 3]


def test_missing_column_is_a_clear_error(tmp_path):
    source = tmp_path / "bad.csv"
    source.write_text("text_a,text_b\nx,y\n")
    result = run_here("import", "icai-csv", str(source), "--out", str(tmp_path / "x.parquet"))
    assert result.returncode == 1
    assert "column 'preferred_text' is missing" in result.stderr
    assert not (tmp_path / "x.parquet").exists()


def test_bad_preference_names_row(tmp_path):
    source = tmp_path / "bad.csv"
    source.write_text("text_a,text_b,preferred_text\nx,y,text_a\nx,y,text_c\n")
    result = run_here("import", "icai-csv", str(source), "--out", str(tmp_path / "x.parquet"))
    assert result.returncode == 1
    assert "row 1" in result.stderr and "text_c" in result.stderr
