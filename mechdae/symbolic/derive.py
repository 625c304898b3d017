"""Derivation of the equations of motion (the only place where equations are derived).

Governing equations (speed level, Lagrange-d'Alembert / virtual power).  With the
kinematics ``q' = N(q) u`` and a Lagrangian kinetic energy ``T(q, q', t)``:

    N^T [ d/dt(dT/dq') - dT/dq + dV/dq - Q_q ] = 0,   q'' = N u' + N' u,

so that, with ``M_q = d^2T/dq'^2``,

    M = N^T M_q N + M_NE,
    h = N^T [Q_q + dT/dq - dV/dq - (d/dq dT/dq') q' - d/dt_explicit(dT/dq') - M_q N' u]
        + h_NE + Q_u,

where ``M_NE, h_NE`` collect the Newton-Euler rotational blocks of spatial rigid bodies
(``J omega' = -omega x J omega``) and ``Q_u`` the generalized forces of forces applied at
body points (``Q_u = (dv_P/du)^T F``).  Constraints: ``phi(q, t)``, ``G = dphi/dq N``;
``psi = A u + b``.  Everything is CasADi SX, differentiated with jacobian/jtimes; no
symbolic inverse of ``M`` is formed.

Handed inertia terms (internal hook, set only by the multibody tree fast path of the
flattening, :mod:`mechdae.components.flatten.tree`): ``model._inertia = (M_q, c, T)`` with
``M_q(q, p)`` the mass matrix in the coordinates' rates, ``c(q, q', p) = dT/dq -
d/dt(dT/dq') + M_q q''`` (minus the Coriolis and centrifugal terms) and ``T`` the kinetic
energy term they belong to. When ``model.T_terms`` is exactly ``[T]`` (the same object;
``Model.substitute`` substitutes into ``M_q`` and ``c`` with ``T``, so ``compile(evaluate=
...)`` keeps them; a term added since turns the hook off), ``M_q`` and ``c`` replace ``d^2T/dq'^2`` and ``dT/dq - (d/dq dT/dq') q' - d/dt_explicit
(dT/dq')`` above; ``T`` is still used for the energy output, and every other term (``V``,
forces, ``N``, constraints, contacts) is as without the hook.
"""
import time as _time

import casadi as ca

from .._symbols import _info
from .reduction import reduce_general, stabilize_general

__all__ = ["derive"]


class Derived:
    """Plain record of the symbolic results of :func:`derive` (SX expressions)."""


def _vc(items):
    return ca.vertcat(*items) if items else ca.SX(0, 1)


def derive(model):
    """Derive all symbolic ingredients of ``model``; collect problems instead of raising.

    The passes, in order: the symbols and orderings (:func:`_symbols`), the kinematics
    ``q' = N(q) u`` (:func:`_kinematics`, :func:`_check_kinematics`), the energies
    (:func:`_energies`), the mass matrix and generalized forces (:func:`_dynamics`), the
    constraints (:func:`_constraints`), the general equations (:func:`_general_equations`)
    and the contacts (:func:`_contacts`); each fills its part of the record and appends
    its problems.

    Returns
    -------
    (Derived, list of str)
    """
    P = []       # problems
    d = Derived()
    P.extend(model.problems)
    _symbols(model, d)
    rates, qd_expr, sub_from, sub_to = _kinematics(model)
    s = _Scope(model, d, P, rates, sub_from, sub_to)
    _check_kinematics(s, qd_expr)
    T, V = _energies(s)
    _dynamics(s, T, V, qd_expr)
    _check_mass_matrix(s)
    _constraints(s, qd_expr)
    _general_equations(s)
    _contacts(s, qd_expr)
    return d, P


def _depends(e, x):
    """Whether ``e`` depends on ``x`` (False when either is empty)."""
    return x.numel() > 0 and e.numel() > 0 and ca.depends_on(e, x)


