"""Consistent initialization and projection onto the constraint manifold.

Coordinates: weighted Gauss-Newton on ``phi(q, t) = 0``,

    q <- q - W^-1 Gq^T (Gq W^-1 Gq^T)^+ phi(q),

with large weights on the coordinates the user gave (they move as little as possible).
Speeds: the minimum weighted-norm correction onto ``C u + (phi_t, b) = 0``.
States of the general equations: weighted Gauss-Newton on their hidden constraints
``e_i^(k) = 0``, ``k < c_i`` (coordinates and speeds fixed).
Pseudo-inverses (SVD) keep redundant constraints harmless.
"""
import warnings

import numpy as np

from .._threads import LOCK
from ..codegen import once, point_call
from .init_outputs import split_output_values, solve_output_values, solve_output_speeds
from .init_contacts import admissible_contacts
from ..symbolic.singular import check_at

__all__ = ["initial_state", "project_state", "project_general", "normalize_quaternions"]


def normalize_quaternions(system, q):
    for idx in system.quaternions:
        n = np.linalg.norm(q[idx])
        if n > 0:
            q[idx] = q[idx] / n
    return q


def project_state(system, q, u, t, pv, wq=None, wu=None, tol=1e-13, max_iter=50):
    """Nearest consistent ``(q, u)``; returns ``(q, u, info)``."""
    F = system.functions
    q = normalize_quaternions(system, np.array(q, dtype=float))
    u = np.array(u, dtype=float)
    wq = np.ones(system.nq) if wq is None else wq
    wu = np.ones(system.nu) if wu is None else wu
    it, res = 0, 0.0
    if system.m:
        given = wq > 1.0
        q_try = None
        res = float(np.max(np.abs(np.array(F["phi"](q, t, pv)).ravel())))
        if res <= tol * max(1.0, np.max(np.abs(q))):
            q_try = q                   # already consistent: the correction is zero
        elif given.any() and not given.all():
            # first keep the given coordinates exactly and move only the others
            free = ~given
            start = q.copy()
            Gq = np.array(F["Gq"](start, t, pv))
            if np.linalg.matrix_rank(Gq[:, free]) < min(system.m, free.sum()):
                start[free] -= 1e-3 * (1.0 + np.abs(start[free]))   # leave a singular start
            q_try, it, res = _gauss_newton(system, start, t, pv, np.where(free, 1.0, 0.0),
                                           tol, max_iter)
            if not res <= tol * max(1.0, np.max(np.abs(q_try))):
                q_try = None
        if q_try is None:
            q_try, it, res = _gauss_newton(system, q, t, pv, 1.0 / wq, tol, max_iter)
        if not res <= 1e-8 * max(1.0, np.max(np.abs(q_try))):
            phi = np.array(F["phi"](q_try, t, pv)).ravel()
            _refuse_contradiction(system, np.array(F["Gq"](q_try, t, pv)), phi, "holonomic",
                                  f"q = {_named(system.q_names, q_try)}")
            worst = system.constraint_names[_row_owner(system, int(np.argmax(np.abs(phi))))]
            raise ValueError(
                f"{system.name}: consistent initialization failed: holonomic residual "
                f"{res:.3g} (constraint '{worst}') after {it} Gauss-Newton iterations from "
                f"q0 = {dict(zip(system.q_names, np.round(q, 6).tolist()))}; the constraint Jacobian "
                "may be singular there. Give q0 nearer a configuration satisfying the "
                "constraints, or pass initialize=False to keep the state as given")
        q = q_try
    if system.m + system.k:
        _, zc, C, _ = F["constraints"](q, u, t, pv)
        zc = np.array(zc).ravel()
        C = np.array(C)
        Wi = 1.0 / wu
        S = (C * Wi) @ C.T
        u = u - Wi * (C.T @ (np.linalg.pinv(S, rcond=1e-12) @ zc))
        if zc.size:
            # a contradiction left by the least-squares step (der(x) = 1 and der(x) = 2)
            zc = np.array(F["constraints"](q, u, t, pv)[1]).ravel()
            scale = max(1.0, float(np.max(np.abs(u))) if u.size else 1.0)
            if np.max(np.abs(zc)) > 1e-8 * scale * max(1.0, float(np.max(np.abs(C)))):
                _refuse_contradiction(system, C, zc, "velocity",
                                      f"q = {_named(system.q_names, q)}")
    return q, u, dict(iterations=it, residual=float(res))


