"""Seconds for `ffsite eigenbench fit`: the fit plus 200 bootstrap refits, end to end.

Simulated judgments (tests/eigenbench_fixture.py: known lenses, dispositions and tie
propensities, d = 2): 20 models, each also a judge, 2,000 comparisons per judge (40,000
comparisons, each judged in both orders: 80,000 votes), one votes file. Each run is a real
subprocess `ffsite eigenbench fit FILE --dims 2 --bootstrap 200 --format json`, including
start-up and reading the file; the median of --runs runs is reported, then one run that
also chooses d by held-out log-likelihood (no --dims). Recovery: Spearman correlation of
the fitted Elo with the true EigenTrust Elo.

    python benchmarks/bench_eigenbench.py [--models 20] [--per-judge 2000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

import eigenbench_fixture as fixture  # noqa: E402  (a test helper, found through tests/)


def timed_fit(path: Path, *extra: str) -> tuple[float, float, dict]:
    """(wall seconds, CPU seconds of the subprocess, its JSON output)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "ffsite", "eigenbench", "fit", str(path),
                           "--bootstrap", "200", "--seed", "1", "--format", "json", *extra],
                          env=env, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    return wall, cpu, json.loads(done.stdout)


def spearman(fitted: dict, true_elo: np.ndarray, names: tuple[str, ...]) -> float:
    elo = pd.DataFrame(fitted["ratings"]).set_index("model").loc[list(names), "elo"]
    return float(pd.Series(elo.to_numpy()).corr(pd.Series(true_elo), method="spearman"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=20)
    parser.add_argument("--per-judge", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    truth = fixture.truth(args.models, 2, seed=7)
    with tempfile.TemporaryDirectory() as folder:
        path = fixture.write_simulated_votes(Path(folder), truth,
                                             args.models * args.per_judge, seed=8)
        seconds, cpu = [], []
        for _ in range(args.runs):
            elapsed, used, fitted = timed_fit(path, "--dims", "2")
            seconds.append(elapsed)
            cpu.append(used)
        auto_seconds, auto_cpu, auto = timed_fit(path)
    names = fixture.names(args.models)
    print(f"machine: {platform.platform()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}")
    print(f"{args.models} models x {args.models} judges x {args.per_judge} comparisons per "
          f"judge ({fitted['judgments']} judgments), 200 bootstrap refits")
    print(f"--dims 2: wall {', '.join(f'{s:.1f}' for s in seconds)} s; median "
          f"{statistics.median(seconds):.1f} s wall, {statistics.median(cpu):.1f} s CPU; "
          f"load average {os.getloadavg()[0]:.1f}; Spearman vs true Elo "
          f"{spearman(fitted, truth.elo, names):.3f}")
    print(f"d by held-out log-likelihood (chose d={auto['dims']}): {auto_seconds:.1f} s "
          f"wall, {auto_cpu:.1f} s CPU; "
          f"Spearman {spearman(auto, truth.elo, names):.3f}")


if __name__ == "__main__":
    main()
