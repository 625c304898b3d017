"""Optimal control of a compiled System: direct multiple shooting or direct collocation
with ``casadi.Opti``.

The model's ``input``s named in ``controls`` become the controls ``c(t)``; the dynamics are
the stabilized index-1 right-hand side of :meth:`System.rhs_mx` (``x = (q, u, v)``), and
the problem transcribed on ``N`` intervals ``t_k = k h``, ``h = T / N``, is

    minimize    sum_i int_0^T L_i(x, c, t) dt  +  E(x(T), T)  (+ any Opti expression)
    subject to  x' = f(x, c, t, p),   initial / final conditions,   bounds,
                [phi(q) = 0, (phi', psi) = 0 at the nodes  if enforce_constraints]

- controls are piecewise constant (``c_k`` on interval k, ``N`` values) or piecewise linear
  (``N + 1`` node values, linear in between);
- ``method="multiple_shooting"``: node states ``x_k`` are decision variables and
  ``x_{k+1} = Phi(x_k, c, t_k, h)`` with ``Phi`` ``substeps`` RK4 steps (``integrator=
  "rk4"``) or a CasADi integrator (``"cvodes"``, ``"idas"``, ...); running costs are
  integrated along the same steps (RK4 quadrature of the augmented state, or the
  integrator's ``quad``);
- ``method="collocation"``: on each interval the state is a polynomial of degree ``d``
  through ``x_k`` and ``d`` collocation states (Radau or Legendre points); the collocation
  equations ``sum_r C_rj x_kr = h f(x_kj, c_kj, t_kj)`` and continuity ``x_{k+1} =
  sum_r D_r x_kr`` are constraints, running costs use the quadrature ``h sum_j B_j L_kj``.

With ``enforce_constraints=True`` the invariants ``y = phi`` and ``z = (phi', psi)`` are
imposed at every node and continuity is relaxed along their gradients,
``x_{k+1} = Phi(x_k) + J(x_{k+1})^T mu_k`` (a projection; ``mu_k`` are extra unknowns), so
the problem stays square in the constraints.  Models with contacts: see
:mod:`mechdae.export.hybrid` (fixed mode sequence) and :mod:`mechdae.export.complementarity`.
"""
import numbers
import time as _time

import casadi as ca
import numpy as np

from ._ocp_base import OCPBase

__all__ = ["OCP", "OCPSolution", "SimulateCheck", "ocp"]

_METHODS = ("multiple_shooting", "collocation")


def ocp(system, N=50, t_final=1.0, method="multiple_shooting", controls=None, phases=None,
        **options):
    """Build an optimal control problem of ``system``.

    - ``phases=[...]``: a fixed contact-mode sequence, :class:`~mechdae.export.HybridOCP`;
    - ``method="complementarity"``: contact-implicit, :class:`~mechdae.export.ContactImplicitOCP`;
    - otherwise (a model without contacts) :class:`OCP` (``"multiple_shooting"`` or
      ``"collocation"``).
    """
    if phases is not None:
        if method not in ("multiple_shooting", "hybrid"):
            raise ValueError(f"ocp: phases= is transcribed by multiple shooting; got "
                             f"method={method!r}")
        from .hybrid import HybridOCP
        return HybridOCP(system, phases, N=N, t_final=t_final, controls=controls, **options)
    if method == "complementarity":
        from .complementarity import ContactImplicitOCP
        return ContactImplicitOCP(system, N=N, t_final=t_final, controls=controls, **options)
    return OCP(system, N=N, t_final=t_final, method=method, controls=controls, **options)


