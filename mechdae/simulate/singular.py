r"""Passing singular positions of a mechanism on its physical branch.

Why the stabilized index-1 form leaves the branch
-------------------------------------------------
At a singular position the constraint Jacobian ``C`` loses rank: a left null vector
``n`` (``n^T C = 0``) appears, and near it the smallest singular value of ``C`` is
``sigma ~ k s`` (``s``: distance along the motion to the singular position; for a
parallelogram four-bar ``s = theta``, the cranks' angle from the ground line). The
combination ``phi_n = n^T phi`` of the constraints is then, in the branch coordinate ``s``
and the deviation ``d`` from the branch (a parallelogram: the difference of two cranks'
angles),

    phi_n = a s d + b d^2 + ...,      a, b != 0,

a saddle: its zero set is the physical branch ``d = 0`` and the other branch
``d = -a s / b``, crossing at ``s = 0``. The index-1 form enforces
``phi'' = H phi + K phi'`` exactly (the multipliers along ``n`` are the component
``rhs_n / sigma`` of the solve ``S lam = rhs``, :mod:`mechdae.symbolic.linalg`): it keeps the
state on a *level set* ``phi_n = e`` of the residual, where ``e`` is what integration left
(measured: ``e ~ 2e-8`` at ``rtol = 1e-8``; the Baumgarte feedback (10/s by default)
moves ``e`` over 0.1 s, the crossing takes microseconds). On that level set
``d = e / (a s)``: the deviation grows like ``1/s`` and its rate like ``1/s^2`` as the
singular position comes near (measured on the four-bar at 8 rad/s: 4e-8 rad at
``s = -0.07``, 1.3e-6 at ``s = -2e-3``), and the level set ``a s d + b d^2 = e`` is a
hyperbola whose arms join each half of the physical branch to a half of the *other*
branch, turning within ``|s| ~ sqrt(|e| / |b|)``. The exact solution of the stabilized
form therefore switches branch at every crossing (measured: the crank-angle difference
jumps to a rate of -16 rad/s within one 0.5 ms output step); it stays on the physical
branch only when the integrator happens to step over the turn. Tighter tolerances make
``e`` and the turn smaller but do not remove it (``rtol = 1e-11``: the branch is lost at
the same crossing), larger Baumgarte gains make a step over more likely (no cure), and
the Tikhonov regularization of the solve matters only for ``sigma < 1e-8 trace(S)``,
far inside the turn. The physical motion is the smooth one: the velocity is continuous
through the singular position and ``e = 0``.

The remedy
----------
The run is integrated in chunks of output points (``CHUNK``; after a singular position
1.2 times the stretch between the last two), each checked before the next: a run that
left the branch turns stiff and slow (the 10-loop chain: 27 s for 5 s of motion), so at
most the rest of one chunk is integrated past a crossing before it is passed. A singular
position is found between two output points by the sign change of the signed smallest
nonzero singular value ``g(t) = n_i^T C(t) v_i`` (``n_i, v_i``: its singular vectors at
the output before). The run is taken up again from the last output where that singular
value ``sigma`` is above ``3 SIGMA_C`` times its largest value at the outputs so far
(``sigma_max``; ``|C|`` would do for one loop, but ``sigma / |C| ~ 1 / n`` for a chain
of ``n`` loops at any position):

1. integrate (cvodes, as the rest of the run) to ``t_a`` where
   ``sigma = 1.5 SIGMA_C sigma_max``
   (Newton on ``sigma(t)``, never past the singular position): there the level-set
   deviation ``e / (a s)`` is far below the distance ``a s / b`` of the other branch;
2. remove the residual: Gauss-Newton onto ``phi = 0`` (minimum norm) and the speeds onto
   ``C u + c_t = 0`` in the metric of ``M`` (``e = 0`` up to rounding);
3. cross the window with classical Runge-Kutta steps (``RK_STEPS`` per estimated window):
   a smooth one-step method continues the smooth solution (its local error, ~1e-13, makes
   a turn of width ~3e-7 that no step resolves). No stage may come near the singular
   position (the multipliers are singular there: a stage within 1e-5 s of it moved the
   energy by 4 J): from the secant of ``sigma`` the step is cut so that ``t*`` lies a
   quarter or three quarters into it. The window ends where ``sigma`` is back above
   ``max(sigma(t_a), SIGMA_C sigma_max)``; output points inside it are cubic Hermite
   interpolants;
4. project again (the nearest point is on the physical branch: the other branch is
   ``SIGMA_C``-far) and continue with cvodes.

The singular time ``t*`` is the minimum of ``sigma`` along the Hermite interpolant of
the two steps around it (golden section); a minimum not near zero (below 5 % of the
neighbours) is a near miss and not reported. ``t*`` is reported in ``Result.stats``
(``rank_drops``, ``rank_drop_times``, ``singular_positions``, ``min_constraint_rank``),
in :attr:`Result.redundant_constraints` (the dependent rows at ``t*``) and as a
``"rank_drop"`` event.

Measured (models/parallel_cranks.py, 8 rad/s, defaults ``rtol = 1e-8``; before: the branch
lost at the 1st to 3rd crossing, energy off by 12-150 J over 3-20 s, ``rank_drops`` 0):
the four-bar over 5 s, 13 singular positions: crank angle within 3e-6 rad of the reduced
equation, ``t*`` within 3.4e-7 s, energy within 5e-7 relative, 0.4 s wall; three loops
over 3 s: 6e-7 rad, 5e-8 s, 0.3 s; ten loops over 5 s: 2.5 s (27 s before, off the
branch); forty loops over 1 s: 20-30 s on a loaded machine (generated C of the
right-hand side ~9 s, batched SVDs of the 160 x 161 Jacobians), energy within 1.2e-7
relative. Each crossing moves the energy by 1e-8 relative or less (cvodes' own drift
between crossings is larger).
"""
import numpy as np

