r"""Event-driven simulation through impacts, sustained contact, stick-slip and Zeno points.

Between events the motion is smooth: the contacts of the current *mode* (one letter per
contact: ``o`` open, ``n`` closed without friction, ``k`` sticking, ``+``/``-`` sliding with
``v_t > 0`` / ``v_t < 0``, ``s`` sliding on a contact with two tangent directions) enter as
bilateral constraints,

.. math::

    M u' = h + G^T \lambda + \sum_{i\ \mathrm{closed}} f_i^T \Lambda_i, \qquad
    w_{n,i}^T u' + \dot w_{n,i}^T u = -2\alpha\, w_{n,i}^T u - \beta^2 g_i ,

with ``f_i = w_n`` (frictionless), ``(w_n, w_t)`` (sticking, plus
``w_t^T u' + \dot w_t^T u = -\gamma w_t^T u``) or ``w_n - \mu\, s\, w_t`` (sliding with
``s = sign v_t``), or ``w_n - \mu\, e^T W_t`` (spatial sliding, ``e = v_t / |v_t|`` the
2-vector direction of the relative tangential velocity, varying along the phase; its sign
is continued across ``v_t = 0`` along the phase's reference direction ``d``, a runtime
parameter, so that the motion stays smooth past the stop and ``d . v_t`` crosses zero
cleanly). One CasADi cvodes integrator per mode (cached on the System) integrates
a *window* and returns the states at ``K`` sub-samples together with the *event functions*
of the mode, all in one call:

- open contact: the gap ``g_i``;
- closed contact: the normal force ``lambda_n,i``;
- sliding contact: ``s v_t,i`` (plane), ``d . v_t,i - |v_t,i| / 2`` (space: fires at the
  stop, or when the direction has turned by 60 degrees, after which ``d`` is renewed);
- sticking contact (finite ``mu``): ``mu lambda_n,i - |lambda_t,i|``.

Each is positive while the mode holds. mechdae locates the first sign change itself —
CasADi's zero-crossing support is not used: the root of the cubic Hermite interpolant of
the event function (values and rates ``e' = de/dx x' + de/dt`` at the sub-samples) seeds
Newton steps on re-integrated states (one integration returns ``e`` and ``e'``; usually one
or two per event), with Illinois regula falsi as the fallback; time tolerance
``event_tol`` relative. At a gap event the impact kernel (C) gives the
post-impact speeds; the new mode comes from the acceleration-level contact problem
(:func:`mechdae.contact.kernels.contact_forces`), which also detects Painlevé
inconsistencies. A geometric sequence of impacts at one contact (Zeno) is extrapolated to
its accumulation time ``t_inf = t_k + dt_k r / (1 - r)``, after which the contact is closed.
Impacts that repeat with pre-impact normal speeds below the velocity resolution
(``rest_velocity``, by default the speed of a drop through ``2 gap_tol``) snap the set of
contacts involved to rest: a plastic impact on all of them, gaps and normal speeds
projected to zero, sustained contact from there (a rocking block settling on both corners).
"""
import math
import time as _time
import warnings

import casadi as ca
import numpy as np

from .._threads import LOCK as _LOCK
from ..errors import PainleveError, SolverError
from . import register_method
from .inputs import resolve_inputs, inputs_key, input_mx, constant_vector
from ._laws import laws_function, contact_laws
from .init import initial_state
from .result import Event
from .partial import keeps_partial, on_failure, seeded
from .smooth import stabilization_matrices, postprocess

__all__ = ["simulate_event", "EventEngine", "ModeSet"]

OPEN, CLOSED, STICK, SLIDE_POS, SLIDE_NEG = "o", "n", "k", "+", "-"
SLIDE_2D = "s"          # sliding on a contact with two tangent directions
SLIDING = (SLIDE_POS, SLIDE_NEG, SLIDE_2D)
# spatial sliding: the friction direction is (v_t + EPS_DIR d) / |v_t + EPS_DIR d| with d the
# phase's reference direction (a runtime parameter); the shift only matters when a slide
# starts from rest (v_t ~ 0: it starts along d, the direction the contact problem found)
EPS_DIR = 1e-12


# ------------------------------------------------------------------------------------ #
# symbolic pieces (built once per System and input signature, cached on the System)
# ------------------------------------------------------------------------------------ #

def _layout(system):
    npar = len(system.p_names)
    r, m = system.m + system.k, system.m
    return npar, r, m, (2 + npar + r * m + r * r + len(system.w_names)
                        + 2 * len(system.contacts))


def _split_P(system, P):
    """``(p, H, K, w, d)``; ``d`` (2 per contact): reference sliding directions of the
    spatial sliding contacts (mode ``s``)."""
    npar, r, m, _ = _layout(system)
    p = P[2:2 + npar]
    H = ca.reshape(P[2 + npar:2 + npar + r * m], r, m)
    K = ca.reshape(P[2 + npar + r * m:2 + npar + r * m + r * r], r, r)
    o = 2 + npar + r * m + r * r
    nw = len(system.w_names)
    wc = P[o:o + nw]
    dref = P[o + nw:o + nw + 2 * len(system.contacts)]
    return p, H, K, wc, dref


def _slide_direction(vt, d):
    """Friction direction of a spatial sliding contact: ``w / |w|`` with
    ``w = v_t + EPS_DIR d``, its sign continued across ``v_t = 0`` along ``d`` (``sign(d . w)``;
    ``d = 0``: plain ``w / |w|``). Past the zero of ``|v_t|`` the friction keeps its
    direction, so ``d . v_t`` crosses zero cleanly (like ``s v_t`` in the plane)."""
    w = vt + EPS_DIR * d
    nw = ca.sqrt(ca.dot(w, w) + 1e-300)
    s = ca.if_else(ca.dot(d, d) > 0, ca.sign(ca.dot(d, w)), 1.0)
    return s * w / nw, w


def _offsets(system):
    offs, o = [], 0
    for c in system.contacts:
        offs.append(o)
        o += 1 + c["n_tangent"]
    return offs


class _Buffered:
    """A CasADi Function evaluated on preallocated numpy buffers (``Function.buffer()``).

    Skips the DM conversions of ``f(*args)`` (about a fifth of a cvodes window call on a
    small model). Inputs (dense) are copied into the bound arrays; ``__call__`` returns
    fresh dense arrays of each output's shape (sparse outputs scattered).
    """

    def __init__(self, f):
        self.f = f
        self.buf, self.eval = f.buffer()
        for i in range(f.n_in()):
            if not f.sparsity_in(i).is_dense():
                raise ValueError(f"{f.name()}: input {i} is sparse")
        self.args = [np.zeros(f.nnz_in(i)) for i in range(f.n_in())]
        self.res = [np.zeros(max(f.nnz_out(i), 1)) for i in range(f.n_out())]
        self.out = []
        for i in range(f.n_out()):
            sp = f.sparsity_out(i)
            shape = (sp.size1(), sp.size2())
            idx = None if sp.is_dense() else (np.array(sp.row(), int),
                                              np.array(sp.get_col(), int))
            self.out.append((shape, idx, sp.nnz()))
        for i, a in enumerate(self.args):
            if a.size:
                self.buf.set_arg(i, memoryview(a))
        for i, r in enumerate(self.res):
            if f.nnz_out(i):
                self.buf.set_res(i, memoryview(r))

    def __call__(self, *args):
        for a, v in zip(self.args, args):
            a[:] = np.ravel(v, order="F")
        self.eval()
        outs = []
        for r, (shape, idx, nnz) in zip(self.res, self.out):
            if idx is None:
                outs.append(r[:nnz].reshape(shape, order="F").copy())
            else:
                d = np.zeros(shape)
                d[idx] = r[:nnz]
                outs.append(d)
        return outs


