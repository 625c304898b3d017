"""Connectors and components: the acausal layer's building blocks.

A **connector** carries potential variables (equal across a connection) and flow variables
(summing to zero at a node; an unconnected flow is zero), with Modelica's sign convention:
a flow is positive *into* the component. A **component** declares, with placeholders that
flattening later replaces by expressions of the Model's symbols:

- its parameters (``self.parameter``), coordinates with inertia (``self.coordinate``),
  general variables (``self.variable``), connectors (``self.connector``);
- how it fixes potentials: ``self.define(flange, expr)`` (a mass defines its flanges'
  positions from its coordinate; Fixed and Position define them from parameters and time);
- what flows it takes: ``self.flow(flange, expr)`` (force elements, electrical branches);
  ``energy=True`` marks a flow that is minus the gradient of the component's declared
  potential energy, so that the energy, not the flow, enters the Lagrangian;
- kinematic relations between its connectors' potentials: ``self.relation(phi)``
  (an ideal gear ``phi_a - ratio phi_b``): the relation defines a potential that nothing
  else defines (a tree joint: substitution), or becomes a holonomic constraint whose
  multiplier is the cut force; its flows are ``-lam dphi/ds``;
- energies, generalized forces, general equations, constraints, contacts and outputs, as
  a Model has them (``self.kinetic_energy``, ``self.equation``, ``self.contact``, ...).

``mechdae.components.flatten`` turns the whole into one Model.
"""
from __future__ import annotations

import math
import numbers
from typing import Iterator

import casadi as ca
import numpy as np

from .._symbols import _as_sx, der, placeholder
from .._typing import Any, Expr, Mapping, Names, Optional
from ..errors import ModelError
from ._graph import lagrange_residual

__all__ = ["Component", "Connector", "LazyEquations", "TIME"]

# the model time inside components (replaced by Model.time)
TIME = placeholder("t")


class Connector:
    """A connector instance of a component: potentials and flows as placeholders.

    Subclasses set ``potentials`` and ``flows`` (names, paired by position), ``domain``
    (shown in messages) and ``needs_reference`` (a circuit of such connectors needs a
    node with a defined potential, e.g. an electrical ground).
    """
    potentials = ()
    flows = ()
    domain = "connector"
    kind = "Connector"
    needs_reference = False
    # a node of these connectors may be a general variable (a massless junction whose
    # potential the balance of its flows fixes); False where a flow balance per potential
    # is not the physics (a spatial frame's orientation entries): then such a node must be
    # positioned by a defining component or a relation, else a ModelError (support_hint)
    allow_general = True
    # flows are outputs under their own names; False where they are an internal
    # representation and derived_outputs() gives the public ones
    public_flows = True

    def __init__(self, owner, name):
        self.owner = owner
        self.name = name

    def __getattr__(self, attr):
        # the placeholders are made on first use (the tree fast path of the flattening
        # never needs those of the frames it positions)
        if attr in ("potential_syms", "flow_syms") or attr in self.potentials or \
                attr in self.flows:
            d = self.__dict__
            if "owner" in d and "potential_syms" not in d:
                owner, name = d["owner"].name, d["name"]
                d["potential_syms"] = [placeholder(f"{owner}.{name}.{p}")
                                       for p in self.potentials]
                d["flow_syms"] = [placeholder(f"{owner}.{name}.{f}") for f in self.flows]
                for p, s in zip(self.potentials + self.flows,
                                d["potential_syms"] + d["flow_syms"]):
                    d.setdefault(p, s)
                return getattr(self, attr)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {attr!r}")

    @property
    def path(self) -> str:
        """Full name (``"drive.emf.flange"``)."""
        return f"{self.owner.path}.{self.name}"

    def derived_outputs(self) -> list:
        """Further outputs ``[(local name, expression of potential_syms and flow_syms)]``
        (a spatial frame's force and torque resolved in the frame)."""
        return []

    def describe(self) -> str:
        return f"'{self.path}' ({self.domain} {self.kind})"

    def _check_connect(self, connectors):
        problems = []
        for c in connectors:
            if not isinstance(c, Connector):
                raise TypeError(f"connect(): {c!r} is not a connector; connect flanges, pins or "
                                "frames of components (e.g. m.connect(mass.flange_b, "
                                "spring.flange_a))")
        if len(connectors) < 2:
            problems.append(f"connect({connectors[0].path}): give at least two connectors")
        first = connectors[0]
        for c in connectors[1:]:
            if type(c) is not type(first):
                problems.append(
                    f"connect(): {first.describe()} and {c.describe()} are different connector "
                    f"types; connect connectors of one type (join domains with a converter such "
                    "as electrical.EMF)")
        for k, c in enumerate(connectors):
            for d in connectors[k + 1:]:
                if c.owner is d.owner and getattr(c.owner, "_joint", False):
                    problems.append(
                        f"connect(): {c.describe()} and {d.describe()} are the two frames of "
                        f"joint '{c.owner.path}'; joining them locks the joint: connect each "
                        "frame to a different part")
        seen = set()
        for c in connectors:
            if id(c) in seen:
                problems.append(f"connect(): {c.describe()} is connected to itself; remove the "
                                "duplicate (a connector joins a node once)")
            seen.add(id(c))
        if problems:
            raise ModelError(problems)

    def __repr__(self):
        return f"<{self.domain} {self.kind} {self.path}>"


