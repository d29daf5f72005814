"""Calls per second of `ffsite eigenbench run` and `ffsite lmlpa run` against a local server.

The server (tests/chat_server.py, in this process's thread) answers every call after
--latency seconds, with answers shaped like the real ones: an answer, a reflection, a
JSON verdict per criterion, a one-line questionnaire answer, a rating.  Each command runs
as a real subprocess with an empty cache (then once more, from the cache); times include
start-up and writing the files.  Medians of --runs.

    python benchmarks/bench_collect.py [--latency 0.05] [--concurrency 16] [--runs 3]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from chat_server import ChatServer, Reply, Request  # noqa: E402

MODELS = [f"bench-model-{n}" for n in range(5)]
FILLER = "It explains the idea step by step, gives an example and sums up the point. "


def answer(request: Request) -> Reply:
    text = request.user_text
    digest = hashlib.sha256(text.encode()).digest()
    if not request.is_judge:
        if "personality test" in text:
            return Reply(content="I often do this, because it helps the person I talk to.")
        return Reply(content=f"{request.model} answers. " + FILLER * 6)
    if "<response_a>" in text:
        n_criteria = len(re.findall(r"^\d+\. ", text.split("A user sent", 1)[0], re.M))
        return Reply(content=json.dumps({str(i): "AB"[digest[i] % 2]
                                         for i in range(1, n_criteria + 1)}))
    if "questionnaire" in request.messages[0]["content"]:
        return Reply(content=str(1 + digest[0] % 5))
    return Reply(content="The reply fits the first criterion well and the others in part. "
                 * 3)


def base_data(folder: Path, n: int) -> Path:
    outputs = folder / "alpaca_eval" / "model_outputs"
    outputs.mkdir(parents=True)
    records = [{"dataset": "bench", "instruction": f"Benchmark scenario {i}: what should "
                "I consider before adopting a dog?", "output": FILLER * 8,
                "generator": "gpt4_1106_preview"} for i in range(n)]
    (outputs / "gpt4_1106_preview.json").write_text(json.dumps(records))
    return folder


def timed(command: list[str], env: dict) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "ffsite", *command], env=env,
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:2])} failed: {done.stderr[-500:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--scenarios", type=int, default=40)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    results: dict[str, list[float]] = {}
    with ChatServer(answer, latency=args.latency) as server, \
            tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        base = base_data(folder / "base", args.scenarios)
        env = {**os.environ, "FFSITE_API_BASE": server.url, "FFSITE_API_KEY": "bench",
               "PYTHONPATH": str(REPO)}
        common = ["--concurrency", str(args.concurrency), "--backoff", "0"]
        for run in range(args.runs):
            eigen = ["eigenbench", "run", "--constitution", "hhh", "--base-data", str(base),
                     "--pairs-per-judge", "2", "--out", str(folder / f"eb{run}.parquet"),
                     "--cache-dir", str(folder / f"eb-cache{run}"), *common]
            for model in MODELS:
                eigen += ["--model", model]
            lmlpa = ["lmlpa", "run", "--model", MODELS[0], "--rater", MODELS[1],
                     "--seeds", "5", "--order-reversal", "--out",
                     str(folder / f"lm{run}.parquet"), "--answers-out",
                     str(folder / f"answers/lm{run}.json"),
                     "--cache-dir", str(folder / f"lm-cache{run}"), *common]
            for name, command in (("eigenbench", eigen), ("lmlpa", lmlpa)):
                before = len(server.requests)
                results.setdefault(f"{name} fresh", []).append(timed(command, env))
                calls = len(server.requests) - before
                results.setdefault(f"{name} calls", []).append(calls)
                results.setdefault(f"{name} cached", []).append(timed(command, env))
    ceiling = args.concurrency / args.latency
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
          f"{platform.python_version()}; latency {args.latency * 1000:.0f} ms, concurrency "
          f"{args.concurrency} (ceiling {ceiling:.0f} calls/s); medians of {args.runs} runs")
    for name in ("eigenbench", "lmlpa"):
        calls = statistics.median(results[f"{name} calls"])
        fresh = statistics.median(results[f"{name} fresh"])
        cached = statistics.median(results[f"{name} cached"])
        print(f"{name} run: {calls:.0f} calls in {fresh:.2f} s ({calls / fresh:.0f} "
              f"calls/s, {calls / fresh / ceiling:.0%} of the ceiling); rerun from the "
              f"cache {cached:.2f} s")


if __name__ == "__main__":
    main()
