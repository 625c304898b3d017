"""Simulation drivers, dispatched by method name, and the Result.

``METHODS`` maps a method name to a driver ``f(system, t_final, **kw) -> Result``.
Smooth methods live here (``"auto"``, ``"smooth"``, ``"cvodes"``, ``"idas"``); hybrid
drivers (events, time stepping, ...) add themselves with :func:`register_method`.
"""
import numpy as np

from .. import _progress
from .result import Result, Event
from .smooth import simulate_smooth

__all__ = ["simulate", "Result", "Event", "METHODS", "register_method"]

METHODS = {
    "auto": simulate_smooth,
    "smooth": simulate_smooth,
    "cvodes": simulate_smooth,
    "idas": simulate_smooth,
}


def register_method(name, driver):
    """Register a simulation driver ``driver(system, t_final, **kw) -> Result`` by name."""
    METHODS[str(name)] = driver


#: methods whose drivers integrate chunk by chunk with ``out=`` (memory bounded by the
#: chunk); "auto" streams when it delegates to the smooth driver (no contacts)
STREAMING = {"smooth", "cvodes", "idas", "timestepping", "moreau"}


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
        For an unknown method (the message lists the available ones).
    """
    for k in ("rtol", "atol"):
        if k in kw and kw[k] is None:
            del kw[k]
    try:
        driver = METHODS[method]
    except (KeyError, TypeError):
        raise ValueError(f"unknown simulation method {method!r}; available: "
                         f"{', '.join(sorted(METHODS))}") from None
    try:
        ot = kw.get("output_times")
        ot = None if ot is None else np.asarray(ot, dtype=float).ravel()
        t0 = float(ot[0]) if ot is not None and ot.size else float(kw.get("t0", 0.0))
        t1 = float(t_final) if t_final is not None else float(ot[-1])
    except (TypeError, ValueError, IndexError):
        t0 = t1 = 0.0                  # the driver reports the bad t_final / output_times
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