class Component:
    """Base class of acausal components (subclass it; see the module docstring).

    Parameters
    ----------
    name : str
        Local name; the full name is the path from the Model (``"drive.motor"``).

    Examples
    --------
    >>> import mechdae as md
    >>> from mechdae.components import translational as tr
    >>> class Spring2(md.Component):          # a linear spring written from scratch
    ...     def __init__(self, name, c=1.0):
    ...         super().__init__(name)
    ...         c = self.parameter("c", c)
    ...         a = self.connector(tr.Flange, "flange_a")
    ...         b = self.connector(tr.Flange, "flange_b")
    ...         f = c * (b.s - a.s)
    ...         self.potential_energy(0.5 * c * (b.s - a.s) ** 2)
    ...         self.flow(a, -f, energy=True)
    ...         self.flow(b, f, energy=True)
    """

    def __init__(self, name):
        if not isinstance(name, str) or not name or "." in name or not name.strip():
            raise ValueError(f"component name {name!r}: give a non-empty name without dots "
                             "(the path is built from the names of the enclosing components)")
        self.name = name
        self.parent = None
        self.model = None
        self.time = TIME
        self._children = []
        self._params = []        # (local name, placeholder, value)
        self._coords = []        # (local name, placeholder, default, speed local name)
        self._vars = []          # (local name, placeholder, default)
        self._speeds = []        # (local name, placeholder, default): declared speeds
        self._kinematics = []    # (coordinate placeholder, rate expression)
        self._connectors = []    # Connector instances owned here
        self._defines = []       # (connector, exprs)
        self._flows = {}         # id(connector) -> (connector, exprs or None, energy)
        self._relations = []     # dicts: name, phi, inverse, closure (see relation())
        self._T, self._V = [], []
        self._gforces = []       # (Q, coordinate placeholder)
        self._equations = []     # (name, expr)
        self._holonomic = []     # (name, expr)
        self._contacts = []      # dict of Model.contact arguments
        self._outputs = []       # (local name, expr)
        self._problems = []
        self._connections = []   # tuples of connectors joined inside this component
        self._built = False      # _build_equations() has run (see _build)

    # ------------------------------------------------------------------ path
    @property
    def path(self) -> str:
        return self.name if self.parent is None else f"{self.parent.path}.{self.name}"

    def __repr__(self):
        return f"<{type(self).__name__} {self.path}>"

    # ------------------------------------------------------------------ declarations
    def parameter(self, name: str, value: Expr) -> ca.SX:
        """A parameter ``"<path>.<name>"`` of the Model (overridable in simulate(params=...)).

        ``value`` is a number (the default), or an expression of other parameters (then no
        Model parameter is created: the component uses the expression).
        """
        s = placeholder(f"{self.name}.{name}")
        if isinstance(value, (ca.SX, ca.MX)):
            value = _as_sx(value, f"parameter '{name}' of {self}")
        elif isinstance(value, bool) or not isinstance(value, (numbers.Number, np.ndarray)):
            self._problems.append(f"{self.path}: parameter {name}={value!r} is not a number")
            value = 0.0
        elif isinstance(value, numbers.Real) and math.isfinite(value):
            pass
        elif not np.all(np.isfinite(np.asarray(value, float))):
            self._problems.append(f"{self.path}: parameter {name}={value!r} is not finite; give "
                                  "a finite number")
        self._params.append((name, s, value))
        return s

    def coordinate(self, name: str, default: float = 0.0, speed: Optional[str] = None,
                   speed_default: float = 0.0) -> ca.SX:
        """A generalized coordinate ``"<path>.<name>"`` (its rate ``der(x)`` is the speed,
        named ``"<path>.<speed>"`` when ``speed`` is given; ``default`` and
        ``speed_default`` are the start values used when ``q0``/``v0`` omit them). Give
        it inertia with :meth:`kinetic_energy`."""
        s = placeholder(f"{self.name}.{name}")
        self._coords.append((name, s, default, speed, speed_default))
        return s

    def speeds(self, names: Names, default: Any = 0.0) -> list:
        """Declared speeds ``"<path>.<name>"`` (quasi-velocities, as :meth:`Model.speeds`):
        they enter through :meth:`kinematics`, e.g. the angular velocity of a spherical
        joint whose orientation is a quaternion. Returns one placeholder per name."""
        names = names.replace(",", " ").split() if isinstance(names, str) else list(names)
        defs = default if isinstance(default, (list, tuple, np.ndarray)) else \
            [default] * len(names)
        out = []
        for n, d in zip(names, defs):
            s = placeholder(f"{self.name}.{n}")
            self._speeds.append((n, s, float(d)))
            out.append(s)
        return out

    def kinematics(self, mapping: Mapping[Any, Expr]) -> None:
        """``{coordinate placeholder: rate expression}``, linear in declared speeds
        (``q' = N(q) u``, as :meth:`Model.kinematics`)."""
        for c, e in mapping.items():
            self._kinematics.append((c, _as_sx(e, f"{self.path}: kinematics")))

    def variable(self, name: str, default: float = 0.0) -> ca.SX:
        """A general variable ``"<path>.<name>"`` (differential if ``der()`` of it appears in
        an equation, algebraic otherwise); each needs an :meth:`equation`."""
        s = placeholder(f"{self.name}.{name}")
        self._vars.append((name, s, default))
        return s

    def connector(self, cls: type, name: str) -> "Connector":
        """Create a connector of class ``cls`` named ``name``; also set as attribute."""
        c = cls(self, name)
        self._connectors.append(c)
        setattr(self, name, c)
        return c

    def add(self, component: "Component") -> "Component":
        """Add a sub-component (hierarchy); returns it. Its path is ``"<path>.<name>"``."""
        if not isinstance(component, Component):
            raise TypeError(f"{self.path}.add(): {component!r} is not a Component")
        if component.parent is not None or component.model is not None:
            raise ModelError(f"component '{component.name}' is already part of "
                             f"'{component.parent.path if component.parent else component.model.name}'"
                             "; create a new instance for each use")
        if any(ch.name == component.name for ch in self._children):
            raise ModelError(f"{self.path}: two sub-components named '{component.name}'; "
                             "names must be unique within a component")
        component.parent = self
        self._children.append(component)
        return component

    def connect(self, *connectors: "Connector") -> None:
        """Join connectors inside this component (as :meth:`Model.connect`): the
        connections of a hierarchical component's parts."""
        if not connectors:
            raise TypeError(f"{self.path}.connect(): give the connectors to join")
        connectors[0]._check_connect(connectors)
        self._connections.append(tuple(connectors))

    def _pot(self, connector, exprs):
        if not isinstance(connector, Connector):
            raise TypeError(f"{self.path}: expected a connector, got {connector!r}")
        if not isinstance(exprs, (list, tuple)):
            exprs = [exprs]
        if len(exprs) != len(connector.potentials):
            raise ValueError(f"{self.path}: {connector.describe()} has "
                             f"{len(connector.potentials)} potential(s) "
                             f"{connector.potentials}; got {len(exprs)} expression(s)")
        return [_as_sx(e, f"{self.path}: expression for {connector.path}") for e in exprs]

    def define(self, connector: "Connector", exprs: Any) -> None:
        """This component fixes the potential(s) of ``connector`` to ``exprs`` (expressions
        of its coordinates, parameters, time, or other connectors' potentials)."""
        self._defines.append((connector, self._pot(connector, exprs)))

    def flow(self, connector: "Connector", exprs: Any, energy: Any = False) -> None:
        """The flow(s) into this component at ``connector`` (``None``: a force not known as an
        expression, e.g. a contact force; results then do not offer that flow).

        ``energy=True``: the flow is minus the gradient of this component's potential
        energy, which enters the Lagrangian instead of the flow's virtual work; an
        expression (or list): the part of the flow that comes from the energy (the rest
        acts through virtual work). Where the energy cannot be used (a flange at a node
        without inertia) the whole flow acts through virtual work or node balances.
        """
        if energy is not True and energy is not False and energy is not None:
            if not isinstance(energy, (list, tuple)):
                energy = [energy]
            energy = [_as_sx(e, f"{self.path}: energy part of the flow at {connector.path}")
                      for e in energy]
        if exprs is not None:
            if not isinstance(exprs, (list, tuple)):
                exprs = [exprs]
            if len(exprs) != len(connector.flows):
                raise ValueError(f"{self.path}: {connector.describe()} has {len(connector.flows)} "
                                 f"flow(s); got {len(exprs)} expression(s)")
            exprs = [_as_sx(e, f"{self.path}: flow at {connector.path}") for e in exprs]
        self._flows[id(connector)] = (connector, exprs, energy if isinstance(energy, list)
                                      else bool(energy))

    def relation(self, phi: Expr, name: str = "relation", inverse: Optional[Expr] = None,
                 closure: Optional[Expr] = None, loop_cut: Any = False) -> None:
        """A kinematic relation ``phi(potentials, ...) = 0`` between potentials of this
        component's connectors (an ideal gear: ``flange_a.phi - ratio * flange_b.phi``).

        Each row defines one potential that nothing else defines (solved, substituted), or
        becomes a holonomic constraint ``"<path>.<name>"`` whose multiplier ``lam`` gives the
        flows ``-lam dphi/ds`` of the connectors.

        ``inverse``: the same relation written to be solved row by row for the other side
        (a rotation ``R_b = R_a R_rel`` and ``R_a = R_b R_rel^T``); the form that defines
        potentials is used, the other dropped. ``closure``: the same relation as independent
        rows (the 3 of a rotation instead of its 9 entries), used instead of ``phi`` where
        the relation closes a kinematic loop (every potential already known).
        ``loop_cut=1`` (or True): where a loop closes, prefer this relation as the cut (its
        rows define potentials only where no other relation can; a revolute joint, whose
        closure eliminates its own angle); ``loop_cut=2``: the user's cut, taken last of all.
        """
        what = f"{self.path}: relation '{name}'"
        self._relations.append(dict(
            name=name, phi=_as_sx(phi, what),
            inverse=None if inverse is None else _as_sx(inverse, what),
            closure=None if closure is None else _as_sx(closure, what), loop_cut=loop_cut))

    def kinetic_energy(self, T: Expr) -> None:
        self._T.append(_as_sx(T, f"{self.path}: kinetic energy"))

    def potential_energy(self, V: Expr) -> None:
        self._V.append(_as_sx(V, f"{self.path}: potential energy"))

    def generalized_force(self, Q: Expr, coordinate: ca.SX) -> None:
        """A generalized force on one of this component's coordinates."""
        self._gforces.append((_as_sx(Q, f"{self.path}: generalized force"), coordinate))

    def equation(self, eq: Expr, name: Optional[str] = None) -> None:
        """A general equation ``lhs == rhs`` named ``"<path>.<name>"``."""
        name = name or f"eq{len(self._equations)}"
        if isinstance(eq, bool):
            self._problems.append(f"{self.path}: equation '{name}' is a Python bool; write "
                                  "lhs == rhs with symbols")
            return
        self._equations.append((name, _as_sx(eq, f"{self.path}: equation '{name}'")))

    def holonomic(self, phi: Expr, name: str = "constraint") -> None:
        self._holonomic.append((name, _as_sx(phi, f"{self.path}: constraint '{name}'")))

    def contact(self, name: str, gap: Expr, **kw: Any) -> None:
        """A unilateral contact ``"<path>.<name>"`` (arguments as :meth:`Model.contact`)."""
        self._contacts.append(dict(name=name, gap=gap, **kw))

    def output(self, name: str, expr: Expr) -> None:
        """A named output ``"<path>.<name>"`` (``res["J.w"]``)."""
        self._outputs.append((name, _as_sx(expr, f"{self.path}: output '{name}'")))

    # ------------------------------------------------------------------ helpers
    def energy_flows(self, connector: "Connector") -> list:
        """The flows at ``connector`` that this component's own energies imply:

            flow_i = d/dt dL/d(s_i') - dL/ds_i,    L = sum T - sum V (this component's),

        the force (torque) the node must apply at potential ``s_i`` to produce the
        component's motion: a body's inertial force minus its weight, a spring's
        ``dV/ds``. Declare them with ``self.flow(connector, self.energy_flows(connector),
        energy=True)`` (the energies, not the flows, enter the Lagrangian); they use
        accelerations, so results evaluate them from the equations of motion.
        """
        L = sum(self._T, ca.SX(0)) - sum(self._V, ca.SX(0))
        s = ca.vertcat(*connector.potential_syms)
        sd = ca.vertcat(*[der(x) for x in connector.potential_syms])
        syms = ca.symvar(ca.gradient(L, sd))
        X = ca.vertcat(*syms) if syms else ca.SX(0, 1)
        Xd = ca.vertcat(*[der(x) for x in syms]) if syms else ca.SX(0, 1)
        return ca.vertsplit(lagrange_residual(L, s, sd, X, Xd))

    def signal(self, name: str, value: Any) -> Expr:
        """A source's value: a number becomes the parameter ``"<path>.<name>"``; an
        expression is used as it is; a callable is a function of time ``f(t)``."""
        if callable(value) and not isinstance(value, (ca.SX, ca.MX)):
            return self.source(value, self.time)
        if isinstance(value, (ca.SX, ca.MX)):
            return _as_sx(value, f"{self.path}: {name}")
        return self.parameter(name, value)

    @staticmethod
    def source(value: Any, t: Expr) -> Expr:
        """A source value: a number, an expression, or a callable of time ``f(t)``."""
        if callable(value) and not isinstance(value, (ca.SX, ca.MX)):
            return _as_sx(value(t), "source function")
        return value

    # ------------------------------------------------------------------ model hooks
    def _build_equations(self):
        """Declare the equations (energies, relations, flows, outputs) that the constructor
        left to flattening: the multibody components build them only when the generic
        flattening needs them (the tree pass, :mod:`.flatten.tree`, does without). Default:
        nothing (components that declare everything in ``__init__``)."""

    def _build(self):
        """Run :meth:`_build_equations` once (called by the generic flattening)."""
        if not self._built:
            self._built = True
            self._build_equations()

    def _before_flatten(self, components):
        """Called by flattening with every component of the model, before anything is read:
        a component that needs another one (a body takes gravity from the World) finds it
        here. Returns a list of problems (strings, reported as one ModelError)."""
        return []

    def _attach_to_model(self, model):
        if self.parent is not None or self.model is not None:
            owner = self.parent.path if self.parent is not None else f"model '{self.model.name}'"
            raise ModelError(f"component '{self.name}' is already part of {owner}; create a new "
                             "instance for each use")
        self.model = model

    def _flatten_model(self, model):
        from .flatten import flatten
        flatten(model)

    def walk(self) -> Iterator["Component"]:
        """This component and all sub-components, depth first."""
        yield self
        for ch in self._children:
            yield from ch.walk()


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
    outputs) are declared by :meth:`Component._build_equations`, run on the first read of
    any of them: the general flattening passes build them, and so does anything else that
    reads them (the tree pass reads a spring's on a joint's drive flange). A class that
    also sets ``_template = True`` (its equations follow from its parameters, coordinates
    and connectors alone) is evaluated by closed-form passes through one CasADi Function
    per class (:mod:`.flatten.evaluate`): its other instances never build their own. The
    constructor declares parameters, coordinates and connectors only, and must not declare
    equations."""
    _defines = _lazy("_defines")
    _flows = _lazy("_flows")
    _T = _lazy("_T")
    _V = _lazy("_V")
    _outputs = _lazy("_outputs")
