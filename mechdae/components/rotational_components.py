"""Massless kinematic components of Modelica.Mechanics.Rotational.Components (MSL names,
parameters and signs), each a relation between flange potentials: substituted where it
positions a flange nothing else positions (a tree), a holonomic constraint whose
multiplier gives the flange torques where it closes a loop. The torque balances of the MSL
(``0 = ratio flangeR.tau + flangeT.f``, ...) are the relations' virtual work.

Also :class:`RelativeStates`, :class:`TorqueToAngleAdaptor` and the compliant
:class:`ElastoBacklash` (MSL's piecewise characteristic: no events, no complementarity),
plain equations.
IdealGearR2T and IdealRollingWheel join a rotational flange ``flangeR`` to a translational
one ``flangeT`` (MSL's ``PartialElementaryRotationalToTranslational``: supports
``supportR`` / ``supportT`` with ``useSupportR`` / ``useSupportT``, else grounded).

``units``: each class's SI units of its parameters and outputs, as data.
"""
import casadi as ca

from .._symbols import der
from .core import Component, LazyEquations

__all__ = ["Disc", "IdealPlanetary", "IdealGearR2T", "IdealRollingWheel", "RelativeStates",
           "TorqueToAngleAdaptor", "ElastoBacklash"]


# The connector classes come from the domain modules, imported when a component is created
# (translational.py and rotational.py both re-export classes of this module).
def _rot_flange(owner, name):
    from .rotational import Flange as cls
    return cls(owner, name)


def _tr_flange(owner, name):
    from .translational import Flange as cls
    return cls(owner, name)


class Disc(Component):
    """Massless disc turning flange_b by ``deltaPhi`` against flange_a:
    ``flange_b.phi - flange_a.phi = deltaPhi``, ``flange_a.tau + flange_b.tau = 0``; output
    ``phi`` (the mean angle)."""
    units = {"deltaPhi": "rad", "phi": "rad"}

    def __init__(self, name, deltaPhi=0.0):
        super().__init__(name)
        d = self.parameter("deltaPhi", deltaPhi)
        a = self.flange_a = self.connector(_rot_flange, "flange_a")
        b = self.flange_b = self.connector(_rot_flange, "flange_b")
        self.relation(b.phi - a.phi - d, name="disc")
        self.output("phi", 0.5 * (a.phi + b.phi))


class IdealPlanetary(Component):
    """Ideal planetary gear (no inertia, no losses): Willis' equation
    ``(1 + ratio) carrier.phi = sun.phi + ratio ring.phi`` with ``ratio`` = ring teeth /
    sun teeth; torques ``ring.tau = ratio sun.tau``, ``carrier.tau = -(1 + ratio) sun.tau``."""
    units = {"ratio": "1"}

    def __init__(self, name, ratio=100 / 50):
        super().__init__(name)
        r = self.parameter("ratio", ratio)
        sun = self.sun = self.connector(_rot_flange, "sun")
        carrier = self.carrier = self.connector(_rot_flange, "carrier")
        ring = self.ring = self.connector(_rot_flange, "ring")
        # written for the ring: a sun and a carrier driven from outside position it
        self.relation(ring.phi - ((1 + r) * carrier.phi - sun.phi) / r, name="willis")


class _RotToTrans(Component):
    """Flanges ``flangeR`` (rotational), ``flangeT`` (translational) and their optional
    supports; ``self._phi``, ``self._s``: positions relative to the supports."""

    def __init__(self, name, useSupportR, useSupportT):
        super().__init__(name)
        self.flangeR = self.connector(_rot_flange, "flangeR")
        self.flangeT = self.connector(_tr_flange, "flangeT")
        phi_sup = self.connector(_rot_flange, "supportR").phi if useSupportR else 0.0
        s_sup = self.connector(_tr_flange, "supportT").s if useSupportT else 0.0
        self._phi = self.flangeR.phi - phi_sup
        self._s = self.flangeT.s - s_sup


class IdealGearR2T(_RotToTrans):
    """Gearbox turning rotation into translation: ``phi = ratio s`` (``ratio`` in rad/m,
    relative to the supports), ``0 = ratio flangeR.tau + flangeT.f``."""
    units = {"ratio": "rad/m"}

    def __init__(self, name, ratio=1.0, useSupportR=False, useSupportT=False):
        super().__init__(name, useSupportR, useSupportT)
        r = self.parameter("ratio", ratio)
        # the translational side, driven by the rotation (a spindle, a rack and pinion)
        self.relation(self._s - self._phi / r, name="gear")


