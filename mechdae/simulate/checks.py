"""The checks of a simulate call, before any work (:func:`check_call`, used by the
dispatcher :func:`mechdae.simulate.simulate` and by :func:`mechdae.sweep.sweep`): the
method's option names, the horizon, contacts against a smooth-only method, and the values
of parameters, inputs, tolerances, ``dt`` and ``max_events``. Each refusal names the
argument, its value and the fix.
"""
import difflib
import math

import numpy as np

from . import COMMON, METHODS, OPTIONS, SMOOTH_ONLY

__all__ = ["check_options", "check_call", "check_values", "MAX_TIME", "MAX_STEPS"]

def check_options(method, options):
    """Refuse option names ``method`` does not take (a misspelling, an option of another
    method): a TypeError naming them, a close match, and the valid names.

    Parameters
    ----------
    method : str
        A name in :data:`METHODS`.
    options : iterable of str
        The keyword names of the call.

    Raises
    ------
    TypeError
        ``simulate(method='timestepping'): unknown option 'rtoll' (did you mean 'rtol'?);
        ...``
    """
    own = OPTIONS.get(method, frozenset())
    valid = own | COMMON
    unknown = sorted(set(options) - valid)
    if not unknown:
        return
    said = []
    for k in unknown:
        close = difflib.get_close_matches(k, sorted(valid), n=1)
        said.append(f"{k!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    elsewhere = sorted(m for m in METHODS if m != method
                       and any(k in OPTIONS.get(m, ()) for k in unknown))
    raise TypeError(
        f"simulate(method={method!r}): unknown option{'s' if len(unknown) > 1 else ''} "
        f"{', '.join(said)}"
        + (f" (an option of method {', '.join(map(repr, elsewhere))})" if elsewhere else "")
        + f"; the options of {method!r}: {', '.join(sorted(own)) or 'none'}; every method "
        f"also takes {', '.join(sorted(COMMON - {'method'}))}")


def _horizon(t_final, kw):
    """``(t0, t1)`` of the run after refusing a non-finite or empty horizon (ValueError
    naming the argument and the value)."""
    t0 = kw.get("t0", 0.0)
    for name, val in (("t0", t0), ("t_final", t_final)):
        if isinstance(val, (str, bytes)):
            text = val if isinstance(val, str) else val.decode(errors="replace")
            raise ValueError(f"{name}={val!r} is a string; give a number (s), e.g. "
                             f"{name}={text.strip()}")
    try:
        t0 = float(t0)
    except (TypeError, ValueError):
        raise ValueError(f"t0={t0!r} is not a number") from None
    if not math.isfinite(t0):
        raise ValueError(f"t0={t0} is not finite; the start time must be a finite number (s)")
    ot = kw.get("output_times")
    if ot is not None:
        try:
            ts = np.asarray(ot, dtype=float).ravel()
        except (TypeError, ValueError):
            raise ValueError(f"output_times={ot!r} is not an array of numbers") from None
        bad = np.flatnonzero(~np.isfinite(ts))
        if bad.size:
            raise ValueError(f"output_times[{bad[0]}] = {ts[bad[0]]}: output times must be "
                             "finite numbers (s)")
        if ts.size < 2 or np.any(np.diff(ts) <= 0):
            raise ValueError("output_times must be increasing with at least 2 points")
    if t_final is None:
        if ot is None:
            raise ValueError("t_final=None needs output_times; give the end time (s)")
        return float(ts[0]), float(ts[-1])
    try:
        t1 = float(t_final)
    except (TypeError, ValueError):
        raise ValueError(f"t_final={t_final!r} is not a number; give the end time (s)") \
            from None
    if not math.isfinite(t1):
        raise ValueError(f"t_final={t_final} is not finite; give a finite end time (s)")
    if ot is None:
        if not t1 > t0:
            raise ValueError(f"t_final must be > {t0:g}, got {t_final}" if t0
                             else f"t_final must be > 0, got {t_final}")
        return t0, t1
    if ts[-1] > t1 + 1e-12 * max(1.0, abs(t1)):
        # the smooth and event drivers ran to output_times[-1], the stepping ones stopped
        # at t_final and returned it in place of the later output times
        raise ValueError(f"output_times[-1] = {ts[-1]:g} is past t_final = {t1:g}; give "
                         "t_final >= the last output time (or t_final=None)")
    return float(ts[0]), t1


