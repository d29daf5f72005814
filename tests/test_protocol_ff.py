"""AlpacaEval's Feedback Forensics protocol (`ffsite protocol run alpaca-eval`): all 40
FF v1 traits judged by the protocol's LLM judge through `ffsite annotate`'s method; and
what every protocol run shares: `protocol list` and `show`, and keys never written."""

from __future__ import annotations

import json
import re

import pytest
from annotate_helpers import (
    KEY,
    api_env,
    file_summary,
    make_base_data,
    read_rows,
    run_cli,
    run_subprocess,
)
from chat_server import ChatServer, Reply
from protocol_fixture import Script

from ffsite.traits import FF_V1

MODEL = "lab/ff-model"
JUDGE = "google/gemini-2.5-flash"


def args(tmp_path, base, *extra):
    return ["protocol", "run", "alpaca-eval", "--model", MODEL, "--base-data", str(base),
            "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "ff.parquet"),
            "--backoff", "0", *extra]


def site_with(tmp_path, base):
    made = run_cli(["import", "alpaca-eval", str(base / "alpaca_eval"), "--out",
                    str(tmp_path / "site" / "alpaca_eval.parquet")],
                   {"FFSITE_API_KEY": ""})
    assert made.exit_code == 0, made.output
    return tmp_path / "site"


def test_all_40_traits_by_the_protocol_s_judge_then_validate(tmp_path, shared_data):
    base = make_base_data(tmp_path / "base", 6)
    faults = {("ff-judge", JUDGE): [Reply(status=429, headers={"Retry-After": "0"}),
                                    Reply("not json at all")]}
    with ChatServer(Script(shared_data, faults=faults)) as server:
        result = run_cli(args(tmp_path, base), api_env(server.url))
        assert result.exit_code == 0, result.output
        judged = [r for r in server.requests if r.is_judge]
    assert {r.model for r in judged} == {JUDGE} and len(judged) == 7  # one retried
    rows = read_rows(tmp_path / "ff.parquet")
    assert len(rows) == 6 * 40 and {r["trait_id"] for r in rows} == {t.id for t in FF_V1}
    assert {r["judge"] for r in rows} == {JUDGE}
    invalid = [r for r in rows if r["vote"] == "invalid"]
    assert len(invalid) == 40 and all("unparsable" in r["note"] for r in invalid)
    summary = file_summary(tmp_path / "ff.parquet")
    assert (summary["tool"], summary["protocol"], summary["comparable"]) == (
        "ffsite annotate", "alpaca-eval", True)
    assert summary["traits"] == 40 and summary["trait_set"] == "ff-v1"
    result = run_cli(["validate", str(tmp_path / "ff.parquet"), "--site",
                      str(site_with(tmp_path, base))], {})
    assert result.exit_code == 0, result.output
    assert "6 of 6 prompts of alpaca_eval" in result.output
    assert "comparable: same protocol (alpaca-eval ff-multi-1) and judges as AlpacaEval" \
        in result.output


def test_other_settings_file_the_votes_under_another_judge_key(tmp_path, shared_data):
    base = make_base_data(tmp_path / "base", 4)
    with ChatServer(Script(shared_data)) as server:
        result = run_cli(args(tmp_path, base, "--votes", "2"), api_env(server.url))
        assert result.exit_code == 0, result.output
    summary = file_summary(tmp_path / "ff.parquet")
    assert summary["comparable"] is False and summary["differs"] == ["votes 2, not 1"]
    assert summary["judge"] == f"{JUDGE} [votes 2, not 1]"
    assert {r["judge"] for r in read_rows(tmp_path / "ff.parquet")} == {summary["judge"]}
    result = run_cli(["validate", str(tmp_path / "ff.parquet"), "--site",
                      str(site_with(tmp_path, base))], {})
    assert result.exit_code == 0, result.output
    assert "apart: votes 2, not 1: shown as '[judged by google/gemini-2.5-flash [votes 2, " \
        "not 1]]'" in result.output


