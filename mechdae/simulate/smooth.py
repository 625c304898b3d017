"""Smooth simulation with CasADi's cvodes (ODE form) or idas, one call over the output grid.

The stabilized index-1 ODE ``x' = f(x, t)`` (``x = (q, u, v)``, see
:mod:`mechdae.symbolic`) is integrated in scaled time ``tau in [0, 1]``,
``t = t0 + tau T``, ``dx/dtau = T f(x, t)``, so that one integrator (per output grid and
input signal) serves every duration, parameter set and stabilization gain: those are all
entries of the integrator's parameter vector ``P = (t0, T, p, vec H, vec K, w_const)``.
"""
import time as _time

import casadi as ca
import numpy as np

from .._threads import LOCK as _LOCK, call_buffered
from ..errors import SolverError
from .inputs import resolve_inputs, inputs_key, input_mx, input_values, constant_vector
from .init import initial_state, project_state
from .result import Result

__all__ = ["simulate_smooth", "integrator_dae", "stabilization_matrices"]


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


def _get_integrator(system, specs, grid, method, rtol, atol, opts):
    key = (method, tuple(np.round(grid, 14)), inputs_key(specs), rtol, atol,
           tuple(sorted(opts.items())))
    F = system._integrators.get(key)
    if F is None:
        with _LOCK:            # built once, shared: evaluated with call_buffered only
            F = system._integrators.get(key)
            if F is None:
                dae = integrator_dae(system, specs)
                o = dict(abstol=atol, reltol=rtol, max_num_steps=200000)
                o.update(opts)
                plugin = "idas" if method == "idas" else "cvodes"
                F = ca.integrator(f"{casadi_name(system.name)}_{plugin}", plugin, dae, 0.0,
                                  list(grid), o)
                system._integrators[key] = F
    return F


def simulate_smooth(system, t_final, q0=None, v0=None, params=None, inputs=None, method="auto",
                    rtol=1e-8, atol=1e-10, output_times=None, initialize=True,
                    stabilization="compiled", n_out=501, integrator_options=None):
    """Smooth (event-free) simulation; see :meth:`mechdae.System.simulate`."""
    wall0 = _time.perf_counter()
    specs = resolve_inputs(system, inputs)
    pv = system.param_vector(params)
    H, K, proj = stabilization_matrices(system, stabilization)
    if output_times is None:
        t0 = 0.0
        if not t_final > 0:
            raise ValueError(f"t_final must be > 0, got {t_final}")
        ts = np.linspace(0.0, float(t_final), int(n_out))
    else:
        ts = np.asarray(output_times, dtype=float).ravel()
        if ts.size < 2 or np.any(np.diff(ts) <= 0):
            raise ValueError("output_times must be increasing with at least 2 points")
        t0 = ts[0]
    T = ts[-1] - ts[0]
    grid = (ts[1:] - t0) / T

    qa, ua, va, init_report = initial_state(system, q0, v0, t0, pv, initialize)
    x0 = np.concatenate([qa, ua, va])
    wc = constant_vector(specs)
    opts = dict(integrator_options or {})
    stats = {}
    try:
        if x0.size == 0:
            # nothing moves (every coordinate eliminated by rigid connections): the outputs
            # are evaluated on the grid
            X = np.zeros((0, ts.size))
        elif proj is None:
            F = _get_integrator(system, specs, grid, method, rtol, atol, opts)
            # a buffer per call: a direct F(...) shares the integrator's memory between
            # threads (see mechdae/_threads.py)
            out, stats = call_buffered(F, dict(x0=x0, p=_pack(system, t0, T, pv, H, K, wc)))
            X = np.hstack([x0[:, None], out["xf"]])
        else:
            F = _get_integrator(system, specs, (1.0,), method, rtol, atol, opts)
            cols = [x0]
            xk = x0
            agg = {}
            for a, b in zip(ts[:-1], ts[1:]):
                Pk = _pack(system, a, b - a, pv, H, K, wc)
                out, st = call_buffered(F, dict(x0=xk, p=Pk))
                xk = out["xf"].ravel()
                q1, u1, _ = project_state(system, xk[:system.nq], xk[system.nq:system.nq + system.nu],
                                          b, pv, tol=proj.tol, max_iter=proj.max_iter)
                xk = np.concatenate([q1, u1, xk[system.nq + system.nu:]])
                cols.append(xk)
                for k2, val in st.items():
                    if isinstance(val, (int, float)) and not isinstance(val, bool):
                        agg[k2] = agg.get(k2, 0) + val
            X = np.column_stack(cols)
            stats = agg
    except RuntimeError as exc:
        raise SolverError(f"{system.name}: {method} integration failed: {exc}") from exc
    stats = {k: v for k, v in stats.items() if isinstance(v, (int, float, str, bool))}
    stats["n_rhs"] = int(stats.get("nfevals", stats.get("nfevals_total", -1)))
    stats["method"] = "idas" if method == "idas" else "cvodes"
    stats.update(rtol=rtol, atol=atol)
    res = postprocess(system, ts, X, pv, specs, H, K, stats, init_report)
    res.stats["wall_time"] = _time.perf_counter() - wall0
    return res


