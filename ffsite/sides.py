"""Which response of a comparison is shown as A: a seeded coin flip per comparison.

The flip is a pure function of (seed, comparison id) — the lowest bit of the first byte
of SHA-256("<seed>:<comparison id>") — so anyone can recompute it, and the same
comparison gets the same sides in every file and every run.  Files record the outcome
in model_a/model_b and response_a_id/response_b_id; readers never need the rule.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np


def swapped(comparison_ids: Iterable[str], seed: int) -> np.ndarray:
    """Per comparison, True when its first-named response goes on side B."""
    prefix = f"{seed}:".encode()
    return np.fromiter((hashlib.sha256(prefix + c.encode("utf-8")).digest()[0] & 1
                        for c in comparison_ids), dtype=np.uint8).astype(bool)


def assign_sides(first: np.ndarray, second: np.ndarray, swap: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(side A, side B) values: `first` on A unless swapped."""
    return np.where(swap, second, first), np.where(swap, first, second)