class _Scope:
    """What the passes of :func:`derive` share: the model, the record ``d``, the problems
    ``P``, the substitution of declared kinematics and the symbol membership checks.

    Parameters
    ----------
    model : Model
    d : Derived
        With the symbols set (:func:`_symbols`).
    P : list of str
        Problems (appended to).
    rates : SX
        The rates ``der(q)`` of the coordinates.
    sub_from, sub_to : SX
        Rates of the coordinates with declared kinematics and their expressions ``N(q) u``.
    """

    def __init__(self, model, d, P, rates, sub_from, sub_to):
        self.model, self.d, self.P = model, d, P
        self.mid = model._id
        self.rates, self.sub_from, self.sub_to = rates, sub_from, sub_to
        self.nq, self.nu = d.q.numel(), d.u.numel()
        self.allowed = {s.element_hash() for s in ca.symvar(_vc(
            [d.q, d.u, rates, d.p, d.w, d.v, d.vd, d.z, d.t]))}

    def sub(self, e):
        """``e`` with the rates of coordinates with declared kinematics replaced by ``N u``."""
        if self.sub_from.numel() == 0 or e.numel() == 0:
            return e
        return ca.substitute(e, self.sub_from, self.sub_to)

    def check_symbols(self, label, e):
        """Whether every symbol of ``e`` belongs to the model (each one that does not, and
        each multiplier or acceleration, is a problem naming ``label``)."""
        P, model = self.P, self.model
        bad = []
        for s in ca.symvar(e):
            if s.element_hash() not in self.allowed:
                info = _info(s)
                if info is not None and info.kind in ("multiplier", "acceleration"):
                    P.append(f"{label}: uses the {info.kind} '{info.name}', which only outputs "
                             "may use (m.output); accelerations and constraint forces follow "
                             "from the equations compile() derives")
                    continue
                if info is not None and info.model_id == self.mid:
                    continue
                bad.append(str(s))
        for b in bad:
            P.append(f"{label}: uses symbol '{b}' that does not belong to model "
                     f"'{model.name}'; create every symbol with this model's coordinates(), "
                     "parameter(), input(), variable() or rigid_body()")
        return not bad

    def check_symbols_quiet(self, e):
        """Whether :meth:`check_symbols` would find nothing in ``e`` (no problems added)."""
        for s in ca.symvar(e):
            if s.element_hash() not in self.allowed:
                info = _info(s)
                if info is None or info.model_id != self.mid or \
                        info.kind in ("multiplier", "acceleration"):
                    return False
        return True


def _symbols(model, d):
    """The symbol vectors ``q, u, t, p, w`` and the orderings by name; ``v`` holds every
    symbol of the general variables for the membership checks (the structural analysis,
    :func:`mechdae.symbolic.reduction.reduce_general`, decides which are states)."""
    coords = model.coords
    speeds = model.speeds_
    d.q = _vc([c["sym"] for c in coords])
    d.u = _vc([s["sym"] for s in speeds])
    d.t = model.time
    d.p = _vc([p["sym"] for p in model.params])
    d.w = _vc([w["sym"] for w in model.inputs])
    # every symbol of the general variables (values and rates of any order); which of
    # them are states, highest derivatives or algebraic is decided by the structural
    # analysis at the end (mechdae.symbolic.reduction)
    varsyms = []
    for v in model.variables:
        varsyms.append(v["sym"])
        varsyms.extend(v.get("rates") or ([v["rate"]] if v.get("rate") is not None else []))
    d.v = _vc(varsyms)      # for the membership checks below; reset by reduce_general
    d.vd = ca.SX(0, 1)
    d.z = ca.SX(0, 1)
    d.q_names = [c["name"] for c in coords]
    d.u_names = [s["name"] for s in speeds]
    d.p_names = [p["name"] for p in model.params]
    d.w_names = [w["name"] for w in model.inputs]


def _kinematics(model):
    """The kinematics ``q' = N(q) u``: the rates of the coordinates, ``q'`` in the speeds
    (declared kinematics, else the rate itself) and the substitution of declared ones.

    Returns
    -------
    (SX, SX, SX, SX)
        ``rates``, ``qd``, ``sub_from`` (rates with declared kinematics), ``sub_to``.
    """
    coords = model.coords
    rates = _vc([c["rate"] for c in coords])
    sub_from, sub_to = [], []
    qd = []
    for c in coords:
        if c["name"] in model.kinematics_:
            e = model.kinematics_[c["name"]]
            sub_from.append(c["rate"])
            sub_to.append(e)
            qd.append(e)
        else:
            qd.append(c["rate"])
    return rates, _vc(qd), _vc(sub_from), _vc(sub_to)


