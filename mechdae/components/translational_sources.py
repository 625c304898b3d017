"""Sources of Modelica.Mechanics.Translational.Sources (MSL names, parameters, signs).

Every source acts on ``flange`` with its housing implicitly grounded, or, with
``useSupport=True``, on a ``support`` flange that takes the reaction. Force sources follow
MSL's ``PartialForce``: the accelerating force ``-flange.f`` is what the parameters name
(a positive ``f_constant`` pushes the flange forward), the output ``f`` is ``flange.f`` (so
``f = -f_constant``), ``v = der(flange.s - support.s)``. Motion sources (:class:`Speed`,
:class:`Accelerate`, :class:`ConstantSpeed`) position the flange. With a constant
reference (a number) they do so in closed form, ``s = s_start + v t`` (anywhere: on a mass
it is a rheonomic constraint whose multiplier is the driving force). With a reference that
varies (an expression or a function of time) :class:`Speed` and :class:`Accelerate`
integrate it in states of their own (``"<path>.s"``, ``"<path>.v"``): their flange then
drives the masses through springs (elements reading positions only); a mass bolted to it,
or a damper reading its rate, is refused with a ModelError (compile does not yet substitute
a general variable's known rate into the mechanics).

``units``: each class's SI units of its parameters and outputs (local names), as data.
"""
import casadi as ca

from .._symbols import der
from ._support import (REGULARIZATIONS, accelerate_drive, check_choice, drive,
                       flange_and_support, regularized_sign, speed_drive, support_flows)
from .core import Component, LazyEquations
from .translational import Flange

__all__ = ["Force2", "Speed", "Accelerate", "ConstantForce", "ConstantSpeed", "ForceStep",
           "LinearSpeedDependentForce", "QuadraticSpeedDependentForce", "SignForce",
           "InverseSpeedDependentForce", "EddyCurrentForce"]


class Force2(LazyEquations, Component):
    """Force ``f`` acting on two flanges: ``flange_a.f = f``, ``flange_b.f = -f`` (pushes
    them apart for ``f > 0``)."""
    units = {"f": "N"}

    def __init__(self, name, f=0.0):
        super().__init__(name)
        self._value = self.signal("f", f)
        self.connector(Flange, "flange_a")
        self.connector(Flange, "flange_b")

    def _build_equations(self):
        self.output("f", self._value)
        self.flow(self.flange_a, self._value)
        self.flow(self.flange_b, -self._value)


class _PartialForce(LazyEquations, Component):
    """MSL's PartialForce: an accelerating force ``self._force(v)`` of the speed
    ``v = der(flange.s - support.s)``; outputs ``f = flange.f`` and ``v``."""
    _speed_output = True

    def __init__(self, name, useSupport=False):
        super().__init__(name)
        self.flange, self._s_sup = flange_and_support(self, Flange, useSupport)

    def _speed(self):
        v = der(self.flange.s)
        return v if isinstance(self._s_sup, float) else v - der(self._s_sup)

    def _build_equations(self):
        v = self._speed()
        f_acc = self._force(v)
        self.flow(self.flange, -f_acc)
        support_flows(self, [-f_acc])
        self.output("f", -f_acc)
        if self._speed_output:
            self.output("v", v)


class ConstantForce(_PartialForce):
    """Constant force ``f_constant``, not dependent on speed (negative: a load in the
    positive direction of motion)."""
    _template = True
    _speed_output = False
    units = {"f_constant": "N", "f": "N"}

    def __init__(self, name, f_constant, useSupport=False):
        super().__init__(name, useSupport)
        self._fc = self.parameter("f_constant", f_constant)

    def _force(self, v):
        return self._fc


