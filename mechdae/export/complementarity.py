r"""Contact-implicit optimal control: Moreau--Jean time stepping with complementarity
constraints, solved by Scholtes relaxation and homotopy with IPOPT.

No mode sequence is given.  On ``N`` steps ``t_k = k h``, ``h = T / N``, with piecewise
constant controls ``c_k`` and node states ``(q_k, u_k)``, the unknowns of step ``k`` are
the impulses ``P_n`` (normal), ``beta^+, beta^-`` (tangential, ``P_t = beta^+ - beta^-``),
the sliding-speed slack ``gamma`` of every contact with friction, and the constraint
impulses ``Lambda``:

.. math::

    M(q_k)(u_{k+1} - u_k) = h\,h(q_k, u_k, t_k, c_k) + C^T \Lambda + W_n^T P_n + W_t^T P_t,
    \qquad q_{k+1} = q_k + h N(q_k)\,[(1-\theta) u_k + \theta u_{k+1}],

    \phi(q_{k+1}) = 0,\quad \psi(q_{k+1}, u_{k+1}) = 0,

    0 \le P_n \perp g(q_k) / h + v_n^+ + e_n v_n^- \ge 0,

    0 \le \beta^\pm_j \perp \gamma \pm v_{t,j}^+ \ge 0,\qquad
    0 \le \gamma \perp \mu P_n - \textstyle\sum_j (\beta^+_j + \beta^-_j) \ge 0,

with ``v^- = W(q_k) u_k + w``, ``v^+ = W(q_k) u_{k+1} + w``: the normal law is Newton's
restitution at the velocity level (Moreau's impact law with the gap entering through
``g/h``), Coulomb friction is the maximum-dissipation law on the cone linearized with
``2 n_t`` faces (exact in the plane).  ``theta = 1/2`` (default) integrates piecewise
constant forces exactly between contact changes.

Each complementarity pair ``0 <= a, b`` with ``a b = 0`` is relaxed to ``a b <= eps``
(Scholtes); the NLP is solved for ``eps = eps_0, eps_0 r, ...`` down to ``eps_final``, each
solve warm-started from the previous one.  The solution reports the complementarity
residual reached, ``max_i min(a_i, b_i)``.
"""
import math
import numbers
import time as _time

import casadi as ca
import numpy as np

from ..simulate._laws import laws_function, contact_laws
from ._ocp_base import OCPBase
from .contact import row_index
from .contact_solution import ContactImplicitSolution

__all__ = ["ContactImplicitOCP"]


