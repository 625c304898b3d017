"""Flattening: components and connections -> one Model (energies, forces, equations).

Every component model takes one pipeline of passes, each a module with one job:

1. :mod:`.collect` -- the components, their connectors and connections; every problem
   found is reported at once (a ModelError listing them);
2. :mod:`.declare` -- the components' parameters, general variables and declared speeds as
   symbols of the Model (coordinates wait for pass 3: an eliminated one never becomes one);
3. :mod:`.nodes` and :mod:`.relations` -- connected potentials as nodes (union-find on
   connector records, alias elimination), each node's value from the component that
   defines it, from a relation solved for it (a tree joint: a substitution in closed
   form) or a general variable; then :mod:`.potentials` binds every potential and its
   rate to its node's value and checks that every group of nodes has a reference;
4. :mod:`.constraints` -- rigid connections and relations left over: eliminated where one
   coordinate can be solved for (:mod:`.eliminate`), else holonomic constraints (or
   general equations over general variables) with their multipliers; the coordinates;
5. :mod:`.flows` -- every flow: declared by its component, a relation's ``-lam dphi/ds``,
   the defining connector's balance of the others (Newton's third law at the node), and
   ``sum of flows = 0`` at general nodes as equations;
6. :mod:`.mechanics` -- kinetic and potential energies, generalized forces by virtual work
   ``Q = -(ds/dq)^T f``;
7. :mod:`.equations` -- the components' general equations, holonomic constraints and
   contacts, for compile()'s structural analysis;
8. :mod:`.outputs` -- every potential and flow by name, and the components' own outputs.

The passes share one :class:`Flat` record. Two closed-form passes take the models they
recognize whole before pass 1 (same answers, a few CasADi calls per component): a network
whose every node one component positions (:mod:`.network`: masses, springs, dampers,
sources, sensors, each component's own equations evaluated at the node values,
:mod:`.evaluate`), and a tree of planar or spatial multibody components (:mod:`.tree`).
"""
import contextlib
import gc
import time

from ...errors import ModelError
from .._graph import Subst
from ..core import TIME
from .tree import flatten_tree
from .collect import collect
from .constraints import constraints
from .declare import declare
from .equations import equations
from .flows import flows
from .mechanics import mechanics
from .network import flatten_network
from .outputs import outputs
from .potentials import potentials

__all__ = ["flatten", "Flat"]


class Flat:
    """The record the passes share: the model, its components and the placeholder map
    ``S`` (placeholder -> expression of Model symbols), and what each pass leaves for the
    next (named in each pass's docstring)."""

    def __init__(self, model, comps):
        self.model = model
        self.comps = comps
        self.P = []                      # problems (strings), reported together
        self.S = Subst()
        self.S.set(TIME, model.time)
        self.general = []                # general variable symbols created here
        # where each general equation and variable comes from (named in compile's messages
        # about equations that cannot be solved, mechdae.symbolic.singular.origin_note)
        self.origin = model.__dict__.setdefault("_origin", {})

    @property
    def where(self):
        return f"model '{self.model.name}'"

    def check(self):
        """Raise the problems found so far as one ModelError."""
        if self.P:
            raise ModelError([f"{self.where}: {p}" for p in self.P])


#: the passes after collect, in order
PASSES = (declare, potentials, constraints, flows, mechanics, equations, outputs)


def flatten(model):
    """Flatten ``model.components`` and ``model.connections`` into ``model`` (in place)."""
    with _collector_paused():
        _flatten(model)


@contextlib.contextmanager
def _collector_paused():
    """Python's cyclic garbage collector paused: flattening makes tens of thousands of
    small objects that live on (CasADi expressions, records), and each collection walks
    every live object -- a third of the time of a 1,000-component model. The few cycles
    made meanwhile are collected at the next collection after."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _flatten(model):
    t_start = time.perf_counter()
    comps = [c for root in model.components for c in root.walk()]
    if flatten_tree(model, comps) or flatten_network(model, comps):
        return
    F = Flat(model, comps)
    collect(F)
    for step in PASSES:
        step(F)
    F.check()
    # hand-written parts of the model may use component symbols too
    if F.S.keys:
        model.substitute(*F.S.columns())
    n_pot = sum(len(cn.potentials) for cn in F.conns)
    N = F.N
    model.flatten_stats = dict(
        components=len(comps), connectors=len(F.conns), potentials=n_pot,
        nodes=len(N.members), general_nodes=N.n_general_nodes,
        aliases_eliminated=n_pot - N.n_general_nodes,
        alias_elimination=F.t_alias - t_start, flatten=time.perf_counter() - t_start)
