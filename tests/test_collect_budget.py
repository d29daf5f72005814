"""The budget (collect/api/budget.py) against a provider that bills more than the price
table: spending passes the limit by at most one call's worst case, and the calls that
fit still run concurrently.

Issue 28: four calls at $0.05 went out against a $0.02 budget (one wave of concurrent
calls admitted on the table's estimate), a tenfold overshoot, in `annotate` and
`eigenbench run`.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from annotate_helpers import api_env, make_base_data, make_run_inputs, run_cli
from chat_server import ChatServer, Reply, hashed_judge
from helpers import run_here

from ffsite.collect.api.budget import Budget
from ffsite.collect.api.session import run_sync  # a browser test's loop may run

BILL = 0.05  # what the provider bills for every call, far above the table's figure


def simulate(limit: float | None, *, bill: float, worst: float, used: float, calls: int,
             concurrency: int) -> tuple[Budget, dict]:
    """`calls` calls through `concurrency` lanes, each admitted by the budget, answered a
    moment later and billed `bill` (`worst`: its worst case at table prices, `used`: the
    table's figure for the tokens it used)."""
    seen = {"made": 0, "in_flight": 0, "most": 0, "most_before_a_bill": 0, "billed": False}

    async def main() -> Budget:
        budget = Budget(limit)
        lanes = asyncio.Semaphore(concurrency)

        async def one() -> None:
            async with lanes:
                if not await budget.admit(worst):
                    return
                seen["made"] += 1
                seen["in_flight"] += 1
                seen["most"] = max(seen["most"], seen["in_flight"])
                if not seen["billed"]:
                    seen["most_before_a_bill"] = max(seen["most_before_a_bill"],
                                                     seen["in_flight"])
                await asyncio.sleep(0.002)
                seen["in_flight"] -= 1
                seen["billed"] = True
                budget.settle(worst, bill, used)

        await asyncio.gather(*(one() for _ in range(calls)))
        return budget

    return run_sync(main()), seen


def test_a_provider_billing_a_hundred_times_the_table_gets_one_call():
    budget, seen = simulate(0.02, bill=BILL, worst=0.0005, used=0.0003, calls=8,
                            concurrency=4)
    assert seen["made"] == 1 and budget.stopped
    assert budget.spent == pytest.approx(BILL)  # over the limit by the call that told


def test_an_honest_provider_uses_the_budget_up_with_calls_in_parallel():
    budget, seen = simulate(0.01, bill=0.0003, worst=0.0005, used=0.0003, calls=100,
                            concurrency=4)
    assert budget.stopped and budget.spent <= 0.01
    # A call that does not fit waits for those in flight instead of stopping the run:
    # what is left at the end is less than one call's worst case.
    assert budget.spent > 0.01 - 0.0005
    assert seen["most_before_a_bill"] == 1 and seen["most"] == 4


def test_every_call_is_admitted_without_a_budget():
    budget, seen = simulate(None, bill=BILL, worst=0.0005, used=0.0003, calls=20,
                            concurrency=4)
    assert seen["made"] == 20 and not budget.stopped and seen["most_before_a_bill"] == 4


def test_an_answer_longer_than_its_worst_case_raises_the_markup():
    budget = Budget(10.0)
    run_sync(budget.admit(1.0))
    budget.settle(1.0, bill=3.0, table=3.0)  # as the table prices it, but 3 x the worst
    assert budget.markup == 3.0 and budget.spent == 3.0


# ------------------------------------------------------------- against the local server

def billed(request) -> Reply:
    """Every call billed BILL, its tokens counted as the server does (characters / 4):
    annotate's judge gets verdicts, anything else a short answer."""
    is_annotate_judge = "Rules:\n" in request.user_text
    reply = hashed_judge(request) if is_annotate_judge else Reply("A short answer.")
    prompt = sum(len(message["content"]) for message in request.messages)
    reply.usage = {"prompt_tokens": prompt // 4, "completion_tokens": len(reply.content) // 4,
                   "cost": BILL}
    return reply


def annotate(tmp_path, server, budget: float) -> None:
    make_run_inputs(tmp_path, 12, {"j": {"input": 1.0, "output": 1.0}})
    result = run_cli(["annotate", "--model", "m", "--judge", "j", "--base-data",
                      str(tmp_path / "base"), "--responses", str(tmp_path / "responses.json"),
                      "--traits", str(tmp_path / "traits.txt"), "--prices",
                      str(tmp_path / "prices.json"), "--cache-dir", str(tmp_path / "cache"),
                      "--out", str(tmp_path / "out.parquet"), "--judge-max-tokens", "100",
                      "--concurrency", "4", "--max-cost", str(budget)], api_env(server.url))
    assert result.exit_code == 0, result.output
    assert "stopped at the budget" in result.output


def eigenbench(tmp_path, server, budget: float) -> None:
    models = ("m1", "m2", "m3")
    (tmp_path / "prices.json").write_text(json.dumps(
        {model: {"input": 1.0, "output": 1.0} for model in models}))
    command = ["eigenbench", "run", "--constitution", "hhh", "--base-data",
               str(make_base_data(tmp_path / "base", 4)), "--prices",
               str(tmp_path / "prices.json"), "--cache-dir", str(tmp_path / "cache"),
               "--out", str(tmp_path / "out.parquet"), "--max-tokens", "10",
               "--reflection-max-tokens", "10", "--judge-max-tokens", "10",
               "--concurrency", "4", "--max-cost", str(budget),
               *[part for model in models for part in ("--model", model)]]
    done = run_here(*command, env=api_env(server.url))
    # Stopped in the answers: nothing to judge, which the run says (or, with room for
    # some comparisons, it writes what it has).
    assert done.returncode == 0 or "nothing was judged" in done.stderr, done.stderr


@pytest.mark.parametrize("budget", [0.02, 0.3])
@pytest.mark.parametrize("method", [annotate, eigenbench], ids=["annotate", "eigenbench"])
def test_spending_passes_the_budget_by_at_most_one_call(tmp_path, method, budget):
    with ChatServer(billed, latency=0.05) as server:
        method(tmp_path, server, budget)
        spent = BILL * len(server.answered)
        most = server.max_in_flight
    assert 0 < spent <= budget + BILL
    if budget > 3 * BILL:  # room for more than one call: they still go out in parallel
        assert most > 1