def postprocess(system, ts, X, pv, specs, H, K, stats, init_report, events=None):
    """Build the Result: multipliers (min-norm SVD solve), residuals, energy, rank drops."""
    nq, nu, nv = system.nq, system.nu, system.nv
    N = ts.size
    Q, U, V = X[:nq].T, X[nq:nq + nu].T, X[nq + nu:].T
    W = input_values(system, specs, ts, pv) if system.w_names else np.zeros((0, N))
    F = system.functions
    P = pv.reshape(-1, 1)
    Zalg = np.zeros((N, system.nz))
    if system.nz:
        # the compiled solve of the general equations (sparse, no dense n x n per sample)
        Zalg = np.array(F["extras_solve"].map(N)(Q.T, U.T, V.T, ts[None, :], P, W)[1]).T
    multipliers, residuals = {}, {}
    if system.general_constraints:
        # residuals e_i of the general equations that were differentiated (drift)
        E = np.array(F["general_residuals"].map(N)(Q.T, U.T, V.T, ts[None, :], P)).T
        for name in dict.fromkeys(system._general_owner):
            cols = [k for k, o in enumerate(system._general_owner) if o == name]
            residuals[name] = E[:, cols[0]] if len(cols) == 1 else E[:, cols]
    r = system.m + system.k
    rank_drop_times = []
    if r:
        Mm = np.array(F["M"].map(N)(Q.T, P)).reshape(nu, N, nu).transpose(1, 0, 2)
        h = np.array(F["h"].map(N)(Q.T, U.T, V.T, Zalg.T, ts[None, :], P, W)).T
        y, zc, C, c = F["constraints"].map(N)(Q.T, U.T, ts[None, :], P)
        y, zc, c = np.array(y).T, np.array(zc).T, np.array(c).T
        C = np.array(C).reshape(r, N, nu).transpose(1, 0, 2)
        s = y @ H.T + zc @ K.T
        Mih = np.linalg.solve(Mm, h[:, :, None])[:, :, 0]
        MiCt = np.linalg.solve(Mm, C.transpose(0, 2, 1))
        S = C @ MiCt
        rhs = s - c - np.einsum("nij,nj->ni", C, Mih)
        lam = np.einsum("nij,nj->ni", np.linalg.pinv(S, rcond=1e-10, hermitian=True), rhs)
        sv = np.linalg.svd(C, compute_uv=False)
        rank = np.sum(sv > 1e-9 * np.maximum(sv[:, :1], 1e-300), axis=1)
        rank_drop_times = [float(t) for t, rk in zip(ts, rank) if rk < r]
        stats["min_constraint_rank"] = int(rank.min())
        res_all = np.concatenate([y, zc[:, system.m:]], axis=1)
        o = 0
        for name, rows in system.holonomic + system.nonholonomic:
            sl = slice(o, o + rows)
            multipliers[name] = lam[:, sl][:, 0] if rows == 1 else lam[:, sl]
            residuals[name] = res_all[:, sl][:, 0] if rows == 1 else res_all[:, sl]
            o += rows
    stats["rank_drops"] = len(rank_drop_times)
    stats["rank_drop_times"] = rank_drop_times[:100]
    energy = kinetic = potential = None
    if system.has_energy or system._d.V.numel() and not system._d.V.is_zero():
        Tk, Vp = F["energy"].map(N)(Q.T, U.T, ts[None, :], P)
        kinetic, potential = np.array(Tk).ravel(), np.array(Vp).ravel()
        energy = kinetic + potential
    names = dict(q=system.q_names, u=system.u_names, v=system.v_names, z=system.z_names)
    return Result(ts, Q, U, names, x=V, zalg=Zalg, multipliers=multipliers, residuals=residuals,
                  energy=energy, kinetic=kinetic, potential=potential, stats=stats,
                  events=events or [], init_report=init_report, system=system, params=pv, w=W)
