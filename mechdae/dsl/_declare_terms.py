"""Declaring what a Model's symbols obey: energies, generalized forces, constraints,
general equations and named outputs (a mixin of :class:`mechdae.Model`).

One job: check and store each term as an ``SX`` expression, to be derived by
``compile()`` into

    M(q) u' = h(q, u, t) + G(q)^T lam + A(q)^T mu,
    phi(q, t) = 0,   psi = A(q) u + b(q, t) = 0,

with ``T`` and ``V`` the kinetic and potential energies of the Lagrangian. Nothing is
derived here. Symbols are declared by :mod:`mechdae.dsl._declare_symbols`.
"""
from __future__ import annotations

import casadi as ca

from .._typing import Expr, Optional, Union
from .._symbols import _REGISTRY, _SymInfo, _info, _as_sx

__all__ = ["TermDeclarations"]


class TermDeclarations:
    """Mixin of :class:`mechdae.Model`: energies, forces, constraints, equations, outputs.

    Appends to the Model's ``T_terms``, ``V_terms``, ``forces``, ``speed_forces``,
    ``holonomic_``, ``nonholonomic_``, ``equations`` and ``outputs``; the symbols of
    multipliers and accelerations (for outputs only) are kept in ``_multipliers`` and
    ``_accelerations``.
    """

    # ------------------------------------------------------------------ physics
    def kinetic_energy(self, T: Expr) -> None:
        """Add a kinetic-energy term ``T(q, q')`` (terms accumulate)."""
        self.T_terms.append(_as_sx(T, "kinetic energy"))

    def potential_energy(self, V: Expr) -> None:
        """Add a potential-energy term ``V(q, t)`` (terms accumulate)."""
        self.V_terms.append(_as_sx(V, "potential energy"))

    def generalized_force(self, Q: Expr, coord: Union[ca.SX, str]) -> None:
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

    def holonomic(self, expr: Expr, name: Optional[str] = None) -> None:
        """Add holonomic constraints ``phi(q, t) = 0`` (scalar or vector) named ``name``."""
        name = name or self._free_name("phi", len(self.holonomic_))
        self._names_check(name, "constraint")
        self.holonomic_.append((name, _as_sx(expr, f"holonomic constraint '{name}'")))

    def nonholonomic(self, expr: Expr, name: Optional[str] = None) -> None:
        """Add nonholonomic constraints ``psi = A(q) u + b(q, t) = 0``.

        ``expr`` may use speeds and ``der(x)``; it must be linear in them (checked by compile).
        """
        name = name or self._free_name("psi", len(self.nonholonomic_))
        self._names_check(name, "constraint")
        self.nonholonomic_.append((name, _as_sx(expr, f"nonholonomic constraint '{name}'")))

    def equation(self, eq: Expr, name: Optional[str] = None) -> None:
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

    # ------------------------------------------------------------------ outputs
    def output(self, name: str, expr: Expr) -> None:
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

    def multiplier(self, constraint: str, row: int = 0) -> ca.SX:
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

    def acceleration(self, speed: Union[ca.SX, str]) -> ca.SX:
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