class IdealRollingWheel(_RotToTrans):
    """Ideal rolling wheel without inertia: ``phi radius = s`` (relative to the supports),
    ``0 = radius flangeT.f + flangeR.tau``."""
    units = {"radius": "m"}

    def __init__(self, name, radius=0.3, useSupportR=False, useSupportT=False):
        super().__init__(name, useSupportR, useSupportT)
        r = self.parameter("radius", radius)
        self.relation(self._s - r * self._phi, name="rolling")


class RelativeStates(Component):
    """Relative angle, speed and acceleration of two flanges as outputs ``phi_rel``,
    ``w_rel``, ``a_rel`` (no torque; MSL uses them as states, compile chooses its own)."""
    units = {"phi_rel": "rad", "w_rel": "rad/s", "a_rel": "rad/s2"}

    def __init__(self, name):
        super().__init__(name)
        a = self.flange_a = self.connector(_rot_flange, "flange_a")
        b = self.flange_b = self.connector(_rot_flange, "flange_b")
        self.output("phi_rel", b.phi - a.phi)
        self.output("w_rel", der(b.phi) - der(a.phi))
        self.output("a_rel", der(der(b.phi)) - der(der(a.phi)))


class TorqueToAngleAdaptor(Component):
    """Signal adaptor: the input torque ``tau`` (a number, an expression or a function of
    time) is the flange's cut torque, ``flange.tau = tau``; outputs ``phi``, ``w``, ``a``
    (``use_w``, ``use_a``: MSL's optional outputs, 0 when disabled)."""
    units = {"tau": "N.m", "phi": "rad", "w": "rad/s", "a": "rad/s2"}

    def __init__(self, name, tau=0.0, use_w=True, use_a=True):
        super().__init__(name)
        t = self.signal("tau", tau)
        fl = self.flange = self.connector(_rot_flange, "flange")
        self.flow(fl, t)
        self.output("phi", fl.phi)
        self.output("w", der(fl.phi) if use_w else 0.0 * t)
        self.output("a", der(der(fl.phi)) if use_a and use_w else 0.0 * t)



class ElastoBacklash(LazyEquations, Component):
    """Backlash ``b`` in series with a spring ``c`` and a damper ``d``: no torque while
    ``|phi_rel - phi_rel0| <= b/2``; beyond, ``tau_c = c (phi_diff -+ b/2)`` and
    ``tau_d = d w_rel`` with the damping limited so that the contact only pushes
    (MSL's characteristic after initialization; ``b <= 1e-10``: a SpringDamper)."""
    _template = True
    units = {"c": "N.m/rad", "d": "N.m.s/rad", "b": "rad", "phi_rel0": "rad",
             "phi_rel": "rad", "w_rel": "rad/s", "tau": "N.m", "lossPower": "W"}

    def __init__(self, name, c=1e5, d=0.0, b=0.0, phi_rel0=0.0):
        super().__init__(name)
        self._c = self.parameter("c", c)
        self._d = self.parameter("d", d)
        self._b = self.parameter("b", b)
        self._p0 = self.parameter("phi_rel0", phi_rel0)
        self.connector(_rot_flange, "flange_a")
        self.connector(_rot_flange, "flange_b")

    def _build_equations(self):
        a, b = self.flange_a.phi, self.flange_b.phi
        phi_rel, w_rel = b - a, der(b) - der(a)
        c, bmax = self._c, self._b / 2
        diff = phi_rel - self._p0
        tiny = ca.fabs(self._b) <= 1e-10               # MSL's bEps
        above, below = diff > bmax, diff < -bmax
        tau_c = ca.if_else(tiny, c * diff, ca.if_else(above, c * (diff - bmax), ca.if_else(
            below, c * (diff + bmax), 0)))
        tau_d = self._d * w_rel
        push_pos = ca.if_else(tau_c + tau_d <= 0, 0, tau_c + ca.fmin(tau_c, tau_d))
        push_neg = ca.if_else(tau_c + tau_d >= 0, 0, tau_c + ca.fmax(tau_c, tau_d))
        tau = ca.if_else(tiny, tau_c + tau_d, ca.if_else(above, push_pos, ca.if_else(
            below, push_neg, 0)))
        loss_pos = ca.if_else(tau_c + tau_d <= 0, 0, ca.fmin(tau_c, tau_d) * w_rel)
        loss_neg = ca.if_else(tau_c + tau_d >= 0, 0, ca.fmax(tau_c, tau_d) * w_rel)
        loss = ca.if_else(tiny, tau_d * w_rel, ca.if_else(above, loss_pos, ca.if_else(
            below, loss_neg, 0)))
        self.flow(self.flange_a, -tau)
        self.flow(self.flange_b, tau)
        for name, e in (("phi_rel", phi_rel), ("w_rel", w_rel), ("tau", tau),
                        ("lossPower", loss)):
            self.output(name, e)

from ._msl_exports import done as _done  # noqa: E402
_done(__name__)
