"""The symbolic, editable model: a plain container of symbols, energies, forces, equations,
constraints and contacts.

A ``Model`` derives nothing.  ``Model.compile()`` hands it to :mod:`mechdae.symbolic`,
the only place where equations are derived.  Names are free strings and may be
namespaced (``"b1.x"``, ``"arm.theta"``) so that components with connectors can later be
flattened into one Model.

Symbols are CasADi ``SX`` scalars.  Every coordinate ``x`` owns a rate symbol
``der(x)``; unless the model declares other kinematics for ``x`` this rate symbol *is* the
generalized speed of ``x`` (``q' = N(q) u`` with ``N = I``).
"""
import math
import threading

import casadi as ca
import numpy as np

# the symbol registry and conversions live one layer down (mechdae._symbols), where
# mechdae.symbolic and mechdae.simulate import them too; re-exported here under the old names
from .._symbols import (_REGISTRY, _SymInfo, _info, _as_sx, der, der_many, _rate_of,  # noqa: F401
                        _MODELS, placeholder, _placeholder_rate, is_placeholder,
                        register_model_type)

__all__ = ["Model", "der", "Contact", "placeholder"]

_FLATTEN_LOCK = threading.RLock()    # flattening edits a Model in place: one at a time


class Contact:
    """A unilateral contact as declared in a Model (a record; compile derives W, Wt, Wdot_u).

    Attributes
    ----------
    name : str
    gap : SX
        Signed distance ``g(q, t) >= 0``.
    tangent : SX or None
        Expressions of ``q`` (and ``t``) whose rates are the sliding velocities.
    tangent_velocity : SX or None
        Sliding velocities written directly, affine in the speeds.
    restitution, friction, tangential_restitution : float or SX
        ``e_n``, ``mu`` (``inf``: no sliding), ``e_t``.
    law : str
        Impact law name (``"newton"``, ...), read by the contact drivers.
    friction_cone : str
        ``"coulomb"`` or ``"closure"`` (``mu = inf`` only; see :meth:`Model.contact`).
    """

    def __init__(self, name, gap, tangent, tangent_velocity, restitution, friction,
                 tangential_restitution, law, friction_cone="coulomb"):
        self.name = name
        self.gap = gap
        self.tangent = tangent
        self.tangent_velocity = tangent_velocity
        self.restitution = restitution
        self.friction = friction
        self.tangential_restitution = tangential_restitution
        self.law = law
        self.friction_cone = friction_cone

    def __repr__(self):
        cone = "" if self.friction_cone == "coulomb" else f", friction_cone={self.friction_cone!r}"
        return (f"Contact({self.name!r}, e_n={self.restitution}, mu={self.friction}, "
                f"e_t={self.tangential_restitution}, law={self.law!r}{cone})")


