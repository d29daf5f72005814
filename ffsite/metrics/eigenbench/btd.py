"""The low-rank Bradley-Terry-Davidson model: its log-likelihood and exact derivatives,
laid out for a whole batch of problems (restarts, bootstrap resamples, folds) at once;
the fit itself is `newton.py`.

Judge i, evaluees j < k, logits a = u_i.v_j (j preferred), b = u_i.v_k (k preferred),
c = log lambda_i + (a + b) / 2 (tie); each outcome's probability is its softmax (seed 002,
methods.md section 3).  The objective is minus the log-likelihood plus a ridge,
RIDGE (|U|^2 + |V|^2), divided by the number of judgments: a N(0, 1) prior on every
coordinate of every lens and disposition (docs/eigenbench.md says why: without it a model
that every judge ranks last has no finite rating, and u and v could trade scale freely).
log lambda is bounded (LOG_LAMBDA_BOUNDS).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

FIRST, SECOND, TIE = 0, 1, 2
OUTCOMES = 3
RIDGE = 0.5  # a N(0, 1) prior on every coordinate of lenses and dispositions
LOG_LAMBDA_BOUNDS = (-8.0, 8.0)  # tie propensity between 3e-4 and 3e3
INIT_SCALE = 0.1  # cold starts: lenses and dispositions from N(0, 0.01 I), lambda = 1 (paper)


@dataclass(frozen=True)
class BtdFit:
    """Judge lenses u (N x d), dispositions v (N x d), tie propensities lambda (N), the
    log-likelihood, the objective (minus the penalised log-likelihood per judgment) and
    whether the optimiser met its tolerance at an optimum (not a saddle)."""

    lenses: np.ndarray
    dispositions: np.ndarray
    log_lambdas: np.ndarray
    log_likelihood: float
    converged: bool
    objective: float = float("nan")

    @property
    def lambdas(self) -> np.ndarray:
        return np.exp(self.log_lambdas)

    @property
    def dims(self) -> int:
        return self.lenses.shape[1]

    def packed(self) -> np.ndarray:
        return np.concatenate([self.lenses.ravel(), self.dispositions.ravel(),
                               self.log_lambdas])

    @classmethod
    def unpacked(cls, x: np.ndarray, n: int, dims: int, log_likelihood: float,
                 converged: bool, objective: float) -> BtdFit:
        lenses, dispositions, log_lambdas = (part[0] for part in _unpack(x[None], n, dims))
        return cls(lenses.copy(), dispositions.copy(), log_lambdas.copy(),
                   float(log_likelihood), bool(converged), float(objective))


@dataclass(frozen=True)
class Fits:
    """A batch of fits: parameters (B x P, packed as BtdFit.packed), objective,
    log-likelihood and convergence per problem."""

    x: np.ndarray
    objective: np.ndarray
    log_likelihood: np.ndarray
    converged: np.ndarray

    def fit(self, b: int, n: int, dims: int) -> BtdFit:
        return BtdFit.unpacked(self.x[b], n, dims, self.log_likelihood[b],
                               self.converged[b], self.objective[b])


def n_parameters(n: int, dims: int) -> int:
    return 2 * n * dims + n


def cold_starts(rng: np.random.Generator, count: int, n: int, dims: int) -> np.ndarray:
    """`count` packed starts as the paper's: u, v ~ N(0, 0.01 I), lambda = 1."""
    return np.concatenate([rng.normal(0.0, INIT_SCALE, (count, 2 * n * dims)),
                           np.zeros((count, n))], axis=1)


# ------------------------------------------------------------------ counts and layout

class _Layout:
    """Index arrays of one (N, d): the pairs j < k, how a pair's terms add up into a
    judge's Hessian in theta, and where a judge's own blocks go in the packed (P x P)
    Hessian."""

    def __init__(self, n: int, dims: int) -> None:
        self.n, self.d = n, dims
        self.first, self.second = np.triu_indices(n, 1)
        eye = np.eye(n)
        # (Q, N): +1 at a pair's first model and -1 at its second; 1 at both
        self.signed = eye[self.first] - eye[self.second]
        self.both = eye[self.first] + eye[self.second]
        self.diagonal = np.arange(n)
        nd = self.nd = n * dims
        p = self.p = n_parameters(n, dims)
        i, a, c = np.meshgrid(np.arange(n), np.arange(dims), np.arange(dims), indexing="ij")
        self.uu = ((i * dims + a) * p + i * dims + c).ravel()  # where a judge's blocks go
        i, a = np.meshgrid(np.arange(n), np.arange(dims), indexing="ij")
        self.ul = ((i * dims + a) * p + 2 * nd + i).ravel()
        self.lu = ((2 * nd + i) * p + i * dims + a).ravel()
        self.ll = (2 * nd + np.arange(n)) * (p + 1)
        self.lam = np.arange(2 * nd, p)


