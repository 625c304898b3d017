"""Massless components of Modelica.Mechanics.Translational.Components (MSL names,
parameters and signs): a rigid :class:`Rod` (a relation between its flanges), the
:class:`RelativeStates` outputs and the :class:`GeneralForceToPositionAdaptor`. MSL's
Translational.Components.IdealGearR2T and IdealRollingWheel are the rotational ones
(:mod:`.rotational_components`), re-exported by translational.py.

``units``: each class's SI units of its parameters and outputs, as data.
"""
from .._symbols import der
from .core import Component
from .translational import Flange

__all__ = ["Rod", "RelativeStates", "GeneralForceToPositionAdaptor"]


class Rod(Component):
    """Rod without inertia of length ``L``: ``flange_b.s - flange_a.s = L``,
    ``flange_a.f + flange_b.f = 0``; output ``s`` (its center)."""
    units = {"L": "m", "s": "m"}

    def __init__(self, name, L=0.0):
        super().__init__(name)
        length = self.parameter("L", L)
        a = self.flange_a = self.connector(Flange, "flange_a")
        b = self.flange_b = self.connector(Flange, "flange_b")
        self.relation(b.s - a.s - length, name="rod")
        self.output("s", 0.5 * (a.s + b.s))


class RelativeStates(Component):
    """Relative position, velocity and acceleration of two flanges as outputs ``s_rel``,
    ``v_rel``, ``a_rel`` (no force; MSL uses them as states, compile chooses its own)."""
    units = {"s_rel": "m", "v_rel": "m/s", "a_rel": "m/s2"}

    def __init__(self, name):
        super().__init__(name)
        a = self.flange_a = self.connector(Flange, "flange_a")
        b = self.flange_b = self.connector(Flange, "flange_b")
        self.output("s_rel", b.s - a.s)
        self.output("v_rel", der(b.s) - der(a.s))
        self.output("a_rel", der(der(b.s)) - der(der(a.s)))


class GeneralForceToPositionAdaptor(Component):
    """Signal adaptor: the input force ``f`` (a number, an expression or a function of
    time) is the flange's cut force, ``flange.f = f``; outputs ``s``, ``v``, ``a`` (the
    flange's position and its rates)."""
    units = {"f": "N", "s": "m", "v": "m/s", "a": "m/s2"}

    def __init__(self, name, f=0.0):
        super().__init__(name)
        fv = self.signal("f", f)
        fl = self.flange = self.connector(Flange, "flange")
        self.flow(fl, fv)
        self.output("s", fl.s)
        self.output("v", der(fl.s))
        self.output("a", der(der(fl.s)))


from ._msl_exports import done as _done  # noqa: E402
_done(__name__)
