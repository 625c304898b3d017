"""Smooth simulation with CasADi's cvodes (ODE form) or idas, one call over the output grid
(or chunk by chunk when streaming to a file).

The stabilized index-1 ODE ``x' = f(x, t)`` (``x = (q, u, v)``, see
:mod:`mechdae.symbolic`) is integrated in scaled time ``tau in [0, 1]``,
``t = t0 + tau T``, ``dx/dtau = T f(x, t)``, so that one integrator (per output grid and
input signal) serves every duration, parameter set and stabilization gain: those are all
entries of the integrator's parameter vector ``P = (t0, T, p, vec H, vec K, w_const)``.
"""
import time as _time

import casadi as ca
import numpy as np

from .._threads import LOCK as _LOCK
from ..codegen import map_call, once
from .. import _progress
from ..errors import SolverError
from .inputs import resolve_inputs, inputs_key, input_mx, input_values, constant_vector
from .init import initial_state, project_state
from .partial import (attach, counting_sigints, finite_prefix, interrupt, interrupted_since,
                      named, reraise_swallowed, sigint_count)
from .result import Result
from . import redundancy as _redundancy
from . import singular as _singular
from . import ledger as _ledger

__all__ = ["simulate_smooth", "integrator_dae", "ode_function", "ode_library",
           "stabilization_matrices", "code_stats"]


def casadi_name(name):
    """``name`` as a valid CasADi Function name (letters, digits, single underscores)."""
    import re
    out = re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9_]", "_", str(name))).strip("_")
    return out if out and out[0].isalpha() else f"m_{out}"


def stabilization_matrices(system, stabilization):
    """``(H, K, projection)`` for a simulate-time override (``"compiled"``: the System's)."""
    from ..stabilization import resolve, _Zero
    if isinstance(stabilization, str) and stabilization == "compiled":
        return system.H, system.K, system.projection
    rule, proj = resolve(stabilization)
    # the gains of the general equations' hidden constraints are compiled in (H_g, K_g):
    # a simulate-time stabilization applies to the mechanical constraints only
    H, K = (rule if rule is not None and system.m + system.k else _Zero()).matrices(
        system.m, system.k)
    return H, K, proj


def integrator_dae(system, specs, scaled=True, form="ode"):
    """The MX DAE dict for casadi.integrator, its parameter layout and helper Functions."""
    nx = system.nq + system.nu + system.nv
    r, m = system.m + system.k, system.m
    npar = len(system.p_names)
    nw = len(system.w_names)
    x = ca.MX.sym("x", nx)
    tau = ca.MX.sym("t")
    P = ca.MX.sym("P", 2 * scaled + npar + r * m + r * r + nw)
    o = 2 * scaled
    p = P[o:o + npar]
    H = ca.reshape(P[o + npar:o + npar + r * m], r, m)
    K = ca.reshape(P[o + npar + r * m:o + npar + r * m + r * r], r, r)
    wc = P[o + npar + r * m + r * r:]
    t = P[0] + tau * P[1] if scaled else tau
    w = input_mx(system, specs, t, wc)
    xdot, lam, z = system.rhs_mx(x, t, p, w, H, K)
    dae = dict(x=x, t=tau, p=P, ode=(P[1] * xdot if scaled else xdot))
    return dae


def _pack(system, t0, T, pv, H, K, wc, scaled=True):
    head = [t0, T] if scaled else []
    return np.concatenate([np.asarray(head, float), pv, np.asarray(H, float).ravel(order="F"),
                           np.asarray(K, float).ravel(order="F"), wc])


# cvodes / idas form their Newton matrices from finite differences of the right-hand side
# (forward, as SUNDIALS' own difference quotients): the integrator then needs no derivative
# graph of the model, so building one costs milliseconds whatever the model's size
_FD = dict(enable_fd=True, enable_forward=False, enable_reverse=False, enable_jacobian=False,
           fd_method="forward")


def ode_function(system, specs, compiled="auto"):
    """``f(x, tau, P) -> dx/dtau`` of :func:`integrator_dae`, built once per System and
    input signals: generated C (:mod:`mechdae.codegen`, compiled once and cached on disk)
    or, with no C compiler, sampled inputs (their samples would be compiled in) or
    ``compiled=False``, the CasADi Function itself. Returns ``(f, is_compiled)``."""
    cache = system.__dict__.setdefault("_ode_functions", {})          # a cache: not pickled
    key = (inputs_key(specs), compiled)
    entry = cache.get(key)
    if entry is not None and entry[2] is not None and entry[2].is_set():
        with _LOCK:              # its C was compiling in the background: load it now
            if cache.get(key) is entry:
                del cache[key]
    return once(cache, key, lambda: _ode_function(system, specs, compiled))[:2]


# general equations with more unknowns than this (``nhd + nz``: network models) are solved
# by a sparse factorization in every evaluation of the right-hand side, which dominates it
# and is compiled code inside CasADi already: their generated C measured no faster (RC
# ladder of 4,000 components: 0.5 ms per evaluation interpreted, as C slower; a
# 200-segment transmission line, 802 unknowns: 82 us interpreted, 68 us at -O1 after 5.8 s
# of compiling), so compiled="auto" leaves them interpreted
SOLVE_ROWS = 500


