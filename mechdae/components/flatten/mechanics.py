"""Pass 5: kinetic and potential energies and generalized forces.

Each component's energies enter the Lagrangian; a potential energy that depends on a
general variable (a flange at a node without inertia) cannot, and the component's flows
act through virtual work instead. Every declared flow that is not already in a potential
energy acts on the coordinates by virtual work, ``Q = -(ds_node/dq)^T f``; a component's
own generalized forces are added on its coordinates.
"""
import casadi as ca

from ..._symbols import _info
from .flows import structurally_zero

__all__ = ["mechanics"]


def mechanics(F):
    """Add the energies and generalized forces to ``F.model``; ``F.coords`` is the column
    of its coordinates."""
    model, S = F.model, F.S
    F.coords = ca.vertcat(*[co["sym"] for co in model.coords]) if model.coords else \
        ca.SX(0, 1)
    allV = S.apply([ca.vertcat(*c._V) if c._V else ca.SX(0, 1) for c in F.comps])
    allT = S.apply([ca.vertcat(*c._T) if c._T else ca.SX(0, 1) for c in F.comps])
    gf_all = S.apply([Q for c in F.comps for Q, _ in c._gforces])
    gen_rows, gen_T = _on_general(F, allV, allT)
    gf_k = 0
    fs, vals = [], []
    for ic, (c, Vc, Tc) in enumerate(zip(F.comps, allV, allT)):
        use_energy = ic not in gen_rows
        for v in (ca.vertsplit(Vc) if Vc.numel() else []) if use_energy else []:
            model.potential_energy(v)
        for T in ca.vertsplit(Tc) if Tc.numel() else []:
            if ic in gen_T:
                F.P.append(_unsupported(c, F.N))
                continue
            model.kinetic_energy(T)
        _virtual_work(F, c, use_energy, fs, vals)
        for Q, cph in c._gforces:
            Qs = gf_all[gf_k]
            gf_k += 1
            q = S.get(cph) if S.has(cph) else None
            if q is None or not q.is_symbolic():
                F.P.append(f"{c.path}: generalized force on {cph}, which is not a coordinate "
                           "of this component")
                continue
            model.generalized_force(Qs, q)
    if fs and F.coords.numel():
        f_all, v_all = S.apply(fs), S.apply(vals)
        J = ca.jacobian(ca.vertcat(*v_all), F.coords)
        Q = -ca.mtimes(J.T, ca.vertcat(*f_all))
        for j, co in enumerate(model.coords):
            if not Q[j].is_zero():
                model.generalized_force(Q[j], co["sym"])


def _on_general(F, allV, allT):
    """Components whose potential energy depends on a general variable (they act through
    virtual work instead), and those whose kinetic energy does (a free point mass on a
    node nothing positions: a problem)."""
    gvec = ca.vertcat(*F.general) if F.general else ca.SX(0, 1)
    Vall = ca.vertcat(*[ca.sum1(v) if v.numel() else ca.SX(0) for v in allV])
    gen_rows = set(ca.jacobian(Vall, gvec).sparsity().row()) if gvec.numel() else set()
    Tall = ca.vertcat(*[ca.sum1(t) if t.numel() else ca.SX(0) for t in allT])
    gen_T = set()
    if gvec.numel():
        # an energy on a node nothing positions: it depends on the node's potential or only
        # on its rate (a free point mass)
        for ic, t in enumerate(ca.vertsplit(Tall)):
            if any(_info(x) is not None and _info(x).kind in ("variable", "vrate")
                   for x in ca.symvar(t)):
                gen_T.add(ic)
    return gen_rows, gen_T


def _virtual_work(F, c, use_energy, fs, vals):
    """Append ``c``'s declared flows (less the part its potential energy already gives)
    and the node values they act on to ``fs`` and ``vals``."""
    N = F.N
    for cn in c._connectors:
        for i in range(len(cn.flows)):
            key = (id(cn), i)
            d = F.declared.get(key)
            if d is None:
                continue
            if key in F.energy_flow and use_energy:
                d = d - F.energy_flow[key]
                if structurally_zero(d) or ca.simplify(d).is_zero():
                    continue
            fs.append(d)
            vals.append(N.node_val[N.root_of(cn, i)])


def _unsupported(c, N):
    """Message for an inertia whose connectors no component positions."""
    free = [cn for cn in c._connectors
            if any(N.root_of(cn, i) in N.general_roots for i in range(len(cn.potentials)))]
    hint = getattr(free[0], "support_hint", None) if free else None
    if not hint:
        return (f"{c.path}: kinetic energy depends on a general variable (a node without "
                "inertia); connect the inertia to a defined node")
    return (f"{c.path}: {', '.join(repr(cn.path) for cn in free)} "
            f"{'is' if len(free) == 1 else 'are'} not positioned by anything "
            f"(no joint, fixed frame or defining component reaches it); {hint}")
