"""Trait agreement (FF paper, fig. 11): how often two traits pick the same side.

For every pair of traits, over the comparisons where both gave an A/B vote, Cohen's
kappa of the two votes; and the relevance overlap: comparisons where both traits are
relevant divided by those where at least one is, among the comparisons on which both
traits were asked (a vote other than NO_VOTE).  Counting only where both were asked
matters where traits are asked of some comparisons only: EQ-Bench 3 asks some criteria
of one kind of scenario, and a criterion's relevance on the scenarios the other was
never asked of would count against their overlap.  All pairs at once with matrix
products of the 0/1 indicators.

95% intervals: percentile bootstrap over prompts.  Comparisons of one prompt share its
reference response (AlpacaEval's 67 models each meet one reference answer per prompt),
and a judge's votes on them lean together, so they are not independent: each resample
draws every dataset's prompts with replacement (as many as it has; `clusters` gives each
comparison's prompt), keeps all the comparisons of each drawn prompt, and counts every
pair of traits on that one resample.  All pairs share the resamples, so statistics over
pairs (EQ-Bench 3's median kappa between criteria) get intervals too.  Counts are
integers, summed exactly in any order: a resample is one matrix product, the same bytes
on any machine.
Where every resample gives the same end (all shared votes agree, kappa +1), the open
side takes the exact bound of a share seen in all n cases (`_at_the_ends`).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from ffsite.format import schema
from ffsite.metrics.strength import TraitVotes

COLUMNS = ("trait_id_a", "trait_id_b", "cohens_kappa", "kappa_low", "kappa_high", "overlap",
           "overlap_low", "overlap_high", "both_relevant", "either_relevant", "asked_both")


def agreement_counts(votes: TraitVotes) -> dict[str, np.ndarray]:
    """[traits, traits] counts: aa, ab, ba, bb (vote of trait i, vote of trait j), and
    either: comparisons that asked both traits where at least one is relevant."""
    matrix = votes.matrix
    # 0/1 indicators in 32-bit floats: a count below 2**24 is exact in them, in any order
    # of summing, and they take half the memory (the trait agreement page is built
    # beside the forked child, where a build's memory peaks).
    exact = np.float32 if len(matrix) < 2**24 else np.float64
    voted_a = (matrix == schema.A).astype(exact)
    voted_b = (matrix == schema.B).astype(exact)
    asked = (matrix != schema.NO_VOTE).astype(exact)
    relevant = voted_a + voted_b

    def count(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        # einsum, not BLAS: exact, and a multithreaded BLAS stalls on small machines.
        return np.einsum("ni,nj->ij", x, y).astype(np.float64)

    counts = {"aa": count(voted_a, voted_a), "ab": count(voted_a, voted_b),
              "ba": count(voted_b, voted_a), "bb": count(voted_b, voted_b)}
    both_relevant = sum(counts.values())
    # Relevant implies asked, so over the comparisons asking both: i relevant, plus j
    # relevant, minus both.
    relevant_asked = count(relevant, asked)
    counts["either"] = relevant_asked + relevant_asked.T - both_relevant
    counts["asked"] = count(asked, asked)
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


def trait_agreement(votes: TraitVotes, clusters: np.ndarray, *, n_bootstrap: int = 1000,
                    seed: int = 0, level: float = 0.95, with_draws: bool = False):
    """One row per unordered pair of traits with a relevant vote between them (COLUMNS),
    with 95% intervals (module docstring).  `clusters`: each comparison's prompt, as
    codes (`prompt_codes`; a prompt lies in one dataset).  np.arange(comparisons) takes
    every comparison as its own, at a cost that grows with their number (8-12 s for the
    default site's 65,000, against 0.5 s for its 3,160 prompts).  `with_draws`: also
    return the kappa of every resample, [n_bootstrap, rows] (NaN where undefined), for
    statistics over pairs."""
    counts = agreement_counts(votes)
    kappa, overlap, both, either = kappa_and_overlap(counts)
    ids = votes.traits["trait_id"].to_numpy()
    first, second = np.triu_indices(len(ids), k=1)
    keep = either[first, second] > 0
    first, second = first[keep], second[keep]
    draws = _resampled(votes, clusters, first, second, n_bootstrap, seed)
    kappa_draws, overlap_draws, _, _ = kappa_and_overlap(draws)
    tails = [(1 - level) / 2, (1 + level) / 2]
    kappa_bounds = overlap_bounds = np.empty((2, 0))
    if len(first):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a pair never defined: NaN
            kappa_bounds = np.nanquantile(kappa_draws, tails, axis=0)
            overlap_bounds = np.nanquantile(overlap_draws, tails, axis=0)
    defined = np.isfinite(kappa[first, second])
    kappa_bounds, overlap_bounds = _at_the_ends(counts, first, second, kappa_bounds,
                                                overlap_bounds, (1 - level) / 2)
    table = pd.DataFrame({
        "trait_id_a": ids[first], "trait_id_b": ids[second],
        "cohens_kappa": kappa[first, second],
        "kappa_low": np.where(defined, kappa_bounds[0], np.nan),
        "kappa_high": np.where(defined, kappa_bounds[1], np.nan),
        "overlap": overlap[first, second],
        "overlap_low": overlap_bounds[0], "overlap_high": overlap_bounds[1],
        "both_relevant": both[first, second].astype(np.int64),
        "either_relevant": either[first, second].astype(np.int64),
        "asked_both": counts["asked"][first, second].astype(np.int64),
    }, columns=list(COLUMNS))
    return (table, kappa_draws) if with_draws else table


def _at_the_ends(counts: dict[str, np.ndarray], first: np.ndarray, second: np.ndarray,
                 kappa_bounds: np.ndarray, overlap_bounds: np.ndarray, tail: float
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The bounds where every resample gives the same end: a pair whose n shared votes
    all agree (kappa +1) or all disagree (-1), or whose relevant comparisons are all or
    none shared (overlap 1 or 0), has the bootstrap's interval of no width, which no
    sample proves.  There the open side takes the exact (Clopper-Pearson) bound of a
    share seen in all n: tail ** (1 / n), the agreement share turned into kappa with the
    observed chance agreement."""
    aa, ab, ba, bb = (counts[name][first, second] for name in ("aa", "ab", "ba", "bb"))
    both, either = aa + ab + ba + bb, counts["either"][first, second]
    kappa_bounds, overlap_bounds = kappa_bounds.copy(), overlap_bounds.copy()
    with np.errstate(invalid="ignore", divide="ignore"):
        seen = tail ** (1 / both)  # the least share that makes n of n likelier than tail
        a_first, a_second = (aa + ab) / both, (aa + ba) / both
        chance = a_first * a_second + (1 - a_first) * (1 - a_second)
        agree = (seen - chance) / (1 - chance)
        disagree = (1 - seen - chance) / (1 - chance)
        kept = tail ** (1 / either)
    all_agree = (ab + ba == 0) & (both > 0) & (chance < 1)
    all_disagree = (aa + bb == 0) & (both > 0) & (chance < 1)
    kappa_bounds[0] = np.where(all_agree, np.fmin(kappa_bounds[0], agree), kappa_bounds[0])
    kappa_bounds[1] = np.where(all_disagree, np.fmax(kappa_bounds[1], disagree),
                               kappa_bounds[1])
    overlap_bounds[0] = np.where((both == either) & (either > 0),
                                 np.fmin(overlap_bounds[0], kept), overlap_bounds[0])
    overlap_bounds[1] = np.where((both == 0) & (either > 0),
                                 np.fmax(overlap_bounds[1], 1 - kept), overlap_bounds[1])
    return kappa_bounds, overlap_bounds


def prompt_codes(comparisons: pd.DataFrame) -> np.ndarray:
    """Each comparison's prompt as a code: its dataset and prompt_id (a missing prompt_id
    is a prompt of its own)."""
    dataset = comparisons["dataset"].astype(object).to_numpy()
    prompt = comparisons["prompt_id"].astype(object).to_numpy()
    codes = pd.factorize(pd.MultiIndex.from_arrays([dataset, prompt]))[0]
    missing = pd.isna(prompt) | (codes < 0)
    codes[missing] = codes.max(initial=-1) + 1 + np.arange(missing.sum())
    return codes


_PAIRS_AT_ONCE = 16  # pairs counted per pass over the comparisons (memory: n x 16 bytes)
_DRAWS_AT_ONCE = 500_000  # prompt draws per batch of resamples (4 MB of counts)


def _resampled(votes: TraitVotes, clusters: np.ndarray, first: np.ndarray,
               second: np.ndarray, n_bootstrap: int, seed: int) -> dict[str, np.ndarray]:
    """agreement_counts' cells of the pairs (first, second) in each of `n_bootstrap`
    resamples of each dataset's prompts: [n_bootstrap, pairs] each."""
    names = ("aa", "ab", "ba", "bb", "either")
    if not len(first) or not len(clusters):
        return {name: np.zeros((n_bootstrap, len(first))) for name in names}
    order = np.argsort(clusters, kind="stable")
    cluster = np.asarray(clusters)[order]
    starts = np.flatnonzero(np.r_[True, cluster[1:] != cluster[:-1]])
    matrix = votes.matrix[order]
    voted_a, voted_b = matrix == schema.A, matrix == schema.B
    relevant, asked = voted_a | voted_b, matrix != schema.NO_VOTE
    # Each prompt's counts of the five cells, pair by pair: [prompts, pairs] each.
    per_prompt = {name: np.empty((len(starts), len(first))) for name in names}
    for begin in range(0, len(first), _PAIRS_AT_ONCE):
        i, j = first[begin:begin + _PAIRS_AT_ONCE], second[begin:begin + _PAIRS_AT_ONCE]
        cells = {"aa": voted_a[:, i] & voted_a[:, j], "ab": voted_a[:, i] & voted_b[:, j],
                 "ba": voted_b[:, i] & voted_a[:, j], "bb": voted_b[:, i] & voted_b[:, j],
                 "either": asked[:, i] & asked[:, j] & (relevant[:, i] | relevant[:, j])}
        for name, cell in cells.items():
            per_prompt[name][:, begin:begin + len(i)] = np.add.reduceat(
                cell, starts, axis=0, dtype=np.int64)
    # How often each resample draws each prompt, within the prompt's dataset, a batch of
    # resamples at a time (a few MB, however many prompts).
    rng = np.random.default_rng(seed)
    dataset = votes.dataset_code[order][starts]
    datasets = [np.flatnonzero(dataset == code) for code in np.unique(dataset)]
    out = {name: np.empty((n_bootstrap, len(first))) for name in names}
    batch = max(1, min(n_bootstrap, _DRAWS_AT_ONCE // len(starts)))
    # One BLAS thread: several stall on a small machine, the more so beside a build's
    # other processes (as the ratings' fits find).
    with threadpool_limits(limits=1, user_api="blas"):
        for begin in range(0, n_bootstrap, batch):
            size = min(batch, n_bootstrap - begin)
            drawn = np.zeros((size, len(starts)))
            for own in datasets:
                picks = rng.integers(0, len(own), size=(size, len(own)))
                rows = np.arange(size)[:, None] * len(own)
                drawn[:, own] = np.bincount((rows + picks).ravel(),
                                            minlength=size * len(own)).reshape(size, -1)
            # Integers throughout, far below 2**53: the products are exact in any order.
            for name in names:
                out[name][begin:begin + size] = drawn @ per_prompt[name]
    return out