def _dense_algebra(system, f):
    """Whether the linear algebra of the right-hand side (flops of the LDL of ``M`` by its
    nonzeros, ``M^-1 [h, C^T]``, ``S = C M^-1 C^T`` and the regularized solves of ``S``, see
    :func:`mechdae.symbolic.linalg.regularized_solve`) outweighs its scalar instructions
    :data:`DENSE_ALGEBRA` times. That algebra runs as CasADi's own compiled routines when
    interpreted and measured 3x slower as generated C (a chain of 40 four-bar loops, 81
    coordinates and 80 rows: 1.4-2.3 ms per evaluation interpreted, 4.8 at -O1, 9.6 at
    -O0), while the scalar instructions run 2-4x faster as C (a 32-link chain without
    constraints)."""
    from ..codegen import instruction_count
    from ..symbolic.linalg import REFINE
    nu, r = system.nu, system.m + system.k
    nnz = system.functions["M"].sparsity_out(0).nnz()      # diagonal M (1-D networks): nu
    flops = (nu * (nnz / max(nu, 1)) ** 2 / 3 + 2 * r * nnz + r * r * nu
             + (REFINE + 1) * (r ** 3 / 3 + r * r))
    return flops > 1e5 and flops > DENSE_ALGEBRA * instruction_count([f])


DENSE_ALGEBRA = 10


def ode_library(system, specs, compiled="auto"):
    """``(lib, f)``: the :class:`mechdae.codegen.Library` of the right-hand side (None
    where :func:`ode_function` runs the Function object) and the CasADi Function
    ``f(x, tau, P)`` it was generated from (named ``lib``'s symbol)."""
    from ..codegen import library
    dae = integrator_dae(system, specs)
    f = ca.Function(f"{casadi_name(system.name)}_ode", [dae["x"], dae["t"], dae["p"]],
                    [dae["ode"]], ["x", "t", "p"], ["ode"], _FD)
    lib = None
    why = system.__dict__.setdefault("_ode_why", {})           # a cache: not pickled
    report = why.setdefault((inputs_key(specs), compiled), {})
    report.clear()
    n_solve = system.nhd + system.nz
    if compiled is False:
        report["interpreted"] = "compiled=False"
    elif any(kind == "a" for kind, _ in specs):
        report["interpreted"] = "sampled inputs (their samples would be compiled in)"
    elif compiled == "auto" and n_solve > SOLVE_ROWS:
        report["interpreted"] = (
            f"each evaluation is dominated by the sparse factorization of the general "
            f"equations' {n_solve} x {n_solve} matrix, compiled code inside CasADi either "
            f"way: generated C would not run faster (compiled=True compiles it anyway)")
    elif compiled == "auto" and _dense_algebra(system, f):
        nu, r = system.nu, system.m + system.k
        report["interpreted"] = (
            f"each evaluation is dominated by dense linear algebra (the mass matrix's "
            f"{nu} x {nu} factorization, the {r} constraint rows' C M^-1 C^T and its "
            f"regularized solves), compiled code inside CasADi either way and slower as "
            f"generated C (compiled=True compiles it anyway)")
    else:
        try:
            lib = library([f], compiled=compiled, jac_sparsity=_sparse_jacobian(f),
                          what=f"the right-hand side of '{system.name}'", report=report,
                          background=True)
        except RuntimeError as exc:
            if compiled is True:
                raise
            lib = None       # an operation without C code (a Python callback input)
            report["interpreted"] = f"an operation without C code ({exc})"[:300]
    if lib is not None:
        report["compiled_flags"] = " ".join(lib.flags)
    return lib, f


def _sparse_jacobian(f):
    """Whether the generated C of ``f(x, tau, P)`` should carry its Jacobian sparsity
    (``casadi.external`` reads it: the integrator's finite-difference Jacobians then seed
    only the structurally coupled states). CasADi writes the pattern of every input, P
    included: a dense ``x``-Jacobian gains nothing from it, and a pattern of millions of
    entries (a 40-loop mechanism: 162 states by the 13,000 entries of ``P``'s
    stabilization matrices, 6 MB of C) would cost more than it saves."""
    nx = f.numel_in(0)
    jx = f.sparsity_jac(0, 0).nnz()
    return jx <= nx * nx // 4 and jx + f.sparsity_jac(2, 0).nnz() <= 200_000


def code_stats(system, specs, compiled, nx):
    """``{"compiled": bool}`` of a run's right-hand side and, when it runs interpreted
    (the CasADi Function), ``"interpreted"``: why (:func:`mechdae.codegen.library`)."""
    if not nx:
        return {"compiled": False}
    is_c = ode_function(system, specs, compiled)[1]
    out = {"compiled": bool(is_c)}
    report = system.__dict__.get("_ode_why", {}).get((inputs_key(specs), compiled), {})
    if is_c:
        out["compiled_flags"] = report.get("compiled_flags", "")
    else:
        out["interpreted"] = report.get("interpreted", "unknown")
    return out


def _ode_function(system, specs, compiled):
    """``(f, is_compiled, pending)``: ``pending`` the Event of a background compile."""
    lib, f = ode_library(system, specs, compiled)
    if lib is not None:
        return lib.external(f.name(), _FD), True, None
    report = system.__dict__["_ode_why"][(inputs_key(specs), compiled)]
    return f, False, report.get("pending")


