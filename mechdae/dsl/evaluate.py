"""Parameters folded into the equations at compile time (Modelica's ``Evaluate=true``).

``Model.compile(evaluate=...)`` replaces the chosen parameters by their default values
*before* derivation, so the compiled equations contain numbers instead of symbols:
products with a zero offset, a zero inertia or a unit factor vanish from the graph. For
the 30-link pendulum chain built from ``pl.Revolute`` and ``pl.BodyShape`` (six geometric
parameters per link) the mass matrix falls from 25,871 to about 8,900 instructions, small
enough to run as generated C.

An evaluated parameter is no longer a parameter of the System: it is left out of
``System.p_names`` and every call that takes ``params=`` refuses its name with a message
that says it was evaluated and how to vary it (compile without evaluating it). The work
is done on a copy of the Model; the Model itself is not changed, so it can be compiled
again with other choices.
"""
import re

import casadi as ca

from ..errors import ModelError

__all__ = ["evaluated_model"]


def _choose(model, evaluate):
    """Names chosen by ``evaluate``: True, or names / patterns in which ``*`` and ``?`` are
    the wildcards (brackets are literal: ``"b*.r[1]"``)."""
    names = [p["name"] for p in model.params]
    if evaluate is True:
        return list(names)
    pats = [evaluate] if isinstance(evaluate, str) else evaluate
    try:
        pats = list(pats)
    except TypeError:
        raise ValueError(f"compile(evaluate={evaluate!r}): give True (every parameter), a "
                         "parameter name or a pattern ('link*.m'), or a list of them") from None
    chosen = []
    for pat in pats:
        if not isinstance(pat, str):
            raise ValueError(f"compile(evaluate=...): {pat!r} is not a parameter name or pattern")
        rx = re.compile(re.escape(pat).replace(r"\*", ".*").replace(r"\?", ".") + r"\Z")
        hits = [n for n in names if rx.match(n)]
        if not hits:
            raise ValueError(f"compile(evaluate=...): {pat!r} matches no parameter of model "
                             f"'{model.name}'; parameters: {', '.join(names) or 'none'}")
        chosen.extend(h for h in hits if h not in chosen)
    return chosen


def _shallow(obj):
    """A shallow copy that shares the symbols (``copy.copy`` of a Model goes through its
    pickling, which makes new symbols)."""
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    return new


def evaluated_model(model, evaluate):
    """``(model_to_derive, {name: value})``: ``model`` itself when nothing is evaluated,
    otherwise a copy with the chosen parameters replaced by their defaults everywhere
    (energies, forces, constraints, equations, contacts and their laws, bodies, inputs,
    outputs, drawings)."""
    if evaluate is None or evaluate is False:
        return model, {}
    chosen = set(_choose(model, evaluate))
    if not chosen:
        return model, {}
    ev = [p for p in model.params if p["name"] in chosen]
    values = {p["name"]: float(p["default"]) for p in ev}
    old = ca.vertcat(*[p["sym"] for p in ev])
    new = ca.SX(ca.DM([values[p["name"]] for p in ev]))

    def sb(e):
        if isinstance(e, ca.SX) and e.numel():
            return ca.substitute(e, old, new)
        return e

    m = _shallow(model)
    m.params = [p for p in model.params if p["name"] not in chosen]
    m.kinematics_ = dict(model.kinematics_)
    m.contacts = [_shallow(c) for c in model.contacts]
    m.substitute(old, new)           # energies, forces, constraints, equations, outputs, gaps
    for c in m.contacts:
        for attr in ("restitution", "friction", "tangential_restitution"):
            setattr(c, attr, sb(getattr(c, attr)))
    m.bodies = []
    for b in model.bodies:
        b2 = _shallow(b)
        b2.mass = sb(b.mass)
        for attr in ("inertia", "J"):
            if hasattr(b, attr):
                setattr(b2, attr, sb(getattr(b, attr)))
        m.bodies.append(b2)
    m.inputs = [dict(w, default=sb(w["default"])) for w in model.inputs]
    m.drawings = [dict(d, points=[tuple(sb(c) for c in p) for p in d["points"]],
                       radius=sb(d["radius"])) for d in model.drawings]
    _check_gone(m, old, values)
    return m, values


def _check_gone(m, old, values):
    """Every expression the derivation reads is free of the evaluated symbols (a term that
    escaped the substitution would surface later as a free-variable error far from here)."""
    exprs = list(m.T_terms) + list(m.V_terms) + list(m.T_report)
    exprs += [f for f, _ in m.forces] + [f for f, _ in m.speed_forces]
    exprs += [e for pair in m.power_terms for e in pair]
    for lst in (m.holonomic_, m.nonholonomic_, m.equations, m.outputs):
        exprs += [e for _, e in lst]
    exprs += list(m.kinematics_.values())
    for c in m.contacts:
        exprs += [c.gap, c.tangent, c.tangent_velocity, c.restitution, c.friction,
                  c.tangential_restitution]
    for b in m.bodies:
        exprs += [b.mass, getattr(b, "J", None), getattr(b, "inertia", None)]
    exprs = [e for e in exprs if isinstance(e, ca.SX) and e.numel()]
    if not exprs:
        return
    gone = {s.element_hash(): str(s) for s in ca.symvar(old)}
    left = sorted({gone[s.element_hash()] for s in ca.symvar(ca.veccat(*exprs))
                   if s.element_hash() in gone})
    if left:
        raise ModelError(f"model '{m.name}': compile(evaluate=...): "
                         f"{', '.join(left)} still appear after evaluation; "
                         "compile without evaluating them")