def _check_kinematics(s, qd_expr):
    """Declared kinematics: symbols of the model, no inputs or extra variables, linear in
    the speeds; every declared speed appears in some kinematics."""
    d, P, model = s.d, s.P, s.model
    for name, e in model.kinematics_.items():
        s.check_symbols(f"kinematics of '{name}'", e)
        if _depends(e, d.w) or _depends(e, s.rates) or _depends(e, d.v) or _depends(e, d.z):
            P.append(f"kinematics of '{name}': may depend on coordinates, speeds, parameters "
                     "and time only")
        elif s.nu and not ca.is_linear(e, d.u):
            P.append(f"kinematics of '{name}': q' = N(q) u must be linear in the speeds")
    used_speeds = set()
    for x in ca.symvar(qd_expr) if qd_expr.numel() else []:
        used_speeds.add(x.element_hash())
    for sp in model.speeds_:
        if sp["coord"] is None and sp["sym"].element_hash() not in used_speeds:
            P.append(f"speed '{sp['name']}': appears in no kinematics; relate it to the "
                     "coordinates with m.kinematics({q: N(q) u})")


def _energies(s):
    """The kinetic and potential energies ``T``, ``V`` (sums of the model's terms), each
    term checked: ``T(q, q', p, t)``, ``V(q, p, t)``.

    Returns
    -------
    (SX, SX)
    """
    d, P, model = s.d, s.P, s.model
    T = sum(model.T_terms, ca.SX(0))
    V = sum(model.V_terms, ca.SX(0))
    for i, e in enumerate(model.T_terms):
        s.check_symbols("kinetic energy", e)
        if _depends(e, d.w):
            names = [n for n, x in zip(d.w_names, ca.vertsplit(d.w)) if ca.depends_on(e, x)]
            P.append(f"kinetic energy: depends on input(s) {', '.join(repr(n) for n in names)}; "
                     "an energy may depend on coordinates, their rates, parameters and time; "
                     "apply inputs with generalized_force()")
        declared = [sp for sp in model.speeds_ if sp["coord"] is None]
        for sp in declared:
            if ca.depends_on(e, sp["sym"]):
                P.append(f"kinetic energy: uses the declared speed '{sp['name']}' directly; write "
                         "the kinetic energy with der(q) (rates of coordinates)")
        if _depends(e, d.v) or _depends(e, d.z) or _depends(e, d.vd):
            P.append("kinetic energy: depends on extra variables; an energy may depend on "
                     "coordinates, their rates, parameters and time only")
    for e in model.V_terms:
        s.check_symbols("potential energy", e)
        if _depends(e, d.w):
            names = [n for n, x in zip(d.w_names, ca.vertsplit(d.w)) if ca.depends_on(e, x)]
            P.append(f"potential energy: depends on input(s) {', '.join(repr(n) for n in names)}; "
                     "apply inputs with generalized_force()")
        if _depends(e, d.u) or _depends(e, s.rates):
            P.append("potential energy: depends on velocities; V = V(q, t) (velocity-dependent "
                     "forces go into generalized_force())")
        if _depends(e, d.v) or _depends(e, d.z):
            P.append("potential energy: depends on extra variables")
    return T, V


