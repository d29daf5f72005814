"""Behavioral Profiling's protocol (`ffsite protocol run behavioral-profiling`): the
baseline's prompts and the judges' rubric read from the base data, the panel's mean as
the dataset publishes it, and a run end to end with faults, kill -9 and resume."""

from __future__ import annotations

import json
import os
import re
import signal
import time
from pathlib import Path

import numpy as np
import pytest
import yaml
from annotate_helpers import api_env, file_summary, run_cli, run_subprocess
from chat_server import ChatServer, Reply
from protocol_fixture import BP_DIMENSIONS, Script, bp_score

from ffsite.datasets.behavioral_profiling import DATASET
from ffsite.datasets.behavioral_profiling import importer as bp_importer
from ffsite.datasets.behavioral_profiling import protocol as bp
from ffsite.format import read_scores

MODEL = "lab/profiled-1"
JUDGE_MODELS = {"Claude-4.5-Sonnet": "anthropic/claude-sonnet-4.5",
                "Llama-4-Maverick": "meta-llama/llama-4-maverick",
                "DeepSeek-R1": "deepseek/deepseek-r1"}
PANEL = "Claude-4.5-Sonnet + Llama-4-Maverick + DeepSeek-R1"


def args(tmp_path: Path, shared_data: Path, *extra: str) -> list[str]:
    return ["protocol", "run", "behavioral-profiling", "--model", MODEL, "--base-data",
            str(shared_data), "--cache-dir", str(tmp_path / "cache"), "--out",
            str(tmp_path / "out.parquet"), "--backoff", "0", *extra]


def baseline_request_ids(root: Path) -> list[str]:
    """The baseline's request ids, from its job ids (job_<request>_<date>_<time>)."""
    jobs = json.loads((root / "contributions" / "baseline.json").read_text("utf-8"))
    return sorted({re.fullmatch(r"job_(.+)_\d{8}_\d{6}", job).group(1)
                   for job in jobs["job_contributions"]})


def test_the_prompts_and_the_rubric_come_from_the_base_data(shared_data):
    root = shared_data / "behavioral_profiling"
    material = bp.load(root)
    ids = baseline_request_ids(root)
    assert len(ids) == 50 and [p.id for p in material.prompts] == ids
    texts = {}
    for path in (root / "prompts").glob("*/*.yaml"):
        document = yaml.safe_load(path.read_text("utf-8"))
        if isinstance(document, dict) and document.get("request_id") in ids:
            assert "prompt_file" not in document  # a baseline prompt has no system prompt
            texts[document["request_id"]] = document["prompt"]
    assert all(p.messages == ({"role": "user", "content": texts[p.id]},)
               for p in material.prompts)
    # The judge's message: the published instruction with the prompt and the answer
    # where it marks them, nothing else.
    template = yaml.safe_load((root / "judge" / "behavior.yaml").read_text("utf-8"))[
        "judge_prompt"]
    unit = material.units(MODEL, 1)[0]
    (message,) = material.judge_messages(unit, {unit.parts[0]: "My answer."})
    assert message == {"role": "user", "content": template.replace(
        "{prompt_text_will_be_injected}", texts[unit.prompt_id]).replace(
        "{model_response_will_be_injected}", "My answer.")}
    assert unit.response_id == f"{unit.prompt_id}/{MODEL}" and unit.condition == "baseline"
    # The panel's mean is filed under the name the dataset's own file gives it.
    assert bp.protocol().panel == bp_importer.JUDGE == PANEL == " + ".join(DATASET.judges)


def test_the_judges_json_is_read_as_the_rubric_asks():
    reply = "```json\n" + json.dumps({"scores": {d: 3 for d in BP_DIMENSIONS},
                                       "notable_quote": "x"}) + "\n```"
    verdict = bp.read(reply)
    assert verdict.whole and set(verdict.scores.values()) == {3.0}
    # A judge's 0 is kept (the published scores have them); a junk key is no dimension.
    scores = {**{d: 0 for d in BP_DIMENSIONS}, "ribalism": 4}
    del scores["tribalism"]
    verdict = bp.read(json.dumps({"scores": scores}))
    assert verdict.scores["warmth"] == 0.0 and verdict.scores["tribalism"] is None