def check_call(system, t_final, method, options):
    """Check a simulate call before any work: the method's name, its option names
    (:func:`check_options`), the horizon, contacts against a smooth-only method, and the
    values of parameters, inputs, tolerances, ``dt`` and ``max_events``
    (:func:`check_values`).

    Returns
    -------
    (driver, t0, t1)
        The method's driver and the run's start and end times.

    Raises
    ------
    ValueError
        An unknown method (listing the available ones); a ``t_final`` or ``output_times``
        that is not finite, not increasing or empty; a model with contacts and a method of
        ``SMOOTH_ONLY`` (naming the contacts and the methods that handle them); a value
        :func:`check_values` refuses (naming the argument, its value and the fix).
    TypeError
        An unknown option name.
    """
    try:
        driver = METHODS[method]
    except (KeyError, TypeError):
        raise ValueError(f"unknown simulation method {method!r}; available: "
                         f"{', '.join(sorted(METHODS))}") from None
    check_options(method, options)
    contacts = list(getattr(system, "contact_names", ()) or ())
    if contacts and method in SMOOTH_ONLY:
        others = [m for m in sorted(METHODS) if m not in SMOOTH_ONLY]
        raise ValueError(
            f"{getattr(system, 'name', 'model')}: method {method!r} integrates the smooth "
            f"equations only and would ignore the contact{'s' if len(contacts) > 1 else ''} "
            f"{', '.join(map(repr, contacts))}; use a method that handles contacts: "
            f"{', '.join(others)} (default 'auto')")
    t0, t1 = _horizon(t_final, options)
    if t0 != 0.0 and method in FROM_ZERO:
        # the smooth and event drivers start at output_times[0] (q0, v0 the state there);
        # these step from t = 0: the same call gave a run shifted in time
        raise ValueError(
            f"{getattr(system, 'name', 'model')}: output_times[0] = {t0:g}: a run starts at "
            f"its first output time (q0, v0 are the state there), and method {method!r} "
            "steps from t = 0 only; give output times from 0 (and drop the early ones from "
            "the result), or use method 'event' or 'auto'")
    check_values(system, t0, t1, method, options)
    return driver, t0, t1


#: methods whose runs start at t = 0 (the others start at ``output_times[0]``)
FROM_ZERO = frozenset({"timestepping", "moreau", "unified"})


#: largest |time| (s) of a run: at 1e15 s a double resolves 0.125 s, and past ~1e154 the
#: integrators' step-size estimates square the horizon and overflow (t_final=1e300 gave
#: CVODES "CV_ILL_INPUT" and an OverflowError in time stepping)
MAX_TIME = 1e15

#: most steps a fixed-step run ("timestepping", "moreau", "unified") may take (at ~1 us a
#: step, 1e9 steps are ~20 min; dt=1e-12 over 1 s gave an OverflowError)
MAX_STEPS = 1e9


def _real(name, val):
    """``float(val)`` of a real number (not a string, bool or array), else ValueError."""
    if isinstance(val, (str, bytes, bool)) or np.ndim(val) != 0:
        raise ValueError(f"{name}={val!r} is not a number; give a float")
    try:
        return float(val)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={val!r} is not a number; give a float") from None


def _check_params(system, params):
    """Parameter values: numbers, not NaN; inf only for a contact's friction coefficient
    (friction = inf: no sliding)."""
    if not params or not isinstance(params, dict):
        return
    from ..symbolic.system import _number
    friction = set()
    for c in getattr(system, "contacts", ()) or ():
        f = c.get("friction")
        try:
            import casadi as ca
            friction.update(v.name() for v in ca.symvar(ca.SX(f)))
        except Exception:                  # a plain number or no CasADi expression
            pass
    model = getattr(system, "name", "model")
    for k, v in params.items():
        x = v if type(v) is float else _number(v, "params", k, model)
        if math.isfinite(x) or (math.isinf(x) and k in friction):
            continue
        raise ValueError(f"params: value of {k!r} is {'NaN' if x != x else x} for model "
                         f"'{model}'; give a finite number" + (
                             " (inf is taken only by a contact's friction coefficient: no "
                             "sliding)" if math.isinf(x) else ""))


