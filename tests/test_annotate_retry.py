"""Faults on a real local server: 429 + Retry-After, 500s, dropped connections, slow
answers past the timeout, the attempt cap, and the limit on calls in flight."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from annotate_helpers import (
    api_env,
    file_summary,
    instructions,
    make_base_data,
    read_rows,
    run_cli,
)
from chat_server import ChatServer, Reply, hashed_judge

from ffsite.datasets.alpaca_eval.reader import prompt_id

N = 4


@pytest.fixture
def base(tmp_path):
    base = make_base_data(tmp_path / "base", 12)
    responses = tmp_path / "responses.json"
    responses.write_text(json.dumps([{"instruction": t, "output": f"Answer {i}."}
                                     for i, t in enumerate(instructions(12))]))
    return base, responses


def _run(server, base, tmp_path, *extra):
    folder, responses = base
    return run_cli(["annotate", "--model", "m", "--judge", "j", "--base-data", str(folder),
                    "--responses", str(responses), "--limit", str(N), "--cache-dir",
                    str(tmp_path / "cache"), "--out", str(tmp_path / "out.parquet"),
                    "--backoff", "0.01", *extra], api_env(server.url))


def scripted(faults):
    """A handler that answers the k-th request for a call with faults[k], then normally."""
    seen = Counter()

    def handler(request):
        k = seen[request.digest]
        seen[request.digest] += 1
        return faults[k] if k < len(faults) else hashed_judge(request)
    return handler


def _attempts(server):
    return Counter(r.digest for r in server.requests)


def test_429_waits_for_retry_after(base, tmp_path):
    with ChatServer(scripted([Reply(status=429, headers={"Retry-After": "0.4"})])) as server:
        result = _run(server, base, tmp_path)
        assert result.exit_code == 0, result.output
        assert sorted(_attempts(server).values()) == [2] * N
        for digest in _attempts(server):
            times = [r.time for r in server.requests if r.digest == digest]
            assert times[1] - times[0] >= 0.4
    rows = read_rows(tmp_path / "out.parquet")
    assert not any(r["vote"] == "invalid" for r in rows)
    summary = file_summary(tmp_path / "out.parquet")
    assert summary["retries"] == N and summary["failed_calls"] == 0


@pytest.mark.parametrize("fault", [Reply(status=500), Reply(status=503), Reply(drop=True),
                                   Reply(raw_body=b"<html>gateway</html>"),
                                   Reply(delay=3.0)], ids=["500", "503", "drop", "not-json",
                                                           "slow"])
def test_transient_faults_are_retried(base, tmp_path, fault):
    with ChatServer(scripted([fault, fault])) as server:
        result = _run(server, base, tmp_path, "--timeout", "0.5")
        assert result.exit_code == 0, result.output
        assert sorted(_attempts(server).values()) == [3] * N
    assert not any(r["vote"] == "invalid" for r in read_rows(tmp_path / "out.parquet"))
    assert file_summary(tmp_path / "out.parquet")["retries"] == 2 * N


def test_attempt_cap_gives_invalid_votes_and_the_run_finishes(base, tmp_path):
    with ChatServer(scripted([Reply(status=500)] * 10)) as server:
        # (--max-invalid 1: this test looks inside a file of failures.)
        result = _run(server, base, tmp_path, "--max-attempts", "3", "--max-invalid", "1")
        assert result.exit_code == 0, result.output
        assert sorted(_attempts(server).values()) == [3] * N
    rows = read_rows(tmp_path / "out.parquet")
    assert len(rows) == N * 40
    assert {r["vote"] for r in rows} == {"invalid"}
    assert {r["note"] for r in rows} == {"judge call failed: HTTP 500 after 3 attempts"}
    summary = file_summary(tmp_path / "out.parquet")
    assert summary["failed_calls"] == N and summary["calls"] == 0
    assert summary["retries"] == 2 * N and summary["invalid_rate"] == 1.0
    assert f"{N} failed" in result.output


def test_client_errors_are_not_retried(base, tmp_path):
    with ChatServer(scripted([Reply("context too long", status=400)])) as server:
        result = _run(server, base, tmp_path, "--max-invalid", "1")
        assert result.exit_code == 0, result.output
        assert sorted(_attempts(server).values()) == [1] * N
    notes = {r["note"] for r in read_rows(tmp_path / "out.parquet")}
    assert notes == {"judge call failed: HTTP 400: context too long"}


def test_a_rejected_key_stops_the_run(base, tmp_path):
    with ChatServer(lambda r: Reply("invalid key", status=401)) as server:
        result = _run(server, base, tmp_path)
    assert result.exit_code != 0
    assert "HTTP 401" in str(result.exception) and "API key" in str(result.exception)
    assert not (tmp_path / "out.parquet").exists()


def test_calls_in_flight_never_exceed_the_limit(base, tmp_path):
    with ChatServer(hashed_judge, latency=0.15) as server:
        result = _run(server, base, tmp_path, "--concurrency", "3", "--limit", "12")
        assert result.exit_code == 0, result.output
        assert len(server.requests) == 12
        assert server.max_in_flight == 3


def test_a_failed_generation_gives_invalid_votes(tmp_path):
    folder = make_base_data(tmp_path / "base", 3)

    def handler(request):
        if not request.is_judge and "Question 0:" in request.user_text:
            return Reply(status=502)
        return hashed_judge(request)

    with ChatServer(handler) as server:
        result = run_cli(["annotate", "--model", "m", "--judge", "j", "--base-data",
                          str(folder), "--votes", "2", "--max-attempts", "2", "--backoff", "0",
                          "--max-invalid", "0.5",
                          "--cache-dir", str(tmp_path / "cache"),
                          "--out", str(tmp_path / "out.parquet")], api_env(server.url))
        assert result.exit_code == 0, result.output
        judged = [r for r in server.requests if r.is_judge]
    assert len(judged) == 2 * 2 and not any("Question 0:" in r.user_text for r in judged)
    lost = prompt_id(instructions(3)[0])
    rows = [r for r in read_rows(tmp_path / "out.parquet") if r["prompt_id"] == lost]
    assert len(rows) == 2 * 40 and {r["seed"] for r in rows} == {0, 1}
    assert {(r["vote"], r["note"]) for r in rows} == {
        ("invalid", "no answer: generation failed: HTTP 502 after 2 attempts")}
    answers = json.loads((tmp_path / "out.responses.json").read_text())
    assert sorted(a["instruction"] for a in answers) == instructions(3)[1:]
    summary = file_summary(tmp_path / "out.parquet")
    assert summary["failed_calls"] == 1 and summary["generation_calls"] == 2
