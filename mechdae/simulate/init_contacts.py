r"""Initial states that violate contacts: projected onto the admissible set, or refused.

A state with a negative gap ``g_i(q) < 0`` is no state of the model: every method would
have to push the bodies apart with energy nobody put in. The event engine closes such a
contact and its Baumgarte law ``g'' = -2 alpha g' - beta^2 g`` (alpha = 20, beta = 100)
pushes with ``lambda_n = m (g + beta^2 |g|)``: a ball of 1 kg started 5 cm inside the
floor is released at ``g = -1.4 cm`` with 3.8 m/s (+7.5 J), one started 1 m inside is
launched at 76 m/s. So :func:`admissible_contacts` (called by
:func:`mechdae.simulate.init.initial_state`, the start of every method) does:

``initialize=True``: the configuration is moved to the nearest admissible one in the
kinetic metric,

.. math::

    \min_{\Delta u} \tfrac12 \Delta u^T M \Delta u \quad \text{s.t.} \quad
    g(q + N \Delta u) \ge 0, \quad \phi(q + N \Delta u, t) = 0,

by successive linearization (``g + W_n \Delta u``, ``\phi + G \Delta u``; contacts the
projection pushed stay on ``g_i = 0`` from the second iteration on). Each step is a
quadratic program whose dual is the LCP

.. math::

    p \ge 0, \quad W_n \Delta u_0 + g + D p \ge 0, \quad p^T(\cdot) = 0, \qquad
    D = W_n P W_n^T, \quad P = M^{-1} - M^{-1} E^T (E M^{-1} E^T)^+ E M^{-1},

with ``E`` the equality rows (``G``, then the pushed contacts), ``\Delta u_0 =
-M^{-1} E^T (E M^{-1} E^T)^+ e`` and ``\Delta u = \Delta u_0 + P W_n^T p``; it is solved
by the Lemke kernel. Then the speeds of the contacts the projection closed are made
admissible the same way: the minimum kinetic-metric change ``M (u^+ - u) = C^T \lambda +
W_n^T p`` with ``C u^+ + c = 0`` and ``w_{n,i}^T u^+ + w_{t,i} \ge 0`` (a plastic,
frictionless impact on those contacts: an approaching normal speed becomes zero,
separating and tangential motion is kept).

What "without adding energy" means here. The given state lies outside the admissible
set, so its potential energy is that of no motion of the model: a ball at rest inside
the floor has ``V(q_0) = m g y_0``, and every admissible state has ``V >= m g R`` and
``T >= 0``, so no projection can keep ``T + V`` at or below the given value. The rule is
therefore: (1) the projection adds no kinetic energy — the speed step is the
``M(q_1)``-orthogonal projection of ``u_0`` onto a convex cone through the origin, so
``T(q_1, u_1) <= T(q_1, u_0)`` (``= T(q_0, u_0)`` when ``M`` does not depend on ``q``);
(2) the potential energy changes by ``V(q_1) - V(q_0)``, the least displacement in the
kinetic metric decides it (the ball: ``m g |g_0|``), reported, never hidden; (3) the run
starts from ``(q_1, u_1)`` and its energy never exceeds ``E_1 = T(q_1, u_1) + V(q_1)`` by
more than the integration tolerance (contacts are passive; nothing launches). The report:
``Result.init_report`` holds ``"gap(<contact>)": (g_0, g_1)`` for every contact the
projection moved, ``"kinetic energy"`` and ``"potential energy"`` ``(before, after)`` in J,
and every coordinate and speed that changed; a warning says the same.

``initialize=False``: a gap below ``-PENETRATION_TOL`` is a ValueError naming the contacts,
their gaps and the fix (``initialize=True``, or ``q0`` with gaps ``>= 0``).
``initialize="continue"`` (a driver continuing a run it made itself, e.g. the time-stepping
stretches of ``"auto"``, whose Moreau–Jean steps keep an O(v dt) overlap): kept as given.
"""
import os
import sys
import warnings

import numpy as np

__all__ = ["admissible_contacts", "contact_gaps", "PENETRATION_TOL", "PROJECT_TOL"]

#: initialize=False: a gap below -PENETRATION_TOL is an error (shallower: the event
#: engine's stabilization removes it with negligible work, m beta^2 g^2 / 2)
PENETRATION_TOL = 1e-6
#: initialize=True: a gap below -PROJECT_TOL is projected (a state meant to touch, with a
#: round-off gap, keeps its speeds: an approaching one is an impact at the start)
PROJECT_TOL = 1e-10


