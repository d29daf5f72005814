"""The low-rank Bradley-Terry-Davidson model: its log-likelihood, exact derivatives, and a
batched maximum-likelihood fit that many problems (restarts, bootstrap resamples, folds)
share.

Judge i, evaluees j < k, logits a = u_i.v_j (j preferred), b = u_i.v_k (k preferred),
c = log lambda_i + (a + b) / 2 (tie); each outcome's probability is its softmax (seed 002,
methods.md section 3).  The objective is minus the log-likelihood plus a weak ridge,
RIDGE (|U|^2 + |V|^2), divided by the number of judgments: the likelihood alone has flat
directions (u and v trade scale; a model never seen leaves its vector free) and, on
tie-only data, no finite maximum; the ridge picks the smallest parameters among equals.
log lambda is bounded (LOG_LAMBDA_BOUNDS).

The fit (`fit_many`) is a damped Newton method (Levenberg-Marquardt) run on a whole batch
of problems at once with numpy, one (P x P) system per problem and step, P = 2 N d + N:
Gauss-Newton steps (the Hessian without its term in the gradient, positive semi-definite,
so a start near the saddle at u = v = 0 moves away from it) until the gradient is small,
then exact Newton steps, which converge quadratically.  After each accepted step the
factors are rebalanced (the SVD of U V^T split evenly between U and V), which changes no
probability and never raises the ridge: it removes the scale and rotation the likelihood
cannot see.  A point where the gradient vanishes but the exact Hessian has a negative
eigenvalue (a saddle) is left along that direction and the fit goes on.
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
GRADIENT_TOLERANCE = 1e-9  # largest gradient entry (per judgment) of a converged fit
SWITCH = 1e-2  # gradient below which Gauss-Newton steps give way to exact Newton steps
GAUSS_NEWTON_STEPS = 10  # ... or after this many steps
MAX_STEPS = 400
MU_START, MU_MAX = 1e-3, 1e10  # the damping added to the Hessian's diagonal
MU_EXACT = 1e-6  # ... restarted this low when the exact steps begin
SADDLE = -1e-7  # an exact-Hessian eigenvalue below this marks a saddle, not an optimum
MAX_ESCAPES = 3
CHUNK_CELLS = 400_000  # problems x judges x pairs handled at once (memory)


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
        q = np.arange(len(self.first))
        eye = np.eye(n)
        self.to_first, self.to_second = eye[self.first], eye[self.second]  # (Q, N)
        square = np.zeros((3 * len(q), n * n))  # K00, K11, K01 of a pair -> theta Hessian
        square[q, self.first * (n + 1)] = 1
        square[len(q) + q, self.second * (n + 1)] = 1
        square[2 * len(q) + q, self.first * n + self.second] = 1
        square[2 * len(q) + q, self.second * n + self.first] = 1
        self.square = square
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

def _cells(lay: _Layout, counts: np.ndarray, lenses: np.ndarray, dispositions: np.ndarray,
           log_lambdas: np.ndarray, value: bool = True) -> tuple:
    """Per problem, judge and pair: the outcome probabilities and the counts, and (when
    `value`) the log-likelihood's sum per problem."""
    theta = lenses @ dispositions.transpose(0, 2, 1)  # theta[b, i, j] = u_i . v_j
    a, b = theta[:, :, lay.first], theta[:, :, lay.second]
    c = log_lambdas[:, :, None] + (a + b) / 2
    top = np.maximum(np.maximum(a, b), c)
    ea, eb, ec = np.exp(a - top), np.exp(b - top), np.exp(c - top)
    total = ea + eb + ec
    n1, n2, n3 = counts[..., FIRST], counts[..., SECOND], counts[..., TIE]
    n_all = n1 + n2 + n3
    summed = ((n1 * a + n2 * b + n3 * c - n_all * (top + np.log(total))).sum(axis=(1, 2))
              if value else None)
    return summed, ea / total, eb / total, ec / total, n1, n2, n3, n_all


def _penalty(lenses: np.ndarray, dispositions: np.ndarray) -> np.ndarray:
    return (lenses ** 2).sum(axis=(1, 2)) + (dispositions ** 2).sum(axis=(1, 2))


