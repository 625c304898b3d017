"""The statement of an optimal control problem: initial and final conditions, bounds,
path constraints, costs and the initial guess, each given by name or as a model expression
(a mixin of :class:`mechdae.export._ocp_base.OCPBase`)."""
import numbers

import casadi as ca
import numpy as np

__all__ = ["OCPTerms"]


def _is_model_expr(e):
    return isinstance(e, ca.SX)


class OCPTerms:
    """Conditions, bounds, path constraints, costs and guesses of an OCP.

    Model expressions (SX of the System's symbols) and callables ``(q, u, controls, t)``
    become Functions of ``(x, c, t, p)`` (:meth:`_model_fun`) evaluated on the nodes; every
    constraint goes through ``_subject`` (named for the failure report). Needs what
    :class:`~mechdae.export._ocp_base.OCPBase` sets up (``system``, ``opti``, ``x``,
    ``c``, ``T``, ``_P``, named access ``_qi``/``_vi``/``_ci``) and the transcription's
    ``integral`` and ``t``.
    """
    # ------------------------------------------------------------------ model expressions
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
            self._subject(self.x[i, 0] == val, f"initial {self._state_names()[i]}")
        self._init_vals.update(rows)

    def final(self, q=None, v=None):
        """Fix the final state: only the coordinates / speeds given are constrained."""
        rows = self._state_rows(q, v, "final")
        for i, val in rows.items():
            self._subject(self.x[i, -1] == val, f"final {self._state_names()[i]}")
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
            self._subject(ca.vec(e) >= float(lo), f"bound {name} >= {lo}")
        if hi is not None:
            self._subject(ca.vec(e) <= float(hi), f"bound {name} <= {hi}")

    def path(self, expr, lo=None, hi=None):
        """``lo <= expr <= hi`` at every node for a model expression (SX) or a callable
        ``(q, u, controls, t)``; controls at a node are the values of the interval it
        starts (the last one for the final node)."""
        g = self._model_fun(expr, "path")
        n = self.x.shape[1]
        vals = g.map(n)(self.x, self._node_controls(), self.t, ca.repmat(self._P, 1, n))
        if lo is not None:
            self._subject(ca.vec(vals) >= lo, "path constraint >= lo")
        if hi is not None:
            self._subject(ca.vec(vals) <= hi, "path constraint <= hi")

    def _node_controls(self):
        if self.control == "linear":
            return self.c
        return ca.horzcat(self.c, self.c[:, -1])

    # ------------------------------------------------------------------ costs
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


    def _guess_arrays(self):
        """Node states (linear between the initial and final values given, else the
        defaults, overridden by :meth:`guess`) and controls (0 unless guessed)."""
        n = self.x.shape[1]
        s = np.linspace(0.0, 1.0, n)
        X = np.zeros((self.nx, n))
        x0 = np.concatenate([self.system.q_defaults, self.system.u_defaults,
                             self.system.v_defaults])
        for i in range(self.nx):
            a = self._init_vals.get(i, self._final_vals.get(i, x0[i]))
            b = self._final_vals.get(i, a)
            X[i] = a + (b - a) * s
            if ("x", i) in self._guess:
                X[i] = np.broadcast_to(np.asarray(self._guess[("x", i)], float), (n,))
        ncol = self.c.shape[1]
        Cg = np.zeros((self.nc, ncol))
        for j in range(self.nc):
            if ("c", j) in self._guess:
                Cg[j] = np.broadcast_to(np.asarray(self._guess[("c", j)], float), (ncol,))
        return X, Cg
