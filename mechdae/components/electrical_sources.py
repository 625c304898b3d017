"""Sources of Modelica.Electrical.Analog.Sources (MSL names and parameters).

A voltage source fixes ``v = p.v - n.v`` to its signal and carries the current ``i`` (a
general variable) from p to n through itself; a current source drives ``i`` from p to n
through itself. The signals are Modelica.Blocks.Sources shapes (:mod:`._signals`) with
``offset`` and ``startTime``; parameters the MSL gives only a start value take it as
their default (``V=1``, ``f=1``, ``period=1``, ...). ``SignalVoltage`` / ``SignalCurrent``
take any signal: a number (then the parameter ``v_signal`` / ``i_signal``), an expression
or a function of time.

``units``: each class's SI units of its parameters and outputs, as data.
"""
import math

import casadi as ca

from .._symbols import der
from . import _signals
from .core import Component
from .electrical import Pin

__all__ = []


class _Source(Component):
    """Pins ``p``, ``n``; ``v = p.v - n.v``; current ``i`` from p to n (outputs ``v``,
    ``i``). Subclasses set ``_kind`` ("voltage"/"current") and build the signal."""

    def __init__(self, name):
        super().__init__(name)
        self.p = self.connector(Pin, "p")
        self.n = self.connector(Pin, "n")
        self.vdrop = self.p.v - self.n.v

    def _drive(self, value):
        if self._kind == "voltage":
            i = self.variable("i")
            self.equation(self.vdrop == value, name="v")
            self.output("v", self.vdrop)
        else:
            i = value
            self.output("i", i)
            self.output("v", self.vdrop)
        self.flow(self.p, i)
        self.flow(self.n, -i)


def _make(kind, shape, doc, params):
    """A source class of ``kind`` whose signal is ``_signals.<shape>`` of the parameters
    ``params`` [(MSL name, default, unit, the shape's argument)] plus offset and
    startTime; ``V``/``I`` is the height (amplitude) parameter."""
    amp = "V" if kind == "voltage" else "I"
    unit = "V" if kind == "voltage" else "A"
    spec = [(amp if n == "*" else n, d, unit if u == "*" else u, a) for n, d, u, a in params]
    spec += [("offset", 0.0, unit, "offset"), ("startTime", 0.0, "s", "startTime")]

    def __init__(self, name, **kw):
        _Source.__init__(self, name)
        unknown = set(kw) - {n for n, _, _, _ in spec}
        if unknown:
            raise TypeError(f"{type(self).__name__}(): unknown parameter(s) "
                            f"{', '.join(sorted(unknown))}; MSL's are "
                            f"{', '.join(n for n, _, _, _ in spec)}")
        args = {a: self.parameter(n, kw.get(n, d)) for n, d, _, a in spec}
        if shape in ("pulse", "saw_tooth"):
            args["nperiod"] = -1         # MSL's voltage/current sources keep it infinite
        self._drive(getattr(_signals, shape)(self.time, **args))

    name = {"voltage": "Voltage", "current": "Current"}[kind]
    sig = ", ".join(f"{n}={d!r}" for n, d, _, _ in spec)
    cls = type(shape.title().replace("_", "") + name, (_Source,), dict(
        __init__=__init__, _kind=kind,
        __doc__=f"{doc} {kind} source ({sig}).",
        units=dict({n: u for n, _, u, _ in spec}, v="V", i="A")))
    return cls


