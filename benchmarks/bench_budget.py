"""The speed issue's budgets on the default site, each a real `ffsite` process.

    python benchmarks/bench_budget.py [--base-data ../shared/data] [--runs 5]

Medians of --runs runs of each (targets in brackets):
- cold build: an empty cache folder and a new output folder [<= 15 s, <= 1 GB];
- forced build: the same cache (kept results), `--force` [<= 5 s as warm];
- current build: inputs unchanged, the site is kept ("is current") [<= 5 s];
- template edit: `ffsite serve --watch --force` running, one template changed, until the
  served page shows the edit (the watcher's wait included) [<= 2 s]: a page template
  (trait_scored.html, 30 pages), the model page (model.html, 338 pages) and base.html
  (every page);
- serve, site current: from start to the first page served [<= 5 s];
- `ffsite --help`, `--version` [<= 0.5 s] and `ffsite build --help` [<= 1 s];
- the four judged imports as commands: llm-dreams + poem-eval, Behavioral Profiling +
  EQ-Bench 3 [< 5 s a pair].
Wall seconds, and for builds the CPU seconds and peak memory: wait4's (the largest
single process) and the summed PSS of the process and its children, sampled.  Runs
one after the other; say the machine's load when quoting.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(args: list[str], env: dict[str, str]) -> tuple[float, float, float, float]:
    """(wall s, CPU s, peak RSS MB, peak summed PSS MB) of `python -m ffsite ARGS`: the
    RSS is wait4's, the largest single process; the PSS is the process and every child
    it forks at once (a build computes its slowest tables ahead in a child), sampled
    every 0.2 s."""
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "ffsite", *args], cwd=REPO, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = [0.0]
    sampler = threading.Thread(target=_sample_pss, args=(process.pid, peak), daemon=True)
    sampler.start()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    sampler.join()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"ffsite {' '.join(args)} failed: {process.stderr.read().decode()}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, peak[0]


def _sample_pss(pid: int, peak: list[float]) -> None:
    """Keep in peak[0] the largest summed PSS (MB) of `pid` and its descendants, read
    from /proc (Linux; 0 elsewhere) until `pid` has ended."""
    while Path(f"/proc/{pid}").exists():
        total, waiting = 0, [pid]
        while waiting:
            current = waiting.pop()
            try:
                for line in Path(f"/proc/{current}/smaps_rollup").read_text().splitlines():
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
                for task in Path(f"/proc/{current}/task").iterdir():
                    waiting += [int(c) for c in (task / "children").read_text().split()]
            except (OSError, ValueError):
                continue  # (it ended meanwhile)
        peak[0] = max(peak[0], total / 1024)
        time.sleep(0.2)


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


EDITS = (("trait_scored.html", "traits/agency.html"), ("model.html", "models/o3.html"),
         ("base.html", "about.html"))


def serve_template_edits(site_args: list[str], env: dict[str, str], templates: Path,
                         n: int) -> dict[str, float]:
    """Seconds from saving each template of EDITS to its page served with the edit, with
    `ffsite serve --watch` running (started with --force, so it holds the computed site)."""
    process = subprocess.Popen([sys.executable, "-m", "ffsite", "serve", "--port", "0",
                                "--force", *site_args], cwd=REPO, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    found = {}
    try:
        line = ""
        while not line.startswith("serving "):
            line = process.stdout.readline()
            if not line:
                raise SystemExit("ffsite serve stopped before serving")
        url = line.split(" at ", 1)[1].split(" ", 1)[0]
        for name, page in EDITS:
            mark = f"edit {n} of {name}".encode()
            path = templates / name
            text = path.read_text("utf-8")
            started = time.perf_counter()
            path.write_text(text.replace("</body>", f"<!-- {mark.decode()} --></body>")
                            if "</body>" in text else text.replace(
                                "{% block main %}", f"{{% block main %}}<!-- {mark.decode()} -->",
                                1), "utf-8")
            while True:
                with urllib.request.urlopen(url + page, timeout=60) as answer:
                    if mark in answer.read():
                        break
                if time.perf_counter() - started > 120:
                    raise SystemExit(f"{name}: the edit never reached {page}")
                time.sleep(0.02)
            found[name] = time.perf_counter() - started
        return found
    finally:
        process.terminate()
        process.wait()


def edits_only(base: Path, work: Path, env: dict[str, str], runs: int) -> None:
    templates = work / "templates"
    shutil.copytree(REPO / "templates", templates)
    site = ["--base-data", str(base), "--templates", str(templates), "--out",
            str(work / "site")]
    build_env = {**env, "FFSITE_CACHE_DIR": str(work / "cache")}
    run(["build", *site, "--quiet"], build_env)  # the results kept for every serve
    edited = [serve_template_edits(site, build_env, templates, n) for n in range(runs)]
    report_edits(edited)


def report_edits(edited: list[dict[str, float]]) -> None:
    for name, _ in EDITS:
        times = [found[name] for found in edited]
        print(f"serve --watch, {name} edited, until served: median {median(times)} s "
              f"(runs: {', '.join(f'{t:.2f}' for t in times)})", flush=True)


def median(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}"


def report(name: str, found: list[tuple[float, float, float, float]]) -> None:
    walls, cpus, peaks, summed = zip(*found, strict=True)
    print(f"{name}: median {median(list(walls))} s wall, {median(list(cpus))} s CPU, "
          f"peak {max(peaks):.0f} MB RSS, {max(summed):.0f} MB PSS of all its processes "
          f"(runs: {', '.join(f'{w:.1f}' for w in walls)})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-data", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--edits-only", action="store_true",
                        help="only the template edits through serve --watch")
    options = parser.parse_args()
    base = Path(options.base_data).resolve()
    work = Path(tempfile.mkdtemp(prefix="ffsite-budget-"))
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1764547200", "PYTHONPATH": str(REPO)}
    print(f"load average at start: {os.getloadavg()[0]:.2f}", flush=True)
    try:
        if options.edits_only:
            edits_only(base, work, env, options.runs)
            return
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
                found.append((first[0] + second[0], first[1] + second[1],
                              max(first[2], second[2]), max(first[3], second[3])))
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
            served.append(serve_first_page([*site, *out], build_env))
            edited.append(serve_template_edits([*site, *out], build_env, templates, n))
            shutil.rmtree(cache)
        report("cold build (empty cache)", cold)
        report("forced build (results kept)", forced)
        report("current build (inputs unchanged)", current)
        report_edits(edited)
        print(f"serve, site current, first page: median {median(served)} s",
              flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
