"""1-D network fast path of the flattening: masses, springs, dampers and sources.

When a model is made only of the translational :class:`~.translational.Fixed`, ``Mass``,
``Spring``, ``Damper``, ``SpringDamper``, ``Force``, ``PositionSensor`` and
``SpeedSensor`` (or their rotational counterparts ``Fixed``, ``Inertia``, ``Spring``,
``Damper``, ``SpringDamper``, ``Torque``, ``AngleSensor``, ``SpeedSensor``), every node
holds exactly one connector that positions it -- a Fixed flange or one flange of one mass
(inertia) -- and the Model has no hand-written part, flattening writes the model directly:

- coordinates: the masses' positions (inertias' angles), with their parameters, names and
  start values declared in the generic path's order;
- kinetic energy ``m/2 v^2`` of every mass, potential energy ``c/2 (s_b - s_a - s_rel0)^2``
  of every spring, where a node's position is its Fixed flange's ``s0`` or its mass's
  ``s -+ L/2``;
- dampers (``d (v_b - v_a)``) and sources as generalized forces on the coordinates of the
  nodes they act on (the virtual work ``Q = -(ds/dq)^T f`` of the generic path);
- the outputs of the generic path with the same names and values: every flange's
  potential and flow (a flow is the element's force, positive into it; the connector that
  positions a node takes minus the sum of the others there), the elements' own outputs
  (``s_rel``, ``v_rel``, ``f``, ``lossPower``, a mass's acceleration ``a``, sensors).

Nothing of the generic machinery (alias elimination, node resolution, substitution to a
fixpoint, derivatives of placeholders) runs, and these components never build their
CasADi equations (:class:`LazyEquations`), so the model costs about as many CasADi calls as
the same model written by hand. Anything else -- a node positioned twice (a mass bolted to
a wall, two masses joined rigidly) or by nothing (a spring joined to a spring), a gear,
friction or electrical parts, an expression as a parameter, a source that depends on
something other than time and the Model's parameters and inputs, hand-written terms in the
Model -- takes the generic path (same answers; ``model._network_fast_path = False`` forces
it, which tests use to compare the two).
"""
import time

import casadi as ca

from ..dsl.model import _info
from ._graph import UnionFind
from .core import TIME

__all__ = ["LazyEquations", "flatten_network"]

_B, _U = ca.SX.binary, ca.SX.unary
_ADD, _SUB, _MUL, _DIV = ca.OP_ADD, ca.OP_SUB, ca.OP_MUL, ca.OP_DIV


def _lazy(name):
    def get(self):
        d = self.__dict__
        if d.get("_built") is False:
            self._build()
        return d[name]

    def put(self, value):
        self.__dict__[name] = value

    return property(get, put, doc=f"``{name}``, declared by _build_equations on first read")


class LazyEquations:
    """Mixin of components whose equations (definitions of potentials, energies, flows,
    outputs) are declared by :meth:`~.core.Component._build_equations`, run on the first read
    of any of them: the generic flattening builds them, and so does anything else that reads
    them (the tree fast path reads a spring's on a joint's drive flange); the 1-D network
    fast path never does. The constructor declares parameters, coordinates and connectors
    only, and must not declare equations."""
    _defines = _lazy("_defines")
    _flows = _lazy("_flows")
    _T = _lazy("_T")
    _V = _lazy("_V")
    _outputs = _lazy("_outputs")


def _table():
    """Kinds by class, and by connector class the names of the relative potential, its rate,
    the force and a speed sensor's output (``s_rel, v_rel, f, v`` or ``phi_rel, w_rel, tau,
    w``)."""
    from . import rotational as rot, translational as tr
    kinds = {tr.Fixed: "fixed", tr.Mass: "mass", tr.Spring: "spring", tr.Damper: "damper",
             tr.SpringDamper: "springdamper", tr.Force: "source",
             tr.PositionSensor: "position", tr.SpeedSensor: "speed",
             rot.Fixed: "fixed", rot.Inertia: "mass", rot.Spring: "spring",
             rot.Damper: "damper", rot.SpringDamper: "springdamper", rot.Torque: "source",
             rot.AngleSensor: "position", rot.SpeedSensor: "speed"}
    names = {tr.Flange: ("s_rel", "v_rel", "f", "v"), rot.Flange: ("phi_rel", "w_rel", "tau", "w")}
    return kinds, names


