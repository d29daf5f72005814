"""`ffsite annotate` against a server that lies or misbehaves: impossible costs, a
provider charging above the price table, `usage` of the wrong type, answers nested
50,000 deep or larger than any chat answer, a damaged cache, and a run where every call
fails.  The budget holds, the run finishes or fails with one reason, and nothing that
looks like a result is written from failures."""

from __future__ import annotations

import json

import pytest
from annotate_helpers import api_env, file_summary, make_run_inputs, run_cli
from chat_server import ChatServer, Reply, hashed_judge

from ffsite.collect.api.client import MAX_BODY

N = 8


@pytest.fixture
def base(tmp_path):
    return make_run_inputs(tmp_path, N, {"j": {"input": 1000, "output": 1000}})


def _args(tmp_path, *extra):
    return ["annotate", "--model", "m", "--judge", "j", "--base-data", str(tmp_path / "base"),
            "--responses", str(tmp_path / "responses.json"),
            "--traits", str(tmp_path / "traits.txt"), "--prices", str(tmp_path / "prices.json"),
            "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "out.parquet"),
            "--backoff", "0", "--judge-max-tokens", "100", "--concurrency", "1", *extra]


def with_usage(usage):
    """Judge answers whose `usage` is exactly `usage`, whatever its type."""
    def handler(request):
        content = hashed_judge(request).content
        return Reply(raw_body=json.dumps({"choices": [{"message": {"content": content}}],
                                          "usage": usage}).encode())
    return handler


@pytest.mark.parametrize("cost", [-40000, float("nan"), float("inf"), "12", True])
def test_an_impossible_provider_cost_cannot_defeat_the_budget(cost, base, tmp_path):
    # The price table says 0.15 USD a call (100 + 50 tokens at 1000 USD/M); with a
    # budget of 0.5 only a few calls may be made whatever the provider claims.
    usage = {"prompt_tokens": 100, "completion_tokens": 50, "cost": cost}
    with ChatServer(with_usage(usage)) as server:
        result = run_cli(_args(tmp_path, "--max-cost", "0.5", "--max-invalid", "1"),
                         api_env(server.url))
        made = len(server.requests)
    assert result.exit_code == 0, result.output
    assert "stopped at the budget" in result.output
    assert 0 < made <= 3  # 3 x 0.15 <= 0.5
    summary = file_summary(tmp_path / "out.parquet")
    assert summary["cost_source"] == "price table"
    assert summary["cost_usd"] == pytest.approx(made * 0.15)


def test_a_provider_charging_above_the_price_table_is_budgeted_at_its_price(base, tmp_path):
    # Each call really costs 0.6 USD, four times the table's 0.15: the run stops within
    # the limit plus at most the one call that revealed the markup.
    with ChatServer(with_usage({"prompt_tokens": 100, "completion_tokens": 50,
                                "cost": 0.6})) as server:
        result = run_cli(_args(tmp_path, "--max-cost", "1.5"), api_env(server.url))
        made = len(server.requests)
    assert result.exit_code == 0, result.output
    assert "stopped at the budget" in result.output
    assert made * 0.6 <= 1.5 + 0.6 and made < N
    assert file_summary(tmp_path / "out.parquet")["cost_usd"] == pytest.approx(made * 0.6)


def test_prices_must_be_finite_and_not_negative(base, tmp_path):
    (tmp_path / "prices.json").write_text('{"j": {"input": -1, "output": 1}}')
    result = run_cli(_args(tmp_path, "--max-cost", "1"), {})
    assert result.exit_code == 1
    assert "model 'j': prices must be finite and not negative" in str(result.exception)
    (tmp_path / "prices.json").write_text('{"j": {"input": NaN, "output": 1}}')
    result = run_cli(_args(tmp_path, "--max-cost", "1"), {})
    assert "prices must be finite" in str(result.exception)


@pytest.mark.parametrize("usage", [[1, 2], "lots", {"prompt_tokens": "x",
                                                    "completion_tokens": -5}])
def test_usage_of_the_wrong_type_costs_the_numbers_not_the_run(usage, base, tmp_path):
    with ChatServer(with_usage(usage)) as server:
        result = run_cli(_args(tmp_path), api_env(server.url))
    assert result.exit_code == 0, result.output
    summary = file_summary(tmp_path / "out.parquet")
    assert summary["calls"] == N and summary["invalid_votes"] == 0
    assert summary["prompt_tokens"] == 0 and summary["completion_tokens"] == 0


