"""Nothing lost: a run that fails part-way raises with the Result computed so far.

Every driver catches its :class:`mechdae.SolverError` (``PainleveError``,
``EnergyGainError`` and integrator failures included), builds a Result from the output
points it completed and attaches it as ``err.partial`` before re-raising. Drivers that
hold their state in an object (the event engine of ``"event"`` and ``"auto"``) register a
builder with :func:`on_failure`; :func:`keeps_partial` wraps the driver and calls it.

Ctrl-C is a :class:`KeyboardInterrupt` with the same ``partial``. CasADi's integrators
poll Python's signals (``PyErr_CheckSignals``) in each right-hand side call, but CVODES
takes the raised interrupt for an unrecoverable right-hand side failure (``CV_RHSFUNC_FAIL``,
a ``RuntimeError``; the word "KeyboardInterrupt" only reaches stderr). While a driver
runs, :func:`keeps_partial` therefore counts the SIGINTs it sees (:func:`sigints`, a
handler that counts and then calls the one it replaced) so that a failed integrator call
can tell an interrupt (:func:`interrupted_since`) from a solver failure.
"""
import contextlib
import contextvars
import functools
import signal
import threading

import numpy as np

from ..errors import SolverError

__all__ = ["attach", "on_failure", "keeps_partial", "finite_prefix", "seeded", "sigints",
           "counting_sigints", "sigint_count", "interrupted_since", "interrupt", "named",
           "reraise_swallowed", "interrupted_error"]

_BUILDER = contextvars.ContextVar("mechdae_partial_builder", default=None)
_SIGINTS = [0]            # SIGINTs seen by the counting handler (while a driver runs)


def _counting(prev):
    def handler(signum, frame):
        _SIGINTS[0] += 1
        prev(signum, frame)
    handler.mechdae_counting = True
    return handler


@contextlib.contextmanager
def sigints():
    """Count SIGINTs (:func:`interrupted_since`) while the block runs: the SIGINT handler
    in force (Python's default raises ``KeyboardInterrupt``) is wrapped by one that counts
    first. Only the main thread receives signals; elsewhere, or under a handler that is
    not a Python function (``SIG_IGN``), or inside another such block, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    prev = signal.getsignal(signal.SIGINT)
    if not callable(prev) or getattr(prev, "mechdae_counting", False):
        yield
        return
    signal.signal(signal.SIGINT, _counting(prev))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, prev)


def counting_sigints(driver):
    """Decorate a driver to run inside :func:`sigints`."""
    @functools.wraps(driver)
    def run(*args, **kw):
        with sigints():
            return driver(*args, **kw)
    return run


def sigint_count():
    """The number of SIGINTs counted so far (compare with :func:`interrupted_since`)."""
    return _SIGINTS[0]


def interrupted_since(count):
    """Whether a SIGINT arrived since :func:`sigint_count` returned ``count``."""
    return _SIGINTS[0] != count


def reraise_swallowed(count, what):
    """Raise ``KeyboardInterrupt`` (``what`` was interrupted) when a SIGINT was counted
    since ``count`` but its KeyboardInterrupt never surfaced: raised inside a weakref
    callback or a ``__del__`` (h5py's, while a chunk is written), Python prints it as
    "Exception ignored" and goes on. Drivers call this between chunks."""
    if interrupted_since(count):
        raise KeyboardInterrupt(f"{what}: interrupted (Ctrl-C)")


def interrupted_error(count, exc, what):
    """The KeyboardInterrupt to raise for an integrator failure ``exc`` that Ctrl-C caused
    (a SIGINT counted since ``count``: CasADi's polled interrupt reaches CVODES as a
    right-hand side failure), else None."""
    if not interrupted_since(count) or isinstance(exc, KeyboardInterrupt):
        return None
    return KeyboardInterrupt(f"{what}: interrupted (Ctrl-C)")


def named(err, what):
    """``err``, or for a bare KeyboardInterrupt (Python's handler: no message) a new one
    saying ``what`` was interrupted (Ctrl-C)."""
    if isinstance(err, KeyboardInterrupt) and not err.args:
        new = KeyboardInterrupt(f"{what}: interrupted (Ctrl-C)")
        new.__cause__ = err.__cause__
        new.__context__ = err.__context__
        return new.with_traceback(err.__traceback__)
    return err


def interrupt(what, build=None):
    """A :class:`KeyboardInterrupt` naming ``what`` was interrupted, with ``partial`` the
    Result of ``build()`` (``res.stats["interrupted"]`` says where)."""
    err = KeyboardInterrupt(f"{what}: interrupted (Ctrl-C)")
    err.partial = None
    if build is not None:
        attach(err, build)
    return err


def attach(err, build):
    """Set ``err.partial = build()``; a builder that fails leaves ``err.partial = None``
    and the reason in ``err.partial_error`` (the original error is what matters)."""
    try:
        res = build()
    except Exception as exc:  # noqa: BLE001 - never mask the run's own error
        err.partial, err.partial_error = None, exc
        return err
    if res is not None:
        key = "interrupted" if isinstance(err, KeyboardInterrupt) else "failed"
        res.stats[key] = f"{type(err).__name__}: {err}"
    err.partial = res
    return err


def on_failure(build):
    """Register ``build(err) -> Result`` for the driver call running in this context."""
    slot = _BUILDER.get()
    if slot is not None:
        slot[0] = build


def keeps_partial(driver):
    """Wrap a driver so that a SolverError or a KeyboardInterrupt leaves with
    ``err.partial`` (the Result of the builder the driver registered with
    :func:`on_failure`, which sees ``err`` and any partial Result of a nested driver in
    ``err.partial``); SIGINTs are counted while it runs (:func:`sigints`)."""
    @functools.wraps(driver)
    def run(*args, **kw):
        slot = [None]
        token = _BUILDER.set(slot)
        try:
            with sigints():
                return driver(*args, **kw)
        except KeyboardInterrupt as exc:
            name = getattr(args[0], "name", "") if args else ""
            err = named(exc, f"{name}: {kw.get('method', 'simulation')} run")
            if not hasattr(err, "partial"):
                err.partial = None                    # (as SolverError's: builders read it)
            if slot[0] is not None and err.partial is None:
                build = slot[0]
                attach(err, lambda: build(err))
            if err is exc:
                raise
            raise err from exc.__cause__
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
