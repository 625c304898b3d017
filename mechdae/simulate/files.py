"""A Result as data frames and files: ``.npz``, HDF5 (``.h5``) and Parquet (``.parquet``).

Every format keeps the series (``t, q, v, x, zalg``, multipliers, residuals, energy), the
companion data of hybrid runs (events with their ``extra`` fields, contact forces
``[lambda_n, lambda_t...]`` per contact, the mode string per output point, time-stepping
impulses) and the metadata (name, names, units, stats, init_report, parameter values),
so ``Result.load(Result.save(path))`` gives the same run back (``evaluate`` then needs
the System: ``Result.load(path, system=sys)``).

- ``.npz`` (numpy): arrays by key, metadata as one JSON string.
- ``.h5`` / ``.hdf5`` (h5py, the ``io`` extra): the layout of
  :mod:`mechdae.simulate.stream` (what ``simulate(out=...)`` writes), plus ``modes``
  (strings) and the units in the metadata.
- ``.parquet`` (pandas + pyarrow, the ``io`` extra): one table indexed by ``t`` whose
  columns are the series (``q::x``, ``v::der(x)``, ``mult::rod``, ``cf::A::1``,
  ``mode``, ...), the metadata and the events (JSON) in the table's key-value metadata.

Saving is atomic: the file is written under a temporary name in the same folder
(``.<name>.<random>.tmp<ext>``) and renamed over ``path`` when complete, so a save killed
at any point leaves the previous file (or none) intact, never a torn one. (A kill leaves
the temporary file behind; the rename is not followed by an fsync, so a power loss, as
opposed to a killed process, may still lose the newest file.)

Checksums: ``.h5`` and ``.parquet`` files store a CRC32 of every array (``.npz`` has the
CRC32 of its zip members); :func:`load` verifies them and raises :class:`DamagedFileError`
naming the file and the array. Files written before checksums existed load unverified.
"""
import json
import os
import uuid
import zipfile

import numpy as np

from .result import Result, _jsonable
from .stream import (DamagedFileError, _event_from_json, _event_json, check_writable,
                     crc32, verify_crc)

__all__ = ["to_dataframes", "save", "load", "FORMATS", "DamagedFileError"]

FORMATS = (".npz", ".h5", ".hdf5", ".parquet")


def format_of(path):
    """The file format of ``path`` by extension, or a ValueError naming the choices."""
    p = str(path).lower()
    for ext in (".npz", ".h5", ".hdf5", ".parquet", ".pq"):
        if p.endswith(ext):
            return {".hdf5": ".h5", ".pq": ".parquet"}.get(ext, ext)
    raise ValueError(f"{path!r}: a Result is saved to '.npz', '.h5' (HDF5) or '.parquet' "
                     "(the extension chooses the format)")


def _pandas():
    try:
        import pandas as pd
    except ImportError as exc:
        raise ImportError("data frames and Parquet files need pandas: "
                          "pip install 'mechdae[io]'") from exc
    return pd


# ---------------------------------------------------------------- events as JSON
def event_record(e):
    """An Event as a JSON-able dict: the record :mod:`mechdae.simulate.stream` writes
    (``extra`` fields that are not JSON-able dropped)."""
    return json.loads(_event_json(e))


def event_from_record(d):
    return _event_from_json(json.dumps(d))


def _meta(res):
    return dict(name=res.name,
                names={k: list(v) if not isinstance(v, dict) else v for k, v in res.names.items()},
                units=res.units, stats={k: v for k, v in res.stats.items() if _jsonable(v)},
                init_report={k: [float(a) for a in v] for k, v in res.init_report.items()},
                impulse_rows=list(getattr(res, "impulse_rows", None) or []))


def _companions(res):
    """contact forces, modes and impulses of a Result (None where absent)."""
    cf = {k: np.asarray(v, float) for k, v in (getattr(res, "contact_forces", None) or {}).items()}
    modes = getattr(res, "modes", None)
    imp = getattr(res, "impulses", None)
    imp = None if imp is None else np.asarray(imp, float)
    return cf, (None if modes is None else ["" if m is None else str(m) for m in modes]), imp


def _attach(res, meta, cf, modes, imp):
    if cf:
        res.contact_forces = cf
    if modes is not None:
        res.modes = [m or None for m in modes]
    if imp is not None:
        res.impulses = imp
        res.impulse_rows = meta.get("impulse_rows") or None
    res._units = meta.get("units") or {}
    res.status, res.error = meta.get("status") or "done", meta.get("error")
    return res


