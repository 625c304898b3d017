r"""The CasADi Functions of Ivanov's unified equations (``method="unified"``).

Builds, once per System (and impact law), the right-hand side of the unified form in the
variables ``x = (q, \tilde u, s, v)`` (module docstring of :mod:`.unified`)

.. math::

    \dot s = \mathcal W v, \qquad \dot v = \mathcal W^{-1} F\, \mathrm{sign}\, s, \qquad
    u = \tilde u + b\, \dot g, \qquad
    \dot{\tilde u} = M^{-1} h - b F - \dot b\, \dot g ,

its classical RK4 step, the monitor of the quantities the run decides on (``F``, ``v_t``,
``u``, ``\dot g``, ``b``, ``U``, ...) and the map from ``(q, u)`` to the initial state.
Three concerns, one function each: the impact direction ``b`` and its ``U``
(:func:`_impact_direction`), the right-hand side (:func:`_unified_rhs`), and the Functions
built from it (:func:`_unified_functions`).
"""
from types import SimpleNamespace

import casadi as ca
import numpy as np

from .._threads import LOCK as _LOCK
from ._unified_c import fast as _fast

__all__ = ["check", "unified_functions", "state0"]


def check(system):
    """Refuse a model outside the unified formulation.

    Parameters
    ----------
    system : System

    Raises
    ------
    ValueError
        A number of contacts other than one, bilateral constraints, extra variables or
        inputs, a rheonomic contact (and what :func:`mechdae.contact.closure.reject`
        refuses).
    """
    from ..contact.closure import reject
    reject(system, f"simulate (model '{system.name}', method 'unified')")
    nc = len(system.contact_names)
    if nc != 1:
        raise ValueError(f"{system.name}: method 'unified' needs exactly one unilateral "
                         f"contact (seed 003 formulation), the model has {nc}"
                         + (f" ({', '.join(system.contact_names)})" if nc else "")
                         + "; use method='timestepping' or 'event'")
    if system.m + system.k:
        raise ValueError(f"{system.name}: method 'unified' does not handle bilateral "
                         f"constraints ({', '.join(system.constraint_names)}); use method="
                         "'timestepping' or 'event'")
    if system.nv + system.nz or system.w_names:
        raise ValueError(f"{system.name}: method 'unified' does not handle extra variables "
                         "or inputs")
    if system.rheonomic:
        raise ValueError(f"{system.name}: method 'unified' does not handle rheonomic "
                         f"contacts (contact '{system.contact_names[0]}' moves with time: its "
                         "gap or tangent depends on m.time, or its tangent_velocity has a "
                         "term without speeds); use method='event' or 'timestepping'")


def unified_functions(system, law=None):
    """CasADi Functions of the unified form (built once per System).

    Returns
    -------
    dict with ``rhs(x, t, p, mode) -> xdot``, ``step(x, t, h, p, mode) -> x`` (RK4),
    ``mon(x, t, p, mode) -> (F, vt, u, gdot, b, U, lam_stick)``, ``init`` data.
    ``x = (q, ut, s, v)``; ``mode`` 0: frictionless or sliding, 1: rolling (stick).
    """
    cache = system.__dict__.setdefault("_unified", {})
    key = "f" if law is None else ("law",) + tuple(str(e) for e in law)
    if key in cache:
        return cache[key]
    with _LOCK:                   # built once, shared by the runs of every thread
        if key not in cache:
            cache[key] = _unified_functions(system, law)
    return cache[key]


