"""Generated C for CasADi Functions, compiled once and cached on disk.

One mechanism for every method that evaluates a model in an inner loop (smooth simulation,
time stepping, the unified equations): :func:`library` writes the C code of a list of
CasADi Functions (``casadi.CodeGenerator``), compiles it with the system C compiler into a
shared library, and caches the library on disk under a hash of the generated source, the
compiler command and the CasADi version; a second run or a second process loads the same
file without compiling. The code then runs without Python: cvodes and idas call it through
:meth:`Library.external` (a ``casadi.external`` Function), the C stepping loop through the
symbol addresses of :meth:`Library.symbol`.

Sources past :data:`MAX_SOURCE` characters are not compiled under ``compiled="auto"``
(the compiler's time would outweigh the run: long chains), those past
:data:`LARGE_SOURCE` at ``-O1``. With no working C compiler (``CC`` naming a missing
program, none on ``PATH``, or a compile error) ``compiled="auto"`` returns None after one :class:`CodegenWarning` per
process, and the callers evaluate the CasADi Function objects instead (same results, to
roundoff; slower).

Environment:

* ``CC``: the compiler command (default ``cc``, ``gcc`` or ``clang`` from ``PATH``);
* ``MECHDAE_CACHE``: the cache folder (default ``$XDG_CACHE_HOME/mechdae/codegen`` or
  ``~/.cache/mechdae/codegen``);
* ``MECHDAE_CODEGEN=0``: never compile (the Function objects everywhere, no warning).

Writes are safe across threads (one compile per key at a time in a process) and processes
(each compiles in a temporary folder of its own and moves the library in place with an
atomic ``os.replace``; a reader sees no file or a whole one).
"""
import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
import warnings

import casadi as ca
import numpy as np

__all__ = ["library", "Library", "available", "cache_dir", "map_call", "CodegenWarning"]

_LOCK = threading.Lock()
_KEY_LOCKS = {}
_LOADED = set()           # libraries known to exist (no stat per call)
_WARNED = []
_OPTIONS = {"casadi_int": "long long", "with_header": False}


class CodegenWarning(UserWarning):
    """Generated C is unavailable: models are evaluated through CasADi Function objects."""