def _check_inputs(system, inputs, t0, t1):
    """Input values: constants and samples finite; a function of time finite at the
    start, middle and end of the run (where it can be evaluated on a float)."""
    if not inputs or not isinstance(inputs, dict):
        return
    model = getattr(system, "name", "model")
    for k, spec in inputs.items():
        if callable(spec) and not hasattr(spec, "sparsity"):
            for t in (t0, 0.5 * (t0 + t1), t1):
                try:
                    val = np.asarray(spec(t), dtype=float)
                except Exception:          # not a float function (CasADi only): the run says
                    break
                if val.size and not np.all(np.isfinite(val)):
                    raise ValueError(f"inputs: function of input {k!r} of model '{model}' "
                                     f"returns {val.ravel()[0]} at t = {t:g}; it must "
                                     "return finite values over the run")
            continue
        if hasattr(spec, "sparsity"):      # a CasADi expression
            continue
        try:
            arr = np.asarray(spec, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"inputs: value of {k!r} for model '{model}' is {spec!r}, not "
                             "a number, (t, value) samples or a function of t") from None
        bad = np.flatnonzero(~np.isfinite(arr.ravel()))
        if bad.size:
            what = "value" if arr.ndim == 0 else f"sample (row {bad[0] // max(arr.shape[-1], 1)})"
            raise ValueError(f"inputs: {what} of {k!r} for model '{model}' is "
                             f"{arr.ravel()[bad[0]]}; give finite numbers")


def _check_tolerances(options):
    """rtol in (0, 1), atol > 0, both finite numbers (array atol: each entry)."""
    rtol = options.get("rtol")
    if rtol is not None:
        r = _real("rtol", rtol)
        if not 0.0 < r < 1.0:
            raise ValueError(f"rtol={rtol!r}: the relative tolerance must be a number in "
                             "(0, 1), e.g. rtol=1e-8")
    atol = options.get("atol")
    if atol is not None:
        if isinstance(atol, (str, bytes, bool)):
            raise ValueError(f"atol={atol!r} is not a number; give a float, e.g. atol=1e-10")
        try:
            a = np.asarray(atol, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"atol={atol!r} is not a number; give a float, e.g. "
                             "atol=1e-10") from None
        if a.size == 0 or not np.all(np.isfinite(a) & (a > 0)):
            raise ValueError(f"atol={atol!r}: the absolute tolerance must be a finite "
                             "number > 0, e.g. atol=1e-10")


def check_values(system, t0, t1, method, options):
    """Refuse values no run can use, before any work: a horizon past :data:`MAX_TIME`,
    non-finite parameters (inf only for a friction coefficient) or inputs, tolerances
    outside their range, a step ``dt`` that is not positive or gives more than
    :data:`MAX_STEPS` steps, a ``max_events`` below 1.

    Raises
    ------
    ValueError
        Naming the argument (and the parameter or input), its value and the fix.
    """
    for name, t in (("t0", t0), ("t_final", t1)):
        if abs(t) > MAX_TIME:
            raise ValueError(f"{name}={t:g} s is beyond {MAX_TIME:g} s: a double resolves "
                             f"only {np.spacing(abs(t)):.3g} s there and the integrators' "
                             "step-size estimates overflow; give a horizon <= "
                             f"{MAX_TIME:g} s (or rescale the model's time unit)")
    _check_params(system, options.get("params"))
    _check_inputs(system, options.get("inputs"), t0, t1)
    _check_tolerances(options)
    dt = options.get("dt")
    if dt is not None:
        d = _real("dt", dt)
        if not (math.isfinite(d) and d > 0):
            raise ValueError(f"dt={dt!r}: the step must be a finite number > 0 (s)")
        steps = (t1 - t0) / d
        if method in ("timestepping", "moreau", "unified") and steps > MAX_STEPS:
            raise ValueError(f"dt={dt!r} over [{t0:g}, {t1:g}] s is {steps:.3g} steps (at "
                             f"most {MAX_STEPS:.0e}); give a larger dt, e.g. "
                             f"dt={(t1 - t0) / 1e6:.3g} for 1e6 steps")
    me = options.get("max_events")
    if me is not None:
        m = _real("max_events", me)
        if not (m >= 1 and m == int(m)):
            raise ValueError(f"max_events={me!r}: the most events a run may take must be "
                             "a whole number >= 1 (default 20,000 for 'event')")
