"""Nothing lost: a run that fails part-way raises with the Result computed so far.

Every driver catches its :class:`mechdae.SolverError` (``PainleveError``,
``EnergyGainError`` and integrator failures included), builds a Result from the output
points it completed and attaches it as ``err.partial`` before re-raising. Drivers that
hold their state in an object (the event engine of ``"event"`` and ``"auto"``) register a
builder with :func:`on_failure`; :func:`keeps_partial` wraps the driver and calls it.
"""
import contextvars
import functools

import numpy as np

from ..errors import SolverError

__all__ = ["attach", "on_failure", "keeps_partial", "finite_prefix", "seeded"]

_BUILDER = contextvars.ContextVar("mechdae_partial_builder", default=None)


def attach(err, build):
    """Set ``err.partial = build()``; a builder that fails leaves ``err.partial = None``
    and the reason in ``err.partial_error`` (the original error is what matters)."""
    try:
        res = build()
    except Exception as exc:  # noqa: BLE001 - never mask the run's own error
        err.partial, err.partial_error = None, exc
        return err
    if res is not None:
        res.stats["failed"] = f"{type(err).__name__}: {err}"
    err.partial = res
    return err


def on_failure(build):
    """Register ``build(err) -> Result`` for the driver call running in this context."""
    slot = _BUILDER.get()
    if slot is not None:
        slot[0] = build


def keeps_partial(driver):
    """Wrap a driver so that a SolverError leaves with ``err.partial`` (the Result of the
    builder the driver registered with :func:`on_failure`, which sees ``err`` and any
    partial Result of a nested driver in ``err.partial``)."""
    @functools.wraps(driver)
    def run(*args, **kw):
        slot = [None]
        token = _BUILDER.set(slot)
        try:
            return driver(*args, **kw)
        except SolverError as err:
            if slot[0] is not None:
                build = slot[0]
                attach(err, lambda: build(err))
            raise
        except RuntimeError as exc:
            # an integrator failure (CasADi) is a solver failure of the run
            name = getattr(args[0], "name", "") if args else ""
            err = SolverError(f"{name}: {kw.get('method', 'simulation')} failed: {exc}")
            if slot[0] is not None:
                build = slot[0]
                attach(err, lambda: build(err))
            raise err from exc
        finally:
            _BUILDER.reset(token)
    run.__wrapped__ = driver
    return run


def finite_prefix(*arrays):
    """Number of leading rows at which every array is finite (rows along axis 0)."""
    n = None
    for a in arrays:
        a = np.asarray(a, float)
        ok = np.isfinite(a.reshape(a.shape[0], -1)).all(axis=1) if a.ndim > 1 else np.isfinite(a)
        k = int(ok.size if ok.all() else np.argmin(ok))
        n = k if n is None else min(n, k)
    return 0 if n is None else n


def seeded(engine, t0, x0):
    """``engine`` (an event engine) with at least its initial state recorded: a failure
    before the first record (in the initial mode decision) keeps the point ``(t0, x0)``."""
    if not engine.samples_t:
        engine.samples_t.append(float(t0))
        engine.samples_x.append(np.asarray(x0, float).copy())
        engine.samples_mode.append(None)
    return engine