# ---------------------------------------------------------------- data frames
def to_dataframes(res):
    """Every table of a run: ``series`` (indexed by t: every named series, multipliers,
    energy), ``events`` (one row per event), ``contact_forces`` (indexed by t: columns
    ``<contact>.n``, ``<contact>.t``/``.t1``), ``modes`` (indexed by t) and
    ``impulses`` (time stepping, indexed by t); a table a run does not have is None."""
    pd = _pandas()
    t = np.asarray(res.t)
    idx = pd.Index(t, name="t")
    cols = {k: np.asarray(res[k]) for k in res.keys() if k != "t"}
    for k, val in res.multipliers.items():
        val = np.asarray(val)
        if val.ndim == 1:
            cols[f"lambda[{k}]"] = val
        else:
            for j in range(val.shape[1]):
                cols[f"lambda[{k}][{j}]"] = val[:, j]
    if res.energy is not None:
        cols["energy"] = np.asarray(res.energy)
    out = dict(series=pd.DataFrame(cols, index=idx))
    recs = [event_record(e) for e in res.events]
    ev = pd.DataFrame(dict(
        t=[r["t"] for r in recs], contact=[r["contact"] for r in recs],
        kind=[r["kind"] for r in recs],
        energy_before=[np.nan if r["energy_before"] is None else r["energy_before"] for r in recs],
        energy_after=[np.nan if r["energy_after"] is None else r["energy_after"] for r in recs],
        impulse=[r["impulse"] for r in recs], extra=[r["extra"] for r in recs]))
    out["events"] = ev
    cf, modes, imp = _companions(res)
    if cf:
        c = {}
        for name, arr in cf.items():
            arr = arr.reshape(arr.shape[0], -1)
            for j in range(arr.shape[1]):
                c[f"{name}.n" if j == 0 else (f"{name}.t" if arr.shape[1] == 2
                                              else f"{name}.t{j}")] = arr[:, j]
        out["contact_forces"] = pd.DataFrame(c, index=idx)
    else:
        out["contact_forces"] = None
    out["modes"] = None if modes is None else pd.DataFrame({"mode": modes}, index=idx)
    if imp is not None and imp.ndim == 2 and imp.shape[0] == t.size:
        rows = getattr(res, "impulse_rows", None) or [f"P{j}" for j in range(imp.shape[1])]
        out["impulses"] = pd.DataFrame(imp, index=idx, columns=list(rows))
    else:
        out["impulses"] = None
    return out


# ---------------------------------------------------------------- save / load
def run_status(res, status=None, error=None):
    """``(status, error)`` to write for ``res``: ``"failed"`` and the message for a
    partial Result (``err.partial``, whose ``stats["failed"]`` says why), else the
    Result's own (``"done"``); ``error`` may be the exception."""
    failed = (res.stats or {}).get("failed")
    if status is None:
        status = "failed" if failed else getattr(res, "status", None) or "done"
    if isinstance(error, BaseException):
        error = f"{type(error).__name__}: {error}"
    if error is None:
        error = failed or getattr(res, "error", None)
    return str(status), (None if error is None else str(error))


def save(res, path, status=None, error=None):
    """Write ``res`` to ``path`` (format by extension, see the module docstring);
    returns the path.

    ``status`` (``"done"`` or ``"failed"``) and ``error`` (an exception or its message)
    go into the metadata of every format (``Result.load(path).status``, ``.error``);
    by default ``"failed"`` for a partial Result (``err.partial`` of a SolverError).
    """
    fmt = format_of(path)
    path = os.fspath(path) if isinstance(path, os.PathLike) else str(path)
    check_writable(path, f"Result.save({path!r})")
    status, error = run_status(res, status, error)
    head, base = os.path.split(path)
    ext = os.path.splitext(base)[1]
    tmp = os.path.join(head, f".{base}.{uuid.uuid4().hex[:8]}.tmp{ext}")
    writer = dict([(".h5", _save_h5), (".parquet", _save_parquet)]).get(fmt, _save_npz)
    try:
        writer(res, tmp, status, error)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def _save_npz(res, path, status, error):
    arrays = dict(t=res.t, q=res.q, v=res.v, x=res.x, zalg=res.zalg)
    for k, val in res.multipliers.items():
        arrays[f"mult::{k}"] = np.asarray(val)
    for k, val in res.residuals.items():
        arrays[f"res::{k}"] = np.asarray(val)
    for k in ("energy", "kinetic", "potential"):
        if getattr(res, k) is not None:
            arrays[k] = np.asarray(getattr(res, k))
    if res.params is not None:
        arrays["params"] = np.asarray(res.params)
    if res.w is not None:
        arrays["w"] = np.asarray(res.w)
    cf, modes, imp = _companions(res)
    for k, val in cf.items():
        arrays[f"cf::{k}"] = val
    if modes is not None:
        arrays["modes"] = np.asarray(modes, dtype=str)
    if imp is not None:
        arrays["impulses"] = imp
    meta = _meta(res)
    meta.update(events=[event_record(e) for e in res.events], status=status, error=error)
    arrays["meta"] = np.array(json.dumps(meta))
    with open(path, "wb") as fh:            # np.savez would append '.npz' to other names
        np.savez(fh, **arrays)


