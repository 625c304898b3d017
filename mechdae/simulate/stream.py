"""Results on disk: stream a run to an HDF5 file in chunks, open it lazily.

``simulate(..., out="run.h5")`` writes the output grid chunk by chunk (the smooth and
time-stepping drivers integrate chunk by chunk and keep nothing of a finished chunk in
memory; the other methods write their Result when done); ``Result.open("run.h5")`` (or
the Result such a run returns) reads its arrays from the file on access: ``res.t``,
``res.q``, ``res.v``, ... are ``h5py`` datasets and ``res["x"]`` reads one column.

Layout (one HDF5 file, datasets growing along the first axis)::

    t (N,)  q (N, nq)  v (N, nu)  x (N, nv)  zalg (N, nz)  [energy kinetic potential] (N,)
    mult/<name>  res/<name>        multipliers and residuals of the constraints
    extra/<name>                    driver-specific series (impulses, contact forces)
    events                          one JSON record per line (variable-length strings)
    attrs: meta (JSON: name, names, stats, init_report, status, error), params, w_names,
           checksums (JSON: CRC32 of every dataset, written when the run ends, done or
           failed; a run killed while writing has none and loads unverified)

The file is written as ``<out>.part`` (flushed after every chunk; ``status`` is
``"running"``) and renamed to ``out`` when the run ends with ``status`` ``"done"``,
``"failed"`` when it raised, or ``"interrupted"`` when Ctrl-C stopped it (the file then
holds every output point up to the failure or the interrupt).

h5py is optional (the ``io`` extra); it is imported on first use with a clear message.
"""
import json
import os
import zlib

import numpy as np

from .result import Event, Result, _jsonable

__all__ = ["Writer", "FileResult", "open_result", "write_result", "DEFAULT_CHUNK",
           "DamagedFileError"]

DEFAULT_CHUNK = 100_000          # output points integrated / written per chunk


def h5py_module():
    try:
        import h5py
    except ImportError as exc:
        raise ImportError("streaming results to disk (simulate(out=...), Result.open) needs "
                          "h5py: pip install 'mechdae[io]'") from exc
    return h5py


def check_path(out):
    """``out`` as a str, or a ValueError naming the fix when a run could not write it:
    not an HDF5 name, a directory, a missing or unwritable folder (checked before the
    run, so a finished run is never thrown away for want of a folder)."""
    p = os.fspath(out) if isinstance(out, os.PathLike) else str(out)
    if not p.lower().endswith((".h5", ".hdf5", ".hdf")):
        raise ValueError(f"out={out!r}: results stream to HDF5 files ('.h5' or '.hdf5'); "
                         "Parquet is not supported")
    check_writable(p, f"out={out!r}")
    return p


def check_writable(path, what):
    """Raise a ValueError (``what`` names the argument) unless a file ``path`` can be
    created: its folder exists and is writable, and ``path`` is not a directory."""
    d = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ValueError(f"{what}: {path} is a directory; give a file name")
    if not os.path.isdir(d):
        raise ValueError(f"{what}: folder {d} does not exist; create it first "
                         f"(os.makedirs({d!r})) or give another path")
    if not os.access(d, os.W_OK | os.X_OK):
        raise ValueError(f"{what}: folder {d} is not writable; give another path")


class DamagedFileError(ValueError):
    """A stored array does not match the checksum written with it."""


def crc32(values, crc=0):
    """CRC32 of an array's bytes (C order), or of a list of strings (each UTF-8 encoded
    and ended by a NUL); ``crc`` continues a running checksum (appending rows)."""
    if isinstance(values, (list, tuple)):
        for v in values:
            crc = zlib.crc32(v.encode() + b"\0", crc)
        return crc
    return zlib.crc32(np.ascontiguousarray(values).view(np.uint8).ravel(), crc)


def verify_crc(sums, name, values, path):
    """Raise :class:`DamagedFileError` naming ``name`` and ``path`` when the checksum of
    ``values`` is not the one stored in ``sums`` (nothing stored: nothing to check)."""
    want = (sums or {}).get(name)
    if want is None:
        return
    got = crc32(values)
    if got != want:
        raise DamagedFileError(
            f"{path}: array {name!r} is damaged (CRC32 {got:08x}, stored {want:08x}): the "
            "file was changed after it was written; restore it from a copy or rerun")


