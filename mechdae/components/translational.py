"""1-D translational mechanics (Modelica.Mechanics.Translational names and parameters).

Connector ``Flange``: potential ``s`` (m), flow ``f`` (N, positive into the component).
Masses carry the coordinates (``"<mass>.s"``, speed ``"<mass>.v"``); springs and dampers
act through their potential energy and virtual work; Fixed and Position fix potentials.
Mass, Spring, Damper, SpringDamper, Fixed and Force declare their equations only when the
generic flattening reads them (:mod:`.flatten.network`: a network of them alone is
written directly in the masses' positions, each class's equations built once).
"""
from __future__ import annotations

from .._typing import Any, Expr
from ..dsl.model import der
from .core import Component, Connector, LazyEquations

__all__ = ["Flange", "Mass", "Spring", "Damper", "SpringDamper", "Fixed", "Force", "Position",
           "PositionSensor", "SpeedSensor", "ForceSensor", "Stop", "MassWithStopAndFriction"]


class Flange(Connector):
    """Translational flange: position ``s`` (m), cut force ``f`` (N)."""
    units = {"s": "m", "f": "N"}
    potentials = ("s",)
    flows = ("f",)
    domain = "translational"
    kind = "Flange"


def _shape(kind, comp, *flanges, **kw):
    """A :class:`~mechdae.simulate.shapes.Shape` of ``comp`` on its flanges (the 1-D
    schematic of :mod:`mechdae.simulate.scene`)."""
    from ..simulate.shapes import Anchor, Shape
    return Shape(kind, comp.path, [Anchor(f) for f in flanges], **kw)


class Mass(LazyEquations, Component):
    """Sliding mass of length ``L``: ``m s'' = flange_a.f + flange_b.f``; flanges at
    ``s -+ L/2``. Variables ``s``, ``v`` (states), ``a``."""
    units = {"m": "kg", "L": "m", "s": "m", "v": "m/s", "a": "m/s2"}
    _template = True

    def __init__(self, name: str, m: Expr = 1.0, L: Expr = 0.0, s: Expr = 0.0,
                 v: Expr = 0.0) -> None:
        super().__init__(name)
        self._m = self.parameter("m", m)
        self._L = self.parameter("L", L)
        self._s = self.coordinate("s", default=s, speed="v", speed_default=v)
        self.connector(Flange, "flange_a")
        self.connector(Flange, "flange_b")

    def _build_equations(self):
        s, L = self._s, self._L
        self.define(self.flange_a, s - L / 2)
        self.define(self.flange_b, s + L / 2)
        self.kinetic_energy(0.5 * self._m * der(s) ** 2)
        self.output("a", der(der(s)))

    def drawing(self) -> list:
        """A block from flange_a to flange_b on the line of its network."""
        return [_shape("block", self, self.flange_a, self.flange_b)]


class _Compliant(LazyEquations, Component):
    """Two flanges; ``s_rel = flange_b.s - flange_a.s``, ``v_rel``, force ``f`` (flange_b.f)."""
    units = {"s_rel": "m", "v_rel": "m/s", "f": "N", "c": "N/m", "s_rel0": "m", "d": "N.s/m",
             "lossPower": "W"}

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.flange_a = self.connector(Flange, "flange_a")
        self.flange_b = self.connector(Flange, "flange_b")

    _look = ("spring",)                  # Damper: ("damper",); SpringDamper: both

    def drawing(self) -> list:
        """A coil (spring) and/or a dashpot (damper) between the flanges."""
        return [_shape(k, self, self.flange_a, self.flange_b) for k in self._look]

    @property
    def s_rel(self):
        """``flange_b.s - flange_a.s`` (an expression of the flanges' placeholders)."""
        return self.flange_b.s - self.flange_a.s

    @property
    def v_rel(self):
        """``der(flange_b.s) - der(flange_a.s)``."""
        return der(self.flange_b.s) - der(self.flange_a.s)

    def _build_equations(self):
        self.output("s_rel", self.s_rel)
        self.output("v_rel", self.v_rel)


class Spring(_Compliant):
    """Linear spring ``f = c (s_rel - s_rel0)`` (potential energy ``c/2 (s_rel - s_rel0)^2``)."""
    _template = True

    def __init__(self, name: str, c: Expr = 1.0, s_rel0: Expr = 0.0) -> None:
        super().__init__(name)
        self._c = self.parameter("c", c)
        self._s0 = self.parameter("s_rel0", s_rel0)

    def _build_equations(self):
        super()._build_equations()
        c, s0, s_rel = self._c, self._s0, self.s_rel
        f = c * (s_rel - s0)
        self.potential_energy(0.5 * c * (s_rel - s0) ** 2)
        self.output("f", f)
        self.flow(self.flange_a, -f, energy=True)
        self.flow(self.flange_b, f, energy=True)


