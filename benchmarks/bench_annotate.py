"""Judge calls per second of `ffsite annotate`, end to end, against a local server.

The server (tests/chat_server.py, its own process) answers every call after 50 ms; with
--concurrency 32 the ceiling is 32 / 0.05 = 640 calls/s.  The run is a real subprocess
`ffsite annotate` with given responses (judge calls only, 40 traits each, realistic
lengths) and an empty cache; the time includes start-up and writing the file.

    python benchmarks/bench_annotate.py [--prompts 2000] [--latency 0.05] [--concurrency 32]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FILLER = ("The answer explains the idea step by step, gives an example, and closes with a "
          "short summary of the main point. ")


def build_inputs(folder: Path, n: int) -> Path:
    """Base data with the reference's answers and a responses file for the benchmark model."""
    outputs = folder / "base" / "alpaca_eval" / "model_outputs"
    outputs.mkdir(parents=True)
    prompts = [f"Benchmark question {i}: explain topic {i} to a curious reader." for i in range(n)]
    reference = [{"dataset": "bench", "instruction": p, "output": f"Reference {i}. " + FILLER * 8,
                  "generator": "gpt4_1106_preview"} for i, p in enumerate(prompts)]
    (outputs / "gpt4_1106_preview.json").write_text(json.dumps(reference))
    responses = folder / "responses.jsonl"
    responses.write_text("".join(json.dumps({"instruction": p, "response": f"Mine {i}. "
                                             + FILLER * 6}) + "\n"
                                 for i, p in enumerate(prompts)))
    return responses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()

    server = subprocess.Popen([sys.executable, str(REPO / "tests" / "chat_server.py"),
                               "--latency", str(args.latency)], stdout=subprocess.PIPE,
                              text=True)
    try:
        port = int(server.stdout.readline())
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            responses = build_inputs(folder, args.prompts)
            env = {**os.environ, "FFSITE_API_BASE": f"http://127.0.0.1:{port}/v1",
                   "FFSITE_API_KEY": "bench"}
            command = [sys.executable, "-m", "ffsite", "annotate", "--model", "bench-model",
                       "--judge", "bench-judge", "--responses", str(responses),
                       "--base-data", str(folder / "base"), "--concurrency",
                       str(args.concurrency), "--cache-dir", str(folder / "cache"),
                       "--out", str(folder / "out.parquet")]
            load = os.getloadavg()[0]  # other work on the machine slows the run
            started = time.perf_counter()
            run = subprocess.run(command, env=env, capture_output=True, text=True)
            elapsed = time.perf_counter() - started
            if run.returncode != 0:
                sys.exit(f"ffsite annotate failed:\n{run.stderr}")
    finally:
        server.terminate()
        server.wait()
    ceiling = args.concurrency / args.latency
    print(run.stdout, end="")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, load average {load:.1f} before the run")
    print(f"{args.prompts} judge calls in {elapsed:.2f}s end to end (subprocess, start-up "
          f"included): {args.prompts / elapsed:.0f} calls/s; ceiling {ceiling:.0f} calls/s")


if __name__ == "__main__":
    main()
