"""Analog electrical circuits (Modelica.Electrical.Analog.Basic / Sources names).

Connector ``Pin``: potential ``v`` (V), flow ``i`` (A, positive into the component).
Node voltages are general variables with Kirchhoff's current law as their equations;
capacitor voltages and inductor currents are the states (``"C.v"``, ``"L.i"``, initial
values in ``q0``); index reduction handles capacitors in parallel or across a voltage
source. ``EMF`` joins a pin pair to a rotational flange.
"""
from ..dsl.model import der
from .core import Component, Connector
from .rotational import Flange as RotFlange

__all__ = ["Pin", "Ground", "Resistor", "Capacitor", "Inductor", "VoltageSource",
           "CurrentSource", "EMF", "VoltageSensor", "CurrentSensor"]


class Pin(Connector):
    """Electrical pin: potential ``v`` (V), current ``i`` (A) into the component."""
    units = {"v": "V", "i": "A"}
    potentials = ("v",)
    flows = ("i",)
    domain = "electrical"
    kind = "Pin"
    needs_reference = True


class _OnePort(Component):
    """Pins ``p``, ``n``; voltage drop ``v = p.v - n.v``."""
    units = {"v": "V", "i": "A"}

    def __init__(self, name):
        super().__init__(name)
        self.p = self.connector(Pin, "p")
        self.n = self.connector(Pin, "n")
        self.vdrop = self.p.v - self.n.v

    def _current(self, i):
        self.flow(self.p, i)
        self.flow(self.n, -i)
        self.output("i", i)

    def drawing(self):
        """A schematic bar from the potential of ``n`` to that of ``p`` (volts on the
        vertical axis), one place per branch (:mod:`mechdae.simulate.scene`)."""
        from ..simulate.shapes import Anchor, Shape
        return [Shape("capsule", self.path, [Anchor(self.n), Anchor(self.p)], size=0.2)]


class Ground(Component):
    """Reference potential ``p.v = 0``."""

    def __init__(self, name):
        super().__init__(name)
        self.p = self.connector(Pin, "p")
        self.define(self.p, 0.0)


class Resistor(_OnePort):
    """Ideal resistor ``v = R i``; ``LossPower = v i``."""
    units = {"R": "Ohm", "LossPower": "W"}

    def __init__(self, name, R=1.0):
        super().__init__(name)
        R = self.parameter("R", R)
        i = self.vdrop / R
        self._current(i)
        self.output("v", self.vdrop)
        self.output("LossPower", self.vdrop * i)


class Capacitor(_OnePort):
    """Ideal capacitor ``i = C der(v)``; state ``v``."""
    units = {"C": "F"}

    def __init__(self, name, C=1.0, v=0.0):
        super().__init__(name)
        C = self.parameter("C", C)
        vs = self.variable("v", default=v)
        self.equation(vs == self.vdrop, name="v")
        self._current(C * der(vs))


class Inductor(_OnePort):
    """Ideal inductor ``L der(i) = v``; state ``i``."""
    units = {"L": "H"}

    def __init__(self, name, L=1.0, i=0.0):
        super().__init__(name)
        L = self.parameter("L", L)
        i = self.variable("i", default=i)
        self.equation(L * der(i) == self.vdrop, name="v")
        self.flow(self.p, i)
        self.flow(self.n, -i)
        self.output("v", self.vdrop)


class VoltageSource(_OnePort):
    """Voltage ``p.v - n.v = V`` (constant, expression or function of time); the current
    ``i`` flows from p to n through the source."""
    units = {"V": "V"}

    def __init__(self, name, V=1.0):
        super().__init__(name)
        Vv = self.signal("V", V)
        i = self.variable("i")
        self.equation(self.vdrop == Vv, name="v")
        self.flow(self.p, i)
        self.flow(self.n, -i)
        self.output("v", self.vdrop)


class CurrentSource(_OnePort):
    """Current ``I`` (constant, expression or function of time) from p to n through the
    source."""
    units = {"I": "A"}

    def __init__(self, name, I=1.0):
        super().__init__(name)
        Iv = self.signal("I", I)
        self._current(Iv)
        self.output("v", self.vdrop)


class EMF(Component):
    """Electromotive force: ``v = k w``, ``flange.tau = -k i`` (``w = der(flange.phi)``);
    converts electrical power ``v i`` into mechanical power ``tau w``."""
    units = {"k": "N.m/A", "v": "V", "i": "A", "w": "rad/s", "tau": "N.m"}

    def __init__(self, name, k=1.0):
        super().__init__(name)
        k = self.parameter("k", k)
        self.p = self.connector(Pin, "p")
        self.n = self.connector(Pin, "n")
        self.flange = self.connector(RotFlange, "flange")
        v = self.p.v - self.n.v
        w = der(self.flange.phi)
        i = self.variable("i")
        self.equation(v == k * w, name="v")
        self.flow(self.p, i)
        self.flow(self.n, -i)
        self.flow(self.flange, -k * i)
        self.output("v", v)
        self.output("w", w)
        self.output("tau", k * i)


class VoltageSensor(Component):
    """Ideal voltmeter: output ``v = p.v - n.v`` (no current)."""
    units = {"v": "V"}

    def __init__(self, name):
        super().__init__(name)
        self.p = self.connector(Pin, "p")
        self.n = self.connector(Pin, "n")
        self.output("v", self.p.v - self.n.v)


class CurrentSensor(_OnePort):
    """Ideal ammeter in series: ``p.v = n.v``, output ``i`` (current from p to n)."""

    def __init__(self, name):
        super().__init__(name)
        i = self.variable("i")
        self.equation(self.vdrop == 0, name="v")
        self.flow(self.p, i)
        self.flow(self.n, -i)

from ._msl_exports import export as _msl_export  # noqa: E402
__all__ += _msl_export(globals(), "electrical")
