r"""One hybrid step at a time, with its derivatives: the phases of a mode up to the next
impact and the impact map, for shooting on Poincaré maps (:mod:`mechdae.analysis.orbits`).

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
"""
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
    """

    def __init__(self, system, pv, wv, rtol=1e-12, alpha=5.0):
        from ..simulate._laws import contact_laws
        self.sy, self.pv, self.wv = system, np.asarray(pv, float), np.asarray(wv, float)
        self.rtol, self.alpha = rtol, alpha
        self.e_n, self.e_t, self.mu = contact_laws(system, self.pv)
        self.params = dict(zip(system.p_names, self.pv))
        self.nx = system.nq + system.nu
        self._flows, self._resets = {}, {}
        F = system.functions
        q = ca.MX.sym("q", system.nq)
        gap = F["gap"](q, 0.0, ca.DM(self.pv))
        self._gap = ca.Function("gap", [q], [gap, ca.jacobian(gap, q)])

    # ------------------------------------------------------------------ flows
    def mode_of(self, x, contacts=None):
        """Contact modes at ``x`` (closed where the gap is zero and not separating)."""
        nq = self.sy.nq
        return closed_contacts(self.sy, x[:nq], x[nq:], 0.0, self.pv, contacts, tol=1e-8)

    def flow(self, mode):
        """Cached ``(rhs, phase, phase_jac, constraints)`` Functions of a mode."""
        key = tuple(sorted(mode.items()))
        if key not in self._flows:
            self._flows[key] = self._build_flow(mode)
        return self._flows[key]

    def _build_flow(self, mode):
        md_ = Mode(self.sy, mode, self.pv)
        x, tau = ca.SX.sym("x", self.nx), ca.SX.sym("tau")
        p, w = ca.DM(self.pv), ca.DM(self.wv)
        f0, lam, y, z, _ = md_.graphs(x, 0.0, p, w)
        fs = md_.graphs(x, 0.0, p, w, self.alpha, self.alpha)[0]
        rhs = ca.Function("rhs", [x], [f0, lam])
        opts = dict(abstol=self.rtol, reltol=self.rtol, max_num_steps=100000)
        integ = ca.integrator("phase", "cvodes", {"x": x, "p": tau, "ode": tau * fs},
                              0.0, 1.0, opts)
        X0, T = ca.MX.sym("X0", self.nx), ca.MX.sym("T")   # calls of the integrator: MX
        xf = integ(x0=X0, p=T)["xf"]
        phase = ca.Function("phase", [X0, T], [xf])
        phase_jac = ca.Function("phase_jac", [X0, T], [xf, ca.jacobian(xf, X0)])
        cons = ca.Function("cons", [x], [y, z, ca.jacobian(y, x), ca.jacobian(z, x)])
        return md_, rhs, phase, phase_jac, cons

    def phase(self, x0, mode, t_max, dt):
        """Integrate ``mode`` from ``x0`` to the first impact (at most ``t_max``).

        Returns ``(tau, x_minus, contact_index, Phi)``; ``contact_index`` is None when no
        contact closes before ``t_max``.

        Raises
        ------
        ValueError
            A closed contact pulls or leaves its friction cone during the phase (lift-off
            and slip transitions are not followed).
        """
        md_, rhs, phase, phase_jac, _ = self.flow(mode)
        open_ = [i for i, n in enumerate(self.sy.contact_names) if mode[n] == "open"]
        t, x = 0.0, np.asarray(x0, float)
        Phi = np.eye(self.nx)
        g = self._gaps(x)
        while t < t_max:
            h = min(dt, t_max - t)
            xn, Pn = (np.array(a) for a in phase_jac(x, h))
            xn = xn.ravel()
            gn = self._gaps(xn)
            self._check_forces(md_, rhs, xn, t + h)
            hit = [i for i in open_ if gn[i] < 0.0 and g[i] >= -1e-10 and
                   not (abs(g[i]) <= 1e-10 and self._rate(x, i) >= 0)]
            if hit:
                tau, c = min((self._locate(phase, x, h, i), i) for i in hit)
                xf, Pf = (np.array(a) for a in phase_jac(x, tau))
                return t + tau, xf.ravel(), c, Pf @ Phi
            t, x, g, Phi = t + h, xn, gn, Pn @ Phi
        return t_max, x, None, Phi

    def _gaps(self, x):
        return np.array(self._gap(x[:self.sy.nq])[0]).ravel()

    def _rate(self, x, i):
        nq = self.sy.nq
        dg = np.array(self._gap(x[:nq])[1])[i]
        qd = np.array(self.sy.functions["kinematics"](x[:nq], x[nq:], self.pv)).ravel()
        return float(dg @ qd)

    def _locate(self, phase, x, h, i):
        """Zero of the gap of contact ``i`` on ``(0, h)`` (Newton with the gap's rate,
        kept inside the bracket, bisection when a step leaves it)."""
        lo, hi, tau = 0.0, h, h
        for _ in range(60):
            xt = np.array(phase(x, tau)).ravel()
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

    def _check_forces(self, md_, rhs, x, t):
        if md_.nz == 0:
            return
        lam = np.array(rhs(x)[1]).ravel()
        for name, (ln, lt) in md_.contact_multipliers(lam).items():
            i = self.sy.contact_names.index(name)
            if ln < 0.0:
                raise ValueError(f"periodic_orbit: contact '{name}' of model '{self.sy.name}' "
                                 f"lifts off at t = {t:.6g} s in a phase (normal force "
                                 f"{ln:.4g}); orbits with lift-off transitions are not "
                                 "followed (only impacts)")
            if lt and np.linalg.norm(lt) > self.mu[i] * ln * (1 + 1e-9):
                raise ValueError(f"periodic_orbit: contact '{name}' of model '{self.sy.name}' "
                                 f"starts to slip at t = {t:.6g} s; orbits with stick-slip "
                                 "transitions are not followed (only impacts)")

    # ------------------------------------------------------------------ impacts
    def impact(self, x_minus, mode, c):
        """The impact at ``x_minus`` when contact ``c`` closes.

        Returns ``(x_plus, mode_plus, S, DP)``: post-impact state and mode, saltation
        matrix and the Jacobian of the event-to-event map's jump (variable event time).
        """
        sy, nq = self.sy, self.sy.nq
        q, u = x_minus[:nq], x_minus[nq:]
        closed = [n for n, k in mode.items() if k != "open"]
        out = sy.impact(q, u, params=self.params, active=closed + [sy.contact_names[c]])
        if out.status != "unique":
            raise ValueError(f"periodic_orbit: the impact of contact '{sy.contact_names[c]}' "
                             f"of model '{sy.name}' is {out.status}")
        active = tuple(sorted((n, k) for n, k in out.modes.items() if k != "separate"))
        if any(k == "slide" and self.mu[sy.contact_names.index(n)] != 0.0 for n, k in active):
            raise ValueError(f"periodic_orbit: impact of model '{sy.name}' with sliding "
                             f"contacts {[n for n, k in active if k == 'slide']}: sliding "
                             "impacts are not followed (stick or frictionless only)")
        reset = self._resets.get(active)
        if reset is None:
            reset = self._resets[active] = self._build_reset(active)
        try:
            xp, Dd = (np.array(a) for a in reset(x_minus))
        except RuntimeError:
            raise ValueError(f"periodic_orbit: the impact map of model '{sy.name}' with "
                             f"active contacts {[n for n, _ in active]} is singular at this "
                             "state (redundant contact rows)") from None
        xp = xp.ravel()
        err = np.abs(xp[nq:] - out.v_plus_array).max()
        if err > 1e-8 * (1.0 + np.abs(u).max()):
            raise ValueError(f"periodic_orbit: the impact of model '{sy.name}' at contact "
                             f"'{sy.contact_names[c]}' differs from the kernel's by {err:.3g} "
                             f"(active set {active}); not a Newton impact on fixed rows")
        mode_p = self.mode_of(xp, {n: "open" for n, k in out.modes.items()
                                   if k == "separate"})
        fm = np.array(self.flow(mode)[1](x_minus)[0]).ravel()
        fp = np.array(self.flow(mode_p)[1](xp)[0]).ravel()
        dg = np.zeros(self.nx)
        dg[:nq] = np.array(self._gap(q)[1])[c]
        rate = dg @ fm
        S = Dd + np.outer(fp - Dd @ fm, dg) / rate
        DP = Dd @ (np.eye(self.nx) - np.outer(fm, dg) / rate)
        return xp, mode_p, S, DP

    def _build_reset(self, active):
        sy, nq = self.sy, self.sy.nq
        x = ca.MX.sym("x", self.nx)
        q, u = x[:nq], x[nq:]
        p = ca.DM(self.pv)
        F = sy.functions
        offs = contact_row_offsets(sy)
        rows, E = [], []
        for name, kind in active:
            i = sy.contact_names.index(name)
            rows.append(offs[i])
            E.append(self.e_n[i])
            if kind == "stick":
                nt = int(sy.contacts[i]["n_tangent"])
                rows += list(range(offs[i] + 1, offs[i] + 1 + nt))
                E += [self.e_t[i]] * nt
        if not rows:
            return ca.Function("reset", [x], [x, ca.DM.eye(self.nx)])
        W = F["W"](q, 0.0, p)[rows, :]
        wt = F["Wt"](q, 0.0, p)[rows, :]
        M = F["M"](q, p)
        MiWt = ca.solve(M, W.T, "ldl")
        vc = ca.mtimes(W, u) + wt
        Lam = ca.solve(ca.mtimes(W, MiWt), -ca.mtimes(ca.diag(ca.DM(1.0 + np.array(E))), vc))
        xp = ca.vertcat(q, u + ca.mtimes(MiWt, Lam))
        return ca.Function("reset", [x], [xp, ca.jacobian(xp, x)])
