"""What the 1-D sources, sensors and gears of the MSL share: the optional support flange
and the regularizations of a sign.

MSL's ``PartialElementaryOneFlangeAndSupport2``: with ``useSupport=False`` the housing is
implicitly grounded (support at 0, its reaction goes to ground); with ``useSupport=True`` a
connector ``support`` carries the reaction (``support.f = -flange.f``) and every relative
quantity is measured from it.
"""
import math
import numbers

import casadi as ca

from .._symbols import der

__all__ = ["flange_and_support", "support_flows", "regularized_sign", "start_value",
           "check_choice", "drive", "speed_drive", "accelerate_drive", "parameter"]


def flange_and_support(comp, flange_cls, use_support, flange="flange"):
    """Declare ``comp``'s flange (named ``flange``) and, with ``use_support``, its
    ``support``; returns ``(flange connector, support potential)`` (0 when grounded)."""
    fl = comp.connector(flange_cls, flange)
    if not use_support:
        return fl, 0.0
    sup = comp.connector(flange_cls, "support")
    return fl, getattr(sup, flange_cls.potentials[0])


def support_flows(comp, flows):
    """The reaction at ``comp.support`` (if it has one) of the flows ``flows`` the component
    takes at its other flanges: ``support.f = -sum(flows)``."""
    sup = getattr(comp, "support", None)
    if sup is not None:
        comp.flow(sup, -sum(flows[1:], flows[0]))


#: MSL's Modelica.Blocks.Types.Regularization names
REGULARIZATIONS = ("Exp", "Sine", "Linear", "CoSine")


def check_choice(comp, name, value, choices):
    """``value`` if it is one of ``choices``, else a ValueError naming the component."""
    if value not in choices:
        raise ValueError(f"{type(comp).__name__} '{comp.name}': {name}={value!r}; choose one "
                         f"of {', '.join(repr(c) for c in choices)}")
    return value


def regularized_sign(v, v0, reg):
    """MSL's regularized ``sign(v)`` of SignForce / SignTorque / RollingResistance below
    ``v0``: ``"Exp"``: ``2/(1 + exp(-v/(0.01 v0))) - 1``; ``"Sine"``: ``sin(pi/2 v/v0)``;
    ``"Linear"``: ``v/v0``; ``"CoSine"``: ``sign(v) (1 - cos(pi/2 v/v0))`` (each equal to
    ``sign(v)`` for ``|v| >= v0`` except Exp)."""
    if reg == "Exp":
        return 2 / (1 + ca.exp(-v / (0.01 * v0))) - 1
    outside = ca.fabs(v) >= v0
    inside = {"Sine": ca.sin(math.pi / 2 * v / v0), "Linear": v / v0,
              "CoSine": ca.sign(v) * (1 - ca.cos(math.pi / 2 * v / v0))}[reg]
    return ca.if_else(outside, ca.sign(v), inside)


def start_value(value, default=0.0):
    """A number for a start value from a source's argument (a number, a callable of time
    evaluated at 0, or a constant expression); ``default`` where it is none of these."""
    if callable(value) and not isinstance(value, (ca.SX, ca.MX)):
        try:
            value = value(0.0)
        except Exception:                # an expression of symbols: not known here
            return default
    if isinstance(value, (ca.SX, ca.MX)):
        if ca.symvar(value):
            return default
        value = ca.evalf(value)
    try:
        return float(value)
    except (TypeError, ValueError, RuntimeError):
        return default


def drive(comp, flange, s_support, s, name="drive"):
    """``flange`` at ``s_support + s``: a definition when the housing is grounded, else a
    relation ``flange - support - s = 0`` (its multiplier is the driving force; the
    support takes the reaction)."""
    p = getattr(flange, type(flange).potentials[0])
    if isinstance(s_support, float):
        comp.define(flange, s_support + s)
    else:
        comp.relation(p - s_support - s, name=name)


_PARAMETERS = set()                      # hashes of placeholders made by parameter() below


def parameter(comp, name, value):
    """``comp.parameter(name, value)``, remembered as constant in time: a source given it
    as its reference (a Vehicle's constant wind) positions its flange in closed form."""
    ph = comp.parameter(name, value)
    _PARAMETERS.add(ph.element_hash())
    return ph


def _constant(value):
    """Whether a source's reference is constant in time: a number, or an expression of
    parameters made by :func:`parameter`."""
    if isinstance(value, ca.SX):
        return all(s.element_hash() in _PARAMETERS for s in ca.symvar(value))
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def speed_drive(comp, ref, ref_arg, exact, f_crit, names, start):
    """The position of MSL's Speed source, ``der(s) = v`` from ``s(0) = start``: ``exact``:
    ``v = ref``; else ``v`` is the state of the first-order filter ``der(v) = (ref - v)
    w_crit``, ``w_crit = 2 pi f_crit``, that starts at ``ref(0)``. A constant ``ref`` (a
    number) keeps ``v = ref`` either way: ``s = start + ref t`` in closed form (parameters
    ``"<path>.<start name>"``); otherwise ``s`` (and ``v``) are states of their own.
    Returns the position expression."""
    s_name, v_name, a_name = names
    if _constant(ref_arg):
        s = comp.parameter(f"{s_name}_start", start) + ref * comp.time
        comp.output(s_name, s)
        comp.output(v_name, ref)
        if not exact:
            comp.parameter("f_crit", f_crit)
            comp.output(a_name, 0.0 * ref)
        return s
    s = comp.variable(s_name, default=start)
    if exact:
        comp.equation(der(s) == ref, name=v_name)
        comp.output(v_name, ref)
        return s
    w_crit = 2 * math.pi * comp.parameter("f_crit", f_crit)
    v = comp.variable(v_name, default=start_value(ref_arg))
    comp.equation(der(s) == v, name=v_name)
    a = (ref - v) * w_crit
    comp.equation(der(v) == a, name=a_name)
    comp.output(a_name, a)
    return s


def accelerate_drive(comp, ref, ref_arg, names, starts):
    """The position of MSL's Accelerate source: ``der(s) = v``, ``der(v) = a = ref`` from
    ``starts``; a constant ``ref``: ``s = s0 + v0 t + ref t^2/2`` in closed form
    (parameters ``"<path>.<name>_start"``), otherwise states ``s``, ``v`` of their own."""
    if _constant(ref_arg):
        s0 = comp.parameter(f"{names[0]}_start", starts[0])
        v0 = comp.parameter(f"{names[1]}_start", starts[1])
        t = comp.time
        s = s0 + v0 * t + 0.5 * ref * t ** 2
        comp.output(names[0], s)
        comp.output(names[1], v0 + ref * t)
        comp.output(names[2], ref)
        return s
    s = comp.variable(names[0], default=starts[0])
    v = comp.variable(names[1], default=starts[1])
    comp.equation(der(s) == v, name=names[1])
    comp.equation(der(v) == ref, name=names[2])
    comp.output(names[2], ref)
    return s
