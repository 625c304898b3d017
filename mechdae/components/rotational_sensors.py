"""Sensors of Modelica.Mechanics.Rotational.Sensors beyond rotational.py's AngleSensor,
SpeedSensor and TorqueSensor (MSL names and outputs).

Absolute and relative sensors take no torque (``flange.tau = 0``, ``flange_a.tau =
-flange_b.tau = 0``); the power and multi sensors are rigid connections (``flange_a.phi =
flange_b.phi``) that pass the torque through and measure it, ``tau = flange_a.tau``.
Accelerations are the second rates of the flanges' angles (results evaluate them from the
equations of motion).

``units``: each class's SI units of its outputs, as data.
"""
from .._symbols import der
from .core import Component
from .rotational import Flange

__all__ = ["AccSensor", "RelAngleSensor", "RelSpeedSensor", "RelAccSensor", "PowerSensor",
           "MultiSensor"]


class AccSensor(Component):
    """Ideal sensor of the absolute angular acceleration ``a = der(der(flange.phi))`` (no
    torque)."""
    units = {"a": "rad/s2"}

    def __init__(self, name):
        super().__init__(name)
        self.flange = self.connector(Flange, "flange")
        self.output("a", der(der(self.flange.phi)))


class _Relative(Component):
    """Two flanges and no torque."""

    def __init__(self, name):
        super().__init__(name)
        self.flange_a = self.connector(Flange, "flange_a")
        self.flange_b = self.connector(Flange, "flange_b")


class RelAngleSensor(_Relative):
    """Ideal sensor of the relative angle ``phi_rel = flange_b.phi - flange_a.phi``."""
    units = {"phi_rel": "rad"}

    def __init__(self, name):
        super().__init__(name)
        self.output("phi_rel", self.flange_b.phi - self.flange_a.phi)


class RelSpeedSensor(_Relative):
    """Ideal sensor of the relative angular velocity ``w_rel = der(flange_b.phi -
    flange_a.phi)``."""
    units = {"w_rel": "rad/s"}

    def __init__(self, name):
        super().__init__(name)
        self.output("w_rel", der(self.flange_b.phi) - der(self.flange_a.phi))


class RelAccSensor(_Relative):
    """Ideal sensor of the relative angular acceleration ``a_rel = der(w_rel)``."""
    units = {"a_rel": "rad/s2"}

    def __init__(self, name):
        super().__init__(name)
        a, b = self.flange_a.phi, self.flange_b.phi
        self.output("a_rel", der(der(b)) - der(der(a)))


class _Rigid(Component):
    """A rigid connection ``flange_a.phi = flange_b.phi`` (a relation: its multiplier is the
    torque passed through, ``flange_a.tau = -flange_b.tau``)."""

    def __init__(self, name):
        super().__init__(name)
        a = self.flange_a = self.connector(Flange, "flange_a")
        b = self.flange_b = self.connector(Flange, "flange_b")
        self.relation(b.phi - a.phi, name="rigid")


class PowerSensor(_Rigid):
    """Ideal sensor of the power ``power = flange_a.tau der(flange_a.phi)`` flowing from
    flange_a to flange_b."""
    units = {"power": "W"}

    def __init__(self, name):
        super().__init__(name)
        self.output("power", self.flange_a.tau * der(self.flange_a.phi))


class MultiSensor(_Rigid):
    """Ideal sensor of the torque ``tau = flange_a.tau``, the absolute angular velocity
    ``w`` and the power ``power = tau w`` between two flanges."""
    units = {"tau": "N.m", "w": "rad/s", "power": "W"}

    def __init__(self, name):
        super().__init__(name)
        tau, w = self.flange_a.tau, der(self.flange_a.phi)
        self.output("tau", tau)
        self.output("w", w)
        self.output("power", tau * w)


from ._msl_exports import done as _done  # noqa: E402
_done(__name__)