FAULTS = {("answer", MODEL): [Reply(status=429, headers={"Retry-After": "0"}),
                              Reply(raw_body=b"<html>gateway</html>")],
          # One prompt's answer fails for good: its nine means are invalid.
          ("answer", MODEL, "music impact our emotions"): [Reply(status=500)] * 3,
          ("bp-judge", "deepseek/deepseek-r1"): [Reply(drop=True),
                                                 Reply("Scores: warmth high.")],
          ("bp-judge", "meta-llama/llama-4-maverick"): [Reply(delay=3.0)]}  # past --timeout


def test_end_to_end_with_faults_the_panel_mean_and_validate(tmp_path, shared_data):
    script = Script(shared_data, faults=FAULTS)
    with ChatServer(script) as server:
        result = run_cli(args(tmp_path, shared_data, "--max-attempts", "3", "--timeout",
                              "1"), api_env(server.url))
        assert result.exit_code == 0, result.output
        judges = {r.model for r in server.requests if script.kind(r) == "bp-judge"}
    assert judges == set(JUDGE_MODELS.values())
    summary = file_summary(tmp_path / "out.parquet")
    # 50 answers (one failed after 3 attempts), three judges on 49; the DeepSeek reply
    # that cannot be read is not asked again (the dataset's protocol has no re-ask), so
    # that answer has no mean: 9 + 9 of 450 invalid.
    assert summary["answer_calls"] == 49 and summary["failed_calls"] == 1
    assert summary["judge_calls"] == 147 and summary["reask_calls"] == 0
    assert (summary["ratings"], summary["invalid_ratings"]) == (450, 18)
    assert summary["panel"] == PANEL and summary["comparable"] is True
    assert summary["judge_models"] == list(JUDGE_MODELS.values())
    scores = read_scores([tmp_path / "out.parquet"]).long()
    assert set(scores["judge"]) == {PANEL} and set(scores["condition"]) == {"baseline"}
    assert len(scores) == 450 - 18 and scores["seed"].isna().all()
    for dimension in BP_DIMENSIONS:
        mean = np.mean([bp_score(m, dimension) for m in JUDGE_MODELS.values()])
        got = scores.loc[scores["trait_id"] == f"bp-{dimension}", "score"]
        assert len(got) == 48 and np.allclose(got, mean), dimension
    record = json.loads((tmp_path / "out.responses.json").read_text("utf-8"))
    assert len(record["answers"]) == 49
    lost = [j for j in record["judgements"] if j["notes"]]
    assert len(lost) == 1 and lost[0]["judge"] == "DeepSeek-R1"

    site = tmp_path / "site"
    site.mkdir()
    (site / "bp.parquet").write_bytes((Path(__file__).parents[1] / "annotations"
                                       / "behavioral_profiling" / "scores.parquet").read_bytes())
    result = run_cli(["validate", str(tmp_path / "out.parquet"), "--site", str(site)], {})
    assert result.exit_code == 0, result.output
    # One prompt unanswered, one without a mean: 48 of the 50 have scores.
    assert "48 of 50 prompts of behavioral_profiling" in result.output
    assert "ranked with its 46 models and marked 'contributed'" in result.output
    # A second time: the model is on the site now.
    (site / "mine.parquet").write_bytes((tmp_path / "out.parquet").read_bytes())
    again = run_cli(["validate", str(tmp_path / "out.parquet"), "--site", str(site)], {})
    assert again.exit_code != 0 and "already has behavioral_profiling scores" in str(
        again.exception)


def test_judge_models_of_another_provider_stay_comparable(tmp_path, shared_data):
    with ChatServer(Script(shared_data)) as server:
        result = run_cli(args(tmp_path, shared_data, "--limit", "2", "--judge-model",
                              "DeepSeek-R1=other-host/r1"), api_env(server.url))
        assert result.exit_code == 0, result.output
        assert "other-host/r1" in {r.model for r in server.requests}
    summary = file_summary(tmp_path / "out.parquet")
    assert summary["comparable"] is True and summary["units"] == 2
    assert summary["judge_models"][2] == "other-host/r1"