class OCP(OCPBase):
    """An optimal control problem on a compiled System, wrapping a ``casadi.Opti``.

    The transcription is stated in :mod:`mechdae.export.ocp`.  Decision variables: node
    states ``x`` (``n_x x (N+1)``, ``x = (q, u, v)``), controls (``n_c x N`` piecewise
    constant or ``n_c x (N+1)`` piecewise linear), collocation states, the final time ``T``
    when free.  Add your own constraints with ``ocp.opti.subject_to(...)`` on the
    expressions ``ocp.q(name)``, ``ocp.v(name)``, ``ocp.u(name)``, ``ocp.T``.

    Parameters
    ----------
    system : System
        A compiled System without contacts.
    N : int
        Number of intervals (>= 1).
    t_final : float or "free"
        Horizon ``T`` (s); ``"free"`` (or ``None``) makes ``T > 0`` a decision variable.
    method : {"multiple_shooting", "collocation"}
    controls : list of str, optional
        Names of the model's inputs that become controls (default: all inputs).
    params : dict, optional
        Parameter values (defaults otherwise); change later with :meth:`set_params`.
    inputs : dict, optional
        Signals of the inputs that are not controls (as in ``System.simulate``).
    integrator : str
        Multiple shooting only: ``"rk4"`` (fixed step) or a ``casadi.integrator`` plugin
        (``"cvodes"``, ``"idas"``, ``"collocation"``, ...).
    substeps : int
        RK4 steps per interval.
    control : {"constant", "linear"}
        Piecewise constant or piecewise linear (continuous) controls.
    degree : int
        Collocation polynomial degree ``d``.
    scheme : {"radau", "legendre"}
        Collocation points.
    enforce_constraints : bool
        Impose the holonomic / nonholonomic constraints at every node (see module doc).
    integrator_options : dict, optional
        Options of the CasADi integrator (e.g. ``{"abstol": 1e-10, "reltol": 1e-10}``).

    Raises
    ------
    ValueError
        Unknown control or method, ``N < 1``, bad ``t_final``.
        The model has contacts (use ``phases=`` or ``method="complementarity"``).

    Examples
    --------
    >>> ocp = sys.ocp(N=40, t_final=2.0, method="collocation", controls=["F"])  # doctest: +SKIP
    >>> ocp.initial(q0={"x": 0.0}, v0={"x": 0.0}); ocp.final(q={"x": 1.0}, v={"x": 0.0})
    >>> ocp.bounds("F", -20, 20); ocp.running_cost(F ** 2)
    >>> sol = ocp.solve(); sol.controls[:, 0], sol.cost, sol.simulate_check().defect
    """

    def __init__(self, system, N=50, t_final=1.0, method="multiple_shooting", controls=None,
                 params=None, inputs=None, integrator="rk4", substeps=1, control="constant",
                 degree=3, scheme="radau", enforce_constraints=False, integrator_options=None):
        name = system.name
        if system.contact_names:
            raise ValueError(
                f"ocp: model '{name}' has contacts "
                f"{', '.join(repr(c) for c in system.contact_names)}; "
                "give the contact mode sequence (phases=[{'stance': [...]}, {'impact': [...]}, "
                "...]) or use method='complementarity' (contact-implicit)")
        if isinstance(N, bool) or not isinstance(N, numbers.Integral) or N < 1:
            raise ValueError(f"ocp: N (number of intervals) must be an integer >= 1, got {N!r}")
        if method not in _METHODS:
            raise ValueError(f"ocp: method must be one of {', '.join(_METHODS)}; got {method!r}")
        if control not in ("constant", "linear"):
            raise ValueError(f"ocp: control must be 'constant' or 'linear', got {control!r}")
        if isinstance(substeps, bool) or not isinstance(substeps, numbers.Integral) or substeps < 1:
            raise ValueError(f"ocp: substeps must be an integer >= 1, got {substeps!r}")
        if method == "collocation" and (not isinstance(degree, numbers.Integral) or degree < 1):
            raise ValueError(f"ocp: collocation degree must be an integer >= 1, got {degree!r}")
        if method == "collocation" and scheme not in ("radau", "legendre"):
            raise ValueError(f"ocp: scheme must be 'radau' or 'legendre', got {scheme!r}")
        self._setup_common(system, controls, inputs)
        self.N = int(N)
        self.method = method
        self.integrator = integrator
        self.substeps = int(substeps)
        self.control = control
        self.degree = int(degree)
        self.scheme = scheme
        self.enforce_constraints = bool(enforce_constraints)
        self._int_opts = dict(integrator_options or {})
        self._build_functions()

        opti = self._setup_opti(params, t_final)
        self.h = self.T / self.N
        self.x = opti.variable(self.nx, self.N + 1)
        ncol = self.N if control == "constant" else self.N + 1
        self.c = opti.variable(self.nc, ncol)
        if method == "multiple_shooting":
            self._transcribe_shooting()
        else:
            self._transcribe_collocation()
        if self.enforce_constraints and (system.m + system.k):
            self._impose_invariants()
        opti.subject_to(ca.vec(self.x[:, 1:] - self._xend) == 0)

    # ------------------------------------------------------------------ model functions
    def _build_functions(self):
        s = self.system
        x = ca.MX.sym("x", self.nx)
        c = ca.MX.sym("c", self.nc)
        t = ca.MX.sym("t")
        p = ca.MX.sym("p", len(s.p_names))
        w = self._w_fun(c, t)
        H, K = ca.DM(np.asarray(s.H, float)), ca.DM(np.asarray(s.K, float))
        xdot, lam, z = s.rhs_mx(x, t, p, w, H, K)
        self._f = ca.Function("f", [x, c, t, p], [xdot], ["x", "c", "t", "p"], ["xdot"])
        r = s.m + s.k
        if r:
            q, u = x[:self.nq], x[self.nq:self.nq + self.nu]
            y, zc, C, cc = s.functions["constraints"](q, u, t, p)
            inv = ca.vertcat(y, zc)
            self._inv = ca.Function("inv", [x, t, p], [inv, ca.jacobian(inv, x)])

    def _ctrl_pair(self):
        """Control values at the start and end of every interval (n_c x N each)."""
        if self.control == "constant":
            return self.c, self.c
        return self.c[:, :-1], self.c[:, 1:]

    def _shoot_fun(self, L=None):
        """``Phi(x0, c0, c1, t0, h, p) -> (xf, int L)`` over one interval."""
        x0 = ca.MX.sym("x0", self.nx)
        c0, c1 = ca.MX.sym("c0", self.nc), ca.MX.sym("c1", self.nc)
        t0, h = ca.MX.sym("t0"), ca.MX.sym("h")
        p = ca.MX.sym("p", len(self.system.p_names))
        f = self._f

        def cf(tau):
            return c0 + tau * (c1 - c0)

        if self.integrator == "rk4":
            M = self.substeps
            dt = h / M
            x, q = x0, 0
            for j in range(M):
                a = j / M
                b2, b3 = (j + 0.5) / M, (j + 1.0) / M
                ta, tb, tc = t0 + a * h, t0 + b2 * h, t0 + b3 * h
                k1 = f(x, cf(a), ta, p)
                k2 = f(x + dt / 2 * k1, cf(b2), tb, p)
                k3 = f(x + dt / 2 * k2, cf(b2), tb, p)
                k4 = f(x + dt * k3, cf(b3), tc, p)
                if L is not None:
                    q = q + dt / 6 * (L(x, cf(a), ta, p) + 2 * L(x + dt / 2 * k1, cf(b2), tb, p)
                                      + 2 * L(x + dt / 2 * k2, cf(b2), tb, p)
                                      + L(x + dt * k3, cf(b3), tc, p))
                x = x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            xf = x
            qf = q if L is not None else ca.MX(0)
        else:
            xs, tau = ca.MX.sym("x", self.nx), ca.MX.sym("tau")
            pp = ca.vertcat(c0, c1, t0, h, p)
            dae = dict(x=xs, t=tau, p=pp, ode=h * f(xs, cf(tau), t0 + tau * h, p))
            if L is not None:
                dae["quad"] = h * L(xs, cf(tau), t0 + tau * h, p)
            opts = dict(self._int_opts)
            try:
                F = ca.integrator("Phi", self.integrator, dae, 0.0, 1.0, opts)
            except RuntimeError as exc:
                raise ValueError(f"ocp: integrator {self.integrator!r} not usable: "
                                 f"{str(exc).splitlines()[-1]}; use 'rk4' or a casadi.integrator "
                                 "plugin such as 'cvodes'") from None
            out = F(x0=x0, p=pp)
            xf = out["xf"]
            qf = out["qf"] if L is not None else ca.MX(0)
        return ca.Function("Phi", [x0, c0, c1, t0, h, p], [xf, qf])

    def _tk(self):
        """Interval start times ``t_k`` (1 x N)."""
        return self.h * ca.DM(np.arange(self.N)).T

    def _transcribe_shooting(self):
        Phi = self._shoot_fun().map(self.N)
        c0, c1 = self._ctrl_pair()
        tk = self._tk()
        hrow = ca.repmat(self.h, 1, self.N)
        xf, _ = Phi(self.x[:, :-1], c0, c1, tk, hrow, ca.repmat(self._P, 1, self.N))
        self._xend = xf

    def _colloc_coeffs(self):
        d = self.degree
        tau = np.append(0.0, ca.collocation_points(d, self.scheme))
        C = np.zeros((d + 1, d + 1))
        D = np.zeros(d + 1)
        B = np.zeros(d + 1)
        for j in range(d + 1):
            pl = np.poly1d([1.0])
            for r in range(d + 1):
                if r != j:
                    pl *= np.poly1d([1.0, -tau[r]]) / (tau[j] - tau[r])
            D[j] = pl(1.0)
            pd = np.polyder(pl)
            for r in range(d + 1):
                C[j, r] = pd(tau[r])
            B[j] = np.polyint(pl)(1.0)
        return tau, C, D, B

    def _transcribe_collocation(self):
        d = self.degree
        tau, C, D, B = self._colloc_coeffs()
        self._coll = (tau, C, D, B)
        self.xc = self.opti.variable(self.nx * d, self.N)   # collocation states, stacked
        X0 = ca.MX.sym("X0", self.nx)
        Xc = ca.MX.sym("Xc", self.nx * d)
        c0, c1 = ca.MX.sym("c0", self.nc), ca.MX.sym("c1", self.nc)
        t0, h = ca.MX.sym("t0"), ca.MX.sym("h")
        p = ca.MX.sym("p", len(self.system.p_names))
        Xs = [X0] + [Xc[j * self.nx:(j + 1) * self.nx] for j in range(d)]
        eqs = []
        for j in range(1, d + 1):
            xp = sum(C[r, j] * Xs[r] for r in range(d + 1))
            cj = c0 + tau[j] * (c1 - c0)
            eqs.append(h * self._f(Xs[j], cj, t0 + tau[j] * h, p) - xp)
        xend = sum(D[r] * Xs[r] for r in range(d + 1))
        G = ca.Function("coll", [X0, Xc, c0, c1, t0, h, p], [ca.vertcat(*eqs), xend]).map(self.N)
        ca0, ca1 = self._ctrl_pair()
        defects, xend = G(self.x[:, :-1], self.xc, ca0, ca1, self._tk(),
                          ca.repmat(self.h, 1, self.N), ca.repmat(self._P, 1, self.N))
        self.opti.subject_to(ca.vec(defects) == 0)
        self._xend = xend

    def _impose_invariants(self):
        """Invariants at every node, continuity relaxed along their gradients."""
        s = self.system
        r = 2 * s.m + s.k
        self.mu = self.opti.variable(r, self.N)
        x_sym, t, p = ca.MX.sym("x", self.nx), ca.MX.sym("t"), ca.MX.sym("p", len(s.p_names))
        inv, J = self._inv(x_sym, t, p)
        fi = ca.Function("invJ", [x_sym, t, p], [inv, J]).map(self.N + 1)
        tn = ca.horzcat(self._tk(), self.T)
        invs, Js = fi(self.x, tn, ca.repmat(self._P, 1, self.N + 1))
        self.opti.subject_to(ca.vec(invs) == 0)
        corr = []
        for k in range(self.N):
            Jk = Js[:, (k + 1) * self.nx:(k + 2) * self.nx]
            corr.append(ca.mtimes(Jk.T, self.mu[:, k]))
        self._xend = self._xend + ca.horzcat(*corr)

    # ------------------------------------------------------------------ named access
    def integral(self, expr):
        """``int_0^T expr dt`` as an MX expression, integrated by the transcription's scheme.

        Parameters
        ----------
        expr : SX or callable
            A scalar expression of the model's symbols (coordinates, ``der(x)``, speeds,
            inputs, parameters, ``m.time``), or a callable ``(q, u, controls, t) -> MX``.
        """
        L = self._model_fun(expr, "L")
        if L.size1_out(0) * L.size2_out(0) != 1:
            raise ValueError("ocp: a running cost / integral must be a scalar expression")
        c0, c1 = self._ctrl_pair()
        P = ca.repmat(self._P, 1, self.N)
        if self.method == "multiple_shooting":
            Phi = self._shoot_fun(L).map(self.N)
            _, qf = Phi(self.x[:, :-1], c0, c1, self._tk(), ca.repmat(self.h, 1, self.N), P)
            return ca.sum2(qf)
        tau, C, D, B = self._coll
        total = 0
        for j in range(1, self.degree + 1):
            xj = self.xc[(j - 1) * self.nx:j * self.nx, :]
            cj = c0 + tau[j] * (c1 - c0)
            Lj = L.map(self.N)(xj, cj, self._tk() + tau[j] * self.h, P)
            total = total + B[j] * ca.sum2(Lj)
        return total * self.h

    def _apply_guess(self):
        X, Cg = self._guess_arrays()
        self.opti.set_initial(self.x, X)
        self.opti.set_initial(self.c, Cg)
        if self.method == "collocation":
            tau = self._coll[0]
            Xc = np.vstack([X[:, :-1] + tau[j] * (X[:, 1:] - X[:, :-1])
                            for j in range(1, self.degree + 1)])
            self.opti.set_initial(self.xc, Xc)
        if self.free_time:
            self.opti.set_initial(self.T, self._T_guess)

    # ------------------------------------------------------------------ solve
    def solve(self, solver="ipopt", options=None, solver_options=None, verbose=False):
        """Solve the NLP.

        Parameters
        ----------
        solver : str
            ``casadi.nlpsol`` plugin (``"ipopt"`` ships with the casadi wheel).
        options : dict, optional
            Plugin options, e.g. ``{"tol": 1e-10, "max_iter": 500}`` for Ipopt.
        solver_options : dict, optional
            CasADi-level nlpsol options (``"expand"``, ...).
        verbose : bool
            Show the solver's iteration log.

        Returns
        -------
        OCPSolution

        Raises
        ------
        RuntimeError
            The solver did not converge (status in the message; the last iterate is in
            ``ocp.opti.debug``).
        """
        if not self._objective_terms:
            self.opti.minimize(0)
        self._apply_guess()
        t0 = _time.perf_counter()
        sol = self._run_solver(solver, options, solver_options, verbose)
        return OCPSolution(self, sol, _time.perf_counter() - t0)