def _event_json(e):
    d = e.as_dict()
    extra = {}
    for k, v in e.extra.items():
        v = v.tolist() if isinstance(v, np.ndarray) else v
        if _jsonable(v):
            extra[k] = v
    d["extra"] = extra
    return json.dumps(d)


def _event_from_json(s):
    d = json.loads(s)
    extra = d.pop("extra", {}) or {}
    imp = d.get("impulse")
    d["impulse"] = None if imp is None else np.asarray(imp, float)
    return Event(**d, **extra)


class Writer:
    """Append Results (chunks of one run, in time order) to an HDF5 file.

    Parameters
    ----------
    path : str
        ``.h5`` / ``.hdf5`` file; created (truncated).
    """

    def __init__(self, path):
        h5py = h5py_module()
        self.path = check_path(path)
        # written as "<path>.part" and renamed when the run ends (done or failed): a
        # Result still open on an older file of that name keeps reading the old one
        self.part = self.path + ".part"
        self.f = h5py.File(self.part, "w")
        self.n = 0                 # rows written
        self.n_events = 0
        self.crc = {}              # running CRC32 of every dataset (written by finish)
        self._torn = set()         # datasets whose write was interrupted: no checksum
        self.meta = None
        self._str = h5py.string_dtype()
        self.f.attrs["meta"] = json.dumps(dict(status="running"))

    # ---------------------------------------------------------------- datasets
    def _grow(self, name, arr):
        arr = np.asarray(arr)
        f = self.f
        self._torn.add(name)       # until data and checksum agree (an interrupt between)
        if name not in f:
            tail = arr.shape[1:]
            if int(np.prod(tail, dtype=np.int64)) == 0:
                # zero-width series: shape only (HDF5 chunks cannot be empty)
                f.attrs[f"empty::{name}"] = json.dumps(list(tail))
                return
            row = max(8 * int(np.prod(tail, dtype=np.int64)), 1)
            rows = int(max(1, min(2 ** 17 // row, 1 << 16)))
            f.create_dataset(name, shape=(0,) + tail, maxshape=(None,) + tail,
                             dtype=arr.dtype if arr.dtype.kind in "fiub" else float,
                             chunks=(rows,) + tail)
            if self.n:     # a series that starts late (absent in earlier chunks): pad
                f[name].resize(self.n, axis=0)
                f[name][:] = np.nan
                self.crc[name] = crc32(f[name][:])
        elif f"empty::{name}" in f.attrs:
            return
        d = f[name]
        k = d.shape[0]
        d.resize(k + arr.shape[0], axis=0)
        d[k:] = arr
        self.crc[name] = crc32(np.asarray(arr, d.dtype), self.crc.get(name, 0))
        self._torn.discard(name)

    def append(self, res, skip_first=False, extra=None):
        """Append the points of ``res`` (a Result of consecutive output times).

        ``skip_first``: drop its first point (the last point of the previous chunk).
        ``extra``: dict name -> array (N, ...) of further series (``extra/<name>``).
        """
        s = slice(1, None) if skip_first else slice(None)
        t = np.asarray(res.t)[s]
        if self.meta is None:
            self.meta = dict(name=res.name, names={k: list(v) for k, v in res.names.items()},
                             init_report={k: list(v) for k, v in res.init_report.items()})
            if res.params is not None:
                self.f.attrs["params"] = np.asarray(res.params, float)
        self._grow("t", t)
        for k in ("q", "v", "x", "zalg"):
            self._grow(k, np.asarray(getattr(res, k))[s])
        for k in ("energy", "kinetic", "potential"):
            val = getattr(res, k)
            if val is not None:
                self._grow(k, np.asarray(val)[s])
        for k, val in res.multipliers.items():
            self._grow(f"mult/{k}", np.asarray(val)[s])
        for k, val in res.residuals.items():
            self._grow(f"res/{k}", np.asarray(val)[s])
        if res.w is not None and np.size(res.w):
            self._grow("w", np.asarray(res.w).T[s])
        for k, val in (extra or {}).items():
            if val is not None:
                self._grow(f"extra/{k}", np.asarray(val)[s])
        self.n += t.size
        self.add_events(res.events)
        self.f.flush()

    def add_events(self, events):
        if not events:
            return
        if "events" not in self.f:
            self.f.create_dataset("events", shape=(0,), maxshape=(None,), dtype=self._str,
                                  chunks=(1024,))
        d = self.f["events"]
        k = d.shape[0]
        d.resize(k + len(events), axis=0)
        self._torn.add("events")
        d[k:] = recs = [_event_json(e) for e in events]
        self.crc["events"] = crc32(recs, self.crc.get("events", 0))
        self._torn.discard("events")
        self.n_events += len(events)

    def finish(self, stats=None, status="done", error=None):
        """Write the run's statistics and status and close the file."""
        if self.f is None:
            return
        meta = dict(self.meta or {})
        meta["stats"] = {k: v for k, v in (stats or {}).items() if _jsonable(v)}
        meta["status"] = status
        if error is not None:
            meta["error"] = f"{type(error).__name__}: {error}"
        self.f.attrs["meta"] = json.dumps(meta)
        self.f.attrs["checksums"] = json.dumps(
            {k: v for k, v in self.crc.items() if k not in self._torn})
        self.f.close()
        self.f = None
        os.replace(self.part, self.path)

    def abort(self, error):
        """Close a file whose run raised (status ``"failed"``, the message kept)."""
        self.finish(getattr(self, "stats", None), status="failed", error=error)


def write_result(res, path, extra=None, status="done", error=None):
    """Write an in-memory Result to ``path`` (HDF5) in one go."""
    w = Writer(path)
    try:
        w.append(res, extra=extra if extra is not None else result_extras(res))
    finally:
        w.finish(res.stats, status=status, error=error)
    return w.path


def result_extras(res):
    """Driver-specific series of a Result worth keeping in a file."""
    out = {}
    imp = getattr(res, "impulses", None)
    if imp is not None and np.ndim(imp) == 2 and np.shape(imp)[0] == res.t.size:
        out["impulses"] = imp
    for k, val in (getattr(res, "contact_forces", None) or {}).items():
        out[f"contact_forces::{k}"] = val
    return out


class FileResult(Result):
    """A :class:`Result` read from an HDF5 file (``simulate(out=...)`` or :func:`open_result`).

    ``t``, ``q``, ``v``, ``x``, ``zalg``, ``energy``..., ``multipliers[name]`` and
    ``residuals[name]`` are h5py datasets read on access (``res.t[-1]``, ``res.q[:1000]``,
    ``np.asarray(res.t)``); ``res[name]`` returns one column as an array; ``res.events``
    are parsed on first access. :meth:`load` gives an in-memory Result; ``evaluate``
    and named outputs load the run first. ``res.status`` is ``"done"``, ``"failed"``
    (``res.error`` says why), ``"interrupted"`` (Ctrl-C) or ``"running"`` (a run still
    writing, or one that died).
    """

    def __init__(self, path, system=None):
        h5py = h5py_module()
        self.path = str(path)
        self._file = f = h5py.File(self.path, "r")
        if "meta" not in f.attrs:
            f.close()
            raise ValueError(
                f"{self.path}: not a mechdae Result file (the 'meta' attribute that "
                "Result.save and simulate(out=...) write is missing); load a "
                "file written by mechdae, or read this one with h5py")
        meta = json.loads(f.attrs["meta"])
        #: CRC32 of every array, written when the run ended (a file of a run killed while
        #: writing, status "running", and files older than checksums have none)
        self.checksums = json.loads(f.attrs["checksums"]) if "checksums" in f.attrs else {}
        self.status = meta.get("status", "done")
        self.error = meta.get("error")
        names = meta.get("names") or dict(q=[], u=[], v=[], z=[])
        self.names = names
        self.t = self._ds("t", ())
        N = self.t.shape[0]
        self.q = self._ds("q", (len(names.get("q", [])),))
        self.v = self._ds("v", (len(names.get("u", [])),))
        self.x = self._ds("x", (len(names.get("v", [])),))
        self.zalg = self._ds("zalg", (len(names.get("z", [])),))
        self.energy = f["energy"] if "energy" in f else None
        self.kinetic = f["kinetic"] if "kinetic" in f else None
        self.potential = f["potential"] if "potential" in f else None
        self.multipliers = {k: v for k, v in f["mult"].items()} if "mult" in f else {}
        self.residuals = {k: v for k, v in f["res"].items()} if "res" in f else {}
        self.extras = {k: v for k, v in f["extra"].items()} if "extra" in f else {}
        cf = {k.split("::", 1)[1]: v for k, v in self.extras.items()
              if k.startswith("contact_forces::")}
        if cf:
            self.contact_forces = cf
        if "impulses" in self.extras:
            self.impulses = self.extras["impulses"]
        self.stats = meta.get("stats", {})
        self.init_report = {k: tuple(v) for k, v in (meta.get("init_report") or {}).items()}
        self.system = system
        self.params = np.asarray(f.attrs["params"]) if "params" in f.attrs else None
        self.w = None            # inputs (N, nw) are in the file's "w"; load() reads them
        self.name = meta.get("name", "") or (system.name if system is not None else "")
        self._events = None
        self._n = N

    def _ds(self, name, tail):
        f = self._file
        if name in f:
            return f[name]
        shp = f.attrs.get(f"empty::{name}")
        tail = tuple(json.loads(shp)) if shp is not None else tail
        n = f["t"].shape[0] if "t" in f else 0
        return np.zeros((n,) + tuple(tail))

    @property
    def events(self):
        if self._events is None:
            f = self._file
            raw = f["events"][:] if "events" in f else []
            self._events = [_event_from_json(s.decode() if isinstance(s, bytes) else s)
                            for s in raw]
        return self._events

    @events.setter
    def events(self, value):
        self._events = list(value)

    def __len__(self):
        return self._n

    def __repr__(self):
        n = self._n
        span = f"[{self.t[0]:.4g}, {self.t[-1]:.4g}]" if n else "[]"
        return (f"FileResult({self.name!r}: {n} points on {span} in {self.path!r}, "
                f"{self.status})")

    def _read(self, a):
        """``a`` in memory; a dataset's checksum verified (DamagedFileError)."""
        if a is None:
            return None
        out = np.asarray(a)
        name = getattr(a, "name", None)
        if name is not None:
            verify_crc(self.checksums, name.lstrip("/"), out, self.path)
        return out

    def load(self):
        """The whole run as an in-memory :class:`Result` (every array's checksum checked:
        :class:`DamagedFileError` names a damaged one)."""
        arr = self._read
        if "events" in self.checksums and "events" in self._file:
            raw = [s.decode() if isinstance(s, bytes) else s for s in self._file["events"][:]]
            verify_crc(self.checksums, "events", raw, self.path)
        out = Result(arr(self.t), arr(self.q), arr(self.v), self.names, x=arr(self.x),
                     zalg=arr(self.zalg),
                     multipliers={k: arr(v) for k, v in self.multipliers.items()},
                     residuals={k: arr(v) for k, v in self.residuals.items()},
                     energy=arr(self.energy), kinetic=arr(self.kinetic),
                     potential=arr(self.potential), stats=dict(self.stats),
                     events=list(self.events), init_report=dict(self.init_report),
                     system=self.system, params=self.params,
                     w=arr(self._file["w"]).T if "w" in self._file else None,
                     name=self.name)
        if "impulses" in self.extras:
            out.impulses = arr(self.extras["impulses"])
        cf = getattr(self, "contact_forces", None)
        if cf:
            out.contact_forces = {k: arr(v) for k, v in cf.items()}
        return out

    def _loaded(self):
        r = self.__dict__.get("_mem")
        if r is None:
            r = self._mem = self.load()
        return r

    def evaluate(self, expr):
        if self.system is None:
            raise ValueError("this Result was opened from a file without its System; "
                             "evaluate() needs it: md.Result.open(path, system=sys)")
        return self._loaded().evaluate(expr)

    def _output(self, idx, name):
        return self._loaded()._output(idx, name)

    def close(self):
        """Close the file (the datasets are unreadable afterwards)."""
        if self._file is not None:
            self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __reduce__(self):
        return (open_result, (self.path, self.system))


def open_result(path, system=None):
    """Open a Result written by ``simulate(out=path)`` (arrays read lazily).

    Parameters
    ----------
    path : str
        The HDF5 file.
    system : System, optional
        Attach it for :meth:`Result.evaluate` and named outputs.
    """
    return FileResult(path, system=system)
