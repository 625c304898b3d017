"""Simulation drivers, dispatched by method name, and the Result.

``METHODS`` maps a method name to a driver ``f(system, t_final, **kw) -> Result``.
Smooth methods live here (``"auto"``, ``"smooth"``, ``"cvodes"``, ``"idas"``); hybrid
drivers (events, time stepping, ...) add themselves with :func:`register_method`.
"""
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


def simulate(system, t_final, method="auto", **kw):
    """Dispatch ``System.simulate`` to the driver registered for ``method``.

    ``rtol`` / ``atol`` left at ``None`` are not passed on, so each driver applies its own
    default tolerances.

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
    return driver(system, t_final, method=method, **kw)


# hybrid drivers register themselves on import
from . import event as _event  # noqa: E402,F401  ("event")
from . import hybrid as _hybrid  # noqa: E402,F401  ("auto": event-driven + time stepping)
from . import timestepping as _timestepping  # noqa: E402,F401  ("timestepping", Moreau-Jean)
from . import unified as _unified  # noqa: E402,F401  ("unified", seed 003 (s, v) form)
