"""Kinematic relations: tree joints solved as substitutions, the rest kept as constraints.

Part of pass 2 of the flattening (:mod:`mechdae.components.flatten`). A component's
relation ``phi(potentials) = 0`` (a gear ``phi_a - ratio phi_b``, a joint's frame_b from
its frame_a) is split into rows. A worklist solves a row for its one unknown potential as
soon as the others are known (a tree grows from the defined nodes: the row *defines* that
node, role ``"definer"``); a relation with an inverse form (frame_a from frame_b) uses the
form that defines and drops the other. Rows whose potentials are all known become
constraints (role ``"constraint"``): they close loops. Relations that prefer to close loops
(a revolute: ``loop_cut=1``; the user's ``cut=True``: 2) define frames only when no other
relation can, one at a time, so a tree grows through its rigid parts first and loops close
at its joints. A relation with a ``closure`` (a rotation's 9 entries) defines a frame's
orientation as a unit or closes the loop through its closure rows.
"""
import heapq
from collections import defaultdict

import casadi as ca

from .._graph import hashes as _hashes

__all__ = ["define_by_relations"]


def define_by_relations(N, comps, P):
    """Give nodes their values from the components' relations (see the module docstring).

    Parameters
    ----------
    N : Nodes
        Joined nodes with the definitions' values (``node_val``), extended in place.
    comps : list of Component
    P : list of str
        Problems, appended to.

    Returns
    -------
    list of dict
        One record per relation row: ``comp``, ``name``, ``phi``, ``used`` (its
        potentials), ``role`` (``"definer"`` with ``root``, ``conn``, ``a``; ``"constraint"``;
        ``"dropped"``; None: a constraint once general nodes are known).
    """
    R = _Rows(N, P)
    for c in comps:
        for rel in c._relations:
            R.add(c, rel)
    R.run()
    R.close()
    return R.rels


class _Rows:
    """The relation rows of a model and the worklist that solves them."""

    def __init__(self, N, P):
        self.N, self.P = N, P
        self.rels = []                   # dict per relation row
        self.groups = []                 # per relation: its forms and closure

    def rows_of(self, c, name, phi, gid, form, late=False):
        """Rows of ``phi``, each on its own: a row defines one potential once the others are
        known (a body's frame_b: the angle first, then the position that depends on it)."""
        rows = ca.vertsplit(ca.vec(phi)) if phi.numel() > 1 else [phi]
        pot_of = self.N.pot_of
        out = []
        for k, row in enumerate(rows):
            used = [pot_of[h] for h in _hashes(row) if h in pot_of]
            bad = [cn for cn, _ in used if cn.owner is not c]
            if bad:
                self.P.append(f"{c.path}: relation '{name}' uses {bad[0].describe()} of "
                              "another component; a relation joins the component's own "
                              "connectors")
            rname = name if len(rows) == 1 else f"{name}[{k}]"
            out.append(dict(comp=c, name=rname, phi=row, used=used, role=None, group=gid,
                            form=form, late=late))
        return out

    def add(self, c, rel):
        gid = len(self.groups)
        late = int(rel.get("loop_cut", 0))      # 0, 1 (prefer), 2 (the user's cut)
        fwd = self.rows_of(c, rel["name"], rel["phi"], gid, 0, late)
        inv = self.rows_of(c, rel["name"], rel["inverse"], gid, 1, late) \
            if rel["inverse"] is not None else []
        self.groups.append(dict(comp=c, rel=rel, forms=(fwd, inv), chosen=None))
        self.rels.extend(fwd + inv)

    def units(self):
        """A row on its own, or every row of one form of a relation with a closure (a
        rotation's 9 entries define a frame's orientation together, or not at all)."""
        units = []
        for g in self.groups:
            for form in g["forms"]:
                if not form:
                    continue
                if g["rel"]["closure"] is None and not g["forms"][1]:
                    units.extend([r] for r in form)
                else:
                    units.append(form)
        return units

    def definable(self, r):
        """``(connector, i, coefficient)`` when the row can be solved for its one unknown
        potential, ``()`` when it has none, else None."""
        node_val = self.N.node_val
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

    def act(self, unit):
        """Define what ``unit`` can; returns the roots it gave values (None: nothing)."""
        if any(r["role"] is not None for r in unit):
            return None
        ds = [self.definable(r) for r in unit]
        if all(d == () for d in ds):
            for r in unit:
                r["role"] = "constraint"
            return []
        root_of = self.N.root_of
        if any(d is None or d == () for d in ds) or \
                len({root_of(d[0], d[1]) for d in ds}) != len(ds):
            return None
        new = []
        for r, (cn, i, a) in zip(unit, ds):
            ph = cn.potential_syms[i]
            root = root_of(cn, i)
            self.N.node_val[root] = -ca.substitute(r["phi"], ph, ca.SX(0)) / a
            r.update(role="definer", root=root, conn=(cn, i), a=a)
            new.append(root)
        g = self.groups[unit[0]["group"]]
        if g["chosen"] is None:
            # the form that defines is the relation; the other is dropped
            g["chosen"] = unit[0]["form"]
            for o in g["forms"][1 - unit[0]["form"]]:
                o["role"] = "dropped"
        return new

    def run(self):
        """The worklist: a unit is looked at again when a node it uses gets its value;
        loop-cut units wait until no ordinary unit can act."""
        root_of = self.N.root_of
        for r in self.rels:
            r["roots"] = [root_of(cn, i) for cn, i in r["used"]]
        units = self.units()
        users = defaultdict(set)
        for k, unit in enumerate(units):
            for r in unit:
                for root in r["roots"]:
                    users[root].add(k)
        queues = ([], [], [])            # heaps of unit indices: ordinary, loop-cut
        for k, unit in enumerate(units):
            heapq.heappush(queues[unit[0]["late"]], k)
        queued = set(range(len(units)))
        while queues[0] or queues[1]:
            late = next(level for level, q in enumerate(queues) if q)
            k = heapq.heappop(queues[late])
            queued.discard(k)
            new = self.act(units[k])
            for root in new or ():
                for u in users[root]:
                    if u not in queued and all(r["role"] is None for r in units[u]):
                        queued.add(u)
                        heapq.heappush(queues[units[u][0]["late"]], u)

    def close(self):
        """Relations that defined nothing close a loop: through their closure rows where
        they have one (the forward rows dropped), else their forward rows."""
        for g in self.groups:
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
                    new = self.rows_of(g["comp"], g["rel"]["name"], clo, None, 0)
                    for r in new:
                        r["role"] = "constraint"
                    self.rels.extend(new)
            elif g["rel"]["closure"] is not None and any(
                    r["role"] in (None, "constraint") for r in g["forms"][g["chosen"]]):
                self.P.append(f"{g['comp'].path}: relation '{g['rel']['name']}' determines "
                              "part of a frame that is also determined elsewhere (connect "
                              "each frame to one joint path, or cut the loop at a joint)")
