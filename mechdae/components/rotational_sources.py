"""Sources of Modelica.Mechanics.Rotational.Sources (MSL names, parameters, signs).

Every source acts on ``flange`` with its housing implicitly grounded, or, with
``useSupport=True``, on a ``support`` flange that takes the reaction. Torque sources follow
MSL's ``PartialTorque``: the accelerating torque ``tau = -flange.tau`` is what the
parameters name (a positive ``tau_constant`` accelerates the flange), with the outputs
``tau`` and ``w = der(flange.phi - support.phi)``. Motion sources (:class:`Speed`,
:class:`Accelerate`, :class:`ConstantSpeed`) position the flange. With a constant
reference (a number) they do so in closed form, ``phi = phi_start + w t`` (anywhere: on an
inertia it is a rheonomic constraint whose multiplier is the driving torque). With a
reference that varies (an expression or a function of time) :class:`Speed` and
:class:`Accelerate` integrate it in states of their own (``"<path>.phi"``, ``"<path>.w"``):
their flange then drives the inertias through springs (elements reading angles only); an
inertia bolted to it, or a damper reading its rate, is refused with a ModelError (compile
does not yet substitute a general variable's known rate into the mechanics).

``units``: each class's SI units of its parameters and outputs (local names), as data.
"""
import casadi as ca

from .._symbols import der
from ._support import (REGULARIZATIONS, accelerate_drive, check_choice, drive,
                       flange_and_support, regularized_sign, speed_drive, support_flows)
from .core import Component, LazyEquations
from .rotational import Flange

__all__ = ["Torque2", "Speed", "Accelerate", "ConstantTorque", "ConstantSpeed", "TorqueStep",
           "LinearSpeedDependentTorque", "QuadraticSpeedDependentTorque", "SignTorque",
           "InverseSpeedDependentTorque", "EddyCurrentTorque"]


class Torque2(LazyEquations, Component):
    """Torque ``tau`` acting on two flanges: ``flange_a.tau = tau``, ``flange_b.tau = -tau``
    (a positive value accelerates flange_b against flange_a)."""
    units = {"tau": "N.m"}

    def __init__(self, name, tau=0.0):
        super().__init__(name)
        self._value = self.signal("tau", tau)
        self.connector(Flange, "flange_a")
        self.connector(Flange, "flange_b")

    def _build_equations(self):
        self.output("tau", self._value)
        self.flow(self.flange_a, self._value)
        self.flow(self.flange_b, -self._value)


class _PartialTorque(LazyEquations, Component):
    """MSL's PartialTorque: an accelerating torque ``self._torque(w)`` of the speed
    ``w = der(flange.phi - support.phi)``; outputs ``tau = -flange.tau`` and ``w``."""
    _speed_output = True

    def __init__(self, name, useSupport=False):
        super().__init__(name)
        self.flange, self._phi_sup = flange_and_support(self, Flange, useSupport)

    def _speed(self):
        w = der(self.flange.phi)
        return w if isinstance(self._phi_sup, float) else w - der(self._phi_sup)

    def _build_equations(self):
        w = self._speed()
        tau = self._torque(w)
        self.flow(self.flange, -tau)
        support_flows(self, [-tau])
        self.output("tau", tau)
        if self._speed_output:
            self.output("w", w)


class ConstantTorque(_PartialTorque):
    """Constant torque ``tau_constant``, not dependent on speed (negative: a load in the
    positive direction of rotation)."""
    _template = True
    units = {"tau_constant": "N.m", "tau": "N.m", "w": "rad/s"}

    def __init__(self, name, tau_constant, useSupport=False):
        super().__init__(name, useSupport)
        self._tc = self.parameter("tau_constant", tau_constant)

    def _torque(self, w):
        return self._tc


class TorqueStep(_PartialTorque):
    """Torque step ``offsetTorque + (stepTorque if time >= startTime else 0)``."""
    _template = True
    _speed_output = False
    units = {"stepTorque": "N.m", "offsetTorque": "N.m", "startTime": "s", "tau": "N.m"}

    def __init__(self, name, stepTorque=1.0, offsetTorque=0.0, startTime=0.0,
                 useSupport=False):
        super().__init__(name, useSupport)
        self._step = self.parameter("stepTorque", stepTorque)
        self._offset = self.parameter("offsetTorque", offsetTorque)
        self._t0 = self.parameter("startTime", startTime)

    def _torque(self, w):
        return self._offset + ca.if_else(self.time < self._t0, 0, self._step)