def _impact_direction(d, c, nt, ut, sig, mode, law):
    r"""The impact direction ``b`` (velocity change per unit jump of ``\dot g``) and ``U``.

    Sliding (or frictionless): ``b = M^{-1}(w_n - \mu W_t^T \sigma) / U`` with
    ``U = w_n^T M^{-1}(w_n - \mu W_t^T \sigma)`` (or ``w_n + W_t^T r`` under Ivanov's
    general law (3.9)); rolling (``mode`` 1): the impulse that stops the tangential
    velocity too, ``b = M^{-1} W^T D^{-1} e_1 / (D^{-1})_{11}``, ``D = W M^{-1} W^T``.

    Parameters
    ----------
    d : the System's symbolic data (``q, u, M, W, ...``)
    c : dict, the contact
    nt : int, tangent directions
    ut, sig, mode : SX symbols of the continuous speeds, the frozen signs and the mode
    law : tuple or None, ``(kappa*, r)`` of ``impact_map=``

    Returns
    -------
    SimpleNamespace with ``kappa, k, mu, Wfull, wn, M, vt, b, U`` and (``nt > 0``)
    ``MiWT, Dfull`` of the rolling contact.
    """
    kappa = c["restitution"] if law is None else law[0]
    mu = c["friction"] if nt else 0.0
    kappa = ca.SX(kappa) if not isinstance(kappa, ca.SX) else kappa
    k = (1 - kappa) / (1 + kappa)          # k*(q) of (3.10): W* = 1 - k* sign(s v)
    r_law = None if law is None else law[1]
    Wfull = d.W
    wn = Wfull[0, :].T
    Wt = Wfull[1:1 + nt, :]
    M = d.M
    # sliding direction from the continuous velocity ut
    if nt and r_law is not None:
        # the general law (3.9): tangential impulse r(q, ut) per unit normal impulse
        vt = ca.mtimes(Wt, ut)
        dirn_slide = wn + ca.mtimes(Wt.T, ca.substitute(r_law, d.u, ut))
    elif nt and (not isinstance(mu, (int, float)) or mu > 0):
        vt = ca.mtimes(Wt, ut)
        nvt = ca.norm_2(vt)
        sdir = ca.if_else(nvt > 1e-14, vt / (nvt + 1e-300), ca.DM.zeros(nt))
        # sliding in contact: the direction frozen over the step (so the end of sliding,
        # v_t through 0 along it, is a clean sign change the secant can locate)
        fr = sig[3:3 + nt]
        frozen = ca.logic_and(sig[2] > 0.5, ca.norm_2(fr) > 0.5)
        sdir = ca.if_else(frozen, fr, sdir)
        dirn_slide = wn - mu * ca.mtimes(Wt.T, sdir)
    else:
        vt = ca.mtimes(Wt, ut) if nt else ca.SX(0, 1)
        dirn_slide = wn
    Mi_slide = ca.solve(M, dirn_slide)
    U_slide = ca.dot(wn, Mi_slide)
    b_slide = Mi_slide / U_slide
    MiWT = Dfull = None
    if nt:
        MiWT = ca.solve(M, Wfull.T)
        Dfull = ca.mtimes(Wfull, MiWT)
        e1 = ca.DM.zeros(1 + nt)
        e1[0] = 1
        y = ca.solve(Dfull, e1)
        b_stick = ca.mtimes(MiWT, y)
        U_stick = 1.0 / y[0]
    else:
        b_stick, U_stick = b_slide, U_slide
    stick = mode > 0.5
    b = ca.if_else(stick, b_stick, b_slide)
    U = ca.if_else(stick, U_stick, U_slide)
    return SimpleNamespace(kappa=kappa, k=k, mu=mu, Wfull=Wfull, wn=wn, M=M, vt=vt, b=b, U=U,
                           MiWT=MiWT, Dfull=Dfull, stick=stick)