class ContactImplicitOCP(OCPBase):
    """Contact-implicit OCP (see module doc); built by ``system.ocp(method="complementarity")``.

    Parameters
    ----------
    system : System
        A model with contacts (finite friction), no general equations.
    N : int
        Number of time steps.
    t_final : float or "free"
    controls, params, inputs : as for :class:`~mechdae.export.OCP`
    relaxation : (float, float)
        Initial and final Scholtes relaxation ``eps``.
    homotopy_factor : float
        Factor (< 1) between successive ``eps``.
    theta : float
        Moreau--Jean parameter in [1/2, 1].

    Raises
    ------
    ValueError
        No contacts, a contact law out of range (``mu < 0``, ``e_n`` outside [0, 1]), an
        infinite friction coefficient, general equations in the model, bad options.
    """

    def __init__(self, system, N=50, t_final=1.0, controls=None, params=None, inputs=None,
                 relaxation=(1e-3, 1e-9), homotopy_factor=0.1, theta=0.5, **unused):
        name = system.name
        if unused:
            raise ValueError(f"ocp (complementarity): unsupported option(s) {sorted(unused)} "
                             "(options: N, t_final, controls, params, inputs, relaxation, "
                             "homotopy_factor, theta)")
        if not system.contact_names:
            raise ValueError(f"ocp: model '{name}' has no contacts; method='complementarity' "
                             "needs contacts (use method='multiple_shooting' or 'collocation')")
        if system.nv or system.nz:
            raise ValueError(f"ocp: model '{name}' has general equations (states "
                             f"{system.v_names + system.z_names}); the complementarity "
                             "transcription handles mechanical models only")
        if isinstance(N, bool) or not isinstance(N, numbers.Integral) or N < 1:
            raise ValueError(f"ocp: N (number of intervals) must be an integer >= 1, got {N!r}")
        try:
            eps0, eps1 = (float(e) for e in relaxation)
        except (TypeError, ValueError):
            raise ValueError(f"ocp: relaxation must be (initial eps, final eps), got "
                             f"{relaxation!r}") from None
        if not (0 < eps1 <= eps0 < math.inf):
            raise ValueError(f"ocp: relaxation needs 0 < final eps <= initial eps, got "
                             f"{relaxation!r}")
        if not 0 < float(homotopy_factor) < 1:
            raise ValueError(f"ocp: homotopy_factor must be in (0, 1), got {homotopy_factor!r}")
        if not 0.5 <= float(theta) <= 1:
            raise ValueError(f"ocp: theta must be in [1/2, 1], got {theta!r}")
        self._setup_common(system, controls, inputs)
        self.control = "constant"
        self.N = int(N)
        self.relaxation = (eps0, eps1)
        self.homotopy_factor = float(homotopy_factor)
        self.theta = float(theta)
        e_n, e_t, mu = contact_laws(system, system.param_vector(params))   # validates mu >= 0
        inf = [c for c, m in zip(system.contact_names, mu) if math.isinf(m)]
        if inf:
            raise ValueError(f"ocp (complementarity): contact(s) {inf} of model '{name}' have "
                             "mu = inf; give a finite friction coefficient (a large one for "
                             "no sliding)")
        self._rows = row_index(system)
        self._fric = [c for c, m in zip(system.contact_names, mu) if m > 0
                      and self._rows[c][2]]
        opti = self._setup_opti(params, t_final)
        self.h = self.T / self.N
        self.x = opti.variable(self.nx, self.N + 1)
        self.c = opti.variable(self.nc, self.N)
        self._eps = opti.parameter()
        self._pairs = []
        self._transcribe()

    # ------------------------------------------------------------------ transcription
    def _tk(self):
        return self.h * ca.DM(np.arange(self.N)).T

    @property
    def t(self):
        """Node times ``t_k = k h`` (1 x (N+1))."""
        return ca.horzcat(self._tk(), self.T)

    def _node_controls(self):
        return ca.horzcat(self.c, self.c[:, -1]) if self.nc else ca.MX(0, self.N + 1)

    def _comp(self, a, b, name):
        """``0 <= a``, ``0 <= b``, ``a b <= eps`` (elementwise), remembered for the residual."""
        self._subject(ca.vec(a) >= 0, f"{name}: impulse >= 0")
        self._subject(ca.vec(b) >= 0, f"{name}: slack >= 0")
        self._subject(ca.vec(a * b) <= self._eps, f"{name}: complementarity (relaxed)")
        self._pairs.append((name, a, b))

    def _transcribe(self):
        s, opti, N = self.system, self.opti, self.N
        nq, nu = self.nq, self.nu
        ncont = len(s.contact_names)
        nrows = len(s.contact_rows)
        self.Pn = opti.variable(ncont, N)
        nfr = len(self._fric)
        trows = [j for c in self._fric for j in self._rows[c][2]]
        self.beta_p = opti.variable(len(trows), N)
        self.beta_m = opti.variable(len(trows), N)
        self.gamma = opti.variable(nfr, N)
        r = s.m + s.k
        self.Lam = opti.variable(r, N)
        # one step as a Function, mapped over the N steps
        qk, uk, u1 = ca.MX.sym("q", nq), ca.MX.sym("u", nu), ca.MX.sym("u1", nu)
        ck, tk, h = ca.MX.sym("c", self.nc), ca.MX.sym("t"), ca.MX.sym("h")
        p = ca.MX.sym("p", len(s.p_names))
        Pn = ca.MX.sym("Pn", ncont)
        bp, bm = ca.MX.sym("bp", len(trows)), ca.MX.sym("bm", len(trows))
        gam, Lam = ca.MX.sym("gam", nfr), ca.MX.sym("Lam", r)
        F = s.functions
        w = self._w_fun(ck, tk)
        e_n, _, mu = laws_function(s)(p)
        M = F["M"](qk, p)
        hv = F["h"](qk, uk, ca.MX(0, 1), ca.MX(0, 1), tk, p, w)
        W = F["W"](qk, tk, p)
        wt = F["Wt"](qk, tk, p)
        Pfull = ca.MX.zeros(nrows, 1)
        for i, c in enumerate(s.contact_names):
            Pfull[self._rows[c][1]] = Pn[i]
        for j, row in enumerate(trows):
            Pfull[row] = bp[j] - bm[j]
        imp = ca.mtimes(W.T, Pfull)
        if r:
            _, _, C, _ = F["constraints"](qk, uk, tk, p)
            imp = imp + ca.mtimes(C.T, Lam)
        dyn = ca.mtimes(M, u1 - uk) - h * hv - imp
        q1 = qk + h * F["kinematics"](qk, (1 - self.theta) * uk + self.theta * u1, p)
        cons = [dyn]
        if r:
            y, zc, _, _ = F["constraints"](q1, u1, tk + h, p)
            cons += [y, zc[s.m:]]
        vm, vp = ca.mtimes(W, uk) + wt, ca.mtimes(W, u1) + wt
        g = F["gap"](qk, tk, p)
        sn = ca.vertcat(*[g[i] / h + vp[self._rows[c][1]] + e_n[i] * vm[self._rows[c][1]]
                          for i, c in enumerate(s.contact_names)])
        vt = vp[trows] if trows else ca.MX(0, 1)
        cone = []
        k0 = 0
        for c in self._fric:
            i, _, tr = self._rows[c]
            sl = slice(k0, k0 + len(tr))
            cone.append(mu[i] * Pn[i] - ca.sum1(bp[sl] + bm[sl]))
            k0 += len(tr)
        gam_rep = ca.vertcat(*[ca.repmat(gam[a], len(self._rows[c][2]), 1)
                               for a, c in enumerate(self._fric)]) if nfr else ca.MX(0, 1)
        outs = [ca.vertcat(*cons), q1, sn, gam_rep + vt, gam_rep - vt,
                ca.vertcat(*cone) if cone else ca.MX(0, 1), vp, hv]
        step = ca.Function("mj_step", [qk, uk, u1, ck, tk, h, p, Pn, bp, bm, gam, Lam], outs)
        X = self.x
        Pm = ca.repmat(self._P, 1, N)
        res = step.map(N)(X[:nq, :-1], X[nq:, :-1], X[nq:, 1:], self.c, self._tk(),
                          ca.repmat(self.h, 1, N), Pm, self.Pn, self.beta_p, self.beta_m,
                          self.gamma, self.Lam)
        cons_v, q1v, snv, slp, slm, conev = res[:6]
        self._subject(ca.vec(cons_v) == 0, "Moreau-Jean step: momentum balance and constraints")
        self._subject(ca.vec(X[:nq, 1:] - q1v) == 0, "Moreau-Jean step: position update")
        self._step = step
        for i, c in enumerate(s.contact_names):
            self._comp(self.Pn[i, :], snv[i, :], f"normal law of '{c}'")
        k0 = 0
        for a, c in enumerate(self._fric):
            nt = len(self._rows[c][2])
            sl = slice(k0, k0 + nt)
            self._comp(self.beta_p[sl, :], slp[sl, :], f"friction of '{c}' (beta+)")
            self._comp(self.beta_m[sl, :], slm[sl, :], f"friction of '{c}' (beta-)")
            self._comp(self.gamma[a, :], conev[a, :], f"friction cone of '{c}'")
            k0 += nt
        self._trows = trows

    # ------------------------------------------------------------------ costs
    def integral(self, expr):
        """``int_0^T expr dt`` by the trapezoidal rule on the steps (``h sum c_k^2`` for a
        squared piecewise-constant control)."""
        L = self._model_fun(expr, "L")
        if L.size1_out(0) * L.size2_out(0) != 1:
            raise ValueError("ocp: a running cost / integral must be a scalar expression")
        N, P = self.N, ca.repmat(self._P, 1, self.N)
        Lm = L.map(N)
        a = Lm(self.x[:, :-1], self.c, self._tk(), P)
        b = Lm(self.x[:, 1:], self.c, self._tk() + self.h, P)
        return self.h * ca.sum2(a + b) / 2

    # ------------------------------------------------------------------ solve
    def _variables(self):
        vs = [self.x, self.c, self.Pn, self.beta_p, self.beta_m, self.gamma, self.Lam]
        if self.free_time:
            vs.append(self.T)
        return [v for v in vs if v.numel()]

    def residual(self, values):
        """Complementarity residual ``max_i min(a_i, b_i)`` (and ``max a_i b_i``) at an Opti
        solution or debug object."""
        nat, prod = 0.0, 0.0
        for _, a, b in self._pairs:
            av = np.atleast_1d(np.asarray(values.value(a), float)).ravel()
            bv = np.atleast_1d(np.asarray(values.value(b), float)).ravel()
            if av.size:
                nat = max(nat, float(np.max(np.abs(np.minimum(av, bv)))))
                prod = max(prod, float(np.max(np.abs(av * bv))))
        return nat, prod

    def solve(self, solver="ipopt", options=None, solver_options=None, verbose=False):
        """Solve by homotopy on the relaxation ``eps`` (module doc).

        Returns
        -------
        ContactImplicitSolution
            With ``complementarity`` (the residual reached) and ``homotopy`` (one record
            ``(eps, iterations, return_status, residual)`` per solve).

        Raises
        ------
        RuntimeError
            A solve of the homotopy failed (status, ``eps``, most violated constraints).
        """
        if not self._objective_terms:
            self.opti.minimize(0)
        X, Cg = self._guess_arrays()
        self.opti.set_initial(self.x, X)
        self.opti.set_initial(self.c, Cg)
        if self.free_time:
            self.opti.set_initial(self.T, self._T_guess)
        eps, eps1 = self.relaxation
        solver_options = dict(dict(expand=True), **(solver_options or {}))
        records, t0 = [], _time.perf_counter()
        iters = 0
        opts = dict(options or {})
        while True:
            self.opti.set_value(self._eps, eps)
            try:
                sol = self._run_solver(solver, opts, solver_options, verbose)
            except RuntimeError as exc:
                raise RuntimeError(f"{exc} [complementarity homotopy at eps = {eps:.3g}]") from None
            st = self.opti.stats()
            iters += int(st.get("iter_count", 0))
            records.append((eps, int(st.get("iter_count", 0)), st.get("return_status"),
                            self.residual(sol)[0]))
            if eps <= eps1 * (1 + 1e-9):
                break
            for v in self._variables():
                self.opti.set_initial(v, sol.value(v))
            self.opti.set_initial(self.opti.lam_g, sol.value(self.opti.lam_g))
            eps = max(eps * self.homotopy_factor, eps1)
            if solver == "ipopt":      # continuation: start near the previous solution
                opts = dict(dict(warm_start_init_point="yes", mu_init=1e-6,
                                 warm_start_bound_push=1e-9, warm_start_mult_bound_push=1e-9,
                                 warm_start_slack_bound_push=1e-9), **(options or {}))
        return ContactImplicitSolution(self, sol, _time.perf_counter() - t0, records, iters)