def _mode_core(system, specs, mode, gains):
    """``core(x, t, P) -> (xdot, lam_c, events)`` for one mode, and the event descriptors."""
    F = system.functions
    nq, nu, nv = system.nq, system.nu, system.nv
    nx = nq + nu + nv
    _, _, _, nP = _layout(system)
    x = ca.MX.sym("x", nx)
    t = ca.MX.sym("t")
    P = ca.MX.sym("P", nP)
    p, H, K, wc, dref = _split_P(system, P)
    w = input_mx(system, specs, t, wc)
    q, u, v = x[:nq], x[nq:nq + nu], x[nq + nu:]
    vd, z = system.extras_mx(q, u, v, t, p, w)
    M = F["M"](q, p)
    h = F["h"](q, u, v, z, t, p, w)
    A_rows, F_rows, rhs = [], [], []
    if system.m + system.k:
        y, zc, C, c = F["constraints"](q, u, t, p)
        A_rows.append(C)
        F_rows.append(C)
        rhs.append(ca.mtimes(H, y) + ca.mtimes(K, zc) - c)
    ncr = sum(1 + c["n_tangent"] for c in system.contacts)
    alpha, beta, gamma = gains
    if ncr:
        W = F["W"](q, t, p)
        Wd = F["Wdot_u"](q, u, t, p)
        # contact velocities v_c = W u + Wt (Wt: moving surfaces; skipped when scleronomic)
        Vc = ca.mtimes(W, u) + F["Wt"](q, t, p) if system.rheonomic else ca.mtimes(W, u)
        g = F["gap"](q, t, p)
        _, _, mu = laws_function(system)(p)
        mu_eff = ca.fmin(mu, 1e300)
    offs = _offsets(system)
    # position of each contact's unknowns in Lambda
    base = system.m + system.k
    n_idx, t_idx, dirs = {}, {}, {}
    k = base
    for i, (cinfo, mo) in enumerate(zip(system.contacts, mode)):
        if mo == OPEN:
            continue
        o, nt = offs[i], cinfo["n_tangent"]
        wn = W[o, :]
        A_rows.append(wn)
        rhs.append(-2 * alpha * Vc[o] - beta ** 2 * g[i] - Wd[o])
        n_idx[i] = k
        k += 1
        if mo in (CLOSED, STICK):
            F_rows.append(wn)
        if mo == STICK:
            t_idx[i] = []
            for j in range(nt):
                wt = W[o + 1 + j, :]
                A_rows.append(wt)
                F_rows.append(wt)
                rhs.append(-gamma * Vc[o + 1 + j] - Wd[o + 1 + j])
                t_idx[i].append(k)
                k += 1
        if mo in (SLIDE_POS, SLIDE_NEG):
            s = 1.0 if mo == SLIDE_POS else -1.0
            F_rows.append(wn - mu_eff[i] * s * W[o + 1, :])
        if mo == SLIDE_2D:
            dirs[i], _ = _slide_direction(Vc[o + 1:o + 3], dref[2 * i:2 * i + 2])
            F_rows.append(wn - mu_eff[i] * ca.mtimes(dirs[i].T, W[o + 1:o + 3, :]))
    if A_rows:
        A = ca.vertcat(*A_rows)
        Fm = ca.vertcat(*F_rows)
        X = ca.solve(M, ca.horzcat(h, Fm.T), "ldl")
        Mih, MiFt = X[:, 0], X[:, 1:]
        S = ca.mtimes(A, MiFt)
        nA = A.size1()
        eps = 1e-13 * ca.sum1(ca.fabs(ca.diag(S))) / nA + 1e-300
        # no sliding contact: S = A M^-1 A^T is symmetric PSD, singular for redundant
        # contact sets (a block on two sticking corners); LDL of S + eps I gives the
        # regularized solution there, where CasADi's QR stops on the tiny pivot
        sym = all(mo in (OPEN, CLOSED, STICK) for mo in mode)
        Lam = ca.solve(S + eps * ca.MX.eye(nA), ca.vertcat(*rhs) - ca.mtimes(A, Mih),
                       "ldl" if sym else "qr")
        ud = Mih + ca.mtimes(MiFt, Lam)
    else:
        Lam = ca.MX(0, 1)
        ud = ca.solve(M, h, "ldl")
    qd = F["kinematics"](q, u, p)
    # contact forces (normal, tangential...) per contact, zeros when open
    lam_parts, ev, desc = [], [], []
    for i, (cinfo, mo) in enumerate(zip(system.contacts, mode)):
        o, nt = offs[i], cinfo["n_tangent"]
        if mo == OPEN:
            lam_parts.append(ca.MX.zeros(1 + nt))
            ev.append(g[i])
            desc.append((i, "gap"))
            continue
        ln = Lam[n_idx[i]]
        if mo == STICK:
            lt = ca.vertcat(*[Lam[j] for j in t_idx[i]]) if nt else ca.MX(0, 1)
        elif mo in (SLIDE_POS, SLIDE_NEG):
            s = 1.0 if mo == SLIDE_POS else -1.0
            lt = -mu_eff[i] * s * ln
        elif mo == SLIDE_2D:
            lt = -mu_eff[i] * ln * dirs[i]
        else:
            lt = ca.MX.zeros(nt)
        lam_parts.append(ca.vertcat(ln, lt))
        ev.append(ln)
        desc.append((i, "lift"))
        if mo in (SLIDE_POS, SLIDE_NEG):
            s = 1.0 if mo == SLIDE_POS else -1.0
            ev.append(s * Vc[o + 1])
            desc.append((i, "vt"))
        if mo == SLIDE_2D:
            # d . (v_t + EPS_DIR d): |v_t| along d, continued through zero (see
            # _slide_direction); also fires when the direction turns by 90 degrees
            d = dref[2 * i:2 * i + 2]
            wv = Vc[o + 1:o + 3] + EPS_DIR * d
            # cos(angle(d, w)) |w| - |w| / 2: zero at the stop, and when the direction has
            # turned by 60 degrees (before the sign continuation's switch at 90 degrees)
            ev.append(ca.dot(d, wv) - 0.5 * ca.sqrt(ca.dot(wv, wv) + 1e-300))
            desc.append((i, "vt"))
        if mo == STICK and nt:
            ev.append(mu_eff[i] * ln - ca.norm_2(lt))
            desc.append((i, "cone"))
    if not ev:
        ev = [ca.MX(1.0)]
        desc = [(-1, "none")]
    lamc = ca.vertcat(*lam_parts) if lam_parts else ca.MX(0, 1)
    xdot, evv = ca.vertcat(qd, ud, vd), ca.vertcat(*ev)
    # d ev / dt along the motion (seeds the event location's Newton steps)
    evd = ca.jtimes(evv, ca.vertcat(x, t), ca.vertcat(xdot, 1.0))
    core = ca.Function("core", [x, t, P], [xdot, lamc, evv, evd],
                       ["x", "t", "P"], ["xdot", "lam", "ev", "evdot"])
    return core, desc


class ModeSet:
    """Integrator, event and force Functions of one mode (cached on the System).

    Attributes
    ----------
    mode : str
        One letter per contact (``o``, ``n``, ``k``, ``+``, ``-``).
    window : casadi.Function
        ``(x0, P) -> (X, E, Xdot, Edot)``: states, event values and their time derivatives
        at ``K`` equally spaced sub-samples of the scaled window ``[t0, t0 + T]``
        (``P = (t0, T, p, vec H, vec K, w)``).
    shoot : casadi.Function
        ``(x0, P) -> (xf, ef, efdot)``: state, event values and rates at ``t0 + T``.
    core : casadi.Function
        ``(x, t, P) -> (xdot, lam_c, ev, evdot)``.
    desc : list of (contact index, kind)
        What each event function watches (``gap``, ``lift``, ``vt``, ``cone``).
    """

    def __init__(self, system, specs, mode, gains, K, rtol, atol, opts):
        self.mode = mode
        core, desc = _mode_core(system, specs, mode, gains)
        self.core, self.desc = core, desc
        nx = system.nq + system.nu + system.nv
        _, _, _, nP = _layout(system)
        x = ca.MX.sym("x", nx)
        tau = ca.MX.sym("tau")
        P = ca.MX.sym("P", nP)
        xdot = core(x, P[0] + tau * P[1], P)[0]
        dae = dict(x=x, t=tau, p=P, ode=P[1] * xdot)
        o = dict(abstol=atol, reltol=rtol, max_num_steps=100000)
        if all(mo == OPEN for mo in mode) and not system.m + system.k:
            # free flight of an unconstrained system: non-stiff, Adams is cheaper than BDF
            # and more accurate at the same tolerances (ball: 2.8 vs 4.4 ms per 10 windows,
            # free-fall error 1e-10 vs 5e-10)
            o["linear_multistep_method"] = "adams"
        o.update(opts)
        grid = [j / K for j in range(1, K + 1)]
        tag = "m" + mode.replace("+", "p").replace("-", "m")
        from .smooth import casadi_name
        Ik = ca.integrator(f"{casadi_name(system.name)}_{tag}_win", "cvodes", dae, 0.0, grid, o)
        I1 = ca.integrator(f"{casadi_name(system.name)}_{tag}_shoot", "cvodes", dae, 0.0, [1.0], o)
        x0 = ca.MX.sym("x0", nx)
        Ps = ca.MX.sym("Ps", nP)
        X = Ik(x0=x0, p=Ps)["xf"]
        ts = Ps[0] + Ps[1] * ca.DM(grid).T
        Xd, _, E, Ed = core.map(K)(X, ts, ca.repmat(Ps, 1, K))
        self.window = ca.Function("window", [x0, Ps], [X, E, Xd, Ed])
        xf = I1(x0=x0, p=Ps)["xf"]
        _, _, ef, efd = core(xf, Ps[0] + Ps[1], Ps)
        self.shoot = ca.Function("shoot", [x0, Ps], [xf, ef, efd])
        self.K = K
        self._fmap = None

    CHUNK = 128

    def forces(self, X, ts, P):
        """Contact forces ``lam_c`` (columns) at states ``X`` (columns) and times ``ts``.

        One cached ``core.map(CHUNK)`` evaluated chunk by chunk (a map built per call costs
        more than the evaluation)."""
        if self._fmap is None:
            with _LOCK:
                if self._fmap is None:
                    self._fmap = self.core.map(self.CHUNK)
        n, C = X.shape[1], self.CHUNK
        out = []
        for a in range(0, n, C):
            Xc, tc = X[:, a:a + C], ts[a:a + C]
            m = tc.size
            if m < C:
                Xc = np.hstack([Xc, np.repeat(Xc[:, -1:], C - m, axis=1)])
                tc = np.concatenate([tc, np.repeat(tc[-1:], C - m)])
            Pc = np.repeat(np.asarray(P, float)[:, None], C, axis=1)
            Pc[0] = tc
            out.append(self._fmap(Xc, tc[None, :], Pc)[1].full()[:, :m])
        return np.hstack(out)


