"""Generated C for CasADi Functions, compiled once and cached on disk.

One mechanism for every method that evaluates a model in an inner loop (smooth simulation,
time stepping, the unified equations): :func:`library` writes the C code of a list of
CasADi Functions (``casadi.CodeGenerator``), compiles it with the system C compiler into a
shared library, and caches the library on disk under a hash of the generated source, the
compiler command and the CasADi version; a second run or a second process loads the same
file without compiling. The code then runs without Python: cvodes and idas call it through
:meth:`Library.external` (a ``casadi.external`` Function), the C stepping loop through the
symbol addresses of :meth:`Library.symbol`.

Sources past :data:`LARGE_SOURCE` characters are compiled at ``-O1``, those past
:data:`MAX_SOURCE` at ``-O0`` (the compiler's time grows about linearly then: a model of
any size runs as C), those past :data:`HUGE_SOURCE` not under ``compiled="auto"`` (the
compiler's time would outweigh the run); :attr:`Library.flags` says which. With no working C compiler (``CC`` naming a missing
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

__all__ = ["library", "Library", "available", "cache_dir", "map_call", "point_call",
           "CodegenWarning"]

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

    def __init__(self, path, key, functions, flags=()):
        self.path, self.key, self.flags = path, key, tuple(flags)
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
            jac_sparsity=False, report=None, background=False):
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
    report : dict, optional
        Where the reason is written (``report["interpreted"]``, a sentence) when None is
        returned: ``compiled=False``, ``MECHDAE_CODEGEN=0``, a source past
        :data:`HUGE_SOURCE`, no working compiler, or a compile under way in the background
        (``report["pending"]``: a ``threading.Event`` set when it has finished).
    background : bool
        Under ``compiled="auto"``, compile a source past :data:`MAX_SOURCE` (``-O0``) in
        a background thread and return None meanwhile (the caller runs the Function
        objects; a later call finds the library in the cache): the first run does not
        wait seconds for the compiler.

    Returns
    -------
    Library or None

    Raises
    ------
    OSError, RuntimeError
        With ``compiled=True`` when no compiler is found or compiling fails.
    """
    report = {} if report is None else report
    if compiled is False:
        report["interpreted"] = "compiled=False"
        return None
    if compiled == "auto" and os.environ.get("MECHDAE_CODEGEN", "1") == "0":
        report["interpreted"] = "MECHDAE_CODEGEN=0"
        return None
    try:
        return _build(list(functions), tuple(flags), bool(jac_sparsity), compiled is True,
                      background and compiled == "auto")
    except _TooLarge as exc:
        report["interpreted"] = str(exc)
        return None
    except _Pending as exc:
        report["interpreted"] = str(exc)
        report["pending"] = exc.done
        return None
    except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
        if compiled is True:
            raise
        _warn(what, exc)
        report["interpreted"] = f"no working C compiler ({exc})"[:300]
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
# small scalar (SX) functions are evaluated in chunks of up to _CHUNK_MAX points, each chunk
# one SX function of at most _CHUNK_INSTRUCTIONS instructions with the inputs (outputs) of
# a point stacked in one column: a serial map pays about 0.4 us of call overhead per point
# and a Python-side set_arg per input, more than a small function's own instructions (the
# ball's 15-instruction energy at 501 points: 345 us as a serial map, 90 in chunks)
_CHUNK_MAX, _CHUNK_MIN, _CHUNK_INSTRUCTIONS = 64, 4, 4096


def _cached(key, f, build):
    """``build()`` cached in ``_MAPS`` under ``key`` (which holds ``id(f)``) while ``f`` is
    the same object (built under the package lock: CasADi's symbolic graphs are not
    thread-safe; the entry keeps ``f`` alive, so its id is not reused meanwhile)."""
    entry = _MAPS.get(key)
    if entry is None or entry[0] is not f:
        from ._threads import LOCK
        with LOCK:
            entry = _MAPS.get(key)
            if entry is None or entry[0] is not f:
                if len(_MAPS) >= _MAPS_MAX:
                    _MAPS.clear()
                entry = _MAPS[key] = (f, build())
    return entry[1]


