"""ffsite versus the published feedback-forensics package on one AnnotatedPairs file.

    python -m venv /tmp/ffvenv && /tmp/ffvenv/bin/pip install feedback-forensics
    python benchmarks/bench_vs_ff.py --ff-python /tmp/ffvenv/bin/python [--comparisons 100000]

Writes a synthetic AnnotatedPairs v2 file (N comparisons, 40 FF traits, 8 models), then,
in one run and in fresh processes each time (median of --repeat runs):
  feedback-forensics: import the package, load the file, compute the metrics against the
                      preference annotator (timed inside its process, phase by phase);
  ffsite, in process: import the file to Parquet, then the metrics from Parquet twice:
                      on a file never seen (FFSITE_NO_CACHE=1, every rule checked) and
                      right after the import (the writer cached what it checked);
  ffsite import:      `ffsite import annotated-pairs FILE --out X.parquet` (whole command);
  ffsite metrics:     `ffsite metrics X.parquet --format csv` (whole command), after the
                      import and with FFSITE_NO_CACHE=1.
Peak memory is each process's max RSS.  feedback-forensics is never an ffsite dependency.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

FF_SCRIPT = r"""
import json, os, resource, sys, time
os.environ["FF_AVAIL_METRICS"] = '["strength", "relevance", "cohens_kappa"]'
start = time.perf_counter()
from feedback_forensics.data.handler import ColumnHandler
imported = time.perf_counter()
handler = ColumnHandler(cache={})
handler.load_data_from_path(sys.argv[1])
loaded = time.perf_counter()
handler.compute_annotator_metrics()
done = time.perf_counter()
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")]
print(json.dumps({"import_s": imported - start, "load_s": loaded - imported,
                  "metrics_s": done - loaded, "peak_mb": int(hwm[0].split()[1]) / 1024}))
"""


FFSITE_SCRIPT = r"""
import json, os, sys, time
from ffsite.format.read import read_annotations
from ffsite.format.write import write_votes
from ffsite.importers.annotated_pairs import read_annotated_pairs
from ffsite.metrics.results import metrics_table
source, out = sys.argv[1], sys.argv[2]
start = time.perf_counter()
result = read_annotated_pairs(source)
write_votes(result.table, out, default_preference=result.default_preference)
imported = time.perf_counter()

def metrics():
    begin = time.perf_counter()
    table = metrics_table(read_annotations([out], columns=[]))  # as `ffsite metrics` reads
    assert len(table) == 40
    return time.perf_counter() - begin

os.environ["FFSITE_NO_CACHE"] = "1"  # a file never seen: every rule checked
cold = metrics()
del os.environ["FFSITE_NO_CACHE"]
after_import = metrics()  # the writer left what it checked in the cache
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")]
print(json.dumps({"import_s": imported - start, "metrics_s": cold,
                  "metrics_warm_s": after_import, "peak_mb": int(hwm[0].split()[1]) / 1024}))
