"""CasADi Functions of a System's contacts for optimal control through contact.

Every Function here takes the System's own vectors (``x = (q, u, v)``, ``t``, ``p``, ``w``
in System order) so it can be used in any OCP framework (Opti, rockit, acados):

- :func:`phase_dynamics` -- the smooth motion with a given set of *closed* contacts, each
  with a friction mode: ``stick`` (the contact point does not slide), ``slide+`` /
  ``slide-`` (sliding with ``v_t > 0`` / ``< 0``: tangential force ``-s mu lambda_n``),
  ``free`` (frictionless).  The closed contacts are bilateral constraints at the
  acceleration level, stabilized like the event engine's phases:

      M u' = h + C^T Lambda + sum_i f_i Lambda_i,
      w_n,i^T u' + wdot_n,i^T u = -2 alpha v_n,i - beta^2 g_i,
      w_t,i^T u' + wdot_t,i^T u = -gamma v_t,i                        (stick),

  with ``f_i = w_n,i`` (free), ``(w_n,i, w_t,i)`` (stick), ``w_n,i - s mu_i w_t,i``
  (slide), and the model's own constraints ``C u' + c = H y + K z`` as in compile().
  Outputs ``xdot`` and the contact forces in the layout of ``W``'s rows
  (``system.contact_rows``: ``"B.n", "B.t0", ...``; zero for open contacts).
- :func:`impact_map` -- Newton's impact law for a given active set and modes, solved in
  closed form: with ``F`` the impulse directions and ``E`` the rows whose post-impact
  velocity is prescribed (``v_n+ = -e_n v_n-``; stick: ``v_t+ = -e_t v_t-``; the model's
  constraints keep their velocity zero), ``u+ = u- + M^-1 F pi`` with
  ``(E M^-1 F) pi = r - E u-``.  Outputs ``u_plus`` and the impulses (W-row layout).
- :func:`guard_function` -- gaps and contact velocities ``v_c = W u + w`` of every contact.

The restitution and friction coefficients are the model's (numbers or parameter
expressions, read through the parameter vector ``p``).
"""
import math

import casadi as ca
import numpy as np

from ..simulate._laws import laws_function, contact_laws
from ..symbolic.linalg import regularized_solve, REG, REFINE

__all__ = ["phase_dynamics", "impact_map", "guard_function", "contact_modes", "MODES"]

MODES = ("stick", "slide+", "slide-", "free")


def _rows(system):
    """contact name -> (index, normal row, tangent rows) in ``W``."""
    out, r = {}, 0
    for i, c in enumerate(system.contacts):
        nt = c["n_tangent"]
        out[c["name"]] = (i, r, list(range(r + 1, r + 1 + nt)))
        r += 1 + nt
    return out


def contact_modes(system, contacts, where, params=None):
    """Validated ``{contact: mode}`` from a list of names or a dict name -> mode.

    The default mode is ``"stick"`` for a contact with friction (``mu > 0``, including
    ``inf``) and ``"free"`` without; ``where`` names the phase in error messages.
    """
    if contacts is None:
        contacts = []
    if isinstance(contacts, str):
        contacts = [contacts]
    items = list(contacts.items()) if isinstance(contacts, dict) else [(c, None) for c in contacts]
    known = system.contact_names
    names = [n for n, _ in items]
    bad = [n for n in names if n not in known]
    if bad:
        raise ValueError(f"ocp: {where}: unknown contact(s) {', '.join(repr(b) for b in bad)} "
                         f"of model '{system.name}'; contacts: {', '.join(known) or 'none'}")
    if len(set(names)) != len(names):
        raise ValueError(f"ocp: {where}: a contact is listed twice: {names}")
    _, _, mu = contact_laws(system, system.param_vector(params))
    rows = _rows(system)
    out = {}
    for n, mode in items:
        i, _, trows = rows[n]
        m = float(mu[i])
        if mode is None:
            mode = "stick" if m > 0 and trows else "free"
        if mode not in MODES:
            raise ValueError(f"ocp: {where}: mode {mode!r} of contact '{n}' is not one of "
                             f"{', '.join(MODES)}")
        if mode == "stick" and m == 0 and trows:
            raise ValueError(f"ocp: {where}: contact '{n}' is frictionless (mu = 0) and cannot "
                             "stick; give it mode 'free'")
        if mode.startswith("slide"):
            if len(trows) != 1:
                raise ValueError(f"ocp: {where}: contact '{n}' has {len(trows)} tangent "
                                 "directions; 'slide+'/'slide-' need exactly one (plane contact)")
            if math.isinf(m):
                raise ValueError(f"ocp: {where}: contact '{n}' has mu = inf (no sliding); "
                                 "use mode 'stick'")
        out[n] = mode
    return out


