"""What every mechdae OCP shares: controls and inputs, the Opti with its parameter vector
and horizon, named constraints, the solve with a failure report naming the violated
constraints, and named access to the node states (``q(name)``, ``v(name)``, ``u(name)``).
The problem's statement (initial / final conditions, bounds, path constraints, costs,
guesses) is the mixin :class:`~mechdae.export._ocp_terms.OCPTerms`.

A subclass sets ``self.x`` (node states, ``n_x x n_nodes``), ``self.c`` (controls),
``self.T`` (horizon, MX), ``self.free_time``, ``self._P`` (parameter vector, an Opti
parameter), defines ``t`` (node times), ``integral(expr)`` and ``_node_controls()``, and
adds its constraints with :meth:`OCPBase._subject` so that a failed solve can name them.
"""
import casadi as ca
import numpy as np

from ..simulate.inputs import resolve_inputs, input_mx, constant_vector
from ._ocp_terms import OCPTerms

__all__ = ["OCPBase"]


class OCPBase(OCPTerms):
    """Shared part of :class:`~mechdae.export.OCP`, :class:`~mechdae.export.HybridOCP` and
    :class:`~mechdae.export.ContactImplicitOCP` (not used directly): the set-up, the solve
    and named access; conditions, costs and guesses come from
    :class:`~mechdae.export._ocp_terms.OCPTerms`."""
    # ------------------------------------------------------------------ setup
    def _setup_common(self, system, controls, inputs):
        """Controls (validated names), other inputs, sizes, and ``_w_fun(c, t) -> w``,
        ``_fz(x, c, t, p) -> (w, z)`` (inputs and algebraic variables)."""
        name = system.name
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
        self.control_names = controls
        self.inputs = other
        self._specs = resolve_inputs(system, other)
        self.nq, self.nu, self.nv = system.nq, system.nu, system.nv
        self.nx = self.nq + self.nu + self.nv
        self.nc = len(controls)
        c, t = ca.MX.sym("c", self.nc), ca.MX.sym("t")
        w_other = input_mx(system, self._specs, t, ca.DM(constant_vector(self._specs)))
        rows = [c[controls.index(n)] if n in controls else w_other[i]
                for i, n in enumerate(system.w_names)]
        w = ca.vertcat(*rows) if rows else ca.MX(0, 1)
        self._w_fun = ca.Function("w", [c, t], [w], ["c", "t"], ["w"])
        x, p = ca.MX.sym("x", self.nx), ca.MX.sym("p", len(system.p_names))
        q, u, v = x[:self.nq], x[self.nq:self.nq + self.nu], x[self.nq + self.nu:]
        wx = self._w_fun(c, t)
        _, z = system.extras_mx(q, u, v, t, p, wx)
        if not z.numel():
            z = ca.MX(0, 1)
        self._fz = ca.Function("fz", [x, c, t, p], [wx, z], ["x", "c", "t", "p"], ["w", "z"])
        self._constraints = []
        self._objective_terms = []
        self._init_vals, self._final_vals = {}, {}
        self._guess = {}

    def _setup_opti(self, params, t_final, what="t_final"):
        """The Opti, the parameter vector ``_P``, and the horizon ``T`` (fixed or free)."""
        opti = ca.Opti()
        self.opti = opti
        self._P = opti.parameter(len(self.system.p_names))
        self.params = dict(params or {})
        opti.set_value(self._P, self.system.param_vector(self.params))
        self.free_time, self.T, self._T_guess = self._horizon(t_final, what)
        if self.free_time:
            self._subject(self.T > 0, f"{what} > 0")
        return opti

    def _horizon(self, t_final, what):
        if t_final is None or (isinstance(t_final, str) and t_final == "free"):
            return True, self.opti.variable(), 1.0
        try:
            T = float(t_final)
        except (TypeError, ValueError):
            raise ValueError(f"ocp: {what} must be a positive number or 'free', "
                             f"got {t_final!r}") from None
        if not np.isfinite(T) or T <= 0:
            raise ValueError(f"ocp: {what} must be a positive number or 'free', got {t_final!r}")
        return False, ca.MX(T), T

    def _subject(self, cond, name):
        """``opti.subject_to(cond)``, remembered under ``name`` for the failure report."""
        self.opti.subject_to(cond)
        self._constraints.append((name, cond))

    def violations(self, values=None, top=5):
        """The named constraints most violated at the last iterate (or at ``values``, an
        Opti solution or debug object): list of ``(name, violation)``, worst first."""
        src = values if values is not None else self.opti.debug
        out = []
        for name, cond in self._constraints:
            try:
                e = cond.dep(0) - cond.dep(1)
                val = np.atleast_1d(np.asarray(src.value(e), float)).ravel()
            except RuntimeError:
                continue
            if cond.is_op(ca.OP_EQ):
                viol = np.max(np.abs(val)) if val.size else 0.0
            else:           # a <= b  as  a - b <= 0
                viol = max(float(np.max(val)), 0.0) if val.size else 0.0
            if viol > 0:
                out.append((name, float(viol)))
        out.sort(key=lambda r: -r[1])
        return out[:top]

    def _run_solver(self, solver, options, solver_options, verbose):
        """Set the solver and solve; a failure raises naming status, iterations and the
        most violated named constraints."""
        popts = dict(print_time=False)
        popts.update(solver_options or {})
        sopts = dict(options or {})
        if solver == "ipopt":
            sopts.setdefault("print_level", 5 if verbose else 0)
            sopts.setdefault("sb", "yes")
        key = (solver, repr(sorted(popts.items())), repr(sorted(sopts.items())))
        if getattr(self, "_solver_key", None) != key:       # Opti rebuilds on every solver()
            self.opti.solver(solver, popts, sopts)
            self._solver_key = key
        try:
            return self.opti.solve()
        except RuntimeError as exc:
            try:
                stats = self.opti.stats()
            except RuntimeError:          # the solver could not even be created
                raise RuntimeError(f"ocp of model '{self.system.name}': {solver} could not "
                                   f"start: {str(exc).splitlines()[-1]}") from exc
            worst = self.violations()
            named = "; ".join(f"{n} (violated by {v:.3g})" for n, v in worst) or "none"
            raise RuntimeError(
                f"ocp of model '{self.system.name}': {solver} failed "
                f"({stats.get('return_status', 'unknown status')}) after "
                f"{stats.get('iter_count', '?')} iterations; most violated constraints at the "
                f"last iterate: {named}. Try a better guess (ocp.guess), more intervals, "
                "bounds, or another horizon; the last iterate is in ocp.opti.debug") from exc

    # ------------------------------------------------------------------ transcriptions
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
