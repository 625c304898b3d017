"""Parameter and initial-condition sweeps: serially, on threads, processes or a Dask cluster.

``System.sweep(...)`` simulates once per point of a grid (the Cartesian product of the
arrays given) or row of a table of samples and returns a pandas DataFrame with one row
per run: the inputs, named scalar outputs of each Result, ``status`` and ``error`` (a
failing run is a row with its error, never the end of the sweep).
``System.impact_sweep(...)`` does the same for impact problems (status, modes, impulses,
post-impact speeds), one vectorized :meth:`System.impact_batch` per chunk.

Backends (``executor=``): None runs serially; ``"threads"`` and ``"processes"`` use a
pool of ``workers`` on this machine (processes are spawned, and receive the System once
each); a ``concurrent.futures.Executor`` of the caller's; a ``dask.distributed.Client`` or
a scheduler address (``"tcp://host:8786"``) runs on a Dask cluster, the same call from a
laptop to many machines. Runs travel in tasks sized from the measured run time (about
0.1 s of runs each) through a window of two tasks per worker, and come back as columns
(numpy arrays per task); every worker process keeps the Systems it received in a cache
keyed by :func:`content_hash`, so it loads a System once, not once per task.
``out="results.parquet"`` streams finished rows to a directory of Parquet parts; the same
call with the same ``out`` resumes.
"""
from .core import content_hash, impact_sweep, sweep

__all__ = ["sweep", "impact_sweep", "content_hash"]
