"""Behavioral Profiling import: a tiny crafted folder checked by hand, then the real data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ffsite.datasets.behavioral_profiling.importer import import_behavioral_profiling
from ffsite.errors import FfsiteError
from ffsite.format import read_scores, write_scores
from ffsite.metrics.from_scores import score_means

ODD = "Claude-4-Opus-Thinking (Thinking)"


def _job(scores: dict) -> dict:
    return {"contributions": {model: {k: {"score": v, "weight": 1.0} for k, v in dims.items()}
                              for model, dims in scores.items()},
            "job_file": "outputs/x.json", "timestamp": "t"}


def make_folder(root: Path) -> Path:
    """Two prompts in two suites; baseline and authority; two models, one oddly named."""
    folder = root / "behavioral_profiling"
    for sub, request, text in (("general_suite", "typical_v2_1", "How are you?"),
                               ("broad_suite", "broad_2", "Tell me off."),
                               ("general_suite_authority", "typical_v2_1_authority",
                                "How are you?"),
                               ("extended_subset_authority", "typical_v2_1_authority",
                                "How are you?")):
        (folder / "prompts" / sub).mkdir(parents=True, exist_ok=True)
        (folder / "prompts" / sub / f"{request}.yaml").write_text(
            f"request_id: {request}\nprompt: {text}\nmetadata:\n  scenario_id: '1'\n")
    (folder / "prompts" / "general_suite" / "TEMPLATE.yaml").write_text("name: template\n")
    (folder / "contributions").mkdir()
    baseline = {
        "job_typical_v2_1_20260101_000000": _job({
            "m1": {"warmth": 6.0, "depth": 4.0, "ribalism": 2.0},
            ODD: {"warmth": 8.0, "depth": 0.67}}),
        "job_broad_2_20260101_000001": _job({
            "m1": {"warmth": 2.0, "depth": 5.0},
            ODD: {"warmth": 3.33, "depth": 9.0}}),
    }
    authority = {"job_typical_v2_1_authority_20260102_000000": _job({
        "m1": {"warmth": 5.0, "depth": 5.0, "organicness": 1.0}})}
    for name, jobs in (("baseline", baseline), ("authority", authority)):
        (folder / "contributions" / f"{name}.json").write_text(json.dumps(
            {"summary_statistics": {}, "job_contributions": jobs, "version": "1.0"}))
    return folder


def test_tiny_folder_by_hand(tmp_path):
    result = import_behavioral_profiling(make_folder(tmp_path), ("baseline", "authority"))
    frame = result.frame
    # 2 prompts x 2 models x 2 dimensions in baseline + 1 x 1 x 2 in authority.
    assert len(frame) == 10
    assert set(frame["model"]) == {"m1", ODD}  # the odd name survives intact
    assert set(frame["trait_id"]) == {"bp-warmth", "bp-depth"}
    authority = frame[frame["condition"] == "authority"]
    assert set(authority["prompt_id"]) == {"typical_v2_1_authority"}
    assert set(authority["meta.scenario"]) == {"typical_v2_1"}  # paired with the baseline
    assert set(authority["meta.suite"]) == {"general"}
    assert set(frame.loc[frame["prompt_id"] == "broad_2", "meta.suite"]) == {"broad"}
    # Junk keys are counted by name, per condition, and never kept.
    assert result.report[:2] == [
        "left out 1 scores under dimension keys that are not one of the nine in baseline: "
        "ribalism (1)",
        "left out 1 scores under dimension keys that are not one of the nine in authority: "
        "organicness (1)"]
    assert result.extra["dropped_dimension_keys"] == {"baseline": {"ribalism": 1},
                                                      "authority": {"organicness": 1}}
    assert "kept 1 scores below the rubric's floor" in result.report[2]
    assert result.prompts["typical_v2_1"] == "How are you?"

    path = tmp_path / "bp.parquet"
    write_scores(result.frame, path, judges=result.judges, extra=result.extra)
    means = score_means(read_scores([path]), n_bootstrap=200)
    row = means[(means["condition"] == "baseline") & (means["model"] == ODD)
                & (means["trait_id"] == "bp-warmth")].iloc[0]
    assert row["mean"] == pytest.approx((8.0 + 3.33) / 2) and row["n"] == 2
    depth = means[(means["condition"] == "baseline") & (means["model"] == ODD)
                  & (means["trait_id"] == "bp-depth")].iloc[0]
    assert depth["mean"] == pytest.approx((0.67 + 9.0) / 2)
    # Two prompts: the resampled means are the mean of either prompt or of both.
    assert depth["ci_low"] >= 0.67 - 1e-9 and depth["ci_high"] <= 9.0 + 1e-9


def test_a_job_without_its_prompt_file_is_named(tmp_path):
    folder = make_folder(tmp_path)
    (folder / "prompts" / "broad_suite" / "broad_2.yaml").unlink()
    with pytest.raises(FfsiteError, match="job 'job_broad_2_20260101_000001': no prompt file "
                       "with request_id 'broad_2'"):
        import_behavioral_profiling(folder, ("baseline",))


def test_a_score_that_is_not_a_number_is_named(tmp_path):
    folder = make_folder(tmp_path)
    path = folder / "contributions" / "baseline.json"
    document = json.loads(path.read_text())
    document["job_contributions"]["job_broad_2_20260101_000001"]["contributions"]["m1"][
        "depth"]["score"] = "high"
    path.write_text(json.dumps(document))
    with pytest.raises(FfsiteError, match="model 'm1', dimension 'depth': score 'high' is "
                       "not a number from 0 to 10"):
        import_behavioral_profiling(folder, ("baseline",))


@pytest.mark.slow  # imports all of the real Behavioral Profiling data
def test_real_data_means_equal_a_plain_average(shared_data, tmp_path):
    folder = shared_data / "behavioral_profiling"
    result = import_behavioral_profiling(folder)
    assert len(result.frame) == 96561  # every score of the six conditions but junk keys
    assert set(result.frame["condition"]) == {"baseline", "authority", "urgency", "reminder",
                                              "minimal_steering", "telemetryV3"}
    assert result.frame["model"].nunique() == 46
    assert ODD in set(result.frame["model"])
    assert "organicness (1), ribalism (5)" in result.report[0]
    path = tmp_path / "bp.parquet"
    write_scores(result.frame, path, judges=result.judges, extra=result.extra)
    means = score_means(read_scores([path]), n_bootstrap=50)
    # An independent plain average straight from the source file.
    jobs = json.loads((folder / "contributions" / "urgency.json").read_text())[
        "job_contributions"]
    for model in ("GPT-5", ODD, "Llama-3.3-70B"):
        values = [job["contributions"][model]["tribalism"]["score"]
                  for job in jobs.values() if model in job["contributions"]]
        row = means[(means["condition"] == "urgency") & (means["model"] == model)
                    & (means["trait_id"] == "bp-tribalism")].iloc[0]
        assert row["mean"] == pytest.approx(sum(values) / len(values), abs=1e-12)
        assert row["n"] == len(values)
