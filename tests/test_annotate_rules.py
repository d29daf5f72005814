"""`--judge rules`: the rule-based judge, with no API at all."""

from __future__ import annotations

import json

from annotate_helpers import (
    REFERENCE,
    file_summary,
    instructions,
    make_base_data,
    read_rows,
    run_cli,
)

from ffsite.format.read import read_annotations
from ffsite.judges.rules import RULE_TRAITS
from ffsite.traits import PREFIX

NO_API = {"FFSITE_API_BASE": "http://127.0.0.1:9/v1", "FFSITE_API_KEY": "",
          "OPENROUTER_API_KEY": "", "OPENAI_API_KEY": ""}
LONG = ("This answer goes on and on, word after word, with many more words than the "
        "reference answer has, so that any count of words finds it far longer. ") * 3


def _trait_votes(rows, wording):
    return [r for r in rows if r["trait"] == PREFIX + wording]


def test_rules_with_given_responses_need_no_api(tmp_path):
    base = make_base_data(tmp_path / "base", 4)
    responses = tmp_path / "r.json"
    responses.write_text(json.dumps([{"instruction": t, "response": LONG}
                                     for t in instructions(4)]))
    result = run_cli(["annotate", "--model", "wordy", "--judge", "rules", "--responses",
                      str(responses), "--base-data", str(base), "--cache-dir",
                      str(tmp_path / "cache"), "--out", str(tmp_path / "out.parquet")], NO_API)
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "cache").exists()

    rows = read_rows(tmp_path / "out.parquet")
    assert {r["judge"] for r in rows} == {"rules-1"}
    assert {r["trait_id"] for r in rows} == {t.id for t in RULE_TRAITS}
    assert {r["model_a"] for r in rows} == {"wordy", REFERENCE}  # both side flips occur
    # The model's answer has ~90 words, the reference's 9: more verbose, less concise;
    # neither answer has emojis.
    for row in _trait_votes(rows, "is more verbose"):
        assert row["vote"] == ("A" if row["model_a"] == "wordy" else "B")
    for row in _trait_votes(rows, "is more concise"):
        assert row["vote"] == ("B" if row["model_a"] == "wordy" else "A")
    assert {r["vote"] for r in _trait_votes(rows, "uses more emojis")} == {"neither"}
    summary = file_summary(tmp_path / "out.parquet")
    assert summary["judge"] == "rules-1" and summary["calls"] == 0
    assert summary["cost_usd"] == 0.0 and summary["cost_source"] == "none"


def test_rules_refuse_llm_options(tmp_path):
    base = make_base_data(tmp_path / "base", 2)
    result = run_cli(["annotate", "--model", "x", "--judge", "rules", "--votes", "3",
                      "--base-data", str(base), "--out", str(tmp_path / "o.parquet")], NO_API)
    assert result.exit_code != 0 and "--judge rules votes once" in str(result.exception)


def test_rules_over_a_dataset_delegate_to_the_judges_module(tmp_path):
    base = make_base_data(tmp_path / "base", 3)
    comparisons = tmp_path / "site" / "pairs.parquet"
    made = run_cli(["import", "alpaca-eval", str(base / "alpaca_eval"), "--out",
                    str(comparisons)], NO_API)
    assert made.exit_code == 0, made.output
    result = run_cli(["annotate", "--judge", "rules", "--dataset", "alpaca_eval",
                      "--annotations", str(comparisons.parent), "--base-data", str(base),
                      "--out", str(tmp_path / "rules.parquet")], NO_API)
    assert result.exit_code == 0, result.output
    annotations = read_annotations([tmp_path / "rules.parquet"])
    assert len(annotations.comparisons) == 3  # other-model vs the reference, 3 prompts
    assert set(annotations.annotators["judge"]) == {"rules-1"}
