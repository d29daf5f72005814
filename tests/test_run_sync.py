"""The collecting commands run where an event loop is already running (a Jupyter
notebook; a test process driving a browser): `run_sync` gives the run its own thread."""

from __future__ import annotations

import asyncio
import threading

from annotate_helpers import api_env, make_base_data, read_rows, run_cli
from chat_server import ChatServer, hashed_judge

from ffsite.collect.api import run_sync


def in_a_fresh_thread(function):
    """`function()` in a thread with no event loop: the test process's main thread may
    have one running already (the browser tests' Playwright)."""
    results = []
    worker = threading.Thread(target=lambda: results.append(function()), name="fresh")
    worker.start()
    worker.join(120)
    return results[0]


async def _thread_name() -> str:
    await asyncio.sleep(0)
    return threading.current_thread().name


def test_without_a_running_loop_it_is_asyncio_run():
    assert in_a_fresh_thread(lambda: run_sync(_thread_name())) == "fresh"


def test_inside_a_running_loop_the_run_gets_its_own_thread():
    async def notebook_cell() -> str:
        return run_sync(_thread_name())

    assert in_a_fresh_thread(lambda: asyncio.run(notebook_cell())).startswith("ffsite-run")


def test_annotate_from_inside_a_running_loop(tmp_path):
    base = make_base_data(tmp_path / "base", 3)
    out = tmp_path / "votes.parquet"

    async def notebook_cell():
        with ChatServer(hashed_judge) as server:
            return run_cli(["annotate", "--model", "m", "--judge", "j", "--base-data",
                            str(base), "--cache-dir", str(tmp_path / "cache"), "--out",
                            str(out), "--max-invalid", "1"], api_env(server.url))

    result = in_a_fresh_thread(lambda: asyncio.run(notebook_cell()))
    assert result.exit_code == 0, result.output
    assert len({row["comparison_id"] for row in read_rows(out)}) == 3
