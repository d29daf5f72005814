"""Speed of the judged data: the two imports, and the whole default build.

    python benchmarks/bench_judged.py [--base-data ../shared/data] [--repeat 3]

1. `ffsite import behavioral-profiling` and `ffsite import eqbench3` as library calls
   (read, check, write), each `--repeat` times in this process: median wall seconds of
   each and of both together (target: < 5 s together).
2. `ffsite build` of the repository's default site (annotations/, content/, templates/,
   with the base data) in a child process, `--repeat` times: median wall and CPU seconds
   and the largest peak memory (max RSS of that process; target: < 30 s, < 2 GB).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ffsite.datasets.behavioral_profiling.importer import import_behavioral_profiling
from ffsite.datasets.eqbench3.importer import import_eqbench3
from ffsite.format import write_scores, write_votes

REPO = Path(__file__).resolve().parents[1]


def import_both(base: Path, out: Path) -> tuple[float, float]:
    started = time.perf_counter()
    scored = import_behavioral_profiling(base / "behavioral_profiling")
    write_scores(scored.frame, out / "bp.parquet", judges=scored.judges, extra=scored.extra)
    middle = time.perf_counter()
    judged = import_eqbench3(base / "eqbench3" / "pairwise_comparisons.json.gz")
    write_votes(judged.table, out / "eq.parquet")
    return middle - started, time.perf_counter() - middle


def build_once(base: Path, out: Path) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MB) of one `ffsite build` in a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ffsite", "build", "--quiet", "--out", str(out),
                    "--base-data", str(base)], cwd=REPO, check=True,
                   env={**os.environ, "SOURCE_DATE_EPOCH": "0"})
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss / 1024  # the largest child so far, in MB


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-data", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    base = Path(options.base_data)
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        imports = [import_both(base, out) for _ in range(options.repeat)]
        bp = statistics.median(t[0] for t in imports)
        eq = statistics.median(t[1] for t in imports)
        both = statistics.median(t[0] + t[1] for t in imports)
        print(f"import behavioral-profiling: {bp:.2f} s, eqbench3: {eq:.2f} s, "
              f"both: {both:.2f} s (medians of {options.repeat})")
        builds = [build_once(base, out / f"site-{n}") for n in range(options.repeat)]
        print(f"default build: {statistics.median(b[0] for b in builds):.1f} s wall, "
              f"{statistics.median(b[1] for b in builds):.1f} s CPU (medians of "
              f"{options.repeat}), peak RSS {max(b[2] for b in builds):.0f} MB")


if __name__ == "__main__":
    main()