def _unified_rhs(d, nt, nu, ut, v, sig, g):
    r"""The right-hand side ``(q', \tilde u', s', v')`` of the unified form.

    Flight or sliding contact: ``(I + \dot g\, \partial b/\partial \tilde u) \tilde u' =
    M^{-1} h - b F - (\partial b/\partial q\, q') \dot g``; rolling in contact with ``F <= 0``:
    ``\tilde u' = M^{-1}(h + W^T \lambda)``, ``W \dot u + \dot W u = 0``. ``s' = \mathcal W
    v`` in flight, 0 in contact; ``v'`` as (2.9), (3.11).

    Parameters
    ----------
    d, nt, nu : the System's symbolic data, tangent directions, speeds
    ut, v, sig : SX symbols (continuous speeds, ``v``, frozen signs)
    g : the namespace of :func:`_impact_direction`

    Returns
    -------
    SimpleNamespace with ``xd`` (the right-hand side), ``F``, ``u``, ``gd``, ``Wk`` and
    ``lam_stick``.
    """
    q = d.q
    M, wn, Wfull, MiWT, Dfull, b, k = g.M, g.wn, g.Wfull, g.MiWT, g.Dfull, g.b, g.k
    sgn_s = sig[0]
    Wk = 1 - k * sig[1]
    gd = Wk * v * sgn_s
    u = ut + b * gd
    qd = ca.substitute(d.qd, d.u, u)
    h = ca.substitute(d.h, ca.vertcat(d.u, d.v, d.z),
                      ca.vertcat(u, ca.SX(0, 1), ca.SX(0, 1)))
    Mih = ca.solve(M, h)
    Wdot_u = ca.substitute(d.Wdot_u, d.u, u)
    F = ca.dot(wn, Mih) + Wdot_u[0]
    contact = sig[2] > 0.5
    # flight / sliding contact: (I + gd db/dut) ut' = M^-1 h - b F - (db/dq qd) gd
    A = Mih - b * F - ca.jtimes(b, q, qd) * gd
    Jb = ca.jacobian(b, ut)
    utd_gen = ca.solve(ca.SX.eye(nu) + gd * Jb, A)
    if nt:
        lam_stick = -ca.solve(Dfull, ca.mtimes(Wfull, Mih) + Wdot_u)
        utd_stick = Mih + ca.mtimes(MiWT, lam_stick)
    else:
        lam_stick = ca.SX.zeros(1)
        utd_stick = utd_gen
    utd = ca.if_else(ca.logic_and(g.stick, ca.logic_and(contact, F <= 0)), utd_stick, utd_gen)
    sd = ca.if_else(contact, 0, Wk * v)
    stay = sig[3 + nt] > 0.5
    # (3.11) from gdot = W* v sign s: v' = (F sign s - W*' v) / W*, W*' = -k*' sign(s v)
    # (the paper prints + W*' v; k* constant: the term vanishes)
    Wk_dot = -ca.jtimes(k, q, qd) * sig[1] if ca.depends_on(k, q) else 0
    vd = ca.if_else(contact, ca.if_else(stay, 0, ca.fmax(0, F)),
                    (F * sgn_s - Wk_dot * v) / Wk)
    xd = ca.vertcat(qd, utd, sd, vd)
    return SimpleNamespace(xd=xd, F=F, u=u, gd=gd, Wk=Wk, lam_stick=lam_stick)


