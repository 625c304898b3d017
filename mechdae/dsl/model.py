"""The symbolic, editable model: a plain container of symbols, energies, forces, equations,
constraints and contacts.

A ``Model`` derives nothing.  ``Model.compile()`` hands it to :mod:`mechdae.symbolic`,
the only place where equations are derived.  Names are free strings and may be
namespaced (``"b1.x"``, ``"arm.theta"``) so that components with connectors can later be
flattened into one Model.

Symbols are CasADi ``SX`` scalars.  Every coordinate ``x`` owns a rate symbol
``der(x)``; unless the model declares other kinematics for ``x`` this rate symbol *is* the
generalized speed of ``x`` (``q' = N(q) u`` with ``N = I``).

This module holds the :class:`Model` itself: its state (every attribute is set up in
``__init__``), the acausal components added to it (:meth:`Model.add`,
:meth:`Model.connect`, :meth:`Model.flatten`), :meth:`Model.substitute` and the
:meth:`Model.compile` facade. What a Model's methods declare is written in one mixin per
concern:

- :mod:`mechdae.dsl._declare_symbols`: coordinates, speeds, kinematics, parameters,
  inputs, variables, units and names;
- :mod:`mechdae.dsl._declare_terms`: energies, generalized forces, constraints, general
  equations and outputs;
- :mod:`mechdae.dsl.contacts`: unilateral contacts (and the :class:`Contact` record);
- :mod:`mechdae.dsl.bodies`: rigid bodies and drawings;
- :mod:`mechdae.dsl._model_pickling`: pickling.

The symbol registry and :func:`der` are :mod:`mechdae._symbols` (re-exported here).
"""
from __future__ import annotations

import threading

import casadi as ca

# the symbol registry and conversions live one layer down (mechdae._symbols), where
# mechdae.symbolic and mechdae.simulate import them too; re-exported here under the old names
from .._typing import Any, Expr, Optional
from .._symbols import (_REGISTRY, _SymInfo, _info, _as_sx, der, der_many, _rate_of,  # noqa: F401
                        _MODELS, placeholder, _placeholder_rate, is_placeholder,
                        register_model_type)
from ._declare_symbols import SymbolDeclarations
from ._declare_terms import TermDeclarations
from .contacts import Contact, ContactDeclarations
from .bodies import BodyDeclarations
from ._model_pickling import ModelPickling

__all__ = ["Model", "der", "Contact", "placeholder"]

_FLATTEN_LOCK = threading.RLock()    # flattening edits a Model in place: one at a time


