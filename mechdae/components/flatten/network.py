"""Closed-form pass: a network in which one component positions every node.

When every node of a model has exactly one connector whose component defines its
potentials from its own coordinates and parameters (a Fixed flange, one flange of a mass
or an inertia), and every other component only adds flows, energies and outputs (springs,
dampers, sources, sensors: no relations, general variables or constraints), nothing needs
alias elimination, relation solving or substitution to a fixpoint. Each component's own
equations (:mod:`.evaluate`: one CasADi Function call per component for classes with a
template) are evaluated once at the node values, and the model is written directly:

- node values from their definitions, with their rates and accelerations (derived once
  per class, in the template);
- flows: a component's declared flow, minus the sum of the others for the connector that
  positions the node (Newton's third law at the node), zero where nothing is declared;
- energies: every component's kinetic and potential energy (one term each in the
  Model); the flows not already in a potential energy act by virtual work
  ``Q = -(ds_node/dq)^T f`` (one Jacobian for the whole model);
- outputs with the names and order of the other passes.

These are the values the general passes give the same model (tests compare them). Any
other model -- a node positioned twice (a mass bolted to a wall) or by nothing (two
springs in series), a relation (a gear), a contact, general equations, an expression that
reads another component's potential, hand-written terms in the Model -- takes the general
passes (``model._network_fast_path = False`` forces them, which tests use to compare).
"""
import time

import casadi as ca

from ..._symbols import is_placeholder
from .._graph import connected
from .tree import _HAND, _declare
from .evaluate import (closed_over_slots, definitions_read_potentials, equations_of_all,
                       has_other_declarations, rest_reads_potentials, structure)

__all__ = ["flatten_network"]

_POT = ca.SX.sym("potential_in_definition")   # stands for a potential in a definition
_B, _ADD, _SUB = ca.SX.binary, ca.OP_ADD, ca.OP_SUB


def flatten_network(model, comps):
    """Write ``model`` by this pass if it applies (see the module docstring); returns
    whether it did."""
    t_start = time.perf_counter()
    plan = _plan(model, comps)
    if plan is None:
        return False
    W = plan
    W.psym, W.qs, _ = _declare(model, comps)
    W.evaluate()
    W.write()
    n_pot = sum(len(cn.potentials) for cn in W.conns.values())
    model.flatten_stats = dict(
        components=len(comps), connectors=len(W.conns), potentials=n_pot, nodes=len(W.nodes),
        general_nodes=0, aliases_eliminated=n_pot, alias_elimination=0.0,
        flatten=time.perf_counter() - t_start, network_fast_path=True)
    return True


def _plan(model, comps):
    """A :class:`_Writer` with the nodes and the connector that positions each, or None
    when the model is not such a network (then the general passes run). Nothing is
    declared in the model before the answer is known."""
    if not getattr(model, "_network_fast_path", True) or not comps:
        return None
    if any(getattr(model, a) for a in _HAND):
        return None
    if any(has_other_declarations(c) for c in comps):
        return None                      # what the constructors declared
    layouts = {}
    for c in comps:
        lay = structure(c)               # builds the equations where there is no template
        if has_other_declarations(c):
            return None                  # a relation, a constraint, an equation ...
        if any(part == "flow" and n == 0 for part, _, n in lay):
            return None                  # a contact force
        for _, _, val in c._params:
            if isinstance(val, (ca.SX, ca.MX)) and any(is_placeholder(s)
                                                       for s in ca.symvar(ca.SX(val))):
                return None
        if not closed_over_slots(c):
            return None                  # reads another component's potential
        layouts[id(c)] = lay
    W = _Writer(model, comps, *connected(comps, model.connections))
    if W.nodes is None or not W.positions(layouts):
        return None
    if any(definitions_read_potentials(cn.owner) for cn in W.pos):
        return None
    for c in comps:
        if c._before_flatten(comps) or c._problems:
            return None                  # the general passes report them
    return W


