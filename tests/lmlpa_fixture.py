"""Simulated LMLPA ratings for tests (a test fixture: invented numbers, never real data).

Ratings go through the real path: a Likert CSV, `import_likert`, `write_scores`, and are
read back with `read_scores`.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from ffsite import bfi
from ffsite.format import read_scores, write_scores
from ffsite.importers.likert import import_likert

HEADER = ("model", "item", "score", "rater", "seed", "order")
# The BFI-44 key, typed from the published scoring key (not read from ffsite's items file):
# E 6R 21R 31R; A 2R 12R 27R 37R; C 8R 18R 23R 43R; N 9R 24R 34R; O 35R 41R.
REVERSE_KEYED = {f"Q{n}" for n in (6, 21, 31, 2, 12, 27, 37, 8, 18, 23, 43, 9, 24, 34, 35,
                                   41)}


def keyed(item: str, score: float) -> float:
    """A stored score on its trait's scale: 6 - score for a reverse-keyed item."""
    return 6 - score if item in REVERSE_KEYED else score


def write_csv(path: Path, rows: list[tuple]) -> Path:
    """rows: (model, item, score[, rater[, seed[, order]]])."""
    width = max(len(r) for r in rows)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(HEADER[:width])
        for row in rows:
            writer.writerow([*row, *[""] * (width - len(row))])
    return path


def write_ratings(folder: Path, rows: list[tuple], name: str = "lmlpa") -> Path:
    """The rows as a scores file `folder/<name>.parquet`, through the importer."""
    folder.mkdir(parents=True, exist_ok=True)
    source = write_csv(folder / f"{name}.csv", rows)
    result = import_likert(source)
    out = folder / f"{name}.parquet"
    write_scores(result.frame, out, judges=result.judges, extra=result.extra)
    source.unlink()
    return out


def read(path: Path):
    return read_scores([path])


def simulated_rows(models: tuple[str, ...] = ("sim-alpha", "sim-beta", "sim-gamma"),
                   rater: str = "sim-rater", seeds: int = 2, reversed_share: float = 0.0,
                   seed: int = 7) -> list[tuple]:
    """Every item for every model and seed: each model has a true level per trait, each
    rating is that level (turned round for reverse-keyed items) plus noise, rounded onto
    1-5.  With reversed_share, that share of answers also gets a reversed-order rating,
    one point off half the time."""
    rng = np.random.default_rng(seed)
    rows = []
    for model in models:
        level = {trait: rng.uniform(1.5, 4.5) for trait in bfi.TRAITS}
        for run in range(seeds):
            for item in bfi.instrument().items:
                true = level[item.trait]
                if item.reverse_keyed:
                    true = bfi.KEY_FLIP - true
                score = int(np.clip(np.rint(true + rng.normal(0, 0.6)), 1, 5))
                rows.append((model, item.id, score, rater, run, "normal"))
                if rng.random() < reversed_share:
                    other = score if rng.random() < 0.5 else int(np.clip(
                        score + rng.choice([-1, 1]), 1, 5))
                    rows.append((model, item.id, other, rater, run, "reversed"))
    return rows