@register_model_type
class Model:
    """An equation-based mechanical model (symbolic, editable).

    The compiled dynamics (see :func:`mechdae.symbolic.compile_model`) are

        M(q) u' = h(q, u, t) + G(q)^T lam + A(q)^T mu,    q' = N(q) u,
        phi(q, t) = 0,   psi = A(q) u + b(q, t) = 0.

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

    # ------------------------------------------------------------------ symbols
    def _new(self, name, kind, deriv=None, owner=None, register_name=True, holder=None):
        if not isinstance(name, str) or not name.strip():
            self.problems.append(f"{kind} name {name!r}: names must be non-empty strings")
            name = str(name)
        if register_name:
            self._names_check(name, kind, holder)
        s = ca.SX.sym(name)
        _REGISTRY[s.element_hash()] = _SymInfo(s, name, kind, self._id, deriv, owner)
        return s

    def _check_default(self, kind, name, value):
        if callable(value) or isinstance(value, (ca.SX, ca.MX)):
            return value
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            self.problems.append(f"{kind} '{name}': default {value!r} is not a number")
            return 0.0
        if not np.all(np.isfinite(arr)):
            self.problems.append(f"{kind} '{name}': default {value!r} is not finite; give a "
                                 "finite number")
        return float(arr) if arr.ndim == 0 else arr

    @staticmethod
    def _split(names):
        if isinstance(names, str):
            return names.replace(",", " ").split()
        return [str(n) for n in names]

    def coordinates(self, names, default=0.0, speeds=None, speed_default=0.0, unit=None):
        """Declare generalized coordinates ``q``.

        Parameters
        ----------
        names : str or list of str
            Space- or comma-separated names (``"x y"``).
        default : float or list of float
            Initial value used when ``q0`` omits the coordinate.
        speeds : str or list of str, optional
            Names of the coordinates' speeds (default ``"der(x)"``); ``der(x)`` is the
            speed either way, the name is how results and ``v0`` refer to it
            (``m.coordinates("J.phi", speeds="J.w")``).
        speed_default : float or list of float
            Initial speed used when ``v0`` omits it.
        unit : str or list of str, optional
            Unit of each coordinate (``"m"``, ``"rad"``), for plot labels and files; its
            speed gets ``unit/s``.

        Returns
        -------
        SX or tuple of SX
            One symbol per name (a single symbol for a single name).
        """
        names = self._split(names)
        self._set_units(names, unit)
        defaults = default if isinstance(default, (list, tuple, np.ndarray)) else [default] * len(names)
        snames = [None] * len(names) if speeds is None else self._split(speeds)
        if len(snames) != len(names):
            self.problems.append(f"coordinates {names}: {len(snames)} speed names for "
                                 f"{len(names)} coordinates")
            snames = [None] * len(names)
        sdefs = speed_default if isinstance(speed_default, (list, tuple, np.ndarray)) \
            else [speed_default] * len(names)
        out = [self._coordinate(n, d, sn, sd) for n, d, sn, sd in zip(names, defaults, snames,
                                                                      sdefs)]
        return out[0] if len(out) == 1 else tuple(out)

    def _coordinate(self, n, d, speed_name=None, speed_default=0.0):
        self._names_check(n, "coordinate", record=False)     # before its speed is made
        rate = self._new(speed_name or f"der({n})", "speed", owner=n,
                         holder=f"speed (of coordinate '{n}')")
        s = self._new(n, "coordinate", deriv=rate)
        self.coords.append(dict(name=n, sym=s, default=self._check_default("coordinate", n, d),
                                rate=rate))
        self.speeds_.append(dict(name=speed_name or f"der({n})", sym=rate, coord=n,
                                 default=self._check_default("speed", n, speed_default)))
        return s

    def speeds(self, names, default=0.0):
        """Declare generalized speeds ``u`` (quasi-velocities).

        Declared speeds enter through :meth:`kinematics`, which writes each coordinate's
        rate ``q' = N(q) u`` as an expression linear in the speeds.

        Returns
        -------
        SX or tuple of SX
        """
        names = self._split(names)
        out = []
        for n in names:
            s = self._new(n, "speed")
            self.speeds_.append(dict(name=n, sym=s, default=self._check_default("speed", n, default),
                                     coord=None))
            out.append(s)
        return out[0] if len(out) == 1 else tuple(out)

    def kinematics(self, mapping):
        """Set the kinematic equations ``q' = N(q) u`` of some coordinates.

        Parameters
        ----------
        mapping : dict
            ``{coordinate symbol: rate expression}``; the expression must be linear in the
            speeds (checked by compile).  The coordinate's own speed ``der(x)`` is then no
            longer a state: ``der(x)`` stands for the expression.
        """
        for c, expr in mapping.items():
            info = _info(c) if isinstance(c, ca.SX) else None
            if info is None or info.kind != "coordinate" or info.model_id != self._id:
                self.problems.append(f"kinematics: {c} is not a coordinate of model '{self.name}'")
                continue
            self.kinematics_[info.name] = _as_sx(expr, f"kinematics of '{info.name}'")
            self.speeds_ = [s for s in self.speeds_ if s.get("coord") != info.name]
            _REGISTRY[_info(c).deriv.element_hash()].kind = "rate"

    def parameter(self, name, default, unit=None):
        """Declare a parameter (symbolic; its value is given at simulate time).

        Parameters
        ----------
        name : str
        default : float
            Value used unless ``params={name: value}`` overrides it.
        unit : str, optional
            Unit (``"kg"``, ``"m/s^2"``), for labels and files.

        Returns
        -------
        SX
        """
        self._set_units([name], unit)
        s = self._new(name, "parameter")
        self.params.append(dict(name=name, sym=s, default=self._check_default("parameter", name, default)))
        return s

    def input(self, name, default=0.0):
        """Declare an external input ``w(t)``.

        Parameters
        ----------
        name : str
        default : float, array (k, 2) of (t, value) samples, or callable
            A constant; samples (linear interpolation, held constant outside); or a function
            ``f(t)`` written with ``md`` functions.  Overridden by ``simulate(inputs=...)``.

        Returns
        -------
        SX
        """
        s = self._new(name, "input")
        self.inputs.append(dict(name=name, sym=s, default=self._check_default("input", name, default)))
        return s

    def variable(self, name, default=0.0):
        """Declare an extra variable: differential if ``der(v)`` appears in an equation,
        algebraic otherwise.  Each needs one :meth:`equation`.

        Returns
        -------
        SX
        """
        s = self._new(name, "variable")
        self.variables.append(dict(name=name, sym=s, default=self._check_default("variable", name, default),
                                   rate=None, rates=[]))
        return s

    def _variable_rate(self, name, level=1):
        """Symbol of the ``level``-th derivative of variable ``name`` (created on first use;
        named ``der(x)``, ``der(der(x))``, ...)."""
        for v in self.variables:
            if v["name"] == name:
                rates = v.setdefault("rates", [])
                if not rates and v.get("rate") is not None:
                    rates.append(v["rate"])
                while len(rates) < level:
                    k = len(rates) + 1
                    rates.append(self._new("der(" * k + name + ")" * k, "vrate", owner=name,
                                           register_name=False))
                v["rate"] = rates[0]
                return rates[level - 1]
        raise KeyError(name)

    def _rate_level(self, name, sym):
        """Derivative order of the rate symbol ``sym`` of variable ``name`` (1, 2, ...)."""
        h = sym.element_hash()
        for v in self.variables:
            if v["name"] == name:
                for k, r in enumerate(v.get("rates") or [v["rate"]]):
                    if r is not None and r.element_hash() == h:
                        return k + 1
        raise KeyError(name)

    # ------------------------------------------------------------------ physics
    def kinetic_energy(self, T):
        """Add a kinetic-energy term ``T(q, q')`` (terms accumulate)."""
        self.T_terms.append(_as_sx(T, "kinetic energy"))

    def potential_energy(self, V):
        """Add a potential-energy term ``V(q, t)`` (terms accumulate)."""
        self.V_terms.append(_as_sx(V, "potential energy"))

    def generalized_force(self, Q, coord):
        """Add a generalized force ``Q`` to the equation of coordinate (or speed) ``coord``.

        ``Q`` may depend on coordinates, speeds, variables, inputs, parameters and time.
        For a coordinate the force enters through ``N^T Q``; for a declared speed directly.
        """
        info = _info(coord) if isinstance(coord, ca.SX) else None
        Q = _as_sx(Q, "generalized force")
        if info is None or info.model_id != self._id or info.kind not in ("coordinate", "speed", "rate"):
            self.problems.append(f"generalized_force: target {coord} is not a coordinate or speed of "
                                 f"model '{self.name}'")
            return
        if info.kind == "coordinate":
            self.forces.append((Q, info.name))
        else:
            if info.owner is not None:   # der(x) of an identity coordinate
                self.forces.append((Q, info.owner))
            else:
                self.speed_forces.append((Q, info.name))

    def holonomic(self, expr, name=None):
        """Add holonomic constraints ``phi(q, t) = 0`` (scalar or vector) named ``name``."""
        name = name or self._free_name("phi", len(self.holonomic_))
        self._names_check(name, "constraint")
        self.holonomic_.append((name, _as_sx(expr, f"holonomic constraint '{name}'")))

    def nonholonomic(self, expr, name=None):
        """Add nonholonomic constraints ``psi = A(q) u + b(q, t) = 0``.

        ``expr`` may use speeds and ``der(x)``; it must be linear in them (checked by compile).
        """
        name = name or self._free_name("psi", len(self.nonholonomic_))
        self._names_check(name, "constraint")
        self.nonholonomic_.append((name, _as_sx(expr, f"nonholonomic constraint '{name}'")))

    def equation(self, eq, name=None):
        """Add a general equation ``lhs == rhs`` (or a residual expression ``r = 0``) for the
        extra variables (differential ones through ``der(v)``).
        """
        e = _as_sx(eq, "equation") if not isinstance(eq, bool) else None
        name = name or self._free_name("eq", len(self.equations))
        if name in self.__dict__.setdefault("_equation_names", set()):
            from ..errors import ModelError
            raise ModelError(f"model '{self.name}': equation '{name}': the name is already "
                             "used by an equation; names of equations must be unique")
        self._equation_names.add(name)
        if e is None:
            self.problems.append(f"equation '{name}': got a Python bool; write lhs == rhs with "
                                 "model symbols on at least one side")
            return
        rows = []
        for i in range(e.numel()):
            ei = e[i]
            rows.append(ei.dep(0) - ei.dep(1) if ei.is_op(ca.OP_EQ) else ei)
        self.equations.append((name, ca.vertcat(*rows)))

    def contact(self, name, gap, tangent=None, tangent_velocity=None, restitution=0.0,
                friction=0.0, tangential_restitution=0.0, law="newton",
                friction_cone="coulomb"):
        """Declare a unilateral contact with gap ``g(q, t) >= 0``.

        Contact velocities are ``v_c = W(q, t) u + w(q, t)``: the normal one is ``dg/dt``
        along the motion, the tangential ones the rates of ``tangent`` or the values of
        ``tangent_velocity``. Contacts may be rheonomic (``w != 0``): a gap depending on the
        model time (a vibrating support, ``y - A sin(omega t)``), or a tangent velocity
        relative to a moving surface (a belt, ``der(x) - v_belt``); impact laws and friction
        act on these relative velocities.

        Parameters
        ----------
        name : str
        gap : expression of q, parameters and the model time m.time
        tangent : expression(s) of q (and m.time) whose rates are the sliding velocities,
            optional
        tangent_velocity : expression(s) affine in the speeds, optional (rolling bodies,
            moving surfaces)
        restitution, friction, tangential_restitution : float
            ``e_n`` in [0, 1], ``mu >= 0`` (``inf``: no sliding), ``e_t`` in [-1, 1].
        law : str
            Impact law (``"newton"`` default), passed on to the contact drivers.
        friction_cone : {"coulomb", "closure"}
            What ``friction=inf`` means at an impact. ``"coulomb"`` (default): the limit of
            the cone ``|P_t| <= mu P_n``, so a contact that separates (``P_n = 0``) takes no
            tangential impulse either. ``"closure"``: the closure of the cone as
            ``mu -> inf``, the half-plane ``P_n >= 0`` with ``P_t`` unbounded; its dual cone
            is ``v_t+ = 0, v_n+ >= 0``, so the contact's tangential velocity is stopped
            even when it lifts off (``0 <= P_n _|_ v_n+ >= 0``, ``v_t+ + e_t v_t- = 0``).
            This is the modified impact model (5.2) of Rubanovich & Formalsky (seed 000:
            ``x_D(+0) = 0`` with ``E_1y = 0``). Implemented by ``System.impact`` and
            ``System.impact_batch``; the simulation drivers, ``contact_forces`` and
            ``painleve`` reject it (ValueError).
        """
        self._names_check(name, "contact")
        if friction_cone not in ("coulomb", "closure"):
            self.problems.append(f"contact '{name}': friction_cone={friction_cone!r}; use "
                                 "'coulomb' (default) or 'closure'")
        elif friction_cone == "closure":
            if isinstance(friction, (ca.SX, ca.MX)) or float(friction) != math.inf:
                self.problems.append(f"contact '{name}': friction_cone='closure' is the limit "
                                     f"mu -> inf; set friction=math.inf (got {friction})")
            if tangent is None and tangent_velocity is None:
                self.problems.append(f"contact '{name}': friction_cone='closure' needs a "
                                     "tangent (or tangent_velocity) to stop")
        if tangent is not None and tangent_velocity is not None:
            self.problems.append(f"contact '{name}': give either tangent or tangent_velocity, "
                                 "not both")
        for what, val, lo, hi in (("restitution", restitution, 0.0, 1.0),
                                  ("friction", friction, 0.0, math.inf),
                                  ("tangential_restitution", tangential_restitution, -1.0, 1.0)):
            if not isinstance(val, (ca.SX, ca.MX)):
                v = float(val)
                if math.isnan(v) or not (lo <= v <= hi):
                    self.problems.append(f"contact '{name}': {what}={val} is outside [{lo}, {hi}]")
        self.contacts.append(Contact(
            name, _as_sx(gap, f"gap of contact '{name}'"),
            None if tangent is None else _as_sx(tangent, f"tangent of contact '{name}'"),
            None if tangent_velocity is None else _as_sx(tangent_velocity,
                                                         f"tangent_velocity of contact '{name}'"),
            restitution, friction, tangential_restitution, law, friction_cone))

    def _set_units(self, names, unit):
        if unit is None:
            return
        units = [unit] * len(names) if isinstance(unit, str) else list(unit)
        if len(units) != len(names) or not all(isinstance(u, str) for u in units):
            self.problems.append(f"{', '.join(names)}: unit={unit!r}; give one string, or "
                                 f"one per name ({len(names)})")
            return
        self.units.update(zip(names, units))

    def draw(self, name, points, kind="body", radius=None):
        """Declare something :meth:`Result.animate` draws in the plane (optional).

        Parameters
        ----------
        name : str
            Label; a ``"point"`` named like a contact is coloured by that contact's state.
        points : list of (x, y)
            Expressions of the coordinates, parameters and time (world frame, m).
        kind : {"body", "point", "surface"}
            ``"body"``: a polygon through three or more points, a bar through two, a disc
            of ``radius`` around one; ``"point"``: a marker; ``"surface"``: a line drawn
            through the points (ground, walls; it may move).
        radius : expression, optional
            Disc radius of a one-point body.
        """
        pts = []
        for p in points:
            if len(p) != 2:
                self.problems.append(f"draw '{name}': points are (x, y) pairs, got {p!r}")
                return
            pts.append(tuple(_as_sx(c, f"point of drawing '{name}'") for c in p))
        if kind not in ("body", "point", "surface") or not pts:
            self.problems.append(f"draw '{name}': kind={kind!r} with {len(pts)} points; kind "
                                 "is 'body', 'point' or 'surface', with at least one point")
            return
        self.drawings.append(dict(name=name, kind=kind, points=pts,
                                  radius=None if radius is None else
                                  _as_sx(radius, f"radius of drawing '{name}'")))

    def rigid_body(self, name, mass, inertia, planar=False, gravity=None):
        """Create a rigid body with its coordinates, speeds and kinetic energy.

        Planar: coordinates ``name.x, name.y, name.theta``, speeds ``name.vx, name.vy,
        name.w``.  Spatial: coordinates ``name.x, name.y, name.z`` and the unit quaternion
        ``name.q0..name.q3`` (default identity), speeds ``name.vx, name.vy, name.vz``
        (world velocity of the center) and ``name.wx, name.wy, name.wz`` (angular velocity in
        body axes).

        Parameters
        ----------
        name : str
        mass : float or SX
        inertia : float (planar) or 3x3 / 3-vector (spatial, body axes at the center)
        planar : bool
        gravity : float or SX, optional
            Adds the potential ``m g y`` (planar) or ``m g z`` (spatial).

        Returns
        -------
        PlanarBody or SpatialBody
        """
        from .bodies import PlanarBody, SpatialBody
        b = (PlanarBody if planar else SpatialBody)(self, name, mass, inertia)
        self.bodies.append(b)
        if gravity is not None:
            self.potential_energy(b.mass * gravity * (b.y if planar else b.z))
        return b

    def _names_check(self, name, kind, holder=None, record=True):
        """Claim ``name`` for a ``kind`` (``holder``: how later errors call it); a name
        already held is refused here, where it is declared (:class:`ModelError` naming
        the name and what holds it)."""
        if name in self._names:
            from ..errors import ModelError
            raise ModelError(
                f"model '{self.name}': {kind} '{name}': the name is already used by a "
                f"{self._names[name]}; names must be unique within a model (use another "
                "name, or a namespace like 'arm.theta')")
        if record:
            self._names[name] = holder or kind

    def _free_name(self, prefix, k):
        """``prefix + str(k)``, or the next such name not taken (unnamed constraints and
        equations)."""
        eqs = self.__dict__.setdefault("_equation_names", set())
        while f"{prefix}{k}" in self._names or f"{prefix}{k}" in eqs:
            k += 1
        return f"{prefix}{k}"

    # ------------------------------------------------------------------ lookup
    def symbol(self, name):
        """The symbol of a coordinate, speed, parameter, input or variable by name."""
        for lst in (self.coords, self.speeds_, self.params, self.inputs, self.variables):
            for d in lst:
                if d["name"] == name:
                    return d["sym"]
        for c in self.coords:
            if f"der({c['name']})" == name:
                return c["rate"]
        raise KeyError(f"model '{self.name}' has no symbol named '{name}'")

    def __getitem__(self, name):
        return self.symbol(name)

    # ------------------------------------------------------------------ outputs
    def output(self, name, expr):
        """Declare a named output: an expression of the model's symbols (and of constraint
        multipliers, see :meth:`multiplier`) that results return by name (``res[name]``).

        Parameters
        ----------
        name : str
        expr : scalar expression
        """
        self._names_check(name, "output")
        e = _as_sx(expr, f"output '{name}'")
        if e.numel() != 1:
            self.problems.append(f"output '{name}': must be a scalar expression, got shape "
                                 f"{e.shape}")
            return
        self.outputs.append((name, e))

    def multiplier(self, constraint, row=0):
        """Symbol of the multiplier of a holonomic or nonholonomic constraint (row ``row``),
        for use in :meth:`output` expressions only (cut forces of acausal connections).

        The reaction generalized force of the constraint is ``G^T lam``.
        """
        key = (str(constraint), int(row))
        s = self._multipliers.get(key)
        if s is None:
            s = ca.SX.sym(f"lambda({constraint})" + (f"[{row}]" if row else ""))
            _REGISTRY[s.element_hash()] = _SymInfo(s, str(s), "multiplier", self._id)
            self._multipliers[key] = s
        return s

    def acceleration(self, speed):
        """Symbol of the rate of a speed (an acceleration), for :meth:`output` expressions
        only: results evaluate it from the equations of motion along the run (smooth
        phases; not offered for models with contacts, whose accelerations jump).

        Parameters
        ----------
        speed : str or SX
            A speed name (``"J.w"``, ``"der(x)"``) or the speed symbol (``md.der(x)``).
        """
        if isinstance(speed, ca.SX):
            info = _info(speed)
            if info is None or info.kind not in ("speed", "rate"):
                raise ValueError(f"acceleration(): {speed} is not a speed of model "
                                 f"'{self.name}'")
            speed = next(s["name"] for s in self.speeds_ if s["sym"].element_hash()
                         == speed.element_hash())
        s = self._accelerations.get(speed)
        if s is None:
            s = ca.SX.sym(f"der({speed})")
            _REGISTRY[s.element_hash()] = _SymInfo(s, str(s), "acceleration", self._id)
            self._accelerations[speed] = s
        return s

    # ------------------------------------------------------------------ components
    def add(self, component):
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

    def connect(self, *connectors):
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
        from ..errors import ModelError
        return ModelError(f"model '{self.name}': {what} of {obj} after the model was compiled; "
                          "components are flattened by the first compile(): build the whole "
                          "model first (or build a new Model)")

    def substitute(self, old, new):
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
            self._inertia = (*sb(handed[:2]), self.T_terms[0])
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

    def flatten(self):
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

    def compile(self, stabilization="default", evaluate=None):
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

    def __reduce__(self):
        """Pickle support: symbols and expressions travel as one serialized CasADi Function
        (see :mod:`mechdae.symbolic.pickling`); a Model whose components were not flattened
        yet is refused (call :meth:`flatten` first)."""
        from ..symbolic.pickling import dump_payload, load_payload
        return load_payload, (dump_payload(self, self.time),)

    def __repr__(self):
        return (f"Model({self.name!r}: {len(self.coords)} coordinates, {len(self.speeds_)} speeds, "
                f"{sum(int(e.numel()) for _, e in self.holonomic_)} holonomic, "
                f"{sum(int(e.numel()) for _, e in self.nonholonomic_)} nonholonomic, "
                f"{len(self.contacts)} contacts)")