__all__ = ["SIGMA_C", "CHUNK", "pass_singular_positions", "find_crossing", "cross", "report",
           "Failed"]

#: relative size of the smallest nonzero singular value of C below which the run crosses
#: with the projected Runge-Kutta window (see the module docstring)
SIGMA_C = 2e-2
RANK_TOL = 1e-9         # relative singular value counted as zero (as System.constraint_rank)
RK_STEPS = 32           # Runge-Kutta steps per estimated window


class Failed(Exception):
    """An integration after a singular position failed, or was interrupted (then
    ``__cause__`` is the KeyboardInterrupt); ``X[:, :k + 1]`` are final."""

    def __init__(self, exc, X, k):
        super().__init__(str(exc))
        self.exc, self.X, self.k = exc, X, k


class _Tools:
    """Numeric right-hand side, constraint Jacobian and projections of one run."""

    def __init__(self, system, specs, pv, H, K, wc, compiled):
        from .smooth import ode_function, _pack
        self.s = system
        self.pv = pv
        self.f, _ = ode_function(system, specs, compiled)
        self.P = lambda t: _pack(system, t, 1.0, pv, H, K, wc)
        self.nq, self.nu = system.nq, system.nu
        self.F = system.functions

    def rhs(self, x, t):
        return np.array(self.f(x, 0.0, self.P(t))).ravel()

    def C(self, x, t):
        q, u = x[:self.nq], x[self.nq:self.nq + self.nu]
        return np.array(self.F["constraints"](q, u, t, self.pv)[2])

    def project(self, x, t):
        """``x`` with ``q`` on ``phi = 0`` (Gauss-Newton, minimum norm) and ``u`` on the
        velocity constraints (minimum kinetic-energy change)."""
        from .init import _gauss_newton
        nq, nu = self.nq, self.nu
        x = np.array(x, float)
        q = x[:nq]
        if self.s.m:
            q, _, _ = _gauss_newton(self.s, q, t, self.pv, np.ones(nq), 1e-14, 20)
        u = x[nq:nq + nu]
        _, zc, C, _ = self.F["constraints"](q, u, t, self.pv)
        zc, C = np.array(zc).ravel(), np.array(C)
        M = np.array(self.F["M"](q, self.pv))
        MiCt = np.linalg.solve(M, C.T)
        S = C @ MiCt
        u = u - MiCt @ (np.linalg.pinv(S, rcond=1e-12, hermitian=True) @ zc)
        x[:nq], x[nq:nq + nu] = q, u
        return x

    def rk4(self, x, t, h):
        k1 = self.rhs(x, t)
        k2 = self.rhs(x + 0.5 * h * k1, t + 0.5 * h)
        k3 = self.rhs(x + 0.5 * h * k2, t + 0.5 * h)
        k4 = self.rhs(x + h * k3, t + h)
        return x + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)