def _named(names, values):
    return dict(zip(names, np.round(np.asarray(values, float), 6).tolist()))


def _refuse_contradiction(system, J, r, level, where):
    """Raise a ValueError naming the constraints whose residual ``r`` lies along the
    dependencies of their Jacobian rows ``J`` (no state satisfies them together: x = 0
    and x = 1), if it does; return otherwise (a start too far, a singular Jacobian).

    ``level``: "holonomic" (rows of phi, Jacobian Gq) or "velocity" (rows of C u, the
    holonomic ones differentiated, then the nonholonomic ones)."""
    from .redundancy import row_labels
    labels = row_labels(system)
    if level == "holonomic":
        labels = labels[:r.size]
    if J.size == 0 or r.size != J.shape[0] or not np.all(np.isfinite(J)):
        return
    U, sv, _ = np.linalg.svd(J)
    rank = int(np.sum(sv > 1e-9 * max(sv[0] if sv.size else 0.0, 1e-300)))
    Y = U[:, rank:]                       # dependencies among the rows: y^T J = 0
    if Y.shape[1] == 0:
        return
    along = Y @ (Y.T @ r)                 # the part of the residual no step can remove
    if not np.linalg.norm(along) >= 0.5 * np.linalg.norm(r):
        return
    rows = np.flatnonzero(np.abs(Y @ (Y.T @ along)) > 1e-6 * np.max(np.abs(along)))
    norms = np.linalg.norm(J, axis=1)
    if rows.size < 2 or np.any(norms[rows] <= 1e-9 * np.max(norms)):
        return          # a row vanishing at a singular point (|x|^2 = L^2 at 0): no conflict
    names = []
    for i in rows:
        name = labels[i] if i < len(labels) else f"row {i}"
        if name not in names:
            names.append(name)
    kind = "holonomic constraints" if level == "holonomic" else "constraints on the speeds"
    raise ValueError(
        f"{system.name}: the {kind} {', '.join(map(repr, names))} contradict each other: "
        f"no state near {where} satisfies them together (residual {np.max(np.abs(r)):.3g}; "
        "their rows are dependent there and the residual lies along the dependency, so "
        "initialize=False would only start off them); remove one of them or correct its "
        "equation so that they agree (for nonlinear constraints that do meet elsewhere: "
        "give q0 there)")


def _row_owner(system, row):
    """Index in ``system.holonomic`` of the constraint owning holonomic row ``row``."""
    for i, (_, n_rows) in enumerate(system.holonomic):
        if row < n_rows:
            return i
        row -= n_rows
    return 0


def _gauss_newton(system, q, t, pv, Wi, tol, max_iter):
    """Minimum weighted-norm Gauss-Newton on phi(q, t) = 0 (Wi: inverse weights, 0 = fixed)."""
    F = system.functions
    q = q.copy()
    res = np.inf
    for it in range(max_iter):
        phi = np.array(F["phi"](q, t, pv)).ravel()
        res = float(np.max(np.abs(phi)))
        if res <= tol * max(1.0, np.max(np.abs(q))):
            return q, it, res
        Gq = np.array(F["Gq"](q, t, pv))
        S = (Gq * Wi) @ Gq.T
        dq = -Wi * (Gq.T @ (np.linalg.pinv(S, rcond=1e-12) @ phi))
        q = normalize_quaternions(system, q + dq)
    phi = np.array(F["phi"](q, t, pv)).ravel()
    return q, max_iter, float(np.max(np.abs(phi)))


