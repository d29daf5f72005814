"""Kill -9 mid-run, run again: finished calls are not repeated, the file is identical."""

from __future__ import annotations

import os
import signal
import time
from collections import Counter

from annotate_helpers import api_env, make_base_data, run_subprocess
from chat_server import ChatServer, hashed_judge

N = 16
CONCURRENCY = 4


def _args(base, cache, out):
    return ["annotate", "--model", "m", "--judge", "j", "--base-data", str(base),
            "--limit", str(N), "--votes", "2", "--concurrency", str(CONCURRENCY),
            "--cache-dir", str(cache), "--out", str(out)]


def test_kill_and_resume(tmp_path):
    base = make_base_data(tmp_path / "base", N)
    out = tmp_path / "resumed.parquet"
    with ChatServer(hashed_judge, latency=0.1) as server:
        env = api_env(server.url)
        killed = run_subprocess(_args(base, tmp_path / "cache", out), env)
        deadline = time.monotonic() + 60
        while len(server.answered) < 16 and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait()
        server.settle()  # (requests the killed run sent are all counted)
        answered_before_kill = len(server.answered)
        cached = len(list((tmp_path / "cache").rglob("*.json")))
        asked_before = len(server.requests)
        assert 16 <= answered_before_kill < N * 3 and not out.exists()

        resumed = run_subprocess(_args(base, tmp_path / "cache", out), env)
        stdout, stderr = resumed.communicate(timeout=120)
        assert resumed.returncode == 0, stderr
        resumed = len(server.requests) - asked_before
        repeats = Counter(r.digest for r in server.answered).values()

        fresh = run_subprocess(_args(base, tmp_path / "fresh-cache", tmp_path / "fresh.parquet"),
                               env)
        assert fresh.wait(timeout=120) == 0

    # Every call (N generations + 2N judge calls) was answered.  The resumed run asked
    # exactly for the calls not cached at the kill (those in flight then, or answered
    # but not yet written, included) and for none that was: no answered call paid twice.
    assert len(repeats) == 3 * N
    assert resumed == 3 * N - cached
    assert sum(n - 1 for n in repeats) <= CONCURRENCY  # a call keeps its lane until stored
    assert len(list((tmp_path / "cache").rglob("*.json"))) == 3 * N
    assert f"({resumed} new, {cached} from cache)" in stdout
    assert out.read_bytes() == (tmp_path / "fresh.parquet").read_bytes()
    assert (tmp_path / "resumed.responses.json").read_bytes() == (
        tmp_path / "fresh.responses.json").read_bytes()
