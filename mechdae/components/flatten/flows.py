"""Pass 4: every flow, and the balance of flows at general nodes.

A flow declared by its component is its expression (``None``: a contact force, unknown as
an expression); a relation adds ``-lam dphi/ds`` to the flows of the potentials it uses
(``lam`` its multiplier, or for a relation that defines a node the balance of the other
flows there over its coefficient); the connector whose component defines a node takes
minus the sum of the others (Newton's third law at the node), a rigid connection adds its
multiplier; an unconnected flow is zero. At a node that nothing defines, ``sum of flows =
0`` is a general equation (a massless junction, Kirchhoff's current law).
"""
from collections import defaultdict

import casadi as ca

from ...errors import ModelError
from .._graph import UNKNOWN as _UNKNOWN
from .declare import comp_origin, derivatives

__all__ = ["flows", "structurally_zero"]


def structurally_zero(e):
    return e.is_zero() or (e.nnz() == 0)


def flows(F):
    """Set every flow placeholder in ``F.S``; ``F.declared`` ((id(connector), i) -> the
    component's expression or None) and ``F.energy_flow`` (the part of a flow that comes
    from its component's potential energy); add the node balances as equations."""
    _declared(F)
    extra = _relation_flows(F)
    _node_flows(F, extra)
    F.S.resolve(F.where)
    derivatives(F)
    _balances(F)


def _declared(F):
    F.declared = declared = {}           # (id(cn), i) -> expr or None
    F.energy_flow = energy_flow = {}     # (id(cn), i) -> the part of the flow from the energy
    for c in F.comps:
        for cn, exprs, energy in c._flows.values():
            for i in range(len(cn.flows)):
                declared[(id(cn), i)] = None if exprs is None else exprs[i]
                if isinstance(energy, list):
                    energy_flow[(id(cn), i)] = energy[i]
                elif energy and exprs is not None:
                    energy_flow[(id(cn), i)] = exprs[i]


def _relation_flows(F):
    """``(id(cn), i) -> [terms]``: what each relation row adds to the flows it uses."""
    members = F.N.members
    extra = defaultdict(list)
    for r in F.N.rels:
        phi = r["phi"]
        phs = [r_cn.potential_syms[i] for r_cn, i in r["used"]]
        if not phs or r["role"] == "dropped":
            continue
        Jp = ca.jacobian(phi, ca.vertcat(*phs))
        if r["role"] == "constraint":
            lam = F.lam_of.get(id(r))
            if lam is None:
                continue
            g = -ca.mtimes(Jp.T, lam)
            for k, (cn, i) in enumerate(r["used"]):
                extra[(id(cn), i)].append(g[k])
        elif r["role"] == "definer":
            cn0, i0 = r["conn"]
            root = r["root"]
            others = [cn.flow_syms[i] for cn, i in members[root]
                      if (id(cn), i) != (id(cn0), i0)]
            own = F.declared.get((id(cn0), i0))
            lam = (sum(others, ca.SX(0)) + (own if own is not None else 0)) / r["a"]
            for k, (cn, i) in enumerate(r["used"]):
                extra[(id(cn), i)].append(-lam * Jp[0, k])
    return extra


def _node_flows(F, extra):
    """Each flow placeholder's value: the defining connector balances the others; the rest
    take their declared expression, a rigid connection's multiplier and relation terms."""
    N, S, declared = F.N, F.S, F.declared
    prim = {(id(cn), i): root for root, (c, cn, i) in N.primary.items()}
    sec = {(id(cn), i): lam for (c, cn, i, e, root, name), lam in zip(N.secondary, F.sec_lam)}
    for root, lst in N.members.items():
        for cn, i in lst:
            key = (id(cn), i)
            ph = cn.flow_syms[i]
            if key in prim:
                others = [m.flow_syms[j] for m, j in lst if (id(m), j) != key]
                val = -sum(others, ca.SX(0))
            else:
                d = declared.get(key, ca.SX(0))
                if d is None and key in declared:
                    val = _UNKNOWN
                else:
                    val = d if d is not None else ca.SX(0)
                if key in sec:
                    val = val + sec[key]
            for t in extra.get(key, []):
                val = val + t
            S.set(ph, val)


def _balances(F):
    """``sum of flows = 0`` at every node that no component and no relation defines."""
    N, model = F.N, F.model
    rel_roots = {r.get("root") for r in N.rels}
    groots = [root for root in N.members
              if root not in N.defined_roots and root not in rel_roots]
    bals = F.S.apply([sum((cn.flow_syms[i] for cn, i in N.members[root]), ca.SX(0))
                      for root in groots])
    for root, bal in zip(groots, bals):
        lst = N.members[root]
        if ca.depends_on(bal, _UNKNOWN):
            raise ModelError(f"{F.where}: node {N.node_name(root)}: a contact force acts at a "
                             "node without inertia; connect the contact element to a mass or "
                             "an inertia")
        if structurally_zero(bal):
            F.P.append(f"node {', '.join(cn.path for cn, _ in lst)}: nothing determines its "
                       f"{lst[0][0].potentials[lst[0][1]]} (no component defines it and no "
                       "flow acts on it); connect it to a component that does (a mass, a "
                       "fixed point, a ground) or remove it")
            continue
        model.equation(bal, name=f"node {N.node_name(root)}")
        F.origin[f"node {N.node_name(root)}"] = F.origin[N.node_name(root)] = \
            _node_origin(lst)


def _node_origin(lst):
    """Provenance of a node's potential and balance equation: its connectors, or that the
    only one is connected to nothing (its flow is then zero)."""
    cn = lst[0][0]
    kind = cn.kind.lower()
    if len({id(m) for m, _ in lst}) == 1:
        return (f"{kind} '{cn.path}' of {comp_origin(cn.owner)} is connected to nothing "
                "(its flow is zero there); connect it where its flow has a path")
    names = ", ".join(f"'{m.path}'" for m, _ in lst[:8]) + (" ..." if len(lst) > 8 else "")
    comps = ", ".join(dict.fromkeys(comp_origin(m.owner) for m, _ in lst[:8]))
    return f"the node of the {kind}s {names} ({comps})"
