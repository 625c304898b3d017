r"""One hybrid step at a time, with its derivatives: the phases of a mode up to the next
event (an impact, or a lift-off where a closed contact's normal force reaches zero) and the
jumps there, for shooting on Poincaré maps (:mod:`mechdae.analysis.orbits`) and
sensitivities (:mod:`mechdae.analysis.sensitivity`).

A phase integrates the mode's constrained dynamics (:class:`~mechdae.analysis._mode.Mode`,
closed contacts as constraints, a mild Baumgarte rate against drift) with CVODES, its
state-transition matrix ``Phi`` from CVODES' forward sensitivities; it ends where the gap
of an open contact reaches zero (located by Brent's method on the integrated gap).  The
impact with active set ``A`` (contacts with an impulse, sticking ones with their tangent
rows) is Newton's law on those rows,

.. math::

    u^+ = u^- + M^{-1} W_A^T \Lambda, \qquad
    W_A M^{-1} W_A^T \Lambda = -(I + E)(W_A u^- + w_A),

checked against :meth:`System.impact` (the C kernel) at every event; its Jacobian
``D Delta`` is exact (CasADi).  Across the event at the guard ``g(q) = 0`` the
perturbations jump by the saltation matrix

.. math::

    S = D\Delta + \frac{(f^+ - D\Delta f^-)\, \nabla g^T}{\nabla g^T f^-},

and the Poincaré map (variable event time) by ``D Delta (I - f^- grad g^T / grad g^T f^-)``.
With parameter sensitivities the state is augmented by the chosen parameters (``p' = 0``):
the same formulas hold for ``(x, p)``, the gap, the impact law and the flow depending on
``p``, and the event time moves by ``dt = -grad g^T dX^- / grad g^T f^-``.
"""
from types import SimpleNamespace

import casadi as ca
import numpy as np

from ._mode import Mode, closed_contacts, contact_row_offsets

__all__ = ["HybridSteps"]