class OCPSolution:
    """Solution of an :class:`OCP`.

    Attributes
    ----------
    t : array (N+1,)
        Node times (s).
    q, v : arrays (N+1, n_q), (N+1, n_u)
        Coordinates and speeds at the nodes; ``x`` extra differential variables.
    controls : array (N, n_c) or (N+1, n_c)
        Piecewise constant (interval values) or piecewise linear (node values) controls,
        columns in ``control_names`` order.
    T, cost : float
    stats : dict
        The solver's statistics (``return_status``, ``iter_count``, ...).
    solve_time : float
        Wall time of the solve (s).
    """

    def __init__(self, problem, sol, solve_time):
        self.problem = problem
        self.opti_sol = sol
        s = problem.system
        X = np.atleast_2d(np.array(sol.value(problem.x))).reshape(problem.nx, -1)
        self.T = float(sol.value(problem.T))
        self.t = np.array(sol.value(problem.t), float).ravel()
        self.q = X[:problem.nq].T.copy()
        self.v = X[problem.nq:problem.nq + problem.nu].T.copy()
        self.x = X[problem.nq + problem.nu:].T.copy()
        C = np.array(sol.value(problem.c)).reshape(problem.nc, -1) if problem.nc else \
            np.zeros((0, problem.c.shape[1]))
        self.controls = C.T.copy()
        self.control_names = list(problem.control_names)
        self.cost = float(sol.value(problem.opti.f))
        self.stats = problem.opti.stats()
        self.solve_time = solve_time
        self.params = dict(problem.params)
        self.system = s

    def __getitem__(self, name):
        p = self.problem
        if name in self.control_names:
            return self.controls[:, self.control_names.index(name)]
        for fn in (p._qi, p._vi):
            try:
                i = fn(name)
            except ValueError:
                continue
            return np.concatenate([self.q, self.v, self.x], axis=1)[:, i]
        raise KeyError(f"'{name}' is not a coordinate, speed or control of model "
                       f"'{self.system.name}'")

    def value(self, expr):
        """Value of an MX expression of the OCP's variables at the solution."""
        return self.opti_sol.value(expr)

    def integral(self, expr):
        """``int_0^T expr dt`` by the transcription's scheme (see :meth:`OCP.integral`)."""
        return float(self.opti_sol.value(self.problem.integral(expr)))

    def control_signal(self, name):
        """The control ``name`` as a ``System.simulate`` input: ``(k, 2)`` samples
        ``(t, value)`` for linear controls; a piecewise-constant expression of the model
        time for constant ones."""
        vals = self[name]
        if self.problem.control == "linear":
            return np.column_stack([self.t, vals])
        return ca.pw_const(self.system.parent.time, ca.SX(ca.DM(self._interval_starts()[1:])),
                           ca.SX(ca.DM(vals)))

    def _interval_starts(self):
        """Start times of the control intervals."""
        return self.t[:-1]

    def simulate_check(self, rtol=1e-10, atol=1e-12, method="smooth"):
        """Re-simulate the open-loop controls with ``System.simulate`` from the first node.

        Returns
        -------
        SimulateCheck
            ``defect``: largest ``|x_sim(t_k) - x_k|`` over nodes and states;
            ``errors``: that maximum per state name; ``result``: the Result.
        """
        s = self.system
        inputs = dict(self.problem.inputs)
        for n in self.control_names:
            inputs[n] = self.control_signal(n)
        q0 = np.concatenate([self.q[0], self.x[0]]) if s.nv else self.q[0]
        res = s.simulate(self.T, q0=q0, v0=self.v[0], params=self.params, inputs=inputs,
                         method=method, rtol=rtol, atol=atol, output_times=self.t,
                         initialize=False)
        Xs = np.concatenate([res.q, res.v, res.x], axis=1)
        Xo = np.concatenate([self.q, self.v, self.x], axis=1)
        err = np.abs(Xs - Xo)
        names = self.problem._state_names()
        return SimulateCheck(float(err.max()) if err.size else 0.0,
                             {n: float(err[:, i].max()) for i, n in enumerate(names)}, res)

    def __repr__(self):
        return (f"OCPSolution({self.system.name!r}: {self.stats.get('return_status')}, "
                f"cost={self.cost:.6g}, T={self.T:.6g}, iterations={self.stats.get('iter_count')})")


class SimulateCheck:
    """Open-loop re-simulation of an OCP solution: ``defect``, ``errors``, ``result``."""

    def __init__(self, defect, errors, result):
        self.defect = defect
        self.errors = errors
        self.result = result

    def __repr__(self):
        worst = max(self.errors, key=self.errors.get) if self.errors else None
        return f"SimulateCheck(defect={self.defect:.3g}, worst={worst!r})"