@lru_cache(maxsize=32)
def _layout(n: int, dims: int) -> _Layout:
    return _Layout(n, dims)


def pair_counts(counts: np.ndarray) -> np.ndarray:
    """counts[..., i, j, k, r] (j < k filled, as `count_tensor` makes them) as
    counts[..., i, pair, r], the pairs j < k in np.triu_indices order."""
    first, second = np.triu_indices(counts.shape[-2], 1)
    return counts[..., first, second, :]


def _unpack(x: np.ndarray, n: int, dims: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    b, nd = x.shape[0], n * dims
    return x[:, :nd].reshape(b, n, dims), x[:, nd:2 * nd].reshape(b, n, dims), x[:, 2 * nd:]


# ------------------------------------------------------------------ likelihood

def _terms(lay: _Layout, lenses: np.ndarray, dispositions: np.ndarray,
           log_lambdas: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per problem, judge and pair: (h, |h|, lambda e^-|h|, e^-2|h|, their sum with 1).

    Only half the difference of the two preferences matters: with h = (a - b) / 2 and
    m = (a + b) / 2 the logits are m + h, m - h and m + log lambda, so the probabilities
    are e^h, e^-h and lambda over their sum, and the log-likelihood is
    (n1 - n2) h + n3 log lambda - n log(e^h + e^-h + lambda): one exponential a cell
    (e^-|h|, which cannot overflow) instead of three, and no gather of theta."""
    half = (dispositions[:, lay.first] - dispositions[:, lay.second]) / 2  # (B, Q, d)
    h = lenses @ half.transpose(0, 2, 1)  # h[b, i, pair] = u_i . (v_j - v_k) / 2
    magnitude = np.abs(h)
    small = np.exp(-magnitude)
    tie = np.exp(log_lambdas)[:, :, None] * small
    far = small * small
    return h, magnitude, tie, far, 1 + far + tie  # the last: e^-|h| (e^h + e^-h + lambda)


def _counts(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(n_first - n_second, n_tie, n) per cell (adding the three is far faster than a
    sum over a last axis of 3)."""
    n1, n2, n3 = counts[..., FIRST], counts[..., SECOND], counts[..., TIE]
    return n1 - n2, n3, n1 + n2 + n3


def _summed(lay: _Layout, counts: np.ndarray, lenses: np.ndarray, dispositions: np.ndarray,
            log_lambdas: np.ndarray) -> np.ndarray:
    """The log-likelihood of each problem."""
    h, magnitude, _, _, total = _terms(lay, lenses, dispositions, log_lambdas)
    n12, n3, n_all = _counts(counts)
    return (n12 * h + n3 * log_lambdas[:, :, None]
            - n_all * (magnitude + np.log(total))).sum(axis=(1, 2))


def _cells(lay: _Layout, counts: np.ndarray, lenses: np.ndarray, dispositions: np.ndarray,
           log_lambdas: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per problem, judge and pair: (P(first) - P(second), P(tie), n_first - n_second,
    n_tie, n)."""
    h, _, tie, far, total = _terms(lay, lenses, dispositions, log_lambdas)
    return (np.copysign((1 - far) / total, h), tie / total, *_counts(counts))


def _penalty(lenses: np.ndarray, dispositions: np.ndarray) -> np.ndarray:
    return (lenses ** 2).sum(axis=(1, 2)) + (dispositions ** 2).sum(axis=(1, 2))


def _objective(lay: _Layout, weights: np.ndarray, ridge: np.ndarray, x: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """(objective, log-likelihood) per problem, on `weights` (counts per judgment) with
    the ridge per judgment."""
    lenses, dispositions, log_lambdas = _unpack(x, lay.n, lay.d)
    value = _summed(lay, weights, lenses, dispositions, log_lambdas)
    return ridge * _penalty(lenses, dispositions) - value, value


def _derivatives(lay: _Layout, weights: np.ndarray, ridge: np.ndarray, x: np.ndarray,
                 exact: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """(gradient, Hessian blocks) of the objective per problem; `exact` False: the
    Gauss-Newton Hessian (the exact one without its term in d LL / d theta).  The blocks
    (`_full_hessian` puts them together): uu (B, N, d, d), ul (B, N, d) and ll (B, N), a
    judge's own; uv (B, Nd, Nd), vv (B, Nd, Nd) and vl (B, Nd, N)."""
    n, d, nd = lay.n, lay.d, lay.nd
    count = x.shape[0]
    lenses, dispositions, log_lambdas = _unpack(x, n, d)
    difference, tied, n12, n3, n_all = _cells(lay, weights, lenses, dispositions,
                                              log_lambdas)
    # In h and log lambda (`_cells`): d LL / dh = n12 - n (p1 - p2), d LL / d log
    # lambda = n3 - n p3, and minus the Hessian n (p1 + p2 - (p1 - p2)^2), n p3 (1 - p3),
    # -n (p1 - p2) p3 off the diagonal.  theta_ij and theta_ik enter h as +1/2, -1/2.
    gh, gc = n12 - n_all * difference, n3 - n_all * tied
    d_theta = (gh / 2) @ lay.signed  # (B, N, N)
    k_hh = n_all * (1 - tied - difference * difference)
    w_cc = n_all * tied * (1 - tied)
    k01 = -k_hh / 4
    h_tt = np.zeros((count, n, n, n))
    h_tt[:, :, lay.first, lay.second] = k01
    h_tt[:, :, lay.second, lay.first] = k01
    h_tt[:, :, lay.diagonal, lay.diagonal] = (k_hh / 4) @ lay.both
    h_tl = (-n_all * difference * tied / 2) @ lay.signed
    twice = 2 * ridge[:, None, None]
    gradient = np.concatenate([
        (twice * lenses - d_theta @ dispositions).reshape(count, -1),
        (twice * dispositions - d_theta.transpose(0, 2, 1) @ lenses).reshape(count, -1),
        -gc.sum(axis=2)], axis=1)
    along = h_tt @ dispositions[:, None]  # (B, i, j, a) = sum_k H_i[j, k] v_ka
    uu = dispositions[:, None].transpose(0, 1, 3, 2) @ along + twice[..., None] * np.eye(d)
    uv = np.einsum("bija,bic->biajc", along, lenses)
    if exact.any():  # the term in d LL / d theta: -d_theta[i, j] where the axes agree
        term = exact[:, None, None] * d_theta
        for axis in range(d):
            uv[:, :, axis, :, axis] -= term
    uv = uv.reshape(count, nd, nd)
    outer = (lenses[:, :, :, None] * lenses[:, :, None, :]).reshape(count, n, d * d)
    vv = (outer.transpose(0, 2, 1) @ h_tt.reshape(count, n, n * n)).reshape(
        count, d, d, n, n).transpose(0, 3, 1, 4, 2).reshape(count, nd, nd)
    vv += twice * np.eye(nd)
    vl = (lenses[:, :, None, :] * h_tl[:, :, :, None]).transpose(0, 2, 3, 1).reshape(
        count, nd, n)
    return gradient, (uu, h_tl @ dispositions, w_cc.sum(axis=2), uv, vv, vl)


def _full_hessian(lay: _Layout, blocks: tuple[np.ndarray, ...]) -> np.ndarray:
    """The packed (B x P x P) Hessian of `_derivatives`' blocks."""
    uu, ul, ll, uv, vv, vl = blocks
    count, nd, p = len(uu), lay.nd, lay.p
    hessian = np.zeros((count, p, p))
    hessian[:, :nd, nd:2 * nd] = uv
    hessian[:, nd:2 * nd, :nd] = uv.transpose(0, 2, 1)
    hessian[:, nd:2 * nd, nd:2 * nd] = vv
    hessian[:, nd:2 * nd, 2 * nd:] = vl
    hessian[:, 2 * nd:, nd:2 * nd] = vl.transpose(0, 2, 1)
    flat = hessian.reshape(count, p * p)
    flat[:, lay.uu] = uu.reshape(count, -1)
    flat[:, lay.ul] = ul.reshape(count, -1)
    flat[:, lay.lu] = ul.reshape(count, -1)
    flat[:, lay.ll] = ll
    return hessian


def log_likelihoods(counts: np.ndarray, dims: int, x: np.ndarray) -> np.ndarray:
    """The log-likelihood of each problem's `counts` (B x N x pairs x 3) at packed
    parameters `x` (B x P)."""
    lay = _layout(counts.shape[1], dims)
    return _summed(lay, counts, *_unpack(x, lay.n, dims))



def log_likelihood(counts: np.ndarray, lenses: np.ndarray, dispositions: np.ndarray,
                   log_lambdas: np.ndarray) -> tuple[float, np.ndarray, np.ndarray,
                                                     np.ndarray]:
    """The log-likelihood of `counts` (N x N x N x 3, `count_tensor`) and its gradient
    in (u, v, log lambda), for one set of parameters."""
    n, d = lenses.shape
    lay = _layout(n, d)
    pairs = pair_counts(counts)[None]
    x = np.concatenate([lenses.ravel(), dispositions.ravel(), log_lambdas])[None]
    value = _summed(lay, pairs, *_unpack(x, n, d))
    gradient, _ = _derivatives(lay, pairs, np.zeros(1), x, np.zeros(1, bool))
    g = -gradient[0]  # with no ridge, minus the objective's gradient is the LL's
    return (float(value[0]), g[:n * d].reshape(n, d), g[n * d:2 * n * d].reshape(n, d),
            g[2 * n * d:])