def _source_ok(model, c):
    """A source's value: a parameter of its own, or an expression of time and the Model's
    own parameters and inputs (anything else -- another component's potential -- needs the
    generic path's substitution)."""
    v = c._value
    own = {ph.element_hash() for _, ph, _ in c._params}
    if v.is_symbolic() and v.element_hash() in own:
        return True
    for s in ca.symvar(v):
        if s.element_hash() == TIME.element_hash():
            continue
        info = _info(s)
        if info is None or info.model_id != model._id or info.kind not in ("parameter",
                                                                              "input"):
            return False
    return True


def _plan(model, comps):
    """``(kind of each component, nodes: [(positioning connector, members)], node index of
    each connector)``, or None when the model is not a 1-D network of the supported
    components with one positioning connector per node (then the generic path runs)."""
    if not getattr(model, "_network_fast_path", True) or not comps:
        return None
    from .tree import _HAND
    if any(getattr(model, a) for a in _HAND):
        return None
    table, _ = _table()
    kinds = {}
    for c in comps:
        k = table.get(type(c))
        if k is None or c._children or c._connections or c._problems or c._built:
            return None
        for _, _, val in c._params:
            if isinstance(val, (ca.SX, ca.MX)):
                return None              # an expression as a parameter
        if k == "source" and not _source_ok(model, c):
            return None
        kinds[id(c)] = k
    conns = {id(cn): cn for c in comps for cn in c._connectors}
    uf = UnionFind()
    for k in conns:
        uf.add(k)
    for tup in model.connections:
        if any(id(cn) not in conns for cn in tup):
            return None                  # the generic path reports the stranger
        for cn in tup[1:]:
            uf.union(id(tup[0]), id(cn))
    groups = {}
    for k, cn in conns.items():
        groups.setdefault(uf.find(k), []).append(cn)
    nodes, node_of = [], {}
    for members in groups.values():
        pos = [cn for cn in members if kinds[id(cn.owner)] in ("fixed", "mass")]
        if len(pos) != 1:
            return None                  # positioned twice (a constraint) or by nothing
        for cn in members:
            node_of[id(cn)] = len(nodes)
        nodes.append((pos[0], members))
    return kinds, nodes, node_of