_SHAPES = {
    "step": ("Step", [("*", 1.0, "*", "height")]),
    "ramp": ("Ramp", [("*", 1.0, "*", "height"), ("duration", 2.0, "s", "duration")]),
    "sine": ("Sine", [("*", 1.0, "*", "amplitude"), ("phase", 0.0, "rad", "phase"),
                      ("f", 1.0, "Hz", "f")]),
    "cosine": ("Cosine", [("*", 1.0, "*", "amplitude"), ("phase", 0.0, "rad", "phase"),
                          ("f", 1.0, "Hz", "f")]),
    "exp_sine": ("Exponentially damped sine", [
        ("*", 1.0, "*", "amplitude"), ("f", 2.0, "Hz", "f"), ("phase", 0.0, "rad", "phase"),
        ("damping", 1.0, "1/s", "damping")]),
    "pulse": ("Pulse", [("*", 1.0, "*", "amplitude"), ("width", 50.0, "1", "width"),
                        ("period", 1.0, "s", "period")]),
    "saw_tooth": ("Saw tooth", [("*", 1.0, "*", "amplitude"), ("period", 1.0, "s", "period")]),
    "trapezoid": ("Trapezoidal", [
        ("*", 1.0, "*", "amplitude"), ("rising", 0.0, "s", "rising"),
        ("width", 0.5, "s", "width"), ("falling", 0.0, "s", "falling"),
        ("period", 1.0, "s", "period"), ("nperiod", -1, "1", "nperiod")]),
}
for _shape, (_doc, _params) in _SHAPES.items():
    for _kind in ("voltage", "current"):
        _cls = _make(_kind, _shape, _doc, _params)
        _cls.__module__ = __name__
        globals()[_cls.__name__] = _cls
        __all__.append(_cls.__name__)


def _exponentials(kind):
    """MSL's ExponentialsVoltage / ExponentialsCurrent (parameters vMax / iMax, riseTime,
    riseTimeConst, fallTimeConst)."""
    top = "vMax" if kind == "voltage" else "iMax"
    unit = "V" if kind == "voltage" else "A"

    def __init__(self, name, riseTime=0.5, riseTimeConst=0.1, fallTimeConst=None,
                 offset=0.0, startTime=0.0, **kw):
        _Source.__init__(self, name)
        top_v = self.parameter(top, kw.pop(top, 1.0))
        if kw:
            raise TypeError(f"{type(self).__name__}(): unknown parameter(s) {sorted(kw)}")
        rc = self.parameter("riseTimeConst", riseTimeConst)
        fc = rc if fallTimeConst is None else self.parameter("fallTimeConst", fallTimeConst)
        y = _signals.exponentials(self.time, top_v, self.parameter("riseTime", riseTime), rc,
                                  fc, self.parameter("offset", offset),
                                  self.parameter("startTime", startTime))
        self._drive(y)

    name = f"Exponentials{'Voltage' if kind == 'voltage' else 'Current'}"
    return type(name, (_Source,), dict(
        __init__=__init__, _kind=kind, __module__=__name__,
        __doc__=f"Rising and falling exponential {kind} source ({top}=1, riseTime=0.5, "
                "riseTimeConst=0.1, fallTimeConst=riseTimeConst, offset=0, startTime=0).",
        units={top: unit, "riseTime": "s", "riseTimeConst": "s", "fallTimeConst": "s",
               "offset": unit, "startTime": "s", "v": "V", "i": "A"}))


ExponentialsVoltage = _exponentials("voltage")
ExponentialsCurrent = _exponentials("current")


class ConstantVoltage(_Source):
    """Source of the constant voltage ``V``."""
    _kind = "voltage"
    units = {"V": "V", "v": "V", "i": "A"}

    def __init__(self, name, V=1.0):
        super().__init__(name)
        self._drive(self.parameter("V", V))


class ConstantCurrent(_Source):
    """Source of the constant current ``I``."""
    _kind = "current"
    units = {"I": "A", "v": "V", "i": "A"}

    def __init__(self, name, I=1.0):
        super().__init__(name)
        self._drive(self.parameter("I", I))


class SignalVoltage(_Source):
    """Voltage ``v`` between p and n from a signal (a number, an expression or a function
    of time)."""
    _kind = "voltage"
    units = {"v": "V", "i": "A", "v_signal": "V"}

    def __init__(self, name, v=0.0):
        super().__init__(name)
        self._drive(self.signal("v_signal", v))


class SignalCurrent(_Source):
    """Current ``i`` from p to n through the source from a signal (a number, an expression
    or a function of time)."""
    _kind = "current"
    units = {"i": "A", "v": "V", "i_signal": "A"}

    def __init__(self, name, i=0.0):
        super().__init__(name)
        self._drive(self.signal("i_signal", i))


