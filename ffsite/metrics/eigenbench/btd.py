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
RIDGE = 1e-3
LOG_LAMBDA_BOUNDS = (-8.0, 8.0)  # tie propensity between 3e-4 and 3e3
INIT_SCALE = 0.1  # cold starts: lenses and dispositions from N(0, 0.01 I), lambda = 1 (paper)
GRADIENT_TOLERANCE = 1e-9  # largest gradient entry (per judgment) of a converged fit
SWITCH = 1e-2  # gradient below which Gauss-Newton steps give way to exact Newton steps
GAUSS_NEWTON_STEPS = 10  # ... or after this many steps
MAX_STEPS = 400
MU_START, MU_MAX = 1e-3, 1e10  # the damping added to the Hessian's diagonal
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
    """Index arrays of one (N, d): the pairs j < k, and where each block of the
    Hessian goes in the packed (P x P) matrix."""

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
        u = lambda i, a: i * dims + a  # noqa: E731
        v = lambda j, a: nd + j * dims + a  # noqa: E731
        lam = lambda i: 2 * nd + i  # noqa: E731
        i, a, c = np.meshgrid(np.arange(n), np.arange(dims), np.arange(dims), indexing="ij")
        self.uu = (u(i, a) * p + u(i, c)).ravel()
        i, a, j, c = np.meshgrid(np.arange(n), np.arange(dims), np.arange(n),
                                 np.arange(dims), indexing="ij")
        self.uv, self.vu = (u(i, a) * p + v(j, c)).ravel(), (v(j, c) * p + u(i, a)).ravel()
        self.vv = (v(i, a) * p + v(j, c)).ravel()  # (j, a, k, c) in the names above
        i, a = np.meshgrid(np.arange(n), np.arange(dims), indexing="ij")
        self.ul, self.lu = (u(i, a) * p + lam(i)).ravel(), (lam(i) * p + u(i, a)).ravel()
        j, a, i = np.meshgrid(np.arange(n), np.arange(dims), np.arange(n), indexing="ij")
        self.vl, self.lv = (v(j, a) * p + lam(i)).ravel(), (lam(i) * p + v(j, a)).ravel()
        self.ll = lam(np.arange(n)) * (p + 1)
        self.ridge = np.arange(2 * nd) * (p + 1)
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
           log_lambdas: np.ndarray) -> tuple:
    """Per problem, judge and pair: the log-likelihood's sum, the outcome probabilities
    and the counts."""
    theta = lenses @ dispositions.transpose(0, 2, 1)  # theta[b, i, j] = u_i . v_j
    a, b = theta[:, :, lay.first], theta[:, :, lay.second]
    c = log_lambdas[:, :, None] + (a + b) / 2
    top = np.maximum(np.maximum(a, b), c)
    ea, eb, ec = np.exp(a - top), np.exp(b - top), np.exp(c - top)
    total = ea + eb + ec
    n1, n2, n3 = counts[..., FIRST], counts[..., SECOND], counts[..., TIE]
    n_all = n1 + n2 + n3
    value = (n1 * a + n2 * b + n3 * c - n_all * (top + np.log(total))).sum(axis=(1, 2))
    return value, ea / total, eb / total, ec / total, n1, n2, n3, n_all


def _penalty(lenses: np.ndarray, dispositions: np.ndarray) -> np.ndarray:
    return RIDGE * ((lenses ** 2).sum(axis=(1, 2)) + (dispositions ** 2).sum(axis=(1, 2)))