def _save_h5(res, path, status="done", error=None):
    from .stream import write_result, result_extras
    write_result(res, path, extra=result_extras(res), status=status)
    _, modes, _ = _companions(res)
    import h5py
    with h5py.File(path, "a") as f:
        meta = json.loads(f.attrs["meta"])
        meta["units"] = res.units
        meta["impulse_rows"] = list(getattr(res, "impulse_rows", None) or [])
        if error is not None:
            meta["error"] = error
        f.attrs["meta"] = json.dumps(meta)
        if modes is not None:
            f.create_dataset("modes", data=np.asarray(modes, dtype=object),
                             dtype=h5py.string_dtype())
            sums = json.loads(f.attrs.get("checksums", "{}"))
            sums["modes"] = crc32(modes)
            f.attrs["checksums"] = json.dumps(sums)


def _save_parquet(res, path, status="done", error=None):
    pd = _pandas()
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise ImportError("Result.save('.parquet') needs pyarrow: pip install 'mechdae[io]'") \
            from exc
    n = res.names
    cols = {"t": np.asarray(res.t)}
    for key, group in (("q", "q"), ("v", "u"), ("x", "v"), ("zalg", "z")):
        arr = np.asarray(getattr(res, key))
        for j, name in enumerate(n.get(group, [])):
            cols[f"{key}::{name}"] = arr[:, j]
    shapes = {}

    def put(prefix, k, val):
        val = np.asarray(val, float)
        shapes[f"{prefix}::{k}"] = list(val.shape[1:])
        val = val.reshape(val.shape[0], -1)
        for j in range(val.shape[1]):
            cols[f"{prefix}::{k}::{j}"] = val[:, j]

    for k, val in res.multipliers.items():
        put("mult", k, val)
    for k, val in res.residuals.items():
        put("res", k, val)
    for k in ("energy", "kinetic", "potential"):
        if getattr(res, k) is not None:
            cols[k] = np.asarray(getattr(res, k))
    cf, modes, imp = _companions(res)
    for k, val in cf.items():
        put("cf", k, val)
    if imp is not None:
        put("impulses", "P", imp)
    if res.w is not None and np.size(res.w):
        put("w", "w", np.asarray(res.w).T)
    if modes is not None:
        cols["mode"] = np.asarray(modes, dtype=object)
    table = pa.Table.from_pandas(pd.DataFrame(cols), preserve_index=False)
    meta = _meta(res)
    meta.update(events=[event_record(e) for e in res.events], shapes=shapes, status=status,
                error=error,
                params=None if res.params is None else np.asarray(res.params, float).tolist())
    meta["checksums"] = {c: crc32(_column(v)) for c, v in cols.items()}
    md = dict(table.schema.metadata or {})
    md[b"mechdae"] = json.dumps(meta).encode()
    pq.write_table(table.replace_schema_metadata(md), str(path))


def _column(values):
    """A Parquet column as checksummed: strings as a list, numbers as float64."""
    values = np.asarray(values)
    if values.dtype.kind in "OUS":
        return [str(v) for v in values]
    return np.asarray(values, float)


def _not_a_result(path, missing, holds):
    return ValueError(f"{path}: not a mechdae Result file ({missing} that Result.save and "
                      f"simulate(out=...) write is missing; the file holds {holds}); load a "
                      "file written by mechdae, or read this one with its own library")


