r"""Ivanov's unified equations of a body on a unilateral support (``method="unified"``).

One set of equations for flight, sustained contact and impacts (seed 003, eqs. 2.7–2.9 and
3.9–3.11), generalized to any compiled model with exactly one unilateral contact (gap
``g(q)``, normal row ``w_n``, tangent rows ``W_t``) and no bilateral constraints:

.. math::

    g = |s|, \qquad \dot g = \mathcal W v \,\mathrm{sign}\, s, \qquad
    \mathcal W = 1 - k\,\mathrm{sign}(s v), \qquad k = \frac{1 - \kappa}{1 + \kappa},

    \dot s = \mathcal W v, \qquad \dot v = \mathcal W^{-1} F\, \mathrm{sign}\, s
    \quad (s = v = 0:\ \dot s = 0,\ \dot v = \max\{0, F\}),

    u = \tilde u + b\, \dot g, \qquad
    \dot{\tilde u} = M^{-1} h - b F - \dot b\, \dot g ,

with ``F = w_n^T M^{-1} h + \dot w_n^T u`` the free gap acceleration (``\ddot g = U N + F``,
2.5) and ``b`` the velocity change of an impact per unit jump of ``\dot g``:
``b = M^{-1}(w_n - \mu W_t^T \sigma) / (w_n^T M^{-1}(w_n - \mu W_t^T \sigma))`` with the
sliding direction ``\sigma = W_t \tilde u / |W_t \tilde u|`` (frictionless: ``\mu = 0``).
``\tilde u`` is the generalization of Ivanov's quasi-velocities ``\dot\pi`` (3.10): it is
continuous through impacts (``P = -H/(1 + \kappa^*)``), so the state ``(q, \tilde u, s, v)``
is continuous for the whole motion and the Newton law ``\dot g^+ = -\kappa \dot g^-``
holds automatically when ``s`` changes sign. In sustained contact the same equation gives
``\dot{\tilde u} = M^{-1}(h + (w_n - \mu W_t^T\sigma)\lambda_n)``, ``\lambda_n = -F/U``.
When sliding stops in contact the contact rolls (stick: ``\dot{\tilde u} = M^{-1}(h + W^T
\lambda)`` with ``W \dot u + \dot W u = 0``), as Ivanov's §3 "straight line" phase.

Integration (our choice, the right-hand side being discontinuous on ``s = 0`` and
``v = 0``): classical RK4 with a fixed step ``dt``; every sign change of ``s`` or ``v``,
the lift-off (``F`` through 0 in contact) and the end of sliding are located by a secant
(Illinois) search on the step length, so each smooth piece is integrated at fourth order.
While sliding in contact the sliding direction is frozen over each step (for a ball on a
plane it is constant: the parabola (3.8)), so the end of sliding is a clean sign change of
``v_t`` along it: located, recorded as a ``"stick"`` event, rolling from there.
When impacts accumulate (the next flight would last less than ``t_snap``) the state is
put on ``s = v = 0`` (the attractor of (2.8)–(2.9), Ivanov's Lyapunov function (2.17)),
recorded as an ``"accumulation"`` event. One CasADi call per RK4 step (Python loop).
Where ``U`` heads for 0 while sliding (Painlevé's jam, force ``-F/U`` unbounded) a step
spanning the singularity returns a meaningless state (a false lift-off, issue 14): the
step is limited to half the time ``U`` needs to reach 0 at its last rate, the jam declared
at ``|U| <= 1e-10 D_nn`` (``D_nn = w_n^T M^{-1} w_n``).

Ivanov's general impact law (3.9) replaces Coulomb's sliding impact with
``impact_map=`` (:mod:`._unified_law`). Where friction makes ``U <= 0`` (Painlevé, which
the paper leaves aside after (3.6)) the run records a ``"painleve"`` event and follows its
``painleve`` rule (:mod:`._unified_painleve`).
"""
import time as _time

import casadi as ca
import numpy as np

from .._threads import LOCK as _LOCK
from ..errors import SolverError
from ._laws import contact_laws
from ._unified_c import CFunction as _CFunction, fast as _fast
from ._unified_law import impact_map_law
from ._unified_painleve import UnifiedPainleve
from .init import initial_state
from .partial import keeps_partial, on_failure
from .result import Result, Event

