"""Benchmark `ffsite build` on a synthetic 70-model x 40-trait x 800-prompt input.

    python benchmarks/bench_build.py [--workdir DIR] [--no-texts] [--models 70]
        [--prompts 800]

Writes the input (69 models each compared with a reference on 800 prompts, 40 FF traits
voted on every comparison, a preference vote, a 5-value metadata column, and texts in a
base-data folder unless --no-texts) in one child process, then runs `ffsite build` in
another and prints its wall time, CPU time and peak memory (max RSS of that process
alone), the site's size and the home page's transfer weight (the page plus every file it
loads), raw and gzipped.  With --workdir, a second run reuses the input.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite.datasets.texts import write_texts
from ffsite.format.write import write_votes
from ffsite.traits import FF_V1

REPO = Path(__file__).resolve().parents[1]
REFERENCE = "gpt4_1106_preview"  # the repository's content/site.toml compares with it
SUBSETS = ("alpha", "beta", "gamma", "delta", "epsilon")


def synthetic_votes(n_models: int, n_prompts: int, seed: int = 0) -> pd.DataFrame:
    """One row per vote; each model has its own per-trait tendency, so strengths differ."""
    rng = np.random.default_rng(seed)
    models = [f"model-{i:02d}" for i in range(n_models - 1)]
    n_comparisons = len(models) * n_prompts
    model_index = np.repeat(np.arange(len(models)), n_prompts)
    prompt_index = np.tile(np.arange(n_prompts), len(models))
    model_on_a = rng.random(n_comparisons) < 0.5
    model_names = np.array(models, dtype=object)[model_index]
    comparisons = pd.DataFrame({
        "dataset": "synthetic",
        "comparison_id": [f"c{m}-{p}" for m, p in zip(model_index, prompt_index, strict=True)],
        "prompt_id": [f"p{p}" for p in prompt_index],
        "model_a": np.where(model_on_a, model_names, REFERENCE),
        "model_b": np.where(model_on_a, REFERENCE, model_names),
    })
    comparisons["response_a_id"] = comparisons["model_a"] + "/" + comparisons["prompt_id"]
    comparisons["response_b_id"] = comparisons["model_b"] + "/" + comparisons["prompt_id"]
    comparisons["meta.subset"] = np.array(SUBSETS, dtype=object)[prompt_index % len(SUBSETS)]

    # Per (model, trait): probability the trait applies and, if so, that the model's side
    # shows it more.
    applies = rng.uniform(0.1, 0.9, (len(models), len(FF_V1)))
    leans = rng.uniform(0.1, 0.9, (len(models), len(FF_V1)))
    draw = rng.random((n_comparisons, len(FF_V1)))
    relevant = draw < applies[model_index]
    model_side = rng.random((n_comparisons, len(FF_V1))) < leans[model_index]
    on_a = np.where(model_side, model_on_a[:, None], ~model_on_a[:, None])
    votes = np.where(relevant, np.where(on_a, "A", "B"), "neither")

    repeat = np.repeat(np.arange(n_comparisons), len(FF_V1))
    frame = comparisons.iloc[repeat].reset_index(drop=True)
    frame["role"] = "trait"
    frame["judge"] = "synthetic-judge"
    frame["trait_id"] = np.tile([t.id for t in FF_V1], n_comparisons)
    frame["trait"] = np.tile([t.wording for t in FF_V1], n_comparisons)
    frame["trait_set"] = "ff-v1"
    frame["seed"] = pd.array([None] * len(frame), dtype="Int64")
    frame["vote"] = votes.reshape(-1)
    frame["note"] = None
    preference = comparisons.copy()
    preference["role"] = "preference"
    preference["judge"] = "synthetic-preference"
    for name in ("trait_id", "trait", "trait_set", "note"):
        preference[name] = None
    preference["seed"] = pd.array([None] * len(preference), dtype="Int64")
    preference["vote"] = np.where(rng.random(n_comparisons) < 0.5, "A", "B")
    return pd.concat([frame, preference], ignore_index=True)


def synthetic_texts(n_models: int, n_prompts: int, seed: int = 1
                    ) -> tuple[dict[str, str], dict[str, str]]:
    rng = np.random.default_rng(seed)
    words = np.array(["the", "a", "model", "answer", "prompt", "**bold**", "list", "of",
                      "words", "with", "length", "and", "more", "-", "item", "1.", "2."])
    prompts = {f"p{p}": f"Synthetic prompt number {p}: explain something." for p in
               range(n_prompts)}
    responses = {}
    for model in [REFERENCE, *[f"model-{i:02d}" for i in range(n_models - 1)]]:
        for p in range(n_prompts):
            n_words = int(rng.integers(40, 250))
            responses[f"{model}/p{p}"] = " ".join(rng.choice(words, n_words))
    return prompts, responses


def home_weight(site: Path) -> tuple[int, int]:
    """Bytes of index.html and every script, stylesheet and icon it loads (raw, gzip)."""
    html = (site / "index.html").read_bytes()
    files = [html]
    for ref in re.findall(rb'(?:src|href)="([^"]+\.(?:js|css|svg))"', html):
        files.append((site / ref.decode()).read_bytes())
    return sum(map(len, files)), sum(len(gzip.compress(f, 6)) for f in files)


def write_input(workdir: Path, args: argparse.Namespace) -> None:
    """The synthetic annotations (and texts); deterministic, so kept when present."""
    votes_file = workdir / "annotations" / "synthetic.parquet"
    if not votes_file.exists():
        votes_file.parent.mkdir(parents=True, exist_ok=True)
        write_votes(synthetic_votes(args.models, args.prompts), votes_file,
                    default_preference={"synthetic": "synthetic-preference"})
    if not args.no_texts and not (workdir / "base").exists():
        write_texts(workdir / "base", "synthetic", *synthetic_texts(args.models, args.prompts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--models", type=int, default=70)
    parser.add_argument("--prompts", type=int, default=800)
    parser.add_argument("--no-texts", action="store_true")
    parser.add_argument("--input-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="ffsite-bench-"))
    annotations = workdir / "annotations"
    if args.input_only:
        write_input(workdir, args)
        return
    started = time.perf_counter()
    # In a child: a process's peak memory counts what its parent held when it forked.
    subprocess.run([sys.executable, __file__, "--workdir", str(workdir), "--models",
                    str(args.models), "--prompts", str(args.prompts), "--input-only",
                    *(["--no-texts"] if args.no_texts else [])], check=True)
    command = [sys.executable, "-m", "ffsite", "build", "--annotations", str(annotations),
               "--content", str(REPO / "content"), "--templates", str(REPO / "templates"),
               "--out", str(workdir / "site"), "--quiet"]
    if not args.no_texts:
        command += ["--base-data", str(workdir / "base")]
    print(f"input ready in {time.perf_counter() - started:.1f} s ({workdir})")

    started = time.perf_counter()
    child = subprocess.Popen(command, cwd=REPO,
                             env={**os.environ, "SOURCE_DATE_EPOCH": "1700000000"})
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"ffsite build failed ({status})")
    site = workdir / "site"
    files = [p for p in site.rglob("*") if p.is_file()]
    raw, zipped = home_weight(site)
    print(f"build: {wall:.1f} s wall, {usage.ru_utime + usage.ru_stime:.1f} s CPU, "
          f"peak RSS {usage.ru_maxrss / 1024:.0f} MB")
    print(f"site: {len(files)} files, {sum(p.stat().st_size for p in files) / 1e6:.1f} MB")
    print(f"home page transfer: {raw / 1e6:.2f} MB raw, {zipped / 1e6:.2f} MB gzipped")


if __name__ == "__main__":
    main()
