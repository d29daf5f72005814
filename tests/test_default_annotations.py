"""`ffsite default-annotations`: byte-identical reruns, the layout, no text, the pairs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from helpers import run_here
from tiny_base import HH_LINES, INSTRUCTIONS, OUTPUTS, REFERENCE, write_alpaca_eval, write_hh_rlhf

from ffsite.format.read import read_annotations
from ffsite.format.response_metrics import read_response_metrics

REPO = Path(__file__).resolve().parents[1]
FILES = ["alpaca_eval/communication.parquet", "alpaca_eval/model-pairs.parquet",
         "alpaca_eval/preferences.parquet", "alpaca_eval/rules.parquet",
         "hh_rlhf/communication.parquet", "hh_rlhf/preferences.parquet",
         "hh_rlhf/rules.parquet"]


def regenerate(base: Path, out: Path, *, fresh_process: bool = False
               ) -> subprocess.CompletedProcess:
    """`ffsite default-annotations` on `base` into `out`: in this process, or in a fresh
    one (another process must write the same bytes)."""
    args = ("default-annotations", "--base-data", str(base), "--out", str(out),
            "--pair-prompts", "3")
    if fresh_process:
        result = subprocess.run([sys.executable, "-m", "ffsite", *args], capture_output=True,
                                text=True, cwd=REPO, timeout=120)
    else:
        result = run_here(*args, cwd=REPO)
    assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("base")
    write_alpaca_eval(folder)
    write_hh_rlhf(folder)
    return folder


@pytest.fixture(scope="module")
def generated(base, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("annotations")
    regenerate(base, out)
    return out


def test_rerun_is_byte_identical(base, generated, tmp_path):
    regenerate(base, tmp_path, fresh_process=True)
    written = sorted(str(p.relative_to(generated)) for p in generated.rglob("*") if p.is_file())
    assert written == FILES
    for name in FILES:
        assert (generated / name).read_bytes() == (tmp_path / name).read_bytes()


def test_files_read_together_and_hold_no_text(generated):
    tmp_path = generated
    annotations = read_annotations([tmp_path])  # cross-file rules hold
    assert annotations.datasets == ["alpaca_eval", "hh_rlhf"]
    metrics = read_response_metrics([tmp_path])
    assert len(metrics) == 11 + 2 * len(HH_LINES)
    texts = ({t for answers in OUTPUTS.values() for t in answers.values()} | set(INSTRUCTIONS)
             | {c for pair in HH_LINES for c in pair})
    for name in FILES:
        for row in pq.read_table(tmp_path / name).to_pylist():
            assert not {v for v in row.values() if isinstance(v, str)} & texts


def test_model_pairs_compare_two_other_models_on_one_instruction(generated):
    pairs = read_annotations([generated / "alpaca_eval/model-pairs.parquet"]).comparisons
    pairs = pairs.astype(object)
    # Two non-reference models (wordy, terse) answered three instructions in common, and
    # three instructions are drawn out of the four; each drawn one they share is one pair.
    assert 2 <= len(pairs) <= 3
    for row in pairs.to_dict("records"):
        models = sorted([row["model_a"], row["model_b"]])
        assert models == ["terse", "wordy"] and REFERENCE not in models
        assert row["comparison_id"] == f"{row['prompt_id']}:terse:wordy"
        assert row["response_a_id"] == f"{row['model_a']}/{row['prompt_id']}"
        assert row["response_b_id"] == f"{row['model_b']}/{row['prompt_id']}"


def test_missing_dataset_is_named_once_and_the_rest_is_built(tmp_path):
    write_alpaca_eval(tmp_path / "base")
    result = regenerate(tmp_path / "base", tmp_path / "out")
    notes = [line for line in result.stdout.splitlines() if "omitted" in line]
    assert notes == ["default annotations omitted: base datasets behavioral_profiling, "
                     "eqbench3, hh_rlhf, llm_dreams, poem_eval not available; run ffsite "
                     "fetch behavioral_profiling eqbench3 hh_rlhf llm_dreams poem_eval or set "
                     "FFSITE_BASE_DATA"]
    assert (tmp_path / "out/alpaca_eval/rules.parquet").is_file()
    assert not (tmp_path / "out/hh_rlhf").exists()