__all__ = ["simulate_unified", "unified_functions"]


def _check(system):
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


def _unified_functions(system, law=None):
    _check(system)
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
    utd = ca.if_else(ca.logic_and(stick, ca.logic_and(contact, F <= 0)), utd_stick, utd_gen)
    sd = ca.if_else(contact, 0, Wk * v)
    stay = sig[3 + nt] > 0.5
    # (3.11) from gdot = W* v sign s: v' = (F sign s - W*' v) / W*, W*' = -k*' sign(s v)
    # (the paper prints + W*' v; k* constant: the term vanishes)
    Wk_dot = -ca.jtimes(k, q, qd) * sig[1] if ca.depends_on(k, q) else 0
    vd = ca.if_else(contact, ca.if_else(stay, 0, ca.fmax(0, F)),
                    (F * sgn_s - Wk_dot * v) / Wk)
    xd = ca.vertcat(qd, utd, sd, vd)
    rhs = ca.Function("unified_rhs", [x, t, p, mode, sig], [xd])
    hh = ca.SX.sym("h")
    k1 = rhs(x, t, p, mode, sig)
    k2 = rhs(x + hh / 2 * k1, t + hh / 2, p, mode, sig)
    k3 = rhs(x + hh / 2 * k2, t + hh / 2, p, mode, sig)
    k4 = rhs(x + hh * k3, t + hh, p, mode, sig)
    xn = x + hh / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    step = ca.Function("unified_rk4", [x, t, hh, p, mode, sig], [xn])
    Dnn = ca.dot(wn, ca.solve(M, wn))      # frictionless U: the scale of the jam test
    mon = ca.Function("unified_mon", [x, t, p, mode, sig],
                      [F, vt, u, gd, b, U, lam_stick, Wk, k, Dnn])
    Fn, vtn, _, _, _, Un = mon(xn, t + hh, p, mode, sig)[:6]
    stepmon = ca.Function("unified_stepmon", [x, t, hh, p, mode, sig],
                          [xn, Fn, vtn if nt else ca.SX.zeros(1), Un])
    # initial mapping: (q, u) -> ut for a given gdot
    uu = ca.SX.sym("u", nu)
    gdot0 = ca.SX.sym("gd0")
    # ut = u - b(q, ut) gd0: fixed point (b depends on ut only through the direction)
    init = ca.Function("unified_b", [q, ut, p, mode, sig], [b, ca.dot(wn, ut)])
    out = dict(rhs=rhs, step=step, mon=mon, init=init, stepmon=_fast(stepmon), nq=nq, nu=nu, nt=nt, mu=mu,
               k=k, kappa=kappa)
    del uu, gdot0
    return out


def _state0(system, fs, qa, ua, pv):
    """``(q, ut, s, v)`` from coordinates and speeds (s >= 0 from the gap)."""
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


