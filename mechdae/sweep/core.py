"""The sweep driver: table of runs -> chunks -> backend -> DataFrame (and Parquet parts)."""
import hashlib
import time
import uuid
import weakref

import numpy as np

from ._backends import make_backend
from ._collect import Columns
from ._outputs import describe, parse_outputs
from ._schedule import Chunks
from ._table import RunTable
from ._tasks import ImpactPlan, SimulatePlan

__all__ = ["sweep", "impact_sweep", "content_hash"]

_HASHES = weakref.WeakKeyDictionary()


def content_hash(system):
    """Hash of what a System computes: its compiled CasADi Functions (serialized), names,
    defaults, gains and contact laws. Equal for the same model compiled in two processes
    (a pickle is not: it holds object ids); the key of a worker's cache and of a stored
    sweep."""
    h = _HASHES.get(system)
    if h is None:
        d = hashlib.sha256()
        for k in sorted(system.functions):
            d.update(k.encode())
            d.update(system.functions[k].serialize().encode())
        for attr in ("name", "q_names", "u_names", "v_names", "z_names", "p_names", "w_names",
                     "contact_names", "contact_rows", "output_names"):
            d.update(repr((attr, list(getattr(system, attr, []) or []))).encode()
                     if attr != "name" else system.name.encode())
        for attr in ("q_defaults", "u_defaults", "v_defaults", "p_defaults", "H", "K", "H_g",
                     "K_g"):
            d.update(np.ascontiguousarray(getattr(system, attr, ()), dtype=float).tobytes())
        d.update(repr([sorted((k, repr(v)) for k, v in c.items())
                       for c in system.contacts]).encode())
        d.update(repr((system.stabilization, getattr(system, "projection", None))).encode())
        h = _HASHES[system] = d.hexdigest()
    return h


def _pandas():
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("a sweep returns a pandas DataFrame: pip install 'mechdae[io]'") \
            from None
    return pd


def _check_names(system, plan, table):
    """Unknown parameter or state names raise before anything runs (from row 0)."""
    if not table.n:
        return
    try:
        p, q, v = plan.arguments(table.chunk(np.arange(1)), 0)
    except Exception:       # the state function fails on row 0: that row's error
        p = dict(plan.fixed["params"], **{t: 0 for c, (k, t) in plan.route.items() if k == "p"})
        q, v = plan.fixed["q0"], plan.fixed["v0"]
    system.param_vector({k: 1.0 for k in p})
    system.state_arrays({k: 0.0 for k in q}, {k: 0.0 for k in v})


def _check_chunk(chunk):
    if chunk is None:
        return None
    if int(chunk) != chunk or chunk < 1:
        raise ValueError(f"sweep: chunk must be a positive integer, got {chunk!r}")
    return int(chunk)


class _Tally:
    """What the tasks reported: objects loaded and the seconds it took, per worker
    process (its start-up), and the seconds the runs took."""

    def __init__(self):
        self.loads, self.load_seconds, self.run_seconds, self.tasks = 0, {}, 0.0, 0
        self.run_cpu = 0.0
        self.pids = set()

    def add(self, r):
        self.loads += r["loads"]
        self.pids.add(r["pid"])
        if r["load_seconds"]:
            self.load_seconds[r["pid"]] = self.load_seconds.get(r["pid"], 0.0) \
                + r["load_seconds"]
        self.run_seconds += r["seconds"]
        self.run_cpu += r["cpu_seconds"]
        self.tasks += 1


