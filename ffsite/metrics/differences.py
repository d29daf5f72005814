"""How surely two models differ on a trait: the variance of the difference of their
strengths against the same reference, paired by prompt.

Model M's strength is the mean of its comparisons' outcomes s (+1 the trait vote picks
M's side, −1 the reference's side, 0 anything else).  When two models answered the same
prompts, their outcomes share the reference's response, so they are correlated and the
per-model intervals cannot simply be combined.  The difference's variance is the
cluster-robust (delta-method) one, with prompts as clusters:

    r_M,p = Σ over M's comparisons on prompt p of (s − strength_M) / N_M
    Var(strength_A − strength_B) = C/(C − 1) · Σ_p (r_A,p − r_B,p)²

(C: prompts with comparisons).  Σ_p (r_A,p − r_B,p)² = G_AA + G_BB − 2·G_AB with
G = R Rᵀ, so one matrix product gives every pair.  For one model alone, G_AA is the
usual variance of a mean (the population variance of s over N_M, when each prompt has
one comparison).  A 95% interval is then difference ± 1.96 √Var (docs/uncertainty.md),
with each model's own variance at least the one its Jeffreys interval implies (small
cells whose votes all agree are not certain).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ffsite.format import schema
from ffsite.format.read import Annotations
from ffsite.metrics.agreement import prompt_codes
from ffsite.metrics.strength import Reference, TraitVotes

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


def strength_covariance(annotations: Annotations, votes: TraitVotes,
                        reference: Reference) -> np.ndarray:
    """G[trait, i, j] over the reference's groups (models): the prompt-clustered
    covariance of models i's and j's strengths (without the C/(C−1) factor, which
    `difference_halfwidths` applies)."""
    n_groups, n_traits = len(reference.groups), votes.matrix.shape[1]
    gram = np.zeros((n_traits, n_groups, n_groups))
    rows, group = reference.comparison, reference.group
    if len(rows) == 0:
        return gram
    # Numbered in order of first appearance among the reference's rows.
    prompt = pd.factorize(prompt_codes(annotations.comparisons)[rows])[0]
    codes = votes.matrix[rows]
    side = reference.side[:, None]
    is_ab = (codes == schema.A) | (codes == schema.B)
    outcome = np.where(is_ab, np.where(codes == side, 1.0, -1.0), 0.0)
    in_scope = votes.in_scope[votes.dataset_code[rows]]  # [rows, traits]
    n_prompts = int(prompt.max()) + 1
    for trait in range(n_traits):
        keep = in_scope[:, trait]
        g, p, s = group[keep], prompt[keep], outcome[keep, trait]
        n = np.bincount(g, minlength=n_groups).astype(float)
        mean = np.bincount(g, weights=s, minlength=n_groups) / np.where(n > 0, n, 1)
        residual = (s - mean[g]) / np.where(n > 0, n, 1)[g]
        table = np.bincount(g * n_prompts + p, weights=residual,
                            minlength=n_groups * n_prompts).reshape(n_groups, n_prompts)
        # einsum, not BLAS: a threaded matrix product may sum in another order each run
        gram[trait] = np.einsum("ip,jp->ij", table, table)
    return gram


def difference_halfwidths(gram: np.ndarray, clusters: int,
                          floor: np.ndarray | None = None) -> np.ndarray:
    """halfwidth[trait, i, j]: 1.96 √Var(strength_i − strength_j), 95% (`clusters`:
    the number of prompts, for the small-sample factor C/(C − 1)).

    `floor[trait, model]`: a variance below which a model's own variance is not
    believed (the one its Jeffreys interval implies).  The delta method calls a model
    whose few votes all agree certain, as a bootstrap does; each model's shortfall from
    its floor is added to the difference's variance, which leaves large cells as they
    are and keeps small lopsided ones from looking sure."""
    own = np.diagonal(gram, axis1=1, axis2=2)
    factor = clusters / (clusters - 1) if clusters > 1 else 1.0
    variance = factor * (own[:, :, None] + own[:, None, :] - 2 * gram)
    if floor is not None:
        shortfall = np.clip(np.nan_to_num(floor) - factor * own, 0, None)
        variance += shortfall[:, :, None] + shortfall[:, None, :]
    halfwidth = Z95 * np.sqrt(np.clip(variance, 0, None))
    halfwidth[:, np.arange(gram.shape[1]), np.arange(gram.shape[1])] = 0  # a model and itself
    return halfwidth


def jeffreys_variance(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """The variance a 95% interval implies for a normal estimate: (width / 3.92)²."""
    return ((np.asarray(high, float) - np.asarray(low, float)) / (2 * Z95)) ** 2


def prompt_count(annotations: Annotations, reference: Reference) -> int:
    """The number of distinct (dataset, prompt) among the reference rows."""
    comparisons = annotations.comparisons.iloc[reference.comparison]
    return int(len(comparisons[["dataset", "prompt_id"]].drop_duplicates()))