def _terms_function(system, specs):
    """``terms(x, t, P) -> (M, h, C, rc, W, Wt, Wdot_u, gap, E)`` for the contact problems."""
    F = system.functions
    nq, nu, nv = system.nq, system.nu, system.nv
    _, _, _, nP = _layout(system)
    x = ca.MX.sym("x", nq + nu + nv)
    t = ca.MX.sym("t")
    P = ca.MX.sym("P", nP)
    p, H, K, wc, _ = _split_P(system, P)
    w = input_mx(system, specs, t, wc)
    q, u, v = x[:nq], x[nq:nq + nu], x[nq + nu:]
    _, z = system.extras_mx(q, u, v, t, p, w)
    M = F["M"](q, p)
    h = F["h"](q, u, v, z, t, p, w)
    if system.m + system.k:
        y, zc, C, c = F["constraints"](q, u, t, p)
        rc = ca.mtimes(H, y) + ca.mtimes(K, zc) - c
    else:
        C, rc = ca.MX(0, nu), ca.MX(0, 1)
    Tk, Vp = F["energy"](q, u, t, p)
    return ca.Function("terms", [x, t, P],
                       [M, h, C, rc, F["W"](q, t, p), F["Wt"](q, t, p), F["Wdot_u"](q, u, t, p),
                        F["gap"](q, t, p), Tk + Vp],
                       ["x", "t", "P"], ["M", "h", "C", "rc", "W", "Wt", "Wdot_u", "gap", "E"])


# ------------------------------------------------------------------------------------ #
# the engine
# ------------------------------------------------------------------------------------ #

class _Stop(Exception):
    pass


