"""Design evidence, not a product path: what one row per comparison would cost to read.

    python benchmarks/explore_comparison_rows.py [--comparisons 100000] [--repeat 5]

Format 1 keeps one row per vote, so a never-seen metrics read decodes and checks eight
columns of every vote (docs/performance.md).  This script writes the same synthetic votes
(40 traits + 1 preference vote per comparison, as in bench_metrics.py) twice — as a
format-1 file with ffsite's writer, and as a sketch of a layout with one row per
comparison whose votes sit in a list column (annotator number, vote code; the annotators
themselves would live in the file's metadata) — and times, in fresh processes, reading
each with the checks that layout needs and building the comparison x trait vote matrix.
The sketch's checks: comparison ids unique, annotator numbers in range and increasing
within a comparison (no repeated vote), vote codes valid.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

N_TRAITS = 40

CHILD = r"""
import json, os, sys, time
import numpy as np
import pyarrow.parquet as pq
os.environ["FFSITE_NO_CACHE"] = "1"
from ffsite.format.read import read_annotations
from ffsite.metrics.strength import trait_votes
kind, path = sys.argv[1], sys.argv[2]
start = time.perf_counter()  # modules loaded: only the read is timed
if kind == "format1":
    matrix = trait_votes(read_annotations([path], columns=[])).matrix
else:
    table = pq.read_table(path)
    ids = table.column("comparison_id").combine_chunks()
    if len(ids.dictionary_encode().dictionary) != len(ids):
        raise SystemExit("repeated comparison id")
    votes = table.column("votes").combine_chunks()
    offsets = votes.offsets.to_numpy()
    annotator = votes.values.field("annotator").to_numpy()
    vote = votes.values.field("vote").to_numpy()
    n_annotators = len(json.loads(table.schema.metadata[b"annotators"]))
    if annotator.min() < 0 or annotator.max() >= n_annotators:
        raise SystemExit("annotator out of range")
    if vote.min() < 1 or vote.max() > 6:
        raise SystemExit("vote out of range")
    step_up = annotator[1:] > annotator[:-1]
    step_up[offsets[1:-1] - 1] = True  # a new comparison may start anywhere
    if not step_up.all():
        raise SystemExit("a repeated vote")
    width = offsets[1] - offsets[0]
    same = (annotator.reshape(-1, width) == annotator[:width]).all()
    if (np.diff(offsets) == width).all() and same:
        matrix = vote.reshape(-1, width)[:, 1:]  # annotator 0 is the preference judge
    else:
        raise SystemExit("not a grid: the sketch stops here")
elapsed = time.perf_counter() - start
print(json.dumps({"seconds": elapsed, "votes": int((matrix != 0).sum())}))
"""


def write_both(folder: Path, n: int, seed: int = 0) -> tuple[Path, Path]:
    import pandas as pd

    from ffsite.format.encode import encode_votes
    from ffsite.format.write import write_votes
    from ffsite.traits import FF_V1

    rng = np.random.default_rng(seed)
    traits = FF_V1[:N_TRAITS]
    comparisons = pd.DataFrame({
        "dataset": "bench", "comparison_id": [f"c{i:07d}" for i in range(n)],
        "prompt_id": [f"p{i % 800:03d}" for i in range(n)],
        "model_a": [f"model-{i}" for i in rng.integers(0, 8, n)],
        "model_b": [f"model-{i}" for i in rng.integers(0, 8, n)],
        "response_a_id": [f"ra{i}" for i in range(n)],
        "response_b_id": [f"rb{i}" for i in range(n)]}, dtype=object)
    annotators = pd.DataFrame({
        "role": ["preference", *["trait"] * len(traits)],
        "judge": ["human", *["judge-x"] * len(traits)],
        "trait_id": [None, *[t.id for t in traits]],
        "trait": [None, *[t.wording for t in traits]],
        "trait_set": [None, *[t.trait_set for t in traits]]}, dtype=object)
    width = len(annotators)
    votes = rng.choice([1, 2, 3, 4, 5], size=n * width, p=[0.4, 0.4, 0.05, 0.1, 0.05])
    format1 = folder / "format1.parquet"
    write_votes(encode_votes(comparisons, annotators, np.repeat(np.arange(n), width),
                             np.tile(np.arange(width), n), votes.astype(np.int8)), format1)

    # The sketch: annotators numbered in the format's sort order (preference first, then
    # trait ids), one list of (annotator, vote) per comparison.
    order = np.argsort(annotators["trait_id"].fillna("").to_numpy(), kind="stable")
    rank = np.empty(width, dtype=np.int16)
    rank[order] = np.arange(width, dtype=np.int16)
    grid = votes.reshape(n, width)[:, order]
    items = pa.StructArray.from_arrays(
        [pa.array(np.tile(np.arange(width, dtype=np.int16), n)),
         pa.array(grid.reshape(-1).astype(np.int8))], names=["annotator", "vote"])
    lists = pa.ListArray.from_arrays(pa.array(np.arange(0, n * width + 1, width, dtype=np.int32)),
                                     items)
    columns = {name: pa.array(comparisons[name].to_numpy(), pa.string()).dictionary_encode()
               for name in comparisons.columns}
    columns["votes"] = lists
    table = pa.table(columns).replace_schema_metadata({
        "annotators": json.dumps(annotators.iloc[order].to_dict("records"))})
    sketch = folder / "comparison_rows.parquet"
    pq.write_table(table, sketch, compression="zstd", compression_level=9)
    assert (rank[order] == np.arange(width)).all()
    return format1, sketch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--comparisons", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        os.environ["FFSITE_CACHE_DIR"] = str(Path(folder) / "cache")
        paths = dict(zip(("format1", "sketch"), write_both(Path(folder), args.comparisons),
                         strict=True))
        for kind, path in paths.items():
            runs = []
            for _ in range(args.repeat):
                child = subprocess.run([sys.executable, "-c", CHILD, kind, str(path)],
                                       capture_output=True, text=True)
                if child.returncode:
                    raise SystemExit(f"{kind}: {child.stderr.strip()[-500:]}")
                runs.append(json.loads(child.stdout))
            seconds = float(np.median([run["seconds"] for run in runs]))
            print(f"{kind:8s} {path.stat().st_size / 1e6:5.1f} MB  read + checks + trait "
                  f"matrix in a fresh process: {seconds:.3f} s (median of {args.repeat}, "
                  f"{runs[0]['votes']:,} trait votes)")


if __name__ == "__main__":
    main()