def test_list_and_show_say_what_each_protocol_does(shared_data):
    listed = run_cli(["protocol", "list"], {})
    assert listed.exit_code == 0
    assert [line.split(":")[0] for line in listed.output.splitlines()] == [
        "aa-personality", "alpaca-eval", "behavioral-profiling", "llm-dreams"]
    shown = run_cli(["protocol", "show", "behavioral-profiling", "--base-data",
                     str(shared_data)], {})
    assert shown.exit_code == 0, shown.output
    assert "baseline only: the pressure conditions' system prompts are not published" in (
        shown.output)
    assert "one model: 50 answer calls (50 prompts x 1), 150 judge calls" in shown.output
    shown = run_cli(["protocol", "show", "llm-dreams", "--base-data", str(shared_data)], {})
    assert "30 answer calls (15 prompts x 2), 36 judge calls" in shown.output
    unknown = run_cli(["protocol", "show", "nope"], {})
    assert "protocol 'nope': no such protocol; pick one of aa-personality" in str(
        unknown.exception)


def test_the_key_is_written_nowhere(tmp_path, shared_data):
    echo = {("answer", "lab/x"): [Reply(f"bad key {KEY}", status=429,
                                        headers={"Retry-After": "0"})],
            ("dream-judge", "grok-4.3"): [Reply(f"Incorrect API key provided: {KEY}",
                                                status=400)]}

    class Echo(Script):
        def answer(self, request):
            reply = super().answer(request)
            reply.content += f" (sent with {request.headers.get('authorization')})"
            return reply

    with ChatServer(Echo(shared_data, faults=echo)) as server:
        process = run_subprocess(["protocol", "run", "llm-dreams", "--model", "lab/x",
                                  "--base-data", str(shared_data), "--cache-dir",
                                  str(tmp_path / "cache"), "--out",
                                  str(tmp_path / "out.parquet"), "--backoff", "0",
                                  "--log", str(tmp_path / "run.log")], api_env(server.url))
        stdout, stderr = process.communicate(timeout=120)
        assert process.returncode == 0, stderr
        assert {r.headers["authorization"] for r in server.requests} == {f"Bearer {KEY}"}
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) > 60
    for secret in (KEY, KEY[:-5]):
        for path in written:
            assert secret.encode() not in path.read_bytes(), (secret, path)
        assert secret not in stdout and secret not in stderr
    record = json.loads((tmp_path / "out.responses.json").read_text("utf-8"))
    assert "sent with Bearer [redacted]" in record["answers"][0]["answer"]
    failed = [j for j in record["judgements"] if j["failure"]]
    assert failed and failed[0]["failure"].endswith("Incorrect API key provided: [redacted]")


def test_dry_run_prices_and_the_budget_through_the_protocol(tmp_path, shared_data):
    from ffsite.collect.api.cost import BUILT_IN_PRICES

    base = make_base_data(tmp_path / "base", 6)
    model = "openai/gpt-4.1-nano"
    command = args(tmp_path, base)
    command[command.index("--model") + 1] = model
    with ChatServer(Script(shared_data)) as server:
        dry = run_cli([*command, "--dry-run"], api_env(server.url))
        assert dry.exit_code == 0 and server.requests == [], dry.output
        judge = next(line for line in dry.output.splitlines() if line.startswith("judge:"))
        tokens_in = int(re.search(r"~(\d+) tokens in", judge).group(1))
        tokens_out = int(re.search(r"~(\d+) out", judge).group(1))
        assert float(re.search(r"~\$([\d.]+)", judge).group(1)) == pytest.approx(
            BUILT_IN_PRICES[JUDGE].cost(tokens_in, tokens_out), abs=1e-4)
        stopped = run_cli([*command, "--max-cost", "0.004"], api_env(server.url))
        assert stopped.exit_code == 0, stopped.output
        assert "stopped at the budget: --max-cost 0.004" in stopped.output
    summary = file_summary(tmp_path / "ff.parquet")
    assert summary["complete"] is False and summary["cost_usd"] <= 0.004