class ForceStep(_PartialForce):
    """Force step ``offsetForce + (stepForce if time >= startTime else 0)``."""
    _template = True
    _speed_output = False
    units = {"stepForce": "N", "offsetForce": "N", "startTime": "s", "f": "N"}

    def __init__(self, name, stepForce=1.0, offsetForce=0.0, startTime=0.0, useSupport=False):
        super().__init__(name, useSupport)
        self._step = self.parameter("stepForce", stepForce)
        self._offset = self.parameter("offsetForce", offsetForce)
        self._t0 = self.parameter("startTime", startTime)

    def _force(self, v):
        return self._offset + ca.if_else(self.time < self._t0, 0, self._step)


class LinearSpeedDependentForce(_PartialForce):
    """Force ``f_nominal |v/v_nominal|`` (``ForceDirection=False``: ``f_nominal
    v/v_nominal``, changing sign with the speed)."""
    units = {"f_nominal": "N", "v_nominal": "m/s", "f": "N", "v": "m/s"}

    def __init__(self, name, f_nominal, v_nominal, ForceDirection=True, useSupport=False):
        super().__init__(name, useSupport)
        self._fn = self.parameter("f_nominal", f_nominal)
        self._vn = self.parameter("v_nominal", v_nominal)
        self._same = bool(ForceDirection)

    def _force(self, v):
        r = v / self._vn
        return self._fn * (ca.fabs(r) if self._same else r)


class QuadraticSpeedDependentForce(_PartialForce):
    """Force ``f_nominal (v/v_nominal)^2`` (``ForceDirection=False``: with the sign of
    ``v``)."""
    units = {"f_nominal": "N", "v_nominal": "m/s", "f": "N", "v": "m/s"}

    def __init__(self, name, f_nominal, v_nominal, ForceDirection=True, useSupport=False):
        super().__init__(name, useSupport)
        self._fn = self.parameter("f_nominal", f_nominal)
        self._vn = self.parameter("v_nominal", v_nominal)
        self._same = bool(ForceDirection)

    def _force(self, v):
        r = v / self._vn
        return self._fn * (r ** 2 if self._same else r * ca.fabs(r))


class SignForce(_PartialForce):
    """Constant force ``f_nominal`` changing sign with the speed, regularized below ``v0``
    (``reg``: ``"Exp"`` (default), ``"Sine"``, ``"Linear"``, ``"CoSine"``)."""
    units = {"f_nominal": "N", "v0": "m/s", "f": "N", "v": "m/s"}

    def __init__(self, name, f_nominal, reg="Exp", v0=0.1, useSupport=False):
        super().__init__(name, useSupport)
        self._fn = self.parameter("f_nominal", f_nominal)
        self._v0 = self.parameter("v0", v0)
        self._reg = check_choice(self, "reg", reg, REGULARIZATIONS)

    def _force(self, v):
        return self._fn * regularized_sign(v, self._v0, self._reg)


class InverseSpeedDependentForce(_PartialForce):
    """Force ``f_nominal v_nominal/|v|`` (constant power), ``f_nominal v_nominal/v0`` below
    ``v0`` (``ForceDirection=False``: ``f_nominal v_nominal/v``, and ``f_nominal v/v0``
    below ``v0``)."""
    units = {"f_nominal": "N", "v_nominal": "m/s", "v0": "m/s", "f": "N", "v": "m/s"}

    def __init__(self, name, f_nominal, v_nominal, ForceDirection=True, v0=0.1,
                 useSupport=False):
        super().__init__(name, useSupport)
        self._fn = self.parameter("f_nominal", f_nominal)
        self._vn = self.parameter("v_nominal", v_nominal)
        self._v0 = self.parameter("v0", v0)
        self._same = bool(ForceDirection)

    def _force(self, v):
        fn, vn, v0 = self._fn, self._vn, self._v0
        small = ca.fabs(v) < v0
        if self._same:
            return ca.if_else(small, fn * vn / v0, fn * vn / ca.fabs(v))
        return ca.if_else(small, fn * v / v0, fn * vn / v)


