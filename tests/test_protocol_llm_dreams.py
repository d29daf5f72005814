"""llm-dreams' protocol (`ffsite protocol run llm-dreams`): its prompts byte for byte as
PROTOCOL.md describes them, its reading of judges' replies, and a run end to end against
the local chat server with faults, a resume after kill -9 and a budget stop.

The prompt checks build the expected bytes here, from PROTOCOL.md's words and the
published files, without ffsite's reader."""

from __future__ import annotations

import json
import os
import re
import signal
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from annotate_helpers import api_env, file_summary, run_cli, run_subprocess
from chat_server import ChatServer, Reply
from protocol_fixture import DREAM_TRAITS, Script, dream_instruction, dream_score

from ffsite.datasets.llm_dreams import protocol as dreams
from ffsite.format import read_scores

MODEL = "lab/dreamer-1"
JUDGES = ("gpt-5.6-sol", "gpt-5.6-terra", "gpt-5.5", "grok-4.3", "grok-4.5", "grok-4.6",
          "gemini-3.7-flash", "qwen/qwen3.6-plus", "mistral-small-2603")


def args(tmp_path: Path, shared_data: Path, *extra: str) -> list[str]:
    return ["protocol", "run", "llm-dreams", "--model", MODEL, "--base-data",
            str(shared_data), "--cache-dir", str(tmp_path / "cache"), "--out",
            str(tmp_path / "out.parquet"), "--backoff", "0", *extra]


# --------------------------------------------------------------------- the prompts

def published(root: Path, model: str, k: int) -> list[str]:
    """A model's 15 published continuations of answer set k, in file-name order, as
    text (about half were saved as Windows-1252)."""
    texts = []
    for path in sorted((root / "answers").glob(f"{model}__dream*__{k}.txt")):
        data = path.read_bytes()
        try:
            texts.append(data.decode("utf-8"))
        except UnicodeDecodeError:
            texts.append(data.decode("cp1252"))
    return texts


@pytest.mark.parametrize(("model", "k"), [("gpt-4o-2024-08-06", 0),
                                          ("ChatGPT-5.1-Instant-20251113", 1)])
def test_the_judge_prompt_is_built_byte_for_byte_as_protocol_md_says(shared_data, model, k):
    root = shared_data / "llm_dreams"
    answers = published(root, model, k)
    assert len(answers) == 15 and any("\n" in a for a in answers)
    # PROTOCOL.md: the instruction, then per answer in file-name order the opening's
    # text, one space, the answer with every newline and carriage return replaced by a
    # space; the parts joined by two newlines.
    openings = [p.read_text("utf-8") for p in sorted((root / "incipits").glob("dream*.txt"))]
    parts = [dream_instruction(root)] + [
        opening + " " + answer.replace("\n", " ").replace("\r", " ")
        for opening, answer in zip(openings, answers, strict=True)]
    expected = "\n\n".join(parts).encode("utf-8")

    material = dreams.load(root)
    unit = material.units(model, 2)[k]
    texts = dict(zip(unit.parts, answers, strict=True))
    (message,) = material.judge_messages(unit, texts)
    assert message["role"] == "user"
    assert message["content"].encode("utf-8") == expected
    assert unit.response_id == f"{model}/{k}" and unit.prompt_id == f"dreams-{k}"


def test_the_answering_prompt_is_protocol_md_s(shared_data):
    root = shared_data / "llm_dreams"
    text = (root / "PROTOCOL.md").read_text("utf-8")
    line = re.search(r"## Answering.*?\n\n    (.+)\n", text, re.DOTALL).group(1)
    before = line.split("<contents of", 1)[0].replace("\\n", "\n")
    assert before.endswith("?\n\n")
    material = dreams.load(root)
    assert [p.id for p in material.prompts] == [f"dream{n:03d}" for n in range(1, 16)]
    for prompt in material.prompts:
        opening = (root / "incipits" / f"{prompt.id}.txt").read_text("utf-8")
        assert prompt.messages == ({"role": "user", "content": before + opening},)