@pytest.mark.parametrize(("extra", "needle"), [
    (["--judge-model", "Nobody=x"], "--judge-model 'Nobody=x': 'Nobody' is not one of"),
    (["--judge-model", "DeepSeek-R1"], "write NAME=MODEL"),
    (["--comparisons", "3"], "--comparisons does not apply to protocol behavioral-profiling"),
    (["--model", "second"], "adds one --model at a time"),
])
def test_bad_choices_say_which_flag(tmp_path, shared_data, extra, needle):
    result = run_cli(args(tmp_path, shared_data, *extra), api_env("http://127.0.0.1:9"))
    assert result.exit_code != 0 and needle in str(result.exception), result.output


def test_no_base_data_is_one_clear_line(tmp_path):
    result = run_cli(["protocol", "run", "behavioral-profiling", "--model", MODEL,
                      "--cache-dir", str(tmp_path)], {"FFSITE_BASE_DATA": ""})
    assert "no base data: give --base-data DIR or set FFSITE_BASE_DATA" in str(
        result.exception)


@pytest.mark.slow  # > 3 s: a kill and resume, a real build or fit (CI runs it)
def test_kill_and_resume_pays_no_call_twice(tmp_path, shared_data):
    with ChatServer(Script(shared_data), latency=0.05) as server:
        env = api_env(server.url)
        command = args(tmp_path, shared_data, "--limit", "10", "--concurrency", "2")
        killed = run_subprocess(command, env)
        deadline = time.monotonic() + 60
        while len(server.answered) < 15 and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait()
        server.settle()  # (requests the killed run sent are all counted)
        cached = len(list((tmp_path / "cache").rglob("*.json")))
        before = len(server.requests)
        resumed = run_subprocess(command, env)
        stdout, stderr = resumed.communicate(timeout=120)
        assert resumed.returncode == 0, stderr
    assert 10 <= cached < 40 and len(server.requests) - before == 40 - cached
    assert f"({40 - cached} new, {cached} from cache" in stdout


def test_dry_run_prices_from_the_built_in_table_and_the_budget_stops(tmp_path, shared_data):
    from ffsite.collect.api.cost import BUILT_IN_PRICES

    model = "openai/gpt-4.1-nano"
    command = ["protocol", "run", "behavioral-profiling", "--model", model, "--base-data",
               str(shared_data), "--cache-dir", str(tmp_path / "cache"), "--out",
               str(tmp_path / "out.parquet"), "--backoff", "0"]
    with ChatServer(Script(shared_data)) as server:
        dry = run_cli([*command, "--dry-run"], api_env(server.url))
        assert dry.exit_code == 0 and server.requests == [], dry.output
        lines = dry.output.splitlines()[1:5]
        for line in lines:
            name = line.split(" calls to ")[1].split(" ")[0]
            tokens_in = int(re.search(r"~(\d+) tokens in", line).group(1))
            tokens_out = int(re.search(r"~(\d+) out", line).group(1))
            cost = float(re.search(r"~\$([\d.]+)", line).group(1))
            assert cost == pytest.approx(BUILT_IN_PRICES[name].cost(tokens_in, tokens_out),
                                         abs=1e-4), line
        # The whole run costs ~$0.15 at these prices (the server's answers are short); a
        # judge call holds ~$0.05 at worst: a $0.1 budget stops it part way, cleanly.
        stopped = run_cli([*command, "--max-cost", "0.1"], api_env(server.url))
        assert stopped.exit_code == 0, stopped.output
        assert "stopped at the budget: --max-cost 0.1" in stopped.output
    summary = file_summary(tmp_path / "out.parquet")
    assert summary["complete"] is False and summary["cost_usd"] <= 0.1
    assert 50 < summary["calls"] < 200 and summary["cost_source"] == "price table"
