"""Ratings speed: Bradley–Terry + Firth with 1,000 bootstrap refits, 40 traits x 70 models.

    python benchmarks/bench_ratings.py                  # defaults below
    python benchmarks/bench_ratings.py --bootstrap 200 --comparisons 2000

Writes a synthetic votes file into a temp folder: 70 models (model-00 is the anchor and
takes part in a fifth of the comparisons, as AA samples its anchor more), 3,500
comparisons by default (about 100 per model), every comparison voted on all 40 FF
traits by one judge from known per-trait ratings (8% "neither", 2% invalid; no ties,
as a tie that is not decided by the ratings pulls the fit towards 50/50 and would
blur the recovery check).
Then times, in this process, reading the file and `ratings_table` with the given number
of bootstrap refits, and prints wall time, CPU time (all threads), the machine's load
average, and how well the known ratings were recovered (Spearman correlation, share of
models whose interval holds the truth).
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

N_MODELS = 70
MODELS = [f"model-{i:02d}" for i in range(N_MODELS)]
ANCHOR = MODELS[0]


def make_file(path: Path, n_comparisons: int, seed: int = 0) -> pd.DataFrame:
    """Write the votes file; return the true Elo per (trait_id, model)."""
    from ffsite.format import schema
    from ffsite.format.encode import encode_votes
    from ffsite.format.write import write_votes
    from ffsite.traits import FF_V1

    rng = np.random.default_rng(seed)
    traits = list(FF_V1)
    true_logit = rng.normal(0.0, 1.0, size=(len(traits), N_MODELS))
    true_logit -= true_logit[:, [0]]  # the anchor is 0 (Elo 1000) on every trait
    with_anchor = rng.random(n_comparisons) < 0.2
    model_a = np.where(with_anchor, 0, rng.integers(0, N_MODELS, n_comparisons))
    model_b = (model_a + rng.integers(1, N_MODELS, n_comparisons)) % N_MODELS
    flip = rng.random(n_comparisons) < 0.5  # the anchor on either side
    model_a, model_b = np.where(flip, model_b, model_a), np.where(flip, model_a, model_b)

    gap = true_logit[:, model_a] - true_logit[:, model_b]  # [traits, comparisons]
    a_wins = rng.random(gap.shape) < 1 / (1 + np.exp(-gap))
    draw = rng.random(gap.shape)
    vote = np.where(a_wins, schema.A, schema.B)
    vote = np.where(draw < 0.08, schema.NEITHER, vote)
    vote = np.where((draw >= 0.08) & (draw < 0.10), schema.INVALID, vote)

    ids = [f"c{i:06d}" for i in range(n_comparisons)]
    comparisons = pd.DataFrame({
        "dataset": "synthetic", "comparison_id": ids, "prompt_id": ids,
        "model_a": np.array(MODELS)[model_a], "model_b": np.array(MODELS)[model_b],
        "response_a_id": [f"{c}a" for c in ids], "response_b_id": [f"{c}b" for c in ids],
    })
    annotators = pd.DataFrame({
        "role": "trait", "judge": "judge-x", "trait_id": [t.id for t in traits],
        "trait": [t.wording for t in traits], "trait_set": "ff-v1",
    })
    table = encode_votes(comparisons, annotators,
                         np.tile(np.arange(n_comparisons), len(traits)),
                         np.repeat(np.arange(len(traits)), n_comparisons),
                         vote.reshape(-1))
    write_votes(table, path)
    return pd.DataFrame({
        "trait_id": np.repeat([t.id for t in traits], N_MODELS),
        "model": np.tile(MODELS, len(traits)),
        "true_elo": 1000 + 400 / np.log(10) * true_logit.reshape(-1),
    })


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--comparisons", type=int, default=3500)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from ffsite.format.read import read_annotations
    from ffsite.metrics.ratings import ratings_table

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "synthetic.parquet"
        truth = make_file(path, args.comparisons, args.seed)
        load_before = os.getloadavg()[0]
        wall, cpu = time.perf_counter(), time.process_time()
        annotations = read_annotations([path])
        read_s = time.perf_counter() - wall
        table = ratings_table(annotations, anchor=ANCHOR, n_bootstrap=args.bootstrap,
                              seed=args.seed)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu

    merged = table.merge(truth, on=["trait_id", "model"])
    spearman = merged.groupby("trait_id").apply(
        lambda g: g["elo"].corr(g["true_elo"], method="spearman"), include_groups=False)
    covered = ((merged["ci_low"] <= merged["true_elo"])
               & (merged["true_elo"] <= merged["ci_high"]))[merged["model"] != ANCHOR]
    print(f"machine: {platform.machine()} {platform.processor() or ''} "
          f"{os.cpu_count()} cores, Python {platform.python_version()}, "
          f"numpy {np.__version__}")
    print(f"data: {table['trait_id'].nunique()} traits x {table['model'].nunique()} models, "
          f"{args.comparisons} comparisons per trait, {args.bootstrap} bootstrap refits")
    print(f"read: {read_s:.2f} s; read + ratings_table: {wall:.1f} s wall, {cpu:.1f} s CPU "
          f"(load average before/after: {load_before:.1f}/{os.getloadavg()[0]:.1f}; other "
          "jobs on the machine stretch the wall time)")
    print(f"recovery: median Spearman {spearman.median():.3f} (min {spearman.min():.3f}); "
          f"95% intervals hold the true Elo for {covered.mean():.1%} of (trait, model)")


if __name__ == "__main__":
    main()