def _kind(system):
    """SX (expandable: fast derivatives and evaluation in an NLP) for mechanical models;
    MX when general equations need the runtime solve of ``System.extras_mx``."""
    return ca.MX if (system.nv or system.nz) else ca.SX


def _sym(system):
    S = _kind(system)
    nx = system.nq + system.nu + system.nv
    return (S.sym("x", nx), S.sym("t"), S.sym("p", len(system.p_names)),
            S.sym("w", len(system.w_names)))


def _split(system, x):
    nq, nu = system.nq, system.nu
    return x[:nq], x[nq:nq + nu], x[nq + nu:]


def _contact_terms(system, modes, q, u, t, p, mu):
    """Impulse/force directions ``F`` (n_u x k), constrained rows ``E`` (k x n_u), their
    kind per unknown, and the map ``R`` (n_rows x k) from the unknowns to W-row forces."""
    F = system.functions
    W = F["W"](q, t, p)
    rows = _rows(system)
    nrows = W.shape[0]
    cols, Erows, kinds, R = [], [], [], []
    for name, mode in modes.items():
        i, rn, trows = rows[name]
        wn = W[rn, :].T
        rmap = ca.DM.zeros(nrows, 1)
        rmap[rn] = 1
        if mode.startswith("slide"):
            s = 1.0 if mode == "slide+" else -1.0
            wn = wn - s * mu[i] * W[trows[0], :].T
            rmap = type(W)(rmap)
            rmap[trows[0]] = -s * mu[i]
        cols.append(wn)
        Erows.append((rn, name, "n"))
        R.append(rmap)
        if mode == "stick":
            for j in trows:
                cols.append(W[j, :].T)
                Erows.append((j, name, "t"))
                rj = ca.DM.zeros(nrows, 1)
                rj[j] = 1
                R.append(rj)
    return W, cols, Erows, R


def _solve(S, rhs, symmetric):
    if isinstance(S, ca.SX):         # small dense systems: symbolic solve (expandable)
        if symmetric:                # the iterated Tikhonov of symbolic.linalg
            eps = REG * ca.trace(S) / S.shape[0] + 1e-300
            A = S + eps * ca.SX.eye(S.shape[0])
            X = ca.solve(A, rhs)
            for _ in range(REFINE):
                X = X + ca.solve(A, rhs - ca.mtimes(S, X))
            return X
        return ca.solve(S, rhs)
    if symmetric:
        return regularized_solve(S, rhs)
    return ca.solve(S, rhs, "qr")


def _msolve(M, B):
    return ca.solve(M, B) if isinstance(M, ca.SX) else ca.solve(M, B, "ldl")


def phase_dynamics(system, closed, stabilization=(10.0, 10.0), name=None):
    """``f(x, t, p, w) -> (xdot, forces)`` with the contacts ``closed`` held closed.

    Parameters
    ----------
    system : System
    closed : list of str or dict name -> mode
        Closed contacts (modes as in :func:`contact_modes`; default stick / free).
    stabilization : (alpha, beta)
        Baumgarte gains of the closed contacts (``gamma = alpha`` for the tangential rows).
    name : str, optional
        Name of the Function.

    Returns
    -------
    casadi.Function
        Inputs ``x, t, p, w``; outputs ``xdot`` and ``forces`` (W-row layout,
        ``system.contact_rows``; zero for open contacts).
    """
    modes = closed if isinstance(closed, dict) else contact_modes(system, closed, "phase")
    alpha, beta = (float(a) for a in stabilization)
    x, t, p, w = _sym(system)
    q, u, v = _split(system, x)
    Fn = system.functions
    if _kind(system) is ca.SX:
        vd, z = ca.SX(0, 1), ca.SX(0, 1)
    else:
        vd, z = system.extras_mx(q, u, v, t, p, w)
    M = Fn["M"](q, p)
    h = Fn["h"](q, u, v, z, t, p, w)
    mu = laws_function(system)(p)[2]
    W, cols, Erows, R = _contact_terms(system, modes, q, u, t, p, mu)
    r = system.m + system.k
    Crow, crow, srow, Fcol = [], [], [], []
    if r:
        y, zc, C, c = Fn["constraints"](q, u, t, p)
        Crow.append(C)
        crow.append(c)
        srow.append(ca.mtimes(ca.DM(system.H), y) + ca.mtimes(ca.DM(system.K), zc))
        Fcol.append(C.T)
    nrows = W.shape[0]
    forces = type(x).zeros(nrows, 1)
    if Erows:
        Wt = Fn["Wt"](q, t, p)
        Wd = Fn["Wdot_u"](q, u, t, p)
        g = Fn["gap"](q, t, p)
        rows = _rows(system)
        for (j, cname, kind) in Erows:
            vel = ca.mtimes(W[j, :], u) + Wt[j]
            Crow.append(W[j, :])
            crow.append(Wd[j])
            if kind == "n":
                srow.append(-2 * alpha * vel - beta ** 2 * g[rows[cname][0]])
            else:
                srow.append(-alpha * vel)
        Fcol.extend(cols)
    if Crow:
        Cr, cr, sr, Fc = ca.vertcat(*Crow), ca.vertcat(*crow), ca.vertcat(*srow), ca.horzcat(*Fcol)
        X = _msolve(M, ca.horzcat(h, Fc))
        Mih, MiF = X[:, 0], X[:, 1:]
        symmetric = not any(m.startswith("slide") for m in modes.values())
        lam = _solve(ca.mtimes(Cr, MiF), sr - cr - ca.mtimes(Cr, Mih), symmetric)
        ud = Mih + ca.mtimes(MiF, lam)
        if R:
            forces = ca.mtimes(ca.horzcat(*R), lam[r:])
    else:
        ud = _msolve(M, h)
    xdot = ca.vertcat(Fn["kinematics"](q, u, p), ud, vd)
    label = name or "phase_" + ("_".join(modes) or "free_flight")
    return ca.Function(label, [x, t, p, w], [xdot, forces], ["x", "t", "p", "w"],
                       ["xdot", "forces"])