def _get_integrator(system, specs, grid, method, rtol, atol, opts, cache=True,
                    compiled="auto"):
    """The integrator over the scaled output ``grid``: cvodes / idas on the (compiled)
    right-hand side of :func:`ode_function`; cheap to build, cached per grid."""
    f, is_c = ode_function(system, specs, compiled)
    key = (method, tuple(np.round(grid, 14)), inputs_key(specs), rtol, atol,
           tuple(sorted(opts.items())), compiled, is_c)
    F = system._integrators.get(key) if cache else None
    if F is None:
        with _LOCK:            # built once, shared: evaluated with call_buffered only
            F = system._integrators.get(key) if cache else None
            if F is None:
                x = ca.MX.sym("x", f.numel_in(0))
                tau = ca.MX.sym("t")
                P = ca.MX.sym("P", f.numel_in(2))
                dae = dict(x=x, t=tau, p=P, ode=f(x, tau, P))
                o = dict(abstol=atol, reltol=rtol, max_num_steps=200000)
                o.update(opts)
                plugin = "idas" if method == "idas" else "cvodes"
                F = ca.integrator(f"{casadi_name(system.name)}_{plugin}", plugin, dae, 0.0,
                                  list(grid), o)
                if cache:
                    system._integrators[key] = F
    return F


# The default scheme is the LSODA strategy at output points. cvodes first runs Adams with
# functional iteration: no Jacobian, and for the non-stiff motions of mechanisms it takes
# fewer and cheaper steps than BDF/Newton at the same tolerances (8-link chain over 10 s:
# 1.8x faster; 16-link: 5x; the 64-link chain interpreted: 24 finite-difference Jacobians
# of 128 evaluations were 97 % of a BDF run). A stiff stretch goes back to BDF/Newton: an
# Adams call that needs more than ADAMS_MAX_STEPS steps for one output interval (the
# stability limit of a stiff mode caps its step) or fails to converge is continued by BDF
# from the last output point it completed. An explicit scheme in integrator_options
# (linear_multistep_method="bdf", ...) or method="idas" runs as given.
ADAMS = dict(linear_multistep_method="adams", nonlinear_solver_iteration="functional")
ADAMS_MAX_STEPS = 500
_SCHEME_KEYS = ("linear_multistep_method", "nonlinear_solver_iteration", "newton_scheme")


def _adams_first(method, opts):
    """Whether the integration starts with Adams / functional iteration (see ADAMS)."""
    return method != "idas" and not any(k in opts for k in _SCHEME_KEYS)


# BDF with Newton iteration, chosen for a stiff run (mechdae.simulate.stiffness); its
# Newton matrices ``I - gamma J`` are factored by CSparse's sparse LU on the sparsity of J
# that CasADi knows from the graph (J from finite differences over a colouring of it)
BDF = dict(linear_multistep_method="bdf", nonlinear_solver_iteration="newton")
LINEAR_SOLVER = "csparse"


def _scheme(system, specs, x0, P, T, method, opts, compiled):
    """``(opts, stats)``: the integrator options of the run and what the stats say of the
    scheme. A run that would start with Adams (:func:`_adams_first`) is tested for
    stiffness at its initial state (:mod:`mechdae.simulate.stiffness`: the fastest decay
    rate times the duration against a threshold growing with the evaluations per Jacobian)
    and runs BDF/Newton throughout when stiff: ``stats["lmm"] = "bdf"``, ``stats["decay_rate"]`` the fastest
    decay rate (1/s) found, ``stats["stiff"]``. A Newton iteration's sparse linear solver is
    named in ``stats["linear_solver"]``."""
    from .stiffness import colours, decay_rate, jacobian, threshold
    out = {}
    if x0.size and _adams_first(method, opts):
        f, _ = ode_function(system, specs, compiled)
        rate = decay_rate(jacobian(f, x0, 0.0, P, system._integrators))   # scaled time
        stiff = bool(rate > threshold(colours(f, system._integrators)))
        out.update(decay_rate=rate / T, stiff=stiff)
        if stiff:
            opts = dict(opts, **BDF)
            out["lmm"] = "bdf"
    newton = (method == "idas" or opts.get("nonlinear_solver_iteration", "newton") == "newton")
    if x0.size and newton and opts.get("newton_scheme", "direct") == "direct":
        opts = dict(opts)
        opts.setdefault("linear_solver", LINEAR_SOLVER)
        out["linear_solver"] = opts["linear_solver"]
    return opts, out


def _integrate_grid(system, specs, g, x0, P, method, rtol, atol, opts, compiled,
                    cache=True):
    """States at the scaled output grid ``g`` (no ``tau = 0``) and solver stats: cvodes /
    idas in one call, or Adams first where :func:`_adams_first` says so (``stats["lmm"]``
    names the multistep methods that ran). Raises :class:`_Failed`."""
    if not _adams_first(method, opts):
        F = _get_integrator(system, specs, g, method, rtol, atol, opts, cache, compiled)
        return _integrate(F, x0, P)
    oa = dict(opts, **ADAMS)
    oa.setdefault("max_num_steps", ADAMS_MAX_STEPS)
    oa.setdefault("disable_internal_warnings", True)    # the hand-over is not an error
    F = _get_integrator(system, specs, g, method, rtol, atol, oa, cache, compiled)
    try:
        X, st = _integrate(F, x0, P)
        st["lmm"] = "adams"
        return X, st
    except _Failed as f:
        k = f.X.shape[1]
        X0, st0 = f.X, f.stats
    # continue with BDF from output point k (tau_k = g[k - 1]): the rest of the grid in
    # scaled time of its own, P = (t0 + tau_k T, (1 - tau_k) T, ...)
    tk = g[k - 1] if k else 0.0
    rest = (np.asarray(g[k:], float) - tk) / (1.0 - tk)
    P2 = np.array(P, float)
    P2[0], P2[1] = P[0] + tk * P[1], (1.0 - tk) * P[1]
    xk = X0[:, -1] if k else np.asarray(x0, float)
    F = _get_integrator(system, specs, rest, method, rtol, atol, opts, False, compiled)
    try:
        X1, st1 = _integrate(F, xk, P2)
    except (_Failed, _Interrupted) as f:
        raise type(f)(f.exc, np.hstack([X0, f.X]), f.stats) from f.exc
    _add_stats(st1, st0)
    st1["lmm"] = "adams+bdf"
    st1["adams_points"] = k
    return np.hstack([X0, X1]), st1


