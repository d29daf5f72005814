"""Metrics engine speed: per-(target model, trait) and per-(split value, trait) tables.

    python benchmarks/bench_metrics.py                 # 10k, 100k and 1M comparisons
    python benchmarks/bench_metrics.py --sizes 1000000 --formats 1 2

For each size it writes a synthetic votes file (40 traits, 8 models, a 5-value split
column, one preference vote and 40 trait votes per comparison) into a temp folder, then
times, in a fresh subprocess, reading the file and computing both tables; it reports wall
time and the subprocess's peak memory (max RSS).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

N_TRAITS, MODELS, SPLITS = 40, [f"model-{i}" for i in range(8)], ["s0", "s1", "s2", "s3", "s4"]


def _dictionary(indices: np.ndarray, values: list[str]) -> pa.DictionaryArray:
    """Dictionary array from integer codes; negative codes become nulls."""
    missing = indices < 0
    codes = pa.array(np.where(missing, 0, indices).astype(np.int32), pa.int32(),
                     mask=missing if missing.any() else None)
    return pa.DictionaryArray.from_arrays(codes, pa.array(values))


def make_file(path: Path, n: int, version: str = "2", seed: int = 0) -> None:
    """Write the synthetic file straight with pyarrow, in the format's order: version 2
    (one row per comparison, a column per annotator) or version 1 (one row per vote),
    the same votes either way."""
    from ffsite.format import schema
    from ffsite.format.write import file_metadata, write_parquet
    from ffsite.traits import FF_V1

    rng = np.random.default_rng(seed)
    per = 1 + N_TRAITS  # annotator 0 = preference, 1.. = traits
    model_a = rng.integers(0, len(MODELS), n, dtype=np.int32)
    model_b = (model_a + rng.integers(1, len(MODELS), n, dtype=np.int32)) % len(MODELS)
    split = rng.integers(0, len(SPLITS), n, dtype=np.int32)
    traits = sorted(FF_V1, key=lambda t: t.id)[:N_TRAITS]
    vote = rng.choice(6, size=(n, per), p=[0.35, 0.35, 0.1, 0.15, 0.03, 0.02]).astype(np.int32)
    ids = [f"c{i:08d}" for i in range(n)]
    if version == "2":
        comparison = np.arange(n, dtype=np.int32)
        columns = _comparison_columns(comparison, ids, model_a, model_b, split, n)
        for number in range(per):
            columns[f"vote:{number}"] = _dictionary(vote[:, number], list(schema.VOTE_VALUES))
        entries = [{"role": "preference", "judge": "human", "trait_id": None, "trait": None,
                    "trait_set": None, "seed": None}]
        entries += [{"role": "trait", "judge": "judge-x", "trait_id": t.id,
                     "trait": t.wording, "trait_set": "ff-v1", "seed": None} for t in traits]
        metadata = file_metadata(schema.KIND_VOTES, vote_columns=entries)
    else:
        rows = n * per
        comparison = np.repeat(np.arange(n, dtype=np.int32), per)
        annotator = np.tile(np.arange(per, dtype=np.int32), n)
        trait_index = np.where(annotator > 0, annotator - 1, -1)
        columns = _comparison_columns(comparison, ids, model_a, model_b, split, rows)
        split_column = columns.pop("meta.split")
        columns.update({
            "role": _dictionary((annotator > 0).astype(np.int32), ["preference", "trait"]),
            "judge": _dictionary((annotator > 0).astype(np.int32), ["human", "judge-x"]),
            "trait_id": _dictionary(trait_index, [t.id for t in traits]),
            "trait": _dictionary(trait_index, [t.wording for t in traits]),
            "trait_set": _dictionary(np.where(annotator > 0, 0, -1), ["ff-v1"]),
            "seed": pa.nulls(rows, pa.int64()),
            "vote": _dictionary(vote.reshape(-1), list(schema.VOTE_VALUES)),
            "note": _dictionary(np.full(rows, -1, np.int32), ["x"]),
            "meta.split": split_column,
        })
        metadata = {**file_metadata(schema.KIND_VOTES), "format_version": "1"}
    table = pa.Table.from_arrays(list(columns.values()), names=list(columns))
    write_parquet(table, metadata, path)


def _comparison_columns(comparison: np.ndarray, ids: list[str], model_a: np.ndarray,
                        model_b: np.ndarray, split: np.ndarray, rows: int) -> dict:
    """The comparison columns, one value per row (a row: a comparison or a vote)."""
    return {
        "dataset": _dictionary(np.zeros(rows, np.int32), ["synthetic"]),
        "comparison_id": _dictionary(comparison, ids),
        "prompt_id": _dictionary(comparison % 800, [f"p{i:03d}" for i in range(800)]),
        "model_a": _dictionary(model_a[comparison], MODELS),
        "model_b": _dictionary(model_b[comparison], MODELS),
        "response_a_id": _dictionary(comparison, ids),
        "response_b_id": _dictionary(comparison, ids),
        "meta.split": _dictionary(split[comparison], SPLITS),
    }


def peak_memory_mb() -> float:
    """This process's peak resident memory (VmHWM).

    Not getrusage's ru_maxrss: on Linux a child started by fork + exec inherits the
    parent's high-water mark there, which would charge the file generator's memory to
    the measured process.
    """
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_tables(path: str) -> dict:
    """In this process: read, then both tables; print timings as JSON."""
    from ffsite.format.read import read_annotations
    from ffsite.metrics.strength import (
        group_by_column,
        metric_frame,
        model_reference,
        preference_reference,
        trait_votes,
    )

    start = time.perf_counter()
    annotations = read_annotations([path])
    read_done = time.perf_counter()
    votes = trait_votes(annotations)
    by_model = metric_frame(votes, model_reference(annotations), group_name="model")
    codes, groups = group_by_column(annotations, "split")
    by_split = metric_frame(votes, preference_reference(annotations, codes, groups))
    done = time.perf_counter()
    assert len(by_model) == len(MODELS) * N_TRAITS and len(by_split) == len(SPLITS) * N_TRAITS
    peak_mb = peak_memory_mb()
    return {"read_s": read_done - start, "tables_s": done - read_done, "total_s": done - start,
            "peak_mb": peak_mb, "votes": len(annotations.votes)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=3, help="runs per size (median shown)")
    parser.add_argument("--formats", nargs="+", default=["2"], choices=["1", "2"],
                        help="format versions to write and read (2: what ffsite writes)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_tables(args.child)))
        return
    with tempfile.TemporaryDirectory() as folder:
        print(f"{'format':>6} {'comparisons':>12} {'votes':>11} {'file MB':>8} {'read s':>7} "
              f"{'tables s':>8} {'total s':>8} {'peak MB':>8}")
        for n in args.sizes:
            for version in args.formats:
                path = Path(folder) / f"synthetic-{n}-v{version}.parquet"
                make_file(path, n, version)
                runs = []
                for _ in range(args.repeat):
                    # Cold reads: every rule checked, no cache of checked files.
                    out = subprocess.run([sys.executable, __file__, "--child", str(path)],
                                         check=True, capture_output=True, text=True,
                                         env={**os.environ, "FFSITE_NO_CACHE": "1"}).stdout
                    runs.append(json.loads(out.strip().splitlines()[-1]))
                med = {k: float(np.median([r[k] for r in runs])) for k in runs[0]}
                print(f"{version:>6} {n:>12,} {int(med['votes']):>11,} "
                      f"{path.stat().st_size / 1e6:>8.1f} {med['read_s']:>7.2f} "
                      f"{med['tables_s']:>8.2f} {med['total_s']:>8.2f} {med['peak_mb']:>8.0f}")
                path.unlink()


if __name__ == "__main__":
    main()
