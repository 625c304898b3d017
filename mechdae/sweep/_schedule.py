"""How a sweep cuts its runs into tasks: the size of a task from measured run times.

A task carries ``k`` runs. Too small, and the per-task costs (a scheduler's bookkeeping,
the round trip to the client, pickling the arguments and the columns back: 1-15 ms on
Dask, 0.1-1 ms on a process pool) eat a light run (a 1.5 ms simulation); too large, and
the last tasks keep some workers busy while others idle. With no ``chunk=`` given, the
first tasks (one per worker) carry :data:`FIRST` runs; every finished task reports the
seconds its runs took on the worker and when they started and ended there, and the next
tasks carry as many runs as fill the target time at the run time measured (the median
over the last :data:`RATES` tasks), at least one. With more than one worker a task
carries at most a quarter of the runs left per worker (so the last tasks end together),
but never less than :data:`TAIL_FLOOR` of the target unless that would leave a worker
without a task. The target is :data:`TARGET` seconds, longer where the costs measured
as the sweep goes ask for it:

- a worker's cost per task (the gap between the end of one task's runs and the start of
  the next one's on the same worker thread: receiving, unpickling, sending the columns
  back; ~0.1 ms on a process pool, several ms on Dask on a loaded machine) at most
  :data:`OVERHEAD_SHARE` of a task;
- the client's cost per task (taking the columns, submitting the next) at most
  :data:`TARGET_CLIENT_SHARE` of a task's time per worker, so that hundreds of workers
  do not wait for one client.

The results do not depend on the sizes: every run is computed alone, the same way on
every backend, so a table is identical bit for bit whatever the tasks were.
"""
import collections
import math
import time

import numpy as np

__all__ = ["Chunks", "TARGET", "FIRST"]

#: seconds of runs a task aims at (50-200 ms: per-task costs < 1-2 %, a short tail)
TARGET = 0.1
#: tasks whose run times the size is taken from (their median)
RATES = 16
#: runs in each of the first tasks, before a run time is measured
FIRST = {"simulate": 1, "impact": 256}
#: largest task (runs) whatever the measured time
MAX_RUNS = {"simulate": 100_000, "impact": 65_536}
#: a worker's cost per task (outside its runs) is at most this share of the task
OVERHEAD_SHARE = 0.02
#: the client (taking results, submitting) may use at most this share of a task's time
#: per worker: with W workers a task lasts at least W * client_cost / share
TARGET_CLIENT_SHARE = 0.25
#: longest task the client-cost rule may ask for (s)
TARGET_MAX = 5.0
#: most tasks in flight per worker (:meth:`Chunks.depth`)
MAX_DEPTH = 8
#: tasks per worker kept, at least, in the runs left (a short tail; more than one worker)
TASKS_PER_WORKER = 4
#: ... but a task is never shorter than this share of the target
TAIL_FLOOR = 0.25


class Chunks:
    """The runs ``todo`` (indices) handed out as tasks of adaptive (or fixed) size.

    Parameters
    ----------
    todo : ndarray of int
        The runs still to run, in order.
    kind : {"simulate", "impact"}
    workers : int
        Workers of the backend (tasks run at once).
    fixed : int or None
        A size given by the caller (``chunk=``): every task carries that many runs.
    """

    def __init__(self, todo, kind, workers, fixed=None):
        self.todo, self.kind, self.fixed = np.asarray(todo), kind, fixed
        self.workers = max(1, int(workers))
        self.pos = 0
        self.runs = 0                 # runs measured, and their worker seconds
        self.seconds = 0.0
        self.rates = collections.deque(maxlen=RATES)    # the last tasks' seconds a run
        self.client = [0, 0.0]        # tasks taken by the client, and its seconds on them
        self.gaps = [0, 0.0]          # gaps between tasks on one worker thread, their sum
        self.ends = {}                # (pid, thread) -> end of its last task's runs
        self.sizes = []

    @property
    def run_time(self):
        """Seconds of a run on a worker: the median over the last tasks of their mean run
        time (a worker's first run, slower, does not shrink the tasks for long); None
        before a task ended."""
        return float(np.median(self.rates)) if self.rates else None

    @property
    def measured(self):
        """Whether a task size is known: given, or a run time measured."""
        return self.fixed is not None or self.runs > 0

    @property
    def client_time(self):
        """Mean seconds the client spends per task (taking its result, submitting)."""
        return self.client[1] / self.client[0] if self.client[0] else 0.0

    @property
    def task_overhead(self):
        """Mean seconds a worker spends on a task outside its runs (measured gaps)."""
        return self.gaps[1] / self.gaps[0] if self.gaps[0] else 0.0

    def target(self):
        """Seconds a task should last: :data:`TARGET`, longer when a worker's cost per
        task or the client's (times the workers) would take too large a share."""
        need = max(self.task_overhead / OVERHEAD_SHARE,
                   self.workers * self.client_time / TARGET_CLIENT_SHARE)
        return min(TARGET_MAX, max(TARGET, need))

    def size(self):
        """Runs in the next task."""
        if self.fixed is not None:
            return self.fixed
        r = self.run_time
        if r is None:
            return FIRST[self.kind]
        left = self.todo.size - self.pos
        k = max(1, int(round(self.target() / max(r, 1e-9))))
        if self.workers > 1:        # a short tail: tasks shrink as the runs run out ...
            floor = min(math.ceil(k * TAIL_FLOOR), math.ceil(self.todo.size / self.workers))
            k = min(k, max(math.ceil(left / (TASKS_PER_WORKER * self.workers)), floor))
        return max(1, min(k, MAX_RUNS[self.kind]))

    def depth(self):
        """Tasks in flight per worker: two (one running, one queued), more when the client
        needs longer than a task to serve every worker once (W x its time per task), so
        that a worker's queue never runs dry; at most :data:`MAX_DEPTH`."""
        r = self.run_time
        if r is None or not self.sizes or self.fixed is not None:
            return 2                # (a size given: the caller's window, two per worker)
        task = max(self.sizes[-1] * r, 1e-9)
        need = 1 + math.ceil(self.workers * self.client_time / task)
        return int(min(MAX_DEPTH, max(2, need)))

    def next(self):
        """Indices of the runs of the next task, or None when all are handed out."""
        if self.pos >= self.todo.size:
            return None
        k = self.size()
        idx = self.todo[self.pos:self.pos + k]
        self.pos += idx.size
        self.sizes.append(int(idx.size))
        return idx

    def observe(self, runs, seconds, pid=None, span=None):
        """A task of ``runs`` runs took ``seconds`` on its worker: process ``pid``, its
        runs from ``span[1]`` to ``span[2]`` on thread ``span[0]`` (that process's
        clock)."""
        if runs:
            self.runs += int(runs)
            self.seconds += float(seconds)
            self.rates.append(float(seconds) / int(runs))
        if span is not None:
            key = (pid, span[0])
            last = self.ends.get(key)
            if last is not None and span[1] >= last:
                self.gaps[0] += 1
                self.gaps[1] += span[1] - last
            self.ends[key] = max(span[2], last or span[2])

    def client_tick(self, t0):
        """The client spent ``perf_counter() - t0`` on one task."""
        self.client[0] += 1
        self.client[1] += time.perf_counter() - t0

    def steady(self):
        """The size most tasks carried (the largest handed out), for the record."""
        return max(self.sizes) if self.sizes else 0