def contact_gaps(system, q, t, pv):
    """Gaps ``g_i(q, t)`` of every contact (``system.contact_names`` order)."""
    return np.array(system.functions["gap"](q, t, pv), dtype=float).ravel()


def _normal_rows(system):
    """Row of each contact's normal ``w_n^T`` in ``W`` (per contact: normal, tangents)."""
    rows, r = [], 0
    for c in system.contacts:
        rows.append(r)
        r += 1 + int(c["n_tangent"])
    return np.array(rows, dtype=int)


def admissible_contacts(system, q, u, t, pv, initialize, report):
    """Initial ``(q, u)`` with every gap ``>= 0`` (module docstring).

    Parameters
    ----------
    system : System
    q, u : ndarray, shape (nq,), (nu,)
        State after the bilateral projection (consistent with ``phi``, ``psi``).
    t : float
    pv : ndarray
        Parameter vector.
    initialize : bool or "continue"
    report : dict
        ``init_report``, updated in place with the projection (``{name: (before, after)}``).

    Returns
    -------
    q, u : ndarray

    Raises
    ------
    ValueError
        ``initialize=False`` and a gap below ``-PENETRATION_TOL``; or no admissible
        configuration found near ``q`` (``initialize=True``).
    """
    if not system.contact_names or (isinstance(initialize, str) and initialize == "continue"):
        return q, u
    g0 = contact_gaps(system, q, t, pv)
    if not initialize:
        bad = np.flatnonzero(g0 < -PENETRATION_TOL)
        if bad.size:
            raise ValueError(
                f"{system.name}: the initial state penetrates "
                + ", ".join(f"contact '{system.contact_names[i]}' (gap {g0[i]:.6g})"
                            for i in bad)
                + "; a gap must be >= 0 at the start (with initialize=False the contact "
                "would push the bodies apart with energy nobody put in). Pass "
                "initialize=True (the default) to project the state onto the admissible "
                "set (reported in Result.init_report), or give q0 with every gap >= 0")
        return q, u
    if not np.any(g0 < -PROJECT_TOL):
        return q, u
    F = system.functions
    T0, V0 = (float(x) for x in F["energy"](q, u, t, pv))
    q1, pushed = _project_positions(system, q, t, pv, g0)
    u1 = _project_speeds(system, q1, u, t, pv, pushed)
    T1, V1 = (float(x) for x in F["energy"](q1, u1, t, pv))
    g1 = contact_gaps(system, q1, t, pv)
    moved = [i for i in range(len(g0)) if abs(g1[i] - g0[i]) > PROJECT_TOL]
    changes = []
    for names, a, b in ((system.q_names, q, q1), (system.u_names, u, u1)):
        for n, x, y in zip(names, a, b):
            if abs(x - y) > 1e-10 * (1 + abs(x)):
                report[n] = (report[n][0] if n in report else float(x), float(y))
                changes.append(f"{n}: {x:.6g} -> {y:.6g}")
    for i in moved:
        report[f"gap({system.contact_names[i]})"] = (float(g0[i]), float(g1[i]))
    report["kinetic energy"] = (T0, T1)
    report["potential energy"] = (V0, V1)
    warnings.warn(
        f"{system.name}: the initial state penetrates "
        + ", ".join(f"contact '{system.contact_names[i]}' (gap {g0[i]:.6g})"
                    for i in np.flatnonzero(g0 < -PROJECT_TOL))
        + f"; projected onto the admissible set (gaps >= 0, kinetic metric): "
        + ", ".join(changes) + f"; kinetic energy {T0:.6g} -> {T1:.6g} J, potential energy "
        f"{V0:.6g} -> {V1:.6g} J (Result.init_report). Give q0 with every gap >= 0 to "
        "start elsewhere", stacklevel=_user_level())
    return q1, u1


def _user_level():
    """``stacklevel`` of a warning issued by the caller: the first frame outside the
    package (the user's ``simulate`` call, whichever driver path led here)."""
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    f, level = sys._getframe(2), 2
    while f is not None and os.path.abspath(f.f_code.co_filename).startswith(pkg + os.sep):
        f, level = f.f_back, level + 1
    return level