def _dynamics(s, T, V, qd_expr):
    """Mass matrix and generalized forces ``M u' = h`` (the equations in the module
    docstring): Lagrange in q-space projected with ``N^T``, then the Newton-Euler blocks
    of spatial bodies, the forces on speeds and the forces applied at body points.

    Sets ``d.M, d.h, d.N, d.qd, d.T, d.V, d.has_energy``.
    """
    d, model = s.d, s.model
    sub = s.sub
    Mu, hu, N = _lagrange(s, T, V, qd_expr)
    Mu = sub(Mu)
    hu = sub(hu)
    uidx = {n: i for i, n in enumerate(d.u_names)}
    for b in model.bodies:
        if hasattr(b, "rotational_terms"):
            J, hb = b.rotational_terms()
            s.check_symbols(f"inertia of body '{b.name}'", J)
            ids = [uidx[f"{b.name}.w{a}"] for a in "xyz"]
            for i in range(3):
                hu[ids[i]] += hb[i]
                for j in range(3):
                    Mu[ids[i], ids[j]] += J[i, j]
    for Q, sname in model.speed_forces:
        s.check_symbols(f"generalized force on '{sname}'", Q)
        hu[uidx[sname]] += sub(Q)
    for F, vel in model.power_terms:
        s.check_symbols("applied force", F)
        vel = sub(vel)
        hu += ca.mtimes(ca.jacobian(vel, d.u).T, sub(F))
    d.M, d.h = Mu, hu
    d.N, d.qd = N, qd_expr
    d.T = sub(T + sum(model.T_report, ca.SX(0)))
    d.V = V
    d.has_energy = bool(model.T_terms or model.T_report)


def _lagrange(s, T, V, qd_expr):
    """Lagrange's equations in q-space (``M_q`` and the right-hand side, or the terms the
    flattening handed, :func:`_handed_inertia`) projected onto the speeds with ``N``.

    Returns
    -------
    (SX, SX, SX)
        ``M``, ``h`` (before the substitution of declared kinematics) and ``N``.
    """
    d, model = s.d, s.model
    nq, nu, rates = s.nq, s.nu, s.rates
    # Lagrange in q-space, projected with N^T
    handed = _handed_inertia(model, nq, nu)
    if handed is None:
        pm = ca.gradient(T, rates) if nq else ca.SX(0, 1)
        Mq = ca.jacobian(pm, rates) if nq else ca.SX(0, 0)
    else:
        Mq, c_T, space = handed
    Qq = ca.SX.zeros(nq)
    qidx = {n: i for i, n in enumerate(d.q_names)}
    for Q, cname in model.forces:
        s.check_symbols(f"generalized force on '{cname}'", Q)
        Qq[qidx[cname]] += Q
    if handed is not None and space == "u":
        # M and the velocity terms in the speeds (Newton-Euler over a tree): only the
        # forces on the coordinates are projected
        N = ca.jacobian(qd_expr, d.u) if nq and nu else ca.SX(nq, nu)
        return Mq, ca.mtimes(N.T, Qq - ca.gradient(V, d.q)) + c_T, N
    if handed is None:
        lag_rhs = Qq + ca.gradient(T, d.q) - ca.gradient(V, d.q) \
            - ca.jtimes(pm, d.q, rates) - ca.jacobian(pm, d.t)
    else:
        lag_rhs = Qq + c_T - ca.gradient(V, d.q)
    N = ca.jacobian(qd_expr, d.u) if nq and nu else ca.SX(nq, nu)
    identity = s.sub_from.numel() == 0
    if identity:
        # q' = u: N = I, N' u = 0 (skip products with the identity)
        perm = [d.u_names.index(f"der({n})") if f"der({n})" in d.u_names else None
                for n in d.q_names]
        Mu = Mq
        hu = lag_rhs
        ok_identity = all(pi == i for i, pi in enumerate(perm))
        if not ok_identity:
            Mu = ca.mtimes([N.T, Mq, N])
            hu = ca.mtimes(N.T, lag_rhs)
    else:
        Ndot_u = ca.jtimes(qd_expr, d.q, qd_expr)
        Mu = ca.mtimes([N.T, Mq, N])
        hu = ca.mtimes(N.T, lag_rhs - ca.mtimes(Mq, Ndot_u))
    return Mu, hu, N


def _check_mass_matrix(s):
    """Structural singularity of ``M``: a speed whose column of ``M`` is zero has no
    dynamics (a problem naming its coordinate)."""
    d, nu, Mu = s.d, s.nu, s.d.M
    speeds = s.model.speeds_
    for i, name in enumerate(d.u_names):
        if nu and Mu[:, i].nnz() == 0 or (nu and _is_zero_col(Mu, i)):
            owner = speeds[i]["coord"]
            what = f"coordinate '{owner}'" if owner else f"speed '{name}'"
            s.P.append(f"{what}: has no dynamics (no inertia: the mass matrix M has a zero "
                       f"row/column for '{name}'); give it kinetic energy (a mass) or remove it")