def initial_state(system, q0, v0, t0, pv, initialize=True):
    """Initial ``(q, u, v)`` of a run, moved to the nearest consistent state if asked.

    Every simulation method starts here. Coordinates and speeds the user gave are weighted
    1e8 times the others, so they move as little as possible; a warning names the given
    values that still had to change by more than 1e-6 (relative). A state with negative
    contact gaps is projected onto the admissible set (``initialize=True``) or refused
    (``initialize=False``: ValueError naming the contacts and gaps); see
    :mod:`mechdae.simulate.init_contacts`. ``initialize="continue"`` (a driver continuing
    its own run, e.g. the time-stepping stretches of "auto"): the state as given, unchecked.

    Returns
    -------
    q, u, v : ndarray
    init_report : dict
        ``{name: (given, used)}`` for every coordinate or speed that changed (and, after a
        contact projection, ``"gap(<contact>)"``, ``"kinetic energy"``, ``"potential
        energy"``).
    """
    q0, outs = split_output_values(system, q0)
    v0, outs_v = split_output_values(system, v0, speeds=True)
    qa, ua, va, gq, gu, gv = system.state_arrays(q0, v0, given_v=True)
    init_report = {}
    if outs:
        qa, va, gq, gv, init_report = solve_output_values(system, outs, qa, ua, va, gq, gv,
                                                          t0, pv)
    if outs_v:
        ua, gu, rep = solve_output_speeds(system, outs_v, qa, ua, va, gu, t0, pv)
        init_report.update(rep)
    keep = isinstance(initialize, str) and initialize == "continue"
    contacts = initialize
    initialize = bool(initialize) and not keep
    if initialize and (system.m + system.k or system.quaternions):
        q1, u1, _ = project_state(system, qa, ua, t0, pv, np.where(gq, 1e8, 1.0),
                                  np.where(gu, 1e8, 1.0))
        _record_changes(system, system.q_names + system.u_names, np.concatenate([qa, ua]),
                        np.concatenate([q1, u1]), np.concatenate([gq, gu]), init_report)
        qa, ua = q1, u1
    if system.contact_names:
        # gaps < 0: projected (initialize=True) or refused (False); see init_contacts
        qa, ua = admissible_contacts(system, qa, ua, t0, pv, contacts, init_report)
    if initialize and system.general_hidden and system.nv:
        v1 = project_general(system, qa, ua, va, t0, pv, np.where(gv, 1e8, 1.0))
        _record_changes(system, system.v_names, va, v1, gv, init_report)
        va = v1
    if system.nhd + system.nz:
        # the general equations solvable here (compile refused the identically singular)
        check_at(system, qa, ua, va, t0, pv)
    check_mass_matrix(system, qa, pv)
    return qa, ua, va, init_report


def check_mass_matrix(system, q, pv):
    """Every method solves with the mass matrix: a singular one at the start is a model
    without inertia in some direction (a joint angle between massless parts); name the
    speeds of that direction instead of failing with NaN inside the solver."""
    if not system.nu:
        return
    f = system.functions["M"]
    # M(p) independent of q: checked once per parameter vector (cached on the System)
    checked = once(system._integrators, "mass-checked",
                   lambda: {} if not f.sparsity_jac(0, 0).nnz() else False)
    key = np.ascontiguousarray(pv, dtype=float).tobytes() if checked is not False else None
    if key is not None and key in checked:
        return
    M = point_call(f, [q, pv])[0]
    if not np.all(np.isfinite(M)):
        bad = [n for n, row in zip(system.u_names, M) if not np.all(np.isfinite(row))]
        raise ValueError(f"{system.name}: the mass matrix is not finite at the initial state "
                         f"(rows of {', '.join(repr(b) for b in bad[:6])}); check q0 and the "
                         "parameters")
    w, V = np.linalg.eigh(0.5 * (M + M.T))
    scale = max(abs(w[-1]), np.finfo(float).tiny)
    if w[0] > 1e-12 * scale:
        if key is not None:
            with LOCK:
                if len(checked) >= 64:
                    checked.clear()
                checked[key] = True
        return
    v = V[:, 0]
    names = [system.u_names[i] for i in np.argsort(-np.abs(v)) if abs(v[i]) > 0.1][:6]
    raise ValueError(f"{system.name}: the mass matrix is singular at the initial state "
                     f"(smallest eigenvalue {w[0]:.3g} of {scale:.3g}): no inertia along "
                     f"{', '.join(repr(n) for n in names)}. A coordinate moves no mass here "
                     "(e.g. a joint between massless parts, or a loop cut that leaves a "
                     "joint angle without inertia): give those parts mass or inertia, or cut "
                     "the loop at another joint")