def _min_norm_lcp(M, E, e, Wn, b):
    """``min 1/2 x^T M x`` s.t. ``E x + e = 0``, ``Wn x + b >= 0``; returns ``(x, p)``
    (``p >= 0``: the multipliers of the inequality rows)."""
    from ..lcp import solve as lcp_solve
    try:
        S = np.linalg.inv(M)
    except np.linalg.LinAlgError:
        S = np.linalg.pinv(M)
    if E.shape[0]:
        SE = S @ E.T
        Ai = np.linalg.pinv(E @ SE, rcond=1e-12)
        x0 = -SE @ (Ai @ e)
        P = S - SE @ Ai @ SE.T
    else:
        x0, P = np.zeros(M.shape[0]), S
    if not Wn.shape[0]:
        return x0, np.zeros(0)
    D = Wn @ P @ Wn.T
    D = 0.5 * (D + D.T)
    r = Wn @ x0 + b
    if np.all(r >= 0):
        return x0, np.zeros(len(r))
    sol = lcp_solve(D, r, method="lemke")
    if not sol.success:
        sol = lcp_solve(D, r, method="pgs", max_iter=100000)
    p = np.maximum(np.asarray(sol.z, float), 0.0)
    return x0 + P @ (Wn.T @ p), p


def _project_positions(system, q, t, pv, g0, tol=1e-12, max_iter=50):
    """Nearest admissible configuration (kinetic metric); returns ``(q, pushed)``,
    ``pushed`` the indices of the contacts the projection closed."""
    from .init import normalize_quaternions
    F = system.functions
    rows = _normal_rows(system)
    pushed = np.zeros(len(rows), dtype=bool)
    q = np.array(q, dtype=float)
    scale = max(1.0, float(np.max(np.abs(q))))
    for _ in range(max_iter):
        g = contact_gaps(system, q, t, pv)
        phi = np.array(F["phi"](q, t, pv), dtype=float).ravel()
        res = max(float(np.max(np.abs(phi))) if phi.size else 0.0,
                  float(np.max(np.abs(g[pushed]))) if pushed.any() else 0.0,
                  float(max(0.0, -np.min(g))))
        if res <= tol * scale:
            return q, np.flatnonzero(pushed)
        M = np.array(F["M"](q, pv), dtype=float)
        W = np.array(F["W"](q, t, pv), dtype=float)[rows]
        G = np.array(F["G"](q, t, pv), dtype=float).reshape(-1, system.nu)
        free = ~pushed
        E = np.vstack([G, W[pushed]])
        e = np.concatenate([phi, g[pushed]])
        du, p = _min_norm_lcp(M, E, e, W[free], g[free])
        pushed[np.flatnonzero(free)[p > 0]] = True
        N = np.array(F["N"](q, pv), dtype=float)
        q = normalize_quaternions(system, q + N @ du)
    g = contact_gaps(system, q, t, pv)
    raise ValueError(
        f"{system.name}: the initial state penetrates "
        + ", ".join(f"contact '{system.contact_names[i]}' (gap {g0[i]:.6g})"
                    for i in np.flatnonzero(g0 < -PROJECT_TOL))
        + f" and no admissible configuration was found near it ({max_iter} projection "
        f"steps leave gaps {np.round(g, 9).tolist()}); give q0 with every gap >= 0")


def _project_speeds(system, q, u, t, pv, pushed, tol=1e-14):
    """Minimum kinetic-metric change of ``u`` making the normal speeds of the contacts
    ``pushed`` non-approaching while keeping ``C u + c = 0`` (a plastic frictionless
    impact on them; kinetic energy never increases)."""
    F = system.functions
    u = np.array(u, dtype=float)
    rows = _normal_rows(system)[pushed]
    M = np.array(F["M"](q, pv), dtype=float)
    W = np.array(F["W"](q, t, pv), dtype=float)[rows]
    Wt = np.array(F["Wt"](q, t, pv), dtype=float).ravel()
    Wt = Wt[rows] if Wt.size else np.zeros(len(rows))
    if system.m + system.k:
        _, zc, C, _ = F["constraints"](q, u, t, pv)
        C = np.array(C, dtype=float).reshape(-1, system.nu)
        zc = np.array(zc, dtype=float).ravel()
    else:
        C, zc = np.zeros((0, system.nu)), np.zeros(0)
    vn = W @ u + Wt
    scale = max(1.0, float(np.max(np.abs(u))) if u.size else 1.0)
    if np.all(vn >= -tol * scale) and not np.any(np.abs(zc) > tol * scale):
        return u
    du, _ = _min_norm_lcp(M, C, zc, W, vn)
    return u + du
