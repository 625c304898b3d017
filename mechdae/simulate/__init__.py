"""Simulation drivers, dispatched by method name, and the Result.

``METHODS`` maps a method name to a driver ``f(system, t_final, **kw) -> Result``.
Smooth methods live here (``"auto"``, ``"smooth"``, ``"cvodes"``, ``"idas"``); hybrid
drivers (events, time stepping, ...) add themselves with :func:`register_method`.

The dispatcher :func:`simulate` checks a call before any work, the same way for every
method: the option names (``OPTIONS``: each method's own; ``COMMON``: the arguments of
:meth:`System.simulate` every method takes), the horizon (``t_final`` and
``output_times`` finite, increasing), and that a model with contacts does not go to a
method that integrates the smooth equations only (``SMOOTH_ONLY``); and the values of
parameters, inputs and tolerances (:mod:`.checks`).
"""
import inspect

from .. import _progress
from .result import Result, Event
from .smooth import simulate_smooth

__all__ = ["simulate", "Result", "Event", "METHODS", "OPTIONS", "COMMON", "register_method",
           "check_options", "check_call", "check_values", "MAX_TIME", "MAX_STEPS"]

METHODS = {
    "auto": simulate_smooth,
    "smooth": simulate_smooth,
    "cvodes": simulate_smooth,
    "idas": simulate_smooth,
}

#: methods that integrate the smooth equations only: a model with contacts is refused
#: there (its contacts would be ignored), naming the methods that handle them
SMOOTH_ONLY = frozenset({"smooth", "cvodes", "idas"})

#: arguments of :meth:`System.simulate` that every method takes (a method with no use for
#: one ignores it as documented there, e.g. ``rtol`` of a fixed-step method)
COMMON = frozenset({"q0", "v0", "params", "inputs", "method", "rtol", "atol", "output_times",
                    "initialize", "stabilization"})


def _driver_options(driver, extra=()):
    """Names a driver takes: its named keyword parameters (after ``system, t_final``) and
    ``extra`` (what it reads from ``**kw``)."""
    params = list(inspect.signature(driver).parameters.values())[2:]
    named = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return frozenset(named | set(extra)) - COMMON


#: method name -> the option names it takes besides ``COMMON`` (see :func:`register_method`)
OPTIONS = {name: _driver_options(drv) for name, drv in METHODS.items()}


def register_method(name, driver, options=()):
    """Register a simulation driver ``driver(system, t_final, **kw) -> Result`` by name.

    Parameters
    ----------
    name : str
    driver : callable
    options : iterable of str
        Option names the driver reads from ``**kw`` (its named keyword parameters are
        taken from its signature). :func:`simulate` refuses any other name for this method.
    """
    METHODS[str(name)] = driver
    OPTIONS[str(name)] = _driver_options(driver, options)


#: methods whose drivers integrate chunk by chunk with ``out=`` (memory bounded by the
#: chunk); "auto" streams when it delegates to the smooth driver (no contacts)
STREAMING = {"smooth", "cvodes", "idas", "timestepping", "moreau"}

from .checks import (MAX_STEPS, MAX_TIME, check_call, check_options,  # noqa: E402
                     check_values)


def simulate(system, t_final, method="auto", out=None, chunk=None, progress=None, **kw):
    """Dispatch ``System.simulate`` to the driver registered for ``method``.

    ``rtol`` / ``atol`` left at ``None`` are not passed on, so each driver applies its own
    default tolerances.

    ``out``: an HDF5 file (``.h5``) to write the run to. The smooth and time-stepping
    methods (and "auto" without contacts) stream it, ``chunk`` output points at a time
    (default 100,000), and return a Result reading the file lazily; the other methods
    write their Result when done. A failed run leaves its points up to the failure in the
    file (status ``"failed"``) and in ``err.partial``.

    ``progress``: a tqdm bar over simulated time on runs longer than a second
    (:mod:`mechdae._progress`): None (default) shows it when standard error is a
    terminal, False never, True always (needs tqdm, the ``progress`` extra).

    Raises
    ------
    ValueError
        For an unknown method (the message lists the available ones), a non-finite or
        empty horizon (``t_final``, ``output_times``), a model with contacts given to a
        smooth-only method ("smooth", "cvodes", "idas"; the message names the contacts
        and the methods that handle them); a non-finite parameter (inf only for a
        friction coefficient) or input, ``rtol`` outside (0, 1), ``atol`` not > 0, a
        ``dt`` not > 0 or giving more than ``MAX_STEPS`` steps, ``max_events`` < 1, a
        horizon past ``MAX_TIME`` (:func:`check_values`).
    TypeError
        For an option the method does not take (the message names it, a close match and
        the method's options).
    """
    for k in ("rtol", "atol"):
        if k in kw and kw[k] is None:
            del kw[k]
    driver, t0, t1 = check_call(system, t_final, method, kw)
    if t_final is None:             # output_times given: every driver gets their end
        t_final = t1
    with _progress.running(getattr(system, "name", "") or "simulate", t0, t1, progress):
        return _dispatch(system, driver, t_final, method, out, chunk, kw)


def _dispatch(system, driver, t_final, method, out, chunk, kw):
    if out is None:
        if chunk is not None:
            raise ValueError("chunk= applies to a run streamed to a file (out=...)")
        return driver(system, t_final, method=method, **kw)
    from .stream import check_path, h5py_module, write_result
    path = check_path(out)
    h5py_module()                          # a clear ImportError before any work
    if method in STREAMING or (method == "auto" and not system.contact_names):
        return driver(system, t_final, method=method, out=path, chunk=chunk, **kw)
    from ..errors import SolverError
    try:
        res = driver(system, t_final, method=method, **kw)
    except SolverError as err:
        if err.partial is not None:
            write_result(err.partial, path, status="failed", error=err)
        raise
    write_result(res, path)
    return res


# hybrid drivers register themselves on import
from . import event as _event  # noqa: E402,F401  ("event")
from . import hybrid as _hybrid  # noqa: E402,F401  ("auto": event-driven + time stepping)
from . import timestepping as _timestepping  # noqa: E402,F401  ("timestepping", Moreau-Jean)
from . import unified as _unified  # noqa: E402,F401  ("unified", seed 003 (s, v) form)
