"""Where the tasks of a sweep run: serially, on threads, on processes, on a Dask cluster.

Every backend takes tasks through one window of two tasks per worker in flight (one
running, one queued behind it: a worker never waits for the client while a task of
50-200 ms runs; more when the client's turn over all workers is longer than a task,
:meth:`mechdae.sweep._schedule.Chunks.depth`), so a sweep of 10^6 runs never floods an
executor or a scheduler; on Dask the window follows the cluster's threads as workers
join or leave. Finished tasks come
back one at a time through :meth:`next_done` (a queue fed by completion callbacks; Dask's
``as_completed``): the client's cost per task does not grow with the window, as waiting
on the whole window for its first finished task would (O(workers) per task).

Threads (and the serial backend) use the System object itself; processes and Dask
workers receive it pickled once (a process pool's initializer; a Dask ``scatter``) and
keep it in a cache keyed by its content hash (:mod:`mechdae.sweep._tasks`).
"""
import concurrent.futures as cf
import multiprocessing
import os
import queue
import time

from . import _tasks

__all__ = ["make_backend"]

_SCHEMES = ("tcp://", "tls://", "inproc://", "ucx://", "ws://", "wss://")


def _is_dask_client(obj):
    return type(obj).__module__.split(".")[0] == "distributed" and hasattr(obj, "scatter")


class _Serial:
    name = "serial"
    workers = 1

    def start(self, items):
        self.objs = dict(items)
        self.finished = []

    def window(self):
        """Tasks in flight at most: 1 serially, else two per worker."""
        return 1 if self.name == "serial" else 2 * self.workers

    def submit(self, keys, idx, cols):
        f = cf.Future()
        self.finished.append((f, keys, idx, cols))      # run when taken: next_done
        return f

    def next_done(self):
        """One finished task (blocks until one is; serially: runs it now)."""
        f, (sk, pk), idx, cols = self.finished.pop(0)
        f.set_result(_tasks.run_chunk(sk, self.objs[sk], pk, self.objs[pk], idx, cols))
        return f

    def cancel(self, pending):
        pass

    def close(self):
        pass


class _Pool(_Serial):
    """A ``concurrent.futures`` executor: ours (closed at the end) or the caller's."""

    def __init__(self, ex, name, own, pickled, workers):
        self.ex, self.name, self.own, self.pickled = ex, name, own, pickled
        self.workers = workers

    def start(self, items):
        self.objs = {k: (_tasks.dumps(o) if self.pickled else o) for k, o in items}
        self.finished = queue.SimpleQueue()

    def submit(self, keys, idx, cols):
        sk, pk = keys
        f = self.ex.submit(_tasks.run_chunk, sk, self.objs[sk], pk, self.objs[pk], idx, cols)
        f.add_done_callback(self.finished.put)
        return f

    def next_done(self):
        while True:                 # a timeout: Ctrl-C is seen while waiting
            try:
                return self.finished.get(timeout=0.25)
            except queue.Empty:
                pass

    def cancel(self, pending):
        for f in pending:
            f.cancel()

    def close(self):
        if self.own:
            self.ex.shutdown(wait=True, cancel_futures=True)


class _Processes(_Pool):
    """Our own pool of ``workers`` spawned processes; the objects go to each worker once,
    by the pool's initializer."""

    def __init__(self, workers):
        super().__init__(None, "processes", True, True, workers)

    def start(self, items):
        payload = [(k, _tasks.dumps(o)) for k, o in items]
        self.ex = cf.ProcessPoolExecutor(self.workers,
                                         mp_context=multiprocessing.get_context("spawn"),
                                         initializer=_tasks.install, initargs=(payload,))
        self.objs = {k: None for k, _ in items}      # installed: tasks carry keys only
        self.finished = queue.SimpleQueue()


class _Dask(_Serial):
    """A ``dask.distributed.Client`` (or a scheduler address: a client of ours)."""

    #: seconds between two looks at the cluster's size (an adaptive cluster grows)
    RESIZE_EVERY = 2.0

    def __init__(self, client, own):
        self.client, self.own, self.name = client, own, "dask"
        self.workers = max(1, sum(client.nthreads().values()))
        self.looked = time.monotonic()

    def start(self, items):
        from distributed import as_completed
        # pickled bytes, scattered once: a worker loads each object once (cache by key)
        self.objs = {k: self.client.scatter(_tasks.dumps(o), hash=False) for k, o in items}
        self.finished = as_completed()

    def window(self):
        if time.monotonic() - self.looked > self.RESIZE_EVERY:
            self.looked = time.monotonic()
            self.workers = max(1, sum(self.client.nthreads().values()))
        return 2 * self.workers

    def submit(self, keys, idx, cols):
        sk, pk = keys
        f = self.client.submit(_tasks.run_chunk, sk, self.objs[sk], pk, self.objs[pk],
                               idx, cols, pure=False)
        self.finished.add(f)
        return f

    def next_done(self):
        return next(self.finished)

    def cancel(self, pending):
        if pending:
            self.client.cancel(list(pending))

    def close(self):
        if getattr(self, "finished", None) is not None:
            self.finished.clear()
        for f in getattr(self, "objs", {}).values():
            f.release()
        if self.own:
            self.client.close()


def make_backend(executor, workers=None):
    """The backend for ``executor``: None / "serial", "threads", "processes", a
    ``concurrent.futures.Executor``, a ``dask.distributed.Client`` or a scheduler address
    (``"tcp://host:8786"``)."""
    if workers is not None and (int(workers) != workers or workers < 1):
        raise ValueError(f"sweep: workers must be a positive integer, got {workers!r}")
    n = int(workers or os.cpu_count() or 1)
    if executor is None or executor == "serial":
        return _Serial()
    if executor == "threads":
        return _Pool(cf.ThreadPoolExecutor(n), "threads", True, False, n)
    if executor == "processes":
        return _Processes(n)
    if isinstance(executor, cf.ThreadPoolExecutor):
        return _Pool(executor, "threads", False, False, getattr(executor, "_max_workers", n))
    if isinstance(executor, cf.Executor):
        return _Pool(executor, "executor", False, True, getattr(executor, "_max_workers", n))
    if _is_dask_client(executor):
        return _Dask(executor, own=False)
    if isinstance(executor, str) and (executor.startswith(_SCHEMES) or ":" in executor):
        try:
            from distributed import Client
        except ImportError:
            raise ImportError("a Dask scheduler address needs dask.distributed: pip install "
                              "'mechdae[dist]'") from None
        return _Dask(Client(executor), own=True)
    raise ValueError(f"sweep: executor must be None, 'serial', 'threads', 'processes', a "
                     f"concurrent.futures.Executor, a dask.distributed.Client or a scheduler "
                     f"address ('tcp://host:8786'), got {executor!r}")