def _constraints(s, qd_expr):
    """Holonomic ``phi(q, t)`` and nonholonomic ``psi = A u + b`` constraints, checked,
    with ``G = dphi/dq N``, ``A``, ``b``, ``C = [G; A]``, ``y = phi``, ``z = (G u + phi_t,
    psi)`` and ``c = dz/dt`` at ``u' = 0``."""
    d, P, model = s.d, s.P, s.model
    sub, nu, rates, N = s.sub, s.nu, s.rates, d.N
    phis, d.hol = [], []
    for name, e in model.holonomic_:
        ok = s.check_symbols(f"holonomic constraint '{name}'", e)
        e = sub(e)
        if ok and (_depends(e, d.u) or _depends(e, rates)):
            P.append(f"holonomic constraint '{name}': depends on velocities; use nonholonomic() "
                     "for constraints on speeds")
        if ok and _depends(e, d.w):
            P.append(f"holonomic constraint '{name}': depends on an input; a constraint may "
                     "depend on coordinates, parameters and the model time m.time")
        if ok and (_depends(e, d.v) or _depends(e, d.z)):
            P.append(f"holonomic constraint '{name}': depends on extra variables")
        d.hol.append((name, int(e.numel())))
        phis.append(e)
    psis, d.nonhol = [], []
    for name, e in model.nonholonomic_:
        ok = s.check_symbols(f"nonholonomic constraint '{name}'", e)
        e = sub(e)
        if ok and _depends(e, d.w):
            P.append(f"nonholonomic constraint '{name}': depends on an input")
        elif ok and (_depends(e, d.v) or _depends(e, d.z)):
            P.append(f"nonholonomic constraint '{name}': depends on extra variables")
        elif ok and nu and not ca.is_linear(e, d.u):
            P.append(f"nonholonomic constraint '{name}': not linear in the velocities; "
                     "psi = A(q) u + b(q, t) must be linear in der(q) and the speeds")
        elif ok and not _depends(e, d.u):
            P.append(f"nonholonomic constraint '{name}': contains no velocity; use "
                     "holonomic() for constraints on coordinates")
        d.nonhol.append((name, int(e.numel())))
        psis.append(e)
    d.phi = _vc(phis)
    d.psi = _vc(psis)
    m, k = d.phi.numel(), d.psi.numel()
    d.m, d.k = m, k
    if m + k > nu:
        P.append(f"model '{model.name}': {m + k} constraint rows ({m} holonomic, {k} "
                 f"nonholonomic) but only {nu} speeds; remove redundant constraints or add "
                 "coordinates")
    d.Gq = ca.jacobian(d.phi, d.q)
    d.G = ca.mtimes(d.Gq, N) if m else ca.SX(0, nu)
    d.phi_t = ca.jacobian(d.phi, d.t) if m else ca.SX(0, 1)
    d.A = ca.jacobian(d.psi, d.u) if k else ca.SX(0, nu)
    d.b = ca.substitute(d.psi, d.u, ca.DM.zeros(nu)) if k and nu else d.psi
    d.C = ca.vertcat(d.G, d.A)
    d.y = d.phi
    zc = ca.vertcat(ca.mtimes(d.G, d.u) + d.phi_t, d.psi)
    d.zc = zc
    d.c = (ca.jtimes(zc, d.q, qd_expr) + ca.jacobian(zc, d.t)) if m + k else ca.SX(0, 1)


