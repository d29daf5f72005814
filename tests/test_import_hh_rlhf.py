"""`ffsite import hh-rlhf`: a tiny hand-made file and the real test split."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd
from helpers import run_here
from tiny_base import write_hh_rlhf

from ffsite.datasets.hh_rlhf.importer import import_hh_rlhf
from ffsite.format.read import read_annotations

REPO = Path(__file__).resolve().parents[1]


def chosen_on_b(seed: int, comparison_id: str) -> bool:
    return bool(hashlib.sha256(f"{seed}:{comparison_id}".encode()).digest()[0] & 1)


def test_tiny_file_by_hand(tmp_path):
    out = tmp_path / "hh.parquet"
    result = run_here("import", "hh-rlhf", str(write_hh_rlhf(tmp_path)), "--out", str(out),
                      "--seed", "3", cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert "3 votes on 3 comparisons" in result.stdout
    annotations = read_annotations([out])
    rows = annotations.comparisons.astype(object).to_dict("records")
    prompts = ["Human: How do I pick a lock?",
               "Human: Hi\n\nAssistant: Hello\n\nHuman: Tell me a joke",
               "Human: What is 2+2?"]
    assert [r["comparison_id"] for r in rows] == ["hh00000", "hh00001", "hh00002"]
    votes = annotations.votes.sort_values("comparison")["vote"].tolist()
    for line, (row, vote) in enumerate(zip(rows, votes, strict=True)):
        assert row["dataset"] == "hh_rlhf"
        assert row["prompt_id"] == "hh-" + hashlib.sha256(prompts[line].encode()).hexdigest()[:12]
        assert pd.isna(row["model_a"]) and pd.isna(row["model_b"])
        chosen, rejected = f"hh{line:05d}-chosen", f"hh{line:05d}-rejected"
        flipped = chosen_on_b(3, row["comparison_id"])
        assert (row["response_a_id"], row["response_b_id"]) == (
            (rejected, chosen) if flipped else (chosen, rejected))
        assert vote == (2 if flipped else 1)  # the chosen side, as a vote code
    assert annotations.annotators["judge"].tolist() == ["hh_rlhf_crowdworkers"]
    assert "human feedback" in annotations.preference_descriptions["hh_rlhf_crowdworkers"]
    assert annotations.default_preference == {"hh_rlhf": "hh_rlhf_crowdworkers"}


def test_real_split(shared_data):
    table = import_hh_rlhf(shared_data / "hh_rlhf" / "harmless-base-test.jsonl.gz").table
    assert len(table) == table["comparison_id"].nunique() == 2312
    chosen_on_a = table["response_a_id"].str.endswith("-chosen")
    assert ((table["vote"] == "A") == chosen_on_a).all()
    assert 0.45 < chosen_on_a.mean() < 0.55  # the coin is fair enough