"""


def make_file(path: Path, n: int, seed: int = 0) -> None:
    """An AnnotatedPairs v2 file with a preference annotator and the 40 FF v1 traits."""
    from ffsite.traits import FF_V1

    rng = np.random.default_rng(seed)
    default = "ba751e7b"
    annotators = {default: {"name": "preferred_text", "type": "unknown",
                            "description": "Default annotator"}}
    annotators.update({t.id: {"description": t.wording, "type": "principle"} for t in FF_V1})
    models = [f"model-{i}" for i in range(8)]
    choices = np.array(["a", "b", None, "invalid"], dtype=object)
    votes = rng.choice(4, size=(n, len(FF_V1) + 1), p=[0.4, 0.4, 0.15, 0.05])
    pairs = rng.integers(0, len(models), size=(n, 2))
    with open(path, "w") as handle:
        handle.write(json.dumps({"metadata": {"version": "2.0", "dataset_name": "bench",
                                              "default_annotator": default},
                                 "annotators": annotators})[:-1])
        handle.write(', "comparisons": [')
        for i in range(n):
            annotations = {}
            for j, annotator in enumerate([default, *(t.id for t in FF_V1)]):
                choice = choices[votes[i, j]]
                if choice in ("a", "b"):
                    annotations[annotator] = {"pref": choice}
                else:
                    annotations[annotator] = {"pref": None, "no_pref_reason":
                                              "invalid" if choice else "not_applicable"}
            comparison = {"id": f"c{i}", "prompt": f"Prompt number {i % 5000}",
                          "response_a": {"text": f"Response A to {i} " * 20,
                                         "model": models[pairs[i, 0]]},
                          "response_b": {"text": f"Response B to {i} " * 15,
                                         "model": models[pairs[i, 1]]},
                          "annotations": annotations, "metadata": {"topic": f"t{i % 7}"}}
            handle.write(("," if i else "") + json.dumps(comparison))
        handle.write("]}\n")


def timed(command: list[str], env: dict | None = None) -> tuple[float, float, str]:
    """Wall seconds and peak RSS (MB) of a child process."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, **(env or {})})
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    out = process.stdout.read()
    if status != 0:
        raise SystemExit(f"{command[:3]} failed: {process.stderr.read()[-2000:]}")
    return wall, usage.ru_maxrss / 1024, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ff-python", required=True,
                        help="python of a virtualenv with feedback-forensics installed")
    parser.add_argument("--comparisons", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        os.environ["FFSITE_CACHE_DIR"] = str(Path(folder) / "cache")  # emptied each run
        source, out = Path(folder) / "pairs.json", Path(folder) / "pairs.parquet"
        make_file(source, args.comparisons)
        print(f"AnnotatedPairs file: {args.comparisons:,} comparisons x 41 annotators, "
              f"{source.stat().st_size / 1e6:.0f} MB")
        rows = {"ff": [], "ffsite": [], "import": [], "metrics": []}
        for _ in range(args.repeat):
            wall, peak, text = timed([args.ff_python, "-c", FF_SCRIPT, str(source)])
            rows["ff"].append({"wall": wall, "peak": peak, **json.loads(text.splitlines()[-1])})
            shutil.rmtree(os.environ["FFSITE_CACHE_DIR"], ignore_errors=True)  # cold start
            _, _, text = timed([sys.executable, "-c", FFSITE_SCRIPT, str(source), str(out)])
            rows["ffsite"].append(json.loads(text.splitlines()[-1]))
            wall, peak, _ = timed([sys.executable, "-m", "ffsite", "import", "annotated-pairs",
                                   str(source), "--out", str(out)])
            rows["import"].append({"wall": wall, "peak": peak})
            wall, peak, _ = timed([sys.executable, "-m", "ffsite", "metrics", str(out),
                                   "--format", "csv"])
            cold, _, _ = timed([sys.executable, "-m", "ffsite", "metrics", str(out),
                                "--format", "csv"], env={"FFSITE_NO_CACHE": "1"})
            rows["metrics"].append({"wall": wall, "peak": peak, "cold": cold})
        med = {name: {k: float(np.median([r[k] for r in runs])) for k in runs[0]}
               for name, runs in rows.items()}
        ff = med["ff"]
        ff_load = ff["import_s"] + ff["load_s"]
        ff_total = ff_load + ff["metrics_s"]
        print(f"feedback-forensics: package import {ff['import_s']:.2f} s, load "
              f"{ff['load_s']:.2f} s, metrics {ff['metrics_s']:.2f} s; process wall "
              f"{ff['wall']:.2f} s, peak {ff['peak']:.0f} MB")
        inner = med["ffsite"]
        ff_work = ff["load_s"] + ff["metrics_s"]
        print(f"ffsite, in process: import {inner['import_s']:.2f} s, metrics from Parquet "
              f"{inner['metrics_s']:.3f} s cold (never seen), {inner['metrics_warm_s']:.3f} s "
              f"after the import (checked-file cache), peak {inner['peak_mb']:.0f} MB")
        print(f"ffsite, whole commands: `ffsite import` {med['import']['wall']:.2f} s "
              f"(peak {med['import']['peak']:.0f} MB), `ffsite metrics` after the import "
              f"{med['metrics']['wall']:.2f} s (peak {med['metrics']['peak']:.0f} MB), cold "
              f"{med['metrics']['cold']:.2f} s; Parquet {out.stat().st_size / 1e6:.1f} MB")
        print(f"ratio, FF load / ffsite import (in process):                "
              f"{ff['load_s'] / inner['import_s']:.1f}x")
        print(f"ratio, FF load+metrics / ffsite metrics (in process, cold): "
              f"{ff_work / inner['metrics_s']:.1f}x")
        print(f"ratio, FF load+metrics / ffsite metrics (in process, after import): "
              f"{ff_work / inner['metrics_warm_s']:.1f}x")
        print(f"ratio, FF package import+load / `ffsite import` command:    "
              f"{ff_load / med['import']['wall']:.1f}x")
        print(f"ratio, FF import+load+metrics / `ffsite metrics` command:   "
              f"{ff_total / med['metrics']['wall']:.1f}x after the import, "
              f"{ff_total / med['metrics']['cold']:.1f}x cold")


if __name__ == "__main__":
    main()