def test_a_50000_deep_answer_is_an_invalid_vote_and_a_rerun_works(base, tmp_path):
    deep = "[" * 50_000 + "]" * 50_000

    def handler(request):
        reply = hashed_judge(request)
        if "Question 0:" in request.user_text:
            reply.content = deep
        return reply

    for _ in range(2):  # the second run reads the deep answer from the cache
        with ChatServer(handler) as server:
            result = run_cli(_args(tmp_path), api_env(server.url))
        assert result.exit_code == 0, result.output
    summary = file_summary(tmp_path / "out.parquet")
    assert summary["invalid_votes"] == 2  # one comparison, two traits


def test_an_answer_larger_than_any_chat_answer_is_refused(base, tmp_path):
    huge = json.dumps({"choices": [{"message": {"content": "x" * (MAX_BODY + 10)}}]})

    def handler(request):
        if "Question 0:" in request.user_text:
            return Reply(raw_body=huge.encode())
        return hashed_judge(request)

    with ChatServer(handler) as server:
        result = run_cli(_args(tmp_path), api_env(server.url))
    assert result.exit_code == 0, result.output
    notes = [r for r in _votes(tmp_path) if r["vote"] == "invalid"]
    assert len(notes) == 2
    assert {r["note"] for r in notes} == {"judge call failed: answer larger than 16 MB; refused"}


def _votes(tmp_path):
    from annotate_helpers import read_rows
    return read_rows(tmp_path / "out.parquet")


def test_a_damaged_cache_entry_is_a_miss_and_is_reported(base, tmp_path):
    with ChatServer(hashed_judge) as server:
        assert run_cli(_args(tmp_path), api_env(server.url)).exit_code == 0
        first = (tmp_path / "out.parquet").read_bytes()
        entries = sorted((tmp_path / "cache").rglob("*.json"))
        entries[0].write_text('{"content": 5}')  # valid JSON, wrong shape
        entries[1].write_text('{"content": "A", "prompt')  # cut short
        entries[2].write_text("[" * 50_000)
        result = run_cli(_args(tmp_path), api_env(server.url))
        assert len(server.requests) == N + 3  # exactly the three damaged calls again
    assert result.exit_code == 0, result.output
    assert "cache: 3 damaged entries were ignored and their calls made again" in result.output
    assert (tmp_path / "out.parquet").read_bytes() == first


def test_a_run_where_every_call_fails_writes_nothing(base, tmp_path):
    with ChatServer(lambda request: Reply(status=500)) as server:
        result = run_cli(_args(tmp_path, "--max-attempts", "2"), api_env(server.url))
    assert result.exit_code == 1
    message = str(result.exception)
    assert message.startswith("100.0% of the votes are invalid, more than --max-invalid 20%")
    assert "judge call failed: HTTP 500 after 2 attempts" in message
    assert not (tmp_path / "out.parquet").exists()


def test_the_invalid_threshold_can_be_raised(base, tmp_path):
    def handler(request):
        return Reply(status=500) if "Question 0:" in request.user_text else hashed_judge(
            request)

    with ChatServer(handler) as server:
        refused = run_cli(_args(tmp_path, "--max-attempts", "1", "--max-invalid", "0.1"),
                          api_env(server.url))
        accepted = run_cli(_args(tmp_path, "--max-attempts", "1", "--max-invalid", "0.2"),
                           api_env(server.url))
    assert refused.exit_code == 1 and "12.5% of the votes are invalid" in str(
        refused.exception)
    assert accepted.exit_code == 0, accepted.output
    assert file_summary(tmp_path / "out.parquet")["invalid_rate"] == 0.125


@pytest.mark.parametrize(("flag", "value"), [("--model", "m\x1b[2J"), ("--judge", "j\x00")])
def test_a_name_the_file_cannot_hold_stops_before_any_call(base, tmp_path, flag, value):
    args = _args(tmp_path)
    args[args.index(flag) + 1] = value
    with ChatServer(hashed_judge) as server:
        result = run_cli(args, api_env(server.url))
        assert not server.requests
    assert result.exit_code == 1
    assert f"{flag} {value!r}: text holds the control character" in str(result.exception)
    assert not (tmp_path / "out.parquet").exists()