def test_reasoning_is_stripped_as_the_benchmark_does():
    assert dreams.clean("<think>a\nb</think>I was flying.") == "I was flying."
    assert dreams.clean("<thought>x</thought> I fell.") == " I fell."
    assert dreams.clean("No tags here.") == "No tags here."


def test_replies_are_read_as_the_benchmark_reads_them():
    scores = {t: 5.0 for t in DREAM_TRAITS}
    fenced = "```json\n" + json.dumps({**scores, "Creativity": 9}) + "\n```"
    # The last fenced block wins; a slightly misspelt key finds its trait.
    text = ("```json\n" + json.dumps(scores) + "\n```\nOn reflection:\n"
            + fenced.replace("Creativity", "Creativty"))
    verdict = dreams.read(text)
    assert verdict.whole and verdict.scores["Creativity"] == 9.0
    # Without a fence, the last {...}; a missing key and a value off the scale have no
    # score, with a note.
    broken = {**scores, "Resilience": 11}
    del broken["Adaptability"]
    verdict = dreams.read("first {\"a\": 1} then " + json.dumps(broken))
    assert not verdict.whole
    assert verdict.scores["Adaptability"] is None and "missing" in verdict.notes["Adaptability"]
    assert verdict.scores["Resilience"] is None and "outside 1-10" in verdict.notes["Resilience"]
    assert dreams.read("I would rather not.").notes["Creativity"].startswith("unreadable")


# ---------------------------------------------------------------------- end to end

FAULTS = {("answer", MODEL): [Reply(status=429, headers={"Retry-After": "0"}),
                              Reply(status=500), Reply(raw_body=b"{not json")],
          ("dream-judge", "grok-4.5"): [Reply(status=503)],
          ("dream-judge", "gpt-5.5"): [Reply(delay=3.0)],  # past --timeout: retried
          ("dream-judge", "grok-4.3"): [Reply("I cannot estimate that.")]}  # re-asked


def test_end_to_end_with_faults_then_validate(tmp_path, shared_data):
    # qwen never gives a readable reply: its 4 calls are asked twice more each, then
    # its 60 scores are invalid (11%, under the 20% rule).
    script = Script(shared_data, faults=FAULTS,
                    replies={("dream-judge", "qwen/qwen3.6-plus"): "No JSON, sorry."})
    with ChatServer(script) as server:
        result = run_cli(args(tmp_path, shared_data, "--timeout", "1", "--concurrency", "4"),
                         api_env(server.url))
        assert result.exit_code == 0, result.output
        # Four lanes; the server may still hold the one request the client gave up on
        # after its timeout while the retry is in flight.
        assert server.max_in_flight <= 4 + 1
        asked = [r for r in server.requests if script.kind(r) == "dream-judge"]
    # 30 answers (three retried), 36 judge calls (two retried), grok-4.3's first reply
    # and qwen's four re-asked: 1 + 4 + 4 re-asks.
    summary = file_summary(tmp_path / "out.parquet")
    assert (summary["answer_calls"], summary["judge_calls"], summary["reask_calls"]) == (
        30, 36, 9)
    assert summary["retries"] == 5 and summary["failed_calls"] == 0
    assert (summary["ratings"], summary["invalid_ratings"]) == (540, 60)
    assert summary["comparable"] is True and summary["dataset"] == "llm_dreams"
    assert summary["judges"] == list(JUDGES) and summary["protocol"] == "llm-dreams"
    assert len(asked) == 36 + 2 + 9
    # No sampling setting is sent; every judge gets one user message.
    assert all("temperature" not in r.body for r in server.requests)
    assert all(len(r.messages) == 1 and r.messages[0]["role"] == "user" for r in asked)
    # The answers the judges read have the reasoning stripped.
    assert all("<think>" not in r.user_text for r in asked)

    scores = read_scores([tmp_path / "out.parquet"]).long()
    assert len(scores) == 540 - 60 and set(scores["judge"]) == set(JUDGES) - {
        "qwen/qwen3.6-plus"}
    assert set(scores["response_id"]) == {f"{MODEL}/0", f"{MODEL}/1"}
    assert set(scores["meta.answer_set"]) == {"0", "1"} and set(scores["seed"]) == {0, 1}
    expected = {(j, t): dream_score(j, t) for j in JUDGES for t in DREAM_TRAITS}
    wordings = {t: t.split(":")[0] for t in scores["trait"]}
    for row in scores.itertuples(index=False):
        assert row.score == expected[(row.judge, wordings[row.trait])]
    answers = json.loads((tmp_path / "out.responses.json").read_text("utf-8"))
    assert len(answers["answers"]) == 30
    assert not any("<think>" in a["answer"] for a in answers["answers"])
    qwen = [j for j in answers["judgements"] if j["judge"] == "qwen/qwen3.6-plus"]
    assert len(qwen) == 4 and all(len(j["replies"]) == 3 for j in qwen)

    # Against a site with llm-dreams' published scores: comparable.
    site = tmp_path / "site"
    site.mkdir()
    (site / "llm_dreams.parquet").write_bytes(
        (Path(__file__).parents[1] / "annotations" / "llm_dreams" / "scores.parquet")
        .read_bytes())
    result = run_cli(["validate", str(tmp_path / "out.parquet"), "--site", str(site)], {})
    assert result.exit_code == 0, result.output
    assert "2 of 2 prompts of llm_dreams" in result.output
    assert ("comparable: same protocol (llm-dreams llm-dreams-1) and judges as llm-dreams: "
            "ranked with its 236 models and marked 'contributed'") in result.output


