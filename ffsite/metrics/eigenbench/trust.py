"""From a fit to ratings: the trust matrix T, EigenTrust's t and Elo (seed 002, methods.md
section 3), for one fit or a batch of them (the leading axes)."""

from __future__ import annotations

import numpy as np

from ffsite.errors import FfsiteError

ELO_BASE, ELO_SCALE = 1500.0, 400.0
POWER_TOLERANCE = 1e-10  # L1 change between power-iteration steps that ends the iteration
MAX_POWER_STEPS = 1_000_000


def trust_matrix(lenses: np.ndarray, dispositions: np.ndarray,
                 lambdas: np.ndarray) -> np.ndarray:
    """T_ij = (s_ij + lambda_i/2 sum_{k != j} sqrt(s_ij s_ik)) / (the same summed over j),
    s_ij = exp(u_i . v_j): how often judge i would prefer j, counting a tie as half.
    Lenses and dispositions (..., N, d), lambdas (..., N)."""
    theta = lenses @ np.swapaxes(dispositions, -1, -2)
    theta = theta - theta.max(axis=-1, keepdims=True)  # T's rows do not change; no overflow
    s = np.exp(theta)
    root = np.sqrt(s)
    tie_mass = root * (root.sum(axis=-1, keepdims=True) - root)  # sum_{k != j} sqrt(s_ij s_ik)
    raw = s + lambdas[..., :, None] / 2 * tie_mass
    return raw / raw.sum(axis=-1, keepdims=True)


def eigentrust(trust: np.ndarray, tolerance: float = POWER_TOLERANCE,
               max_steps: int = MAX_POWER_STEPS) -> np.ndarray:
    """The left principal eigenvector of the row-stochastic `trust` (..., N, N), summing
    to 1: power iteration t <- t T from uniform until the L1 change is below
    `tolerance` (each matrix of a batch stops on its own)."""
    batch = trust.reshape(-1, *trust.shape[-2:])
    n = batch.shape[-1]
    t = np.full(batch.shape[:-1], 1.0 / n)
    running = np.arange(len(batch))
    for _ in range(max_steps):
        following = (t[running, None, :] @ batch[running])[:, 0]
        following /= following.sum(axis=1, keepdims=True)
        moving = np.abs(following - t[running]).sum(axis=1) >= tolerance
        t[running] = following
        running = running[moving]
        if not len(running):
            return t.reshape(trust.shape[:-1])
    raise FfsiteError("EigenTrust did not converge; the trust matrix is not irreducible")


def elo_from_trust(t: np.ndarray) -> np.ndarray:
    """Elo_j = 1500 + 400 log10(N t_j); sum_j 10^((Elo_j - 1500) / 400) = N."""
    t = np.asarray(t)
    return ELO_BASE + ELO_SCALE * np.log10(t.shape[-1] * t)


def self_preference(trust: np.ndarray) -> dict[str, np.ndarray]:
    """Per judge: the Elo it gives itself from its own trust row (1500 + 400 log10(N
    T_ii)), the Elo the other judges give it (from the mean of their T_ki) and the
    difference, 400 log10(T_ii / mean_k T_ki) (..., N each)."""
    n = trust.shape[-1]
    own = np.diagonal(trust, axis1=-2, axis2=-1)
    by_others = (trust.sum(axis=-2) - own) / (n - 1)
    return {"self_elo": elo_from_trust(own), "others_elo": elo_from_trust(by_others),
            "self_preference": ELO_SCALE * np.log10(own / by_others)}
