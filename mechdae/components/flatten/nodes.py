"""Nodes of a flattened model: connected potentials (union-find), the values that
definitions and relations give them, general variables for the rest, and the check that
every group of nodes has something that fixes its potentials.

Pass 2 of the flattening (:mod:`mechdae.components.flatten`): structural work on plain
integers and connector records; CasADi enters only where a relation is solved.
"""
import warnings
from collections import defaultdict

import casadi as ca

from ...errors import ModelWarning
from .._graph import UnionFind as _UF, hashes as _hashes
from .relations import define_by_relations

__all__ = ["Nodes", "resolve_nodes", "check_references", "warn_open_pins"]


class Nodes:
    """What :func:`resolve_nodes` found (plain record)."""

    def root_of(self, cn, i):
        return self.uf.find((id(cn), i))

    def node_name(self, root):
        cn, i = self.members[root][0]
        return f"{cn.path}.{cn.potentials[i]}"


def resolve_nodes(model, comps, conns, connections, coord_phs, general, P):
    """Join connected potentials into nodes and give each node its value.

    A node's value comes from the component that defines it (the preferred one: one that
    depends on no coordinate, e.g. a Fixed point; the others become ``secondary`` rigid
    connections), from a relation row solved for its one unknown potential (a tree joint,
    :mod:`.relations`), or else it is a new general variable of ``model`` (appended to
    ``general``). Problems are appended to ``P``.

    Returns
    -------
    Nodes
    """
    N = join(conns, connections)
    definitions(N, comps, coord_phs, P)
    N.rels = define_by_relations(N, comps, P)
    general_nodes(N, model, general)
    return N


def join(conns, connections):
    """Connected potentials as nodes: union-find over ``(id(connector), i)``; the members of
    each node in the connectors' order (:class:`Nodes` with ``uf``, ``pot_of``,
    ``members``)."""
    uf = _UF()
    pot_of = {}                          # placeholder hash -> (connector, i)
    for cn in conns:
        for i, ph in enumerate(cn.potential_syms):
            uf.add((id(cn), i))
            pot_of[ph.element_hash()] = (cn, i)
    for tup in connections:
        for i in range(len(tup[0].potentials)):
            for cn in tup[1:]:
                uf.union((id(tup[0]), i), (id(cn), i))
    members = defaultdict(list)
    for cn in conns:
        for i in range(len(cn.potentials)):
            members[uf.find((id(cn), i))].append((cn, i))
    N = Nodes()
    N.uf, N.pot_of, N.members = uf, pot_of, members
    N.node_val, N.defined_roots, N.primary, N.secondary = {}, set(), {}, []
    return N


def definitions(N, comps, coord_phs, P):
    """Values of the nodes that components define (``self.define``): the preferred
    definition (one that depends on no coordinate or potential, e.g. a Fixed point) gives
    the node its value (``primary``); each further one is a rigid connection to keep as a
    constraint (``secondary``: ``(component, connector, i, expr, root, name)``); two fixed
    values at one node are a problem."""
    members, node_val, root_of = N.members, N.node_val, N.root_of
    defs = defaultdict(list)
    for c in comps:
        for cn, exprs in c._defines:
            if cn.owner is not c:
                P.append(f"{c.path}: defines {cn.describe()}, which belongs to "
                         f"{cn.owner.path}; a component defines only its own connectors")
                continue
            for i, e in enumerate(exprs):
                defs[root_of(cn, i)].append((c, cn, i, e))
    pot_hashes = set(N.pot_of)

    def fixed_expr(e):
        hs = _hashes(e)
        return not (hs & coord_phs) and not (hs & pot_hashes)

    for root, lst in defs.items():
        order = sorted(range(len(lst)), key=lambda k: (not fixed_expr(lst[k][3]), k)) \
            if len(lst) > 1 else [0]
        c0, cn0, i0, e0 = lst[order[0]]
        node_val[root] = e0
        N.primary[root] = (c0, cn0, i0)
        N.defined_roots.add(root)
        for k in order[1:]:
            c, cn, i, e = lst[k]
            if fixed_expr(e) and fixed_expr(e0):
                P.append(f"node {', '.join(m.path for m, _ in members[root])}: its "
                         f"{cn.potentials[i]} is fixed twice (by {c0.path} and {c.path}); "
                         "remove one of them")
                continue
            N.secondary.append((c, cn, i, e, root, f"connect({cn.path}.{cn.potentials[i]})"))


