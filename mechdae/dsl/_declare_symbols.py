"""Declaring a Model's symbols and names: coordinates, speeds, kinematics, parameters,
inputs and variables (a mixin of :class:`mechdae.Model`).

One job: create each symbol, record it in the symbol registry (:mod:`mechdae._symbols`)
with its kind and rate, and keep the model's names unique (a name already held is refused
where it is declared). The model's kinematics ``q' = N(q) u`` are declared here too
(:meth:`SymbolDeclarations.kinematics`); energies, forces and constraints written with the
symbols are :mod:`mechdae.dsl._declare_terms`.
"""
from __future__ import annotations

import casadi as ca
import numpy as np

from .._typing import Any, Expr, Mapping, Names, Optional
from .._symbols import _REGISTRY, _SymInfo, _info, _as_sx

__all__ = ["SymbolDeclarations"]


class SymbolDeclarations:
    """Mixin of :class:`mechdae.Model`: symbols by kind, their defaults, units and names.

    Reads and writes the Model's ``coords``, ``speeds_``, ``kinematics_``, ``params``,
    ``inputs``, ``variables``, ``units``, ``problems`` and ``_names`` (set up by
    ``Model.__init__``).
    """

    # ------------------------------------------------------------------ names and symbols
    def _new(self, name, kind, deriv=None, owner=None, register_name=True, holder=None):
        """A new symbol ``name`` of ``kind``, recorded in the registry under this Model
        (with its rate ``deriv`` and ``owner``); its name is claimed unless
        ``register_name=False``."""
        if not isinstance(name, str) or not name.strip():
            self.problems.append(f"{kind} name {name!r}: names must be non-empty strings")
            name = str(name)
        if register_name:
            self._names_check(name, kind, holder)
        s = ca.SX.sym(name)
        _REGISTRY[s.element_hash()] = _SymInfo(s, name, kind, self._id, deriv, owner)
        return s

    def _check_default(self, kind, name, value):
        """A declared default as a float or an array (callables and expressions as given);
        a default that is not a finite number is recorded in ``problems``."""
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
        """Names from ``"x y"``, ``"x, y"`` or a list."""
        if isinstance(names, str):
            return names.replace(",", " ").split()
        return [str(n) for n in names]

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

    def _set_units(self, names, unit):
        """Record ``unit`` (one string, or one per name) for ``names``."""
        if unit is None:
            return
        units = [unit] * len(names) if isinstance(unit, str) else list(unit)
        if len(units) != len(names) or not all(isinstance(u, str) for u in units):
            self.problems.append(f"{', '.join(names)}: unit={unit!r}; give one string, or "
                                 f"one per name ({len(names)})")
            return
        self.units.update(zip(names, units))

    # ------------------------------------------------------------------ declarations
    def coordinates(self, names: Names, default: Any = 0.0, speeds: Optional[Names] = None,
                    speed_default: Any = 0.0, unit: Optional[Names] = None) -> Any:
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
        """Declare one coordinate ``n`` and its speed (the rate symbol ``der(n)``)."""
        self._names_check(n, "coordinate", record=False)     # before its speed is made
        rate = self._new(speed_name or f"der({n})", "speed", owner=n,
                         holder=f"speed (of coordinate '{n}')")
        s = self._new(n, "coordinate", deriv=rate)
        self.coords.append(dict(name=n, sym=s, default=self._check_default("coordinate", n, d),
                                rate=rate))
        self.speeds_.append(dict(name=speed_name or f"der({n})", sym=rate, coord=n,
                                 default=self._check_default("speed", n, speed_default)))
        return s

    def speeds(self, names: Names, default: Any = 0.0) -> Any:
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

    def kinematics(self, mapping: Mapping[Any, Expr]) -> None:
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

    def parameter(self, name: str, default: Any, unit: Optional[str] = None) -> ca.SX:
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

    def input(self, name: str, default: Any = 0.0) -> ca.SX:
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

    def variable(self, name: str, default: float = 0.0) -> ca.SX:
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

    # ------------------------------------------------------------------ lookup
    def symbol(self, name: str) -> ca.SX:
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
        """``m[name]``: :meth:`symbol`."""
        return self.symbol(name)