class LinearSpeedDependentTorque(_PartialTorque):
    """Torque ``tau_nominal |w/w_nominal|`` (``TorqueDirection=False``: ``tau_nominal
    w/w_nominal``, changing sign with the speed)."""
    units = {"tau_nominal": "N.m", "w_nominal": "rad/s", "tau": "N.m", "w": "rad/s"}

    def __init__(self, name, tau_nominal, w_nominal, TorqueDirection=True, useSupport=False):
        super().__init__(name, useSupport)
        self._tn = self.parameter("tau_nominal", tau_nominal)
        self._wn = self.parameter("w_nominal", w_nominal)
        self._same = bool(TorqueDirection)

    def _torque(self, w):
        r = w / self._wn
        return self._tn * (ca.fabs(r) if self._same else r)


class QuadraticSpeedDependentTorque(_PartialTorque):
    """Torque ``tau_nominal (w/w_nominal)^2`` (``TorqueDirection=False``: with the sign of
    ``w``): a fan or a pump load for negative ``tau_nominal``."""
    units = {"tau_nominal": "N.m", "w_nominal": "rad/s", "tau": "N.m", "w": "rad/s"}

    def __init__(self, name, tau_nominal, w_nominal, TorqueDirection=True, useSupport=False):
        super().__init__(name, useSupport)
        self._tn = self.parameter("tau_nominal", tau_nominal)
        self._wn = self.parameter("w_nominal", w_nominal)
        self._same = bool(TorqueDirection)

    def _torque(self, w):
        r = w / self._wn
        return self._tn * (r ** 2 if self._same else r * ca.fabs(r))


class SignTorque(_PartialTorque):
    """Constant torque ``tau_nominal`` changing sign with the speed, regularized below
    ``w0`` (``reg``: ``"Exp"`` (default), ``"Sine"``, ``"Linear"``, ``"CoSine"``)."""
    units = {"tau_nominal": "N.m", "w0": "rad/s", "tau": "N.m", "w": "rad/s"}

    def __init__(self, name, tau_nominal, reg="Exp", w0=0.1, useSupport=False):
        super().__init__(name, useSupport)
        self._tn = self.parameter("tau_nominal", tau_nominal)
        self._w0 = self.parameter("w0", w0)
        self._reg = check_choice(self, "reg", reg, REGULARIZATIONS)

    def _torque(self, w):
        return self._tn * regularized_sign(w, self._w0, self._reg)


class InverseSpeedDependentTorque(_PartialTorque):
    """Torque ``tau_nominal w_nominal/|w|`` (constant power), ``tau_nominal w_nominal/w0``
    below ``w0`` (``TorqueDirection=False``: ``tau_nominal w_nominal/w``, and
    ``tau_nominal w/w0`` below ``w0``)."""
    units = {"tau_nominal": "N.m", "w_nominal": "rad/s", "w0": "rad/s", "tau": "N.m",
             "w": "rad/s"}

    def __init__(self, name, tau_nominal, w_nominal, TorqueDirection=True, w0=0.1,
                 useSupport=False):
        super().__init__(name, useSupport)
        self._tn = self.parameter("tau_nominal", tau_nominal)
        self._wn = self.parameter("w_nominal", w_nominal)
        self._w0 = self.parameter("w0", w0)
        self._same = bool(TorqueDirection)

    def _torque(self, w):
        tn, wn, w0 = self._tn, self._wn, self._w0
        small = ca.fabs(w) < w0
        if self._same:
            return ca.if_else(small, tn * wn / w0, tn * wn / ca.fabs(w))
        return ca.if_else(small, tn * w / w0, tn * wn / w)


