r"""Phase integration: the compiled functions of one mode (cached on the System).

Between events the contacts of the current mode enter as bilateral constraints (see
:mod:`mechdae.simulate.event`); each mode's ``core(x, t, P) -> (x', lam_c, e, e')`` is
compiled to C (:meth:`ModeSet.compiled`, :mod:`.compiled`) for the C integrator, or
integrated by a CasADi cvodes integrator over a *window* returning the states at ``K``
sub-samples with the mode's *event functions* and their rates, all in one call
(:class:`ModeSet`). The runtime parameter vector is ``P = (t0, T, p, vec H, vec K, w, d)``
(:func:`_layout`).
"""
import casadi as ca
import numpy as np

from ..._threads import LOCK as _LOCK
from ..inputs import input_mx
from .._laws import laws_function
from ...symbolic.linalg import REG, REFINE

__all__ = ["ModeSet", "Buffered", "offsets", "terms_function", "OPEN", "CLOSED", "STICK", "SLIDE_POS", "SLIDE_NEG", "SLIDE_2D",
           "SLIDING"]


OPEN, CLOSED, STICK, SLIDE_POS, SLIDE_NEG = "o", "n", "k", "+", "-"
SLIDE_2D = "s"          # sliding on a contact with two tangent directions
SLIDING = (SLIDE_POS, SLIDE_NEG, SLIDE_2D)
# spatial sliding: the friction direction is (v_t + EPS_DIR d) / |v_t + EPS_DIR d| with d the
# phase's reference direction (a runtime parameter); the shift only matters when a slide
# starts from rest (v_t ~ 0: it starts along d, the direction the contact problem found)
EPS_DIR = 1e-12
# Painlevé's jam: the event of a sliding contact fires at U / D_nn = JAM_ETA (see
# _jam_function); the angle of the rod is then within 2e-11 rad of the root of U
JAM_ETA = 1e-10


def regularized_solve(S, rhs, method="ldl", reg=REG, refine=REFINE):
    """``S X = rhs`` by the iterated Tikhonov regularization of
    :func:`mechdae.symbolic.linalg.regularized_solve` (the smooth path's solve), with
    ``method`` "ldl" (S symmetric PSD) or "qr" (S not symmetric: sliding contacts)."""
    r = S.shape[0]
    A = S + (reg * ca.trace(S) / r + 1e-300) * ca.MX.eye(r)
    X = ca.solve(A, rhs, method)
    for _ in range(refine):
        X = X + ca.solve(A, rhs - ca.mtimes(S, X), method)
    return X


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


def _jam_function(S, k, r, i, mo, dref, dnn):
    r"""Event function of Painlevé's jam at the sliding contact ``i`` (row ``k`` of ``S``).

    ``U = S_kk - S_kC S_CC^+ S_Ck``: the coefficient of ``lam_n`` in the normal acceleration
    while sliding, the ``r`` bilateral constraints kept (the ``U`` of
    :mod:`mechdae.simulate._painleve`). The contact force ``-F/U`` grows without bound
    where ``U`` passes through 0, and the integration cannot step across (the
    accelerations grow like ``1/U``), so the function ``sigma U / D_nn - JAM_ETA`` fires just
    before: ``D_nn = w_n M^-1 w_n^T > 0`` the frictionless compliance (a scale),
    ``sigma = dref[2 i]`` the sign of ``U`` at the phase start (-1 on the ``"stay"`` branch of
    an indeterminate case; 0 reads as +1; spatial sliding: +1)."""
    Uk = S[k, k]
    if r:
        Uk = Uk - ca.mtimes(S[k, :r], regularized_solve(S[:r, :r], S[:r, k], "ldl"))
    sig = 1.0 if mo == SLIDE_2D else ca.if_else(dref[2 * i] < 0, -1.0, 1.0)
    return sig * Uk / dnn - JAM_ETA


def offsets(system):
    offs, o = [], 0
    for c in system.contacts:
        offs.append(o)
        o += 1 + c["n_tangent"]
    return offs


class Buffered:
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


