"""Calls per second of the collecting commands against a local server: `ffsite eigenbench
run`, `ffsite lmlpa run` and `ffsite protocol run` (the AA-style panel, Behavioral
Profiling, llm-dreams).

The server (tests/chat_server.py, in this process's thread) answers every call after
--latency seconds, with answers shaped like the real ones: an answer, a reflection, a
JSON verdict per criterion, a one-line questionnaire answer, a rating.  Each command runs
as a real subprocess with an empty cache (then once more, from the cache); times include
start-up and writing the files; "in-run" is the run's own report line (calls answered
over the time from the first call to the last file written, start-up excluded).  The
protocols' server is tests/protocol_fixture.py's scripted one, which reads the datasets'
judge instructions from the base data (--base-data, default ../shared/data).  Medians of
--runs.

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
from protocol_fixture import Script  # noqa: E402

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


def timed(command: list[str], env: dict, in_run: list | None = None) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "ffsite", *command], env=env,
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:2])} failed: {done.stderr[-500:]}")
    found = re.search(r"^time: ([\d.]+)s", done.stdout, re.MULTILINE)
    if in_run is not None and found:
        in_run.append(float(found.group(1)))
    return elapsed


BARE = """
import sys, time, tempfile
from pathlib import Path
from ffsite.collect.api import Api, Session, endpoint_from_env, run_sync
n, concurrency = int(sys.argv[1]), int(sys.argv[2])
api = Api(cache_dir=Path(tempfile.mkdtemp()), concurrency=concurrency)
calls = [api.call("bench", {"model": "bare", "messages": [{"role": "user", "content":
         f"question {i}"}], "max_tokens": 64}) for i in range(n)]
async def main():
    async with Session(api, endpoint_from_env()) as session:
        await session.run("bare", calls)
started = time.perf_counter()
run_sync(main())
print(time.perf_counter() - started)
"""


def bare_rate(args: argparse.Namespace, n: int = 1860) -> float:
    """Calls per second of the API layer alone on this machine now: one phase of `n`
    calls, no method around it (what the client and server can do under the load)."""
    with ChatServer(answer, latency=args.latency) as server:
        env = {**os.environ, "FFSITE_API_BASE": server.url, "FFSITE_API_KEY": "bench",
               "PYTHONPATH": str(REPO)}
        times = [float(subprocess.run([sys.executable, "-c", BARE, str(n),
                                       str(args.concurrency)], env=env, capture_output=True,
                                      text=True, check=True).stdout)
                 for _ in range(args.runs)]
    return n / statistics.median(times)


def protocol_runs(args: argparse.Namespace, folder: Path) -> dict[str, dict[str, float]]:
    """Each protocol once per run, fresh then from the cache: calls, wall time, in-run."""
    found: dict[str, dict[str, list[float]]] = {}
    with ChatServer(Script(Path(args.base_data)), latency=args.latency) as server:
        env = {**os.environ, "FFSITE_API_BASE": server.url, "FFSITE_API_KEY": "bench",
               "PYTHONPATH": str(REPO)}
        empty = folder / "none.json"
        empty.write_text("[]")
        common = ["--concurrency", str(args.concurrency), "--backoff", "0", "--base-data",
                  args.base_data]
        for run in range(args.runs):
            commands = {
                "protocol aa-personality (3 models)": [
                    "aa-personality", "--model", MODELS[0], "--model", MODELS[1], "--model",
                    MODELS[2], "--population", str(empty)],
                "protocol behavioral-profiling": ["behavioral-profiling", "--model",
                                                  MODELS[0]],
                "protocol llm-dreams": ["llm-dreams", "--model", MODELS[0]]}
            for name, command in commands.items():
                tag = name.split()[1]
                full = ["protocol", "run", *command, *common, "--out",
                        str(folder / f"{tag}{run}.parquet"), "--cache-dir",
                        str(folder / f"{tag}-cache{run}")]
                numbers = found.setdefault(name, {"calls": [], "fresh": [], "cached": [],
                                                  "in_run": []})
                before = len(server.requests)
                numbers["fresh"].append(timed(full, env, numbers["in_run"]))
                numbers["calls"].append(len(server.requests) - before)
                numbers["cached"].append(timed(full, env))
    return {name: {k: statistics.median(v) for k, v in numbers.items()}
            for name, numbers in found.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--scenarios", type=int, default=40)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--base-data", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--only", choices=("all", "protocols"), default="all")
    args = parser.parse_args()
    ceiling = args.concurrency / args.latency
    if args.only == "protocols":
        with tempfile.TemporaryDirectory() as tmp:
            report_protocols(protocol_runs(args, Path(tmp)), ceiling, args)
        return
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
    with tempfile.TemporaryDirectory() as tmp:
        report_protocols(protocol_runs(args, Path(tmp)), ceiling, args)


def report_protocols(found: dict[str, dict[str, float]], ceiling: float,
                     args: argparse.Namespace) -> None:
    bare = bare_rate(args)
    print(f"the API layer alone (one phase of 1860 calls, no method): {bare:.0f} calls/s "
          f"({bare / ceiling:.0%} of the ceiling {ceiling:.0f}) on this machine now")
    for name, numbers in found.items():
        calls, fresh, run = numbers["calls"], numbers["fresh"], numbers["in_run"]
        print(f"{name}: {calls:.0f} calls in {fresh:.2f} s wall ({calls / fresh:.0f} "
              f"calls/s, {calls / fresh / ceiling:.0%} of the ceiling {ceiling:.0f}); "
              f"in-run {run:.2f} s ({calls / run:.0f} calls/s, {calls / run / ceiling:.0%}, "
              f"{calls / run / bare:.0%} of the API layer alone); "
              f"rerun from the cache {numbers['cached']:.2f} s")


if __name__ == "__main__":
    main()