@register_model_type
class Model(SymbolDeclarations, TermDeclarations, ContactDeclarations, BodyDeclarations,
            ModelPickling):
    """An equation-based mechanical model (symbolic, editable).

    The compiled dynamics (see :func:`mechdae.symbolic.compile_model`) are

        M(q) u' = h(q, u, t) + G(q)^T lam + A(q)^T mu,    q' = N(q) u,
        phi(q, t) = 0,   psi = A(q) u + b(q, t) = 0.

    Its methods come from one mixin per concern (see :mod:`mechdae.dsl.model`): symbols
    (:class:`~mechdae.dsl._declare_symbols.SymbolDeclarations`), terms
    (:class:`~mechdae.dsl._declare_terms.TermDeclarations`), contacts
    (:class:`~mechdae.dsl.contacts.ContactDeclarations`), bodies
    (:class:`~mechdae.dsl.bodies.BodyDeclarations`) and pickling
    (:class:`~mechdae.dsl._model_pickling.ModelPickling`).

    Parameters
    ----------
    name : str
        Model name (used in messages, plots and file names).

    Examples
    --------
    >>> import mechdae as md
    >>> m = md.Model("pendulum")
    >>> x, y = m.coordinates("x y")
    >>> L = m.parameter("L", 1.0); g = m.parameter("g", 9.81)
    >>> m.kinetic_energy(0.5 * (md.der(x)**2 + md.der(y)**2))
    >>> m.potential_energy(g * y)
    >>> m.holonomic(x**2 + y**2 - L**2, name="rod")
    >>> sys = m.compile(stabilization=md.Baumgarte(alpha=10, beta=10))
    """

    def __init__(self, name):
        self.name = str(name)
        self._id = id(self)
        _MODELS[self._id] = self
        self.coords = []          # dicts: name, sym, default, rate
        self.speeds_ = []         # dicts: name, sym, default
        self.kinematics_ = {}     # coordinate name -> SX (rate expression in q, u)
        self.params = []          # dicts: name, sym, default
        self.inputs = []          # dicts: name, sym, default (number|array|callable|SX)
        self.variables = []       # dicts: name, sym, default, rate (SX or None)
        self.T_terms = []         # kinetic energy terms (Lagrange, in q and der(q))
        self.T_report = []        # kinetic energy of bodies handled by Newton-Euler
        self.V_terms = []
        self.forces = []          # (Q, coordinate name)
        self.speed_forces = []    # (Q, speed name): generalized force on a speed
        self.power_terms = []     # (F, v_P): force F acting at a point of velocity v_P (linear in u)
        self.bodies = []
        self.holonomic_ = []      # (name, SX)
        self.nonholonomic_ = []   # (name, SX)
        self.equations = []       # (name, residual SX)
        self.contacts = []
        self.problems = []        # collected at declaration, raised by compile()
        self.outputs = []         # (name, scalar SX): named outputs (may use multipliers)
        self.units = {}           # name -> unit string (labels of plots and files)
        self.drawings = []        # dicts: name, kind, points, radius (Result.animate)
        self._multipliers = {}    # (constraint, row) -> SX symbol
        self._accelerations = {}  # speed name -> SX symbol (outputs only)
        self.components = []      # acausal components added with add()
        self._component_names = set()
        self.connections = []     # tuples of connectors joined with connect()
        self._flattened = False
        self._names = {}          # name -> what holds it (coordinates, ..., contacts, outputs)
        self._equation_names = set()
        self.time = self._new("t", "time", register_name=False)

    # ------------------------------------------------------------------ components
    def add(self, component: "Component") -> "Component":
        """Add a component (an instance of :class:`mechdae.Component`) and return it.

        Its parameters become Model parameters named by the component path (``"R.R"``),
        its variables are read from results by that path (``res["J.w"]``). Components are
        flattened into this Model's equations by the first :meth:`compile`.
        """
        if self._flattened:
            raise self._late("add()", getattr(component, "name", component))
        attach = getattr(component, "_attach_to_model", None)
        if attach is None:
            raise TypeError(f"Model.add(): {component!r} is not a component; add instances of "
                            "mechdae.Component subclasses (mechdae.components.translational, "
                            "rotational, electrical, ...)")
        name = getattr(component, "name", None)
        if name in self._component_names and getattr(component, "model", None) is None:
            from ..errors import ModelError
            raise ModelError(f"model '{self.name}': two components named '{name}'; names must "
                             "be unique")
        attach(self)
        self.components.append(component)
        self._component_names.add(name)
        return component

    def connect(self, *connectors: "Connector") -> None:
        """Join connectors at one node (Modelica semantics): potentials are equal, flows sum
        to zero; an unconnected flow is zero. Any number of connectors of one type."""
        if self._flattened:
            raise self._late("connect()", ", ".join(str(c) for c in connectors))
        check = getattr(connectors[0], "_check_connect", None) if connectors else None
        if check is None:
            raise TypeError(f"Model.connect(): expected connectors (flanges, pins, frames) of "
                            f"components, got {', '.join(repr(c) for c in connectors) or 'nothing'}")
        check(connectors)
        self.connections.append(tuple(connectors))

    def _late(self, what, obj):
        """The :class:`ModelError` for ``what`` (``add()``, ``connect()``) of ``obj`` after
        flattening."""
        from ..errors import ModelError
        return ModelError(f"model '{self.name}': {what} of {obj} after the model was compiled; "
                          "components are flattened by the first compile(): build the whole "
                          "model first (or build a new Model)")

    def substitute(self, old: Expr, new: Expr) -> None:
        """Replace symbols ``old`` by expressions ``new`` in every term of the model
        (energies, forces, constraints, equations, contacts, outputs, kinematics)."""
        old = _as_sx(old, "substitute()")
        new = _as_sx(new, "substitute()")
        if old.numel() == 0:
            return

        def sb(items):
            if not items:
                return items
            return ca.substitute(list(items), [old], [new])

        handed = getattr(self, "_inertia", None)     # M and c handed to derive with T
        if handed is not None and len(self.T_terms) == 1 and self.T_terms[0] is handed[2]:
            self.T_terms = sb(self.T_terms)
            self._inertia = (*sb(handed[:2]), self.T_terms[0], *handed[3:])
        else:
            self.T_terms = sb(self.T_terms)
        self.V_terms = sb(self.V_terms)
        self.T_report = sb(self.T_report)
        self.forces = list(zip(sb([f for f, _ in self.forces]), [c for _, c in self.forces]))
        self.speed_forces = list(zip(sb([f for f, _ in self.speed_forces]),
                                     [c for _, c in self.speed_forces]))
        self.power_terms = list(zip(sb([f for f, _ in self.power_terms]),
                                    sb([v for _, v in self.power_terms])))
        for lst in ("holonomic_", "nonholonomic_", "equations", "outputs"):
            items = getattr(self, lst)
            setattr(self, lst, list(zip([n for n, _ in items], sb([e for _, e in items]))))
        for k in list(self.kinematics_):
            self.kinematics_[k] = sb([self.kinematics_[k]])[0]
        for c in self.contacts:
            c.gap = sb([c.gap])[0]
            if c.tangent is not None:
                c.tangent = sb([c.tangent])[0]
            if c.tangent_velocity is not None:
                c.tangent_velocity = sb([c.tangent_velocity])[0]

    def flatten(self) -> "Model":
        """Flatten the added components and connections into this Model's equations (done
        once, by the first :meth:`compile`; later calls do nothing; safe when several
        threads compile one Model). Returns the Model."""
        with _FLATTEN_LOCK:
            if self.components and not self._flattened:
                # the acausal layer lives above the DSL: it is reached through the components
                # themselves, never imported from here
                self.components[0]._flatten_model(self)
            self._flattened = True
        return self

    def compile(self, stabilization: Any = "default", evaluate: Optional[Any] = None) -> "System":
        """Derive the equations of motion and return a frozen :class:`~mechdae.System`.

        Parameters
        ----------
        stabilization : Baumgarte, Mukharlyamov, Projection, list of them, None or "default"
            Constraint stabilization (see :mod:`mechdae.stabilization`); ``None`` is the
            plain index-1 form (drift shows).  ``"default"`` is ``Baumgarte(10, 10, 10)``.
        evaluate : True, str or list of str, optional
            Parameters folded into the equations at their default values (Modelica's
            ``Evaluate=true``): names or patterns (``"b*.r[*]"``), or True for all. The
            compiled equations are smaller and faster (zero offsets and inertias vanish);
            the evaluated parameters are no longer parameters of the System
            (``System.evaluated`` lists them with their values) and ``params=`` refuses
            them by name. See :mod:`mechdae.dsl.evaluate`.

        Raises
        ------
        ModelError
            Listing every problem found in the model; a NaN or inf constant in an
            expression (``math.cos`` of a symbol is NaN: use ``md.cos``) is named with
            the energy, force, constraint, contact, equation or output holding it
            (:mod:`mechdae.symbolic.checks`), before derivation.
        ValueError
            ``evaluate`` names or patterns that match no parameter.
        """
        from ..symbolic import compile_model
        from ..symbolic.checks import nonfinite_constants
        self.flatten()
        # a NaN / inf number in an expression (math.cos of a symbol) poisons everything
        # derived from it: refused first, with the declaration problems
        bad = nonfinite_constants(self)
        if bad:
            from ..errors import ModelError
            raise ModelError([f"model '{self.name}': {p}" for p in self.problems + bad])
        return compile_model(self, stabilization, evaluate=evaluate)

    def _evaluated(self, evaluate):
        """``(model to derive, {name: value})`` for ``compile(evaluate=...)``: this Model,
        or a copy with the chosen parameters folded in (see
        :func:`mechdae.dsl.evaluate.evaluated_model`); called by
        :func:`mechdae.symbolic.compile_model`."""
        from .evaluate import evaluated_model
        return evaluated_model(self, evaluate)

    def _repr_html_(self):
        """A table for Jupyter (:mod:`mechdae._display`)."""
        from .._display import model_html
        return model_html(self)

    def __repr__(self):
        return (f"Model({self.name!r}: {len(self.coords)} coordinates, {len(self.speeds_)} speeds, "
                f"{sum(int(e.numel()) for _, e in self.holonomic_)} holonomic, "
                f"{sum(int(e.numel()) for _, e in self.nonholonomic_)} nonholonomic, "
                f"{len(self.contacts)} contacts)")