def simulate_unified(system, t_final, q0=None, v0=None, params=None, inputs=None,
                     method="unified", dt=1e-3, t_snap=None, event_tol=1e-13,
                     max_events=100000, output_times=None, painleve=None, impact_map=None,
                     initialize=True, **ignored):
    r"""Integrate Ivanov's unified equations (module docstring) from ``t = 0``.

    Parameters
    ----------
    system : System
        Exactly one contact, no bilateral constraints, no inputs.
    t_final : float
    q0, v0, params : as in :meth:`System.simulate`
    initialize : bool
        A start inside the contact (gap < 0) is projected onto the admissible set
        (``True``, reported in ``res.init_report``) or refused (``False``); see
        :mod:`mechdae.simulate.init_contacts`.
    dt : float
        RK4 step (s).
    t_snap : float, optional
        Accumulation threshold: after an impact whose next flight would be shorter than
        ``t_snap`` the motion continues on the support. Default ``1e-4 * dt``.
    event_tol : float
        Time tolerance of event location (s).
    impact_map : dict, optional
        Ivanov's general impact law (3.9) ``gdot+ = -kappa* gdot-``, ``u+ = u- + gdot- H``:
        ``{"restitution": kappa*, "tangential": r}`` with ``kappa*`` an expression of the
        model's coordinates and parameters (values in (0, 1]) and ``r`` (``n_tangent``
        expressions of coordinates, speeds and parameters, evaluated at the continuous
        speeds ``ut``) the tangential impulse per unit normal impulse, so that
        ``H = -(1 + kappa*) b``, ``b = M^-1 (w_n + W_t^T r) / (w_n^T M^-1 (w_n + W_t^T r))``
        and (3.10) ``P = -H/(1 + kappa*) = b``. Default: the contact's restitution and
        Coulomb sliding ``r = -mu sigma``. A differentiable ``r`` (e.g. ``-mu tanh(v_t /
        v0)``) is what (3.10) asks for; in sustained contact ``r`` is the friction ratio.
    painleve : None, {"liftoff", "stay", "raise"} or dict
        The rule of the Painlevé cases (sliding with ``U <= 0``;
        :mod:`mechdae.simulate._unified_painleve`): each is a ``"painleve"`` event listing
        the alternatives; indeterminate (``F > 0``): lift-off (default, with a
        RuntimeWarning), ``"stay"`` (slide on with ``N = -F/U``) or ``"raise"``;
        inconsistent (``F < 0``, or an impact while sliding with ``U <= 0``):
        :class:`mechdae.PainleveError`. ``"impact"`` is a rule of "event" and "auto" only.

    Returns
    -------
    Result
        ``res.q``, ``res.v`` (the physical speeds ``u``), ``res["unified.s"]``,
        ``res["unified.v"]`` in ``res.x``; events ``"impact"``, ``"apex"``, ``"liftoff"``,
        ``"accumulation"``, ``"stick"``, ``"painleve"``.

    Raises
    ------
    ValueError
        For a model with a number of contacts other than one, a rheonomic contact,
        bilateral constraints or inputs; ``painleve="impact"``.
    PainleveError
        A Painlevé case the ``painleve`` rule does not resolve (``err.partial``: the run
        up to it).
    """
    wall0 = _time.perf_counter()
    _check(system)
    fs = unified_functions(system, impact_map_law(system, impact_map))
    pv = system.param_vector(params)
    qa, ua, _, init_report = initial_state(system, q0, v0, 0.0, pv, initialize)
    x, k, sig = _state0(system, fs, qa, ua, pv)
    if not k < 1.0:
        raise ValueError(f"{system.name}: method 'unified' needs a restitution kappa > 0 at "
                         f"contact '{system.contact_names[0]}' (seed 003: kappa in (0, 1]; "
                         "W = 1 - k sign(s v), k = (1 - kappa)/(1 + kappa), vanishes at "
                         "kappa = 0); use method='event' for a plastic contact")
    nq, nu = fs["nq"], fs["nu"]
    step, mon, stepmon = fs["step"], fs["mon"], fs["stepmon"]
    if isinstance(stepmon, _CFunction):
        stepmon = stepmon.fresh()              # arrays of this run only (threads)
    t_final = float(t_final)
    t_snap = 1e-4 * float(dt) if t_snap is None else float(t_snap)
    mode = 0.0
    Ef = system.functions["energy"]
    cname = system.contact_names[0]
    ts, xs, sigs = [0.0], [x.copy()], [list(sig)]
    events = []
    pain = UnifiedPainleve(system, painleve, params, events,
                           lambda q_, u_, t_: float(sum(Ef(q_, u_, t_, pv))))
    nt = fs["nt"]
    friction = bool(nt) and ((impact_map or {}).get("tangential") is not None
                             or not (isinstance(fs["mu"], (int, float)) and fs["mu"] == 0))
    mu_v = float(contact_laws(system, pv)[2][0]) if friction else 0.0
    # Coulomb's sliding impact: b jumps where sigma = W_t ut / |W_t ut| reverses
    coulomb = friction and (impact_map or {}).get("tangential") is None
    n_steps = n_calls = 0
    # a failure leaves with the Result of the steps so far (err.partial)
    on_failure(lambda err: _unified_result(system, fs, pv, ts, xs, sigs, events, output_times,
                                           n_steps, n_calls, dt, wall0, init_report))

    def monitor(xx, tt):
        F, vt, u, gd, b, U, lam, Wk, kk, Dnn = mon(xx, tt, pv, mode, sig)
        return (float(F), np.array(vt).ravel(), np.array(u).ravel(), float(gd),
                np.array(b).ravel(), float(U), np.array(lam).ravel(), float(kk), float(Dnn))

    def advance(xx, tt, hh):
        xn_, F_, vt_, U_ = stepmon(xx, tt, hh, pv, mode, sig)
        return np.asarray(xn_, float).ravel(), float(np.asarray(F_).ravel()[0]), \
            np.asarray(vt_, float).ravel(), float(np.asarray(U_).ravel()[0])

    def ev_values(xx, tt, ref, F, vt, U):
        """Event functions whose sign change ends a smooth piece."""
        s, v = xx[nq + nu], xx[nq + nu + 1]
        vals = [s, v]
        stay = sig[-1] > 0.5
        if sig[2] > 0.5:
            vals.append(-F if stay else F)               # liftoff ('stay': F down to 0)
        else:
            vals.append(np.nan)
        sliding = mode == 0 and fs["nt"] and ref is not None and ref[3] is not None
        if sliding:
            vals.append(float(np.dot(vt, ref[3])))       # end of sliding
        else:
            vals.append(np.nan)
        if sliding and friction and sig[2] > 0.5:
            vals.append(U if stay else -U)               # U through 0 (Painlevé)
        elif friction and mode == 0 and sig[2] < 0.5 and ref is not None and ref[4] != 0:
            vals.append(-U * ref[4])                     # U through 0 in flight: b singular
        else:
            vals.append(np.nan)
        if coulomb and mode == 0 and sig[2] < 0.5 and ref is not None and ref[5] is not None:
            vals.append(-float(np.dot(vt, ref[5])))      # sigma = W_t ut / |.| reverses
        else:
            vals.append(np.nan)
        return vals

    def pad(sg):
        return list(sg) + [0.0] * (fs["nt"] + 1)

    t = 0.0
    cur = None
    last = None            # (h, |U|) of the previous plain step of the same piece
    while t < t_final * (1 - 1e-15) and len(events) < max_events:
        h = min(dt, t_final - t)
        s0, v0_ = x[nq + nu], x[nq + nu + 1]
        if cur is None:
            mo = monitor(x, t)
            cur = (mo[0], mo[1], mo[5])
            last = None
        F0, vt0, U0 = cur
        in_contact = sig[2] > 0.5
        sliding_dir = vt0 if (in_contact and mode == 0 and fs["nt"]
                              and np.linalg.norm(vt0) > 1e-12) else None
        if sliding_dir is not None:
            # freeze the sliding direction over the step (exact for a ball on a plane,
            # where it is constant during sliding: the parabola (3.8))
            sig = sig[:3] + list(vt0 / np.linalg.norm(vt0)) + [sig[-1]]
            if friction:
                stay = sig[-1] > 0.5
                # the jam (U -> 0, force -F/U unbounded; module docstring): half steps
                # towards U = 0, declared at |U| <= 1e-10 D_nn as in method "event"
                U_jam = 0.0
                if last is not None and last[1] > abs(U0):
                    h_u = 0.5 * abs(U0) * last[0] / (last[1] - abs(U0))
                    if h_u < h:
                        U_jam = 1e-10 * monitor(x, t)[8]
                        h = h_u
                if stay and U0 >= -U_jam:
                    raise pain.jam(t, x[:nq], monitor(x, t)[2], F0, U0)
                if (U0 <= U_jam and not stay) or (stay and F0 <= 0):
                    # Painlevé: sliding on the support with U <= 0 (seed 003 after (3.6))
                    got = pain.on_support(t, x[:nq], monitor(x, t)[2], F0, U0, mu_v,
                                          sig[3:3 + nt], nt)
                    sig = sig[:-1] + [1.0] if got == "stay" else pad([1.0, 1.0, 0.0])
                    cur = None
                    continue
        elif in_contact and mode == 0 and fs["nt"] and fs["mu"] is not None:
            if not (isinstance(fs["mu"], (int, float)) and fs["mu"] == 0):
                mode = 1.0                       # no sliding left in contact: roll
                events.append(Event(t, cname, "stick", vt_before=vt0.copy(),
                                    vt_after=vt0.copy(), direction=None))
                cur = None
                continue
        ref = (s0, v0_, F0, sliding_dir, float(np.sign(U0)),
               vt0 if not in_contact and np.linalg.norm(vt0) > 1e-12 else None)
        g0 = ev_values(x, t, ref, F0, vt0, U0)
        xn, Fn, vtn, Un = advance(x, t, h)
        n_steps += 1
        if not np.all(np.isfinite(xn)):
            raise SolverError(f"{system.name}: unified integration reached a non-finite "
                              f"state in the step from t = {t:.12g} to {t + h:.12g}")
        g1 = ev_values(xn, t + h, ref, Fn, vtn, Un)

        def crossed(i, a, b_):
            if np.isnan(a) or np.isnan(b_):
                return False
            if i in (2, 4, 5):
                return a <= 0 < b_                       # F from <= 0 to > 0; U to <= 0
            if i == 3:
                return b_ <= 0 < a
            if i == 0:
                return sig[2] < 0.5 and (b_ * sig[0] < 0 or (b_ == 0 and a != 0))   # s: 0
            sv = sig[0] * sig[1]                                                    # v: 0
            return sig[2] < 0.5 and (b_ * sv < 0 or (b_ == 0 and a != 0))

        hits = [i for i in range(6) if crossed(i, g0[i], g1[i])]
        if not hits:
            x, t = xn, t + h
            last = (h, abs(U0))
            cur = (Fn, vtn, Un)
            ts.append(t)
            xs.append(x.copy())
            sigs.append(list(sig))
            continue
        def ev_at(hh, i):
            xa, Fa, vta, Ua = advance(x, t, hh)
            return ev_values(xa, t + hh, ref, Fa, vta, Ua)[i]

        # locate the earliest event by bisection + secant (Illinois) on the step length
        best_h, best_i = h, None
        for i in hits:
            lo, hi = 0.0, best_h
            flo, fhi = g0[i], ev_at(hi, i)
            if i in (2, 4, 5):                           # root of F or U (from <= 0)
                flo = min(flo, -1e-300)
            side = 0
            for _ in range(200):
                if hi - lo <= event_tol:
                    break
                mid = (lo * fhi - hi * flo) / (fhi - flo) if fhi != flo else 0.5 * (lo + hi)
                if not (lo < mid < hi):
                    mid = 0.5 * (lo + hi)
                fm = ev_at(mid, i)
                n_calls += 1
                if np.isnan(fm):
                    break
                if (fm > 0) == (flo > 0) and fm != 0:
                    lo, flo = mid, fm
                    if side == -1:
                        fhi *= 0.5
                    side = -1
                else:
                    hi, fhi = mid, fm
                    if side == 1:
                        flo *= 0.5
                    side = 1
            if hi < best_h or best_i is None:
                best_h, best_i = hi, i
        x_ev = advance(x, t, best_h)[0]
        t_ev = t + best_h
        i = best_i
        sidx, vidx = nq + nu, nq + nu + 1
        if i == 0 and best_h <= 10 * event_tol and events and events[-1].kind == "impact" \
                and events[-1].t == t:
            # the located surface state itself re-detected (s within round-off of 0)
            x_ev[sidx] = sig[0] * abs(x_ev[sidx])
        elif i == 0:
            # impact: s through 0
            v_ = x_ev[vidx]
            x_ev[sidx] = 0.0 if abs(x_ev[sidx]) < 1e-300 else x_ev[sidx]
            F, vt, u, gd, b, U, lam, k, _ = monitor(x_ev, t_ev)   # k*(q) at the impact
            gm, gp = -(1 + k) * abs(v_), (1 - k) * abs(v_)
            ut = x_ev[nq:nq + nu]
            q_ = x_ev[:nq]
            um, up = ut + b * gm, ut + b * gp
            if friction and mode == 0 and U <= 0:
                # the sliding impact law (3.9) needs P_n = (gp - gm) / U < 0: Painlevé
                raise pain.at_impact(t_ev, q_, um, gm, U)
            Tm, Vm = Ef(q_, um, t_ev, pv)
            Tp, Vp = Ef(q_, up, t_ev, pv)
            events.append(Event(t_ev, cname, "impact", impulse=np.array([(gp - gm) / U]),
                                energy_before=float(Tm + Vm), energy_after=float(Tp + Vp),
                                gdot_before=gm, gdot_after=gp))
            if F < 0 and 2 * gp / (-F) < t_snap:
                x_ev[sidx] = 0.0
                x_ev[vidx] = 0.0
                sig = pad([1.0, -1.0, 1.0])
                events.append(Event(t_ev, cname, "accumulation"))
            else:
                sig = pad([-sig[0], 1.0, 0.0])
        elif i == 1:
            events.append(Event(t_ev, cname, "apex"))
            sig = pad([sig[0], -sig[1], 0.0])
        elif i in (4, 5) and sig[2] < 0.5:
            what = ("U = w_n^T M^-1 (w_n - mu W_t^T sigma) passes through 0" if i == 4 else
                    "the sliding direction sigma of W_t ut reverses")
            raise SolverError(
                f"{system.name}: method 'unified': {what} in flight at t = {t_ev:.12g}: the "
                "impact direction b = M^-1 (w_n - mu W_t^T sigma) / U of the unified "
                "variables (3.10) is singular or jumps there (Ivanov's H of (3.9) must be "
                "differentiable); use method='event'")
        elif i == 4 or (i == 2 and sig[-1] > 0.5):
            pass          # U through 0, or F down to 0 on the 'stay' branch: checked next
        elif i == 2:
            events.append(Event(t_ev, cname, "liftoff"))
            sig = pad([1.0, 1.0, 0.0])  # leave the support: v' = F > 0 from here on
        elif i == 3:
            # end of sliding: v_t along the frozen direction through 0; rolling from here
            vt_ev = np.asarray(advance(x, t, best_h)[2], float)
            mode = 1.0
            sig = pad(sig[:3])
            events.append(Event(t_ev, cname, "stick", vt_before=vt0.copy(), vt_after=vt_ev,
                                direction=ref[3] / np.linalg.norm(ref[3])))
        x, t = x_ev, t_ev
        cur = None
        ts.append(t)
        xs.append(x.copy())
        sigs.append(list(sig))
        n_calls += 1
    return _unified_result(system, fs, pv, ts, xs, sigs, events, output_times, n_steps,
                           n_calls, dt, wall0, init_report)