class _Failed(Exception):
    """An integrator call failed after completing the output columns ``X`` (nx, k)."""

    def __init__(self, exc, X, stats=None):
        super().__init__(str(exc))
        self.exc, self.X, self.stats = exc, X, stats or {}


class _Interrupted(KeyboardInterrupt):
    """An integrator call stopped by Ctrl-C after completing the output columns ``X``
    (as :class:`_Failed`; a KeyboardInterrupt, so that no solver-failure handler (a retry,
    the Adams-to-BDF hand-over) takes it for one)."""

    def __init__(self, exc, X, stats=None):
        KeyboardInterrupt.__init__(self, str(exc))
        self.exc, self.X, self.stats = exc, X, stats or {}


def _integrate(F, x0, P):
    """``F(x0, p)["xf"]`` on a buffer of this call (threads, see mechdae/_threads.py).

    The integrator writes each output column as it reaches it: on a failure the columns
    completed so far are kept (the rest stays NaN) and raised with :class:`_Failed`.
    """
    buf, ev = F.buffer()
    a0 = np.array(x0, dtype=float).ravel()
    p = np.array(P, dtype=float).ravel()
    keep = [a0, p]
    for i, name in enumerate(F.name_in()):
        a = a0 if name == "x0" else p if name == "p" else None
        if a is not None and F.nnz_in(i):
            if a.size != F.nnz_in(i):
                raise ValueError(f"{F.name()}: input {name!r} has {a.size} values, expected "
                                 f"{F.nnz_in(i)}")
            buf.set_arg(i, memoryview(a))
    i_xf = F.name_out().index("xf")
    xf = np.full(F.nnz_out(i_xf), np.nan)
    keep.append(xf)
    buf.set_res(i_xf, memoryview(xf))
    nx = a0.size
    before = _cumulative(buf)
    n_int = sigint_count()
    try:
        ev()
    except RuntimeError as exc:
        # CasADi polls Ctrl-C in the right-hand side; CVODES reports it as CV_RHSFUNC_FAIL
        cls = _Interrupted if interrupted_since(n_int) else _Failed
        X = xf.reshape(nx, -1, order="F")
        k = finite_prefix(X.T)
        raise cls(exc, X[:, :k].copy(), _this_call(buf, before)) from exc
    del keep
    return xf.reshape(nx, -1, order="F"), _this_call(buf, before)


# CasADi's profiling counters of the integrator's inner functions (n_call_*, t_wall_*,
# t_proc_*) add up over every call that reused the buffer's memory; the solver's own
# counters (nfevals, nsteps, ...) are per call. Report both per call.
_CUMULATIVE = ("n_call_", "t_wall_", "t_proc_")


def _cumulative(buf):
    try:
        return {k: v for k, v in buf.stats().items() if k.startswith(_CUMULATIVE)}
    except RuntimeError:              # no call on this memory yet
        return {}


def _this_call(buf, before):
    st = dict(buf.stats())
    for k, v in before.items():
        if k in st and isinstance(v, (int, float)):
            st[k] = st[k] - v
    return st


def _add_stats(agg, st):
    for k2, val in st.items():
        if isinstance(val, (int, float)) and not isinstance(val, bool) and k2[:1] == "n":
            agg[k2] = agg.get(k2, 0) + val
    if "lmm" in st:           # the multistep methods of the chunks (see _integrate_grid)
        agg["lmm"] = st["lmm"] if agg.get("lmm") in (None, st["lmm"]) else "adams+bdf"


class _Grid:
    """The output grid, generated chunk by chunk when it is ``linspace(0, t_final, n)``
    (2 million points then never exist as one array)."""

    def __init__(self, t_final, output_times, n_out):
        if output_times is None:
            if not t_final > 0:
                raise ValueError(f"t_final must be > 0, got {t_final}")
            self.n = int(n_out)
            if self.n < 2:
                raise ValueError(f"n_out must be >= 2, got {n_out}")
            self.t0, self.t1 = 0.0, float(t_final)
            self.step = (self.t1 - self.t0) / (self.n - 1)
            self.ts = None
        else:
            ts = np.asarray(output_times, dtype=float).ravel()
            if ts.size < 2 or np.any(np.diff(ts) <= 0):
                raise ValueError("output_times must be increasing with at least 2 points")
            self.ts, self.n = ts, ts.size
            self.t0, self.t1 = float(ts[0]), float(ts[-1])
            d = np.diff(ts)
            self.step = float(d[0]) if np.ptp(d) <= 1e-12 * abs(d[0]) else None

    def times(self, i0, i1):
        """Times of points ``i0 .. i1`` (inclusive)."""
        if self.ts is not None:
            return self.ts[i0:i1 + 1]
        out = self.t0 + np.arange(i0, i1 + 1) * self.step     # as np.linspace
        if i1 == self.n - 1:
            out[-1] = self.t1
        return out

    def all(self):
        return self.times(0, self.n - 1)


