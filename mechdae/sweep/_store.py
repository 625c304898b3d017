"""A sweep streamed to disk: a directory of Parquet parts, resumable.

``out="results.parquet"`` is a directory (as Dask and Spark write them) holding
``_sweep.json`` (what the sweep is: System content hash, inputs hash, outputs, options)
and ``part-NNNNN.parquet`` files, each written whole (to a temporary name, then renamed),
so a sweep stopped at any point leaves only complete parts. ``pandas.read_parquet(out)``
reads them as one table; running the same sweep again with the same ``out`` runs only the
missing rows.

Finished rows are written as a part once :data:`FLUSH_ROWS` rows are buffered (and
:data:`MIN_INTERVAL` has passed since the last part) or :data:`FLUSH_SECONDS` have passed
since the last part (checked as each task finishes), so a sweep killed at any time loses at
most the rows of about the last second. The rows wait as column pieces (numpy arrays per
task, :mod:`mechdae.sweep._collect`), and leave memory once written.
Measured (issue 24): writing one part costs about 1-1.5 ms whatever its size up to a few
hundred rows, and reading it back on resume about 1.4 ms; a simulate row costs 1.4 ms or
more (bouncing ball, event method, 1 s), so a part per 64 rows adds at most ~2 % and a
part per second at most ~0.2 %. (It was 10,000 rows or 10 s: a kill at 9 s kept nothing.)
Issue 32: tasks of ~0.1 s finishing on hundreds of workers would write a part each (a
thousand parts a second: the client busy writing); :data:`MIN_INTERVAL` caps the parts at
ten a second, ~1.5 % of the client's time.
"""
import json
import os
import time
import uuid

from ._collect import Columns

__all__ = ["Store"]

FORMAT = 1
#: a part is written when this many finished rows are buffered ...
FLUSH_ROWS = 64
#: ... or when this many seconds have passed since the last part
FLUSH_SECONDS = 1.0
#: ... but not sooner than this many seconds after the last part (on a FLUSH_ROWS trigger)
MIN_INTERVAL = 0.1


def _pandas():
    try:
        import pandas as pd
        import pyarrow  # noqa: F401
    except ImportError:
        raise ImportError("sweep(out=...) writes Parquet with pandas and pyarrow: pip install "
                          "'mechdae[io]'") from None
    return pd


class Store:
    """Parts of one sweep in directory ``path``; :attr:`done` is what it already holds.

    ``table`` (the sweep's RunTable) gives the input columns of the rows written."""

    def __init__(self, path, meta, table, flush_rows=FLUSH_ROWS, flush_seconds=FLUSH_SECONDS):
        pd = _pandas()
        self.path = os.fspath(path)
        self.meta = dict(meta, format=FORMAT)
        self.flush_rows, self.flush_seconds = flush_rows, flush_seconds
        self.buffer, self.last = Columns(table), time.monotonic()
        info = os.path.join(self.path, "_sweep.json")
        if os.path.isfile(self.path):
            raise ValueError(f"out={self.path!r} is a file; a sweep writes a directory of "
                             "Parquet parts: give a new path")
        if os.path.isdir(self.path) and os.listdir(self.path):
            if not os.path.isfile(info):
                raise ValueError(f"out={self.path!r} is a directory that holds no sweep "
                                 "(_sweep.json missing); give a new path")
            with open(info) as fh:
                old = json.load(fh)
            diff = [k for k in sorted(set(old) | set(self.meta)) if old.get(k) != self.meta.get(k)]
            if diff:
                raise ValueError(f"out={self.path!r} holds another sweep (it differs in "
                                 f"{', '.join(diff)}); to resume, run the same sweep (same "
                                 "System, inputs, outputs and options), or give a new path")
            parts = self.parts()
            self.done = (pd.concat([pd.read_parquet(p) for p in parts], ignore_index=True)
                         if parts else None)
        else:
            try:
                os.makedirs(self.path, exist_ok=True)
            except OSError as exc:
                raise ValueError(f"out={self.path!r}: cannot create the sweep's directory "
                                 f"({exc.strerror}); give a writable path") from exc
            with open(info + "~", "w") as fh:
                json.dump(self.meta, fh, indent=1, sort_keys=True)
            os.replace(info + "~", info)
            self.done = None
        self._n = len(self.parts())

    def parts(self):
        return sorted(os.path.join(self.path, f) for f in os.listdir(self.path)
                      if f.startswith("part-") and f.endswith(".parquet"))

    def add(self, idx, out):
        """Buffer the output columns ``out`` of finished runs ``idx``; written when enough
        rows or time passed."""
        self.buffer.add(idx, out)
        wait = time.monotonic() - self.last
        if ((self.buffer.n >= self.flush_rows and wait >= MIN_INTERVAL)
                or wait >= self.flush_seconds):
            self.flush()

    def flush(self):
        """Write the buffered rows as one part (atomically)."""
        if not self.buffer.n:
            return
        frame = self.buffer.frame(_pandas())
        base = f"part-{self._n:05d}-{uuid.uuid4().hex[:8]}.parquet"
        tmp = os.path.join(self.path, "_writing-" + base)   # '_' files: ignored by readers
        frame.to_parquet(tmp, index=False, engine="pyarrow")
        os.replace(tmp, os.path.join(self.path, base))
        self._n += 1
        self.buffer.clear()
        self.last = time.monotonic()