def _smallest_pair(C):
    """``(n, v, sigma, sigma_max, rank)`` of the smallest nonzero singular value of C."""
    U, s, Vt = np.linalg.svd(C)
    if not s.size or s[0] <= 0:
        return None
    rank = int(np.sum(s > RANK_TOL * s[0]))
    k = rank - 1
    return U[:, k], Vt[k], s[k], s[0], rank


def find_crossing(Cs):
    """Index ``i`` of the first output interval ``[i, i + 1]`` over which the signed
    smallest nonzero singular value of ``C`` changes sign (None if none), and the
    singular values (N, min(r, n_u)).

    ``Cs``: (N, r, n_u) constraint Jacobians at the output points. Only the intervals
    next to a local minimum of that singular value over the outputs are tested with
    singular vectors (a large mechanism's full SVD at every output costs seconds).
    """
    sv = np.linalg.svd(Cs, compute_uv=False)
    N = Cs.shape[0]
    if not sv.shape[1]:
        return None, sv
    rank = np.sum(sv > RANK_TOL * np.maximum(sv[:, :1], 1e-300), axis=1)
    s = sv[np.arange(N), np.maximum(rank - 1, 0)]
    # local minima, strict on one side: a flat singular value (a pendulum's |C| = 2 L)
    # has none, a sign change of a singular vector pair needs the value to dip
    lo = np.ones(N, bool)
    lo[1:] &= s[1:] < s[:-1]
    lo[:-1] &= s[:-1] <= s[1:]
    cand = np.array(sorted({j for i in np.flatnonzero(lo) for j in (i - 1, i)
                            if 0 <= j < N - 1}), dtype=int)
    if not cand.size:
        return None, sv
    U, S, Vt = np.linalg.svd(Cs[cand])          # one batched call for the candidates
    for c, i in enumerate(cand):
        if not S.shape[1] or S[c, 0] <= 0:
            continue
        k = int(np.sum(S[c] > RANK_TOL * S[c, 0])) - 1
        if S[c, k] <= 10 * RANK_TOL * S[c, 0]:     # at the singular position already
            continue
        if U[c, :, k] @ Cs[i + 1] @ Vt[c, k] < 0.0:
            return int(i), sv
    return None, sv


def _failures():
    from .smooth import _Failed
    return (_Failed, RuntimeError)


def _rate(tools, x, t, idx, span):
    """``d sigma / dt`` along the motion (forward difference along the right-hand side)."""
    eps = 1e-7 * span
    return (_sigma(tools, x + eps * tools.rhs(x, t), t + eps, idx)
            - _sigma(tools, x, t, idx)) / eps


def _sigma(tools, x, t, idx):
    """Singular value ``idx`` (descending) of ``C`` at ``(x, t)``."""
    return float(np.linalg.svd(tools.C(x, t), compute_uv=False)[idx])


def _hermite(x0, x1, f0, f1, t0, t1, t):
    """Cubic Hermite interpolation of the state between two steps."""
    h = t1 - t0
    w = (t - t0) / h
    return ((1 + 2 * w) * (1 - w) ** 2 * x0 + w * (1 - w) ** 2 * h * f0
            + w * w * (3 - 2 * w) * x1 - w * w * (1 - w) * h * f1)


def _golden(f, a, b, tol):
    """``(x, f(x))`` at the minimum of a unimodal ``f`` on ``[a, b]`` (golden section)."""
    c = 0.5 * (3.0 - 5.0 ** 0.5)
    x1, x2 = a + c * (b - a), b - c * (b - a)
    f1, f2 = f(x1), f(x2)
    while b - a > tol:
        if f1 <= f2:
            b, x2, f2 = x2, x1, f1
            x1 = a + c * (b - a)
            f1 = f(x1)
        else:
            a, x1, f1 = x1, x2, f2
            x2 = b - c * (b - a)
            f2 = f(x2)
    return (x1, f1) if f1 <= f2 else (x2, f2)