def _objective(lay: _Layout, counts: np.ndarray, scale: np.ndarray, x: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """(objective, log-likelihood) per problem."""
    lenses, dispositions, log_lambdas = _unpack(x, lay.n, lay.d)
    value = _cells(lay, counts, lenses, dispositions, log_lambdas)[0]
    return -(value - _penalty(lenses, dispositions)) / scale, value


def _derivatives(lay: _Layout, counts: np.ndarray, scale: np.ndarray, x: np.ndarray,
                 exact: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(objective, gradient, Hessian) per problem; `exact` False: the Gauss-Newton
    Hessian (the exact one without its term in d LL / d theta)."""
    n, d, p = lay.n, lay.d, lay.p
    count = x.shape[0]
    lenses, dispositions, log_lambdas = _unpack(x, n, d)
    value, pa, pb, pc, n1, n2, n3, n_all = _cells(lay, counts, lenses, dispositions,
                                                  log_lambdas)
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
    gradient = np.concatenate([
        (-(d_theta @ dispositions) + 2 * RIDGE * lenses).reshape(count, -1),
        (-(d_theta.transpose(0, 2, 1) @ lenses) + 2 * RIDGE * dispositions).reshape(count, -1),
        -gc.sum(axis=2)], axis=1)
    along = h_tt @ dispositions[:, None]  # (B, i, j, a) = sum_k H_i[j, k] v_ka
    h_uu = dispositions[:, None].transpose(0, 1, 3, 2) @ along
    h_uv = along.transpose(0, 1, 3, 2)[..., None] * lenses[:, :, None, None, :]
    h_uv = h_uv - (exact[:, None, None, None, None] * d_theta[:, :, None, :, None]
                   * np.eye(d)[None, None, :, None, :])
    outer = (lenses[:, :, :, None] * lenses[:, :, None, :]).reshape(count, n, d * d)
    h_vv = (outer.transpose(0, 2, 1) @ h_tt.reshape(count, n, n * n)).reshape(
        count, d, d, n, n).transpose(0, 3, 1, 4, 2)
    h_ul = h_tl @ dispositions
    h_vl = (lenses[:, :, None, :] * h_tl[:, :, :, None]).transpose(0, 2, 3, 1)
    hessian = np.zeros((count, p * p))
    for where, block in ((lay.uu, h_uu), (lay.uv, h_uv), (lay.vu, h_uv), (lay.vv, h_vv),
                         (lay.ul, h_ul), (lay.lu, h_ul), (lay.vl, h_vl), (lay.lv, h_vl),
                         (lay.ll, w_cc.sum(axis=2))):
        hessian[:, where] = block.reshape(count, -1)
    hessian[:, lay.ridge] += 2 * RIDGE
    objective = -(value - _penalty(lenses, dispositions)) / scale
    return (objective, gradient / scale[:, None],
            hessian.reshape(count, p, p) / scale[:, None, None])


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
    _, gradient, _ = _derivatives(lay, pairs, np.ones(1), x, np.zeros(1, bool))
    penalty_gradient = 2 * RIDGE * x[0, :2 * n * d]
    g = -gradient[0]
    g[:2 * n * d] += penalty_gradient
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


def _step(lay: _Layout, x: np.ndarray, gradient: np.ndarray, hessian: np.ndarray,
          mu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the damped Newton trial point, the projected gradient's largest entry)."""
    g, held = _projected(lay, x, gradient)
    system = np.where(held[:, :, None] | held[:, None, :], 0.0, hessian)
    diagonal = np.arange(lay.p)
    system[:, diagonal, diagonal] += np.where(held, 1.0, mu[:, None])
    trial = x - np.linalg.solve(system, g[:, :, None])[:, :, 0]
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


def _fit_chunk(lay: _Layout, counts: np.ndarray, starts: np.ndarray) -> tuple:
    # long: one damped Newton loop over the whole batch, with its bookkeeping
    count = len(starts)
    scale = np.maximum(counts.sum(axis=(1, 2, 3)), 1.0)
    x = _rebalance(lay, np.array(starts, dtype=np.float64))
    exact = np.zeros(count, dtype=bool)
    f, g, h = _derivatives(lay, counts, scale, x, exact)
    mu = np.full(count, MU_START)
    done = np.zeros(count, dtype=bool)
    converged = np.zeros(count, dtype=bool)
    escapes = np.zeros(count, dtype=np.int64)
    for number in range(MAX_STEPS):
        if done.all():  # every problem stopped: is each a minimum, not a saddle?
            escaped = _escape_saddles(lay, counts, scale, x,
                                      converged & (escapes < MAX_ESCAPES))
            if not len(escaped):
                break
            escapes[escaped] += 1
            done[escaped] = converged[escaped] = exact[escaped] = False
            mu[escaped] = MU_START
            f[escaped], g[escaped], h[escaped] = _derivatives(
                lay, counts[escaped], scale[escaped], x[escaped], exact[escaped])
        live = np.flatnonzero(~done)
        trial, size = _step(lay, x[live], g[live], h[live], mu[live])
        switch = ~exact[live] & ((size < SWITCH) | (number >= GAUSS_NEWTON_STEPS))
        finished = exact[live] & (size < GRADIENT_TOLERANCE)
        stuck = mu[live] > MU_MAX
        converged[live] = finished | (stuck & (size < 1e3 * GRADIENT_TOLERANCE))
        done[live[finished | stuck]] = True
        if switch.any():  # the same point, now with the exact Hessian
            exact[live[switch]] = True
            _, _, h[live[switch]] = _derivatives(lay, counts[live[switch]],
                                                 scale[live[switch]], x[live[switch]],
                                                 exact[live[switch]])
        moving = ~(finished | stuck | switch)
        live, trial = live[moving], trial[moving]
        if not len(live):
            continue
        f_trial = _objective(lay, counts[live], scale[live], trial)[0]
        better = f_trial < f[live]
        mu[live] = np.where(better, np.maximum(mu[live] * 0.3, 1e-12), mu[live] * 5)
        moved = live[better]
        if len(moved):
            x[moved] = _rebalance(lay, trial[better])
            f[moved], g[moved], h[moved] = _derivatives(lay, counts[moved], scale[moved],
                                                        x[moved], exact[moved])
    value = _objective(lay, counts, scale, x)
    return x, value[0], value[1], converged & done


def _escape_saddles(lay: _Layout, counts: np.ndarray, scale: np.ndarray, x: np.ndarray,
                    candidates: np.ndarray) -> np.ndarray:
    """Problems among `candidates` stopped at a saddle (the exact Hessian has an
    eigenvalue below SADDLE): each is moved, in place, a step along that eigenvector
    (the sign that lowers the objective); returns their positions."""
    chosen = np.flatnonzero(candidates)
    if not len(chosen):
        return chosen
    _, _, h = _derivatives(lay, counts[chosen], scale[chosen], x[chosen],
                           np.ones(len(chosen), dtype=bool))
    values, vectors = np.linalg.eigh(h)
    saddle = values[:, 0] < SADDLE
    chosen, direction = chosen[saddle], vectors[saddle, :, 0]
    if not len(chosen):
        return chosen
    tries = [x[chosen] + sign * size * direction for sign in (1.0, -1.0)
             for size in (1.0, 0.3, 0.1)]
    for trial in tries:
        trial[:, lay.lam] = np.clip(trial[:, lay.lam], *LOG_LAMBDA_BOUNDS)
    values = np.stack([_objective(lay, counts[chosen], scale[chosen], t)[0] for t in tries])
    best = np.argmin(values, axis=0)
    x[chosen] = np.stack(tries)[best, np.arange(len(chosen))]
    return chosen