def _execute(system, table, plan, meta, executor, workers, chunk, out, progress):
    pd = _pandas()
    from .._progress import advance, running
    from ._store import Store
    t_start = time.perf_counter()
    fixed = _check_chunk(chunk)
    store = Store(out, meta, table) if out is not None else None
    done = store.done if store is not None else None
    todo = np.ones(table.n, bool)
    if done is not None and len(done):
        todo[done["run"].to_numpy(dtype=int)] = False
    todo = np.flatnonzero(todo)
    backend = make_backend(executor, workers)
    chunks = Chunks(todo, plan.kind, backend.workers, fixed)
    keys = (content_hash(system), f"plan-{uuid.uuid4().hex}")
    cols, tally = Columns(table), _Tally()
    n_done = table.n - todo.size
    with running(f"sweep {system.name}", 0, table.n, progress, unit="run"):
        advance(n_done)
        pending = set()
        try:
            backend.start([(keys[0], system), (keys[1], plan)])

            def fill():
                # until a run time is measured, one probe task per worker (not a window
                # of them: two tasks of one run per worker would cost the scheduler twice)
                while len(pending) < (backend.window() * chunks.depth() // 2
                                      if chunks.measured else backend.workers):
                    chunks.workers = backend.workers
                    idx = chunks.next()
                    if idx is None:
                        return
                    pending.add(backend.submit(keys, idx, table.chunk(idx)))

            def take(r):
                nonlocal n_done
                cols.add(r["idx"], r["out"])
                if store is not None:
                    store.add(r["idx"], r["out"])
                tally.add(r)
                chunks.observe(len(r["idx"]), r["seconds"], r["pid"], r.get("span"))
                n_done += len(r["idx"])
                advance(n_done)

            fill()
            while pending:
                f = backend.next_done()
                pending.discard(f)
                t0 = time.perf_counter()
                take(f.result())
                fill()
                chunks.client_tick(t0)
        except KeyboardInterrupt as exc:
            plan.stopped = True                 # chunks running on threads: no next row
            backend.cancel(pending)
            if getattr(exc, "sweep_chunk", None):     # rows finished in the stopped chunk
                take(exc.sweep_chunk)
            raise _interrupted(system, done, cols.frame(pd), out, table.n) from exc
        except BaseException:
            backend.cancel(pending)
            raise
        finally:
            if store is not None:
                store.flush()
            backend.close()
    df = _frame(pd, done, cols.frame(pd))
    df.attrs["sweep"] = dict(backend=backend.name, workers=backend.workers,
                             chunk=chunks.steady(), tasks=len(chunks.sizes), runs=table.n,
                             ran=int(todo.size), resumed=table.n - int(todo.size),
                             failed=int((df["status"] == "failed").sum()) if len(df) else 0,
                             seconds=time.perf_counter() - t_start,
                             run_seconds=tally.run_seconds, run_cpu_seconds=tally.run_cpu,
                             client_seconds=chunks.client[1],
                             task_overhead=chunks.task_overhead,
                             loads=tally.loads, processes=len(tally.pids),
                             load_seconds=max(tally.load_seconds.values(), default=0.0))
    return df


def _frame(pd, done, new):
    """The rows held (``done``, from ``out``) and run (``new``), indexed by run."""
    parts = [p for p in (done, new) if p is not None and len(p)]
    if len(parts) > 1:
        df = pd.concat(parts, ignore_index=True).sort_values("run")
    elif parts:
        df = parts[0].sort_values("run")
    else:
        df = pd.DataFrame({"run": np.zeros(0, int)})
    return df.set_index("run")


def _interrupted(system, done, new, out, n):
    """The KeyboardInterrupt of a sweep stopped by Ctrl-C: ``partial`` the DataFrame of the
    rows finished (the interrupted runs are not rows: a resumed sweep runs them)."""
    df = _frame(_pandas(), done, new)
    where = (f"they are in {out}; run the same sweep with out={out!r} again to run the "
             f"other {n - len(df)}" if out is not None else
             "they are in err.partial; give out= to make a sweep resumable")
    err = KeyboardInterrupt(f"sweep {system.name}: interrupted (Ctrl-C) after {len(df)} of "
                            f"{n} runs; {where}")
    err.partial = df
    return err


def _meta(kind, system, table, state, **spec):
    return dict(kind=kind, system=content_hash(system), runs=table.n, inputs=table.digest(),
                state=None if state is None else
                f"{getattr(state, '__module__', '')}.{getattr(state, '__qualname__', '')}",
                spec=repr(sorted((k, repr(v)) for k, v in spec.items())))