def load(path, system=None):
    """Read a Result written by :func:`save` (or ``simulate(out=...)`` for HDF5) into
    memory; ``system`` attaches the System for ``evaluate`` and named outputs."""
    fmt = format_of(path)
    if fmt == ".h5":
        return _load_h5(path, system)
    if fmt == ".parquet":
        return _load_parquet(path, system)
    try:
        return _load_npz(path, system)
    except zipfile.BadZipFile as exc:       # a member's CRC32 (or the archive) is damaged
        raise DamagedFileError(f"{path}: {exc}; the file was changed after it was "
                               "written; restore it from a copy or rerun") from exc


def _load_npz(path, system):
    with np.load(path, allow_pickle=False) as f:
        if "meta" not in f.files:
            raise _not_a_result(path, "the 'meta' entry", _listing(f.files))
        meta = json.loads(str(f["meta"]))
        mult = {k[6:]: f[k] for k in f.files if k.startswith("mult::")}
        resd = {k[5:]: f[k] for k in f.files if k.startswith("res::")}
        get = (lambda k: f[k] if k in f.files else None)
        out = Result(f["t"], f["q"], f["v"], meta["names"], x=f["x"], zalg=f["zalg"],
                     multipliers=mult, residuals=resd, energy=get("energy"),
                     kinetic=get("kinetic"), potential=get("potential"), stats=meta["stats"],
                     events=[event_from_record(e) for e in meta["events"]],
                     init_report={k: tuple(v) for k, v in meta["init_report"].items()},
                     params=get("params"), w=get("w"), name=meta["name"], system=system)
        cf = {k[4:]: f[k] for k in f.files if k.startswith("cf::")}
        modes = None if get("modes") is None else [str(m) for m in f["modes"]]
        return _attach(out, meta, cf, modes, get("impulses"))


def _listing(names):
    names = list(names)
    more = f", ... ({len(names)} in all)" if len(names) > 8 else ""
    return "[" + ", ".join(repr(str(n)) for n in names[:8]) + more + "]"


def _load_h5(path, system):
    from .stream import open_result
    with open_result(path, system=system) as fr:
        out = fr.load()
        meta = json.loads(fr._file.attrs["meta"])
        modes = None
        if "modes" in fr._file:
            modes = [m.decode() if isinstance(m, bytes) else str(m) for m in fr._file["modes"][:]]
            verify_crc(fr.checksums, "modes", modes, path)
    return _attach(out, meta, getattr(out, "contact_forces", None),
                   modes, getattr(out, "impulses", None))


def _load_parquet(path, system):
    import pyarrow.parquet as pq
    table = pq.read_table(str(path))
    if b"mechdae" not in (table.schema.metadata or {}):
        raise _not_a_result(path, "the 'mechdae' key-value metadata",
                            f"the columns {_listing(table.column_names)}")
    meta = json.loads(table.schema.metadata[b"mechdae"])
    df = table.to_pandas()
    for c, want in (meta.get("checksums") or {}).items():
        if c not in df.columns:
            raise DamagedFileError(f"{path}: column {c!r} is missing (the file lists its "
                                   "checksum); the file was changed after it was written")
        verify_crc({c: want}, c, _column(df[c].to_numpy()), path)
    n = meta["names"]
    N = len(df)

    def block(key, group):
        names = n.get(group, [])
        if not names:
            return np.zeros((N, 0))
        return np.column_stack([df[f"{key}::{name}"].to_numpy(float) for name in names])

    def get(prefix):
        out = {}
        for key, tail in meta["shapes"].items():
            p, k = key.split("::", 1)
            if p != prefix:
                continue
            cols = [c for c in df.columns if c.startswith(f"{key}::")]
            arr = np.column_stack([df[c].to_numpy(float) for c in cols])
            out[k] = arr.reshape((N,) + tuple(tail))
        return out

    col = (lambda k: df[k].to_numpy(float) if k in df.columns else None)
    w = get("w").get("w")
    out = Result(df["t"].to_numpy(float), block("q", "q"), block("v", "u"), n,
                 x=block("x", "v"), zalg=block("zalg", "z"), multipliers=get("mult"),
                 residuals=get("res"), energy=col("energy"), kinetic=col("kinetic"),
                 potential=col("potential"), stats=meta["stats"],
                 events=[event_from_record(e) for e in meta["events"]],
                 init_report={k: tuple(v) for k, v in meta["init_report"].items()},
                 params=None if meta.get("params") is None else np.asarray(meta["params"]),
                 w=None if w is None else w.T, name=meta["name"], system=system)
    modes = [str(m) for m in df["mode"]] if "mode" in df.columns else None
    return _attach(out, meta, get("cf"), modes, get("impulses").get("P"))