def _unified_functions(system, law=None):
    """Build the Functions of :func:`unified_functions` (uncached): symbols, the impact
    direction, the right-hand side, then its RK4 step, monitors and initial mapping."""
    check(system)
    d = system._d
    c = system.contacts[0]
    nq, nu, nt = system.nq, system.nu, c["n_tangent"]
    q, t, p = d.q, d.t, d.p
    ut = ca.SX.sym("ut", nu)
    s = ca.SX.sym("s")
    v = ca.SX.sym("v")
    mode = ca.SX.sym("mode")
    # frozen per piece: sign(s), sign(s v), contact flag; then (nt > 0) the sliding
    # direction of a sliding contact, frozen at the start of each step (zero: computed);
    # last, the Painlevé 'stay' flag (1: in contact with U < 0, F > 0, sliding on with
    # lam_n = -F/U instead of the lift-off of (2.9))
    sig = ca.SX.sym("sig", 4 + nt)
    x = ca.vertcat(q, ut, s, v)
    g = _impact_direction(d, c, nt, ut, sig, mode, law)
    r = _unified_rhs(d, nt, nu, ut, v, sig, g)
    rhs = ca.Function("unified_rhs", [x, t, p, mode, sig], [r.xd])
    hh = ca.SX.sym("h")
    k1 = rhs(x, t, p, mode, sig)
    k2 = rhs(x + hh / 2 * k1, t + hh / 2, p, mode, sig)
    k3 = rhs(x + hh / 2 * k2, t + hh / 2, p, mode, sig)
    k4 = rhs(x + hh * k3, t + hh, p, mode, sig)
    xn = x + hh / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    step = ca.Function("unified_rk4", [x, t, hh, p, mode, sig], [xn])
    Dnn = ca.dot(g.wn, ca.solve(g.M, g.wn))      # frictionless U: the scale of the jam test
    mon = ca.Function("unified_mon", [x, t, p, mode, sig],
                      [r.F, g.vt, r.u, r.gd, g.b, g.U, r.lam_stick, r.Wk, g.k, Dnn])
    Fn, vtn, _, _, _, Un = mon(xn, t + hh, p, mode, sig)[:6]
    stepmon = ca.Function("unified_stepmon", [x, t, hh, p, mode, sig],
                          [xn, Fn, vtn if nt else ca.SX.zeros(1), Un])
    # initial mapping, ut = u - b(q, ut) gd0: a fixed point (b depends on ut only through
    # the direction), iterated by state0
    init = ca.Function("unified_b", [q, ut, p, mode, sig], [g.b, ca.dot(g.wn, ut)])
    return dict(rhs=rhs, step=step, mon=mon, init=init, stepmon=_fast(stepmon), nq=nq, nu=nu,
                nt=nt, mu=g.mu, k=g.k, kappa=g.kappa)


def state0(system, fs, qa, ua, pv):
    """The unified state ``(q, ut, s, v)`` from coordinates and speeds (s >= 0 from the gap).

    Parameters
    ----------
    system : System
    fs : dict of :func:`unified_functions`
    qa, ua : ndarray (n_q,), (n_u,), the initial coordinates and speeds
    pv : ndarray, the parameter vector

    Returns
    -------
    x : ndarray (n_q + n_u + 2,)
    k : float, ``(1 - kappa)/(1 + kappa)`` at the start
    sig : list, the frozen signs of the first piece

    Raises
    ------
    ValueError
        A start inside the contact, or on it with an approaching normal velocity.
    """
    g = float(system.functions["gap"](qa, 0.0, pv))
    W = np.array(system.functions["W"](qa, 0.0, pv))
    gd = float(W[0] @ ua)
    kap = float(ca.evalf(ca.substitute(ca.substitute(ca.SX(fs["kappa"]), system._d.p,
                                                      ca.DM(pv)), system._d.q, ca.DM(qa)))) \
        if isinstance(fs["kappa"], ca.SX) else float(fs["kappa"])
    k = (1 - kap) / (1 + kap)
    if g < -1e-12:
        raise ValueError(f"{system.name}: initial gap {g:.3g} < 0")
    g = max(g, 0.0)
    if g > 0:
        sw = 1.0 if gd > 0 else -1.0
        Wk = 1 - k * sw
        s, v = g, gd / Wk
        sig = [1.0, sw, 0.0]
    elif gd > 0:
        s, v = 0.0, gd / (1 - k)
        sig = [1.0, 1.0, 0.0]
    else:
        if gd < -1e-12:
            raise ValueError(f"{system.name}: initial state on the support with approaching "
                             f"normal velocity {gd:.3g}; start with gap > 0 or gdot >= 0")
        s, v, gd = 0.0, 0.0, 0.0
        sig = [1.0, -1.0, 1.0]
    ut = np.array(ua, float)
    for _ in range(50):                       # ut = u - b(q, ut) gd (b depends on ut's direction)
        b, _w = fs["init"](qa, ut, pv, 0.0, [1.0, 1.0, 0.0] + [0.0] * (fs["nt"] + 1))
        new = ua - np.array(b).ravel() * gd
        if np.max(np.abs(new - ut)) < 1e-15 * (1 + np.max(np.abs(ut))):
            ut = new
            break
        ut = new
    return np.concatenate([qa, ut, [s, v]]), k, sig + [0.0] * (fs["nt"] + 1)