_LOCAL = threading.local()


def _buffer(m):
    """``m.buffer()`` private to this thread, reused from call to call (every input and
    output is set again before each evaluation; a buffer costs 10-30 us to make)."""
    bufs = _LOCAL.__dict__.setdefault("buffers", {})
    entry = bufs.get(id(m))
    if entry is None or entry[0] is not m:
        if len(bufs) >= _MAPS_MAX:
            bufs.clear()
        entry = bufs[id(m)] = (m, *m.buffer())
    return entry[1], entry[2]


class _Chunk:
    """``f`` at ``C`` points as one SX Function ``g(X, P) -> Y``: column ``k`` of ``X``
    the nonzeros of the point's inputs one after another (those not in ``reduce_in``),
    ``P`` those of the shared inputs, column ``k`` of ``Y`` the nonzeros of every output.
    Built by calling ``f`` on symbols: the instructions of ``f``, once per point."""

    def __init__(self, f, C, reduce_in):
        self.C = C
        nin = [f.nnz_in(i) for i in range(f.n_in())]
        self.nout = [f.nnz_out(j) for j in range(f.n_out())]
        self.sparse = [None if f.sparsity_out(j).is_dense()
                       else (f.sparsity_out(j).numel(),
                             np.asarray(f.sparsity_out(j).find(), dtype=np.intp))
                       for j in range(f.n_out())]
        self.offs, self.shared = {}, {}
        K = R = 0
        for i, n in enumerate(nin):
            if i in reduce_in:
                self.shared[i], R = (R, n), R + n
            else:
                self.offs[i], K = (K, n), K + n
        self.K, self.R, self.S = K, R, sum(self.nout)
        X, P = ca.SX.sym("X", K, C), ca.SX.sym("P", R)
        cols = []
        for k in range(C):
            args = []
            for i in range(f.n_in()):
                o, n = self.shared[i] if i in reduce_in else self.offs[i]
                src = P[o:o + n] if i in reduce_in else X[o:o + n, k]
                args.append(ca.SX(f.sparsity_in(i), src))
            outs = f.call(args)
            cols.append(ca.vertcat(ca.SX(0, 1), *[ca.vec(outs[j].nz[:])
                                                  for j in range(f.n_out()) if self.nout[j]]))
        self.g = ca.Function(f"{f.name()}_c{C}", [X, P], [ca.horzcat(*cols)])

    def maps(self, nch):
        """``g`` mapped over ``nch`` chunks (``P`` shared)."""
        return self.g if nch == 1 else self.g.map(f"{self.g.name()}_n{nch}", "serial", nch,
                                                  [1], [])