def _symbols(system, specs):
    """Symbols ``x = (q, u, v)``, ``t``, ``P`` and the model's terms at them."""
    F = system.functions
    nq, nu, nv = system.nq, system.nu, system.nv
    _, _, _, nP = _layout(system)
    x = ca.MX.sym("x", nq + nu + nv)
    t = ca.MX.sym("t")
    P = ca.MX.sym("P", nP)
    p, H, K, wc, dref = _split_P(system, P)
    w = input_mx(system, specs, t, wc)
    q, u, v = x[:nq], x[nq:nq + nu], x[nq + nu:]
    vd, z = system.extras_mx(q, u, v, t, p, w)
    return x, t, P, dict(q=q, u=u, v=v, p=p, H=H, K=K, dref=dref, vd=vd, z=z,
                         M=F["M"](q, p), h=F["h"](q, u, v, z, t, p, w))


def _mode_rows(system, F, mode, gains, q, u, t, p, H, K, dref):
    r"""The constraint rows of one mode: the bilateral constraints and the closed contacts.

    Rows ``A`` of the constrained accelerations ``A u' = rhs`` (stabilized: ``H y + K z - c``
    for the bilateral constraints, ``-2 alpha v_n - beta^2 g - \dot w_n u`` normal,
    ``-gamma v_t - \dot w_t u`` sticking) and the rows ``F`` along which their forces act
    (``w_n - mu s w_t`` sliding, ``w_n - mu e^T W_t`` spatial sliding).

    Returns
    -------
    A_rows, F_rows, rhs : lists of MX rows
    n_idx, t_idx : dict, the position in ``Lambda`` of each closed contact's normal and
        sticking tangential unknowns
    dirs : dict, the friction direction of each spatial sliding contact
    kin : dict with ``W``, ``Wd``, ``Vc``, ``g``, ``mu_eff`` (empty without contacts)
    """
    A_rows, F_rows, rhs = [], [], []
    if system.m + system.k:
        y, zc, C, c = F["constraints"](q, u, t, p)
        A_rows.append(C)
        F_rows.append(C)
        rhs.append(ca.mtimes(H, y) + ca.mtimes(K, zc) - c)
    ncr = sum(1 + c["n_tangent"] for c in system.contacts)
    alpha, beta, gamma = gains
    kin = {}
    if ncr:
        W = F["W"](q, t, p)
        Wd = F["Wdot_u"](q, u, t, p)
        # contact velocities v_c = W u + Wt (Wt: moving surfaces; skipped when scleronomic)
        Vc = ca.mtimes(W, u) + F["Wt"](q, t, p) if system.rheonomic else ca.mtimes(W, u)
        g = F["gap"](q, t, p)
        _, _, mu = laws_function(system)(p)
        mu_eff = ca.fmin(mu, 1e300)
        kin = dict(W=W, Wd=Wd, Vc=Vc, g=g, mu_eff=mu_eff)
    offs = offsets(system)
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
    return A_rows, F_rows, rhs, n_idx, t_idx, dirs, kin


def _mode_accelerations(system, mode, M, h, A_rows, F_rows, rhs):
    r"""Multipliers and accelerations of one mode: ``M u' = h + F^T Lambda``,
    ``A u' = rhs``, so ``S Lambda = rhs - A M^{-1} h`` with ``S = A M^{-1} F^T``.

    Returns
    -------
    Lam : MX, the multipliers (bilateral, then the closed contacts' unknowns)
    ud : MX, ``u'``
    S : MX or None, ``A M^{-1} F^T`` (None without constraint rows)
    """
    S = None
    if A_rows:
        A = ca.vertcat(*A_rows)
        Fm = ca.vertcat(*F_rows)
        X = ca.solve(M, ca.horzcat(h, Fm.T), "ldl")
        Mih, MiFt = X[:, 0], X[:, 1:]
        S = ca.mtimes(A, MiFt)
        # S = A M^-1 F^T loses rank for singular constraint sets (the Darboux branch
        # point, seed 004) and redundant contact sets (a block on two sticking corners).
        # With bilateral constraints: the iterated Tikhonov solve of the smooth path
        # (symbolic.linalg), minimum-norm multipliers with G^T lam finite through the
        # rank drop; contacts alone: one solve of S + 1e-13 mean|diag S| I (a seventh
        # of the cost). LDL when S is symmetric PSD (no sliding contact), QR otherwise
        sym = all(mo in (OPEN, CLOSED, STICK) for mo in mode)
        R = ca.vertcat(*rhs) - ca.mtimes(A, Mih)
        if system.m + system.k:
            Lam = regularized_solve(S, R, method="ldl" if sym else "qr")
        else:
            nA = A.size1()
            eps = 1e-13 * ca.sum1(ca.fabs(ca.diag(S))) / nA + 1e-300
            Lam = ca.solve(S + eps * ca.MX.eye(nA), R, "ldl" if sym else "qr")
        ud = Mih + ca.mtimes(MiFt, Lam)
    else:
        Lam = ca.MX(0, 1)
        ud = ca.solve(M, h, "ldl")
    return Lam, ud, S