def _march(system, specs, grid, x0, method, rtol, atol, opts, pack, chunk, proj, pv,
           compiled="auto", through=None):
    """Integrate chunk by chunk; yields ``(ts_c, X_c, stats, crossings)`` with ``ts_c``
    the times of points ``i0 .. i1`` (``ts_c[0]``: the chunk's start, already yielded),
    ``X_c`` the states there (nx, len) and the singular positions passed (``through(ts_c,
    x)``: a chunk of a model with constraints, see :func:`_through_singular`). A failure
    raises :class:`_Failed` with the completed columns of the chunk (times ``ts_c[1:]``)
    in ``X`` and the chunk's times in ``ts``."""
    xk = np.asarray(x0, float)
    i0 = 0
    nq, nu = system.nq, system.nu
    while i0 < grid.n - 1:
        i1 = min(i0 + chunk, grid.n - 1)
        ts_c = grid.times(i0, i1)
        n = i1 - i0
        cr = []
        try:
            if xk.size == 0:
                X = np.zeros((0, n))
                st = {}
            elif proj is None and through is not None and system.m + system.k:
                X, cr, st = through(ts_c, xk)
                X = X[:, 1:]
            elif proj is None:
                uniform = grid.step is not None
                g = (np.arange(1, n + 1) / n if uniform
                     else (ts_c[1:] - ts_c[0]) / (ts_c[-1] - ts_c[0]))
                X, st = _integrate_grid(system, specs, g, xk,
                                        pack(ts_c[0], ts_c[-1] - ts_c[0]), method, rtol,
                                        atol, opts, compiled, cache=uniform)
            else:
                cols, st, x = [], {}, xk
                for a, b in zip(ts_c[:-1], ts_c[1:]):
                    try:
                        out, st1 = _integrate_grid(system, specs, (1.0,), x, pack(a, b - a),
                                                   method, rtol, atol, opts, compiled)
                    except (_Failed, _Interrupted) as f:
                        raise type(f)(f.exc, np.array(cols).T.reshape(xk.size, len(cols)),
                                      st) from f.exc
                    x = out[:, 0]
                    q1, u1, _ = project_state(system, x[:nq], x[nq:nq + nu], b, pv,
                                              tol=proj.tol, max_iter=proj.max_iter)
                    x = np.concatenate([q1, u1, x[nq + nu:]])
                    cols.append(x)
                    _add_stats(st, st1)
                X = np.column_stack(cols)
        except (_Failed, _Interrupted) as f:
            f.ts = ts_c
            raise
        yield ts_c, np.hstack([xk[:, None], X]), st, cr
        xk = X[:, -1].copy() if X.shape[1] else xk
        i0 = i1


