"""Sensors of Modelica.Mechanics.Translational.Sensors beyond translational.py's
PositionSensor, SpeedSensor and ForceSensor (MSL names and outputs).

Absolute and relative sensors take no force (``flange.f = 0``, ``flange_a.f = -flange_b.f
= 0``); the power and multi sensors are rigid connections (``flange_a.s = flange_b.s``)
that pass the force through and measure it, ``f = flange_a.f``. Accelerations are the
second rates of the flanges' positions (results evaluate them from the equations of
motion).

``units``: each class's SI units of its outputs, as data.
"""
from .._symbols import der
from .core import Component
from .translational import Flange

__all__ = ["AccSensor", "RelPositionSensor", "RelSpeedSensor", "RelAccSensor", "PowerSensor",
           "MultiSensor"]


class AccSensor(Component):
    """Ideal sensor of the absolute acceleration ``a = der(der(flange.s))`` (no force)."""
    units = {"a": "m/s2"}

    def __init__(self, name):
        super().__init__(name)
        self.flange = self.connector(Flange, "flange")
        self.output("a", der(der(self.flange.s)))


class _Relative(Component):
    """Two flanges and no force; ``s_rel = flange_b.s - flange_a.s``."""

    def __init__(self, name):
        super().__init__(name)
        self.flange_a = self.connector(Flange, "flange_a")
        self.flange_b = self.connector(Flange, "flange_b")
        self.s_rel = self.flange_b.s - self.flange_a.s


class RelPositionSensor(_Relative):
    """Ideal sensor of the relative position ``s_rel = flange_b.s - flange_a.s``."""
    units = {"s_rel": "m"}

    def __init__(self, name):
        super().__init__(name)
        self.output("s_rel", self.s_rel)


class RelSpeedSensor(_Relative):
    """Ideal sensor of the relative velocity ``v_rel = der(flange_b.s - flange_a.s)``."""
    units = {"v_rel": "m/s"}

    def __init__(self, name):
        super().__init__(name)
        self.output("v_rel", der(self.flange_b.s) - der(self.flange_a.s))


class RelAccSensor(_Relative):
    """Ideal sensor of the relative acceleration ``a_rel = der(v_rel)``."""
    units = {"a_rel": "m/s2"}

    def __init__(self, name):
        super().__init__(name)
        a, b = self.flange_a.s, self.flange_b.s
        self.output("a_rel", der(der(b)) - der(der(a)))


class _Rigid(Component):
    """A rigid connection ``flange_a.s = flange_b.s`` (a relation: its multiplier is the
    force passed through, ``flange_a.f = -flange_b.f``)."""

    def __init__(self, name):
        super().__init__(name)
        a = self.flange_a = self.connector(Flange, "flange_a")
        b = self.flange_b = self.connector(Flange, "flange_b")
        self.relation(b.s - a.s, name="rigid")


class PowerSensor(_Rigid):
    """Ideal sensor of the power ``power = flange_a.f der(flange_a.s)`` flowing from
    flange_a to flange_b."""
    units = {"power": "W"}

    def __init__(self, name):
        super().__init__(name)
        self.output("power", self.flange_a.f * der(self.flange_a.s))


class MultiSensor(_Rigid):
    """Ideal sensor of the force ``f = flange_a.f``, the absolute velocity ``v`` and the
    power ``power = f v`` between two flanges."""
    units = {"f": "N", "v": "m/s", "power": "W"}

    def __init__(self, name):
        super().__init__(name)
        f, v = self.flange_a.f, der(self.flange_a.s)
        self.output("f", f)
        self.output("v", v)
        self.output("power", f * v)


from ._msl_exports import done as _done  # noqa: E402
_done(__name__)
