"""Thread safety: the one lock for lazily built shared objects, and buffered calls.

Every public entry point of a System may be called from several threads at once (guide,
section 3, "Threads"). The rules the package follows:

- Compiled pieces (CasADi Functions, integrators, generated C libraries) are built once
  per System and shared; their lazy construction happens under :data:`LOCK` (an RLock:
  a build may build other pieces).
- Anything written during an evaluation is per call or per thread: numpy work arrays,
  ``Function.buffer()`` objects, bound C workspaces (per-thread ``threading.local``
  workspaces where allocating per call would cost too much, e.g. the impact fast path).
- A CasADi Function with state in its memory (integrators) is never called directly
  (``F(...)`` uses shared memory, so concurrent calls corrupt each other): it is
  evaluated through a buffer of its own per call (:func:`call_buffered`), which checks
  out a private memory.
- The C kernels keep no static mutable state; their workspaces are per call.
"""
import threading

import numpy as np

__all__ = ["LOCK", "call_buffered"]

LOCK = threading.RLock()
"""Serializes the lazy construction of objects shared between threads (never held during
an evaluation)."""


def call_buffered(F, args):
    """Evaluate the CasADi Function ``F`` on a buffer (private memory) of its own.

    Parameters
    ----------
    F : casadi.Function
        Dense inputs and outputs.
    args : dict name -> array-like
        Inputs by name (missing ones are zero).

    Returns
    -------
    out : dict name -> ndarray
        Outputs by name, shaped as ``F``'s outputs (2-D).
    stats : dict
        ``F``'s statistics of this evaluation.

    Raises
    ------
    RuntimeError
        As a direct call of ``F`` would.
    """
    buf, ev = F.buffer()
    keep = []
    for i, name in enumerate(F.name_in()):
        x = args.get(name)
        n = F.nnz_in(i)
        a = np.zeros(n) if x is None else np.array(x, dtype=float, order="F").ravel(order="F")
        if a.size != n:
            raise ValueError(f"{F.name()}: input {name!r} has {a.size} values, expected {n}")
        keep.append(a)
        if n:
            buf.set_arg(i, memoryview(a))
    outs = {}
    for i, name in enumerate(F.name_out()):
        sp = F.sparsity_out(i)
        r = np.zeros(sp.nnz())
        keep.append(r)
        if sp.nnz():
            buf.set_res(i, memoryview(r))
        outs[name] = (r, sp)
    ev()
    res = {}
    for name, (r, sp) in outs.items():
        if sp.is_dense():
            res[name] = r.reshape((sp.size1(), sp.size2()), order="F")
        else:
            d = np.zeros((sp.size1(), sp.size2()))
            d[np.array(sp.row(), int), np.array(sp.get_col(), int)] = r
            res[name] = d
    return res, dict(buf.stats())
