"""Sweeps in tasks sized from the measured run time (issue 32): light runs batched many to
a task, columns (arrays) back from the workers, tables identical bit for bit across
backends and task sizes, failing runs still rows, a resumed sweep running only the
missing runs; physics checked against the bouncing ball's closed-form accumulation time."""
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd
import pytest

import mechdae as md
from conftest import model_module
from mechdae.sweep import _schedule, _tasks

G = 9.81


@pytest.fixture(scope="module")
def ball():
    return model_module("bouncing_ball").build().compile(stabilization=None)


def _ball_kw(n_e=6, n_mu=4, **extra):
    """The ball with friction through its accumulation point: dropped from 1 m (center at
    1.1) with 1 m/s sideways, t_final = 5 s past t_inf (~1.5 ms a run)."""
    return dict(params={"e": np.linspace(0.6, 0.8, n_e), "mu": np.linspace(0.1, 0.5, n_mu)},
                q0={"y": 1.1}, v0={"x": 1.0}, t_final=5.0, method="event",
                outputs={"t_inf": "first(accumulation)", "impacts": "count(impact)",
                         "x": "x", "vx": "der(x)"}, **extra)


def test_light_runs_are_batched_many_to_a_task(ball):
    df = ball.sweep(**_ball_kw(8, 5))
    info = df.attrs["sweep"]
    # 40 runs of ~1.5 ms: a first task of one run, then tasks of many (a quarter of the
    # runs left per worker caps them: 39 / 4 -> 10)
    assert info["chunk"] > 1 and info["tasks"] < info["runs"] / 2, info
    assert info["run_seconds"] > 0 and info["run_seconds"] <= info["seconds"]
    # vertical motion is frictionless-free fall: t_inf = sqrt(2h/g) (1 + 2e/(1-e))
    h = 1.0
    t_inf = np.sqrt(2 * h / G) * (1 + 2 * df["e"] / (1 - df["e"]))
    np.testing.assert_allclose(df["t_inf"], t_inf, rtol=1e-6)
    assert (df["status"] == "ok").all()
    # friction stops the sliding by the end: at rest, x at its final value
    np.testing.assert_allclose(df["vx"], 0.0, atol=1e-9)


def test_chunk_size_from_the_measured_run_time():
    todo = np.arange(100_000)
    c = _schedule.Chunks(todo, "simulate", workers=16)
    assert c.next().size == _schedule.FIRST["simulate"] == 1
    c.observe(10, 0.015)                          # 1.5 ms a run: 0.1 s / 1.5 ms = 67 runs
    assert c.next().size == round(_schedule.TARGET / 1.5e-3)
    c.observe(1, 2.0)                             # mean now 2.015 s / 11 runs: 1 a task
    assert c.next().size == 1
    # many workers and a client costing 1 ms a task: tasks of 256 * 1 ms / 0.25 = 1.02 s
    big = _schedule.Chunks(np.arange(10 ** 6), "simulate", workers=256)
    big.observe(100, 0.15)
    big.client = [10, 0.01]
    assert big.target() == pytest.approx(256 * 1e-3 / _schedule.TARGET_CLIENT_SHARE)
    assert big.next().size == round(big.target() / 1.5e-3)
    # a worker losing 5 ms between two tasks (Dask on a loaded machine): tasks of
    # 5 ms / 2 % = 0.25 s
    slow = _schedule.Chunks(np.arange(10 ** 6), "simulate", workers=2)
    slow.observe(60, 0.09, pid=1, span=(7, 10.0, 10.09))
    slow.observe(60, 0.09, pid=1, span=(7, 10.095, 10.185))
    assert slow.task_overhead == pytest.approx(5e-3)
    assert slow.target() == pytest.approx(5e-3 / _schedule.OVERHEAD_SHARE)
    assert slow.next().size == round(0.25 / 1.5e-3)
    # tasks in flight per worker: 2, more when the client's turn over all workers (256 x
    # 1 ms) outlasts a task (e.g. capped at 0.1 s: 1 + 0.256 / 0.1 -> 4)
    assert big.depth() == 2
    big.sizes.append(67)
    assert big.depth() == 1 + int(np.ceil(0.256 / (67 * 1.5e-3)))
    # ... unless the runs left are too few for 4 such tasks per worker: 10^5 / 1024 (the
    # floor, a quarter of 683 runs, is higher: 171)
    few = _schedule.Chunks(todo, "simulate", workers=256)
    few.observe(100, 0.15)
    few.client = [10, 0.01]
    assert few.next().size == np.ceil(round(few.target() / 1.5e-3) / 4)
    # the tail: at most a quarter of the runs left per worker (400 / 8 = 50), but not
    # below a quarter of the target (67 / 4 -> 17)
    short = _schedule.Chunks(np.arange(400), "simulate", workers=2)
    short.observe(10, 0.015)
    assert [short.next().size for _ in range(4)] == [50, 44, 39, 34]
    short.pos = 300
    assert short.next().size == 17
    # one worker: no tail to balance, every task of the target size
    one = _schedule.Chunks(np.arange(400), "simulate", workers=1)
    one.observe(10, 0.015)
    assert one.next().size == 67
    # a size given by the caller is kept
    fixed = _schedule.Chunks(todo, "simulate", workers=2, fixed=7)
    fixed.observe(10, 1e-4)
    assert fixed.next().size == 7