def _vertex(tools, idx, nodes, s_near):
    """``(t*, C(t*))`` where singular value ``idx`` of ``C`` has its minimum along the
    cubic Hermite interpolant of the last two steps (``nodes``: ``(t, x, f)``), or
    ``(None, None)`` when that minimum is not near zero (a near miss)."""
    best = (np.inf, None, None)
    for a, b in zip(nodes[:-1], nodes[1:]):
        if a is None:
            continue
        (t0, x0, f0), (t1, x1, f1) = a, b

        def sig(t):
            return float(np.linalg.svd(tools.C(_hermite(x0, x1, f0, f1, t0, t1, t), t),
                                       compute_uv=False)[idx])
        r = _golden(sig, t0, t1, 1e-7 * (t1 - t0))
        if r[1] < best[0]:
            best = (r[1], r[0], tools.C(_hermite(x0, x1, f0, f1, t0, t1, r[0]), r[0]))
    if best[0] < 0.05 * s_near:
        return best[1], best[2]
    return None, None


def cross(tools, integrate, ti, xi, outs, scale, t_min=None):
    """Pass the next singular position after ``ti`` from the state ``xi`` there.

    ``integrate(x, t0, t1)``: cvodes from ``(t0, x)`` to ``t1``. ``outs``: the output
    times after ``ti``; the states of those passed are returned. ``scale``: the size of
    the crossing singular value ``sigma`` away from singular positions (its largest value
    at the outputs so far): the window is ``sigma < SIGMA_C scale``; it does not end
    before ``t_min`` (the output after the sign change of ``g`` was seen).

    Returns
    -------
    (t_b, x_b, out_states, t_star, rank_at, rank_before, C_star)
        ``t_b`` the window's end, its projected state, ``{t_out: x}`` for the output
        times passed, the singular time (None if ``g`` did not change sign), the ranks of
        ``C`` at ``t*`` and before, and ``C`` at ``t*``.
    """
    _, _, sig, smax, rank0 = _smallest_pair(tools.C(xi, ti))
    idx = rank0 - 1                      # the singular value that goes through zero
    target = SIGMA_C * scale
    span = outs[0] - ti
    out_states = {}
    pending = list(outs)
    # 1. the window's start t_a: Newton on sigma(t) = 1.5 SIGMA_C scale along cvodes from
    #    (ti, xi), never integrating past the singular position (cvodes may not pass
    #    it), recording the outputs passed
    ta, xa, sa = ti, xi, sig
    for _ in range(16):
        rate = _rate(tools, xa, ta, idx, span)
        if sa < 3 * target or rate >= 0 or not pending:
            break
        tc = min(ta + (sa - 1.5 * target) / -rate, pending[0])
        for _ in range(6):
            try:
                xc = integrate(xa, ta, tc)
                sc = _sigma(tools, xc, tc, idx)
                if _rate(tools, xc, tc, idx, span) >= 0:
                    sc = -np.inf             # past the singular position
            except _failures():
                sc = -np.inf
            if sc >= 0.5 * target:
                break
            tc = ta + 0.5 * (tc - ta)            # overshot: halve the step
        else:
            break
        ta, xa, sa = tc, xc, sc
        if ta == pending[0]:
            out_states[ta] = xa
            pending.pop(0)
    xa = tools.project(xa, ta)
    sa = _sigma(tools, xa, ta, idx)
    slope = max(-_rate(tools, xa, ta, idx, span), 1e-300)
    half = max(sa, target) / slope
    if pending:
        half = min(half, 4 * (pending[-1] - ta))
    h = 2.0 * half / RK_STEPS
    # 2. the Runge-Kutta window; the outputs it passes by cubic Hermite interpolation
    t, x, sg, f = ta, xa, sa, tools.rhs(xa, ta)
    t_star, C_star, s_prev, h_prev, passed, prev = None, None, np.inf, h, False, None
    t_end = outs[-1]
    for k in range(64 * RK_STEPS):
        if t >= t_end:                   # the end of the run
            break
        if k and k % (2 * RK_STEPS) == 0:
            h *= 2.0                     # the crossing is farther than estimated
        step = h
        if not passed and s_prev > sg:
            # no stage near the singular position (the multipliers are singular there):
            # t* a quarter or three quarters into the step
            tau = sg * h_prev / (s_prev - sg)
            if tau < 1.5 * h:
                step = 4 * tau if tau <= 0.5 * h else 4 * tau / 3
        t1 = min(t + step, t_end)
        x1 = tools.rk4(x, t, t1 - t)
        f1 = tools.rhs(x1, t1)
        s1 = _sigma(tools, x1, t1, idx)
        while pending and pending[0] <= t1:
            out_states[pending[0]] = _hermite(x, x1, f, f1, t, t1, pending[0])
            pending.pop(0)
        if not passed and s1 > sg and s_prev > sg:
            # sigma turned: through zero (a singular position) or a near miss
            passed = True
            t_star, C_star = _vertex(tools, idx, [prev, (t, x, f), (t1, x1, f1)],
                                     min(sg, s1))
        s_prev, h_prev, prev = sg, t1 - t, (t, x, f)
        t, x, sg, f = t1, x1, s1, f1
        if passed and sg >= max(sa, target) and t >= (t_min or t):
            break
        if not passed and t >= (t_min or np.inf) and sg > target and sg > s_prev:
            break                        # sigma grows again: no singular position here
    x = tools.project(x, t)
    rank_at = rank0
    if C_star is not None:
        # the singular values through zero at t* (interpolation error ~ h^4)
        sv = np.linalg.svd(C_star, compute_uv=False)
        rank_at = int(np.sum(sv > 1e-4 * max(scale, sig)))
    return t, x, out_states, t_star, rank_at, rank0, C_star


