"""Nodes of a flattened model: connected potentials (union-find), the values that
definitions and relations give them, general variables for the rest, and the check that
every group of nodes has something that fixes its potentials.

See :mod:`.flatten` for the whole procedure.
"""
import heapq
import warnings
from collections import defaultdict

import casadi as ca

from ..errors import ModelWarning
from ._graph import UnionFind as _UF, hashes as _hashes

__all__ = ["resolve_nodes", "check_references", "warn_open_pins"]


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
    connections), from a relation row solved for its one unknown potential (a tree joint),
    or else it is a new general variable of ``model`` (appended to ``general``). Problems
    are appended to ``P``.

    Returns
    -------
    Nodes
    """
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

    def node_name(root):
        cn, i = members[root][0]
        return f"{cn.path}.{cn.potentials[i]}"

    def root_of(cn, i):
        return uf.find((id(cn), i))

    node_val = {}
    defined_roots = set()
    primary = {}                         # root -> (component, connector, i)
    secondary = []                       # (component, connector, i, expr, root, name)
    defs = defaultdict(list)
    for c in comps:
        for cn, exprs in c._defines:
            if cn.owner is not c:
                P.append(f"{c.path}: defines {cn.describe()}, which belongs to "
                         f"{cn.owner.path}; a component defines only its own connectors")
                continue
            for i, e in enumerate(exprs):
                defs[root_of(cn, i)].append((c, cn, i, e))
    pot_hashes = set(pot_of)

    def fixed_expr(e):
        hs = _hashes(e)
        return not (hs & coord_phs) and not (hs & pot_hashes)

    for root, lst in defs.items():
        order = sorted(range(len(lst)), key=lambda k: (not fixed_expr(lst[k][3]), k)) \
            if len(lst) > 1 else [0]
        c0, cn0, i0, e0 = lst[order[0]]
        node_val[root] = e0
        primary[root] = (c0, cn0, i0)
        defined_roots.add(root)
        for k in order[1:]:
            c, cn, i, e = lst[k]
            if fixed_expr(e) and fixed_expr(e0):
                P.append(f"node {', '.join(m.path for m, _ in members[root])}: its "
                         f"{cn.potentials[i]} is fixed twice (by {c0.path} and {c.path}); "
                         "remove one of them")
                continue
            secondary.append((c, cn, i, e, root, f"connect({cn.path}.{cn.potentials[i]})"))

    # relations: define what they can (tree joints), the rest are constraints
    rels = []                            # dict per relation row
    groups = []                          # per relation: its forms and closure

    def rows_of(c, name, phi, gid, form, late=False):
        # each row on its own: a row defines one potential once the others are known
        # (a body's frame_b: the angle first, then the position that depends on it)
        rows = ca.vertsplit(ca.vec(phi)) if phi.numel() > 1 else [phi]
        out = []
        for k, row in enumerate(rows):
            used = [pot_of[h] for h in _hashes(row) if h in pot_of]
            bad = [cn for cn, _ in used if cn.owner is not c]
            if bad:
                P.append(f"{c.path}: relation '{name}' uses {bad[0].describe()} of another "
                         "component; a relation joins the component's own connectors")
            rname = name if len(rows) == 1 else f"{name}[{k}]"
            out.append(dict(comp=c, name=rname, phi=row, used=used, role=None, group=gid,
                            form=form, late=late))
        return out

    for c in comps:
        for rel in c._relations:
            gid = len(groups)
            late = int(rel.get("loop_cut", 0))      # 0, 1 (prefer), 2 (the user's cut)
            fwd = rows_of(c, rel["name"], rel["phi"], gid, 0, late)
            inv = rows_of(c, rel["name"], rel["inverse"], gid, 1, late) \
                if rel["inverse"] is not None else []
            groups.append(dict(comp=c, rel=rel, forms=(fwd, inv), chosen=None))
            rels.extend(fwd + inv)
    # units: a row on its own, or every row of one form of a relation with a closure (a
    # rotation's 9 entries define a frame's orientation together, or not at all)
    units = []
    for g in groups:
        for form in g["forms"]:
            if not form:
                continue
            if g["rel"]["closure"] is None and not g["forms"][1]:
                units.extend([r] for r in form)
            else:
                units.append(form)

    for r in rels:
        r["roots"] = [root_of(cn, i) for cn, i in r["used"]]

    def definable(r):
        """``(connector, i, coefficient)`` when the row can be solved for its one unknown
        potential, ``()`` when it has none, else None."""
        unresolved = [k for k, root in enumerate(r["roots"]) if root not in node_val]
        if not unresolved:
            return ()
        if len(unresolved) != 1 or r["phi"].numel() != 1:
            return None
        cn, i = r["used"][unresolved[0]]
        ph = cn.potential_syms[i]
        if not ca.is_linear(r["phi"], ph):
            return None
        a = ca.jacobian(r["phi"], ph)
        return None if a.is_zero() else (cn, i, a)

    # worklist: a unit is looked at again when a node it uses gets its value; relations that
    # prefer to close loops (a revolute) define frames only when no other relation can, one
    # at a time: a tree grows through its rigid parts first, and loops close at its joints
    users = defaultdict(set)
    for k, unit in enumerate(units):
        for r in unit:
            for root in r["roots"]:
                users[root].add(k)
    queues = ([], [], [])                # heaps of unit indices: ordinary, loop-cut
    for k, unit in enumerate(units):
        heapq.heappush(queues[unit[0]["late"]], k)
    queued = set(range(len(units)))

    def act(k):
        """Define what unit ``k`` can; returns the roots it gave values (None: nothing)."""
        unit = units[k]
        if any(r["role"] is not None for r in unit):
            return None
        ds = [definable(r) for r in unit]
        if all(d == () for d in ds):
            for r in unit:
                r["role"] = "constraint"
            return []
        if any(d is None or d == () for d in ds) or \
                len({root_of(d[0], d[1]) for d in ds}) != len(ds):
            return None
        new = []
        for r, (cn, i, a) in zip(unit, ds):
            ph = cn.potential_syms[i]
            root = root_of(cn, i)
            node_val[root] = -ca.substitute(r["phi"], ph, ca.SX(0)) / a
            r.update(role="definer", root=root, conn=(cn, i), a=a)
            new.append(root)
        g = groups[unit[0]["group"]]
        if g["chosen"] is None:
            # the form that defines is the relation; the other is dropped
            g["chosen"] = unit[0]["form"]
            for o in g["forms"][1 - unit[0]["form"]]:
                o["role"] = "dropped"
        return new

    while queues[0] or queues[1]:
        late = next(level for level, q in enumerate(queues) if q)
        k = heapq.heappop(queues[late])
        queued.discard(k)
        new = act(k)
        for root in new or ():
            for u in users[root]:
                if u not in queued and all(r["role"] is None for r in units[u]):
                    queued.add(u)
                    heapq.heappush(queues[units[u][0]["late"]], u)
    for g in groups:
        fwd, inv = g["forms"]
        if not inv and g["rel"]["closure"] is None:
            continue
        if g["chosen"] is None:
            # no row defines anything: the relation closes a loop (or joins known frames)
            for r in inv:
                r["role"] = "dropped"
            clo = g["rel"]["closure"]
            if clo is not None:
                for r in fwd:
                    r["role"] = "dropped"
                new = rows_of(g["comp"], g["rel"]["name"], clo, None, 0)
                for r in new:
                    r["role"] = "constraint"
                rels.extend(new)
        elif g["rel"]["closure"] is not None and any(
                r["role"] in (None, "constraint") for r in g["forms"][g["chosen"]]):
            P.append(f"{g['comp'].path}: relation '{g['rel']['name']}' determines part of a "
                     "frame that is also determined elsewhere (connect each frame to one "
                     "joint path, or cut the loop at a joint)")
    n_general_nodes = 0
    general_roots = set()
    for root in members:
        if root not in node_val:
            n_general_nodes += 1
            general_roots.add(root)
            v = model.variable(node_name(root), 0.0)
            general.append(v)
            node_val[root] = v
    for r in rels:
        if r["role"] is None:
            r["role"] = "constraint"
    N = Nodes()
    N.uf, N.pot_of, N.members, N.node_val = uf, pot_of, members, node_val
    N.defined_roots, N.primary, N.secondary, N.rels = defined_roots, primary, secondary, rels
    N.general_roots, N.n_general_nodes = general_roots, n_general_nodes
    return N


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
        "where its current has a path, or remove the component", ModelWarning, stacklevel=4)


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