@counting_sigints
def simulate_smooth(system, t_final, q0=None, v0=None, params=None, inputs=None, method="auto",
                    rtol=1e-8, atol=1e-10, output_times=None, initialize=True,
                    stabilization="compiled", n_out=501, integrator_options=None, out=None,
                    chunk=None, compiled="auto"):
    """Smooth (event-free) simulation; see :meth:`mechdae.System.simulate`.

    Ctrl-C raises :class:`KeyboardInterrupt` with ``partial`` as a failure does (a
    streamed run's file then has status ``"interrupted"``); SIGINTs are counted while it
    runs (:func:`mechdae.simulate.partial.sigints`) to tell them from solver failures.

    ``out``: an HDF5 file to stream the run to (:mod:`mechdae.simulate.stream`): the grid
    is integrated ``chunk`` output points at a time (default 100,000) from the last
    state, each chunk appended to the file and dropped; returns the file's Result.
    A failure raises :class:`SolverError` with ``err.partial`` (the output points
    completed before it; the file holds the same).

    ``compiled``: the right-hand side as generated C (:func:`ode_function`; ``"auto"``
    falls back to the CasADi Function with one warning when no C compiler works), or
    ``False`` for the Function; ``res.stats["compiled"]`` says which ran. An interpreted
    cvodes run starts with Adams and functional iteration (:data:`ADAMS`; BDF takes over
    a stiff stretch): ``res.stats["lmm"]`` is ``"adams"`` or ``"adams+bdf"`` (absent: BDF
    throughout, as asked); an explicit
    ``integrator_options`` scheme (``linear_multistep_method``,
    ``nonlinear_solver_iteration``, ``newton_scheme``) or ``method="idas"`` is kept.
    """
    wall0 = _time.perf_counter()
    specs = resolve_inputs(system, inputs)
    pv = system.param_vector(params)
    H, K, proj = stabilization_matrices(system, stabilization)
    grid = _Grid(t_final, output_times, n_out)
    t0 = grid.t0
    qa, ua, va, init_report = initial_state(system, q0, v0, t0, pv, initialize)
    x0 = np.concatenate([qa, ua, va])
    wc = constant_vector(specs)
    opts = dict(integrator_options or {})
    plugin = "idas" if method == "idas" else "cvodes"
    opts, scheme = _scheme(system, specs, x0, _pack(system, t0, grid.t1 - t0, pv, H, K, wc),
                           grid.t1 - t0, method, opts, compiled)
    code = code_stats(system, specs, compiled, x0.size)      # as the run starts

    def finish_stats(st):
        st = {k: v for k, v in st.items() if isinstance(v, (int, float, str, bool))}
        st["n_rhs"] = int(st.get("nfevals", st.get("nfevals_total", -1)))
        st["method"] = plugin
        st.update(scheme)
        if st.get("lmm") == "adams":              # no Newton iteration ran
            st.pop("linear_solver", None)
        st.update(code)
        st.update(rtol=rtol, atol=atol)
        return st

    def fail(f, ts, X, st):
        def build():
            return postprocess(system, ts, X, pv, specs, H, K, finish_stats(st), init_report)
        if isinstance(f, KeyboardInterrupt):        # Ctrl-C (see _Interrupted)
            return interrupt(f"{system.name}: {method} run at t = {ts[-1]:.6g}", build)
        err = SolverError(f"{system.name}: {method} integration failed: {f.exc}")
        attach(err, build)
        return err

    if out is not None:
        return _stream(system, specs, grid, x0, method, rtol, atol, opts, pv, H, K, wc, proj,
                       init_report, out, chunk, finish_stats, wall0, compiled)
    ts = grid.all()
    T = ts[-1] - ts[0]
    stats, crossings = {}, []
    through = _through(system, specs, pv, H, K, wc, method, rtol, atol, opts, compiled)
    if x0.size == 0:
        # nothing moves (every coordinate eliminated by rigid connections): the outputs
        # are evaluated on the grid
        X = np.zeros((0, ts.size))
    elif proj is None and not _progress.shown() and system.m + system.k:
        # constraints: integrated in growing chunks, each checked for singular positions
        try:
            X, crossings, stats = through(ts, x0)
        except (_Failed, _Interrupted) as f:
            k = f.X.shape[1]
            raise fail(f, ts[:k + 1], np.hstack([x0[:, None], f.X]), f.stats) from f.exc
    elif proj is None and not _progress.shown():
        try:
            Xf, stats = _integrate_grid(system, specs, (ts[1:] - t0) / T, x0,
                                        _pack(system, t0, T, pv, H, K, wc), method, rtol,
                                        atol, opts, compiled)
        except (_Failed, _Interrupted) as f:
            k = f.X.shape[1]
            raise fail(f, ts[:k + 1], np.hstack([x0[:, None], f.X]), f.stats) from f.exc
        X = np.hstack([x0[:, None], Xf])
    else:
        # projection steps, or a progress bar on screen: integrated in chunks
        pack = (lambda a, T_: _pack(system, a, T_, pv, H, K, wc))
        cols = [x0[:, None]]
        per = max(1, (grid.n - 1) // 20) if _progress.shown() else grid.n
        try:
            for i, (ts_c, X_c, st, cr) in enumerate(_march(
                    system, specs, grid, x0, method, rtol, atol, opts, pack, per, proj, pv,
                    compiled, through)):
                cols.append(X_c[:, 1:])
                crossings += cr
                if i == 0:
                    stats = dict(st)
                else:
                    _add_stats(stats, st)
                _progress.advance(ts_c[-1])
        except (_Failed, KeyboardInterrupt) as f:
            # (Ctrl-C between two chunks: the chunks done)
            X = np.hstack(cols + [getattr(f, "X", np.zeros((x0.size, 0)))])
            raise fail(f, ts[:X.shape[1]], X, getattr(f, "stats", stats)) from f
        X = np.hstack(cols)
    res = postprocess(system, ts, X, pv, specs, H, K, finish_stats(stats), init_report)
    _singular.report(res, crossings)
    _ledger.watch(res, rtol)
    res.stats["wall_time"] = _time.perf_counter() - wall0
    return res


def _through(system, specs, pv, H, K, wc, method, rtol, atol, opts, compiled):
    """``through(ts, x0) -> (X, crossings, stats)``: the states at ``ts`` from ``x0``,
    integrated in chunks with each singular position of the constraints passed on the
    physical branch (:mod:`mechdae.simulate.singular`). Raises :class:`_Failed` with the
    completed columns after ``ts[0]``.

    An integration from ``a`` over output times with equal steps from ``a`` runs on the
    integrator cached for that scaled grid (``arange(1, n + 1) / n``); otherwise the
    first interval is integrated alone (the one-point grid, cached too) and the rest on
    equal steps when they are.
    """
    def through(ts, x0):
        stats = {}

        def call(x, a, times, g=None):
            T = times[-1] - a
            Xc, st = _integrate_grid(system, specs, (times - a) / T if g is None else g, x,
                                     _pack(system, a, T, pv, H, K, wc), method, rtol, atol,
                                     opts, compiled, cache=g is not None)
            for k, val in st.items():            # the timers too (_add_stats: counts)
                if k.startswith(("t_wall_", "t_proc_")) and isinstance(val, float):
                    stats[k] = stats.get(k, 0.0) + val
            if stats:
                _add_stats(stats, st)
            else:
                stats.update(st)
            return Xc

        def integrate_grid(x, a, times):
            d = np.diff(np.concatenate([[a], times]))
            if np.ptp(d) <= 1e-9 * d[0]:
                return call(x, a, times, np.arange(1, times.size + 1) / times.size)
            x1 = call(x, a, times[:1], np.ones(1))
            if times.size == 1:
                return x1
            return np.hstack([x1, integrate_grid(x1[:, -1], times[0], times[1:])])

        try:
            X, crossings = _singular.pass_singular_positions(
                system, specs, ts, None, x0, pv, H, K, wc, compiled, integrate_grid)
        except _singular.Failed as f:
            cls = _Interrupted if isinstance(f.__cause__, KeyboardInterrupt) else _Failed
            raise cls(f.exc, f.X[:, 1:f.k + 1], stats) from f.exc
        return X, crossings, stats
    return through


def _stream(system, specs, grid, x0, method, rtol, atol, opts, pv, H, K, wc, proj, init_report,
            out, chunk, finish_stats, wall0, compiled="auto"):
    """``simulate_smooth(out=...)``: chunks integrated, post-processed, appended, dropped."""
    from .stream import Writer, open_result, DEFAULT_CHUNK
    chunk = int(chunk or DEFAULT_CHUNK)
    if chunk < 1:
        raise ValueError(f"chunk must be >= 1 output point, got {chunk}")
    w = Writer(out)
    agg = {}
    rank_min, drops, drop_times, named = None, 0, [], []
    first = True

    def put(ts_c, X_c, st, crossings=()):
        nonlocal first, rank_min, drops
        r = postprocess(system, ts_c, X_c, pv, specs, H, K, dict(st), init_report)
        _singular.report(r, list(crossings))
        w.append(r, skip_first=not first)
        first = False
        if "min_constraint_rank" in r.stats:
            rk = r.stats["min_constraint_rank"]
            rank_min = rk if rank_min is None else min(rank_min, rk)
        drops += r.stats.get("rank_drops", 0)
        drop_times.extend(r.stats.get("rank_drop_times", [])[:100 - len(drop_times)])
        named[:] = _redundancy.merge(named, r.stats.get("rank_drop_constraints", []))[:100]

    def stats_now():
        st = finish_stats(dict(agg))
        st.update(rank_drops=drops, rank_drop_times=drop_times, rank_drop_constraints=named,
                  chunk=chunk, n_chunks=n_chunks, wall_time=_time.perf_counter() - wall0)
        if rank_min is not None:
            st["min_constraint_rank"] = rank_min
        return st

    n_chunks = 0
    pack = (lambda a, T_: _pack(system, a, T_, pv, H, K, wc))
    through = _through(system, specs, pv, H, K, wc, method, rtol, atol, opts, compiled)
    n_int = sigint_count()
    try:
        for ts_c, X_c, st, cr in _march(system, specs, grid, x0, method, rtol, atol, opts,
                                        pack, chunk, proj, pv, compiled, through):
            _add_stats(agg, st)
            n_chunks += 1
            put(ts_c, X_c, st, cr)
            _progress.advance(ts_c[-1])
            reraise_swallowed(n_int, f"{system.name}: {method} run streamed to {w.path}")
    except (_Failed, _Interrupted) as f:
        k = f.X.shape[1]
        _add_stats(agg, f.stats)
        if isinstance(f, KeyboardInterrupt):
            err = interrupt(f"{system.name}: {method} run streamed to {w.path} at t = "
                            f"{f.ts[k]:.6g}")
        else:
            err = SolverError(f"{system.name}: {method} integration failed: {f.exc}")
        try:
            if first:
                put(f.ts[:k + 1], np.hstack([x0[:, None], f.X]), {})
            elif k:            # the chunk's start point is in the file already
                w.append(postprocess(system, f.ts[1:k + 1], f.X, pv, specs, H, K, {},
                                     init_report))
        finally:
            w.finish(stats_now(), status="interrupted" if isinstance(f, KeyboardInterrupt)
                     else "failed", error=err)
        attach(err, lambda: open_result(w.path, system))
        raise err from f.exc
    except KeyboardInterrupt as exc:      # Ctrl-C outside the integrator: the chunks done
        err = named(exc, f"{system.name}: {method} run streamed to {w.path}")
        w.finish(stats_now(), status="interrupted", error=err)
        attach(err, lambda: open_result(w.path, system))
        if err is exc:
            raise
        raise err from exc.__cause__
    except BaseException as exc:
        w.finish(stats_now(), status="failed", error=exc)
        raise
    w.finish(stats_now())
    return open_result(w.path, system)


def has_energies(system):
    """Whether the model defines a kinetic or potential energy (the Result's ``energy``)."""
    return bool(system.has_energy or system._d.V.numel() and not system._d.V.is_zero())


def _multipliers(S, rhs, C, sv):
    """``lam`` of ``S lam = rhs`` at every sample (N, r) (``sv``: the singular values of
    ``C``, (N, min(r, n_u))): the minimum-norm solution
    (``pinv``, eigenvalues below 1e-10 of the largest dropped) where ``C`` is singular or
    nearly so, a batched LU solve where it is well conditioned (the same numbers, 10-100
    times faster on large mechanisms)."""
    good = sv[:, -1] > 1e-4 * np.maximum(sv[:, 0], 1e-300) if sv.shape[1] else \
        np.ones(C.shape[0], bool)
    if C.shape[1] <= C.shape[2] and good.all():
        return np.linalg.solve(S, rhs[:, :, None])[:, :, 0]
    lam = np.empty_like(rhs)
    g = good & (C.shape[1] <= C.shape[2])
    if g.any():
        lam[g] = np.linalg.solve(S[g], rhs[g][:, :, None])[:, :, 0]
    if (~g).any():
        lam[~g] = np.einsum("nij,nj->ni", np.linalg.pinv(S[~g], rcond=1e-10, hermitian=True),
                            rhs[~g])
    return lam


def _constant_matrix(extras):
    """Whether ``J`` of the general equations ``J (hd, z) + F0 = 0`` depends on the
    parameters only (linear networks: RC ladders, transmission lines)."""
    args = extras.sx_in()
    J = extras.call(args)[0]
    return not any(ca.depends_on(J, args[i]) for i in (0, 1, 2, 3, 5) if args[i].numel())


def _algebraic(system, Q, U, V, T1, P, W):
    """The algebraic unknowns ``z`` at the samples (N, nz): ``J (hd, z) = -F0`` solved per
    sample by the compiled sparse solve, or, when ``J`` depends on the parameters only,
    with one sparse LU of ``J`` for every sample (the per-sample solve would factor the
    same matrix N times: 0.25 s of a 4,000-component ladder's 501 outputs)."""
    import scipy.sparse as sps
    import scipy.sparse.linalg as spl
    F = system.functions
    N = Q.shape[0]
    if N > 1 and once(system._integrators, "extras-J-constant",
                      lambda: _constant_matrix(F["extras"])):
        args = [Q[0], U[0], V[0], T1[0, 0], P, W[:, 0]]
        J = F["extras"](*args)[0]
        sp = J.sparsity()
        Js = sps.csc_matrix((np.array(J.nonzeros()), sp.row(), sp.colind()), shape=J.shape)
        F0 = once(system._integrators, "extras-F0",
                  lambda: F["extras"].slice("extras_F0", list(range(6)), [1]))
        rhs = map_call(F0, N, [Q.T, U.T, V.T, T1, P, W], (4,))[0]
        try:
            sol = spl.splu(Js).solve(-rhs)
        except RuntimeError:             # singular: the per-sample solve says what it can
            sol = None
        if sol is not None and np.isfinite(sol).all():
            return sol[system.nhd:system.nhd + system.nz].T
    # the compiled solve of the general equations (sparse, no dense n x n per sample)
    return map_call(F["extras_solve"], N, [Q.T, U.T, V.T, T1, P, W], (4,))[1].T


def postprocess(system, ts, X, pv, specs, H, K, stats, init_report, events=None,
                solve_multipliers=True, energies=None):
    """Build the Result: multipliers (min-norm SVD solve; skipped with
    ``solve_multipliers=False``), residuals, energy (``energies``: ``(T, V)`` at ``ts``
    when the caller has them already), rank drops."""
    nq, nu, nv = system.nq, system.nu, system.nv
    N = ts.size
    Q, U, V = X[:nq].T, X[nq:nq + nu].T, X[nq + nu:].T
    W = input_values(system, specs, ts, pv) if system.w_names else np.zeros((0, N))
    F = system.functions
    # whole-trajectory calls on buffers of cached serial maps (mechdae.codegen.map_call)
    P = pv
    T1 = ts[None, :]
    Zalg = np.zeros((N, system.nz))
    if system.nz:
        Zalg = _algebraic(system, Q, U, V, T1, P, W)
    multipliers, residuals = {}, {}
    if system.general_constraints:
        # residuals e_i of the general equations that were differentiated (drift)
        E = map_call(F["general_residuals"], N, [Q.T, U.T, V.T, T1, P], (4,))[0].T
        for name in dict.fromkeys(system._general_owner):
            cols = [k for k, o in enumerate(system._general_owner) if o == name]
            residuals[name] = E[:, cols[0]] if len(cols) == 1 else E[:, cols]
    r = system.m + system.k
    rank_drop_times = []
    if r:
        y, zc, C, c = map_call(F["constraints"], N, [Q.T, U.T, T1, P], (3,))
        y, zc, c = y.T, zc.T, c.T
        C = np.ascontiguousarray(C.T.reshape(N, nu, r).transpose(0, 2, 1))   # fast SVD
        if solve_multipliers:
            Mm = map_call(F["M"], N, [Q.T, P], (1,))[0].T.reshape(N, nu, nu).transpose(0, 2, 1)
            h = map_call(F["h"], N, [Q.T, U.T, V.T, Zalg.T, T1, P, W], (5,))[0].T
            s = y @ H.T + zc @ K.T
            Mih = np.linalg.solve(Mm, h[:, :, None])[:, :, 0]
            MiCt = np.linalg.solve(Mm, C.transpose(0, 2, 1))
            S = C @ MiCt
            rhs = s - c - np.einsum("nij,nj->ni", C, Mih)
        sv = np.linalg.svd(C, compute_uv=False)
        if solve_multipliers:
            lam = _multipliers(S, rhs, C, sv)
        rank = np.sum(sv > _redundancy.TOL * np.maximum(sv[:, :1], 1e-300), axis=1)
        rank_drop_times = [float(t) for t, rk in zip(ts, rank) if rk < r]
        stats["min_constraint_rank"] = int(rank.min())
        stats["rank_drop_constraints"] = [d.as_dict() for d in _redundancy.rank_drop_records(
            C, ts, _redundancy.row_labels(system), rank)]
        res_all = np.concatenate([y, zc[:, system.m:]], axis=1)
        o = 0
        for name, rows in system.holonomic + system.nonholonomic:
            sl = slice(o, o + rows)
            if solve_multipliers:
                multipliers[name] = lam[:, sl][:, 0] if rows == 1 else lam[:, sl]
            residuals[name] = res_all[:, sl][:, 0] if rows == 1 else res_all[:, sl]
            o += rows
    stats["rank_drops"] = len(rank_drop_times)
    stats["rank_drop_times"] = rank_drop_times[:100]
    energy = kinetic = potential = None
    if energies is not None:
        kinetic, potential = energies
        energy = kinetic + potential
    elif has_energies(system):
        Tk, Vp = map_call(F["energy"], N, [Q.T, U.T, T1, P], (3,))
        kinetic, potential = Tk.ravel(), Vp.ravel()
        energy = kinetic + potential
    names = dict(q=system.q_names, u=system.u_names, v=system.v_names, z=system.z_names)
    return Result(ts, Q, U, names, x=V, zalg=Zalg, multipliers=multipliers, residuals=residuals,
                  energy=energy, kinetic=kinetic, potential=potential, stats=stats,
                  events=events or [], init_report=init_report, system=system, params=pv, w=W)