class EddyCurrentTorque(_PartialTorque):
    """Eddy current brake: ``tau = flange.tau = 2 tau_nominal e^2 w_n/(1 + w_n^2)`` with
    ``w_n = w/(w_nominal (1 + alpha20 (T - TRef)))`` and excitation ``e``
    (``constantExcitation``, or a signal given as ``excitation``); always braking;
    ``lossPower = tau w``. The temperature ``T`` is fixed (MSL without heat port)."""
    units = {"tau_nominal": "N.m", "w_nominal": "rad/s", "TRef": "K", "alpha20": "1/K",
             "T": "K", "tau": "N.m", "w": "rad/s", "lossPower": "W",
             "constantExcitation": "1", "excitation": "1"}

    def __init__(self, name, tau_nominal, w_nominal, TRef=293.15, alpha20=0.0, T=293.15,
                 constantExcitation=1.0, excitation=None, useSupport=False):
        super().__init__(name, useSupport)
        self._tn = self.parameter("tau_nominal", tau_nominal)
        self._wn = self.parameter("w_nominal", w_nominal)
        self._TRef = self.parameter("TRef", TRef)
        self._alpha = self.parameter("alpha20", alpha20)
        self._temp = self.parameter("T", T)
        self._exc = self.signal("constantExcitation", constantExcitation) \
            if excitation is None else self.signal("excitation", excitation)

    def _build_equations(self):
        w = self._speed()
        wn = w / (self._wn * (1 + self._alpha * (self._temp - self._TRef)))
        tau = 2 * self._tn * self._exc ** 2 * wn / (1 + wn * wn)      # = flange.tau
        self.flow(self.flange, tau)
        support_flows(self, [tau])
        self.output("tau", tau)
        self.output("w", w)
        self.output("lossPower", tau * w)


class ConstantSpeed(Component):
    """Constant speed ``w_fixed``, not dependent on torque: ``phi = phi_start + w_fixed t``
    (relative to the support); outputs ``w`` and ``tau = -flange.tau``."""
    units = {"w_fixed": "rad/s", "phi_start": "rad", "w": "rad/s", "tau": "N.m"}

    def __init__(self, name, w_fixed, phi_start=0.0, useSupport=False):
        super().__init__(name)
        self.flange, phi_sup = flange_and_support(self, Flange, useSupport)
        w = self.parameter("w_fixed", w_fixed)
        p0 = self.parameter("phi_start", phi_start)
        drive(self, self.flange, phi_sup, p0 + w * self.time)
        self.output("w", w)
        self.output("tau", -self.flange.tau)


class Speed(Component):
    """Flange turned at the reference speed ``w_ref`` (a number, an expression or a
    function of time): angle ``phi`` (start ``phi_start``) and, unless ``exact``, ``w`` of
    the filter ``der(w) = (w_ref - w) 2 pi f_crit`` (start ``w_ref(0)``); outputs ``w``
    (exact) or ``a`` (filtered)."""
    units = {"w_ref": "rad/s", "f_crit": "Hz", "phi_start": "rad", "phi": "rad",
             "w": "rad/s", "a": "rad/s2"}

    def __init__(self, name, w_ref=0.0, exact=False, f_crit=50.0, phi_start=0.0,
                 useSupport=False):
        super().__init__(name)
        self.flange, phi_sup = flange_and_support(self, Flange, useSupport)
        ref = self.signal("w_ref", w_ref)
        phi = speed_drive(self, ref, w_ref, exact, f_crit, ("phi", "w", "a"), phi_start)
        drive(self, self.flange, phi_sup, phi)


class Accelerate(Component):
    """Flange turned with the angular acceleration ``a_ref`` (a number, an expression or a
    function of time): angle ``phi`` and speed ``w`` (starts ``phi_start``, ``w_start``,
    MSL: 0); output ``a``."""
    units = {"a_ref": "rad/s2", "phi_start": "rad", "w_start": "rad/s", "phi": "rad",
             "w": "rad/s", "a": "rad/s2"}

    def __init__(self, name, a_ref=0.0, phi_start=0.0, w_start=0.0, useSupport=False):
        super().__init__(name)
        self.flange, phi_sup = flange_and_support(self, Flange, useSupport)
        ref = self.signal("a_ref", a_ref)
        phi = accelerate_drive(self, ref, a_ref, ("phi", "w", "a"), (phi_start, w_start))
        drive(self, self.flange, phi_sup, phi)


from ._msl_exports import done as _done  # noqa: E402
_done(__name__)
