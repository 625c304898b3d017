"""Sensors of Modelica.Electrical.Analog.Sensors beyond electrical.py's VoltageSensor and
CurrentSensor (MSL names and outputs): the potential of a pin, and the power and
multi sensors with a current path ``pc -> nc`` (no voltage drop) and a voltage path
``pv - nv`` (no current).

``units``: each class's SI units of its outputs, as data.
"""
from .core import Component
from .electrical import Pin

__all__ = ["PotentialSensor", "PowerSensor", "MultiSensor"]


class PotentialSensor(Component):
    """Ideal sensor of the absolute potential ``phi = p.v`` (no current)."""
    units = {"phi": "V"}

    def __init__(self, name):
        super().__init__(name)
        self.p = self.connector(Pin, "p")
        self.output("phi", self.p.v)


class _PowerPaths(Component):
    """Current path ``pc -> nc`` (``pc.v = nc.v``, current ``i`` a general variable) and
    voltage path ``pv``, ``nv`` (no current); ``self._i``, ``self._v``."""

    def __init__(self, name):
        super().__init__(name)
        for pin in ("pc", "nc", "pv", "nv"):
            self.connector(Pin, pin)
        i = self._i = self.variable("i_path")
        self.equation(self.pc.v == self.nc.v, name="short")
        self.flow(self.pc, i)
        self.flow(self.nc, -i)
        self._v = self.pv.v - self.nv.v


class PowerSensor(_PowerPaths):
    """Ideal sensor of the instantaneous power ``power = v i`` (``v = pv.v - nv.v``, ``i``
    from pc to nc)."""
    units = {"power": "W", "i_path": "A"}

    def __init__(self, name):
        super().__init__(name)
        self.output("power", self._v * self._i)


class MultiSensor(_PowerPaths):
    """Ideal sensor of the current ``i`` (pc to nc), the voltage ``v = pv.v - nv.v`` and
    the power ``power = v i``."""
    units = {"i": "A", "v": "V", "power": "W", "i_path": "A"}

    def __init__(self, name):
        super().__init__(name)
        self.output("i", self._i)
        self.output("v", self._v)
        self.output("power", self._v * self._i)


from ._msl_exports import done as _done  # noqa: E402
_done(__name__)
