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
flattening, :mod:`mechdae.components.tree`): ``model._inertia = (M_q, c, T)`` with
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

    Returns
    -------
    (Derived, list of str)
    """
    P = []       # problems
    d = Derived()
    mid = model._id
    P.extend(model.problems)

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
    nq, nu = d.q.numel(), d.u.numel()

    # rates q' = N u; substitute rates of coordinates with declared kinematics
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
    qd_expr = _vc(qd)
    sub_from = _vc(sub_from)
    sub_to = _vc(sub_to)

    def sub(e):
        if sub_from.numel() == 0 or e.numel() == 0:
            return e
        return ca.substitute(e, sub_from, sub_to)

    # ---------------------------------------------------------------- symbol membership
    allowed = {s.element_hash() for s in ca.symvar(_vc(
        [d.q, d.u, rates, d.p, d.w, d.v, d.vd, d.z, d.t]))}

    def check_symbols(label, e):
        bad = []
        for s in ca.symvar(e):
            if s.element_hash() not in allowed:
                info = _info(s)
                if info is not None and info.kind in ("multiplier", "acceleration"):
                    P.append(f"{label}: uses the {info.kind} '{info.name}', which only outputs "
                             "may use (m.output); accelerations and constraint forces follow "
                             "from the equations compile() derives")
                    continue
                if info is not None and info.model_id == mid:
                    continue
                bad.append(str(s))
        for b in bad:
            P.append(f"{label}: uses symbol '{b}' that does not belong to model "
                     f"'{model.name}'; create every symbol with this model's coordinates(), "
                     "parameter(), input(), variable() or rigid_body()")
        return not bad

    def check_symbols_quiet(e):
        for s in ca.symvar(e):
            if s.element_hash() not in allowed:
                info = _info(s)
                if info is None or info.model_id != mid or \
                        info.kind in ("multiplier", "acceleration"):
                    return False
        return True

    def depends(e, x):
        return x.numel() > 0 and e.numel() > 0 and ca.depends_on(e, x)

    for name, e in model.kinematics_.items():
        check_symbols(f"kinematics of '{name}'", e)
        if depends(e, d.w) or depends(e, rates) or depends(e, d.v) or depends(e, d.z):
            P.append(f"kinematics of '{name}': may depend on coordinates, speeds, parameters "
                     "and time only")
        elif nu and not ca.is_linear(e, d.u):
            P.append(f"kinematics of '{name}': q' = N(q) u must be linear in the speeds")
    used_speeds = set()
    for s in ca.symvar(qd_expr) if qd_expr.numel() else []:
        used_speeds.add(s.element_hash())
    for s in speeds:
        if s["coord"] is None and s["sym"].element_hash() not in used_speeds:
            P.append(f"speed '{s['name']}': appears in no kinematics; relate it to the "
                     "coordinates with m.kinematics({q: N(q) u})")

    # ---------------------------------------------------------------- energies
    T = sum(model.T_terms, ca.SX(0))
    V = sum(model.V_terms, ca.SX(0))
    for i, e in enumerate(model.T_terms):
        check_symbols("kinetic energy", e)
        if depends(e, d.w):
            names = [n for n, s in zip(d.w_names, ca.vertsplit(d.w)) if ca.depends_on(e, s)]
            P.append(f"kinetic energy: depends on input(s) {', '.join(repr(n) for n in names)}; "
                     "an energy may depend on coordinates, their rates, parameters and time; "
                     "apply inputs with generalized_force()")
        declared = [s for s in speeds if s["coord"] is None]
        for s in declared:
            if ca.depends_on(e, s["sym"]):
                P.append(f"kinetic energy: uses the declared speed '{s['name']}' directly; write "
                         "the kinetic energy with der(q) (rates of coordinates)")
        if depends(e, d.v) or depends(e, d.z) or depends(e, d.vd):
            P.append("kinetic energy: depends on extra variables; an energy may depend on "
                     "coordinates, their rates, parameters and time only")
    for e in model.V_terms:
        check_symbols("potential energy", e)
        if depends(e, d.w):
            names = [n for n, s in zip(d.w_names, ca.vertsplit(d.w)) if ca.depends_on(e, s)]
            P.append(f"potential energy: depends on input(s) {', '.join(repr(n) for n in names)}; "
                     "apply inputs with generalized_force()")
        if depends(e, d.u) or depends(e, rates):
            P.append("potential energy: depends on velocities; V = V(q, t) (velocity-dependent "
                     "forces go into generalized_force())")
        if depends(e, d.v) or depends(e, d.z):
            P.append("potential energy: depends on extra variables")

    # Lagrange in q-space, projected with N^T
    handed = _handed_inertia(model, nq)
    if handed is None:
        pm = ca.gradient(T, rates) if nq else ca.SX(0, 1)
        Mq = ca.jacobian(pm, rates) if nq else ca.SX(0, 0)
    else:
        Mq, c_T = handed
    Qq = ca.SX.zeros(nq)
    qidx = {n: i for i, n in enumerate(d.q_names)}
    for Q, cname in model.forces:
        check_symbols(f"generalized force on '{cname}'", Q)
        Qq[qidx[cname]] += Q
    if handed is None:
        lag_rhs = Qq + ca.gradient(T, d.q) - ca.gradient(V, d.q) \
            - ca.jtimes(pm, d.q, rates) - ca.jacobian(pm, d.t)
    else:
        lag_rhs = Qq + c_T - ca.gradient(V, d.q)
    N = ca.jacobian(qd_expr, d.u) if nq and nu else ca.SX(nq, nu)
    identity = sub_from.numel() == 0
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
    Mu = sub(Mu)
    hu = sub(hu)
    uidx = {n: i for i, n in enumerate(d.u_names)}
    for b in model.bodies:
        if hasattr(b, "rotational_terms"):
            J, hb = b.rotational_terms()
            check_symbols(f"inertia of body '{b.name}'", J)
            ids = [uidx[f"{b.name}.w{a}"] for a in "xyz"]
            for i in range(3):
                hu[ids[i]] += hb[i]
                for j in range(3):
                    Mu[ids[i], ids[j]] += J[i, j]
    for Q, sname in model.speed_forces:
        check_symbols(f"generalized force on '{sname}'", Q)
        hu[uidx[sname]] += sub(Q)
    for F, vel in model.power_terms:
        check_symbols("applied force", F)
        vel = sub(vel)
        hu += ca.mtimes(ca.jacobian(vel, d.u).T, sub(F))
    d.M, d.h = Mu, hu
    d.N, d.qd = N, qd_expr
    d.T = sub(T + sum(model.T_report, ca.SX(0)))
    d.V = V
    d.has_energy = bool(model.T_terms or model.T_report)

    # structural singularity of M
    for i, name in enumerate(d.u_names):
        if nu and Mu[:, i].nnz() == 0 or (nu and _is_zero_col(Mu, i)):
            owner = speeds[i]["coord"]
            what = f"coordinate '{owner}'" if owner else f"speed '{name}'"
            P.append(f"{what}: has no dynamics (no inertia: the mass matrix M has a zero "
                     f"row/column for '{name}'); give it kinetic energy (a mass) or remove it")

    # ---------------------------------------------------------------- constraints
    phis, d.hol = [], []
    for name, e in model.holonomic_:
        ok = check_symbols(f"holonomic constraint '{name}'", e)
        e = sub(e)
        if ok and (depends(e, d.u) or depends(e, rates)):
            P.append(f"holonomic constraint '{name}': depends on velocities; use nonholonomic() "
                     "for constraints on speeds")
        if ok and depends(e, d.w):
            P.append(f"holonomic constraint '{name}': depends on an input; a constraint may "
                     "depend on coordinates, parameters and the model time m.time")
        if ok and (depends(e, d.v) or depends(e, d.z)):
            P.append(f"holonomic constraint '{name}': depends on extra variables")
        d.hol.append((name, int(e.numel())))
        phis.append(e)
    psis, d.nonhol = [], []
    for name, e in model.nonholonomic_:
        ok = check_symbols(f"nonholonomic constraint '{name}'", e)
        e = sub(e)
        if ok and depends(e, d.w):
            P.append(f"nonholonomic constraint '{name}': depends on an input")
        elif ok and (depends(e, d.v) or depends(e, d.z)):
            P.append(f"nonholonomic constraint '{name}': depends on extra variables")
        elif ok and nu and not ca.is_linear(e, d.u):
            P.append(f"nonholonomic constraint '{name}': not linear in the velocities; "
                     "psi = A(q) u + b(q, t) must be linear in der(q) and the speeds")
        elif ok and not depends(e, d.u):
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

    # ---------------------------------------------------------------- general equations
    # structural analysis (Pantelides), index reduction, hidden constraints; the
    # stabilization gains of the hidden constraints are applied by compile_model
    rows, row_names, row_owner = [], [], []
    # one membership pass over all equations; per equation only to name a culprit
    if model.equations and not check_symbols_quiet(_vc([e for _, e in model.equations])):
        for name, e in model.equations:
            check_symbols(f"equation '{name}'", e)
    for name, e in model.equations:
        e = sub(e)
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
        known = {s.element_hash() for s in ca.symvar(ca.vertcat(d.v, d.z))} if \
            d.v.numel() + d.z.numel() else set()
        every = {s.element_hash() for s in ca.symvar(allvars)} if allvars.numel() else set()
        for label, e in _mech_vars:
            bad = sorted({str(s) for s in ca.symvar(e) if s.element_hash() in every
                          and s.element_hash() not in known})
            if bad:
                P.append(f"{label}: use(s) {', '.join(repr(b) for b in bad)}, solved at each "
                         "instant from the general equations (a highest derivative); introduce "
                         "an algebraic variable equal to it with m.equation()")
    else:
        d.ext_J, d.ext_F0 = ca.SX(0, 0), ca.SX(0, 1)
    for e_h in [d.M]:
        if depends(e_h, d.v) or depends(e_h, d.z):
            P.append("mass matrix depends on extra variables")

    # ---------------------------------------------------------------- contacts
    # contact velocities v_c = W(q, t) u + w(q, t) (rheonomic contacts: w != 0): the normal
    # row from the gap (w_n = dg/dt), tangent rows from tangent (w_t = d tangent/dt) or from
    # tangent_velocity (W = d tv/du, w = tv at u = 0)
    gaps, Ws, wts, names_rows = [], [], [], []
    d.contacts = []
    for c in model.contacts:
        ok = check_symbols(f"contact '{c.name}' gap", c.gap)
        g = sub(c.gap)
        if ok and (depends(g, d.u) or depends(g, rates)):
            P.append(f"contact '{c.name}': gap expression depends on speeds; a gap may depend on "
                     "coordinates, parameters and the model time m.time only")
        if ok and depends(g, d.w):
            bad = [n for n, s in zip(d.w_names, ca.vertsplit(d.w)) if ca.depends_on(g, s)]
            P.append(f"contact '{c.name}': gap expression depends on input "
                     f"{', '.join(repr(b) for b in bad)}; a gap may depend on coordinates, "
                     "parameters and the model time m.time only")
        if ok and (depends(g, d.v) or depends(g, d.z)):
            P.append(f"contact '{c.name}': gap expression depends on extra variables")
        if g.numel() != 1:
            P.append(f"contact '{c.name}': gap must be a scalar expression")
            continue
        rows = [ca.mtimes(ca.jacobian(g, d.q), N)]
        wrows = [ca.jacobian(g, d.t)]
        nt = 0
        if c.tangent is not None:
            tg = sub(c.tangent)
            check_symbols(f"contact '{c.name}' tangent", tg)
            if depends(tg, d.u) or depends(tg, rates):
                P.append(f"contact '{c.name}': tangent depends on speeds; use tangent_velocity= "
                         "for velocity expressions")
            elif depends(tg, d.w) or depends(tg, d.v) or depends(tg, d.z):
                P.append(f"contact '{c.name}': tangent may depend on coordinates, parameters "
                         "and the model time m.time only")
            rows.append(ca.mtimes(ca.jacobian(tg, d.q), N))
            wrows.append(ca.jacobian(tg, d.t))
            nt = tg.numel()
        elif c.tangent_velocity is not None:
            tv = sub(c.tangent_velocity)
            check_symbols(f"contact '{c.name}' tangent_velocity", tv)
            if nu and not ca.is_linear(tv, d.u):
                P.append(f"contact '{c.name}': tangent_velocity must be affine in the speeds "
                         "(W(q, t) u + w(q, t): linear in the speeds plus a term without "
                         "speeds, e.g. der(x) - v_belt)")
            elif depends(tv, d.w) or depends(tv, d.v) or depends(tv, d.z):
                P.append(f"contact '{c.name}': tangent_velocity may depend on coordinates, "
                         "speeds, parameters and the model time m.time only")
            rows.append(ca.jacobian(tv, d.u))
            wrows.append(ca.substitute(tv, d.u, ca.DM.zeros(nu)) if nu else tv)
            nt = tv.numel()
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
    return d, P


def _handed_inertia(model, nq):
    """``(M_q, c)`` handed by the flattening (``model._inertia``, see :func:`derive`), or
    None: not set, or the kinetic energy is no longer the one they were computed from
    (a term added since: then they are derived from ``T``)."""
    handed = getattr(model, "_inertia", None)
    if handed is None:
        return None
    Mq, c, T_from = handed
    if len(model.T_terms) != 1 or model.T_terms[0] is not T_from:
        return None
    if Mq.shape != (nq, nq) or c.shape != (nq, 1):
        raise ValueError(f"model '{model.name}': _inertia has M {Mq.shape} and c {c.shape} "
                         f"for {nq} coordinates (set by the flattening only)")
    return Mq, c


def _is_zero_col(M, i):
    """Whether column ``i`` of ``M`` has no structurally or symbolically nonzero entry
    (reads only the stored entries: linear in the number of nonzeros of the column)."""
    col = M[:, i]
    if col.nnz() == 0:
        return True
    return all(e.is_zero() for e in col.nonzeros())
