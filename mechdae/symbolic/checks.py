"""Checks of a Model's expressions at ``compile()``, before derivation.

Non-finite constants
--------------------
A NaN or inf *number* inside an expression of a model makes every state it touches NaN:
the run returns NaN energies, positions, multipliers, without an error. The usual cause
is a function of Python's ``math`` module (``math.cos``, ``math.sqrt``, ...) or
``float()`` applied to a symbol: the symbols are CasADi ``SX`` scalars whose ``float()``
is NaN when they are not constant, so ``math.cos(theta)`` *is* ``nan`` and the model
holds ``m g L nan``. (Making ``float()`` of a symbol raise would mean patching CasADi's
``SX`` class for every user of CasADi in the process, and would still miss expressions
built by others; the check here finds every case, in the expression it ended up in.)

:func:`nonfinite_constants` lists each expression of the model (energies, forces,
constraints, contacts, equations, kinematics, outputs, bodies, inputs given as
expressions) holding a NaN or inf constant, by what it is and its name, so that
``compile()`` raises one :class:`mechdae.ModelError` with all of them. A contact's
``friction`` may be ``inf`` (no sliding); only NaN is refused there.
"""
import casadi as ca
import numpy as np

__all__ = ["nonfinite_constants"]

_HINT = ("Python's math functions (math.cos, math.sqrt, ...) and float() give NaN for a "
         "symbol: use md.cos, md.sin, md.sqrt, md.exp, md.atan2, ... there, and finite "
         "numbers elsewhere")


def _labelled(model):
    """``(where, expression, nan_only)`` for every expression of ``model``."""
    for k, T in enumerate(model.T_terms):
        yield f"kinetic energy (term {k + 1})", T, False
    for k, T in enumerate(getattr(model, "T_report", ())):
        yield f"kinetic energy of a body (term {k + 1})", T, False
    for k, V in enumerate(model.V_terms):
        yield f"potential energy (term {k + 1})", V, False
    for Q, name in model.forces:
        yield f"generalized force on '{name}'", Q, False
    for Q, name in model.speed_forces:
        yield f"generalized force on speed '{name}'", Q, False
    for k, (F, v) in enumerate(model.power_terms):
        yield f"force at a point (term {k + 1})", F, False
        yield f"velocity of a force's point (term {k + 1})", v, False
    for name, e in model.holonomic_:
        yield f"holonomic constraint '{name}'", e, False
    for name, e in model.nonholonomic_:
        yield f"nonholonomic constraint '{name}'", e, False
    for name, e in model.equations:
        yield f"equation '{name}'", e, False
    for name, e in model.kinematics_.items():
        yield f"kinematics of '{name}'", e, False
    for name, e in model.outputs:
        yield f"output '{name}'", e, False
    for c in model.contacts:
        for what in ("gap", "tangent", "tangent_velocity", "restitution",
                     "tangential_restitution", "friction"):
            e = getattr(c, what, None)
            if isinstance(e, ca.SX):
                yield f"contact '{c.name}': {what}", e, what == "friction"
    for b in model.bodies:
        for what in ("mass", "inertia", "J"):
            e = getattr(b, what, None)
            if isinstance(e, ca.SX):
                yield f"body '{b.name}': {what}", e, False
    for w in model.inputs:
        if isinstance(w.get("default"), ca.SX):
            yield f"input '{w['name']}': default", w["default"], False


def _bad_constants(exprs, nan_only=False):
    """The non-finite constants (NaN, or also +-inf) in the SX expressions ``exprs``."""
    exprs = [ca.vec(e) for e in exprs if isinstance(e, ca.SX) and e.numel()]
    if not exprs:
        return []
    e = ca.vertcat(*exprs)
    f = ca.Function("constants", ca.symvar(e), [e])
    bad = []
    for k in range(f.n_instructions()):
        if f.instruction_id(k) == ca.OP_CONST:
            v = f.instruction_constant(k)
            if np.isnan(v) or (not nan_only and np.isinf(v)):
                bad.append(v)
    return bad


def nonfinite_constants(model):
    """Problems of ``model``: each expression holding a NaN or inf constant.

    Parameters
    ----------
    model : mechdae.Model

    Returns
    -------
    list of str
        One line per expression: where it is (``"potential energy (term 1)"``,
        ``"holonomic constraint 'rod'"``, ``"contact 'ground': gap"``, ...), the constant,
        the expression and the fix.

    Examples
    --------
    >>> import math, mechdae as md
    >>> m = md.Model("p"); th = m.coordinates("th")
    >>> m.potential_energy(-9.81 * math.cos(th))           # math.cos: NaN
    >>> nonfinite_constants(m)[0][:40]
    'potential energy (term 1): a NaN constan'
    """
    items = list(_labelled(model))
    # one pass over everything; a second one per expression only when something is found
    if not _bad_constants([e for _, e, _ in items]):
        return []
    out = []
    for where, e, nan_only in items:
        bad = _bad_constants([e], nan_only)
        if not bad:
            continue
        nan = any(np.isnan(v) for v in bad)
        text = str(e)
        text = text if len(text) <= 80 else text[:77] + "..."
        out.append(f"{where}: a{' NaN' if nan else 'n inf'} constant in {text}; "
                   + (_HINT if nan else "give finite numbers (an inf number, or a float "
                      "that overflowed, makes the equations non-finite)"))
    return out
