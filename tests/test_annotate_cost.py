"""Tokens and cost from `usage`, the --max-cost budget stop, and --dry-run."""

from __future__ import annotations

import pytest
from annotate_helpers import api_env, file_summary, make_run_inputs, run_cli
from chat_server import ChatServer, hashed_judge

N = 12


@pytest.fixture
def base(tmp_path):
    return make_run_inputs(tmp_path, N, {"j": {"input": 1000, "output": 1000},
                                         "m": {"input": 2000, "output": 4000}})


def _args(tmp_path, *extra, cache="cache", out="out.parquet"):
    return ["annotate", "--model", "m", "--judge", "j", "--base-data", str(tmp_path / "base"),
            "--traits", str(tmp_path / "traits.txt"), "--prices", str(tmp_path / "prices.json"),
            "--cache-dir", str(tmp_path / cache), "--out", str(tmp_path / out), *extra]


def fixed_usage(request):
    """100 tokens in, 50 out on every call: a judge call costs 0.15 USD at 1000 USD/M."""
    reply = hashed_judge(request)
    reply.usage = {"prompt_tokens": 100, "completion_tokens": 50}
    return reply


def test_cost_from_the_price_table(base, tmp_path):
    with ChatServer(fixed_usage) as server:
        result = run_cli(_args(tmp_path, "--limit", "3"), api_env(server.url))
    assert result.exit_code == 0, result.output
    summary = file_summary(tmp_path / "out.parquet")
    # 3 generations at (100 * 2000 + 50 * 4000) / 1e6 = 0.4, 3 judge calls at 0.15.
    assert summary["cost_usd"] == pytest.approx(3 * 0.4 + 3 * 0.15)
    assert summary["cost_source"] == "price table"
    assert (summary["prompt_tokens"], summary["completion_tokens"]) == (600, 300)
    assert summary["total_tokens"] == 900 and summary["calls"] == 6
    assert "$1.6500 (price table)" in result.output


def test_provider_reported_cost_wins(base, tmp_path):
    def reported(request):
        reply = fixed_usage(request)
        reply.usage["cost"] = 0.002
        return reply

    with ChatServer(reported) as server:
        assert run_cli(_args(tmp_path, "--limit", "3"), api_env(server.url)).exit_code == 0
    summary = file_summary(tmp_path / "out.parquet")
    assert summary["cost_usd"] == pytest.approx(6 * 0.002)
    assert summary["cost_source"] == "provider"


def test_budget_stop_keeps_what_is_done_and_a_rerun_finishes(base, tmp_path):
    responses = ["--responses", str(tmp_path / "responses.json"), "--judge-max-tokens", "100",
                 "--concurrency", "1"]
    with ChatServer(fixed_usage) as server:
        stopped = run_cli(_args(tmp_path, *responses, "--max-cost", "1.0"),
                          api_env(server.url))
        assert stopped.exit_code == 0, stopped.output
        done = len(server.requests)
        summary = file_summary(tmp_path / "out.parquet")
        assert "stopped at the budget" in stopped.output
        assert 0 < done < N and done * 0.15 <= 1.0
        assert summary["complete"] is False and summary["judge_calls"] == done
        assert summary["votes"] == 2 * done
        assert summary["cost_usd"] == pytest.approx(done * 0.15)

        finished = run_cli(_args(tmp_path, *responses, "--max-cost", "100"),
                           api_env(server.url))
        assert finished.exit_code == 0, finished.output
        assert len(server.requests) == N  # no answered call was paid twice
        assert len({r.digest for r in server.requests}) == N
        assert file_summary(tmp_path / "out.parquet")["complete"] is True

        uninterrupted = run_cli(_args(tmp_path, *responses, cache="c2", out="full.parquet"),
                                api_env(server.url))
        assert uninterrupted.exit_code == 0
    assert (tmp_path / "out.parquet").read_bytes() == (tmp_path / "full.parquet").read_bytes()


def test_budget_needs_a_price(base, tmp_path):
    with ChatServer(fixed_usage) as server:
        result = run_cli(["annotate", "--model", "m", "--judge", "unpriced-judge",
                          "--base-data", str(tmp_path / "base"), "--max-cost", "1",
                          "--cache-dir", str(tmp_path / "cache"),
                          "--out", str(tmp_path / "o.parquet")], api_env(server.url))
        assert not server.requests
    assert "--max-cost needs a price for 'm'" in str(result.exception)


def test_dry_run_spends_nothing_and_counts_what_is_left(base, tmp_path):
    with ChatServer(fixed_usage) as server:
        env = api_env(server.url)
        dry = run_cli(_args(tmp_path, "--limit", "3", "--votes", "2", "--dry-run"), env)
        assert dry.exit_code == 0, dry.output
        assert not server.requests
        assert not (tmp_path / "out.parquet").exists() and not (tmp_path / "cache").exists()
        assert "generation: 3 calls to m (0 more cached)" in dry.output
        assert "judge: 6 calls to j (0 more cached)" in dry.output
        assert "nothing was sent" in dry.output

        assert run_cli(_args(tmp_path, "--limit", "2", "--votes", "2"), env).exit_code == 0
        sent = len(server.requests)
        again = run_cli(_args(tmp_path, "--limit", "3", "--votes", "2", "--dry-run"), env)
        assert len(server.requests) == sent
    assert "generation: 1 calls to m (2 more cached)" in again.output
    assert "judge: 2 calls to j (4 more cached)" in again.output


def test_dry_run_prices_the_estimate(base, tmp_path):
    """One judge call with 2 rules: its estimate is the price of the tokens shown."""
    with ChatServer(fixed_usage) as server:
        dry = run_cli(_args(tmp_path, "--limit", "1", "--dry-run", "--responses",
                            str(tmp_path / "responses.json")), api_env(server.url))
    line = next(line for line in dry.output.splitlines() if line.startswith("judge:"))
    tokens_in = int(line.split("~")[1].split(" ")[0])
    tokens_out = int(line.split("~")[2].split(" ")[0])
    assert tokens_out == 6 * 2 + 8
    assert f"~${(tokens_in + tokens_out) * 1000 / 1e6:.4f}" in line
    assert "generation" not in dry.output
