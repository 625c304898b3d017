"""Components of Modelica.Mechanics.Translational.Components (MSL names, parameters and
signs): a rigid :class:`Rod` (a relation between its flanges), the :class:`RelativeStates`
outputs, the :class:`GeneralForceToPositionAdaptor`, the compliant contact
:class:`ElastoGap` and :class:`RollingResistance` (plain equations, piecewise as in the
MSL: no events, no complementarity), and the :class:`Vehicle` built from components. MSL's
Translational.Components.IdealGearR2T and IdealRollingWheel are the rotational ones
(:mod:`.rotational_components`), re-exported by translational.py.

``units``: each class's SI units of its parameters and outputs, as data.
"""
import numbers

import casadi as ca

from .._symbols import der
from ._support import REGULARIZATIONS, check_choice, flange_and_support, regularized_sign
from ._support import parameter, support_flows
from .core import Component, LazyEquations
from .translational import Flange, Force, Mass

__all__ = ["Rod", "RelativeStates", "GeneralForceToPositionAdaptor", "ElastoGap",
           "RollingResistance", "Vehicle"]


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



class ElastoGap(LazyEquations, Component):
    """Spring and damper acting only in contact (``s_rel < s_rel0``): spring force
    ``f_c = -f_ref |(s_rel - s_rel0)/s_ref|^n``, damping ``d v_rel`` limited to
    ``|f_d| <= |f_c|`` (the contact only pushes, and its force is continuous);
    ``f = f_c + f_d``, ``lossPower = f_d v_rel``, ``contact`` (1 or 0)."""
    _template = True
    units = {"c": "N/m", "d": "N.s/m", "s_rel0": "m", "f_ref": "N", "s_ref": "m", "n": "1",
             "s_rel": "m", "v_rel": "m/s", "f": "N", "lossPower": "W", "contact": "1"}

    def __init__(self, name, c=1.0, d=1.0, s_rel0=0.0, f_ref=None, s_ref=1.0, n=1.0):
        super().__init__(name)
        self._c = self.parameter("c", c)
        self._d = self.parameter("d", d)
        self._s0 = self.parameter("s_rel0", s_rel0)
        self._s_ref = self.parameter("s_ref", s_ref)
        if f_ref is None:                # MSL: f_ref = c s_ref
            f_ref = c * s_ref if all(isinstance(x, numbers.Real) for x in (c, s_ref)) \
                else self._c * self._s_ref
        self._f_ref = self.parameter("f_ref", f_ref)
        self._n = self.parameter("n", n)
        self.connector(Flange, "flange_a")
        self.connector(Flange, "flange_b")

    def _build_equations(self):
        a, b = self.flange_a.s, self.flange_b.s
        s_rel, v_rel = b - a, der(b) - der(a)
        contact = s_rel < self._s0
        ratio = (s_rel - self._s0) / self._s_ref
        f_c = ca.if_else(contact, -self._f_ref * ca.fabs(ratio) ** self._n, 0)
        f_d = ca.if_else(contact, ca.fmin(ca.fmax(self._d * v_rel, f_c), -f_c), 0)
        f = f_c + f_d
        self.flow(self.flange_a, -f)
        self.flow(self.flange_b, f)
        for name, e in (("s_rel", s_rel), ("v_rel", v_rel), ("f", f),
                        ("lossPower", f_d * v_rel), ("contact", ca.if_else(contact, 1, 0))):
            self.output(name, e)


class RollingResistance(LazyEquations, Component):
    """Rolling resistance of a wheel: ``f_nominal = -Cr fWeight cos(atan(inclination))``
    (``Cr``: ``CrConstant`` or a signal ``cr``; ``inclination`` = tan(angle):
    ``inclinationConstant`` or a signal), ``f = flange.f = f_nominal sign_reg(v)``
    regularized below ``v0`` (``reg`` as SignForce): always against the motion."""
    units = {"fWeight": "N", "CrConstant": "1", "inclinationConstant": "1", "v0": "m/s",
             "cr": "1", "inclination": "1", "f": "N", "v": "m/s", "f_nominal": "N"}

    def __init__(self, name, fWeight=0.0, CrConstant=0.01, inclinationConstant=0.0,
                 reg="Exp", v0=0.1, cr=None, inclination=None, useSupport=False):
        super().__init__(name)
        self._w = self.parameter("fWeight", fWeight)
        self._cr = self.parameter("CrConstant", CrConstant) if cr is None \
            else self.signal("cr", cr)
        self._incl = self.parameter("inclinationConstant", inclinationConstant) \
            if inclination is None else self.signal("inclination", inclination)
        self._v0 = self.parameter("v0", v0)
        self._reg = check_choice(self, "reg", reg, REGULARIZATIONS)
        self.flange, self._s_sup = flange_and_support(self, Flange, useSupport)

    def _build_equations(self):
        v = der(self.flange.s)
        if not isinstance(self._s_sup, float):
            v = v - der(self._s_sup)
        f_nominal = -self._cr * self._w * ca.cos(ca.atan(self._incl))
        f = -f_nominal * regularized_sign(v, self._v0, self._reg)        # = flange.f
        self.flow(self.flange, f)
        support_flows(self, [f])
        self.output("f", f)
        self.output("v", v)
        self.output("f_nominal", f_nominal)