class HybridSteps:
    """Phases and impacts of ``system`` at fixed parameters and constant inputs.

    Parameters
    ----------
    system : System
    pv, wv : arrays
        Parameter and input values.
    rtol : float
        CVODES tolerance (relative and absolute).
    alpha : float
        Baumgarte rate of the phases (``beta = alpha``): the constraint manifold is
        invariant and attracting; the tangent dynamics do not depend on it.
    sens : list of int
        Parameters (indices in ``system.p_names``) whose sensitivities the phases and
        impacts carry: the transition matrices are then those of ``(x, p_sens)``.
    caller : str
        The public call named in error messages.
    """

    def __init__(self, system, pv, wv, rtol=1e-12, alpha=5.0, sens=(), caller="periodic_orbit"):
        from ..simulate._laws import contact_laws
        self.sy, self.pv, self.wv = system, np.asarray(pv, float), np.asarray(wv, float)
        self.rtol, self.alpha, self.caller = rtol, alpha, caller
        self.sens = list(sens)
        self.e_n, self.e_t, self.mu = contact_laws(system, self.pv)
        self.params = dict(zip(system.p_names, self.pv))
        # a model depending explicitly on time (a vibrating table, a forcing input) carries
        # the time as one more state, t' = 1: x = (q, u, t), and the formulas hold as for an
        # autonomous system (saltation, Poincaré map with the time of the section free)
        self.timed = time_dependent(system)
        self.nqu = system.nq + system.nu
        self.nx = self.nqu + self.timed
        self.na = self.nx + len(self.sens)
        self._flows, self._resets = {}, {}
        # parameters in the graphs: constants (folded by CasADi), the sensitivity ones
        # symbols ``ps``
        self._ps = ca.SX.sym("ps", len(self.sens))
        self._psv = self.pv[self.sens] if self.sens else np.zeros(0)
        self._p = ca.SX(ca.DM(self.pv))
        for j, i in enumerate(self.sens):
            self._p[i] = self._ps[j]
        x = ca.SX.sym("x", self.nx)
        gap = system.functions["gap"](x[:system.nq], self.time(x), self._p)
        self._gapf = ca.Function("gap", [x, self._ps], [gap, ca.jacobian(gap, x),
                                                       ca.jacobian(gap, self._ps)])

    def time(self, x):
        """The time in a state ``x`` (its last entry for a timed model, else 0)."""
        return x[self.nqu] if self.timed else 0.0

    def _gap(self, x):
        """``(gap, d gap/dx, d gap/dp_sens)`` at the state ``x``."""
        return self._gapf(x, self._psv)

    def _augment(self, Jx, Jp):
        """``[[Jx, Jp], [0, I]]``: the transition of ``(x, p_sens)``."""
        A = np.eye(self.na)
        A[:self.nx, :self.nx] = Jx
        A[:self.nx, self.nx:] = Jp
        return A

    # ------------------------------------------------------------------ flows
    def mode_of(self, x, contacts=None):
        """Contact modes at ``x`` (closed where the gap and the normal velocity vanish)."""
        nq = self.sy.nq
        return closed_contacts(self.sy, x[:nq], x[nq:self.nqu], float(self.time(x)), self.pv,
                               contacts, tol=1e-8)

    def flow(self, mode):
        """Cached Functions of a mode: ``rhs(x) -> (f, lam)``, ``phase(x0, tau) -> x``,
        ``phase_jac(x0, tau) -> (x, Phi)`` (``Phi`` of ``(x, p_sens)``), ``cons(x) -> (y,
        z, dy/dx, dz/dx, dy/dp_sens, dz/dp_sens)`` and the :class:`Mode` ``mode``."""
        key = tuple(sorted(mode.items()))
        if key not in self._flows:
            self._flows[key] = self._build_flow(mode)
        return self._flows[key]

    def _build_flow(self, mode):
        md_ = Mode(self.sy, mode, self.pv)
        x, tau, p, ps = ca.SX.sym("x", self.nx), ca.SX.sym("tau"), self._p, self._ps
        w, xm, t = ca.DM(self.wv), x[:self.nqu], self.time(x)
        one = [ca.SX(1.0)] if self.timed else []
        f0, lam, y, z, _ = md_.graphs(xm, t, p, w)
        fs = md_.graphs(xm, t, p, w, self.alpha, self.alpha)[0]
        f0, fs = ca.vertcat(f0, *one), ca.vertcat(fs, *one)
        rhs = ca.Function("rhs", [x, ps], [f0, lam])
        cons = ca.Function("cons", [x, ps], [y, z, ca.jacobian(y, x), ca.jacobian(z, x),
                                             ca.jacobian(y, ps), ca.jacobian(z, ps)])
        opts = dict(abstol=self.rtol, reltol=self.rtol, max_num_steps=100000)
        integ = ca.integrator("phase", "cvodes", {"x": x, "p": ca.vertcat(tau, ps),
                                                  "ode": tau * fs}, 0.0, 1.0, opts)
        X0, T = ca.MX.sym("X0", self.nx), ca.MX.sym("T")   # calls of the integrator: MX
        Ps = ca.MX.sym("Ps", len(self.sens))
        xf = integ(x0=X0, p=ca.vertcat(T, Ps))["xf"]
        # one Jacobian of (x0, p_sens) jointly: CasADi's forward sensitivities of CVODES
        J = ca.jacobian(xf, ca.vertcat(X0, Ps))
        jac = ca.Function("phase_jac", [X0, T, Ps], [xf, J[:, :self.nx], J[:, self.nx:]])
        phase = ca.Function("phase", [X0, T, Ps], [xf])
        psv = self._psv
        rows = [self.sy.m + j for j in range(len(md_._normal))]
        ln = ca.vertcat(*[lam[r] for r in rows]) if rows else ca.SX(0, 1)
        lamn = ca.Function("lamn", [x, ps], [ln, ca.jacobian(ln, x), ca.jacobian(ln, ps)])
        return SimpleNamespace(
            mode=md_, rhs=lambda xx: rhs(xx, psv), cons=lambda xx: cons(xx, psv),
            normals=[i for i, _ in md_._normal], lamn=lambda xx: lamn(xx, psv),
            phase=lambda x0, t: np.array(phase(x0, t, psv)).ravel(),
            phase_jac=lambda x0, t: _augmented(self, jac(x0, t, psv)))

    def phase(self, x0, mode, t_max, dt, stops=()):
        """Integrate ``mode`` from ``x0`` to its first event (at most ``t_max``): an impact
        (the gap of an open contact reaches zero) or a lift-off (the normal force of a
        closed contact reaches zero).

        Parameters
        ----------
        stops : sequence of float
            Times after the start (increasing) where the transition matrix is wanted.

        Returns
        -------
        tau, x_minus, event, Phi, at_stops
            ``event`` is ``("impact", i)``, ``("liftoff", i)`` (contact index) or None
            when nothing happens before ``t_max``; ``Phi`` is the transition matrix of
            ``(x, p_sens)`` to ``tau``; ``at_stops`` a list of ``(x, Phi)`` at the
            ``stops`` before ``tau``.

        Raises
        ------
        ValueError
            A sticking contact leaves its friction cone during the phase (stick-slip
            transitions are not followed).
        """
        fl = self.flow(mode)
        open_ = [i for i, n in enumerate(self.sy.contact_names) if mode[n] == "open"]
        t, x = 0.0, np.asarray(x0, float)
        g, ln = self._gaps(x), self._normal_forces(fl, x)
        tau, ev = t_max, None
        while t < t_max:
            h = min(dt, t_max - t)
            xn = fl.phase(x, h)
            gn, lnn = self._gaps(xn), self._normal_forces(fl, xn)
            self._check_forces(fl, xn, t + h)
            hit = [(self._locate(fl.phase, x, h, i), "impact", i) for i in open_
                   if gn[i] < 0.0 and g[i] >= -1e-10 and
                   not (abs(g[i]) <= 1e-10 and self._rate(x, i) >= 0)]
            hit += [(self._locate_liftoff(fl, x, h, j), "liftoff", i)
                    for j, i in enumerate(fl.normals) if lnn[j] < 0.0 <= ln[j]]
            if hit:
                tau, kind, i = min(hit)
                ev = (kind, i)
                x, tau = fl.phase(x, tau), t + tau
                break
            t, x, g, ln = t + h, xn, gn, lnn
        # transition matrices: CVODES' sensitivities from the phase's start, through the
        # stops (the state at the event: the located one, its gap zero)
        Phi, at, xs, ts = np.eye(self.na), [], np.asarray(x0, float), 0.0
        for tk in [s_ for s_ in stops if s_ <= tau] + [tau]:
            if tk > ts:
                xs, P = fl.phase_jac(xs, tk - ts)
                Phi, ts = P @ Phi, tk
            at.append((xs, Phi))
        return tau, x, ev, Phi, at[:-1]

    def _gaps(self, x):
        return np.array(self._gap(x)[0]).ravel()

    def _rate(self, x, i):
        nq = self.sy.nq
        dg = np.array(self._gap(x)[1])[i]
        qd = np.array(self.sy.functions["kinematics"](x[:nq], x[nq:self.nqu], self.pv)).ravel()
        return float(dg[:nq] @ qd + (dg[self.nqu] if self.timed else 0.0))

    def _locate(self, phase, x, h, i):
        """Zero of the gap of contact ``i`` on ``(0, h)`` (Newton with the gap's rate,
        kept inside the bracket, bisection when a step leaves it)."""
        lo, hi, tau = 0.0, h, h
        for _ in range(60):
            xt = phase(x, tau)
            g = self._gaps(xt)[i]
            if g > 0.0:
                lo = tau
            else:
                hi = tau
            if abs(g) < 1e-15 or hi - lo < 1e-15:
                break
            rate = self._rate(xt, i)
            step = tau - g / rate if rate != 0.0 else 0.5 * (lo + hi)
            tau = step if lo < step < hi else 0.5 * (lo + hi)
        return tau

    def _normal_forces(self, fl, x):
        return np.array(fl.lamn(x)[0]).ravel()

    def _locate_liftoff(self, fl, x, h, j):
        """Zero of the normal force ``j`` of the mode on ``(0, h)`` (Illinois method)."""
        def f(tau):
            return self._normal_forces(fl, fl.phase(x, tau))[j]
        a, b, fa, fb = 0.0, h, f(0.0), f(h)
        side = 0
        for _ in range(100):
            c = (a * fb - b * fa) / (fb - fa)
            fc = f(c)
            if fc >= 0.0:
                a, fa = c, fc
                fb = fb / 2 if side == 1 else fb
                side = 1
            else:
                b, fb = c, fc
                fa = fa / 2 if side == -1 else fa
                side = -1
            if b - a < 1e-15 or abs(fc) < 1e-14:
                break
        return c

    def _check_forces(self, fl, x, t):
        if fl.mode.nz == 0:
            return
        lam = np.array(fl.rhs(x)[1]).ravel()
        for name, (ln, lt) in fl.mode.contact_multipliers(lam).items():
            i = self.sy.contact_names.index(name)
            if lt and ln > 0.0 and np.linalg.norm(lt) > self.mu[i] * ln * (1 + 1e-9):
                raise ValueError(f"{self.caller}: contact '{name}' of model '{self.sy.name}' "
                                 f"starts to slip at t = {t:.6g} s; stick-slip "
                                 "transitions are not followed (only impacts)")

    # ------------------------------------------------------------------ events
    def event(self, x_minus, mode, ev):
        """The jump at an event ``("impact" | "liftoff", contact index)``."""
        kind, i = ev
        return self.impact(x_minus, mode, i) if kind == "impact" else \
            self.liftoff(x_minus, mode, i)

    def liftoff(self, x, mode, i):
        """Contact ``i`` opens where its normal force vanishes: no jump of the state, the
        saltation ``S = I + (f^+ - f^-) grad lam_n^T / grad lam_n^T f^-``."""
        name = self.sy.contact_names[i]
        fl = self.flow(mode)
        j = fl.normals.index(i)
        _, lx, lp = fl.lamn(x)
        dh = np.concatenate([np.array(lx)[j], np.array(lp)[j]])
        return self._jumps(x, x, mode, {**mode, name: "open"}, np.eye(self.na), dh)

    def impact(self, x_minus, mode, c):
        """The impact at ``x_minus`` when contact ``c`` closes.

        Returns
        -------
        SimpleNamespace
            ``x`` and ``mode`` after it; ``S`` the saltation matrix and ``DP`` the jump of
            the event-to-event map, both of ``(x, p_sens)``; ``dt`` the row with
            ``d t_event = dt @ dX^-`` (the event time's sensitivity).
        """
        sy, nq = self.sy, self.sy.nq
        q, u = x_minus[:nq], x_minus[nq:self.nqu]
        closed = [n for n, k in mode.items() if k != "open"]
        out = sy.impact(q, u, params=self.params, active=closed + [sy.contact_names[c]],
                        t=float(self.time(x_minus)))
        if out.status != "unique":
            raise ValueError(f"{self.caller}: the impact of contact '{sy.contact_names[c]}' "
                             f"of model '{sy.name}' is {out.status}")
        active = tuple(sorted((n, k) for n, k in out.modes.items() if k != "separate"))
        if any(k == "slide" and self.mu[sy.contact_names.index(n)] != 0.0 for n, k in active):
            raise ValueError(f"{self.caller}: impact of model '{sy.name}' with sliding "
                             f"contacts {[n for n, k in active if k == 'slide']}: sliding "
                             "impacts are not followed (stick or frictionless only)")
        reset = self._resets.get(active)
        if reset is None:
            reset = self._resets[active] = self._build_reset(active)
        try:
            xp, Dx, Dp = (np.array(a) for a in reset(x_minus, self._psv))
        except RuntimeError:
            raise ValueError(f"{self.caller}: the impact map of model '{sy.name}' with "
                             f"active contacts {[n for n, _ in active]} is singular at this "
                             "state (redundant contact rows)") from None
        xp = xp.ravel()
        err = np.abs(xp[nq:self.nqu] - out.v_plus_array).max()
        if err > 1e-8 * (1.0 + np.abs(u).max()):
            raise ValueError(f"{self.caller}: the impact of model '{sy.name}' at contact "
                             f"'{sy.contact_names[c]}' differs from the kernel's by {err:.3g} "
                             f"(active set {active}); not a Newton impact on fixed rows")
        mode_p = self.mode_of(xp, {n: "open" for n, k in out.modes.items()
                                   if k == "separate"})
        _, gx, gp = self._gap(x_minus)
        dg = np.zeros(self.na)
        dg[:self.nx] = np.array(gx)[c]
        dg[self.nx:] = np.array(gp)[c]
        return self._jumps(x_minus, xp, mode, mode_p, self._augment(Dx, Dp), dg)

    def _jumps(self, x_minus, xp, mode, mode_p, Dd, dg):
        """Saltation matrix and map jump of ``(x, p_sens)`` at an event with guard
        gradient ``dg`` (of ``(x, p_sens)``) and reset Jacobian ``Dd``."""
        nx = self.nx
        fm, fp = np.zeros(self.na), np.zeros(self.na)
        fm[:nx] = np.array(self.flow(mode).rhs(x_minus)[0]).ravel()
        fp[:nx] = np.array(self.flow(mode_p).rhs(xp)[0]).ravel()
        rate = dg @ fm
        S = Dd + np.outer(fp - Dd @ fm, dg) / rate
        DP = Dd @ (np.eye(self.na) - np.outer(fm, dg) / rate)
        return SimpleNamespace(x=xp, mode=mode_p, S=S, DP=DP, dt=-dg / rate)

    def _build_reset(self, active):
        sy, nq = self.sy, self.sy.nq
        x, p = ca.SX.sym("x", self.nx), self._p
        q, u, t = x[:nq], x[nq:self.nqu], self.time(x)
        F = sy.functions
        offs = contact_row_offsets(sy)
        from ..simulate._laws import laws_function
        e_n, e_t, _ = laws_function(sy)(p)
        rows, E = [], []
        for name, kind in active:
            i = sy.contact_names.index(name)
            rows.append(offs[i])
            E.append(e_n[i])
            if kind == "stick":
                nt = int(sy.contacts[i]["n_tangent"])
                rows += list(range(offs[i] + 1, offs[i] + 1 + nt))
                E += [e_t[i]] * nt
        xp = x
        if rows:
            W = F["W"](q, t, p)[rows, :]
            wt = F["Wt"](q, t, p)[rows, :]
            MiWt = ca.solve(F["M"](q, p), W.T)
            vc = ca.mtimes(W, u) + wt
            Lam = ca.solve(ca.mtimes(W, MiWt), -(1.0 + ca.vertcat(*E)) * vc)
            xp = ca.vertcat(q, u + ca.mtimes(MiWt, Lam), x[self.nqu:])
        return ca.Function("reset", [x, self._ps], [xp, ca.jacobian(xp, x),
                                                    ca.jacobian(xp, self._ps)])


def time_dependent(sy):
    """Whether the model's equations or contacts depend explicitly on time."""
    d = sy._d
    exprs = [d.h, d.phi, d.psi, d.gap, d.W, d.Wt, d.A, d.b]
    return any(e.numel() and ca.depends_on(e, d.t) for e in exprs)


def _augmented(hy, out):
    xf, Jx, Jp = out
    return np.array(xf).ravel(), hy._augment(np.array(Jx), np.array(Jp))