def _chunk(f, reduce_in):
    """The :class:`_Chunk` of ``f``, or None when ``f`` is not a small scalar function
    (MX graphs, or too many instructions: a serial map then)."""
    def build():
        if not f.is_a("SXFunction"):
            return None
        C = min(_CHUNK_MAX, _CHUNK_INSTRUCTIONS // max(1, f.n_instructions()))
        return _Chunk(f, C, reduce_in) if C >= _CHUNK_MIN else None
    return _cached(("chunk", id(f), reduce_in), f, build)


def map_call(f, n, args, reduce_in=()):
    """``f`` evaluated at ``n`` points in one call, on this thread's buffer (numpy arrays
    of this call are handed over without conversion to DM; safe across threads): a small
    scalar
    function through one SX function of ``C`` points (:class:`_Chunk`, built once per
    function) mapped over the chunks, the last padded with copies of the last point;
    others through a serial ``Function.map`` built once per ``n``. Both run CasADi's
    evaluation of ``f``'s instructions: the values are those of ``f`` point by point.

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
    n = int(n)
    reduce_in = tuple(reduce_in)
    ch = _chunk(f, reduce_in) if n else None
    if ch is None:
        return _map_serial(f, n, args, reduce_in)
    nch = -(-n // ch.C)
    npad = nch * ch.C
    m = _cached(("chunks", id(f), reduce_in, nch), f, lambda: ch.maps(nch))
    X = np.empty((npad, ch.K))            # row k: point k's inputs (Fortran order of X)
    P = np.empty(ch.R)
    for i, a in enumerate(args):
        shared = i in ch.shared
        o, size = ch.shared[i] if shared else ch.offs[i]
        if not size:
            continue
        a = np.asarray(a, dtype=float)
        if a.size != (size if shared else size * n):
            raise ValueError(f"{f.name()}: input {i} has {a.size} values, expected "
                             f"{size if shared else size * n}")
        if shared:
            P[o:o + size] = a.ravel(order="F")
        else:
            X[:n, o:o + size] = a.reshape(size, n, order="F").T
    if npad > n:
        X[n:] = X[n - 1]                   # padding: copies of the last point
    Y = np.empty((npad, ch.S))
    buf, ev = _buffer(m)
    if X.size:
        buf.set_arg(0, memoryview(X.reshape(-1)))
    if P.size:
        buf.set_arg(1, memoryview(P))
    if Y.size:
        buf.set_res(0, memoryview(Y.reshape(-1)))
    ev()
    res, o = [], 0
    for s, sp in zip(ch.nout, ch.sparse):
        nz = Y[:n, o:o + s].T
        o += s
        if sp is None:
            res.append(nz)
        else:                  # scatter the structural nonzeros (column-major positions)
            dense = np.zeros((sp[0], n))
            dense[sp[1]] = nz
            res.append(dense)
    return res


def point_call(f, args):
    """``f`` at one point, on this thread's reused buffer (no DM conversions: 5-10 us
    instead of 50-100 for ``f(*args)`` on numpy arrays); the values of ``f(*args)``.

    Parameters
    ----------
    f : casadi.Function
    args : list of arrays
        Input ``i`` as its ``f.nnz_in(i)`` nonzeros (column-major).

    Returns
    -------
    list of arrays, output ``j`` dense of shape ``(f.size1_out(j), f.size2_out(j))``
    """
    def build():
        return ([f.nnz_in(i) for i in range(f.n_in())],
                [(f.size1_out(j), f.size2_out(j), f.nnz_out(j),
                  None if f.sparsity_out(j).is_dense()
                  else np.asarray(f.sparsity_out(j).find(), dtype=np.intp))
                  for j in range(f.n_out())])
    nin, outs = _cached(("point", id(f)), f, build)
    buf, ev = _buffer(f)
    keep = []
    for i, a in enumerate(args):
        if not nin[i]:
            continue
        a = np.ascontiguousarray(np.ravel(a, order="F"), dtype=float)
        if a.size != nin[i]:
            raise ValueError(f"{f.name()}: input {i} has {a.size} values, expected {nin[i]}")
        keep.append(a)
        buf.set_arg(i, memoryview(a))
    res = []
    for j, (r, c, nnz, find) in enumerate(outs):
        o = np.empty((r, c), order="F")
        nz = o.reshape(-1, order="F") if find is None else np.empty(nnz)
        if nnz:
            buf.set_res(j, memoryview(nz))
        res.append((o, nz, find))
    ev()
    del keep
    out = []
    for o, nz, find in res:
        if find is not None:
            o[...] = 0.0
            o.reshape(-1, order="F")[find] = nz
        out.append(o)
    return out


def _map_serial(f, n, args, reduce_in):
    """:func:`map_call` through a serial ``Function.map`` of ``n`` points (cached per
    ``n``; the inputs of ``reduce_in`` broadcast to every point)."""
    m = _cached((id(f), n), f, lambda: f.map(n, "serial"))
    buf, ev = _buffer(m)
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
    """Generated source past :data:`HUGE_SOURCE`: compiling would cost more than it saves."""


# the C compiler's time grows faster than linearly with the size of the straight-line code
# at -O1 and -O2 (about 20 s for the 32-link chain's 220 kB right-hand side at -O2 on a
# loaded 2-core machine, 7.6 s at -O1), about linearly at -O0 (2.3 s): sources past
# LARGE_SOURCE characters are compiled at -O1, past MAX_SOURCE (MECHDAE_CODEGEN_MAX
# overrides) at -O0 (the 32-link chain's right-hand side 56 us per evaluation there, 30 at
# -O1, 125 interpreted), past HUGE_SOURCE (MECHDAE_CODEGEN_HUGE) not at all under
# compiled="auto" (about 20 s of compiling at -O0)
HUGE_SOURCE = 2_000_000
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


class _Pending(Exception):
    """The library is being compiled in a background thread (``done`` is set after)."""

    def __init__(self, msg, done):
        super().__init__(msg)
        self.done = done


_BACKGROUND = {}          # library path -> Event of its background compile
_FAILED = {}              # library path -> why its background compile failed


def _later(cmd, flags, src, d, so, lock, done):
    """The background compile of :func:`_build` (``done`` set when it ends)."""
    try:
        with lock:
            if not os.path.exists(so):
                _compile(cmd, flags, src, d, so)
    except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
        _FAILED[so] = str(exc)
    finally:
        done.set()


def _build(functions, flags, jac_sparsity, forced=False, background=False):
    cmd = _compiler()
    limit = int(os.environ.get("MECHDAE_CODEGEN_HUGE", HUGE_SOURCE))
    large = int(os.environ.get("MECHDAE_CODEGEN_MAX", MAX_SOURCE))
    n = instruction_count(functions)
    if not forced and _CHARS_PER_INSTRUCTION * n > limit:
        raise _TooLarge(_too_large(n, _CHARS_PER_INSTRUCTION * n, limit, "at least "))
    gen = ca.CodeGenerator("mdae_gen.c", dict(_OPTIONS))
    for f in functions:
        gen.add(f, jac_sparsity)
    src = gen.dump()
    if not forced and len(src) > limit:
        raise _TooLarge(_too_large(n, len(src), limit))
    if len(src) > min(LARGE_SOURCE, large) and "-O2" in flags:
        flags = tuple(("-O0" if len(src) > large else "-O1") if x == "-O2" else x
                      for x in flags)
    h = hashlib.sha256()
    for part in (src, " ".join(cmd), " ".join(flags), ca.__version__):
        h.update(part.encode())
        h.update(b"\0")
    key = h.hexdigest()[:24]
    d = cache_dir()
    so = os.path.join(d, f"mdae_{key}.so")
    with _LOCK:
        if so in _LOADED:
            return Library(so, key, functions, flags)
        lock = _KEY_LOCKS.setdefault(so, threading.Lock())
    if so in _FAILED:
        raise RuntimeError(_FAILED[so])
    if background and "-O0" in flags and not os.path.exists(so):
        with _LOCK:
            done = _BACKGROUND.get(so)
            if done is None:
                done = _BACKGROUND[so] = threading.Event()
                threading.Thread(target=_later, args=(cmd, flags, src, d, so, lock, done),
                                 daemon=True, name=f"mdae-cc-{key[:8]}").start()
        if not done.is_set() or not os.path.exists(so):
            raise _Pending(f"generated C of {len(src)} characters is compiling at -O0 in "
                           f"the background; later runs use it", done)
    with lock:                       # one compile of a key at a time in this process
        if not os.path.exists(so):
            _compile(cmd, flags, src, d, so)
        with _LOCK:
            _LOADED.add(so)
    return Library(so, key, functions, flags)


def _too_large(n, chars, limit, bound=""):
    return (f"generated C of {n} instructions ({bound}{chars} characters) is past the "
            f"limit of {limit} characters (MECHDAE_CODEGEN_HUGE; compiled=True compiles it "
            f"anyway): the C compiler's time would outweigh the run")


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