def test_another_judge_is_kept_apart(tmp_path, shared_data):
    with ChatServer(Script(shared_data)) as server:
        result = run_cli(args(tmp_path, shared_data, "--judge", "lab/judge-x",
                              "--repetitions", "1"), api_env(server.url))
        assert result.exit_code == 0, result.output
    summary = file_summary(tmp_path / "out.parquet")
    assert summary["comparable"] is False
    assert summary["differs"] == ["judges lab/judge-x", "repetitions 1, not 2"]
    label = "lab/judge-x [repetitions 1, not 2]"
    assert summary["dataset"] == f"llm_dreams@{label}"
    assert "apart from llm_dreams" in result.output.splitlines()[0]
    scores = read_scores([tmp_path / "out.parquet"]).long()
    assert set(scores["dataset"]) == {f"llm_dreams@{label}"} and len(scores) == 30


@pytest.mark.slow  # > 3 s: a kill and resume, a real build or fit (CI runs it)
def test_kill_and_resume_pays_no_call_twice_and_gives_the_same_bytes(tmp_path, shared_data):
    with ChatServer(Script(shared_data), latency=0.05) as server:
        env = api_env(server.url)
        killed = run_subprocess(args(tmp_path, shared_data, "--concurrency", "2"), env)
        deadline = time.monotonic() + 60
        while len(server.answered) < 20 and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait()
        server.settle()  # (requests the killed run sent are all counted)
        cached = {p.stem for p in (tmp_path / "cache").rglob("*.json")}
        before = len(server.requests)
        assert 10 <= len(cached) < 66 and not (tmp_path / "out.parquet").exists()
        resumed = run_subprocess(args(tmp_path, shared_data, "--concurrency", "2"), env)
        stdout, stderr = resumed.communicate(timeout=120)
        assert resumed.returncode == 0, stderr
        again = len(server.requests) - before
        fresh = tmp_path / "fresh"
        done = run_subprocess(["protocol", "run", "llm-dreams", "--model", MODEL,
                               "--base-data", str(shared_data), "--cache-dir",
                               str(fresh / "cache"), "--out", str(fresh / "out.parquet")],
                              env)
        assert done.wait(timeout=120) == 0
    # Every call not cached at the kill was made once, no cached one again.
    assert again == 66 - len(cached)
    assert f"({again} new, {len(cached)} from cache" in stdout
    assert (tmp_path / "out.parquet").read_bytes() == (fresh / "out.parquet").read_bytes()
    assert (tmp_path / "out.responses.json").read_bytes() == (
        fresh / "out.responses.json").read_bytes()