def general_nodes(N, model, general):
    """Every node that nothing defines becomes a general variable of ``model`` named after
    its first connector (a massless junction, an electrical node voltage), appended to
    ``general``; relation rows without a role are constraints."""
    N.n_general_nodes = 0
    N.general_roots = set()
    for root in N.members:
        if root not in N.node_val:
            N.n_general_nodes += 1
            N.general_roots.add(root)
            v = model.variable(N.node_name(root), 0.0)
            general.append(v)
            N.node_val[root] = v
    for r in N.rels:
        if r["role"] is None:
            r["role"] = "constraint"


def warn_open_pins(N, model):
    """Warn (:class:`mechdae.errors.ModelWarning`) for each connector that needs a
    reference potential (an electrical pin) and is connected to nothing.

    The model is still determined -- an unconnected flow is zero (Modelica's rule), so the
    component carries no current: a capacitor keeps its start voltage, a resistor drops
    none -- but a circuit element with an open pin is almost always a missing
    ``connect``. Mechanical flanges and frames are left alone: a free end is common there.
    """
    open_ = [cn for lst in N.members.values()
             if len({id(m) for m, _ in lst}) == 1 and lst[0][0].needs_reference
             for cn in (lst[0][0],)]
    if not open_:
        return
    by_comp = defaultdict(list)
    for cn in open_:
        by_comp[cn.owner].append(cn)
    lines = [f"'{cn.path}' ({type(c).__name__} '{c.path}')" for c, cns in by_comp.items()
             for cn in cns]
    more = " ..." if len(lines) > 8 else ""
    warnings.warn(
        f"model '{model.name}': {'pin' if len(lines) == 1 else 'pins'} "
        f"{', '.join(lines[:8])}{more} {'is' if len(lines) == 1 else 'are'} connected to "
        "nothing: an open pin carries no current, so the component's current is zero (a "
        "capacitor keeps its start voltage, a resistor drops no voltage); connect each pin "
        "where its current has a path, or remove the component", ModelWarning, stacklevel=5)


def check_references(N, comps, P):
    """Every group of nodes joined through components (one domain at a time) needs a node
    whose potential something fixes -- a ground, a mass, a fixed point, a joint -- or its
    potentials are determined only up to a constant: a named problem in ``P``."""
    members, general_roots, root_of = N.members, N.general_roots, N.root_of
    ref = _UF()
    first = {}                           # root -> a connector there
    inert = set()                        # roots of components with inertia (reported apart)
    for c in comps:
        by_domain = defaultdict(list)
        for cn in c._connectors:
            for i in range(len(cn.potentials)):
                r_ = root_of(cn, i)
                by_domain[cn.domain].append(r_)
                first.setdefault(r_, cn)
                if c._T:
                    inert.add(r_)
        for rs in by_domain.values():
            for r_ in rs:
                ref.add(r_)
            for r_ in rs[1:]:
                ref.union(rs[0], r_)
    groups = defaultdict(list)
    for r_ in ref.p:
        groups[ref.find(r_)].append(r_)
    for g, roots in groups.items():
        if any(r_ not in general_roots for r_ in roots) or any(r_ in inert for r_ in roots):
            continue
        names = sorted({m.path for r_ in roots for m, _ in members[r_]})
        where = f"{', '.join(names[:8])}{' ...' if len(names) > 8 else ''}"
        cn0 = first[roots[0]]
        if cn0.needs_reference:
            P.append(f"circuit of {where}: no node has a reference potential, so its "
                     "potentials are undetermined; add a Ground (electrical.Ground) and "
                     "connect it to one node")
        else:
            P.append(f"{cn0.domain} connectors {where}: nothing fixes their "
                     f"{'/'.join(cn0.potentials)} (no mass or inertia, fixed point, joint or "
                     "prescribed motion among them), so they are determined only up to a "
                     "constant; connect them to one")

