"""The speed issue's budgets on the default site, each a real `ffsite` process.

    python benchmarks/bench_budget.py [--base-data ../shared/data] [--runs 5]

Medians of --runs runs of each (targets in brackets):
- cold build: an empty cache folder and a new output folder [<= 15 s, <= 1 GB];
- forced build: the same cache (drawings and kept results), `--force` [<= 5 s as warm];
- current build: inputs unchanged, the site is kept ("is current") [<= 5 s];
- template edit: one template changed, then a build (what `serve --watch` does on an
  edit) [<= 2 s];
- serve, site current: from start to the first page served [<= 5 s];
- `ffsite --help`, `--version` [<= 0.5 s] and `ffsite build --help` [<= 1 s];
- the four judged imports as commands: llm-dreams + poem-eval, Behavioral Profiling +
  EQ-Bench 3 [< 5 s a pair].
Wall seconds, and for builds the CPU seconds and peak memory of the process (with its
children) from wait4.  Runs one after the other; say the machine's load when quoting.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(args: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MB) of `python -m ffsite ARGS`."""
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "ffsite", *args], cwd=REPO, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"ffsite {' '.join(args)} failed: {process.stderr.read().decode()}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def serve_first_page(site_args: list[str], env: dict[str, str]) -> float:
    """Seconds from starting `ffsite serve` (site current) to index.html served."""
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "ffsite", "serve", "--port", "0",
                                "--no-watch", *site_args], cwd=REPO, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = ""
        while not line.startswith("serving "):  # "serving SITE at URL (Ctrl+C stops)"
            line = process.stdout.readline()
            if not line:
                raise SystemExit("ffsite serve stopped before serving")
        url = line.split(" at ", 1)[1].split(" ", 1)[0]
        with urllib.request.urlopen(url, timeout=60) as answer:
            answer.read()
        return time.perf_counter() - started
    finally:
        process.terminate()
        process.wait()


def median(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}"


def report(name: str, found: list[tuple[float, float, float]]) -> None:
    walls, cpus, peaks = zip(*found, strict=True)
    print(f"{name}: median {median(list(walls))} s wall, {median(list(cpus))} s CPU, "
          f"peak {max(peaks):.0f} MB (runs: {', '.join(f'{w:.1f}' for w in walls)})",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-data", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    base = Path(options.base_data).resolve()
    work = Path(tempfile.mkdtemp(prefix="ffsite-budget-"))
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1764547200", "PYTHONPATH": str(REPO)}
    print(f"load average at start: {os.getloadavg()[0]:.2f}", flush=True)
    try:
        for name, args in (("ffsite --help", ["--help"]), ("ffsite --version", ["--version"]),
                           ("ffsite build --help", ["build", "--help"])):
            report(name, [run(args, env) for _ in range(options.runs)])
        imports = {"llm-dreams + poem-eval": [
            ["import", "llm-dreams", str(base / "llm_dreams"), "--out", str(work / "ld.parquet")],
            ["import", "poem-eval", str(base / "poem_eval"), "--out", str(work / "pe.parquet")]],
            "Behavioral Profiling + EQ-Bench 3": [
            ["import", "behavioral-profiling", str(base / "behavioral_profiling"), "--out",
             str(work / "bp.parquet")],
            ["import", "eqbench3", str(base / "eqbench3" / "pairwise_comparisons.json.gz"),
             "--out", str(work / "eq.parquet")]]}
        for name, pair in imports.items():
            found = []
            for _ in range(options.runs):
                first, second = run(pair[0], env), run(pair[1], env)
                found.append(tuple(a + b for a, b in zip(first, second, strict=True)))
            report(f"imports {name}", found)
        templates = work / "templates"
        shutil.copytree(REPO / "templates", templates)
        site = ["--base-data", str(base), "--templates", str(templates)]
        cold, forced, current, edited, served = [], [], [], [], []
        for n in range(options.runs):
            cache = work / f"cache-{n}"
            build_env = {**env, "FFSITE_CACHE_DIR": str(cache)}
            out = ["--out", str(work / f"site-{n}")]
            quiet = ["--quiet"]
            cold.append(run(["build", *site, *out, *quiet], build_env))
            forced.append(run(["build", *site, *out, *quiet, "--force"], build_env))
            current.append(run(["build", *site, *out, *quiet], build_env))
            served.append((serve_first_page([*site, *out], build_env), 0.0, 0.0))
            about = templates / "404.html"
            about.write_text(about.read_text("utf-8") + f"\n{{# edit {n} #}}\n", "utf-8")
            edited.append(run(["build", *site, *out, *quiet], build_env))
            shutil.rmtree(cache)
        report("cold build (empty cache)", cold)
        report("forced build (drawings and results kept)", forced)
        report("current build (inputs unchanged)", current)
        report("build after a template edit", edited)
        print(f"serve, site current, first page: median {median([s[0] for s in served])} s",
              flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