def _objective(lay: _Layout, weights: np.ndarray, ridge: np.ndarray, x: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """(objective, log-likelihood) per problem, on `weights` (counts per judgment) with
    the ridge per judgment."""
    lenses, dispositions, log_lambdas = _unpack(x, lay.n, lay.d)
    value = _cells(lay, weights, lenses, dispositions, log_lambdas)[0]
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
    _, pa, pb, pc, n1, n2, n3, n_all = _cells(lay, weights, lenses, dispositions,
                                              log_lambdas, value=False)
    ga, gb, gc = n1 - n_all * pa, n2 - n_all * pb, n3 - n_all * pc  # observed - expected
    d_theta = (ga + gc / 2) @ lay.to_first + (gb + gc / 2) @ lay.to_second  # (B, N, N)
    # Minus the Hessian of LL in the logits, n (diag p - p p^T), taken to (theta_ij,
    # theta_ik, log lambda_i): K = J^T W J with a = x0, b = x1, c = x2 + (x0 + x1) / 2.
    wa, wb, wc = n_all * pa, n_all * pb, n_all * pc
    w_cc, w_ac, w_bc = wc * (1 - pc), -wa * pc, -wb * pc
    k00 = wa * (1 - pa) + w_ac + w_cc / 4
    k11 = wb * (1 - pb) + w_bc + w_cc / 4
    k01 = -wa * pb + (w_ac + w_bc) / 2 + w_cc / 4
    h_tt = (np.concatenate([k00, k11, k01], axis=2) @ lay.square).reshape(count, n, n, n)
    h_tl = (w_ac + w_cc / 2) @ lay.to_first + (w_bc + w_cc / 2) @ lay.to_second
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
    return _cells(lay, counts, *_unpack(x, lay.n, dims))[0]



def log_likelihood(counts: np.ndarray, lenses: np.ndarray, dispositions: np.ndarray,
                   log_lambdas: np.ndarray) -> tuple[float, np.ndarray, np.ndarray,
                                                     np.ndarray]:
    """The log-likelihood of `counts` (N x N x N x 3, `count_tensor`) and its gradient
    in (u, v, log lambda), for one set of parameters."""
    n, d = lenses.shape
    lay = _layout(n, d)
    pairs = pair_counts(counts)[None]
    x = np.concatenate([lenses.ravel(), dispositions.ravel(), log_lambdas])[None]
    value = _cells(lay, pairs, *_unpack(x, n, d))[0]
    gradient, _ = _derivatives(lay, pairs, np.zeros(1), x, np.zeros(1, bool))
    g = -gradient[0]  # with no ridge, minus the objective's gradient is the LL's
    return (float(value[0]), g[:n * d].reshape(n, d), g[n * d:2 * n * d].reshape(n, d),
            g[2 * n * d:])


# ------------------------------------------------------------------ the batched fit

def _rebalance(lay: _Layout, x: np.ndarray) -> np.ndarray:
    """The same U V^T and lambdas, with U = P S^(1/2), V = Q S^(1/2) from the SVD
    U V^T = P S Q^T (the smallest ridge for that product), each axis' sign chosen so
    the lenses sum to a positive number."""
    lenses, dispositions, log_lambdas = _unpack(x, lay.n, lay.d)
    left, values, right = np.linalg.svd(lenses @ dispositions.transpose(0, 2, 1))
    root = np.sqrt(values[:, :lay.d])[:, None, :]
    lenses, dispositions = left[:, :, :lay.d] * root, right[:, :lay.d].transpose(0, 2, 1) * root
    sign = np.where(lenses.sum(axis=1, keepdims=True) < 0, -1.0, 1.0)
    return np.concatenate([(lenses * sign).reshape(len(x), -1),
                           (dispositions * sign).reshape(len(x), -1), log_lambdas], axis=1)


def _projected(lay: _Layout, x: np.ndarray, gradient: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """(the gradient with bound-held log lambdas zeroed, which entries are held): a
    log lambda at a bound whose descent direction leaves the bounds stays there."""
    low, high = LOG_LAMBDA_BOUNDS
    held = np.zeros(x.shape, dtype=bool)
    at = x[:, lay.lam]
    g = gradient[:, lay.lam]
    held[:, lay.lam] = ((at >= high) & (g < 0)) | ((at <= low) & (g > 0))
    return np.where(held, 0.0, gradient), held


def _step(lay: _Layout, x: np.ndarray, gradient: np.ndarray,
          blocks: tuple[np.ndarray, ...], mu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the damped Newton trial point, the projected gradient's largest entry).

    (H + mu I) step = -g is solved by blocks: each judge's (u_i, log lambda_i) block is
    eliminated (N small systems), which leaves one (Nd x Nd) system in the dispositions
    (its Schur complement), far cheaper than the whole (P x P) one."""
    n, d, nd = lay.n, lay.d, lay.nd
    count = len(x)
    uu, ul, ll, uv, vv, vl = blocks
    g, held = _projected(lay, x, gradient)
    free = ~held[:, lay.lam]
    own = np.empty((count, n, d + 1, d + 1))  # a judge's (u_i, log lambda_i) block
    own[:, :, :d, :d] = uu + mu[:, None, None, None] * np.eye(d)
    own[:, :, :d, d] = own[:, :, d, :d] = ul * free[:, :, None]
    own[:, :, d, d] = np.where(free, ll + mu[:, None], 1.0)
    coupling = np.empty((count, n, d + 1, nd))
    coupling[:, :, :d] = uv.reshape(count, n, d, nd)
    coupling[:, :, d] = vl.transpose(0, 2, 1) * free[:, :, None]
    g_own = np.concatenate([g[:, :nd].reshape(count, n, d), g[:, lay.lam][:, :, None]], axis=2)
    inverse = np.linalg.inv(own)
    solved = (inverse @ coupling).reshape(count, n * (d + 1), nd)
    y = (inverse @ g_own[..., None]).reshape(count, n * (d + 1), 1)
    flat = coupling.reshape(count, n * (d + 1), nd).transpose(0, 2, 1)
    schur = vv + mu[:, None, None] * np.eye(nd) - flat @ solved
    step_v = -np.linalg.solve(schur, g[:, nd:2 * nd, None] - flat @ y)
    step_own = -(y + solved @ step_v).reshape(count, n, d + 1)
    trial = x + np.concatenate([step_own[:, :, :d].reshape(count, nd), step_v[:, :, 0],
                                step_own[:, :, d]], axis=1)
    trial[:, lay.lam] = np.clip(trial[:, lay.lam], *LOG_LAMBDA_BOUNDS)
    return trial, np.abs(g).max(axis=1)


def fit_many(counts: np.ndarray, dims: int, starts: np.ndarray,
             rows: np.ndarray | None = None) -> Fits:
    """Fit problem b from `starts[b]` (packed parameters) on `counts[rows[b]]` (counts:
    R x N x pairs x 3, `pair_counts`; rows: every problem its own counts by default).
    The batch is split only to bound memory."""
    rows = np.arange(len(starts)) if rows is None else np.asarray(rows)
    n = counts.shape[1]
    chunk = max(1, CHUNK_CELLS // max(1, n * counts.shape[2]))
    parts = [_fit_chunk(_layout(n, dims), counts[rows[s:s + chunk]], starts[s:s + chunk])
             for s in range(0, len(starts), chunk)]
    return Fits(*(np.concatenate([part[k] for part in parts]) for k in range(4)))


def fit_restarts(counts: np.ndarray, dims: int, *, seed: int = 0, restarts: int = 8,
                 start: BtdFit | None = None) -> tuple[BtdFit, Fits]:
    """The best of `restarts` cold starts (from `default_rng(seed)`, in order) and `start`
    (first, when given) on `counts` (N x N x N x 3, `count_tensor`), and every start's
    fit."""
    n = counts.shape[0]
    starts = cold_starts(np.random.default_rng(seed), restarts, n, dims)
    if start is not None:
        starts = np.concatenate([start.packed()[None], starts])
    fits = fit_many(pair_counts(counts)[None], dims, starts, np.zeros(len(starts), int))
    return fits.fit(int(np.argmin(fits.objective)), n, dims), fits


def fit_btd(counts: np.ndarray, dims: int, *, seed: int = 0, start: BtdFit | None = None,
            restarts: int = 8) -> BtdFit:
    """Maximum likelihood of the low-rank BTD model on `counts` (`count_tensor`): the best
    of `restarts` cold starts (seeded) and `start`, when given."""
    return fit_restarts(counts, dims, seed=seed, restarts=restarts, start=start)[0]


class _Rows:
    """Arrays sharing their first axis (the problems), read and written by rows."""

    def __init__(self, arrays: tuple[np.ndarray, ...]) -> None:
        self.arrays = arrays

    def __getitem__(self, rows: np.ndarray) -> tuple[np.ndarray, ...]:
        if len(rows) == len(self.arrays[0]):  # all of them, in order: no copy
            return self.arrays
        return tuple(array[rows] for array in self.arrays)

    def __setitem__(self, rows: np.ndarray, values: tuple[np.ndarray, ...]) -> None:
        for array, value in zip(self.arrays, values, strict=True):
            array[rows] = value


def _fit_chunk(lay: _Layout, counts: np.ndarray, starts: np.ndarray) -> tuple:
    # long: one damped Newton loop over the whole batch, with its bookkeeping
    count = len(starts)
    scale = np.maximum(counts.sum(axis=(1, 2, 3)), 1.0)
    weights, ridge = counts / scale[:, None, None, None], RIDGE / scale
    x = _rebalance(lay, np.array(starts, dtype=np.float64))
    exact = np.zeros(count, dtype=bool)
    f = _objective(lay, weights, ridge, x)[0]
    g, blocks = _derivatives(lay, weights, ridge, x, exact)
    h = _Rows(blocks)
    mu = np.full(count, MU_START)
    done = np.zeros(count, dtype=bool)
    converged = np.zeros(count, dtype=bool)
    escapes = np.zeros(count, dtype=np.int64)
    for number in range(MAX_STEPS):
        if done.all():  # every problem stopped: is each a minimum, not a saddle?
            escaped = _escape_saddles(lay, weights, ridge, x,
                                      converged & (escapes < MAX_ESCAPES))
            if not len(escaped):
                break
            escapes[escaped] += 1
            done[escaped] = converged[escaped] = exact[escaped] = False
            mu[escaped] = MU_START
            f[escaped] = _objective(lay, weights[escaped], ridge[escaped], x[escaped])[0]
            g[escaped], h[escaped] = _derivatives(lay, weights[escaped], ridge[escaped],
                                                  x[escaped], exact[escaped])
        live = np.flatnonzero(~done)
        trial, size = _step(lay, x[live], g[live], h[live], mu[live])
        switch = ~exact[live] & ((size < SWITCH) | (number >= GAUSS_NEWTON_STEPS))
        finished = exact[live] & (size < GRADIENT_TOLERANCE)
        stuck = mu[live] > MU_MAX
        converged[live] = finished | (stuck & (size < 1e3 * GRADIENT_TOLERANCE))
        done[live[finished | stuck]] = True
        if switch.any():  # the same point, now with the exact Hessian
            turned = live[switch]
            exact[turned] = True
            mu[turned] = np.minimum(mu[turned], MU_EXACT)
            h[turned] = _derivatives(lay, weights[turned], ridge[turned], x[turned],
                                     exact[turned])[1]
        moving = ~(finished | stuck | switch)
        live, trial = live[moving], trial[moving]
        if not len(live):
            continue
        f_trial, value = _objective(lay, weights[live], ridge[live], trial)
        better = f_trial < f[live]
        mu[live] = np.where(better, np.maximum(mu[live] * 0.3, 1e-12), mu[live] * 5)
        moved = live[better]
        if len(moved):
            x[moved] = _rebalance(lay, trial[better])  # the same likelihood, less ridge
            lenses, dispositions, _ = _unpack(x[moved], lay.n, lay.d)
            f[moved] = ridge[moved] * _penalty(lenses, dispositions) - value[better]
            g[moved], h[moved] = _derivatives(lay, weights[moved], ridge[moved], x[moved],
                                              exact[moved])
    objective, value = _objective(lay, weights, ridge, x)
    return x, objective, value * scale, converged & done


def _escape_saddles(lay: _Layout, weights: np.ndarray, ridge: np.ndarray, x: np.ndarray,
                    candidates: np.ndarray) -> np.ndarray:
    """Problems among `candidates` stopped at a saddle (the exact Hessian has an
    eigenvalue below SADDLE): each is moved, in place, along that eigenvector (the sign
    and size, of three, that lower the objective most); returns their positions."""
    chosen = np.flatnonzero(candidates)
    if not len(chosen):
        return chosen
    h = _full_hessian(lay, _derivatives(lay, weights[chosen], ridge[chosen], x[chosen],
                                        np.ones(len(chosen), dtype=bool))[1])
    try:  # the usual case, every one a minimum: one Cholesky decomposition tells
        np.linalg.cholesky(h - SADDLE * np.eye(lay.p))
        return chosen[:0]
    except np.linalg.LinAlgError:
        lowest = np.linalg.eigvalsh(h)[:, 0]
    chosen, h = chosen[lowest < SADDLE], h[lowest < SADDLE]
    if not len(chosen):
        return chosen
    direction = np.linalg.eigh(h)[1][:, :, 0]
    tries = [x[chosen] + sign * size * direction for sign in (1.0, -1.0)
             for size in (1.0, 0.3, 0.1)]
    for trial in tries:
        trial[:, lay.lam] = np.clip(trial[:, lay.lam], *LOG_LAMBDA_BOUNDS)
    values = np.stack([_objective(lay, weights[chosen], ridge[chosen], t)[0] for t in tries])
    best = np.argmin(values, axis=0)
    x[chosen] = np.stack(tries)[best, np.arange(len(chosen))]
    return chosen