class _Writer:
    """Evaluates the components at the node values and writes the model."""

    def __init__(self, model, comps, nodes, conns):
        self.model, self.comps = model, comps
        self.nodes, self.conns = nodes, conns
        self.zero = ca.SX(0)

    def positions(self, layouts):
        """Find the one positioning connector of each node; False if a node has none or
        several, or a connector with several potentials is positioned in part."""
        defined = {}
        for c in self.comps:
            for part, k, n in layouts[id(c)]:
                if part == "define":
                    cn = c._connectors[k]
                    if n != len(cn.potentials):
                        return False
                    defined[id(cn)] = cn
        self.node_of, self.pos = {}, []
        for members in self.nodes:
            pos = [cn for cn in members if id(cn) in defined]
            if len(pos) != 1:
                return False             # positioned twice (a constraint) or by nothing
            for cn in members:
                self.node_of[id(cn)] = len(self.pos)
            self.pos.append(pos[0])
        return True

    def slot(self, at):
        """``(value(c, kind), column(cs, kind))``: the value of a component's slot, and of
        one slot of many (``at``: the potentials' values, rates and accelerations by
        node)."""
        psym, qs, time_, node_of = self.psym, self.qs, self.model.time, self.node_of

        def value(c, kind):
            if kind[0] == "pot":
                return at[kind[3]][node_of[id(c._connectors[kind[1]])]][kind[2]]
            if kind[0] == "param":
                ln, ph, val = c._params[kind[1]]
                return psym.get(ph.element_hash(), val)
            if kind[0] == "coord":
                return qs[id(c)][kind[1]][kind[2]]
            return time_

        def column(cs, kind):
            if kind[0] == "pot":
                a, k, i = at[kind[3]], kind[1], kind[2]
                return [a[node_of[id(c._connectors[k])]][i] for c in cs]
            if kind[0] == "param":
                k = kind[1]
                return [psym.get(c._params[k][1].element_hash(), c._params[k][2]) for c in cs]
            if kind[0] == "coord":
                j, o = kind[1], kind[2]
                return [qs[id(c)][j][o] for c in cs]
            return [time_] * len(cs)
        return value, column

    def evaluate(self):
        """The definitions first (the potentials they do not read stand for ``_POT``), the
        node values and rates from them, then every other component at those values."""
        definers = list({id(cn.owner): cn.owner for cn in self.pos}.values())
        unread = [[(_POT,) * len(cn.potentials) for cn in self.pos]] * 3
        self.eqs = equations_of_all(definers, *self.slot(unread))
        self.val, self.rate, acc = [], [], []
        for cn in self.pos:
            eq, k = self.eqs[id(cn.owner)], cn.owner._connectors.index(cn)
            self.val.append(eq.defines[k])
            self.rate.append(eq.rates[k])
            acc.append(eq.accs[k])
        rest = [c for c in self.comps
                if id(c) not in self.eqs or _rest_reads(c, self.eqs[id(c)])]
        self.eqs.update(equations_of_all(rest, *self.slot((self.val, self.rate, acc))))

    def flows(self):
        """Every connector's flows: declared, or minus the others' at its node."""
        F, zero = {}, self.zero
        for c in self.comps:
            declared = self.eqs[id(c)].flows
            for k, cn in enumerate(c._connectors):
                F[id(cn)] = declared.get(k) or [zero] * len(cn.flows)
        pos = {id(cn) for cn in self.pos}
        for members, p in zip(self.nodes, self.pos):
            bal = []
            for i in range(len(p.flows)):
                total = zero
                for cn in members:
                    if id(cn) not in pos:
                        total = _B(_ADD, total, F[id(cn)][i])
                bal.append(_B(_SUB, zero, total))
            F[id(p)] = bal
        return F

    def write(self):
        model = self.model
        T = [t for c in self.comps for t in self.eqs[id(c)].T]
        V = [v for c in self.comps for v in self.eqs[id(c)].V]
        if T:
            model.kinetic_energy(_sum(T))
        if V:
            model.potential_energy(_sum(V))
        self.virtual_work()
        self.outputs(self.flows())
        model._unavailable_outputs = {}

    def virtual_work(self):
        """``Q = -(ds/dq)^T f`` of the declared flows not in a potential energy."""
        fs, ss = [], []
        for c in self.comps:
            eq = self.eqs[id(c)]
            for k, ex in eq.flows.items():
                energy = eq.energy.get(k)
                if energy is True:
                    continue
                cn = c._connectors[k]
                for i, f in enumerate(ex):
                    if energy is not None:
                        f = f - energy[i]
                        if f.is_zero() or ca.simplify(f).is_zero():
                            continue
                    fs.append(f)
                    ss.append(self.val[self.node_of[id(cn)]][i])
        coords = [co["sym"] for co in self.model.coords]
        if not fs or not coords:
            return
        J = ca.jacobian(ca.vertcat(*ss), ca.vertcat(*coords))
        Q = -ca.mtimes(J.T, ca.vertcat(*fs))
        for j, q in enumerate(coords):
            if not Q[j].is_zero():
                self.model.generalized_force(Q[j], q)

    def outputs(self, F):
        """Every potential and flow, derived outputs and the components' own, named and
        ordered as by the general passes."""
        model = self.model
        taken = set(model._names)

        def out(name, e):
            if name not in taken:
                taken.add(name)
                model.output(name, e)

        for c in self.comps:
            for cn in c._connectors:
                node = self.node_of[id(cn)]
                for name, e in zip(cn.potentials, self.val[node]):
                    out(f"{cn.path}.{name}", e)
                if cn.public_flows:
                    for name, e in zip(cn.flows, F[id(cn)]):
                        out(f"{cn.path}.{name}", e)
            for name, e in self.eqs[id(c)].outputs:
                out(f"{c.path}.{name}", e)


def _rest_reads(c, eq):
    """Whether a definer's other equations read a potential (evaluated again at the node
    values)."""
    known = rest_reads_potentials(c)
    return _reads(eq, _POT) if known is None else known


def _reads(eq, s):
    exprs = [e for ex in eq.flows.values() if ex for e in ex] + eq.T + eq.V + \
        [e for _, e in eq.outputs] + [e for ex in eq.energy.values() if ex is not True
                                      for e in ex]
    return bool(exprs) and ca.depends_on(ca.vertcat(*exprs), s)


def _sum(terms):
    return ca.sum1(ca.vertcat(*terms)) if len(terms) > 1 else terms[0]