def cache_dir():
    """The folder of the compiled libraries (created on first use)."""
    base = os.environ.get("MECHDAE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "mechdae", "codegen")
    os.makedirs(base, exist_ok=True)
    return base


def _compiler():
    """The compiler command as a list, or OSError naming what is missing."""
    cc = os.environ.get("CC")
    if cc:
        cmd = cc.split()
        if shutil.which(cmd[0]) is None:
            raise OSError(f"the C compiler CC={cc!r} is not found")
        return cmd
    for name in ("cc", "gcc", "clang"):
        if shutil.which(name):
            return [name]
    raise OSError("no C compiler on PATH (install one, or set CC)")


def available():
    """Whether generated C can be used (codegen not disabled, a compiler is found)."""
    if os.environ.get("MECHDAE_CODEGEN", "1") == "0":
        return False
    try:
        _compiler()
    except OSError:
        return False
    return True


class Library:
    """A compiled shared library of generated Functions.

    Attributes
    ----------
    path : str
        The library file in the cache.
    key : str
        The content hash it is stored under.
    functions : dict name -> casadi.Function
        The Functions it was generated from (sizes of their work arrays).
    """

    def __init__(self, path, key, functions):
        self.path, self.key = path, key
        self.functions = {f.name(): f for f in functions}
        self._cdll = None

    @property
    def cdll(self):
        """The library loaded with ctypes (once)."""
        if self._cdll is None:
            self._cdll = ctypes.CDLL(self.path)
        return self._cdll

    def symbol(self, name):
        """``(address, (sz_arg, sz_res, sz_iw, sz_w), n_in, n_out)`` of the generated C
        function ``name`` (the calling convention of CasADi's generated code)."""
        f = self.functions[name]
        addr = ctypes.cast(getattr(self.cdll, name), ctypes.c_void_p).value
        return addr, (f.sz_arg(), f.sz_res(), f.sz_iw(), f.sz_w()), f.n_in(), f.n_out()

    def external(self, name, opts=None):
        """The generated function ``name`` as a CasADi Function (``casadi.external``)."""
        return ca.external(name, self.path, dict(opts or {}))

    def __repr__(self):
        return f"Library({self.key}: {', '.join(self.functions)})"


def _warn(what, exc):
    if not _WARNED:
        _WARNED.append(True)
        warnings.warn(f"mechdae: generated C unavailable for {what} ({exc}); models are "
                      "evaluated through CasADi Function objects (same results, slower). "
                      "Install a C compiler or set CC to use it; MECHDAE_CODEGEN=0 silences "
                      "this.", CodegenWarning, stacklevel=3)


def library(functions, compiled="auto", what="the model", flags=("-O2",),
            jac_sparsity=False):
    """Generated C of ``functions``, compiled once (cached by content hash) and loaded.

    Parameters
    ----------
    functions : list of casadi.Function
        Named uniquely; their names are the C symbols.
    compiled : "auto", True or False
        ``"auto"``: None with one warning per process when no compiler works; True:
        raise instead; False: None (the caller uses the Function objects).
    what : str
        What the code is for (in the warning).
    flags : tuple of str
        Compiler flags (part of the hash).
    jac_sparsity : bool
        Also generate the Jacobian sparsity patterns (``casadi.external`` reads them:
        finite-difference Jacobians then seed only the structurally coupled columns).

    Returns
    -------
    Library or None

    Raises
    ------
    OSError, RuntimeError
        With ``compiled=True`` when no compiler is found or compiling fails.
    """
    if compiled is False or (compiled == "auto"
                             and os.environ.get("MECHDAE_CODEGEN", "1") == "0"):
        return None
    try:
        return _build(list(functions), tuple(flags), bool(jac_sparsity), compiled is True)
    except _TooLarge:
        return None
    except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
        if compiled is True:
            raise
        _warn(what, exc)
        return None


def once(cache, key, build):
    """``cache[key]``, built by ``build()`` on first use under the package lock (the
    per-System caches of compiled evaluators: one build when threads race)."""
    out = cache.get(key)
    if out is None:
        from ._threads import LOCK
        with LOCK:
            out = cache.get(key)
            if out is None:
                out = cache[key] = build()
    return out


_MAPS = {}
_MAPS_MAX = 256


def map_call(f, n, args, reduce_in=()):
    """``f`` evaluated at ``n`` points in one call: a serial ``Function.map`` (built once
    per function and ``n``, kept in a small cache) on buffers of this call (numpy arrays
    are handed over without conversion to DM; safe across threads).

    Parameters
    ----------
    f : casadi.Function
    n : int
    args : list of arrays
        Input ``i`` as ``(f.numel_in(i), n)`` (one column per point) or, for ``i`` in
        ``reduce_in``, ``f.numel_in(i)`` values shared by every point.

    Returns
    -------
    list of arrays ``(f.numel_out(j), n)``
    """
    key = (f.__hash__(), f.name(), n)
    entry = _MAPS.get(key)
    if entry is None or entry[0] is not f:
        m = f.map(int(n), "serial")       # (reduce_in of map() costs O(n) to build)
        entry = (f, m)
        with _LOCK:
            if len(_MAPS) >= _MAPS_MAX:
                _MAPS.clear()
            _MAPS[key] = entry
    m = entry[1]
    buf, ev = m.buffer()
    keep = []
    for i, a in enumerate(args):
        size = m.nnz_in(i)
        if not size:
            continue
        a = np.asarray(a, dtype=float)
        if i in reduce_in:
            a = np.broadcast_to(a.reshape(-1, 1), (a.size, n))
        # one point per column: Fortran order is the points one after another
        flat = np.ascontiguousarray(np.ravel(a, order="F"))
        if flat.size != size:
            raise ValueError(f"{f.name()}: input {i} has {flat.size} values, expected {size}")
        keep.append(flat)
        buf.set_arg(i, memoryview(flat))
    outs = []
    for j in range(m.n_out()):
        o = np.zeros(m.nnz_out(j))
        if o.size:
            buf.set_res(j, memoryview(o))
        outs.append(o)
    ev()
    del keep
    res = []
    for j, o in enumerate(outs):
        sp = f.sparsity_out(j)
        nz = o.reshape(sp.nnz(), n, order="F")
        if sp.is_dense():
            res.append(nz)
        else:                  # scatter the structural nonzeros (column-major positions)
            dense = np.zeros((sp.numel(), n))
            dense[np.asarray(sp.find(), dtype=np.intp)] = nz
            res.append(dense)
    return res


class _TooLarge(Exception):
    """Generated source past :data:`MAX_SOURCE`: compiling would cost more than it saves."""


# sources past this size (characters; MECHDAE_CODEGEN_MAX overrides) are not compiled
# under compiled="auto": the C compiler's time grows faster than linearly with the size of
# the straight-line code (about 20 s for the 32-link chain's 220 kB right-hand side at -O2
# on a loaded 2-core machine), so long chains run on the Function objects; those past
# LARGE_SOURCE are compiled at -O1 (3x faster to build, about 1.4x slower to run)
MAX_SOURCE = 400_000
LARGE_SOURCE = 100_000


# generated C per scalar instruction (measured 22-25 characters on the n-link chains): a
# lower bound of the source size known before generating it
_CHARS_PER_INSTRUCTION = 22


def instruction_count(functions):
    """Scalar instructions the generated C of ``functions`` will hold: those of each
    Function and, once each, of the Functions its MX graph calls (no code generated; the
    64-link chain's right-hand side is counted in microseconds, generated in 0.2 s)."""
    seen, total = set(), 0
    stack = list(functions)
    while stack:
        f = stack.pop()
        if f.name() in seen:
            continue
        seen.add(f.name())
        if not (f.is_a("SXFunction") or f.is_a("MXFunction")):
            continue                   # interpolants, externals: no instruction list
        total += f.n_instructions()
        if f.is_a("MXFunction"):
            stack.extend(f.instruction_MX(k).which_function()
                         for k in range(f.n_instructions())
                         if f.instruction_id(k) == ca.OP_CALL)
    return total


def _build(functions, flags, jac_sparsity, forced=False):
    cmd = _compiler()
    limit = int(os.environ.get("MECHDAE_CODEGEN_MAX", MAX_SOURCE))
    if not forced and _CHARS_PER_INSTRUCTION * instruction_count(functions) > limit:
        raise _TooLarge()              # known too large: skip generating the source
    gen = ca.CodeGenerator("mdae_gen.c", dict(_OPTIONS))
    for f in functions:
        gen.add(f, jac_sparsity)
    src = gen.dump()
    if not forced and len(src) > limit:
        raise _TooLarge()
    if len(src) > LARGE_SOURCE and "-O2" in flags:
        flags = tuple("-O1" if x == "-O2" else x for x in flags)
    h = hashlib.sha256()
    for part in (src, " ".join(cmd), " ".join(flags), ca.__version__):
        h.update(part.encode())
        h.update(b"\0")
    key = h.hexdigest()[:24]
    d = cache_dir()
    so = os.path.join(d, f"mdae_{key}.so")
    with _LOCK:
        if so in _LOADED:
            return Library(so, key, functions)
        lock = _KEY_LOCKS.setdefault(so, threading.Lock())
    with lock:                       # one compile of a key at a time in this process
        if not os.path.exists(so):
            _compile(cmd, flags, src, d, so)
        with _LOCK:
            _LOADED.add(so)
    return Library(so, key, functions)


def _compile(cmd, flags, src, d, so):
    """Compile ``src`` into ``so`` through a private temporary folder (atomic move)."""
    with tempfile.TemporaryDirectory(dir=d, prefix="build_") as tmp:
        c = os.path.join(tmp, "gen.c")
        with open(c, "w") as fh:
            fh.write(src)
        out = os.path.join(tmp, "gen.so")
        proc = subprocess.run(cmd + list(flags) + ["-fPIC", "-shared", "-o", out, c, "-lm"],
                              capture_output=True, text=True, timeout=1800)
        if proc.returncode != 0 or not os.path.exists(out):
            raise RuntimeError(f"compiling generated code with {' '.join(cmd)} failed: "
                               f"{proc.stderr[-2000:]}")
        os.replace(out, so)
