"""The compiled, frozen System: named CasADi Functions plus names and defaults."""
import math

import casadi as ca
import numpy as np

from .linalg import regularized_solve

__all__ = ["System"]

_ASSEMBLY = None


def _number(val, where, name, model):
    """``float(val)``, or a ValueError naming the entry (``params={"L": "abc"}``)."""
    try:
        return float(val)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: value of '{name}' for model '{model}' is {val!r}, not a "
                         f"number; give a float ({where}={{{name!r}: 1.0}})") from None


def _contact_assembly():
    """``mechdae.contact.assembly`` (imported on first use: contacts are optional)."""
    global _ASSEMBLY
    from ..contact import assembly
    _ASSEMBLY = assembly
    return assembly


def _F(name, ins, outs, in_names, out_names):
    return ca.Function(name, ins, outs, in_names, out_names)


class System:
    """A compiled model (frozen): named CasADi Functions and the System's orderings.

    Created by :meth:`mechdae.Model.compile`; never built directly.  Parameters stay
    symbolic (input ``p`` of every Function), so one System serves any parameter values.

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
    def extras_mx(self, q, u, v, t, p, w):
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

    def xdot_function(self):
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

    def rhs_mx(self, x, t, p, w, H, K):
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

    # ------------------------------------------------------------------ values
    def param_vector(self, params=None):
        """Parameter vector in System order from a dict (names left out: defaults)."""
        pv = self.p_defaults.copy()
        if params:
            index = self._name_index()["p"]
            for k, val in params.items():
                i = index.get(k)
                if i is None:
                    raise ValueError(self.unknown_parameter(k))
                pv[i] = val if type(val) is float else _number(val, "params", k, self.name)
        # inf is meaningful for some parameters (friction = inf: no sliding); NaN never is
        s2 = pv @ pv                       # NaN iff some entry is NaN (squares: no inf - inf)
        bad = [n for n, x in zip(self.p_names, pv) if np.isnan(x)] if s2 != s2 else ()
        if bad:
            raise ValueError(f"params: value of {', '.join(repr(b) for b in bad)} is NaN "
                             f"for model '{self.name}'; give a number")
        return pv

    def unknown_parameter(self, name):
        """The message for ``params={name: ...}`` naming no parameter of this System (an
        evaluated one says so, with its value and the fix)."""
        ev = getattr(self, "evaluated", {})
        if name in ev:
            return (f"parameter '{name}' of model '{self.name}' was evaluated at compile "
                    f"(compile(evaluate=...)): its value {ev[name]!r} is part of the "
                    "equations; compile without evaluating it to vary it")
        return (f"unknown parameter '{name}' for model '{self.name}'; "
                f"parameters: {', '.join(self.p_names) or 'none'}")

    def state_arrays(self, q=None, v=None, given_v=False):
        """``(q, u, v_extra, given_q, given_u)`` arrays from dicts/arrays (defaults filled).

        ``q`` dict keys: coordinate names or names of states of the general equations
        (``"x"``, ``"der(x)"``, ...); ``v`` keys: speed names, coordinate names for
        coordinates whose speed is ``der(x)``, or a variable ``x`` of derivative order >= 2
        (meaning ``der(x)``).  With ``given_v=True`` a sixth array flags the general states
        that were given.
        """
        qa, ua, va = self.q_defaults.copy(), self.u_defaults.copy(), self.v_defaults.copy()
        gq = np.zeros(self.nq, bool)
        gu = np.zeros(self.nu, bool)
        gv = np.zeros(self.nv, bool)
        index = self._name_index()
        if q is not None:
            if isinstance(q, dict):
                for k, val in q.items():
                    i = index["q"].get(k)
                    if i is not None:
                        qa[i] = val if type(val) is float else _number(val, "q0", k, self.name)
                        gq[i] = True
                    elif k in index["v"]:
                        i = index["v"][k]
                        va[i] = _number(val, "q0", k, self.name)
                        gv[i] = True
                    else:
                        raise ValueError(f"q0: unknown coordinate '{k}' for model '{self.name}'; "
                                         f"coordinates: {', '.join(self.q_names + self.v_names)}")
            else:
                arr = np.asarray(q, dtype=float).ravel()
                if arr.size not in (self.nq, self.nq + self.nv):
                    raise ValueError(f"q0: expected {self.nq} values (System order "
                                     f"{self.q_names}), got {arr.size}")
                qa[:] = arr[:self.nq]
                if arr.size > self.nq:
                    va[:] = arr[self.nq:]
                    gv[:] = True
                gq[:] = True
        if v is not None:
            if isinstance(v, dict):
                coord_speed = index["coord_speed"]
                for k, val in v.items():
                    i = index["u"].get(k)
                    if i is not None:
                        ua[i] = val if type(val) is float else _number(val, "v0", k, self.name)
                        gu[i] = True
                        continue
                    name = coord_speed.get(k)
                    if name is None and self.v_order.get(k, 0) >= 2:
                        i = self.v_names.index(f"der({k})")
                        va[i] = _number(val, "v0", k, self.name)
                        gv[i] = True
                        continue
                    if name is None:
                        raise ValueError(f"v0: unknown speed '{k}' for model '{self.name}'; "
                                         f"speeds: {', '.join(self.u_names)}")
                    i = index["u"][name]
                    ua[i] = _number(val, "v0", k, self.name)
                    gu[i] = True
            else:
                arr = np.asarray(v, dtype=float).ravel()
                if arr.size != self.nu:
                    raise ValueError(f"v0: expected {self.nu} values (System order "
                                     f"{self.u_names}), got {arr.size}")
                ua[:] = arr
                gu[:] = True
        for label, names, arr in (("q0", self.q_names, qa), ("v0", self.u_names, ua),
                                  ("q0", self.v_names, va)):
            if math.isfinite(arr @ arr):   # every entry finite (an overflow: checked below)
                continue
            bad = [n for n, x in zip(names, arr) if not np.isfinite(x)]
            if bad:
                raise ValueError(f"{label}: {', '.join(repr(b) for b in bad)} not finite for "
                                 f"model '{self.name}'; give finite values")
        if given_v:
            return qa, ua, va, gq, gu, gv
        return qa, ua, va, gq, gu

    def _name_index(self):
        """Name -> position dicts of q, u, v and p, and coordinate -> speed name (built
        once: the dict-by-name calls of impact() and simulate() look names up here)."""
        idx = self.__dict__.get("_names_idx")
        if idx is None:
            idx = self._names_idx = dict(
                q={n: i for i, n in enumerate(self.q_names)},
                u={n: i for i, n in enumerate(self.u_names)},
                v={n: i for i, n in enumerate(self.v_names)},
                p={n: i for i, n in enumerate(self.p_names)},
                coord_speed={c: s for s, c in self.speed_of.items()})
        return idx

    def _pw(self, params, inputs, t=0.0):
        pv = self.param_vector(params)
        from ..simulate.inputs import input_values
        wv = input_values(self, inputs, np.atleast_1d(float(t)), pv)[:, 0] if self.w_names \
            else np.zeros(0)
        return pv, wv

    def dynamics_terms(self, q, v, t=0.0, params=None, inputs=None):
        """Numerical ``M, h, G, A, b, phi, psi, W, Wt, Wdot_u, gap`` at one state.

        Parameters
        ----------
        q, v : dict by name or array in System order
        t : float
        params, inputs : dict, optional

        Returns
        -------
        dict of numpy arrays
        """
        qa, ua, va, _, _ = self.state_arrays(q, v)
        pv, wv = self._pw(params, inputs, t)
        F = self.functions
        z = np.zeros(self.nz)
        if self.nv + self.nz:
            z = np.array(F["extras_solve"](qa, ua, va, t, pv, wv)[1]).ravel()
        A, b = F["A"](qa, t, pv)
        y, zc, C, c = F["constraints"](qa, ua, t, pv)
        return dict(M=np.array(F["M"](qa, pv)), h=np.array(F["h"](qa, ua, va, z, t, pv, wv)).ravel(),
                    G=np.array(F["G"](qa, t, pv)), A=np.array(A), b=np.array(b).ravel(),
                    phi=np.array(y).ravel(), psi=np.array(F["psi"](qa, ua, t, pv)).ravel(),
                    C=np.array(C), c=np.array(c).ravel(),
                    W=np.array(F["W"](qa, t, pv)), Wt=np.array(F["Wt"](qa, t, pv)).ravel(),
                    Wdot_u=np.array(F["Wdot_u"](qa, ua, t, pv)).ravel(),
                    gap=np.array(F["gap"](qa, t, pv)).ravel())

    def contact_terms(self, q, v, t=0.0, params=None, inputs=None):
        """D-level contact ingredients ``M, h, W, Wt, Wdot_u, gap`` (plus ``G``, ``A``, ``c``).

        ``W`` stacks, per contact in :attr:`contact_names` order, the normal row ``w_n^T``
        then the tangential rows ``w_t^T`` (see :attr:`contact_rows`); the contact
        velocities are ``v_c = W u + Wt`` (``Wt``: the rheonomic part, zero for contacts
        that do not move with time) and their rates ``W u' + Wdot_u``.
        """
        return self.dynamics_terms(q, v, t, params, inputs)

    def contact_law(self, name):
        """Restitution, friction, tangential restitution and law of contact ``name``."""
        for c in self.contacts:
            if c["name"] == name:
                return dict(c)
        raise KeyError(f"model '{self.name}' has no contact '{name}'")

    def constraint_rank(self, q, t=0.0, params=None, tol=1e-9):
        """Numerical rank of the holonomic Jacobian ``G(q)`` (relative tolerance ``tol``)."""
        qa, _, _, _, _ = self.state_arrays(q, None)
        G = np.array(self.functions["G"](qa, t, self.param_vector(params)))
        if G.size == 0:
            return 0
        s = np.linalg.svd(G, compute_uv=False)
        return int(np.sum(s > tol * max(s[0], 1e-300)))

    # ------------------------------------------------------------------ drivers
    def simulate(self, t_final, q0=None, v0=None, params=None, inputs=None, method="auto",
                 rtol=None, atol=None, output_times=None, initialize=True,
                 stabilization="compiled", **options):
        """Simulate from ``t = 0`` (or ``output_times[0]``) to ``t_final``.

        Parameters
        ----------
        t_final : float
            End time (s).
        q0, v0 : dict by name or array in System order, optional
            Initial coordinates / speeds; names left out take their defaults.
        params : dict, optional
            Parameter values (no recompilation).
        inputs : dict, optional
            ``{name: constant | (k, 2) samples | f(t)}``.
        method : str
            ``"auto"``/``"smooth"``/``"cvodes"`` (ODE form), ``"idas"`` (DAE form); hybrid
            methods register themselves in :data:`mechdae.simulate.METHODS`.
        rtol, atol : float, optional
            Integrator tolerances; ``None`` (default) lets the method choose: 1e-8 / 1e-10
            for the smooth methods (and ``"auto"`` without contacts), 1e-10 / 1e-12 for
            ``"event"`` and ``"auto"`` with contacts (event times inherit the integration
            error); fixed-step methods ignore them.
        output_times : array, optional
            Output grid (default 501 points on ``[0, t_final]``): finite, increasing, not
            past ``t_final`` (``t_final=None``: the last output time).
        initialize : bool
            Move the initial state to the nearest consistent one (report in
            ``Result.init_report``); ``False`` keeps it as given. A start inside a contact
            (gap < 0) is projected onto the gaps >= 0 without adding kinetic energy
            (``True``) or refused with a ValueError (``False``); see
            :mod:`mechdae.simulate.init_contacts`.
        stabilization : Baumgarte, Mukharlyamov, Projection, list, None, optional
            Override of the compiled stabilization (gains are parameters of the graph).
        **options
            The method's own options (:data:`mechdae.simulate.OPTIONS`).

        Returns
        -------
        Result

        Raises
        ------
        TypeError
            An option the method does not take (named, with a close match and the valid
            ones).
        ValueError
            A non-finite or empty horizon; ``"smooth"``, ``"cvodes"`` or ``"idas"`` on a
            model with contacts (which they would ignore); see
            :func:`mechdae.simulate.check_call`.
        """
        from ..simulate import simulate
        return simulate(self, t_final, q0=q0, v0=v0, params=params, inputs=inputs, method=method,
                        rtol=rtol, atol=atol, output_times=output_times, initialize=initialize,
                        stabilization=stabilization, **options)

    def to_casadi(self, form="ode", inputs=None):
        """Export the stabilized DAE (see :func:`mechdae.export.to_casadi`)."""
        from ..export import to_casadi
        return to_casadi(self, form=form, inputs=inputs)

    # ------------------------------------------------------------------ contacts
    def impact(self, q, v, active=None, all_solutions=False, params=None, t=0.0,
               method="auto", **options):
        """Impact at ``(q, v)``: post-impact speeds, impulses, modes, all solutions.

        Options: ``tol``, ``gap_tol``, ``inputs``, ``energy_gain``, ``max_boxes`` (the box
        budget of each search of sliding directions in space; ``out.exhaustive`` says
        whether the search was complete). See :func:`mechdae.contact.assembly.impact`
        (returns an ``ImpactResult``).
        """
        # the assembly module is looked up once (an import statement per call costs ~1 us
        # on a ~6 us fast path); states and parameters as arrays or dicts of floats by name
        # go straight into the fast path's buffers
        asm = _ASSEMBLY or _contact_assembly()
        if not options and not all_solutions and (method == "auto" or method == "enum"):
            out = asm._impact_fast(self, q, v, active, params, t)
            if out is not None:
                return out
            return asm._impact_general(self, q, v, active, False, params, t, method)
        return asm.impact(self, q, v, active, all_solutions, params, t, method, **options)

    def impact_batch(self, qs, vs, active=None, params=None, t=0.0, method="enum", **options):
        """Many impact problems in one vectorized pass (see
        :func:`mechdae.contact.assembly.impact_batch`; options ``tol``, ``gap_tol``,
        ``energy``, ``max_boxes``; ``out.exhaustive`` per problem)."""
        from ..contact.assembly import impact_batch
        return impact_batch(self, qs, vs, active=active, params=params, t=t, method=method,
                            **options)

    def sweep(self, params=None, q0=None, v0=None, **options):
        """Simulations over a grid or table of parameters and initial values: a pandas
        DataFrame, one row per run, serially or on threads, processes or a Dask cluster
        (see :func:`mechdae.sweep.sweep`)."""
        from ..sweep import sweep
        return sweep(self, params, q0, v0, **options)

    def impact_sweep(self, q=None, v=None, params=None, **options):
        """Impact problems over a grid or table of states and parameters: a pandas
        DataFrame, one row per problem (see :func:`mechdae.sweep.impact_sweep`)."""
        from ..sweep import impact_sweep
        return impact_sweep(self, q, v, params, **options)

    def painleve(self, q, v, active=None, params=None, t=0.0, **options):
        """Painlevé classification (unique | inconsistent | indeterminate) of the contact
        problem at ``(q, v)`` (see :func:`mechdae.contact.assembly.painleve`)."""
        from ..contact.assembly import painleve
        return painleve(self, q, v, active=active, params=params, t=t, **options)

    def contact_forces(self, q, v, active=None, params=None, t=0.0, **options):
        """Acceleration-level contact problem: forces, lift-off/stick/slide modes, ``u'``
        for every consistent solution (see :func:`mechdae.contact.assembly.contact_forces`)."""
        from ..contact.assembly import contact_forces
        return contact_forces(self, q, v, active=active, params=params, t=t, **options)

    def contact_problem(self, q, v, active=None, t=0.0, params=None, **options):
        """Contact-space problem (``D``, ``v_minus``, ``b``, ``B``, laws) at ``(q, v)``
        (see :func:`mechdae.contact.assembly.contact_problem`)."""
        from ..contact.assembly import contact_problem
        return contact_problem(self, q, v, active=active, t=t, params=params, **options)

    def ocp(self, N=50, t_final=1.0, method="multiple_shooting", controls=None, **options):
        """Optimal control problem with the model's inputs as controls (direct multiple
        shooting or collocation on ``casadi.Opti``, :class:`mechdae.export.OCP`; through
        contact: ``phases=[...]`` a fixed mode sequence, :class:`mechdae.export.HybridOCP`,
        or ``method="complementarity"``, :class:`mechdae.export.ContactImplicitOCP`)."""
        from ..export.ocp import ocp
        return ocp(self, N=N, t_final=t_final, method=method, controls=controls, **options)

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

    def __repr__(self):
        return (f"System({self.name!r}: nq={self.nq}, nu={self.nu}, m={self.m}, k={self.k}, "
                f"contacts={len(self.contact_names)}, stabilization={self.stabilization!r})")