def _unified_result(system, fs, pv, ts, xs, sigs, events, output_times, n_steps, n_calls, dt,
                    wall0, init_report=None):
    """The Result of the recorded states (at the end of a run, or up to a failure)."""
    nq, nu = fs["nq"], fs["nu"]
    mon, Ef = fs["mon"], system.functions["energy"]
    X = np.array(xs)
    T = np.array(ts)
    # physical speeds u along the run (mode is piecewise; recompute with the final-mode rule)
    Us = np.empty((T.size, nu))
    modes = np.zeros(T.size)
    stick_t = next((e.t for e in events if e.kind == "stick"), np.inf)
    modes[T >= stick_t] = 1.0
    monm = mon.map(T.size)
    outs = monm(X.T, T[None, :], pv[:, None], modes[None, :], np.array(sigs).T)
    Us[:] = np.array(outs[2]).T
    Q = X[:, :nq]
    if output_times is not None:
        ot = np.asarray(output_times, float).ravel()
        idx = np.unique(np.clip(np.searchsorted(T, ot), 0, T.size - 1))
        T, Q, Us, X = T[idx], Q[idx], Us[idx], X[idx]
    names = dict(q=system.q_names, u=system.u_names, v=["unified.s", "unified.v"], z=[])
    Tk, Vp = Ef.map(T.size)(Q.T, Us.T, T[None, :], pv[:, None])
    kin, pot = np.array(Tk).ravel(), np.array(Vp).ravel()
    stats = dict(method="unified", steps=n_steps, dt=float(dt), n_events=len(events),
                 event_calls=n_calls, wall_time=_time.perf_counter() - wall0)
    res = Result(T, Q, Us, names, x=X[:, nq + nu:], stats=stats, events=events,
                 energy=kin + pot, kinetic=kin, potential=pot, system=None, params=pv,
                 name=system.name, init_report=init_report)
    res.system = None
    res.ut = X[:, nq:nq + nu]
    return res


def _register():
    from . import register_method
    register_method("unified", keeps_partial(simulate_unified))


_register()
