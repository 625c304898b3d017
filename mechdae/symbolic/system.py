"""The compiled, frozen System: named CasADi Functions plus names and defaults.

:class:`System` holds the compiled Functions and the stabilized right-hand side built from
them; the numbers at one state (:class:`~mechdae.symbolic._system_values.SystemValues`) and
the driver facades (:class:`~mechdae.symbolic._system_drivers.SystemDrivers`: ``simulate``,
``impact``, ``sweep``, ``ocp``, ...) are mixins in their own modules.
"""
from __future__ import annotations

import casadi as ca
import numpy as np

from .._typing import Any
from ._system_drivers import SystemDrivers
from ._system_values import SystemValues, _number  # noqa: F401  (_number: simulate.checks)
from .linalg import regularized_solve

__all__ = ["System"]


def _F(name, ins, outs, in_names, out_names):
    return ca.Function(name, ins, outs, in_names, out_names)


class System(SystemValues, SystemDrivers):
    """A compiled model (frozen): named CasADi Functions and the System's orderings.

    Created by :meth:`mechdae.Model.compile`; never built directly.  Parameters stay
    symbolic (input ``p`` of every Function), so one System serves any parameter values.
    This class builds the Functions and the stabilized right-hand side; values at one state
    (``param_vector``, ``state_arrays``, ``dynamics_terms``, ...) come from
    :class:`~mechdae.symbolic._system_values.SystemValues`, the driver calls (``simulate``,
    ``impact``, ``painleve``, ``sweep``, ``ocp``, ...) from
    :class:`~mechdae.symbolic._system_drivers.SystemDrivers`.

    Attributes
    ----------
    name : str
    parent : Model
        The model it was compiled from (left unchanged).
    q_names, u_names, v_names, z_names, p_names, w_names : list of str
        Orderings of coordinates, speeds, extra differential / algebraic variables,
        parameters and inputs.
    constraint_names : list of str
        Holonomic then nonholonomic constraint names.
    contact_names : list of str
    rheonomic : bool
        Whether some contact velocity has a term without speeds (``Wt != 0``: a gap or
        tangent depending explicitly on time, a tangent_velocity with a constant part such as
        a moving belt); scleronomic systems skip that term.
    functions : dict of casadi.Function
        ``M(q,p)``, ``h(q,u,v,z,t,p,w)``, ``phi(q,t,p)``, ``G(q,t,p)``, ``psi(q,u,t,p)``,
        ``A(q,t,p)``, ``constraints(q,u,t,p) -> (y, z, C, c)``, ``kinematics(q,u,p)``,
        ``energy(q,u,t,p) -> (T, V)``, ``gap(q,t,p)``, ``W(q,t,p)``, ``Wt(q,t,p)``,
        ``Wdot_u(q,u,t,p)``, ``extras(q,u,v,t,p,w) -> (J, F0)`` (``J (hd, z) + F0 = 0``),
        ``extras_solve(q,u,v,t,p,w) -> (vd, z)``, ``general_constraints(q,u,v,t,p) -> (g,
        Gv)`` (hidden constraints of the general equations and their Jacobian in ``v``),
        ``general_residuals(q,u,v,t,p) -> e`` (residuals of the differentiated equations).
    v_names, hd_names : list of str
        States of the general equations (``"x"``, ``"der(x)"``, ... up to one below the
        highest order) and the highest derivatives solved at each instant.
    dae : mechdae.symbolic.dae.Structure or None
        Structural analysis of the general equations: ``c`` (times each equation is
        differentiated), ``d`` (highest order of each variable), ``index``.
    general_constraints : list of str
        Equations whose hidden constraints are stabilized: ``m_g`` differentiated twice
        (holonomic-like) then ``k_g`` once (nonholonomic-like); ``general_hidden`` names
        every hidden constraint row (``"rod"``, ``"der(rod)"``).
    H_g, K_g : ndarray
        Compiled gains of those rows (``z' = H_g y + K_g z``); ``simulate(stabilization=)``
        overrides the mechanical gains ``H, K`` only.
    compile_time : float
        Seconds spent in compile().
    """

    def __init__(self, model, d, rule, projection, HK):
        from ..stabilization import _Zero
        self.parent = model
        self.name = model.name
        self._d = d
        self.stabilization = rule if rule is not None else _Zero()
        self.projection = projection
        self.H, self.K = HK
        self.q_names, self.u_names = list(d.q_names), list(d.u_names)
        self.v_names, self.z_names = list(d.v_names), list(d.z_names)
        self.p_names, self.w_names = list(d.p_names), list(d.w_names)
        self.nq, self.nu = len(self.q_names), len(self.u_names)
        self.nv, self.nz = len(self.v_names), len(self.z_names)
        self.m, self.k = d.m, d.k
        self.holonomic = list(d.hol)        # (name, rows)
        self.nonholonomic = list(d.nonhol)
        self.constraint_names = [n for n, _ in d.hol] + [n for n, _ in d.nonhol]
        self.contacts = list(d.contacts)
        self.contact_names = [c["name"] for c in d.contacts]
        self.contact_rows = list(d.W_rows)
        self.rheonomic = bool(d.rheonomic)
        self.has_energy = d.has_energy
        self.q_defaults = np.array([float(c["default"]) for c in model.coords])
        self.u_defaults = np.array([float(s["default"]) for s in model.speeds_])
        vd = {v["name"]: v["default"] for v in model.variables}
        # states of the general equations: x, der(x), ... (only x has a declared default)
        self.v_defaults = np.array([float(vd.get(n, 0.0)) for n in self.v_names])
        self.z_defaults = np.array([float(vd[n]) for n in self.z_names])
        # general equations (structural analysis and index reduction, see
        # mechdae.symbolic.dae): highest derivatives solved at each instant, the
        # structure (c_i, d_j, index), hidden constraints and their compiled gains
        self.hd_names = list(d.hd_names)
        self.nhd = len(self.hd_names)
        self.dae = d.dae
        self.general_equations = list(getattr(d, "general_equations", []))
        self.general_constraints = list(d.general_constraints)
        self.general_hidden = list(d.gen_hidden_names)
        self._general_owner = list(d.gen_residual_owner)
        self.m_g, self.k_g = d.m_g, d.k_g
        self.H_g, self.K_g = d.H_g, d.K_g
        self.v_order = dict(d.v_order)
        self._vd_index = list(d.vd_index)
        self.p_defaults = np.array([float(p["default"]) for p in model.params])
        self.w_defaults = [w["default"] for w in model.inputs]
        self.quaternions = [[self.q_names.index(f"{b.name}.q{i}") for i in range(4)]
                            for b in model.bodies if not b.planar]
        # identity speeds: speed name -> coordinate name
        self.speed_of = {s["name"]: s["coord"] for s in model.speeds_ if s["coord"]}
        self._integrators = {}
        self._build_functions(d)

    # ------------------------------------------------------------------ Functions
    def _build_functions(self, d):
        q, u, v, z, t, p, w = d.q, d.u, d.v, d.z, d.t, d.p, d.w
        F = {}
        F["M"] = _F("M", [q, p], [d.M], ["q", "p"], ["M"])
        F["h"] = _F("h", [q, u, v, z, t, p, w], [d.h], ["q", "u", "v", "z", "t", "p", "w"], ["h"])
        F["kinematics"] = _F("kinematics", [q, u, p], [d.qd], ["q", "u", "p"], ["qdot"])
        F["N"] = _F("N", [q, p], [d.N], ["q", "p"], ["N"])
        F["phi"] = _F("phi", [q, t, p], [d.phi], ["q", "t", "p"], ["phi"])
        F["Gq"] = _F("Gq", [q, t, p], [d.Gq], ["q", "t", "p"], ["Gq"])
        F["G"] = _F("G", [q, t, p], [d.G], ["q", "t", "p"], ["G"])
        F["psi"] = _F("psi", [q, u, t, p], [d.psi], ["q", "u", "t", "p"], ["psi"])
        F["A"] = _F("A", [q, t, p], [d.A, d.b], ["q", "t", "p"], ["A", "b"])
        F["constraints"] = _F("constraints", [q, u, t, p], [d.y, d.zc, d.C, d.c],
                              ["q", "u", "t", "p"], ["y", "z", "C", "c"])
        F["energy"] = _F("energy", [q, u, t, p], [d.T, d.V], ["q", "u", "t", "p"], ["T", "V"])
        F["gap"] = _F("gap", [q, t, p], [d.gap], ["q", "t", "p"], ["gap"])
        F["W"] = _F("W", [q, t, p], [d.W], ["q", "t", "p"], ["W"])
        F["Wt"] = _F("Wt", [q, t, p], [d.Wt], ["q", "t", "p"], ["Wt"])
        F["Wdot_u"] = _F("Wdot_u", [q, u, t, p], [d.Wdot_u], ["q", "u", "t", "p"], ["Wdot_u"])
        F["extras"] = _F("extras", [q, u, v, t, p, w], [d.ext_J, d.ext_F0],
                         ["q", "u", "v", "t", "p", "w"], ["J", "F0"])
        F["general_constraints"] = _F("general_constraints", [q, u, v, t, p],
                                      [d.gen_hidden, d.gen_hidden_J],
                                      ["q", "u", "v", "t", "p"], ["g", "Gv"])
        F["general_residuals"] = _F("general_residuals", [q, u, v, t, p], [d.gen_residual],
                                    ["q", "u", "v", "t", "p"], ["e"])
        self.functions = F
        qm, um, vm = ca.MX.sym("q", q.numel()), ca.MX.sym("u", u.numel()), ca.MX.sym("v", v.numel())
        tm, pm, wm = ca.MX.sym("t"), ca.MX.sym("p", p.numel()), ca.MX.sym("w", w.numel())
        vdm, zm = self.extras_mx(qm, um, vm, tm, pm, wm)
        F["extras_solve"] = _F("extras_solve", [qm, um, vm, tm, pm, wm], [vdm, zm],
                               ["q", "u", "v", "t", "p", "w"], ["vd", "z"])

    def __getattr__(self, item):
        # functions by name: sys.M(q, p) etc.
        fs = self.__dict__.get("functions")
        if fs is not None and item in fs:
            return fs[item]
        raise AttributeError(item)

    # ------------------------------------------------------------------ stabilized rhs
    def extras_mx(self, q: Any, u: Any, v: Any, t: Any, p: Any, w: Any) -> Any:
        """Rates of the extra differential variables and the algebraic variables (MX).

        After index reduction the general equations are linear in the highest derivatives
        ``hd`` and the algebraic variables ``z``: ``J (hd, z) + F0 = 0`` (the hidden
        constraints stabilized with the compiled gains ``H_g, K_g``).  The rates of the
        states ``v = (x, der(x), ...)`` are the next states, and ``hd`` for the top ones.
        Returns ``(vd, z)`` (empty when the model has none).
        """
        if not self.nv + self.nz:
            return ca.MX(0, 1), ca.MX(0, 1)
        J, F0 = self.functions["extras"](q, u, v, t, p, w)
        sol = ca.solve(J, -F0, "qr")
        nhd = self.nhd
        hd = sol[0:nhd, 0] if nhd else ca.MX(0, 1)
        z = sol[nhd:nhd + self.nz, 0] if self.nz else ca.MX(0, 1)
        if not self.nv:
            return ca.MX(0, 1), z
        vd = ca.vertcat(v, hd)[self._vd_index]
        return vd, z

    def xdot_function(self) -> ca.Function:
        """``xdot(x, t, p, w)``: the stabilized right-hand side with the compiled gains
        (built once; used by results to evaluate accelerations)."""
        F = self.__dict__.get("_xdot_fn")
        if F is None:
            nx = self.nq + self.nu + self.nv
            x, t = ca.MX.sym("x", nx), ca.MX.sym("t")
            p, w = ca.MX.sym("p", len(self.p_names)), ca.MX.sym("w", len(self.w_names))
            xdot, _, _ = self.rhs_mx(x, t, p, w, ca.DM(self.H), ca.DM(self.K))
            F = self._xdot_fn = ca.Function("xdot", [x, t, p, w], [xdot],
                                            ["x", "t", "p", "w"], ["xdot"])
        return F

    def rhs_mx(self, x: Any, t: Any, p: Any, w: Any, H: Any, K: Any) -> Any:
        """Stabilized index-1 right-hand side ``x' = f(x, t, p, w; H, K)`` as an MX graph.

        ``x = (q, u, v)``; returns ``(xdot, Lambda, z)``.
        """
        F = self.functions
        nq, nu = self.nq, self.nu
        q, u, v = x[:nq], x[nq:nq + nu], x[nq + nu:]
        vd, z = self.extras_mx(q, u, v, t, p, w)
        M = F["M"](q, p)
        h = F["h"](q, u, v, z, t, p, w)
        r = self.m + self.k
        lam = ca.MX(0, 1)
        if r:
            y, zc, C, c = F["constraints"](q, u, t, p)
            s = ca.mtimes(H, y) + ca.mtimes(K, zc)
            X = ca.solve(M, ca.horzcat(h, C.T), "ldl")
            Mih, MiCt = X[:, 0], X[:, 1:]
            S = ca.mtimes(C, MiCt)
            lam = regularized_solve(S, s - c - ca.mtimes(C, Mih))
            ud = Mih + ca.mtimes(MiCt, lam)
        else:
            ud = ca.solve(M, h, "ldl")
        qd = F["kinematics"](q, u, p)
        return ca.vertcat(qd, ud, vd), lam, z

    # ------------------------------------------------------------------ pickling
    def __reduce__(self):
        """Pickle support: the Model, the compiled Functions (serialized by CasADi) and the
        derivation record travel together; nothing is derived again on loading (see
        :mod:`mechdae.symbolic.pickling`). Caches rebuild on first use."""
        from .pickling import dump_payload, load_payload
        return load_payload, (dump_payload(self, self.parent.time),)

    def _pickle_state(self):
        """Attributes set by compile() (later additions are caches, rebuilt on use)."""
        keys = self.__dict__.get("_compiled_keys") or [
            k for k in self.__dict__ if k not in ("_xdot_fn", "_laws_cache", "_timestepping",
                                                  "_unified", "_mdae_contact_assembler")]
        state = {k: self.__dict__[k] for k in keys if k in self.__dict__}
        state["_integrators"] = {}
        return state

    def _repr_html_(self):
        """A table for Jupyter (:mod:`mechdae._display`)."""
        from .._display import system_html
        return system_html(self)

    def __repr__(self):
        return (f"System({self.name!r}: nq={self.nq}, nu={self.nu}, m={self.m}, k={self.k}, "
                f"contacts={len(self.contact_names)}, stabilization={self.stabilization!r})")