class Damper(_Compliant):
    """Linear damper ``f = d v_rel``; ``lossPower = f v_rel``."""
    _template = True
    _look = ("damper",)

    def __init__(self, name: str, d: Expr = 0.0) -> None:
        super().__init__(name)
        self._d = self.parameter("d", d)

    def _build_equations(self):
        super()._build_equations()
        v_rel = self.v_rel
        f = self._d * v_rel
        self.output("f", f)
        self.output("lossPower", f * v_rel)
        self.flow(self.flange_a, -f)
        self.flow(self.flange_b, f)


class SpringDamper(_Compliant):
    """Spring and damper in parallel: ``f = c (s_rel - s_rel0) + d v_rel``."""
    _template = True
    _look = ("spring", "damper")

    def __init__(self, name: str, c: Expr = 1.0, d: Expr = 0.0, s_rel0: Expr = 0.0) -> None:
        super().__init__(name)
        self._c = self.parameter("c", c)
        self._d = self.parameter("d", d)
        self._s0 = self.parameter("s_rel0", s_rel0)

    def _build_equations(self):
        super()._build_equations()
        c, s0, s_rel, v_rel = self._c, self._s0, self.s_rel, self.v_rel
        f_c = c * (s_rel - s0)
        f_d = self._d * v_rel
        self.output("f", f_c + f_d)
        self.output("lossPower", f_d * v_rel)
        self.potential_energy(0.5 * c * (s_rel - s0) ** 2)
        # the spring part enters through the potential energy, the damper part through
        # virtual work
        self.flow(self.flange_a, -(f_c + f_d), energy=-f_c)
        self.flow(self.flange_b, f_c + f_d, energy=f_c)


class Fixed(LazyEquations, Component):
    """Flange fixed at ``s0``."""
    units = {"s0": "m"}
    _template = True

    def __init__(self, name: str, s0: Expr = 0.0) -> None:
        super().__init__(name)
        self._s0 = self.parameter("s0", s0)
        self.flange = self.connector(Flange, "flange")

    def _build_equations(self):
        self.define(self.flange, self._s0)

    def drawing(self) -> list:
        """A support at the flange."""
        return [_shape("ground", self, self.flange)]


class Force(LazyEquations, Component):
    """Force ``f`` (a constant, an expression or a function of time ``f(t)``) acting on the
    flange in the positive direction (``flange.f = -f``)."""
    units = {"f": "N"}

    def __init__(self, name: str, f: Any = 0.0) -> None:
        super().__init__(name)
        self._value = self.signal("f", f)
        self.flange = self.connector(Flange, "flange")

    def _build_equations(self):
        self.output("f", self._value)
        self.flow(self.flange, -self._value)


class Position(Component):
    """Prescribed position ``flange.s = s_ref(t)`` (a program constraint where the flange is
    also defined by a mass: stabilized like every holonomic constraint)."""
    units = {"s_ref": "m"}

    def __init__(self, name: str, s_ref: Any = 0.0) -> None:
        super().__init__(name)
        sv = self.signal("s_ref", s_ref)
        self.flange = self.connector(Flange, "flange")
        self.define(self.flange, sv)


class PositionSensor(Component):
    """Ideal sensor: output ``s`` of the flange (no force)."""
    units = {"s": "m"}

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.flange = self.connector(Flange, "flange")
        self.output("s", self.flange.s)


class SpeedSensor(Component):
    """Ideal sensor: output ``v = der(flange.s)`` (no force)."""
    units = {"v": "m/s"}

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.flange = self.connector(Flange, "flange")
        self.output("v", der(self.flange.s))


class ForceSensor(Component):
    """Rigid connection measuring the force ``f = flange_a.f`` transmitted from a to b."""
    units = {"f": "N"}

    def __init__(self, name: str) -> None:
        super().__init__(name)
        a = self.connector(Flange, "flange_a")
        b = self.connector(Flange, "flange_b")
        self.relation(b.s - a.s, name="rigid")
        self.output("f", a.f)


from .friction import Stop, MassWithStopAndFriction  # noqa: E402,F401

from ._msl_exports import export as _msl_export  # noqa: E402
__all__ += _msl_export(globals(), "translational")