class EddyCurrentForce(_PartialForce):
    """Eddy current brake: ``f = 2 f_nominal e^2 v_n/(1 + v_n^2)`` with ``v_n =
    v/(v_nominal (1 + alpha20 (T - TRef)))`` and excitation ``e`` (``constantExcitation``,
    or a signal given as ``excitation``); always braking; ``lossPower = f v``. The
    temperature ``T`` is fixed (MSL without heat port)."""
    units = {"f_nominal": "N", "v_nominal": "m/s", "TRef": "K", "alpha20": "1/K", "T": "K",
             "f": "N", "v": "m/s", "lossPower": "W",
             "constantExcitation": "1", "excitation": "1"}

    def __init__(self, name, f_nominal, v_nominal, TRef=293.15, alpha20=0.0, T=293.15,
                 constantExcitation=1.0, excitation=None, useSupport=False):
        super().__init__(name, useSupport)
        self._fn = self.parameter("f_nominal", f_nominal)
        self._vn = self.parameter("v_nominal", v_nominal)
        self._TRef = self.parameter("TRef", TRef)
        self._alpha = self.parameter("alpha20", alpha20)
        self._temp = self.parameter("T", T)
        self._exc = self.signal("constantExcitation", constantExcitation) \
            if excitation is None else self.signal("excitation", excitation)

    def _force(self, v):
        vn = v / (self._vn * (1 + self._alpha * (self._temp - self._TRef)))
        f = 2 * self._fn * self._exc ** 2 * vn / (1 + vn * vn)
        self.output("lossPower", f * v)
        return -f


class ConstantSpeed(Component):
    """Constant speed ``v_fixed``, not dependent on force: ``s = s_start + v_fixed t``
    (relative to the support); output ``f = flange.f``."""
    units = {"v_fixed": "m/s", "s_start": "m", "f": "N", "v": "m/s"}

    def __init__(self, name, v_fixed, s_start=0.0, useSupport=False):
        super().__init__(name)
        self.flange, s_sup = flange_and_support(self, Flange, useSupport)
        v = self.parameter("v_fixed", v_fixed)
        s0 = self.parameter("s_start", s_start)
        drive(self, self.flange, s_sup, s0 + v * self.time)
        self.output("v", v)
        self.output("f", self.flange.f)


class Speed(Component):
    """Flange moved at the reference speed ``v_ref`` (a number, an expression or a function
    of time): states ``s`` (start ``s_start``) and, unless ``exact``, ``v`` of the filter
    ``der(v) = (v_ref - v) 2 pi f_crit`` (start ``v_ref(0)``); outputs ``v`` (exact) or
    ``a`` (filtered)."""
    units = {"v_ref": "m/s", "f_crit": "Hz", "s_start": "m", "s": "m", "v": "m/s",
             "a": "m/s2"}

    def __init__(self, name, v_ref=0.0, exact=False, f_crit=50.0, s_start=0.0,
                 useSupport=False):
        super().__init__(name)
        self.flange, s_sup = flange_and_support(self, Flange, useSupport)
        ref = self.signal("v_ref", v_ref)
        s = speed_drive(self, ref, v_ref, exact, f_crit, ("s", "v", "a"), s_start)
        drive(self, self.flange, s_sup, s)


class Accelerate(Component):
    """Flange moved with the acceleration ``a_ref`` (a number, an expression or a function
    of time): states ``s`` and ``v`` (starts ``s_start``, ``v_start``, MSL: 0); output
    ``a``."""
    units = {"a_ref": "m/s2", "s_start": "m", "v_start": "m/s", "s": "m", "v": "m/s",
             "a": "m/s2"}

    def __init__(self, name, a_ref=0.0, s_start=0.0, v_start=0.0, useSupport=False):
        super().__init__(name)
        self.flange, s_sup = flange_and_support(self, Flange, useSupport)
        ref = self.signal("a_ref", a_ref)
        s = accelerate_drive(self, ref, a_ref, ("s", "v", "a"), (s_start, v_start))
        drive(self, self.flange, s_sup, s)



from ._msl_exports import done as _done  # noqa: E402
_done(__name__)
