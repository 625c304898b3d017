"""Progress bars on long runs (tqdm, the ``progress`` extra), off when not a terminal.

A driver does not take the bar as an argument: :func:`running` opens it around a run
(``simulate()`` and sweeps do), and the driver reports how far it got with
:func:`advance` wherever it naturally stops (an integrator chunk, a C loop call, an
event). :func:`shown` tells a driver whether a bar is on screen, so a driver that would
otherwise integrate in one call may cut the run into chunks only then::

    with running("bouncing_ball", 0.0, 5.0, progress=None):   # None: on in a terminal
        ...
        advance(t)                                             # simulated time reached

The bar appears only when the run lasts longer than :data:`DELAY` (1 s) of wall time,
and never when ``progress=False``, when standard error is not a terminal (logs, CI,
pipes) or when tqdm is not installed (``pip install 'mechdae[progress]'``);
``progress=True`` shows it on any stream but still needs tqdm. Bars nest per thread: a
sweep's bar counts runs, the run inside it does not open a second one.
"""
import contextlib
import sys
import threading

__all__ = ["running", "advance", "shown", "enabled", "DELAY"]

#: Wall time (s) after which a bar appears: short runs print nothing.
DELAY = 1.0

_local = threading.local()


def enabled(progress=None, stream=None):
    """Whether a bar would be drawn: ``progress`` True / False, or None (default): on
    when ``stream`` (standard error) is a terminal and tqdm is importable."""
    if progress is False:
        return False
    if progress is not None and progress is not True:
        raise ValueError(f"progress must be True, False or None (a terminal decides), "
                         f"got {progress!r}")
    stream = sys.stderr if stream is None else stream
    if progress is None:
        try:
            if not stream.isatty():
                return False
        except (AttributeError, ValueError):
            return False
    try:
        import tqdm  # noqa: F401
    except ImportError:
        if progress is True:
            raise ImportError("progress=True needs tqdm: pip install 'mechdae[progress]'") \
                from None
        return False
    return True


class _Bar:
    """One tqdm bar over simulated time ``[t0, t1]`` (or a count of items)."""

    def __init__(self, desc, t0, t1, unit, stream):
        from tqdm.auto import tqdm
        self.t0, self.t1 = float(t0), float(t1)
        self.last = self.t0
        total = self.t1 - self.t0
        if unit != "s" and total == int(total):
            total = int(total)               # a count of items: "32/40", not "32.0/40.0"
        fmt = ("{desc}: {percentage:3.0f}%|{bar}| t = {n:.4g}/{total:.4g} s "
               "[{elapsed}<{remaining}]") if unit == "s" else None
        kw = dict(bar_format=fmt) if fmt else {}
        self.tq = tqdm(total=total, desc=desc, unit=unit, delay=DELAY, file=stream,
                       leave=False, dynamic_ncols=True, **kw)

    def advance(self, t):
        t = min(float(t), self.t1)
        if t > self.last:
            step = t - self.last
            self.tq.update(int(step) if isinstance(self.tq.total, int) and step == int(step)
                           else step)
            self.last = t

    def close(self):
        self.tq.close()


def _stack():
    s = getattr(_local, "stack", None)
    if s is None:
        s = _local.stack = []
    return s


@contextlib.contextmanager
def running(desc, t0, t1, progress=None, unit="s", stream=None):
    """Open a bar for a run from ``t0`` to ``t1`` (simulated seconds, or items with
    ``unit="run"``) unless one is open already in this thread or it is disabled (see
    :func:`enabled`). Yields the bar or None."""
    stack = _stack()
    if stack or not enabled(progress, stream):
        stack.append(None)
        try:
            yield None
        finally:
            stack.pop()
        return
    bar = _Bar(desc, t0, t1, unit, sys.stderr if stream is None else stream)
    stack.append(bar)
    try:
        yield bar
    finally:
        stack.pop()
        bar.close()


def _current():
    stack = _stack()
    return stack[0] if stack else None


def advance(t):
    """Report the simulated time (or item count) reached; a no-op without a bar."""
    bar = _current()
    if bar is not None and len(_stack()) == 1:
        bar.advance(t)


def shown():
    """Whether the run of this thread reports to a bar (drivers may then chunk)."""
    return _current() is not None and len(_stack()) == 1
