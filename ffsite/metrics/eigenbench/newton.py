"""The batched maximum-likelihood fit of the low-rank BTD model (btd.py): a damped Newton
method (Levenberg-Marquardt) run on a whole batch of problems at once with numpy.

Gauss-Newton steps first (the Hessian without its term in the gradient, positive
semi-definite, so a start near the saddle at u = v = 0 moves away from it), until the
gradient is small or GAUSS_NEWTON_STEPS have passed; then exact Newton steps, which
converge quadratically.  The start and the end are rebalanced (the SVD of U V^T split
evenly between U and V), which changes no probability and never raises the ridge: at an
optimum it only picks the rotation the likelihood cannot see, so every fit reports its
factors the same way.  A point where the
gradient vanishes but the exact Hessian has a negative eigenvalue (a saddle) is left
along that direction and the fit goes on.
"""

from __future__ import annotations

import numpy as np

from ffsite.metrics.eigenbench.btd import (
    LOG_LAMBDA_BOUNDS,
    RIDGE,
    BtdFit,
    Fits,
    _derivatives,
    _full_hessian,
    _Layout,
    _layout,
    _objective,
    _penalty,
    _unpack,
    cold_starts,
    pair_counts,
)

GRADIENT_TOLERANCE = 1e-9  # largest gradient entry (per judgment) of a converged fit
SWITCH = 1e-2  # gradient below which Gauss-Newton steps give way to exact Newton steps
GAUSS_NEWTON_STEPS = 10  # ... or after this many steps
MAX_STEPS = 400
MU_START, MU_MAX = 1e-3, 1e10  # the damping added to the Hessian's diagonal
MU_EXACT = 1e-6  # ... restarted this low when the exact steps begin
SADDLE = -1e-7  # an exact-Hessian eigenvalue below this marks a saddle, not an optimum
MAX_ESCAPES = 3
CHUNK_CELLS = 400_000  # problems x judges x pairs handled at once (memory)


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
          blocks: tuple[np.ndarray, ...], mu: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the damped Newton trial point, the projected gradient's largest entry, the
    decrease the quadratic model predicts: (mu |step|^2 - g . step) / 2).

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
    step = np.concatenate([step_own[:, :, :d].reshape(count, nd), step_v[:, :, 0],
                           step_own[:, :, d]], axis=1)
    trial = x + step
    trial[:, lay.lam] = np.clip(trial[:, lay.lam], *LOG_LAMBDA_BOUNDS)
    predicted = (mu * (step ** 2).sum(axis=1) - (g * step).sum(axis=1)) / 2
    return trial, np.abs(g).max(axis=1), predicted