def _general_equations(s):
    """The general equations: structural analysis (Pantelides), index reduction, hidden
    constraints (:mod:`mechdae.symbolic.reduction`); the stabilization gains of the hidden
    constraints are applied by compile_model. The mechanics may use the states and
    algebraic variables of the general equations, not their solved highest derivatives."""
    d, P, model = s.d, s.P, s.model
    rows, row_names, row_owner = [], [], []
    # one membership pass over all equations; per equation only to name a culprit
    if model.equations and not s.check_symbols_quiet(_vc([e for _, e in model.equations])):
        for name, e in model.equations:
            s.check_symbols(f"equation '{name}'", e)
    for name, e in model.equations:
        e = s.sub(e)
        n = int(e.numel())
        for r in range(n):
            rows.append(e[r])
            row_names.append(name if n == 1 else f"{name}[{r}]")
            row_owner.append(name)
    F = _vc(rows)
    d.F = F
    allvars = d.v
    _mech_vars = [(label, e) for label, e in (("mass matrix", d.M), ("generalized forces", d.h))]
    _t_red = _time.perf_counter()
    _reduced = reduce_general(model, d, F, row_names, row_owner, P)
    d.t_index_reduction = _time.perf_counter() - _t_red
    if _reduced:
        stabilize_general(d, None, None, P)
        # the mechanics may use the states and algebraic variables, not the solved rates
        known = {x.element_hash() for x in ca.symvar(ca.vertcat(d.v, d.z))} if \
            d.v.numel() + d.z.numel() else set()
        every = {x.element_hash() for x in ca.symvar(allvars)} if allvars.numel() else set()
        for label, e in _mech_vars:
            bad = sorted({str(x) for x in ca.symvar(e) if x.element_hash() in every
                          and x.element_hash() not in known})
            if bad:
                P.append(f"{label}: use(s) {', '.join(repr(b) for b in bad)}, solved at each "
                         "instant from the general equations (a highest derivative); introduce "
                         "an algebraic variable equal to it with m.equation()")
    else:
        d.ext_J, d.ext_F0 = ca.SX(0, 0), ca.SX(0, 1)
    for e_h in [d.M]:
        if _depends(e_h, d.v) or _depends(e_h, d.z):
            P.append("mass matrix depends on extra variables")


def _contacts(s, qd_expr):
    """Contact kinematics: gaps ``g(q, t)`` and contact velocities ``v_c = W(q, t) u +
    w(q, t)`` (rheonomic contacts: ``w != 0``; ``d.Wt``), with their rates at ``u' = 0``
    (``d.Wdot_u``); one normal row per contact, then its tangent rows (:func:`_contact_rows`)."""
    d = s.d
    nu = s.nu
    gaps, Ws, wts, names_rows = [], [], [], []
    d.contacts = []
    for c in s.model.contacts:
        out = _contact_rows(s, c)
        if out is None:
            continue
        g, rows, wrows, nt = out
        gaps.append(g)
        Ws.extend(rows)
        wts.extend(wrows)
        d.contacts.append(dict(name=c.name, n_tangent=int(nt), restitution=c.restitution,
                               friction=c.friction, tangential_restitution=c.tangential_restitution,
                               law=c.law, friction_cone=getattr(c, "friction_cone", "coulomb")))
        names_rows.extend([f"{c.name}.n"] + [f"{c.name}.t{i}" for i in range(nt)])
    d.gap = _vc(gaps)
    d.W = ca.vertcat(*Ws) if Ws else ca.SX(0, nu)
    d.W_rows = names_rows
    Wt = ca.vertcat(*[ca.densify(e) for e in wts]) if wts else ca.SX(0, 1)
    # structurally zero (scleronomic contacts): an empty sparse column, so that consumers
    # can skip the term without evaluating it
    d.rheonomic = bool(wts) and not all(Wt[i].is_zero() for i in range(Wt.numel()))
    d.Wt = Wt if d.rheonomic else ca.SX(Wt.numel(), 1)
    vc = ca.mtimes(d.W, d.u) + d.Wt if d.rheonomic else ca.mtimes(d.W, d.u)
    d.Wdot_u = (ca.jtimes(vc, d.q, qd_expr) + ca.jacobian(vc, d.t)) if Ws else ca.SX(0, 1)