def test_a_task_returns_columns_not_rows(ball):
    from mechdae.sweep._outputs import parse_outputs
    from mechdae.sweep._table import RunTable
    kw = _ball_kw(3, 1)
    table = RunTable(ball, None, None, kw["params"], kw["q0"], kw["v0"], None)
    plan = _tasks.SimulatePlan(table, None, 5.0, parse_outputs(kw["outputs"], ball), "event",
                               {})
    idx = np.arange(table.n)
    r = _tasks.run_chunk("k-ball", ball, "k-plan", plan, idx, table.chunk(idx))
    for name in ("t_inf", "impacts", "x", "vx", "t_end"):
        assert isinstance(r["out"][name], np.ndarray) and r["out"][name].dtype == float
        assert r["out"][name].shape == (3,)
    assert r["out"]["status"] == ["ok"] * 3 and r["seconds"] > 0


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as lc, distributed.Client(lc) as c:
        yield c


def test_identical_across_backends_and_task_sizes(ball, cluster):
    kw = _ball_kw(6, 4)
    ref = ball.sweep(**kw)                          # adaptive sizes, serial
    for chunk in (1, 5, 24):
        pd.testing.assert_frame_equal(ball.sweep(chunk=chunk, **kw), ref)
    pd.testing.assert_frame_equal(ball.sweep(executor="threads", workers=2, **kw), ref)
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        pd.testing.assert_frame_equal(ball.sweep(executor=pool, chunk=3, **kw), ref)
        df = ball.sweep(executor=pool, **kw)
    pd.testing.assert_frame_equal(df, ref)
    df = ball.sweep(executor=cluster, **kw)
    pd.testing.assert_frame_equal(df, ref)
    info = df.attrs["sweep"]
    # the System and the plan loaded once per Dask worker process; their start-up measured
    assert info["processes"] == 2 and info["loads"] <= 4 and info["load_seconds"] > 0, info


def _pushed():
    """x'' = -x + sqrt(1 - k t): the force is NaN from t = 1/k on."""
    m = md.Model("pushed")
    x = m.coordinates("x")
    k = m.parameter("k", 0.1)
    m.kinetic_energy(0.5 * md.der(x) ** 2)
    m.potential_energy(0.5 * x ** 2)
    m.generalized_force(md.sqrt(1.0 - k * m.time), x)
    return m.compile()


def test_failing_runs_are_rows_in_batched_tasks():
    sys = _pushed()
    ks = np.array([0.1, 2.0, 0.5, 4.0, 0.8, 0.2, 3.0, 0.3])
    kw = dict(params={"k": ks}, q0={"x": 1.0}, t_final=1.0, method="timestepping", dt=1e-3,
              outputs=["x"])
    ref = sys.sweep(**kw)
    assert ref.attrs["sweep"]["chunk"] > 1
    assert list(ref["status"] == "failed") == list(ks > 1.0)
    bad = ref[ref["status"] == "failed"]
    assert bad["error"].str.contains("SolverError").all() and bad["x"].isna().all()
    # where sqrt(1 - k t) ends: t = 1/k
    np.testing.assert_allclose(bad["t_end"], 1.0 / bad["k"], atol=2e-3)
    for ex in (None, "threads"):
        for chunk in (None, 1, 3):
            pd.testing.assert_frame_equal(sys.sweep(executor=ex, workers=2, chunk=chunk, **kw),
                                          ref)


_CALLS = {"n": 0, "stop_at": None}


def _apex_counted(res):
    _CALLS["n"] += 1
    if _CALLS["stop_at"] is not None and _CALLS["n"] == _CALLS["stop_at"]:
        raise KeyboardInterrupt
    return float(np.max(res["y"]))


def test_interrupted_batched_sweep_resumes_only_the_missing_runs(ball, tmp_path):
    kw = dict(params={"e": np.linspace(0.5, 0.9, 5)}, q0={"y": np.linspace(0.6, 2.0, 6)},
              t_final=1.0, method="event", outputs={"apex": _apex_counted})
    out = tmp_path / "ball.parquet"
    _CALLS.update(n=0, stop_at=12)      # Ctrl-C in the 12th run (inside a batched task)
    with pytest.raises(KeyboardInterrupt) as info:
        ball.sweep(out=out, **kw)
    # the 11 runs finished before it are rows, on disk and in err.partial
    assert list(info.value.partial.index) == list(range(11))
    assert sorted(pd.read_parquet(out)["run"]) == list(range(11))
    _CALLS.update(n=0, stop_at=None)
    df = ball.sweep(out=out, **kw)
    assert _CALLS["n"] == 30 - 11 and df.attrs["sweep"]["resumed"] == 11
    full = ball.sweep(**kw)
    pd.testing.assert_frame_equal(df, full, check_dtype=False)
    np.testing.assert_allclose(df["apex"], df["q0.y"], rtol=1e-12)     # dropped from rest


def test_one_probe_task_per_worker_then_sized_tasks(ball):
    """Before a run time is measured, one task of one run per worker (a window of them
    would cost the scheduler twice); then tasks of many runs, never more than two per
    worker in flight."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    class Recording(ThreadPoolExecutor):
        def __init__(self):
            super().__init__(2)
            self.lock, self.live, self.peak, self.sizes = threading.Lock(), 0, 0, []

        def submit(self, fn, *args, **kwargs):
            with self.lock:
                self.live += 1
                self.peak = max(self.peak, self.live)
                self.sizes.append((len(args[4]), self.live))
            f = super().submit(fn, *args, **kwargs)
            f.add_done_callback(self._done)
            return f

        def _done(self, _):
            with self.lock:
                self.live -= 1

    kw = _ball_kw(8, 8)
    with Recording() as pool:
        df = ball.sweep(executor=pool, **kw)
    sizes = [k for k, _ in pool.sizes]
    assert sizes[:2] == [1, 1] and sizes[2] > 1     # the probes: one per worker, then sized
    assert max(sizes) > 2 and len(sizes) <= 64 / 2 and pool.peak <= 4, pool.sizes
    pd.testing.assert_frame_equal(df, ball.sweep(**kw))