class EventEngine:
    """Resumable event-driven integrator (used by ``"event"`` and ``"auto"``).

    Parameters
    ----------
    system : System
    specs : list
        Resolved input specs.
    pv : array
        Parameter vector.
    H, K : arrays
        Stabilization matrices of the bilateral constraints.
    options : dict
        See :func:`simulate_event`.
    """

    def __init__(self, system, specs, pv, H, K, rtol, atol, options):
        self.system, self.specs, self.pv = system, specs, pv
        self.H, self.K = np.asarray(H, float), np.asarray(K, float)
        self.rtol, self.atol = rtol, atol
        o = options
        self.gains = tuple(float(g) for g in o["contact_stabilization"])
        self.nsub = int(o["samples_per_window"])
        self.event_tol = float(o["event_tol"])
        self.gap_tol = float(o["gap_tol"])
        self.vel_tol = float(o["vel_tol"])
        self.painleve = o["painleve"]
        self.zeno = o["zeno"]
        self.max_events = int(o["max_events"])
        self.h_max = o["max_step"]
        from ..contact.energetic import check_rule
        self.energy_gain = check_rule(o.get("energy_gain", "fallback"))
        self.integrator_options = dict(o.get("integrator_options") or {})
        self.wc = constant_vector(specs)
        self.names = system.contact_names
        self.nc = len(self.names)
        self.offs = _offsets(system)
        self.nt = [c["n_tangent"] for c in system.contacts]
        self.dim = max([2] + [1 + n for n in self.nt])
        self.e_n, self.e_t, self.mu = contact_laws(system, pv)
        self.skey = inputs_key(specs)
        tkey = ("event-terms", self.skey)
        tf = system._integrators.get(tkey)
        if tf is None:
            with _LOCK:
                tf = system._integrators.get(tkey)
                if tf is None:
                    tf = system._integrators[tkey] = _terms_function(system, specs)
        self.terms_f = tf
        self.events = []
        self.samples_t, self.samples_x, self.samples_mode = [], [], []
        self.n_windows = self.n_shoots = 0
        self.impact_log = {i: [] for i in range(self.nc)}
        self.pending = None           # (t_inf, contact, E_before, impulse, extra)
        self.zeno_action = o.get("zeno_action", "extrapolate")
        self.zeno_detected = None     # (contact, t_k, t_inf, r) with zeno_action="report"
        self.zero_steps = 0
        self._calls = {}
        self.rest_velocity = o.get("rest_velocity")
        self.rest_impacts = int(o.get("rest_impacts", 2))
        self.rest_streak = []
        self.dref = np.zeros(2 * self.nc)     # see _split_P / _update_dref

    # ---------------------------------------------------------------- small helpers
    def P(self, t0, T):
        base = self.__dict__.get("_Pbase")
        if base is None:
            base = self._Pbase = np.concatenate([[0.0, 0.0], self.pv, self.H.ravel(order="F"),
                                                 self.K.ravel(order="F"), self.wc,
                                                 np.zeros(2 * self.nc)])
        out = base.copy()
        out[0], out[1] = t0, T
        if self.nc:
            out[-2 * self.nc:] = self.dref
        return out

    def _update_dref(self):
        """Reference directions of the spatial sliding contacts: ``v_t / |v_t|`` where
        ``|v_t| > vel_tol`` (kept otherwise: a slide starting from rest keeps the direction
        the contact problem gave it)."""
        if SLIDE_2D not in self.mode:
            return
        nq, nu = self.nq_nu()
        tm = self.terms(self.x, self.t)
        u = self.x[nq:nq + nu]
        for i, mo in enumerate(self.mode):
            if mo != SLIDE_2D:
                continue
            o = self.offs[i]
            vt = tm["W"][o + 1:o + 3] @ u + tm["Wt"][o + 1:o + 3]
            n = float(np.hypot(*vt))
            if n > self.vel_tol:
                self.dref[2 * i:2 * i + 2] = vt / n

    def modeset(self, mode):
        key = ("event-mode", mode, self.skey, self.rtol, self.atol, self.gains, self.nsub,
               tuple(sorted(self.integrator_options.items())))
        ms = self.system._integrators.get(key)
        if ms is None:
            with _LOCK:          # shared by the engines of every thread (built once)
                ms = self.system._integrators.get(key)
                if ms is None:
                    ms = ModeSet(self.system, self.specs, mode, self.gains, self.nsub,
                                 self.rtol, self.atol, self.integrator_options)
                    self.system._integrators[key] = ms
        return ms

    def calls(self, mode):
        """Buffered ``(window, shoot, core)`` of ``mode`` (one set per engine: the buffers
        are not shared between engines, so engines on one System may run in threads)."""
        b = self._calls.get(mode)
        if b is None:
            ms = self.modeset(mode)
            b = self._calls[mode] = (_Buffered(ms.window), _Buffered(ms.shoot),
                                     _Buffered(ms.core))
        return b

    def terms(self, x, t):
        key = (float(t), np.asarray(x, float).tobytes())
        memo = self.__dict__.setdefault("_terms_memo", {})
        tm = memo.get(key)
        if tm is not None:
            return tm
        tf = self.__dict__.get("_terms_call")
        if tf is None:
            tf = self._terms_call = _Buffered(self.terms_f)
        M, h, C, rc, W, Wt, Wd, g, E = tf(x, t, self.P(t, 0.0))
        tm = dict(M=M, h=h.ravel(), C=C, rc=rc.ravel(), W=W, Wt=Wt.ravel(), Wd=Wd.ravel(),
                  gap=g.ravel(),
                  E=float(E.ravel()[0]) if E.size else None)
        if len(memo) > 8:
            memo.clear()
        memo[key] = tm
        return tm

    def energy(self, x, t):
        return self.terms(x, t)["E"]

    def nq_nu(self):
        return self.system.nq, self.system.nu

    def wn(self, tm, i):
        return tm["W"][self.offs[i]]

    def vn(self, tm, i, u):
        """Relative normal velocity ``w_n^T u + w`` of contact ``i``."""
        o = self.offs[i]
        return tm["W"][o] @ u + tm["Wt"][o]

    def velocities(self, tm, idx, u):
        """Padded relative contact velocities ``W u + Wt`` of the contacts ``idx``."""
        d = self.dim
        v = np.zeros(len(idx) * d)
        W, Wt = tm["W"], tm["Wt"]
        for a, i in enumerate(idx):
            o, nt = self.offs[i], self.nt[i]
            v[a * d:a * d + 1 + nt] = W[o:o + 1 + nt] @ u + Wt[o:o + 1 + nt]
        return v

    def contact_space(self, tm, idx):
        """Padded contact rows, constrained Delassus ``D``, free accelerations ``b``."""
        M, h, C, rc = tm["M"], tm["h"], tm["C"], tm["rc"]
        nu = M.shape[0]
        d = self.dim
        Wc = np.zeros((len(idx) * d, nu))
        Wdc = np.zeros(len(idx) * d)
        for a, i in enumerate(idx):
            o, nt = self.offs[i], self.nt[i]
            Wc[a * d:a * d + 1 + nt] = tm["W"][o:o + 1 + nt]
            Wdc[a * d:a * d + 1 + nt] = tm["Wd"][o:o + 1 + nt]
        Mi = np.linalg.inv(M)
        Mih = Mi @ h
        if C.size:
            MiCt = Mi @ C.T
            Sp = np.linalg.pinv(C @ MiCt, rcond=1e-10, hermitian=True)
            Mc = Mi - MiCt @ Sp @ MiCt.T
            ud0 = Mih + MiCt @ (Sp @ (rc - C @ Mih))
        else:
            Mc, ud0 = Mi, Mih
        D = Wc @ Mc @ Wc.T
        D = 0.5 * (D + D.T)
        b = Wc @ ud0 + Wdc
        return Wc, Mc, D, b

    # ---------------------------------------------------------------- mode decision
    def touching(self, tm, u, mode):
        g = tm["gap"]
        return [i for i in range(self.nc)
                if mode[i] != OPEN or g[i] <= self.gap_tol]

    def decide(self, x, t, candidates, mode, record=True, cause=None, tol=1e-9):
        """New mode for contacts in ``candidates`` from the contact-force problem."""
        from ..contact.kernels import contact_forces, impact
        nq, nu = self.nq_nu()
        tm = self.terms(x, t)
        u = x[nq:nq + nu]
        new = list(mode)
        for i in range(self.nc):
            if i not in candidates:
                new[i] = OPEN
        idx = []
        for i in candidates:
            if self.vn(tm, i, u) > self.vel_tol:
                new[i] = OPEN
            else:
                idx.append(i)
        if not idx:
            return "".join(new), x
        Wc, Mc, D, b = self.contact_space(tm, idx)
        d = self.dim
        vc = self.velocities(tm, idx, u)
        vt = np.concatenate([vc[a * d + 1:a * d + d] for a in range(len(idx))])
        mu = self.mu[idx]
        sol = contact_forces(D, b, vt, mu, dim=d, slide_tol=self.vel_tol, tol=tol)
        if sol.status == "inconsistent":
            U, Fv, who = self._painleve_numbers(D, b, vt, mu, idx)
            msg = (f"Painlevé inconsistency at t = {t:.12g}: contact '{who}' sliding with "
                   f"U = {U:.6g}, F = {Fv:.6g} (normal acceleration U lam_n + F has no "
                   "solution lam_n >= 0); pass painleve='impact' to resolve it by an impact "
                   "without collision")
            if self.painleve != "impact":
                err = PainleveError(msg)
                err.t, err.contact, err.U, err.F = t, who, U, Fv
                raise err
            E0 = self.energy(x, t)
            v_minus = vc.copy()
            for a in range(len(idx)):
                v_minus[a * d] = min(v_minus[a * d], 0.0)
            imp = impact(D, v_minus, e_n=0.0, e_t=self.e_t[idx], mu=mu, dim=d,
                         energy="report", all_solutions=True)
            sols = imp.solutions or [imp]
            # P = 0 is always consistent at zero normal speed: take the impulsive solution
            imp = max(sols, key=lambda sl: float(np.sum(sl.P[0::d])))
            if not np.sum(imp.P[0::d]) > 0:
                err = PainleveError(msg + " (the impact problem has no impulsive solution)")
                err.t, err.contact, err.U, err.F = t, who, U, Fv
                raise err
            x = x.copy()
            x[nq:nq + nu] = u + Mc @ Wc.T @ imp.P
            self.events.append(Event(t, who, "painleve", imp.P, E0, self.energy(x, t),
                                     U=U, F=Fv, modes=imp.modes))
            self.zero_steps += 1
            if self.zero_steps > 20:
                raise SolverError(f"t = {t:.12g}: impact without collision did not resolve "
                                  f"the Painlevé inconsistency at '{who}'")
            return self.decide(x, t, candidates, mode, record, cause)
        chosen = sol.solutions[0]
        extra = {}
        if sol.status == "indeterminate":
            # several consistent contact modes: take the one with the least normal force
            norms = [float(np.sum(s.lam[0::d])) for s in sol.solutions]
            chosen = sol.solutions[int(np.argmin(norms))]
            extra["indeterminate"] = [s.modes for s in sol.solutions]
        rest_rows = []
        for a, i in enumerate(idx):
            m = chosen.modes[a]
            if m == "separate":
                new[i] = OPEN
            elif self.mu[i] == 0 or self.nt[i] == 0:
                new[i] = CLOSED
            elif m == "stick":
                new[i] = STICK
            elif self.nt[i] == 2:
                new[i] = SLIDE_2D
                v2 = vt[(d - 1) * a:(d - 1) * a + 2]
                if np.hypot(*v2) <= self.vel_tol:
                    # from rest: against the friction force of the contact problem's
                    # solution (accurate where a_t ~ 0, just past a friction-cone exit)
                    v2 = -chosen.lam[a * d + 1:a * d + 3]
                    if not np.hypot(*v2) > 0:
                        v2 = chosen.acc[a * d + 1:a * d + 3]
                    rest_rows += [a * d + 1, a * d + 2]
                n = float(np.hypot(*v2))
                self.dref[2 * i:2 * i + 2] = v2 / n if n > 0 else 0.0
            else:
                v = vt[a] if self.nt[i] == 1 else 0.0
                if abs(v) <= self.vel_tol:
                    v = chosen.acc[a * d + 1]
                new[i] = SLIDE_POS if v > 0 else SLIDE_NEG
        if rest_rows:
            # a spatial slide from rest: remove the residual tangential speed (below
            # vel_tol, least kinetic-energy change) so that it starts along a_t exactly
            Wv = Wc[rest_rows]
            vv = Wv @ u + np.concatenate([tm["Wt"][self.offs[idx[r // d]] + r % d:
                                                   self.offs[idx[r // d]] + r % d + 1]
                                          for r in rest_rows])
            Dv = Wv @ Mc @ Wv.T
            x = np.array(x, float)
            x[nq:nq + nu] = u - Mc @ (Wv.T @ (np.linalg.pinv(Dv, rcond=1e-12, hermitian=True) @ vv))
        new = "".join(new)
        if record:
            for i in range(self.nc):
                old, nw = mode[i], new[i]
                if old == nw:
                    continue
                if nw == OPEN and old != OPEN:
                    kind = "liftoff"
                elif nw == STICK:
                    kind = "stick"
                elif nw in SLIDING and old in (STICK, CLOSED, OPEN) + SLIDING:
                    kind = "slide"
                elif nw == CLOSED:
                    kind = "close"
                else:
                    kind = "mode"
                E = self.energy(x, t)
                self.events.append(Event(t, self.names[i], kind, None, E, E, mode=nw, **extra))
        return new, x

    def _painleve_numbers(self, D, b, vt, mu, idx):
        d = self.dim
        best = (math.nan, math.nan, self.names[idx[0]])
        for a, i in enumerate(idx):
            if self.nt[i] != 1 or abs(vt[a]) <= self.vel_tol:
                continue
            s = np.sign(vt[a])
            U = D[a * d, a * d] - mu[a] * s * D[a * d, a * d + 1]
            Fv = b[a * d]
            best = (float(U), float(Fv), self.names[i])
            if U < 0:
                break
        return best

    # ---------------------------------------------------------------- impacts
    def do_impact(self, x, t, mode, trigger):
        """Resolve the impact at ``t``; returns the new (mode, x)."""
        from ..contact.kernels import impact
        nq, nu = self.nq_nu()
        tm = self.terms(x, t)
        u = x[nq:nq + nu]
        idx = self.touching(tm, u, mode)
        for i in trigger:
            if i not in idx:
                idx.append(i)
        idx.sort()
        Wc, Mc, D, b = self.contact_space(tm, idx)
        d = self.dim
        vm = self.velocities(tm, idx, u)
        approaching = [a for a in range(len(idx)) if vm[a * d] < -self.vel_tol]
        if not approaching:
            return self.decide(x, t, idx, mode, cause="grazing")
        E0 = tm["E"]
        e_n = self.e_n[idx].copy()
        # Zeno: a geometric sequence of impacts at one contact ends at t_inf; resolve this
        # impact as plastic at that contact and close it (the remaining infinitely many
        # impacts remove the normal velocity)
        # rest: impacts repeating with pre-impact normal speeds below the velocity
        # resolution (a drop through gap_tol) are a numerical limit cycle between the gap
        # threshold and the contact stabilization, not motion: snap the set to rest
        vr = self._rest_velocity(b, idx)
        if self.rest_impacts > 0 and all(abs(vm[a * d]) < vr[a] for a in approaching):
            self.rest_streak.append({idx[a] for a in approaching})
        else:
            self.rest_streak.clear()
        snap = self.rest_impacts > 0 and len(self.rest_streak) >= self.rest_impacts
        if snap:
            e_n[:] = 0.0
        zeno_hit = None
        for a in approaching:
            i = idx[a]
            self.impact_log[i].append(t)
            if self.zeno and e_n[a] > 0 and zeno_hit is None:
                z = self._zeno_check(i)
                if z is not None and self.zeno_action == "report":
                    self.zeno_detected = (i, t) + z
                elif z is not None:
                    zeno_hit = (a, i) + z
                    e_n[a] = 0.0
        imp = impact(D, vm, e_n=e_n, e_t=self.e_t[idx], mu=self.mu[idx], dim=d,
                     all_solutions=True, energy="report")
        if imp.status == "inconsistent":
            raise SolverError(f"t = {t:.12g}: the impact problem at contacts "
                              f"{[self.names[i] for i in idx]} has no consistent solution")
        fallback = None
        if imp.status == "energy_gain":          # Kane's paradox: see contact/energetic.py
            fallback = self._energy_fallback(t, idx, D, vm, e_n, imp)
            imp = fallback.pop("solution")
        x = x.copy()
        x[nq:nq + nu] = u + Mc @ (Wc.T @ imp.P)
        E1 = self.energy(x, t)
        vp = imp.v_plus
        extra = dict(status=imp.status, modes=dict(zip([self.names[i] for i in idx], imp.modes)))
        if fallback is not None:
            extra["law"] = "energy-limited"
            extra["restitution_scale"] = fallback["scale"]
            self.events.append(Event(t, self.names[idx[approaching[0]]], "energy_fallback",
                                     None, E0, E1, energy_newton=E0 + fallback["dT_newton"],
                                     **fallback))
        if imp.status == "ambiguous" and imp.solutions:
            extra["solutions"] = [dict(P=s.P.tolist(), modes=s.modes) for s in imp.solutions]
        for a, i in enumerate(idx):
            Pa = imp.P[a * d:a * d + 1 + self.nt[i]]
            if Pa[0] > 0 or a in approaching:
                self.events.append(Event(t, self.names[i], "impact", Pa.copy(), E0, E1,
                                         v_minus=vm[a * d:a * d + 1 + self.nt[i]].copy(),
                                         v_plus=vp[a * d:a * d + 1 + self.nt[i]].copy(),
                                         **extra))
        for a, i in enumerate(idx):
            if vp[a * d] <= self.vel_tol:
                self.impact_log[i].clear()
        cand = [i for a, i in enumerate(idx) if vp[a * d] <= self.vel_tol]
        new, x = self.decide(x, t, cand, mode, cause="impact")
        if snap:
            return self._snap_to_rest(x, t, new, idx, E0)
        if zeno_hit is not None:
            a, i, t_inf, r = zeno_hit
            if new[i] != OPEN:
                v_reb = self.e_n[i] * abs(vm[a * d])
                tail = v_reb ** 2 / (2 * max(abs(b[a * d]), 1e-300))
                self.pending = (t_inf, i, E0, imp.P[a * d:a * d + 1 + self.nt[i]].copy(),
                                dict(ratio=r, t_detect=t, tail_height=tail, mode=new[i]))
        return new, x

    def _energy_fallback(self, t, idx, D, vm, e_n, imp):
        """Newton's law would gain energy: raise (``energy_gain="raise"``) or solve with the
        energy-limited law (:mod:`mechdae.contact.energetic`)."""
        from ..contact.energetic import impact_no_gain
        from ..contact.kernels import EnergyGainError
        names = [self.names[i] for i in idx]
        gain = max(s.energy_change for s in (imp.solutions or [imp]))
        if self.energy_gain == "raise":
            raise EnergyGainError(f"t = {t:.12g}: Newton's impact law at contacts {names} would "
                                  f"increase the kinetic energy by {gain:.6g} J although "
                                  f"e_n, e_t <= 1 (Kane's paradox; energy_gain='fallback' "
                                  "uses the energy-limited law instead)", imp)
        sol, scale = impact_no_gain(D, vm, e_n, self.e_t[idx], self.mu[idx], self.dim)
        return dict(solution=sol, scale=float(scale), dT_newton=float(gain),
                    dT=float(sol.energy_change), contacts=names)

    def _rest_velocity(self, b, idx):
        """Velocity resolution per contact of ``idx``: ``rest_velocity`` when given, else
        ``2 sqrt(2 a_n gap_tol)`` (``a_n = |b_n|``, the contact's free normal acceleration,
        at least 1e-3 ``|b|``): the speed of a drop through a few ``gap_tol``."""
        d = self.dim
        if self.rest_velocity is not None:
            return np.full(len(idx), float(self.rest_velocity))
        an = np.abs(np.asarray(b, float)[0::d][:len(idx)])
        an = np.maximum(an, 1e-3 * max(np.max(np.abs(b)), 1e-300))
        return 2.0 * np.sqrt(2.0 * an * self.gap_tol)

    def _snap_to_rest(self, x, t, mode, idx, E0):
        """Close the contacts of the repeating tiny impacts (and those touching) after a
        plastic impact: positions and normal speeds projected onto the surfaces (tangential
        speeds too where they are below the resolution), then the contact-force problem
        decides the sustained mode. Records one ``"accumulation"`` event per contact
        (``reason="rest"``, ``set`` the contact names)."""
        nq, nu = self.nq_nu()
        d = self.dim
        members = set(idx).union(*self.rest_streak)
        self.rest_streak.clear()
        tm = self.terms(x, t)
        members = sorted(i for i in members if tm["gap"][i] <= 100 * self.gap_tol
                         or mode[i] != OPEN)
        if not members:
            return mode, x
        Wc, _, _, b = self.contact_space(tm, members)
        vc = self.velocities(tm, members, x[nq:nq + nu])
        vr = self._rest_velocity(b, members)
        tmp = list(mode)
        for a, i in enumerate(members):
            vt = vc[a * d + 1:a * d + 1 + self.nt[i]]
            stick = self.nt[i] and self.mu[i] > 0 and np.all(np.abs(vt) < vr[a])
            tmp[i] = STICK if stick else (mode[i] if mode[i] in SLIDING
                                          else CLOSED)
        x = self.project_closed(x, t, "".join(tmp), gap_max=1e-3)
        new, x = self.decide(x, t, sorted(set(members) | {i for i in range(self.nc)
                                                          if mode[i] != OPEN}), mode)
        x = self.project_closed(x, t, new)
        E1 = self.energy(x, t)
        names = [self.names[i] for i in members]
        for i in members:
            self.impact_log[i].clear()
            self.events.append(Event(t, self.names[i], "accumulation", None, E0, E1,
                                     reason="rest", set=names, mode=new[i]))
        if self.pending is not None and self.pending[1] in members:
            self.pending = None
        return new, x

    def _zeno_check(self, i):
        """``(t_inf, r)`` when the impact times of contact ``i`` form a geometric sequence."""
        z = self.zeno if isinstance(self.zeno, dict) else {}
        n = int(z.get("min_impacts", 5))
        tol = float(z.get("ratio_tol", 0.05))
        min_flight = float(z.get("min_flight", 1e-9))
        log = self.impact_log[i]
        if len(log) >= 2 and log[-1] - log[-2] < min_flight * max(1.0, abs(log[-1])):
            return log[-1], 0.0
        if len(log) < n + 1:
            return None
        dt = np.diff(log[-(n + 1):])
        r = dt[1:] / dt[:-1]
        if np.all(r > 0) and np.all(r < 0.98) and np.ptp(r) <= tol * np.mean(r):
            rr = float(r[-1])
            return log[-1] + dt[-1] * rr / (1.0 - rr), rr
        return None

    # ---------------------------------------------------------------- integration
    def start(self, t0, x0, mode=None, touching=()):
        """Set the state at ``t0`` and decide the initial mode.

        ``touching``: contacts to treat as touching whatever their (small) gap.
        """
        self.t, self.x = float(t0), np.asarray(x0, float).copy()
        nq, nu = self.nq_nu()
        tm = self.terms(self.x, self.t)
        if self.nc and np.any(tm["gap"] < -1e-6):
            bad = [self.names[i] for i in range(self.nc) if tm["gap"][i] < -1e-6]
            warnings.warn(f"{self.system.name}: initial state penetrates contact(s) {bad} "
                          f"(gap {tm['gap'].min():.3g})", stacklevel=4)
        cur = mode or OPEN * self.nc
        u = self.x[nq:nq + nu]
        touch = sorted(set(self.touching(tm, u, cur)) | set(touching))
        closing = [i for i in touch if self.vn(tm, i, u) < -self.vel_tol]
        if closing:
            self.mode, self.x = self.do_impact(self.x, self.t, cur, closing)
        elif touch:
            self.mode, self.x = self.decide(self.x, self.t, touch, cur, record=mode is not None)
        else:
            self.mode = cur if mode else OPEN * self.nc
        self.x = self.project_closed(self.x, self.t, self.mode)
        self._refresh()
        self.record()

    def record(self):
        self._note_dref(len(self.samples_t))
        self.samples_t.append(self.t)
        self.samples_x.append(self.x.copy())
        self.samples_mode.append(self.mode)

    def _note_dref(self, k):
        """Remember the reference directions in force from sample ``k`` on (spatial sliding:
        the recorded contact forces are evaluated with them)."""
        if SLIDE_2D in self.mode:
            log = self.__dict__.setdefault("dref_log", [])
            if not log or not np.array_equal(log[-1][1], self.dref):
                log.append((k, self.dref.copy()))

    def advance(self, t_stop, out_times, monitor=None):
        """Integrate to ``t_stop`` recording the states at ``out_times`` and at events.

        Output points inside a window are cubic Hermite interpolants of the window's
        sub-samples (states and their derivatives); event states are integrated exactly.

        Returns
        -------
        str
            ``"done"`` or ``"monitor"`` (the monitor asked to stop after an event).
        """
        self.out_times = np.asarray(out_times, float)
        self.k_out = int(np.searchsorted(self.out_times, self.t, side="right"))
        span = max(t_stop - self.t, 1e-300)
        # windows: at most max_step (default MAX_WINDOW seconds, sub-samples every
        # MAX_WINDOW / K), never a fraction of the horizon: event detection and the Hermite
        # outputs would coarsen with t_final. Each cvodes call has a fixed cost (start-up of
        # its step size and order), so a window spans a whole flight when it can: the first
        # is as long as allowed, one after an event as long as the previous inter-event
        # time, and they grow 4x while nothing happens
        h_max = self.h_max or MAX_WINDOW
        h = min(h_max, span)
        h_min = 1e-13 * max(1.0, abs(t_stop))
        last_event_t = self.t
        self._refresh()
        while self.t < t_stop - 1e-14 * max(1.0, abs(t_stop)):
            ms = self.modeset(self.mode)
            window, shoot, core = self.calls(self.mode)
            tb = min(self.t + h, t_stop)
            if self.pending is not None and self.pending[0] <= tb:
                tb = self.pending[0]
            T = tb - self.t
            if T <= 1e-15 * max(1.0, abs(tb)):
                self._advance_to(tb, [], [], [])
                continue
            X, E, Xd, Ed = window(self.x, self.P(self.t, T))
            self.n_windows += 1
            K = ms.K
            tgrid = self.t + T * np.arange(1, K + 1) / K
            ev0 = self.ev
            found = self._first_crossing(ev0, E, T, h_min)
            if found is None:
                self.ev, self.evd = E[:, -1].copy(), Ed[:, -1].copy()
                self._advance_to(tb, tgrid, X.T, Xd.T)
                h = min(4.0 * T, h_max)
                continue
            j, fired = found
            ta = self.t + T * j / K
            xa = self.x if j == 0 else X[:, j - 1].copy()
            ea = ev0 if j == 0 else E[:, j - 1]
            eda = self.evd if j == 0 else Ed[:, j - 1]
            t_e, x_e, e_e, which = self._locate(ms, ta, xa, ea, tgrid[j], X[:, j], E[:, j], fired,
                                                eda, Ed[:, j])
            xd_e = self._xdot(x_e, t_e)
            self._advance_to(t_e, list(tgrid[:j]) + [t_e], list(X.T[:j]) + [x_e],
                             list(Xd.T[:j]) + [xd_e], final_sample=False)
            self.ev = e_e
            self.record()
            self._handle(which)
            self.x = self.project_closed(self.x, self.t, self.mode)
            self.record()
            self._refresh()
            dt_ev = self.t - last_event_t
            last_event_t = self.t
            h = min(max(dt_ev, 64 * h_min), h_max)
            if len(self.events) > self.max_events:
                raise SolverError(f"{self.system.name}: more than {self.max_events} events by "
                                  f"t = {self.t:.12g} (chattering contacts?); raise max_events "
                                  "or use method='auto' / 'timestepping'")
            if monitor is not None and monitor(self):
                return "monitor"
        return "done"

    def project_closed(self, x, t, mode, gap_max=1e-6):
        """Put the closed contacts of ``mode`` exactly on their surfaces.

        Positions: Gauss-Newton steps ``q += N(q) dxi``, ``dxi = -M_c W_n^T D_n^+ g``
        (``M_c`` the inverse mass restricted by the bilateral constraints) until the gaps
        vanish; speeds: ``u -= M_c W_v^T (W_v M_c W_v^T)^+ W_v u`` with ``W_v`` the normal rows
        (and tangential rows of sticking contacts) — the least kinetic-energy change. The
        residuals removed are those of event location (a gap of ``v dt_event``, speeds below
        ``vel_tol``); the Baumgarte transient they would start costs the integrator many
        steps. Returns ``x`` unchanged when a gap exceeds ``gap_max``.
        """
        idx = [i for i in range(self.nc) if mode[i] != OPEN]
        if not idx:
            return x
        nq, nu = self.nq_nu()
        d = self.dim
        y = np.array(x, float)
        for _ in range(4):
            tm = self.terms(y, t)
            g = tm["gap"][idx]
            if np.max(np.abs(g)) > gap_max:
                return x
            if np.max(np.abs(g)) <= 1e-15:
                break
            Wc, Mc, _, _ = self.contact_space(tm, idx)
            Wn = Wc[0::d]
            Dn = Wn @ Mc @ Wn.T
            dxi = -Mc @ (Wn.T @ (np.linalg.pinv(Dn, rcond=1e-12, hermitian=True) @ g))
            Nq = np.array(self.system.functions["N"](y[:nq], self.pv))
            y[:nq] = y[:nq] + Nq @ dxi
        tm = self.terms(y, t)
        Wc, Mc, _, _ = self.contact_space(tm, idx)
        rows = []
        for a, i in enumerate(idx):
            rows.append(a * d)
            if mode[i] == STICK:
                rows.extend(range(a * d + 1, a * d + 1 + self.nt[i]))
        Wv = Wc[rows]
        u = y[nq:nq + nu]
        vv = self.velocities(tm, idx, u)[rows]
        if np.max(np.abs(vv)) > 0:
            Dv = Wv @ Mc @ Wv.T
            y[nq:nq + nu] = u - Mc @ (Wv.T @ (np.linalg.pinv(Dv, rcond=1e-12, hermitian=True)
                                              @ vv))
        return y

    def _refresh(self):
        """Event values, their rates and ``x'`` of the current mode at the current state."""
        self._update_dref()
        out = self.calls(self.mode)[2](self.x, self.t, self.P(self.t, 0.0))
        self.xd, self.ev, self.evd = out[0].ravel(), out[2].ravel(), out[3].ravel()

    def _xdot(self, x, t):
        return self.calls(self.mode)[2](x, t, self.P(t, 0.0))[0].ravel()

    def _advance_to(self, tb, ts, Xs, Xds, final_sample=True):
        """Move to ``tb`` along samples ``(ts, Xs, Xds)``; record the output times passed."""
        t0, x0, xd0 = self.t, self.x, self.xd
        ot = self.out_times
        k = self.k_out
        pts_t = [t0] + list(ts)
        pts_x = [x0] + list(Xs)
        pts_d = [xd0] + list(Xds)
        k_end = int(np.searchsorted(ot, tb * (1 + 1e-15) + 1e-300, side="right"))
        if final_sample and k_end > k and ot[k_end - 1] >= tb:
            k_end -= 1           # recorded below as the window end
        if k_end > k:
            to = ot[k:k_end]
            if len(pts_t) == 1:
                xo = np.repeat(np.asarray(x0, float)[None, :], to.size, axis=0)
            else:
                pt = np.asarray(pts_t)
                seg = np.clip(np.searchsorted(pt, to, side="left") - 1, 0, pt.size - 2)
                PX, PD = np.asarray(pts_x, float), np.asarray(pts_d, float)
                ta, dt = pt[seg], pt[seg + 1] - pt[seg]
                sv = np.where(dt > 0, np.clip((to - ta) / np.where(dt > 0, dt, 1.0), 0.0, 1.0),
                              0.0)[:, None]
                dtc = dt[:, None]
                xo = ((2 * sv ** 3 - 3 * sv ** 2 + 1) * PX[seg]
                      + (sv ** 3 - 2 * sv ** 2 + sv) * dtc * PD[seg]
                      + (-2 * sv ** 3 + 3 * sv ** 2) * PX[seg + 1]
                      + (sv ** 3 - sv ** 2) * dtc * PD[seg + 1])
            self._note_dref(len(self.samples_t))
            self.samples_t.extend(float(v) for v in to)
            self.samples_x.extend(xo)
            self.samples_mode.extend([self.mode] * to.size)
            k = k_end
        self.t = float(tb)
        if len(pts_t) > 1:
            self.x, self.xd = np.array(pts_x[-1], float), np.array(pts_d[-1], float)
        hit = k < ot.size and abs(ot[k] - tb) <= 1e-15 * max(1.0, abs(tb)) + 1e-300
        if final_sample and hit:
            self.record()
            k += 1
        self.k_out = k
        if self.pending is not None and self.pending[0] <= tb * (1 + 1e-15):
            t_inf, i, E0, P, extra = self.pending
            self.pending = None
            self.events.append(Event(t_inf, self.names[i], "accumulation", P, E0,
                                     self.energy(self.x, self.t), **extra))

    def _first_crossing(self, ev0, E, T, h_min):
        """First sub-interval where an event function crosses zero, or None.

        A function that starts non-positive (a contact just closed or opened at a
        tangency, a gap just past an impact) is shifted to start at ``+tol``: it fires only
        when it drops by more than ``tol`` (``gap_tol`` for gaps, 1e-8 otherwise) — until it
        turns positive at a sub-sample, from where it is armed unshifted (a flight that
        fits in one window must not end ``gap_tol`` below the surface).
        """
        desc = self.modeset(self.mode).desc
        tol = np.array([self.gap_tol if kd == "gap" else 1e-8 for _, kd in desc])
        off = np.where(ev0 > 0, 0.0, tol - np.minimum(ev0, 0.0))
        nE, K = E.shape
        # column from which each function is armed (0: from the start)
        pos = E > 0
        arm = np.where(off > 0, np.where(pos.any(axis=1), pos.argmax(axis=1) + 1, K + 1), 0)
        cols = np.arange(K)
        neg = np.where(cols[None, :] >= arm[:, None], E <= 0, (E + off[:, None]) <= 0)
        hit = np.flatnonzero(neg.any(axis=0))
        if not hit.size:
            self.off = off
            return None
        j = int(hit[0])
        # the bracket is [j - 1, j]: shifted only for functions not armed by column j - 1
        self.off = np.where(arm <= j, 0.0, off)
        return j, list(np.flatnonzero(neg[:, j]))

    def _locate(self, ms, ta, xa, ea, tb, xb, eb, fired, eda=None, edb=None):
        """Earliest root of the fired event functions in ``(ta, tb]``.

        Seed: the root of the cubic Hermite interpolant of ``e`` (values and rates at both
        ends); then Newton steps, each one integration from ``xa`` returning ``e`` and
        ``e'`` (quadratic convergence: one or two integrations per event); the returned
        time lies past the root by at most the tolerance, with ``e <= 0`` there.
        Illinois regula falsi on re-integrated states is the fallback.
        """
        best = None
        off = self.off
        ea, eb = ea + off, eb + off
        tol = self.event_tol * max(1.0, abs(tb))
        for k in fired:
            if not ea[k] > 0:
                # fired at the window start (unarmed function): no bracket
                best = (ta, xa, ea, [k]) if best is None or ta < best[0] else best
                continue
            if best is not None and best[0] <= ta:
                continue
            got = None
            if eda is not None:
                got = self._newton(ms, k, ta, xa, ea[k], eda[k], tb, eb[k], edb[k], tol, off)
            if got is None:
                got = self._illinois(ms, k, ta, xa, ea[k], tb, xb, eb, tol, off)
            b, x_b, e_b = got
            if best is None or b < best[0]:
                best = (b, np.array(x_b).ravel(), np.array(e_b).ravel(), [k])
        t_e, x_e, e_e, ks = best
        # everything armed and non-positive at t_e happens together
        which = [k for k in range(len(ea)) if ea[k] > 0 and e_e[k] <= 0]
        which = which or ks
        return t_e, x_e, e_e - off, [ms.desc[k] for k in which]

    def _shoot(self, ms, ta, xa, tc, off):
        xc, ec, edc = self.calls(ms.mode)[1](xa, self.P(ta, tc - ta))
        self.n_shoots += 1
        return xc.ravel(), ec.ravel() + off, edc.ravel()

    def _newton(self, ms, k, ta, xa, fa, da, tb, fb, db, tol, off):
        """Hermite-seeded Newton on function ``k`` in ``(ta, tb]``; None when it fails."""
        T = tb - ta
        if not (T > 0 and fa > 0 and fb <= 0):
            return None
        # cubic Hermite in s in [0, 1]: root by bisection + Newton on the polynomial
        p0, m0, p1, m1 = fa, da * T, fb, db * T
        c3 = 2 * p0 + m0 - 2 * p1 + m1
        c2 = -3 * p0 - 2 * m0 + 3 * p1 - m1
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            if ((c3 * mid + c2) * mid + m0) * mid + p0 > 0:
                lo = mid
            else:
                hi = mid
            if hi - lo < 1e-3 * tol / T:
                break
        tc = ta + hi * T
        lo_t, hi_t = ta, tb          # bracket: f(lo_t) > 0 >= f(hi_t)
        x_hi = e_hi = None
        for _ in range(8):
            tc = min(max(tc, lo_t + 0.01 * tol), hi_t)
            xc, ec, edc = self._shoot(ms, ta, xa, tc, off)
            fc, d = ec[k], edc[k]
            if fc > 0:
                lo_t = tc
            else:
                hi_t, x_hi, e_hi = tc, xc, ec
            if x_hi is not None and hi_t - lo_t <= tol:
                return hi_t, x_hi, e_hi
            step = -fc / d if d < 0 else math.nan
            if fc <= 0 and abs(step) <= tol:
                return hi_t, x_hi, e_hi          # the root lies within tol before tc
            tn = tc + step + 0.25 * tol          # aim just past the root: e <= 0 there
            if not lo_t < tn < hi_t + 0.5 * tol:
                tn = 0.5 * (lo_t + hi_t)         # Newton left the bracket: bisect
            tc = tn
        return None

    def _illinois(self, ms, k, ta, xa, fa, tb, xb, eb, tol, off):
        a, b, fb = ta, tb, eb[k]
        x_b, e_b = xb, eb
        side = 0
        for _ in range(200):
            if b - a <= tol:
                break
            c = b - fb * (b - a) / (fb - fa)
            if not (a < c < b):
                c = 0.5 * (a + b)
            c = min(max(c, a + 0.01 * tol), b - 0.01 * tol)
            xc, ec, _ = self._shoot(ms, ta, xa, c, off)
            fc = ec[k]
            if fc > 0:
                a, fa = c, fc
                if side == -1:
                    fb *= 0.5
                side = -1
            else:
                b, fb, x_b, e_b = c, fc, xc, ec
                if side == 1:
                    fa *= 0.5
                side = 1
        return b, x_b, e_b

    def _handle(self, which):
        kinds = {kd for _, kd in which}
        contacts = sorted({i for i, _ in which if i >= 0})
        if "gap" in kinds:
            trig = [i for i, kd in which if kd == "gap"]
            self.mode, self.x = self.do_impact(self.x, self.t, self.mode, trig)
        elif self._renew_directions(which):
            pass
        else:
            nq, nu = self.nq_nu()
            tm = self.terms(self.x, self.t)
            touch = self.touching(tm, self.x[nq:nq + nu], self.mode)
            old = self.mode
            self.mode, self.x = self.decide(self.x, self.t, touch, self.mode)
            if self.mode == old:
                # located just past the crossing, the violation can be below the kernel's
                # tolerance: decide again with a tight one, then a hair later
                self.mode, self.x = self.decide(self.x, self.t, touch, self.mode, tol=1e-14)
            for delta in (1e-10, 1e-9, 1e-8):
                if self.mode != old:
                    break
                dt = delta * max(1.0, abs(self.t))
                x1 = self.calls(old)[1](self.x, self.P(self.t, dt))[0].ravel()
                new, x1 = self.decide(x1, self.t + dt, touch, old, tol=1e-14)
                if new != old:
                    self.t, self.x, self.mode = self.t + dt, x1, new
            if self.mode == old:
                # a transition the contact problem does not confirm (round-off at a
                # tangency): count it and continue
                self.zero_steps += 1
                if self.zero_steps > 50:
                    raise SolverError(f"{self.system.name}: no progress at t = {self.t:.12g} "
                                      f"(events {which} keep firing in mode {old!r})")
                return
        self.zero_steps = 0
        del contacts

    def _renew_directions(self, which):
        """Spatial sliding whose direction turned by 60 degrees (``vt`` events of ``s``
        contacts still sliding): renew the reference directions, no mode change."""
        if not which or any(kd != "vt" or i < 0 or self.mode[i] != SLIDE_2D
                            for i, kd in which):
            return False
        nq, nu = self.nq_nu()
        tm = self.terms(self.x, self.t)
        u = self.x[nq:nq + nu]
        for i, _ in which:
            o = self.offs[i]
            if not np.hypot(*(tm["W"][o + 1:o + 3] @ u + tm["Wt"][o + 1:o + 3])) > 10 * self.vel_tol:
                return False
        self._update_dref()
        return True

    # ---------------------------------------------------------------- output
    def contact_force_arrays(self):
        """Contact forces ``[lambda_n, lambda_t...]`` per contact at every recorded sample."""
        N = len(self.samples_t)
        out = {n: np.zeros((N, 1 + nt)) for n, nt in zip(self.names, self.nt)}
        by_mode = {}
        log = self.__dict__.get("dref_log", [])
        starts = np.array([k for k, _ in log], int)
        for k, m in enumerate(self.samples_mode):
            j = -1
            if m is not None and SLIDE_2D in m and starts.size:
                j = int(np.searchsorted(starts, k, side="right")) - 1
            by_mode.setdefault((m, j), []).append(k)
        for (m, j), ks in by_mode.items():
            if m is None:
                for n in self.names:
                    out[n][ks] = np.nan
                continue
            if all(mo == OPEN for mo in m):
                continue                             # no contact closed: zero forces
            ms = self.modeset(m)
            X = np.array([self.samples_x[k] for k in ks]).T
            ts = np.array([self.samples_t[k] for k in ks])
            P0 = self.P(0.0, 0.0)
            if self.nc:
                # spatial sliding: the reference directions in force at these samples
                P0[-2 * self.nc:] = log[j][1] if j >= 0 else 0.0
            lam = ms.forces(X, ts, P0)
            for i, n in enumerate(self.names):
                o = self.offs[i]
                out[n][ks] = lam[o:o + 1 + self.nt[i]].T
        return out


EVENT_RTOL, EVENT_ATOL = 1e-10, 1e-12   # smooth phases of "event" and "auto" (with contacts)

#: Default largest window of one cvodes call (s); its ``samples_per_window`` sub-samples
#: are where event functions are checked for sign changes and the knots of the Hermite
#: outputs. Fixed, so the answer up to a time does not depend on ``t_final``.
MAX_WINDOW = 0.2

DEFAULTS = dict(contact_stabilization=(20.0, 100.0, 20.0), samples_per_window=32,
                event_tol=1e-10, gap_tol=1e-8, vel_tol=1e-8, painleve="raise", zeno=True,
                max_events=20000, max_step=None, integrator_options=None, n_out=501,
                zeno_action="extrapolate", rest_velocity=None, rest_impacts=2,
                energy_gain="fallback")


def _initial_state(system, q0, v0, t0, pv, initialize):
    qa, ua, va, init_report = initial_state(system, q0, v0, t0, pv, initialize)
    return np.concatenate([qa, ua, va]), init_report


def _output_grid(t_final, output_times, n_out):
    if output_times is None:
        if not t_final > 0:
            raise ValueError(f"t_final must be > 0, got {t_final}")
        return np.linspace(0.0, float(t_final), int(n_out))
    ts = np.asarray(output_times, dtype=float).ravel()
    if ts.size < 2 or np.any(np.diff(ts) <= 0):
        raise ValueError("output_times must be increasing with at least 2 points")
    return ts


def build_result(engine, system, specs, pv, H, K, stats, init_report, wall0):
    """Result from an engine's samples (events included, contact forces attached)."""
    ts = np.array(engine.samples_t)
    X = np.array(engine.samples_x).T
    stats = dict(stats)
    stats.update(n_windows=engine.n_windows, n_shoots=engine.n_shoots,
                 modes=sorted({m for m in engine.samples_mode if m is not None}))
    res = postprocess(system, ts, X, pv, specs, H, K, stats, init_report,
                      events=sorted(engine.events, key=lambda e: e.t))
    res.contact_forces = engine.contact_force_arrays()
    res.modes = list(engine.samples_mode)
    res.stats["wall_time"] = _time.perf_counter() - wall0
    return res


def simulate_event(system, t_final, q0=None, v0=None, params=None, inputs=None, method="event",
                   rtol=EVENT_RTOL, atol=EVENT_ATOL, output_times=None, initialize=True,
                   stabilization="compiled", **options):
    r"""Event-driven simulation of a System with unilateral contacts.

    Parameters
    ----------
    system : System
    t_final : float
        End time (s).
    q0, v0, params, inputs, output_times, initialize, stabilization
        As in :meth:`mechdae.System.simulate`.
    rtol, atol : float
        cvodes tolerances of the smooth phases (defaults tighter than the smooth method's:
        event times inherit the integration error).
    painleve : {"raise", "impact"}
        On a Painlevé inconsistency raise :class:`mechdae.PainleveError` (time, contact,
        ``U``, ``F`` in the message), or resolve it by an impact without collision (an
        impact problem at zero normal velocity), recorded as a ``"painleve"`` event.
    zeno : bool or dict
        Detect accumulations of impacts: after ``min_impacts`` (5) impacts at one contact
        whose successive flight-time ratios agree within ``ratio_tol`` (0.05, relative),
        jump to ``t_inf = t_k + dt_k r / (1 - r)`` in sustained contact; a flight shorter
        than ``min_flight`` (1e-9 s) also closes the contact. ``False`` turns it off.
    event_tol : float
        Relative time tolerance of event location (1e-10).
    gap_tol, vel_tol : float
        A contact with ``g <= gap_tol`` touches; normal / sliding speeds below ``vel_tol``
        count as zero.
    rest_velocity : float, optional
        Velocity resolution of impacts: after ``rest_impacts`` (2) successive impacts with
        pre-impact normal speeds below it, the set of contacts involved is snapped to rest
        (plastic impact on all of them, gaps and normal speeds projected to zero, sustained
        contact from there; an ``"accumulation"`` event with ``reason="rest"`` per
        contact). Default ``2 sqrt(2 a_n gap_tol)`` per contact, ``a_n`` its free normal
        acceleration (about 9e-4 m/s under gravity): the limit cycle of a body dropping
        through the gap threshold and bounced back by the contact stabilization.
        ``rest_impacts=0`` turns it off.
    contact_stabilization : (alpha, beta, gamma)
        Baumgarte gains of the closed contacts: ``g'' = -2 alpha g' - beta^2 g`` (normal),
        ``v_t' = -gamma v_t`` (sticking).
    samples_per_window : int
        Sub-samples per integration window where event functions are checked (4).
    max_events : int
        Stop with :class:`mechdae.SolverError` after this many events.
    energy_gain : {"fallback", "raise"}
        When Newton's law with friction would increase the kinetic energy (Kane's
        paradox): solve the impact with the energy-limited law (restitution scaled down
        to the largest value that does not gain energy) and record an
        ``"energy_fallback"`` event (``extra``: ``scale``, ``dT_newton``, ``dT``,
        ``energy_newton``, ``contacts``), default; or raise
        :class:`mechdae.EnergyGainError`. See :mod:`mechdae.contact.energetic`.
    max_step : float, optional
        Largest window of one integrator call (s; default ``MAX_WINDOW`` = 0.2 s, a fixed
        value independent of ``t_final``); events are looked for at
        ``samples_per_window`` sub-samples of each window.
    n_out : int
        Output points when ``output_times`` is not given (event states are added, before
        and after each event, at equal times).

    Returns
    -------
    Result
        ``res.events`` (impact, liftoff, stick, slide, close, accumulation, painleve),
        ``res.contact_forces[name]`` (N, 1 + n_tangent) forces ``[lambda_n, lambda_t]``,
        ``res.modes`` (mode string per output point).

    Raises
    ------
    PainleveError
        A Painlevé inconsistency with ``painleve="raise"``.
    SolverError
        Too many events or no progress. Every SolverError (PainleveError and
        EnergyGainError included) carries ``err.partial``, the Result up to the failure.

    Examples
    --------
    >>> sys = md.load("models/bouncing_ball.py").compile()          # doctest: +SKIP
    >>> res = sys.simulate(5.0, method="event")                       # doctest: +SKIP
    >>> [e.kind for e in res.events][-1]                              # doctest: +SKIP
    'accumulation'
    """
    wall0 = _time.perf_counter()
    opts = dict(DEFAULTS)
    unknown = set(options) - set(opts)
    if unknown:
        raise TypeError(f"simulate(method='event'): unknown option(s) {sorted(unknown)}; "
                        f"options: {', '.join(sorted(opts))}")
    opts.update(options)
    if opts["painleve"] not in ("raise", "impact"):
        raise ValueError(f"painleve: must be 'raise' or 'impact', got {opts['painleve']!r}")
    specs = resolve_inputs(system, inputs)
    pv = system.param_vector(params)
    H, K, _ = stabilization_matrices(system, stabilization)
    ts = _output_grid(t_final, output_times, opts["n_out"])
    x0, init_report = _initial_state(system, q0, v0, ts[0], pv, initialize)
    eng = EventEngine(system, specs, pv, H, K, rtol, atol, opts)
    # a failure leaves with the Result of the points recorded so far (err.partial)
    on_failure(lambda err: build_result(seeded(eng, ts[0], x0), system, specs, pv, H, K,
                                        dict(method="event", rtol=rtol, atol=atol),
                                        init_report, wall0))
    try:
        eng.start(ts[0], x0)
        eng.advance(ts[-1], ts)
    except RuntimeError as exc:
        if isinstance(exc, SolverError):
            raise
        raise SolverError(f"{system.name}: event-driven integration failed at t = "
                          f"{eng.__dict__.get('t', ts[0]):.12g}: {exc}") from exc
    stats = dict(method="event", rtol=rtol, atol=atol)
    return build_result(eng, system, specs, pv, H, K, stats, init_report, wall0)


register_method("event", keeps_partial(simulate_event))