class TableVoltage(_Source):
    """Voltage by linear interpolation in ``table`` (rows ``(time, voltage)``; equal times
    make a step; extrapolated linearly), plus ``offset`` from ``startTime`` (the table is
    data, not parameters)."""
    _kind = "voltage"
    units = {"offset": "V", "startTime": "s", "v": "V", "i": "A"}

    def __init__(self, name, table=((0.0, 0.0), (1.0, 1.0), (2.0, 4.0)), offset=0.0,
                 startTime=0.0):
        super().__init__(name)
        self._drive(_signals.time_table(self.time, table, self.parameter("offset", offset),
                                        self.parameter("startTime", startTime)))


class TableCurrent(_Source):
    """Current by linear interpolation in ``table`` (rows ``(time, current)``), as
    TableVoltage."""
    _kind = "current"
    units = {"offset": "A", "startTime": "s", "v": "V", "i": "A"}

    def __init__(self, name, table=((0.0, 0.0), (1.0, 1.0), (2.0, 4.0)), offset=0.0,
                 startTime=0.0):
        super().__init__(name)
        self._drive(_signals.time_table(self.time, table, self.parameter("offset", offset),
                                        self.parameter("startTime", startTime)))


__all__ += ["ExponentialsVoltage", "ExponentialsCurrent", "ConstantVoltage",
            "ConstantCurrent", "SignalVoltage", "SignalCurrent", "TableVoltage",
            "TableCurrent"]



def _variable_frequency(kind, trig):
    """MSL's Sine/Cosine Voltage/Current VariableFrequencyAndAmplitude: phase ``phi`` (a
    state, start ``phi_start``) with ``der(phi) = 2 pi f``; value ``offset + A trig(phi)``."""
    amp, unit = ("V", "V") if kind == "voltage" else ("I", "A")

    def __init__(self, name, useConstantAmplitude=False, constantAmplitude=1.0,
                 useConstantFrequency=False, constantFrequency=1.0, offset=0.0,
                 phi_start=0.0, **signals):
        _Source.__init__(self, name)
        unknown = set(signals) - {amp, "f"}
        if unknown:
            raise TypeError(f"{type(self).__name__}(): unknown parameter(s) {sorted(unknown)}")
        A = self._input(amp, signals.get(amp), useConstantAmplitude, constantAmplitude,
                        "useConstantAmplitude", "constantAmplitude")
        f = self._input("f", signals.get("f"), useConstantFrequency, constantFrequency,
                        "useConstantFrequency", "constantFrequency")
        phi = self.variable("phi", default=phi_start)
        self.equation(der(phi) == 2 * math.pi * f, name="phase")
        self._drive(self.parameter("offset", offset) + A * trig(phi))

    def _input(self, name, signal, use_constant, constant, flag, cname):
        if use_constant:
            if signal is not None:
                raise ValueError(f"{type(self).__name__} '{self.name}': {flag}=True and a "
                                 f"signal {name}=...; give one of them")
            return self.parameter(cname, constant)
        if signal is None:
            raise ValueError(f"{type(self).__name__} '{self.name}': give the signal {name}="
                             f"... (a number, an expression or a function of time) or "
                             f"{flag}=True with {cname}")
        return self.signal(f"{name}_signal", signal)

    wave = "Sine" if trig is ca.sin else "Cosine"
    name = f"{wave}{'Voltage' if kind == 'voltage' else 'Current'}VariableFrequencyAndAmplitude"
    return type(name, (_Source,), dict(
        __init__=__init__, _input=_input, _kind=kind, __module__=__name__,
        _reference_args=dict(useConstantAmplitude=True, useConstantFrequency=True),
        __doc__=f"{wave} {kind} source with variable frequency and amplitude: "
                f"``der(phi) = 2 pi f``, value ``offset + {amp} {wave.lower()[:3]}(phi)`` "
                f"(``{amp}``, ``f``: signals, or constantAmplitude / constantFrequency with "
                "useConstantAmplitude / useConstantFrequency).",
        units={"constantAmplitude": unit, "constantFrequency": "Hz", "offset": unit,
               "phi": "rad", "phi_start": "rad", f"{amp}_signal": unit, "f_signal": "Hz", "v": "V", "i": "A"}))


for _kind in ("voltage", "current"):
    for _trig in (ca.sin, ca.cos):
        _cls = _variable_frequency(_kind, _trig)
        globals()[_cls.__name__] = _cls
        __all__.append(_cls.__name__)

from ._msl_exports import done as _done  # noqa: E402
_done(__name__)