def fit_many(counts: np.ndarray, dims: int, starts: np.ndarray,
             rows: np.ndarray | None = None, near: np.ndarray | None = None) -> Fits:
    """Fit problem b from `starts[b]` (packed parameters) on `counts[rows[b]]` (counts:
    R x N x pairs x 3, `pair_counts`; rows: every problem its own counts by default).
    `near[b]`: the start is near an optimum (a fit of similar data), so exact Newton
    steps begin at once.  The batch is split only to bound memory."""
    rows = np.arange(len(starts)) if rows is None else np.asarray(rows)
    near = np.zeros(len(starts), dtype=bool) if near is None else np.asarray(near, bool)
    n = counts.shape[1]
    chunk = max(1, CHUNK_CELLS // max(1, n * counts.shape[2]))
    parts = [_fit_chunk(_layout(n, dims), counts[rows[s:s + chunk]], starts[s:s + chunk],
                        near[s:s + chunk])
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


def _fit_chunk(lay: _Layout, counts: np.ndarray, starts: np.ndarray,
               near: np.ndarray) -> tuple:
    # long: one damped Newton loop over the whole batch, with its bookkeeping
    count = len(starts)
    scale = np.maximum(counts.sum(axis=(1, 2, 3)), 1.0)
    weights, ridge = counts / scale[:, None, None, None], RIDGE / scale
    x = _rebalance(lay, np.array(starts, dtype=np.float64))
    exact = near.copy()
    f = _objective(lay, weights, ridge, x)[0]
    g, blocks = _derivatives(lay, weights, ridge, x, exact)
    h = _Rows(blocks)
    mu = np.where(near, MU_EXACT, MU_START)
    growth = np.full(count, 2.0)
    done = np.zeros(count, dtype=bool)
    converged = np.zeros(count, dtype=bool)
    escapes = np.zeros(count, dtype=np.int64)
    for number in range(MAX_STEPS):
        live = np.flatnonzero(~done)
        if not len(live):
            break
        trial, size, predicted = _step(lay, x[live], g[live], h[live], mu[live])
        switch = ~exact[live] & ((size < SWITCH) | (number >= GAUSS_NEWTON_STEPS))
        finished = exact[live] & (size < GRADIENT_TOLERANCE)
        stuck = mu[live] > MU_MAX
        left = np.zeros(len(live), dtype=bool)  # saddles just left: their trial is stale
        if finished.any():  # a minimum, or a saddle to leave (at most MAX_ESCAPES times)?
            candidates = np.zeros(count, dtype=bool)
            candidates[live[finished]] = escapes[live[finished]] < MAX_ESCAPES
            escaped = _escape_saddles(lay, weights, ridge, x, h, candidates)
            if len(escaped):
                escapes[escaped] += 1
                mu[escaped] = MU_EXACT
                f[escaped] = _objective(lay, weights[escaped], ridge[escaped], x[escaped])[0]
                g[escaped], h[escaped] = _derivatives(lay, weights[escaped], ridge[escaped],
                                                      x[escaped], exact[escaped])
                left = np.isin(live, escaped)
                finished &= ~left
                stuck &= ~left
        converged[live] = finished | (stuck & (size < 1e3 * GRADIENT_TOLERANCE))
        done[live[finished | stuck]] = True
        if switch.any():  # the same point, now with the exact Hessian
            turned = live[switch]
            exact[turned] = True
            mu[turned] = np.minimum(mu[turned], MU_EXACT)
            h[turned] = _derivatives(lay, weights[turned], ridge[turned], x[turned],
                                     exact[turned])[1]
        moving = ~(finished | stuck | switch | left)
        live, trial, predicted = live[moving], trial[moving], predicted[moving]
        if not len(live):
            continue
        f_trial, value = _objective(lay, weights[live], ridge[live], trial)
        better = f_trial < f[live]
        # Nielsen's rule: the damping follows how well the quadratic model predicted.
        ratio = np.clip((f[live] - f_trial) / np.maximum(predicted, 1e-300), -1.0, 2.0)
        mu[live] = np.where(better, np.maximum(
            mu[live] * np.maximum(1 / 3, 1 - (2 * ratio - 1) ** 3), 1e-12),
            mu[live] * growth[live])
        growth[live] = np.where(better, 2.0, growth[live] * 2)
        moved = live[better]
        if len(moved):
            x[moved] = trial[better]
            lenses, dispositions, _ = _unpack(x[moved], lay.n, lay.d)
            f[moved] = ridge[moved] * _penalty(lenses, dispositions) - value[better]
            g[moved], h[moved] = _derivatives(lay, weights[moved], ridge[moved], x[moved],
                                              exact[moved])
    x = _rebalance(lay, x)  # the same likelihood, no more ridge: the canonical factors
    objective, value = _objective(lay, weights, ridge, x)
    return x, objective, value * scale, converged & done


def _escape_saddles(lay: _Layout, weights: np.ndarray, ridge: np.ndarray, x: np.ndarray,
                    blocks: _Rows, candidates: np.ndarray) -> np.ndarray:
    """Problems among `candidates` stopped at a saddle (their exact Hessian, `blocks` at
    `x`, has an eigenvalue below SADDLE): each is moved, in place, along that eigenvector
    (the sign and size, of three, that lower the objective most); returns their
    positions."""
    chosen = np.flatnonzero(candidates)
    if not len(chosen):
        return chosen
    h = _full_hessian(lay, blocks[chosen])
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
