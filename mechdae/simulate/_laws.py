"""Contact laws ``(e_n, e_t, mu)`` per contact at a run's parameter values.

A contact's restitution, tangential restitution and friction may be numbers or
expressions of the model's parameters (``m.contact(..., restitution=e)`` with
``e = m.parameter("e", 0.8)``); every driver evaluates them here, with the run's parameter
vector, so that ``params={"e": 0.5}`` takes effect without recompiling.
"""
import casadi as ca
import numpy as np

from .._threads import LOCK
from ..codegen import once

__all__ = ["laws_function", "contact_laws"]

_KEYS = ("restitution", "tangential_restitution", "friction")


def laws_function(system):
    """CasADi Function ``p -> (e_n, e_t, mu)``, one entry per contact (cached on the System).

    Usable symbolically (``laws_function(system)(p_mx)``) or numerically.
    """
    return once(system.__dict__.setdefault("_laws_cache", {}), "f",
                lambda: _laws_function(system))


def _laws_function(system):
    d = system._d
    cols = [[], [], []]
    for c in system.contacts:
        for lst, k in zip(cols, _KEYS):
            val = c[k]
            lst.append(val if isinstance(val, ca.SX) else ca.SX(float(val)))
    outs = [ca.vertcat(*lst) if lst else ca.SX(0, 1) for lst in cols]
    return ca.Function("laws", [d.p], outs, ["p"], ["e_n", "e_t", "mu"])


def contact_laws(system, pv):
    """Numeric contact laws at the parameter vector ``pv``.

    Parameters
    ----------
    system : System
    pv : array (n_p,)
        Parameter vector in the System's order (``system.param_vector(params)``).

    Returns
    -------
    e_n, e_t, mu : arrays (n_c,)
        Normal and tangential restitution, friction coefficient (``inf``: no sliding).

    Raises
    ------
    ValueError
        A law outside its range (``e_n`` in [0, 1], ``e_t`` in [-1, 1], ``mu >= 0``),
        naming the contact.
        A contact declared with ``friction_cone="closure"`` (an impact-only law).

    Examples
    --------
    >>> sys = md.load("models/bouncing_ball.py").compile()            # doctest: +SKIP
    >>> contact_laws(sys, sys.param_vector({"e": 0.5}))[0]             # doctest: +SKIP
    array([0.5])
    """
    nc = len(system.contacts)
    if nc == 0:
        z = np.zeros(0)
        return z, z.copy(), z.copy()
    pv = np.ascontiguousarray(pv, dtype=float)
    # validated values per parameter vector, cached on the System (a run evaluates them
    # once: 150 us of DM conversions); each caller gets arrays of its own
    values = once(system.__dict__.setdefault("_laws_cache", {}), "values", dict)
    key = pv.tobytes()
    laws = values.get(key)
    if laws is None:                 # (a System with cached laws has passed reject())
        from ..contact.closure import reject
        reject(system, f"simulate (model '{system.name}')")
        laws = _evaluate(system, pv)
        with LOCK:
            if len(values) >= _MAX_CACHED:
                values.clear()
            values[key] = laws
    return tuple(a.copy() for a in laws)


_MAX_CACHED = 64       # parameter vectors whose laws are kept per System


def _evaluate(system, pv):
    """``(e_n, e_t, mu)`` at ``pv``, checked (ValueError naming the contact otherwise)."""
    out = laws_function(system)(pv)
    e_n, e_t, mu = (np.array(a, dtype=float).ravel() for a in out)
    bad = []
    for i, c in enumerate(system.contacts):
        if not 0.0 <= e_n[i] <= 1.0:
            bad.append(f"contact '{c['name']}': restitution e_n = {e_n[i]:g} not in [0, 1]")
        if not -1.0 <= e_t[i] <= 1.0:
            bad.append(f"contact '{c['name']}': tangential_restitution e_t = {e_t[i]:g} "
                       "not in [-1, 1]")
        if not mu[i] >= 0.0:
            bad.append(f"contact '{c['name']}': friction mu = {mu[i]:g} must be >= 0")
    if bad:
        raise ValueError("; ".join(bad) + " (check params=)")
    return e_n, e_t, mu
