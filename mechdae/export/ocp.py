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
the problem stays square in the constraints.  Contacts are not supported.
"""
import numbers
import time as _time

import casadi as ca
import numpy as np

from ..simulate.inputs import resolve_inputs, input_mx, constant_vector

__all__ = ["OCP", "OCPSolution", "SimulateCheck", "ocp"]

_METHODS = ("multiple_shooting", "collocation")


def ocp(system, N=50, t_final=1.0, method="multiple_shooting", controls=None, params=None,
        inputs=None, integrator="rk4", substeps=1, control="constant", degree=3,
        scheme="radau", enforce_constraints=False, integrator_options=None):
    """Build a direct multiple-shooting or direct-collocation OCP of ``system``.

    See :class:`OCP` (this function only calls its constructor).
    """
    return OCP(system, N=N, t_final=t_final, method=method, controls=controls, params=params,
               inputs=inputs, integrator=integrator, substeps=substeps, control=control,
               degree=degree, scheme=scheme, enforce_constraints=enforce_constraints,
               integrator_options=integrator_options)


def _is_model_expr(e):
    return isinstance(e, ca.SX)


class OCP:
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
    NotImplementedError
        The model has contacts.

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
            raise NotImplementedError(
                f"model '{name}' has contacts {', '.join(repr(c) for c in system.contact_names)}; "
                "optimal control through contacts is not supported (future work: a fixed "
                "contact mode sequence, i.e. the contacts turned into constraints per phase); "
                "remove the contacts or model the intended mode as constraints")
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
        if controls is None:
            controls = list(system.w_names)
        elif isinstance(controls, str):
            controls = [controls]
        controls = list(controls)
        unknown = [c for c in controls if c not in system.w_names]
        if unknown:
            raise ValueError(
                f"ocp: unknown control(s) {', '.join(repr(c) for c in unknown)} for model "
                f"'{name}'; controls are the model's inputs: "
                f"{', '.join(system.w_names) or 'none (declare one with m.input(name))'}")
        if len(set(controls)) != len(controls):
            raise ValueError(f"ocp: controls listed twice: {controls}")
        other = dict(inputs or {})
        clash = [c for c in controls if c in other]
        if clash:
            raise ValueError(f"ocp: input(s) {clash} are controls; do not also give them in inputs=")
        self.system = system
        self.N = int(N)
        self.method = method
        self.integrator = integrator
        self.substeps = int(substeps)
        self.control = control
        self.degree = int(degree)
        self.scheme = scheme
        self.enforce_constraints = bool(enforce_constraints)
        self.control_names = controls
        self.inputs = other
        self._specs = resolve_inputs(system, other)
        self._int_opts = dict(integrator_options or {})
        self.nq, self.nu, self.nv = system.nq, system.nu, system.nv
        self.nx = self.nq + self.nu + self.nv
        self.nc = len(controls)
        self._build_functions()

        opti = ca.Opti()
        self.opti = opti
        self._P = opti.parameter(len(system.p_names))
        self.params = dict(params or {})
        opti.set_value(self._P, system.param_vector(self.params))
        if t_final is None or (isinstance(t_final, str) and t_final == "free"):
            self.free_time = True
            self.T = opti.variable()
            opti.subject_to(self.T > 0)
            self._T_guess = 1.0
        else:
            try:
                T = float(t_final)
            except (TypeError, ValueError):
                raise ValueError(f"ocp: t_final must be a positive number or 'free', "
                                 f"got {t_final!r}") from None
            if not np.isfinite(T) or T <= 0:
                raise ValueError(f"ocp: t_final must be a positive number or 'free', got {t_final!r}")
            self.free_time = False
            self.T = ca.MX(T)
            self._T_guess = T
        self.h = self.T / self.N
        self.x = opti.variable(self.nx, self.N + 1)
        ncol = self.N if control == "constant" else self.N + 1
        self.c = opti.variable(self.nc, ncol)
        self._cost_terms = []
        self._objective_terms = []
        self._init_vals, self._final_vals = {}, {}
        self._guess = {}
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
        wc = ca.DM(constant_vector(self._specs))
        w_other = input_mx(s, self._specs, t, wc)
        rows = []
        for i, n in enumerate(s.w_names):
            rows.append(c[self.control_names.index(n)] if n in self.control_names else w_other[i])
        w = ca.vertcat(*rows) if rows else ca.MX(0, 1)
        H, K = ca.DM(np.asarray(s.H, float)), ca.DM(np.asarray(s.K, float))
        xdot, lam, z = s.rhs_mx(x, t, p, w, H, K)
        if not z.numel():
            z = ca.MX(0, 1)
        self._f = ca.Function("f", [x, c, t, p], [xdot], ["x", "c", "t", "p"], ["xdot"])
        self._fz = ca.Function("fz", [x, c, t, p], [w, z], ["x", "c", "t", "p"], ["w", "z"])
        r = s.m + s.k
        if r:
            q, u = x[:self.nq], x[self.nq:self.nq + self.nu]
            y, zc, C, cc = s.functions["constraints"](q, u, t, p)
            inv = ca.vertcat(y, zc)
            self._inv = ca.Function("inv", [x, t, p], [inv, ca.jacobian(inv, x)])

    def _model_fun(self, expr, what):
        """Function ``(x, c, t, p) -> expr`` of a model expression (SX) or a callable."""
        s = self.system
        x = ca.MX.sym("x", self.nx)
        c = ca.MX.sym("c", self.nc)
        t = ca.MX.sym("t")
        p = ca.MX.sym("p", len(s.p_names))
        if _is_model_expr(expr):
            d = s._d
            e = expr
            model = s.parent
            sub_from = [co["rate"] for co in model.coords if co["name"] in model.kinematics_]
            if sub_from:
                sub_to = [model.kinematics_[co["name"]] for co in model.coords
                          if co["name"] in model.kinematics_]
                e = ca.substitute(e, ca.vertcat(*sub_from), ca.vertcat(*sub_to))
            if e.shape[1] != 1:
                e = ca.vec(e)
            try:
                g = ca.Function(what, [d.q, d.u, d.v, d.z, d.t, d.p, d.w], [e])
            except RuntimeError:
                free = [str(v) for v in ca.symvar(e)
                        if not any(ca.depends_on(a, v) for a in (d.q, d.u, d.v, d.z, d.t, d.p, d.w))]
                label = dict(L="running cost / integral", E="terminal cost", path="path constraint")
                raise ValueError(f"ocp: {label.get(what, what)} expression uses symbols {free} that are not "
                                 f"coordinates, speeds, variables, parameters, inputs or time "
                                 f"of model '{s.name}' (der(der(x)) and other models' symbols "
                                 "cannot be used)") from None
            w, z = self._fz(x, c, t, p)
            q, u, v = x[:self.nq], x[self.nq:self.nq + self.nu], x[self.nq + self.nu:]
            out = g(q, u, v, z, t, p, w)
        elif callable(expr):
            q, u = x[:self.nq], x[self.nq:self.nq + self.nu]
            out = expr(q, u, c, t)
            if not isinstance(out, (ca.MX, ca.SX, ca.DM, numbers.Number)):
                raise TypeError(f"{what}: the callable must return a CasADi expression of "
                                f"(q, u, controls, t), got {type(out).__name__}")
            out = ca.MX(out) if not isinstance(out, ca.MX) else out
        else:
            raise TypeError(f"{what}: give an expression of the model's symbols (SX) or a "
                            f"callable (q, u, controls, t) -> MX; got {type(expr).__name__}")
        return ca.Function(what, [x, c, t, p], [out], ["x", "c", "t", "p"], [what])

    # ------------------------------------------------------------------ transcriptions
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
    def _qi(self, name):
        s = self.system
        if name in s.q_names:
            return s.q_names.index(name)
        if name in s.v_names:
            return self.nq + self.nu + s.v_names.index(name)
        raise ValueError(f"ocp: unknown coordinate '{name}' for model '{s.name}'; "
                         f"coordinates: {', '.join(s.q_names + s.v_names)}")

    def _vi(self, name):
        s = self.system
        if name in s.u_names:
            return self.nq + s.u_names.index(name)
        coord_speed = {co: sp for sp, co in s.speed_of.items()}
        if name in coord_speed:
            return self.nq + s.u_names.index(coord_speed[name])
        raise ValueError(f"ocp: unknown speed '{name}' for model '{s.name}'; "
                         f"speeds: {', '.join(s.u_names)} (or a coordinate name for der(x))")

    def _ci(self, name):
        if name not in self.control_names:
            raise ValueError(f"ocp: unknown control '{name}' for model '{self.system.name}'; "
                             f"controls: {', '.join(self.control_names) or 'none'}")
        return self.control_names.index(name)

    def q(self, name):
        """Node values (1 x (N+1) MX) of coordinate ``name``."""
        return self.x[self._qi(name), :]

    def v(self, name):
        """Node values (1 x (N+1) MX) of speed ``name`` (or of ``der(x)`` by coordinate name)."""
        return self.x[self._vi(name), :]

    def u(self, name):
        """Values of control ``name`` (1 x N piecewise constant, 1 x (N+1) linear).

        ``u`` is the optimal-control letter for controls here; the model's speeds are
        :meth:`v`.
        """
        return self.c[self._ci(name), :]

    @property
    def t(self):
        """Node times ``t_k = k T / N`` (1 x (N+1); MX when ``T`` is free)."""
        return ca.horzcat(self._tk(), self.T)

    # ------------------------------------------------------------------ conditions
    def _state_rows(self, q, v, what):
        s = self.system
        rows = {}
        for arg, label, kind in ((q, "q", "q"), (v, "v", "v")):
            if arg is None:
                continue
            if isinstance(arg, dict):
                for k, val in arg.items():
                    i = self._qi(k) if kind == "q" else self._vi(k)
                    rows[i] = float(val)
            else:
                arr = np.asarray(arg, float).ravel()
                n = self.nq if kind == "q" else self.nu
                if kind == "q" and arr.size == self.nq + self.nv:
                    idx = list(range(self.nq)) + list(range(self.nq + self.nu, self.nx))
                elif arr.size == n:
                    idx = list(range(n)) if kind == "q" else list(range(self.nq, self.nq + n))
                else:
                    names = s.q_names if kind == "q" else s.u_names
                    raise ValueError(f"ocp.{what}: {label}: expected {n} values (System order "
                                     f"{names}), got {arr.size}")
                rows.update({i: float(a) for i, a in zip(idx, arr)})
        bad = [i for i, val in rows.items() if not np.isfinite(val)]
        if bad:
            names = self._state_names()
            raise ValueError(f"ocp.{what}: {', '.join(repr(names[i]) for i in bad)} not finite")
        return rows

    def _state_names(self):
        s = self.system
        return s.q_names + s.u_names + s.v_names

    def initial(self, q0=None, v0=None):
        """Fix the initial state: only the coordinates / speeds given are constrained.

        Parameters
        ----------
        q0, v0 : dict by name or array in System order
        """
        rows = self._state_rows(q0, v0, "initial")
        for i, val in rows.items():
            self.opti.subject_to(self.x[i, 0] == val)
        self._init_vals.update(rows)

    def final(self, q=None, v=None):
        """Fix the final state: only the coordinates / speeds given are constrained."""
        rows = self._state_rows(q, v, "final")
        for i, val in rows.items():
            self.opti.subject_to(self.x[i, -1] == val)
        self._final_vals.update(rows)

    def bounds(self, name, lo=None, hi=None):
        """``lo <= name <= hi`` for a control (all its values), a coordinate or speed (all
        nodes), or ``"t_final"`` (free final time)."""
        if name == "t_final":
            if not self.free_time:
                raise ValueError("ocp.bounds: 't_final' is fixed; build with t_final='free'")
            e = self.T
        elif name in self.control_names:
            e = self.u(name)
        else:
            try:
                e = self.q(name)
            except ValueError:
                try:
                    e = self.v(name)
                except ValueError:
                    raise ValueError(
                        f"ocp.bounds: unknown name '{name}' for model '{self.system.name}'; "
                        f"controls: {', '.join(self.control_names) or 'none'}; coordinates: "
                        f"{', '.join(self.system.q_names)}; speeds: "
                        f"{', '.join(self.system.u_names)}; or 't_final'") from None
        if lo is not None and hi is not None and float(lo) > float(hi):
            raise ValueError(f"ocp.bounds: '{name}': lower bound {lo} > upper bound {hi}")
        if lo is not None:
            self.opti.subject_to(ca.vec(e) >= float(lo))
        if hi is not None:
            self.opti.subject_to(ca.vec(e) <= float(hi))

    def path(self, expr, lo=None, hi=None):
        """``lo <= expr <= hi`` at every node for a model expression (SX) or a callable
        ``(q, u, controls, t)``; controls at a node are the values of the interval it
        starts (the last one for the final node)."""
        g = self._model_fun(expr, "path")
        vals = g.map(self.N + 1)(self.x, self._node_controls(), self.t,
                                 ca.repmat(self._P, 1, self.N + 1))
        if lo is not None:
            self.opti.subject_to(ca.vec(vals) >= lo)
        if hi is not None:
            self.opti.subject_to(ca.vec(vals) <= hi)

    def _node_controls(self):
        if self.control == "linear":
            return self.c
        return ca.horzcat(self.c, self.c[:, -1])

    # ------------------------------------------------------------------ costs
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

    def running_cost(self, expr, weight=1.0):
        """Add ``weight * int_0^T expr dt`` to the objective (see :meth:`integral`)."""
        self._objective_terms.append(weight * self.integral(expr))
        self._set_objective()

    def terminal_cost(self, expr, weight=1.0):
        """Add ``weight * expr`` at ``t = T`` (model expression or callable ``(q, u, controls,
        t)``) to the objective."""
        g = self._model_fun(expr, "E")
        xe = self.x[:, -1]
        ce = self._node_controls()[:, -1]
        self._objective_terms.append(weight * g(xe, ce, self.T, self._P))
        self._set_objective()

    def minimize(self, expr):
        """Add a term to the objective.

        ``expr``: an MX expression of the Opti's variables (``ocp.T``, ``ocp.q("x")[-1]``,
        ...) added as is; a model expression (SX) or a callable ``(q, u, controls, t)`` is a
        running cost (integrated by the scheme, as :meth:`running_cost`).
        """
        if isinstance(expr, ca.MX):
            self._objective_terms.append(expr)
            self._set_objective()
        else:
            self.running_cost(expr)

    def _set_objective(self):
        self.opti.minimize(sum(self._objective_terms[1:], self._objective_terms[0]))

    # ------------------------------------------------------------------ guesses, params
    def set_params(self, params):
        """New parameter values (no re-transcription)."""
        self.params.update(params)
        self.opti.set_value(self._P, self.system.param_vector(self.params))

    def guess(self, q=None, v=None, controls=None, t_final=None):
        """Initial guess: ``{name: scalar or array (N+1,)}`` for coordinates and speeds,
        ``{name: scalar or array}`` for controls, a number for a free ``t_final``."""
        for arg, fn in ((q, self._qi), (v, self._vi)):
            for k, val in (arg or {}).items():
                self._guess[("x", fn(k))] = val
        for k, val in (controls or {}).items():
            self._guess[("c", self._ci(k))] = val
        if t_final is not None:
            self._T_guess = float(t_final)

    def _apply_guess(self):
        N = self.N
        s = np.linspace(0.0, 1.0, N + 1)
        X = np.zeros((self.nx, N + 1))
        x0 = np.concatenate([self.system.q_defaults, self.system.u_defaults,
                             self.system.v_defaults])
        for i in range(self.nx):
            a = self._init_vals.get(i, self._final_vals.get(i, x0[i]))
            b = self._final_vals.get(i, a)
            X[i] = a + (b - a) * s
            if ("x", i) in self._guess:
                X[i] = np.broadcast_to(np.asarray(self._guess[("x", i)], float), (N + 1,))
        self.opti.set_initial(self.x, X)
        ncol = self.c.shape[1]
        Cg = np.zeros((self.nc, ncol))
        for j in range(self.nc):
            if ("c", j) in self._guess:
                Cg[j] = np.broadcast_to(np.asarray(self._guess[("c", j)], float), (ncol,))
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
        popts = dict(print_time=False)
        popts.update(solver_options or {})
        sopts = dict(options or {})
        if solver == "ipopt":
            sopts.setdefault("print_level", 5 if verbose else 0)
            sopts.setdefault("sb", "yes")
        self.opti.solver(solver, popts, sopts)
        t0 = _time.perf_counter()
        try:
            sol = self.opti.solve()
        except RuntimeError as exc:
            stats = self.opti.stats()
            raise RuntimeError(
                f"ocp of model '{self.system.name}': {solver} failed "
                f"({stats.get('return_status', 'unknown status')}) after "
                f"{stats.get('iter_count', '?')} iterations; try a better guess (ocp.guess), "
                "more intervals, bounds, or a longer t_final; the last iterate is in "
                "ocp.opti.debug") from exc
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
        X = np.atleast_2d(np.array(sol.value(problem.x))).reshape(problem.nx, problem.N + 1)
        self.T = float(sol.value(problem.T))
        self.t = np.linspace(0.0, self.T, problem.N + 1)
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
        return ca.pw_const(self.system.parent.time, ca.SX(ca.DM(self.t[1:-1])),
                           ca.SX(ca.DM(vals)))

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