#: output points per chunk while no singular position has come (one scaled grid: one
#: cached integrator for the whole run)
CHUNK = 64


def pass_singular_positions(system, specs, ts, X, x0, pv, H, K, wc, compiled,
                            integrate_grid):
    """States at ``ts`` with each singular position passed on the physical branch.

    ``X`` (nx, N): a run at ``ts`` to check, or None: integrated here from ``x0`` in
    chunks of ``CHUNK`` output points (a run that leaves the branch becomes stiff and
    slow: it is not integrated far past the first crossing).
    ``integrate_grid(x0, t0, times)``: cvodes from ``(t0, x0)``, states at ``times``
    (nx, len). After a singular position the run goes on in
    chunks of 1.2 times the stretch between the last two (mechanisms pass them
    periodically).

    Returns
    -------
    (X, crossings)
        ``crossings``: dicts ``t``, ``rank``, ``rows``, ``rank_before``, ``C`` (the
        constraint Jacobian at ``t``; ``t`` None for a near miss, not reported).

    Raises
    ------
    Failed
        An integration failed; the outputs up to ``k`` are final.
    """
    tools = _Tools(system, specs, pv, H, K, wc, compiled)
    crossings = []
    last = ts.size - 1
    if X is None:
        X = np.full((x0.size, ts.size), np.nan)
        X[:, 0] = x0
        span = (0, 0, CHUNK)
    else:
        X = X.copy()
        span = (0, last, 0)          # X[:, first:end + 1] integrated, not yet checked
    while span is not None:
        try:
            first, end, n = span
            if end == first:         # integrate the next chunk of n outputs
                end = min(last, first + n)
                X[:, first + 1:end + 1] = integrate_grid(X[:, first], ts[first],
                                                         ts[first + 1:end + 1])
            span = _next(tools, integrate_grid, ts, X, (first, end), crossings)
        except _failures() + (KeyboardInterrupt,) as exc:     # Ctrl-C: raised with the
            raise Failed(getattr(exc, "exc", exc), X, span[0]) from exc   # outputs done
    return X, crossings