class Vehicle(Component):
    """Simple vehicle (MSL's composition): ``mass`` (m) on ``flangeT``, drive-train
    ``inertia`` (J) on ``flangeR`` turning the ``idealRollingWheel`` (radius R), air drag
    ``fDrag`` ``-Cd A rho (v - vWind)|v - vWind|/2`` against the wind ``windSpeed``
    (``vWindConstant``), rolling resistance ``fRoll`` (``CrConstant`` or a signal ``cr``,
    Linear regularization below ``vReg``) and the grade force ``fGrav`` ``-m g
    sin(atan(inclination))`` (``inclinationConstant`` or a signal ``inclination``);
    outputs ``s``, ``v``, ``a``. MSL's wind signal (``useWindInput``) is not offered: a
    Speed source with a varying reference cannot yet drive the drag's support (see
    :mod:`.translational_sources`); a constant wind is exact."""
    units = {"m": "kg", "g": "m/s2", "J": "kg.m2", "R": "m", "A": "m2", "Cd": "1",
             "rho": "kg/m3", "vWindConstant": "m/s", "CrConstant": "1", "vReg": "m/s",
             "inclinationConstant": "1", "s": "m", "v": "m/s", "a": "m/s2"}

    def __init__(self, name, m, J, R, A=1.0, Cd=0.5, rho=1.2, g=9.80665, vWindConstant=0.0,
                 CrConstant=0.015, vReg=1e-3, inclinationConstant=0.0, cr=None,
                 inclination=None):
        super().__init__(name)
        from . import rotational as rot
        from .translational_sources import QuadraticSpeedDependentForce, Speed
        p = {k: parameter(self, k, v) for k, v in (
            ("m", m), ("J", J), ("R", R), ("A", A), ("Cd", Cd), ("rho", rho), ("g", g),
            ("vWindConstant", vWindConstant), ("CrConstant", CrConstant), ("vReg", vReg))}
        incl = self.parameter("inclinationConstant", inclinationConstant) \
            if inclination is None else self.signal("inclination", inclination)
        self.mass = self.add(Mass("mass", m=p["m"]))
        self.inertia = self.add(rot.Inertia("inertia", J=p["J"]))
        self.idealRollingWheel = self.add(_wheel()("idealRollingWheel", radius=p["R"]))
        self.fDrag = self.add(QuadraticSpeedDependentForce(
            "fDrag", f_nominal=-p["Cd"] * p["A"] * p["rho"] / 2, ForceDirection=False,
            v_nominal=1.0, useSupport=True))
        # a constant wind positions the drag's support in closed form
        self.windSpeed = self.add(Speed("windSpeed", v_ref=p["vWindConstant"], exact=True))
        self.fRoll = self.add(RollingResistance(
            "fRoll", fWeight=p["m"] * p["g"], CrConstant=p["CrConstant"], cr=cr,
            inclination=incl, reg="Linear", v0=p["vReg"]))
        self.fGrav = self.add(Force("fGrav", f=-p["m"] * p["g"] * ca.sin(ca.atan(incl))))
        self.flangeT = self.mass.flange_b
        self.flangeR = self.inertia.flange_a
        self.connect(self.idealRollingWheel.flangeT, self.mass.flange_a)
        self.connect(self.fDrag.support, self.windSpeed.flange)
        self.connect(self.mass.flange_b, self.fDrag.flange, self.fRoll.flange,
                     self.fGrav.flange)
        self.connect(self.inertia.flange_b, self.idealRollingWheel.flangeR)
        x = self.mass.flange_b.s
        self.output("s", x)
        self.output("v", der(x))
        self.output("a", der(der(x)))


def _wheel():
    from .rotational_components import IdealRollingWheel
    return IdealRollingWheel


from ._msl_exports import done as _done  # noqa: E402
_done(__name__)