def _mode_events(system, mode, kin, M, S, Lam, n_idx, t_idx, dirs, dref):
    """Contact forces and event functions of one mode.

    Returns
    -------
    lam_parts : list of MX, ``(lambda_n, lambda_t)`` per contact (zeros when open)
    ev : list of MX, the event functions (positive while the mode holds)
    desc : list of ``(contact, kind)``, kind ``"gap"``, ``"lift"``, ``"vt"``, ``"cone"``
        or ``"painleve"``
    """
    offs = offsets(system)
    lam_parts, ev, desc = [], [], []
    for i, (cinfo, mo) in enumerate(zip(system.contacts, mode)):
        o, nt = offs[i], cinfo["n_tangent"]
        if mo == OPEN:
            lam_parts.append(ca.MX.zeros(1 + nt))
            ev.append(kin["g"][i])
            desc.append((i, "gap"))
            continue
        mu_eff, Vc = kin["mu_eff"], kin["Vc"]
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
        if mo in SLIDING and S is not None:
            wn = kin["W"][o, :]
            dnn = ca.mtimes(wn, ca.solve(M, wn.T, "ldl"))
            ev.append(_jam_function(S, n_idx[i], system.m + system.k, i, mo, dref, dnn))
            desc.append((i, "painleve"))
    return lam_parts, ev, desc