def _next(tools, integrate_grid, ts, X, span, crossings):
    """Check ``X[:, first:end + 1]`` for a singular position and pass the first one
    (``X`` is updated in place); the next span ``(j, j)`` to integrate from output ``j``,
    None at the end."""
    first, end = span
    last = ts.size - 1
    Cs = _jacobians(tools.s, ts[first:end + 1], X[:, first:end + 1], tools.pv)
    i, sv = find_crossing(Cs)
    if i is None:            # the next chunk: CHUNK outputs, or periodic (below)
        if end >= last:
            return None
        return end, end, _periodic(crossings) if len(crossings) > 1 else CHUNK
    # the size of the crossing singular value away from singular positions: its largest
    # value over the outputs so far (|C| would do for one loop, but the smallest nonzero
    # singular value of a chain of n loops is ~|C| / n at any position)
    idx = int(np.sum(sv[i] > RANK_TOL * sv[i, 0])) - 1
    tools.sigma_scale = max(getattr(tools, "sigma_scale", 0.0), float(np.max(sv[:, idx])))
    scale = tools.sigma_scale
    # the window starts from the last output far enough from the singular position
    k = i
    while k > 0 and sv[k, idx] < 3 * SIGMA_C * scale:
        k -= 1
    i, k = i + first, k + first
    tb, xb, states, t_star, rank_at, rank0, C_star = cross(
        tools, lambda x, a, b: integrate_grid(x, a, np.array([b]))[:, -1],
        ts[k], X[:, k], ts[k + 1:], scale, ts[i + 1])
    crossings.append(dict(t=t_star, rank=rank_at, rows=tools.s.m + tools.s.k,
                          rank_before=rank0, C=C_star, interval=i))
    j = k
    for to, xo in states.items():
        j = int(np.searchsorted(ts, to))
        X[:, j] = xo
    if j >= last:
        return None
    # on from the window's end to the next output
    X[:, j + 1] = integrate_grid(xb, tb, ts[j + 1:j + 2])[:, -1]
    # then a chunk just past the next singular position if they come periodically (the
    # stretch between the last two and a fifth; past it the run may leave the branch and
    # turn stiff), a multiple of 8 outputs (cached integrators)
    return j + 1, j + 1, _periodic(crossings)


def _periodic(crossings):
    """1.2 times the outputs between the last two singular positions, rounded up to 8."""
    gap = crossings[-1]["interval"] - (crossings[-2]["interval"] if len(crossings) > 1
                                       else 0)
    return -(-max(6 * gap // 5, 8) // 8) * 8


def _jacobians(system, ts, X, pv):
    """Constraint Jacobians C (N, r, n_u) at the output points."""
    from ..codegen import map_call
    nq, nu = system.nq, system.nu
    N = ts.size
    r = system.m + system.k
    out = map_call(system.functions["constraints"], N,
                   [X[:nq], X[nq:nq + nu], ts[None, :], pv], (3,))
    # contiguous: numpy's batched SVD of the transposed view is 10-30 times slower
    return np.ascontiguousarray(out[2].T.reshape(N, nu, r).transpose(0, 2, 1))


def report(res, crossings):
    """Add the singular positions passed between output points to ``res``.

    ``stats["singular_positions"]``: their times; ``rank_drops`` / ``rank_drop_times``
    count and list them with the output samples of lower rank;
    ``min_constraint_rank``; a :class:`~mechdae.simulate.redundancy.RankDrop` each in
    ``rank_drop_constraints`` (:attr:`Result.redundant_constraints`: the constraints of
    the dependency at that instant) and a ``"rank_drop"`` event each (``extra``: ``rank``,
    ``rows``, ``dependent``).
    """
    crossings = [c for c in crossings if c["t"] is not None]
    if not crossings:
        return
    from .result import Event
    from . import redundancy
    st = res.stats
    labels = redundancy.row_labels(res.system)
    times = [c["t"] for c in crossings]
    st["singular_positions"] = times[:100]
    st["rank_drop_times"] = sorted(set(st.get("rank_drop_times", [])) | set(times))[:100]
    st["rank_drops"] = int(st.get("rank_drops", 0)) + len(times)
    st["min_constraint_rank"] = min([st.get("min_constraint_rank", crossings[0]["rank"])]
                                    + [c["rank"] for c in crossings])
    recs = list(st.get("rank_drop_constraints", []))
    for c in crossings:
        rd = redundancy.rank_drop_records(c["C"][None], np.array([c["t"]]), labels,
                                          rank=np.array([c["rank"]]))
        dep = list(rd[0].dependent) if rd else []
        recs.extend(d.as_dict() for d in rd)
        res.events.append(Event(c["t"], None, "rank_drop", rank=c["rank"], rows=c["rows"],
                                dependent=dep))
    st["rank_drop_constraints"] = sorted(recs, key=lambda d: d["t_start"])[:100]
    res.events.sort(key=lambda e: e.t)
