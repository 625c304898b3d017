"""What a worker runs: one task of a sweep (a chunk of runs), with the System and the plan
cached per process by content hash (a sweep of 10^4 tasks loads its System once per
worker). A task returns its runs' outputs as columns (float arrays where every value is a
float), the seconds its runs took (what sizes the next tasks, :mod:`._schedule`) and the
seconds this process spent loading objects since its last report (its start-up)."""
import collections
import os
import pickle
import threading
import time

import numpy as np

__all__ = ["SimulatePlan", "ImpactPlan", "run_chunk", "install", "dumps", "pack"]

_CACHE = collections.OrderedDict()
_CACHE_MAX = 16
_CACHE_LOCK = threading.Lock()
_LOADS = [0, 0, 0.0]    # objects unpickled by this process, how many were reported, and
                        # the seconds spent unpickling not yet reported


def dumps(obj):
    """Pickle with cloudpickle where installed (functions of model files and lambdas
    travel by value), else with pickle."""
    try:
        import cloudpickle
    except ImportError:
        return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return cloudpickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)


def _cached(key, payload):
    """The object of ``key``: from this process's cache, else loaded from ``payload``
    (pickled bytes, or the object itself) and kept."""
    with _CACHE_LOCK:
        obj = _CACHE.get(key)
        if obj is not None:
            _CACHE.move_to_end(key)
            return obj
    if payload is None:
        raise RuntimeError(f"sweep worker (pid {os.getpid()}): object {key[:12]} is neither "
                           "cached nor sent")
    if isinstance(payload, (bytes, bytearray)):
        t0 = time.perf_counter()
        obj = pickle.loads(payload)
        with _CACHE_LOCK:
            _LOADS[0] += 1
            _LOADS[2] += time.perf_counter() - t0
    else:
        obj = payload
    with _CACHE_LOCK:
        obj = _CACHE.setdefault(key, obj)
        while len(_CACHE) > _CACHE_MAX:
            _CACHE.popitem(last=False)
    return obj


def install(items):
    """Process-pool initializer: load ``[(key, payload), ...]`` into the cache once."""
    for key, payload in items:
        _cached(key, payload)


def run_chunk(sys_key, sys_payload, plan_key, plan_payload, idx, cols):
    """Run the rows ``idx`` (their input columns ``cols``).

    Returns
    -------
    dict
        ``idx``; ``out`` the output columns; ``seconds`` the time the runs took here
        (``cpu_seconds``: the CPU time of this thread, what the runs cost on a loaded
        machine);
        ``pid``; ``loads`` the objects this process loaded since its last report and
        ``load_seconds`` the time that took (a worker's start-up); ``span`` (thread id,
        start, end) of the runs on this process's clock: the gap between two tasks of
        one worker thread is what a task costs it beyond its runs.
    """
    system = _cached(sys_key, sys_payload)
    plan = _cached(plan_key, plan_payload)
    t0, c0 = time.perf_counter(), time.thread_time()
    try:
        out = plan.run(system, cols)
    except KeyboardInterrupt as exc:
        # Ctrl-C: the rows finished before it go with the interrupt (to be stored); the
        # interrupted row is not a row (a resumed sweep runs it again)
        n, part = getattr(exc, "sweep_rows", (0, None))
        exc.sweep_chunk = (dict(idx=idx[:n], out=part, pid=os.getpid(), loads=0,
                                load_seconds=0.0, seconds=time.perf_counter() - t0,
                                cpu_seconds=time.thread_time() - c0)
                           if n else None)
        raise
    t1 = time.perf_counter()
    seconds, cpu = t1 - t0, time.thread_time() - c0
    with _CACHE_LOCK:
        loads, _LOADS[1] = _LOADS[0] - _LOADS[1], _LOADS[0]
        load_seconds, _LOADS[2] = _LOADS[2], 0.0
    return dict(idx=idx, out=out, seconds=seconds, cpu_seconds=cpu, pid=os.getpid(),
                loads=loads, load_seconds=load_seconds, span=(threading.get_ident(), t0, t1))


def pack(values):
    """A column of a task: a float array when every value is a float (the common case:
    cheap to pickle, no object per row), else the list of values."""
    if all(type(v) is float for v in values):
        return np.array(values, dtype=np.float64)
    return list(values)


def _error_text(exc):
    return f"{type(exc).__name__}: {exc}"


class _Plan:
    """Where a row's columns go, and the fixed values (shared by both kinds of sweep)."""

    #: set by the sweep on Ctrl-C: a chunk running on a thread starts no further row
    #: (only the main thread receives the signal); not pickled
    stopped = False

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("stopped", None)
        return state

    def __init__(self, table, state):
        self.route = dict(table.route)
        self.fixed = {k: dict(v) for k, v in table.fixed.items()}
        self.state = state

    def _free(self, cols):
        return {t: cols[c] for c, (k, t) in self.route.items() if k == "x"}

    def arguments(self, cols, i=None):
        """``(params, q0, v0)`` of row ``i`` (or of all rows, as arrays, for ``i=None``)."""
        p, q, v = (dict(self.fixed[k]) for k in ("params", "q0", "v0"))
        pick = (lambda a: a) if i is None else (lambda a: float(a[i]))
        if self.state is not None:
            sq, sv = self.state(**{k: pick(a) for k, a in self._free(cols).items()})
            q.update(sq or {})
            v.update(sv or {})
        for c, (k, t) in self.route.items():
            if k != "x":
                {"p": p, "q": q, "v": v}[k][t] = pick(cols[c])
        return p, q, v


