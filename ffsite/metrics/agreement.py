"""Trait agreement (FF paper, fig. 11): how often two traits pick the same side.

For every pair of traits, over the comparisons where both gave an A/B vote, Cohen's
kappa of the two votes; and the relevance overlap: comparisons where both traits are
relevant divided by those where at least one is, among the comparisons on which both
traits were asked (a vote other than NO_VOTE).  Counting only where both were asked
matters where traits are asked of some comparisons only: EQ-Bench 3 asks some criteria
of one kind of scenario, and a criterion's relevance on the scenarios the other was
never asked of would count against their overlap.  All pairs at once with matrix
products of the 0/1 indicators.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ffsite.format import schema
from ffsite.metrics.strength import TraitVotes

COLUMNS = ("trait_id_a", "trait_id_b", "cohens_kappa", "overlap", "both_relevant",
           "either_relevant")


def agreement_counts(votes: TraitVotes) -> dict[str, np.ndarray]:
    """[traits, traits] counts: aa, ab, ba, bb (vote of trait i, vote of trait j), and
    either: comparisons that asked both traits where at least one is relevant."""
    matrix = votes.matrix
    voted_a = (matrix == schema.A).astype(np.float64)
    voted_b = (matrix == schema.B).astype(np.float64)
    asked = (matrix != schema.NO_VOTE).astype(np.float64)
    relevant = voted_a + voted_b
    # einsum, not BLAS: exact, and a multithreaded BLAS stalls on small machines.
    counts = {"aa": np.einsum("ni,nj->ij", voted_a, voted_a),
              "ab": np.einsum("ni,nj->ij", voted_a, voted_b),
              "ba": np.einsum("ni,nj->ij", voted_b, voted_a),
              "bb": np.einsum("ni,nj->ij", voted_b, voted_b)}
    both_relevant = sum(counts.values())
    # Relevant implies asked, so over the comparisons asking both: i relevant, plus j
    # relevant, minus both.
    relevant_asked = np.einsum("ni,nj->ij", relevant, asked)
    counts["either"] = relevant_asked + relevant_asked.T - both_relevant
    return counts


def kappa_and_overlap(counts: dict[str, np.ndarray]) -> tuple[np.ndarray, ...]:
    """(kappa, overlap, both, either); NaN where undefined (no shared votes, or one label)."""
    aa, ab, ba, bb = counts["aa"], counts["ab"], counts["ba"], counts["bb"]
    both = aa + ab + ba + bb
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = (aa + bb) / both
        a_first = (aa + ab) / both  # share of A among trait i's votes
        a_second = (aa + ba) / both
        expected = a_first * a_second + (1 - a_first) * (1 - a_second)
        kappa = np.where(expected < 1, (observed - expected) / (1 - expected), np.nan)
        overlap = np.where(counts["either"] > 0, both / counts["either"], np.nan)
    kappa = np.where(both > 0, kappa, np.nan)
    return kappa, overlap, both, counts["either"]


def trait_agreement(votes: TraitVotes) -> pd.DataFrame:
    """One row per unordered pair of traits with a relevant vote between them."""
    kappa, overlap, both, either = kappa_and_overlap(agreement_counts(votes))
    ids = votes.traits["trait_id"].to_numpy()
    first, second = np.triu_indices(len(ids), k=1)
    keep = either[first, second] > 0
    first, second = first[keep], second[keep]
    return pd.DataFrame({
        "trait_id_a": ids[first], "trait_id_b": ids[second],
        "cohens_kappa": kappa[first, second], "overlap": overlap[first, second],
        "both_relevant": both[first, second].astype(np.int64),
        "either_relevant": either[first, second].astype(np.int64),
    }, columns=list(COLUMNS))