def test_the_budget_stops_the_run_and_a_rerun_finishes_it(tmp_path, shared_data):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({MODEL: {"input": 0.01, "output": 0.01},
                                  **{j: {"input": 50.0, "output": 50.0} for j in JUDGES}}))
    # A judge call holds ~$0.29 at worst and costs ~$0.05: the whole run ~$1.9.
    with ChatServer(Script(shared_data)) as server:
        stopped = run_cli(args(tmp_path, shared_data, "--prices", str(prices),
                               "--max-cost", "1"), api_env(server.url))
        assert stopped.exit_code == 0, stopped.output
        assert "stopped at the budget: --max-cost 1.0" in stopped.output
        summary = file_summary(tmp_path / "out.parquet")
        assert summary["complete"] is False and 0.5 < summary["cost_usd"] <= 1.0
        assert 30 < summary["calls"] < 66
        made = len(server.requests)
        finished = run_cli(args(tmp_path, shared_data, "--prices", str(prices)),
                           api_env(server.url))
        assert finished.exit_code == 0, finished.output
        assert len(server.requests) == made + 66 - summary["calls"]
    assert file_summary(tmp_path / "out.parquet")["complete"] is True


def test_dry_run_prices_every_model_and_sends_nothing(tmp_path, shared_data):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({MODEL: {"input": 1.0, "output": 2.0},
                                  **{j: {"input": 3.0, "output": 4.0} for j in JUDGES}}))
    with ChatServer(Script(shared_data)) as server:
        result = run_cli(args(tmp_path, shared_data, "--dry-run", "--prices", str(prices)),
                         api_env(server.url))
        assert result.exit_code == 0, result.output
        assert server.requests == []
    lines = result.output.splitlines()
    assert lines[1].startswith(f"answers: 30 calls to {MODEL} (0 more cached)")
    judges = [line for line in lines if line.startswith("judge ")]
    assert len(judges) == 9 and all(" 4 calls to " in line and "~$" in line
                                    for line in judges)
    tokens_out = int(re.search(r"~(\d+) out", lines[1]).group(1))
    cost = float(re.search(r"~\$([\d.]+)", lines[1]).group(1))
    tokens_in = int(re.search(r"~(\d+) tokens in", lines[1]).group(1))
    assert cost == pytest.approx((tokens_in * 1.0 + tokens_out * 2.0) / 1e6, abs=1e-4)
    assert lines[-1] == "dry run: nothing was sent"


def test_scores_of_the_run_join_the_panel_as_the_dataset_s(tmp_path, shared_data):
    """The contributed model's panel mean is the nine judges' mean, as for any model."""
    from ffsite.datasets import PANELS
    from ffsite.metrics.judges import pool_panels

    with ChatServer(Script(shared_data)) as server:
        assert run_cli(args(tmp_path, shared_data), api_env(server.url)).exit_code == 0
    scores = read_scores([tmp_path / "out.parquet"])
    pooled, members = pool_panels(scores, PANELS)
    panel = pooled.long()
    assert set(panel["judge"]) == {"llm-dreams panel"} and len(panel) == 2 * 15
    for trait in DREAM_TRAITS:
        mean = np.mean([dream_score(j, trait) for j in JUDGES])
        got = panel.loc[panel["trait"].str.startswith(trait + ":"), "score"]
        assert np.allclose(got, mean), trait
    assert len(members.long()) == 540 and pd.notna(panel["score"]).all()