class SimulatePlan(_Plan):
    """One ``System.simulate`` per row, summarized by the outputs."""

    kind = "simulate"

    def __init__(self, table, state, t_final, outputs, method, options):
        super().__init__(table, state)
        self.t_final = float(t_final)
        self.outputs = outputs
        self.method = method
        self.options = dict(options)

    def run_one(self, system, cols, i):
        from .._progress import running
        from ._outputs import evaluate_outputs
        try:
            p, q, v = self.arguments(cols, i)
            with running("", 0.0, 1.0, progress=False):    # no bar per run inside a sweep
                res = system.simulate(self.t_final, q0=q or None, v0=v or None,
                                      params=p or None, method=self.method, **self.options)
            vals = evaluate_outputs(self.outputs, res)
            return vals, "ok", "", float(res.t[-1]) if res.t.size else np.nan
        except Exception as exc:          # a failing run is a row with its error
            part = getattr(exc, "partial", None)
            t_end = float(part.t[-1]) if part is not None and np.size(part.t) else np.nan
            return {}, "failed", _error_text(exc), t_end

    def run(self, system, cols):
        """The output columns of the rows ``cols``: each output, ``status``, ``error``
        (lists of strings) and ``t_end``; outputs and ``t_end`` as :func:`pack` gives."""
        n = len(next(iter(cols.values()))) if cols else 0
        names = [name for name, _ in self.outputs]
        out = {name: [] for name in names}
        out.update(status=[], error=[], t_end=[])
        for i in range(n):
            try:
                if self.stopped:
                    raise KeyboardInterrupt("sweep stopped (Ctrl-C)")
                vals, status, err, t_end = self.run_one(system, cols, i)
            except KeyboardInterrupt as exc:           # Ctrl-C: see run_chunk
                exc.sweep_rows = (i, self._packed({k: v[:i] for k, v in out.items()}))
                raise
            for name in names:
                out[name].append(vals.get(name, np.nan))
            out["status"].append(status)
            out["error"].append(err)
            out["t_end"].append(t_end)
        return self._packed(out)

    @staticmethod
    def _packed(out):
        return {k: (v if k in ("status", "error") else pack(v)) for k, v in out.items()}


class ImpactPlan(_Plan):
    """``System.impact_batch`` over the rows of a chunk (one vectorized call; rows one by
    one only when the chunk fails, so that each failure lands in its own row)."""

    kind = "impact"

    def __init__(self, table, state, active, t, method, options):
        super().__init__(table, state)
        self.active = active
        self.t = float(t)
        self.method = method
        self.options = dict(options)

    def _solve(self, system, p, q, v):
        return system.impact_batch(q, v, active=self.active, params=p, t=self.t,
                                   method=self.method, energy="report", **self.options)

    @staticmethod
    def keys(system):
        """The output columns, in order."""
        return (["status", "n_solutions"] + [f"mode.{c}" for c in system.contact_names]
                + [f"P.{r}" for r in system.contact_rows]
                + [f"v_plus.{u}" for u in system.u_names]
                + ["energy_before", "energy_after", "exhaustive", "error"])

    def _columns(self, system, out, n):
        cols = {"status": list(out.status), "n_solutions": np.asarray(out.n_solutions, float)}
        for c in system.contact_names:
            if c in out.active:
                cols[f"mode.{c}"] = list(out.mode(c))
            else:
                cols[f"mode.{c}"] = ["inactive"] * n
        for r in system.contact_rows:
            c, comp = r.rsplit(".", 1)
            k = 0 if comp == "n" else 1 + int(comp[1:])
            cols[f"P.{r}"] = (out.impulse(c, k).astype(float) if c in out.active
                              else np.zeros(n))
        for j, u in enumerate(system.u_names):
            cols[f"v_plus.{u}"] = out.v_plus_array[:, j].astype(float)
        cols["energy_before"] = np.asarray(out.energy_before, float)
        cols["energy_after"] = np.asarray(out.energy_after, float)
        cols["exhaustive"] = np.asarray(out.exhaustive, bool)
        cols["error"] = [""] * n
        return cols

    def _vector_args(self, system, cols, n):
        """Arguments of all rows as arrays (n,): the state function called once on arrays,
        or once per row where it takes scalars only."""
        try:
            p, q, v = self.arguments(cols)
            for d in (q, v):
                for k, a in d.items():
                    if np.ndim(a) and np.size(a) != n:
                        raise ValueError(f"{k}: {np.size(a)} values for {n} rows")
        except (TypeError, ValueError):
            if self.state is None:
                raise
            rows = [self.arguments(cols, i) for i in range(n)]
            p, q, v = ({k: np.array([r[j][k] for r in rows], float) for k in rows[0][j]}
                       for j in range(3))
        q, v = ({k: np.broadcast_to(np.asarray(a, float), (n,)) for k, a in d.items()}
                for d in (q, v))
        if not q:           # impact_batch counts the states by the arrays it is given
            q = {system.q_names[0]: np.full(n, system.q_defaults[0])}
        return p, q, v

    def run(self, system, cols):
        n = len(next(iter(cols.values()))) if cols else 0
        try:
            p, q, v = self._vector_args(system, cols, n)
            return self._columns(system, self._solve(system, p, q, v), n)
        except Exception:
            pass
        rows = []                          # isolate the failing rows
        for i in range(n):
            try:
                p, q, v = self.arguments(cols, i)
                rows.append(self._columns(system, self._solve(system, p, q, v), 1))
            except Exception as exc:
                rows.append(exc)
        keys = self.keys(system)
        out = {k: [] for k in keys}
        for r in rows:
            for k in keys:
                if isinstance(r, Exception):
                    val = ("failed" if k == "status" else _error_text(r) if k == "error"
                           else "" if k.startswith("mode.") else False if k == "exhaustive"
                           else np.nan)
                else:
                    val = r[k][0]
                out[k].append(val)
        return out