def _contact_rows(s, c):
    """Rows of contact ``c`` in ``v_c = W u + w``: the normal row from the gap (``w_n =
    dg/dt``), tangent rows from ``tangent`` (``w_t = d tangent/dt``) or from
    ``tangent_velocity`` (``W = d tv/du``, ``w = tv`` at ``u = 0``); problems to ``s.P``.

    Returns
    -------
    (SX, list of SX, list of SX, int) or None
        The gap, the rows of ``W``, the rows of ``w`` and the number of tangent rows; None
        when the gap is not a scalar.
    """
    d, P = s.d, s.P
    sub, nu, rates, N = s.sub, s.nu, s.rates, d.N
    ok = s.check_symbols(f"contact '{c.name}' gap", c.gap)
    g = sub(c.gap)
    if ok and (_depends(g, d.u) or _depends(g, rates)):
        P.append(f"contact '{c.name}': gap expression depends on speeds; a gap may depend on "
                 "coordinates, parameters and the model time m.time only")
    if ok and _depends(g, d.w):
        bad = [n for n, x in zip(d.w_names, ca.vertsplit(d.w)) if ca.depends_on(g, x)]
        P.append(f"contact '{c.name}': gap expression depends on input "
                 f"{', '.join(repr(b) for b in bad)}; a gap may depend on coordinates, "
                 "parameters and the model time m.time only")
    if ok and (_depends(g, d.v) or _depends(g, d.z)):
        P.append(f"contact '{c.name}': gap expression depends on extra variables")
    if g.numel() != 1:
        P.append(f"contact '{c.name}': gap must be a scalar expression")
        return None
    rows = [ca.mtimes(ca.jacobian(g, d.q), N)]
    wrows = [ca.jacobian(g, d.t)]
    nt = 0
    if c.tangent is not None:
        tg = sub(c.tangent)
        s.check_symbols(f"contact '{c.name}' tangent", tg)
        if _depends(tg, d.u) or _depends(tg, rates):
            P.append(f"contact '{c.name}': tangent depends on speeds; use tangent_velocity= "
                     "for velocity expressions")
        elif _depends(tg, d.w) or _depends(tg, d.v) or _depends(tg, d.z):
            P.append(f"contact '{c.name}': tangent may depend on coordinates, parameters "
                     "and the model time m.time only")
        rows.append(ca.mtimes(ca.jacobian(tg, d.q), N))
        wrows.append(ca.jacobian(tg, d.t))
        nt = tg.numel()
    elif c.tangent_velocity is not None:
        tv = sub(c.tangent_velocity)
        s.check_symbols(f"contact '{c.name}' tangent_velocity", tv)
        if nu and not ca.is_linear(tv, d.u):
            P.append(f"contact '{c.name}': tangent_velocity must be affine in the speeds "
                     "(W(q, t) u + w(q, t): linear in the speeds plus a term without "
                     "speeds, e.g. der(x) - v_belt)")
        elif _depends(tv, d.w) or _depends(tv, d.v) or _depends(tv, d.z):
            P.append(f"contact '{c.name}': tangent_velocity may depend on coordinates, "
                     "speeds, parameters and the model time m.time only")
        rows.append(ca.jacobian(tv, d.u))
        wrows.append(ca.substitute(tv, d.u, ca.DM.zeros(nu)) if nu else tv)
        nt = tv.numel()
    return g, rows, wrows, nt


def _handed_inertia(model, nq, nu):
    """``(M, c, space)`` handed by the flattening (``model._inertia``, see :func:`derive`):
    in the rates of the coordinates (``space`` ``"q"``) or in the speeds (``"u"``), or None:
    not set, or the kinetic energy is no longer the one they were computed from (a term
    added since: then they are derived from ``T``)."""
    handed = getattr(model, "_inertia", None)
    if handed is None:
        return None
    Mq, c, T_from = handed[:3]
    space = handed[3] if len(handed) > 3 else "q"
    if len(model.T_terms) != 1 or model.T_terms[0] is not T_from:
        return None
    n = nq if space == "q" else nu
    if Mq.shape != (n, n) or c.shape != (n, 1):
        raise ValueError(f"model '{model.name}': _inertia has M {Mq.shape} and c {c.shape} "
                         f"for {n} {'coordinates' if space == 'q' else 'speeds'} (set by the "
                         "flattening only)")
    return Mq, c, space


def _is_zero_col(M, i):
    """Whether column ``i`` of ``M`` has no structurally or symbolically nonzero entry
    (reads only the stored entries: linear in the number of nonzeros of the column)."""
    col = M[:, i]
    if col.nnz() == 0:
        return True
    return all(e.is_zero() for e in col.nonzeros())