def _record_changes(system, names, old, new, given, init_report):
    """Report every value initialization changed; warn (naming them) about given values that
    moved by more than 1e-6 (relative)."""
    moved = []
    for name, a, b, g in zip(names, old, new, given):
        if abs(a - b) > 1e-10 * (1 + abs(a)):
            init_report[name] = (float(a), float(b))
            if g and abs(a - b) > 1e-6 * (1 + abs(a)):
                moved.append(name)
    if moved:
        warnings.warn(f"{system.name}: consistent initialization changed given values "
                      + ", ".join(f"{n}: {init_report[n][0]:.6g} -> {init_report[n][1]:.6g}"
                                  for n in moved), stacklevel=5)


def project_general(system, q, u, v, t, pv, wv=None, tol=1e-13, max_iter=50):
    """States ``v`` of the general equations moved onto their hidden constraints.

    Weighted Gauss-Newton (minimum weighted-norm steps, SVD pseudo-inverse) on
    ``e_i^(k)(q, u, v, t) = 0``, ``k < c_i`` (see :mod:`mechdae.symbolic.reduction`),
    with ``q, u`` fixed.  As for the coordinates, the given states (``wv > 1``) are first
    kept exactly while the others move; if that fails, all move with weights ``wv``.

    Raises
    ------
    ValueError
        When no consistent state is found.
    """
    v = np.array(v, dtype=float)
    wv = np.ones(system.nv) if wv is None else np.asarray(wv, float)
    given = wv > 1.0
    out = None
    if given.any() and not given.all():
        # keep the given states exactly: from the start as given, then (a singular start,
        # e.g. y = 0 on x^2 + y^2 = L^2) from a slightly moved one
        free = ~given
        for shift in (0.0, 1e-3):
            start = v.copy()
            start[free] -= shift * (1.0 + np.abs(start[free]))
            out, it, res = _general_gn(system, q, u, start, t, pv, np.where(free, 1.0, 0.0),
                                       tol, max_iter)
            if res <= tol * max(1.0, np.max(np.abs(out))):
                break
            out = None
    if out is None:
        out, it, res = _general_gn(system, q, u, v, t, pv, 1.0 / wv, tol, max_iter)
    if not res <= 1e-8 * max(1.0, np.max(np.abs(out))):
        g = np.array(system.functions["general_constraints"](q, u, out, t, pv)[0]).ravel()
        worst = system.general_hidden[int(np.argmax(np.abs(g)))]
        raise ValueError(
            f"{system.name}: consistent initialization failed: hidden constraint '{worst}' of "
            f"the general equations has residual {res:.3g} after {it} Gauss-Newton iterations "
            f"from {dict(zip(system.v_names, np.round(v, 6).tolist()))}; give initial values "
            "nearer a consistent state, or pass initialize=False to keep the state as given")
    return out


def _general_gn(system, q, u, v, t, pv, Wi, tol, max_iter):
    """Minimum weighted-norm Gauss-Newton on the hidden constraints (Wi: inverse weights)."""
    F = system.functions["general_constraints"]
    v = v.copy()
    res = np.inf
    for it in range(max_iter):
        g, Gv = F(q, u, v, t, pv)
        g = np.array(g).ravel()
        res = float(np.max(np.abs(g)))
        if res <= tol * max(1.0, np.max(np.abs(v))):
            return v, it, res
        Gv = np.array(Gv)
        S = (Gv * Wi) @ Gv.T
        v = v - Wi * (Gv.T @ (np.linalg.pinv(S, rcond=1e-12) @ g))
    g = np.array(F(q, u, v, t, pv)[0]).ravel()
    return v, max_iter, float(np.max(np.abs(g)))