def _mode_core(system, specs, mode, gains):
    """``core(x, t, P) -> (xdot, lam_c, events)`` for one mode, and the event descriptors:
    its constraint rows (:func:`_mode_rows`), accelerations (:func:`_mode_accelerations`),
    contact forces and event functions (:func:`_mode_events`)."""
    F = system.functions
    x, t, P, s = _symbols(system, specs)
    q, u, p, H, K, dref, vd, M, h = (s[k] for k in ("q", "u", "p", "H", "K", "dref", "vd",
                                                     "M", "h"))
    A_rows, F_rows, rhs, n_idx, t_idx, dirs, kin = _mode_rows(system, F, mode, gains, q, u,
                                                              t, p, H, K, dref)
    Lam, ud, S = _mode_accelerations(system, mode, M, h, A_rows, F_rows, rhs)
    qd = F["kinematics"](q, u, p)
    # contact forces (normal, tangential...) per contact, zeros when open
    lam_parts, ev, desc = _mode_events(system, mode, kin, M, S, Lam, n_idx, t_idx, dirs, dref)
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

    The phase is integrated in C where a compiler works (:meth:`compiled`: generated C of
    the right-hand side, event functions and contact forces, driven by
    ``csrc/mdae_ode.c``), else by the cvodes ``window`` and ``shoot`` integrators (built on
    first use).

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
        # scalar (SX) form where the mode's expressions have one: the integrator's
        # right-hand side and the event functions evaluate 3-4x faster (and compile to C)
        try:
            core = core.expand()
            self.scalar = True
        except Exception:   # noqa: BLE001 - no SX form (external calls): keep MX
            self.scalar = False
        self.core, self.desc = core, desc
        self.system, self.K = system, K
        self._cv = (rtol, atol, dict(opts))
        self._window = self._shoot = None
        self._fmap = None
        self._compiled = False        # not tried yet (None: unavailable)

    @property
    def window(self):
        if self._window is None:
            self._build_cvodes()
        return self._window

    @property
    def shoot(self):
        if self._shoot is None:
            self._build_cvodes()
        return self._shoot

    def compiled(self):
        """The mode's generated C (:class:`.compiled.CompiledMode`), or None when no
        compiler works or the graph has no C form."""
        if self._compiled is False:
            with _LOCK:
                if self._compiled is False:
                    from .compiled import CompiledMode
                    try:
                        self._compiled = CompiledMode.build(self.system, self.mode,
                                                            self.core, self.desc)
                    except RuntimeError:   # no C for an operation of the graph
                        self._compiled = None
        return self._compiled

    def _build_cvodes(self):
        """The cvodes window and shoot integrators (built on first use: a mode integrated
        in C never needs them)."""
        with _LOCK:
            if self._window is not None:
                return
            system, core, K = self.system, self.core, self.K
            rtol, atol, opts = self._cv
            sym = ca.SX.sym if self.scalar else ca.MX.sym
            nx = system.nq + system.nu + system.nv
            _, _, _, nP = _layout(system)
            # the integrated state is the excursion z = x - x0 from the window's initial
            # state (a parameter): cvodes' relative tolerance then applies to the motion
            # within the window, not to the coordinates' magnitude (a bounce of 1e-8 m at
            # y = 0.1 m keeps its relative accuracy, and so its flight time)
            z = sym("z", nx)
            tau = sym("tau")
            P = sym("P", nP)
            xa = sym("xa", nx)
            xdot = core(xa + z, P[0] + tau * P[1], P)[0]
            dae = dict(x=z, t=tau, p=ca.vertcat(P, xa), ode=P[1] * xdot)
            o = dict(abstol=atol, reltol=rtol, max_num_steps=100000)
            mode = self.mode
            if all(mo == OPEN for mo in mode) and not system.m + system.k:
                # free flight of an unconstrained system: non-stiff, Adams is cheaper than
                # BDF and more accurate at the same tolerances (ball: 2.8 vs 4.4 ms per 10
                # windows, free-fall error 1e-10 vs 5e-10)
                o["linear_multistep_method"] = "adams"
            o.update(opts)
            grid = [j / K for j in range(1, K + 1)]
            tag = "m" + mode.replace("+", "p").replace("-", "m")
            from ..smooth import casadi_name
            name = casadi_name(system.name)
            Ik = ca.integrator(f"{name}_{tag}_win", "cvodes", dae, 0.0, grid, o)
            I1 = ca.integrator(f"{name}_{tag}_shoot", "cvodes", dae, 0.0, [1.0], o)
            x0 = ca.MX.sym("x0", nx)
            Ps = ca.MX.sym("Ps", nP)
            X = ca.repmat(x0, 1, K) + Ik(x0=ca.MX.zeros(nx), p=ca.vertcat(Ps, x0))["xf"]
            ts = Ps[0] + Ps[1] * ca.DM(grid).T
            Xd, _, E, Ed = core.map(K)(X, ts, ca.repmat(Ps, 1, K))
            xf = x0 + I1(x0=ca.MX.zeros(nx), p=ca.vertcat(Ps, x0))["xf"]
            _, _, ef, efd = core(xf, Ps[0] + Ps[1], Ps)
            self._shoot = ca.Function("shoot", [x0, Ps], [xf, ef, efd])
            self._window = ca.Function("window", [x0, Ps], [X, E, Xd, Ed])

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


def terms_function(system, specs):
    """``terms(x, t, P) -> (M, h, C, rc, W, Wt, Wdot_u, gap, E, MiX)`` for the contact
    problems (``MiX = M^-1 [h, C^T, W^T]``)."""
    F = system.functions
    x, t, P, s = _symbols(system, specs)
    q, u, p, H, K, M, h = (s[k] for k in ("q", "u", "p", "H", "K", "M", "h"))
    nu = system.nu
    if system.m + system.k:
        y, zc, C, c = F["constraints"](q, u, t, p)
        rc = ca.mtimes(H, y) + ca.mtimes(K, zc) - c
    else:
        C, rc = ca.MX(0, nu), ca.MX(0, 1)
    Tk, Vp = F["energy"](q, u, t, p)
    W = F["W"](q, t, p)
    # M^-1 [h, C^T, W^T]: the contact space's one factorization (modes.contact_space)
    MiX = ca.solve(M, ca.horzcat(h, C.T, W.T), "ldl")
    f = ca.Function("terms", [x, t, P],
                    [M, h, C, rc, W, F["Wt"](q, t, p), F["Wdot_u"](q, u, t, p),
                     F["gap"](q, t, p), Tk + Vp, MiX],
                    ["x", "t", "P"], ["M", "h", "C", "rc", "W", "Wt", "Wdot_u", "gap", "E",
                                      "MiX"])
    try:
        return f.expand()          # scalar (SX) form: 3-4x faster to evaluate
    except Exception:   # noqa: BLE001 - operations without an SX form (external calls)
        return f