def sweep(system, params=None, q0=None, v0=None, *, t_final, grid=None, samples=None,
          state=None, outputs=None, method="auto", executor=None, workers=None, chunk=None,
          out=None, progress=None, **options):
    """Simulate ``system`` once per point of a grid or row of a table; one row per run.

    Parameters
    ----------
    system : System
    params, q0, v0 : dict, optional
        By name: an array is a grid axis, a scalar a fixed value. Initial-value columns are
        named ``"q0.<name>"`` / ``"v0.<name>"``.
    t_final : float
        End time of every run (s).
    grid : dict name -> array, optional
        More axes: parameter names, ``"q0.x"`` / ``"v0.x"``, or free variables of ``state``.
    samples : pandas.DataFrame or dict of equal-length arrays, optional
        One row per sample (columns named as in ``grid``); crossed with the grid axes.
    state : callable, optional
        ``state(**free_variables) -> (q0, v0)`` dicts by name, for columns that are
        neither parameters nor initial values (e.g. a drop height mapped to a state).
    outputs : dict name -> spec, list of specs, or None
        Scalar summaries of each Result (see :mod:`mechdae.sweep._outputs`): ``"x"``,
        ``"max(x)"``, ``"count(impact)"``, ``"first(liftoff, B)"``, ``"max_residual"``,
        ``"energy_lost"``, or ``f(result)``. Default: the final coordinates and speeds and
        the number of events.
    method, **options
        As :meth:`System.simulate` (``rtol``, ``atol``, ``output_times``, ...); an option
        the method does not take, a non-finite ``t_final`` or a smooth-only method on a
        model with contacts raise before any run (:func:`mechdae.simulate.check_call`).
    executor : None, "serial", "threads", "processes", Executor, dask Client or address
        Where the runs go (see :mod:`mechdae.sweep`); ``workers`` sizes the pools of ours.
    chunk : int, optional
        Runs per task. Default: sized from the run time measured as the sweep goes, tasks
        of about 0.1 s (the first tasks carry one run), at most a quarter of the runs left
        per worker (see :mod:`mechdae.sweep._schedule`).
    out : path, optional
        A directory of Parquet parts, written as runs finish; given again, the sweep runs
        only the rows it does not hold yet.
    progress : bool or None
        A bar counting runs (None: when standard error is a terminal).

    Returns
    -------
    pandas.DataFrame
        Index ``run``; the input columns, the outputs, ``status`` (``"ok"`` or
        ``"failed"``), ``error`` (the exception, ``""`` if none) and ``t_end`` (the time
        reached: ``t_final``, or where a failed run stopped). ``df.attrs["sweep"]``: the
        backend, ``workers``, ``chunk`` (the largest task, runs) and ``tasks``, the counts
        (``runs``, ``ran``, ``resumed``, ``failed``), ``seconds`` (wall time),
        ``run_seconds`` (the runs' time on the workers, summed; ``run_cpu_seconds`` their
        CPU time), ``client_seconds`` (the
        client's time taking results and submitting), ``task_overhead`` (a worker's
        seconds per task outside its runs, measured), ``loads`` / ``processes`` /
        ``load_seconds`` (objects unpickled, worker processes seen, the longest start-up
        of one).

    Raises
    ------
    KeyboardInterrupt
        On Ctrl-C, within about a run (serial: at once); ``err.partial`` is the DataFrame
        of the rows finished (``out`` holds them too). The interrupted runs are not rows:
        run the same sweep with ``out`` again to run them.

    Examples
    --------
    >>> df = ball.sweep(params={"e": np.linspace(0.5, 0.9, 5)}, q0={"y": [1.0, 2.0]},
    ...                 t_final=2.0, outputs={"impacts": "count(impact)"})  # doctest: +SKIP
    """
    from ..simulate import check_call
    check_call(system, t_final, method, options)    # a bad option fails once, before any run
    table = RunTable(system, grid, samples, params, q0, v0, state)
    parsed = parse_outputs(outputs, system)
    plan = SimulatePlan(table, state, t_final, parsed, method, options)
    _check_names(system, plan, table)
    meta = _meta("simulate", system, table, state, t_final=float(t_final), method=method,
                 outputs=describe(parsed), options=options)
    return _execute(system, table, plan, meta, executor, workers, chunk, out, progress)


def impact_sweep(system, q=None, v=None, params=None, *, grid=None, samples=None, state=None,
                 active=None, t=0.0, method="enum", executor=None, workers=None, chunk=None,
                 out=None, progress=None, **options):
    """Solve the impact problem of ``system`` at every point of a grid or row of a table.

    Each task solves its chunk of rows with one :meth:`System.impact_batch` call (rows
    one by one only when the chunk fails, so a failing row carries its own error).

    Parameters
    ----------
    q, v, params : dict, optional
        By name: an array is a grid axis, a scalar a fixed value; state columns are named
        ``"q.<name>"`` / ``"v.<name>"``.
    grid, samples, state
        As in :func:`sweep`; ``state(**free_variables) -> (q, v)`` (called on arrays of a
        chunk when it accepts them, else once per row), e.g. ``impact_state(alpha, gamma)``
        of models/two_link_impact.py.
    active, t, method, **options
        As :meth:`System.impact_batch` (energy gains are reported as a status).
    executor, workers, chunk, out, progress
        As in :func:`sweep` (default chunk: 256 rows, then sized from the measured time
        per row to tasks of about 0.1 s).

    Returns
    -------
    pandas.DataFrame
        Index ``run``; inputs; ``status`` (``"unique"``, ``"ambiguous"``,
        ``"inconsistent"``, ``"energy_gain"`` or ``"failed"``), ``n_solutions``,
        ``mode.<contact>`` (``"separate"``, ``"stick"``, ``"slide"``, ``"none"`` without a
        solution, ``"inactive"`` for an open contact), ``P.<contact>.n`` / ``.t0`` ...
        (impulses of the first solution), ``v_plus.<speed>``, ``energy_before``,
        ``energy_after``, ``exhaustive`` (bool: the search behind ``status`` and
        ``n_solutions`` was provably complete, as ``ImpactBatchResult.exhaustive``; False
        on failed rows), ``error``.
    """
    table = RunTable(system, grid, samples, params, q, v, state, prefixes=("q.", "v."))
    plan = ImpactPlan(table, state, active, t, method, options)
    _check_names(system, plan, table)
    meta = _meta("impact", system, table, state, active=active, t=float(t), method=method,
                 options=options)
    return _execute(system, table, plan, meta, executor, workers, chunk, out, progress)