def flatten_network(model, comps):
    """Flatten ``model`` by the 1-D network fast path if it applies (see the module
    docstring); returns whether it did."""
    t_start = time.perf_counter()
    plan = _plan(model, comps)
    if plan is None:
        return False
    from .tree import _declare
    kinds, nodes, node_of = plan
    _, names = _table()
    psym, qs, _ = _declare(model, comps)
    zero, half, two = ca.SX(0), ca.SX(0.5), ca.SX(2)

    def pars(c):
        return {ln: psym[ph.element_hash()] for ln, ph, _ in c._params}

    # the nodes: position, its rate, the coordinate that moves it (None: fixed)
    val, rate, coord = [], [], []
    for pos, _ in nodes:
        c = pos.owner
        p = pars(c)
        if kinds[id(c)] == "fixed":
            val.append(p["s0"] if "s0" in p else p["phi0"])
            rate.append(zero)
            coord.append(None)
            continue
        (q, qd, _), = qs[id(c)]
        if "L" in p:                     # a sliding mass: flanges at s -+ L/2
            h = _B(_DIV, p["L"], two)
            q_pos = _B(_SUB, q, h) if pos is c.flange_a else _B(_ADD, q, h)
        else:
            q_pos = q
        val.append(q_pos)
        rate.append(qd)
        coord.append(q)
    # elements: energies, virtual work, flows, outputs
    flows = {}                           # id(connector) -> flow into the component
    Q = {}                               # coordinate hash -> [terms]
    outs = {}                            # id(component) -> [(local name, expression)]
    T, V = [], []

    def work(k, f):
        """A force ``f`` on node ``k`` in the positive direction (its flow is ``-f``)."""
        if coord[k] is not None:
            Q.setdefault(coord[k].element_hash(), []).append(f)

    for c in comps:
        kind = kinds[id(c)]
        if kind == "fixed":
            continue
        p = pars(c)
        if kind == "mass":
            (q, qd, qdd), = qs[id(c)]
            m = p["m"] if "m" in p else p["J"]
            T.append(_B(_MUL, _B(_MUL, half, m), _U(ca.OP_SQ, qd)))
            outs[id(c)] = [("a", qdd)]
            continue
        if kind in ("position", "speed"):
            k = node_of[id(c.flange)]
            n_pos = c.flange.potentials[0]
            outs[id(c)] = [(n_pos, val[k])] if kind == "position" else \
                [(names[type(c.flange)][3], rate[k])]
            continue
        rel, vrel, fname, _ = names[type(c._connectors[0])]
        if kind == "source":
            v = c._value
            own = {ph.element_hash(): psym[ph.element_hash()] for _, ph, _ in c._params}
            if v.is_symbolic() and v.element_hash() in own:
                v = own[v.element_hash()]
            elif ca.depends_on(v, TIME):
                v = ca.substitute(v, TIME, model.time)
            k = node_of[id(c.flange)]
            work(k, v)
            flows[id(c.flange)] = _B(_SUB, zero, v)
            outs[id(c)] = [(fname, v)]
            continue
        a, b = node_of[id(c.flange_a)], node_of[id(c.flange_b)]
        s_rel = _B(_SUB, val[b], val[a])
        v_rel = _B(_SUB, rate[b], rate[a])
        out = [(rel, s_rel), (vrel, v_rel)]
        f = f_d = None
        if kind in ("spring", "springdamper"):
            e = _B(_SUB, s_rel, p["s_rel0"] if "s_rel0" in p else p["phi_rel0"])
            f = _B(_MUL, p["c"], e)
            V.append(_B(_MUL, _B(_MUL, half, p["c"]), _U(ca.OP_SQ, e)))
        if kind in ("damper", "springdamper"):
            f_d = _B(_MUL, p["d"], v_rel)
            work(a, f_d)
            work(b, _B(_SUB, zero, f_d))
            f = f_d if f is None else _B(_ADD, f, f_d)
        out.append((fname, f))
        if f_d is not None:
            out.append(("lossPower", _B(_MUL, f_d, v_rel)))
        flows[id(c.flange_a)] = _B(_SUB, zero, f)
        flows[id(c.flange_b)] = f
        outs[id(c)] = out
    # the connector that positions a node balances the others there
    for pos, members in nodes:
        total = zero
        for cn in members:
            if cn is not pos:
                total = _B(_ADD, total, flows.setdefault(id(cn), zero))
        flows[id(pos)] = _B(_SUB, zero, total)
    if T:
        model.kinetic_energy(_sum(T))
    if V:
        model.potential_energy(_sum(V))
    for co in model.coords:
        terms = Q.get(co["sym"].element_hash())
        if terms:
            model.generalized_force(_sum(terms), co["sym"])
    # outputs, as the generic path names and orders them
    taken = set(model._names)
    n_pot = 0
    for c in comps:
        for cn in c._connectors:
            n_pot += 1
            k = node_of[id(cn)]
            for name, e in ((cn.potentials[0], val[k]), (cn.flows[0], flows[id(cn)])):
                name = f"{cn.path}.{name}"
                if name not in taken:
                    taken.add(name)
                    model.output(name, e)
        for name, e in outs.get(id(c), ()):
            name = f"{c.path}.{name}"
            if name not in taken:
                taken.add(name)
                model.output(name, e)
    model._unavailable_outputs = {}
    model.flatten_stats = dict(
        components=len(comps), connectors=n_pot, potentials=n_pot, nodes=len(nodes),
        general_nodes=0, aliases_eliminated=n_pot, alias_elimination=0.0,
        flatten=time.perf_counter() - t_start, network_fast_path=True)
    return True


def _sum(terms):
    total = terms[0]
    for t in terms[1:]:
        total = _B(_ADD, total, t)
    return total