def impact_map(system, active, plastic=(), name=None):
    """``(q, u, t, p) -> (u_plus, impulses)``: Newton's impact law with the active set given.

    Parameters
    ----------
    system : System
    active : list of str or dict name -> mode
        Contacts that take an impulse (modes as in :func:`contact_modes`).
    plastic : iterable of str
        Active contacts whose normal restitution is replaced by 0 (contacts that stay
        closed through the impact).

    Returns
    -------
    casadi.Function
        Outputs ``u_plus`` (n_u) and ``impulses`` (W-row layout, ``system.contact_rows``).
    """
    modes = active if isinstance(active, dict) else contact_modes(system, active, "impact")
    if not modes:
        raise ValueError(f"ocp: impact map of model '{system.name}': the active set is empty; "
                         "name the contacts that strike")
    S = _kind(system)
    q, u = S.sym("q", system.nq), S.sym("u", system.nu)
    t, p = S.sym("t"), S.sym("p", len(system.p_names))
    Fn = system.functions
    M = Fn["M"](q, p)
    e_n, e_t, mu = laws_function(system)(p)
    W, cols, Erows, R = _contact_terms(system, modes, q, u, t, p, mu)
    Wt = Fn["Wt"](q, t, p)
    rows = _rows(system)
    Crow, target, Fcol = [], [], []
    r = system.m + system.k
    if r:
        _, zc, C, _ = Fn["constraints"](q, u, t, p)
        Crow.append(C)
        target.append(ca.mtimes(C, u) - zc)       # zc(u+) = 0
        Fcol.append(C.T)
    for (j, cname, kind) in Erows:
        i = rows[cname][0]
        vel = ca.mtimes(W[j, :], u) + Wt[j]
        e = 0 if (kind == "n" and cname in plastic) else (e_n[i] if kind == "n" else e_t[i])
        Crow.append(W[j, :])
        target.append(-e * vel - Wt[j])
    Fcol.extend(cols)
    Cr, Fc, tg = ca.vertcat(*Crow), ca.horzcat(*Fcol), ca.vertcat(*target)
    MiF = _msolve(M, Fc)
    symmetric = not any(m.startswith("slide") for m in modes.values())
    pi = _solve(ca.mtimes(Cr, MiF), tg - ca.mtimes(Cr, u), symmetric)
    u_plus = u + ca.mtimes(MiF, pi)
    impulses = ca.mtimes(ca.horzcat(*R), pi[r:])
    label = name or "impact_" + "_".join(modes)
    return ca.Function(label, [q, u, t, p], [u_plus, impulses], ["q", "u", "t", "p"],
                       ["u_plus", "impulses"])


def guard_function(system):
    """``(q, u, t, p) -> (gap, v_c)``: gaps (one per contact) and contact velocities
    ``W u + w`` (W-row layout: normal then tangential per contact)."""
    q, u = ca.MX.sym("q", system.nq), ca.MX.sym("u", system.nu)
    t, p = ca.MX.sym("t"), ca.MX.sym("p", len(system.p_names))
    Fn = system.functions
    vc = ca.mtimes(Fn["W"](q, t, p), u) + Fn["Wt"](q, t, p)
    return ca.Function("guards", [q, u, t, p], [Fn["gap"](q, t, p), vc], ["q", "u", "t", "p"],
                       ["gap", "v_c"])


def row_index(system):
    """contact name -> (contact index, normal row, tangent rows) in ``W`` (public helper
    for reading the W-row layout of :func:`phase_dynamics` / :func:`impact_map` outputs)."""
    return _rows(system)


def numeric_mu(system, params=None):
    """Friction coefficients at the given parameters (validated: ``mu >= 0``)."""
    return np.asarray(contact_laws(system, system.param_vector(params))[2], float)
