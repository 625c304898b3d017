"""Part 4 of bench_sweep.py (issue 32): what a sweep costs beyond ``simulate`` per run, per
task and per worker on each backend, and the wall time it predicts on many workers.

Definitions (one sweep of N runs in T tasks on W workers; ``df.attrs["sweep"]`` gives
``run_seconds``, the seconds the tasks' runs took on the workers, summed):

- run cost ``r``: a bare loop of ``simulate()`` over the same points, CPU per run;
- per-run overhead ``o``: ``run_cpu_seconds / N - r`` (arguments, the outputs of the
  Result, the columns: what a run costs inside a task beyond ``simulate``);
- per-task overhead ``c``: ``(CPU of all processes - their idle CPU - run_cpu_seconds) /
  T`` (sending the task, scheduling, unpickling it, pickling the columns back, the client
  taking them); ``gap/task``: a worker thread's wall time between two tasks' runs
  (``df.attrs["sweep"]["task_overhead"]``, what the sweep sizes its tasks from);
- start-up of a worker: ``load_seconds``, unpickling the System and the plan.

The machine is shared: wall times are best of ``repeat`` and interleaved, but the costs
are CPU seconds (``run_cpu_seconds``, the runs' thread CPU time the tasks report, and
psutil's CPU time of every process of the backend), which another job does not inflate.

The model (:func:`model`) of a sweep of N runs on W workers: the tasks the sweep's own
rule (:class:`mechdae.sweep._schedule.Chunks`) cuts given the measured costs, each handed
to the first free worker (list scheduling), no sooner than ``i c_s`` (the client and the
scheduler hand tasks out one at a time), and lasting ``k (r + o) + c_w``; plus ``s``.
``o`` is the per-run overhead, ``c_w`` the per-task CPU of the worker side (worker,
nanny, transfer) and ``c_s`` of the client and scheduler (both measured on Dask with one
worker and one run a task), ``s`` a worker's start-up (unpickling the System; the
processes' own start is the cluster's, paid once); efficiency ``N r / (W wall)``, so
roughly ``wall = s + max(N (r + o + c_w / k) / W, (N / k) c_s) + tail``.
"""
import heapq
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from mechdae.sweep import _schedule

BALL = "ball with friction through its accumulation point"
BLOCK = "rocking block"


def workloads(n_ball, n_block):
    """The two sweeps of the issue: ``{name: (system, sweep keywords, bare loop)}``."""
    import mechdae as md
    ball = md.load("models/bouncing_ball.py").compile(stabilization=None)
    block = md.load("models/rocking_block.py").compile(stabilization=None)
    out = {}
    n_mu = 20
    e = np.linspace(0.6, 0.8, max(1, n_ball // n_mu))
    mu = np.linspace(0.1, 0.5, n_mu)
    kw = dict(params={"e": e, "mu": mu}, q0={"y": 1.1}, v0={"x": 1.0}, t_final=5.0,
              method="event", outputs={"t_inf": "first(accumulation)",
                                       "impacts": "count(impact)", "x": "x"})

    def bare_ball():
        for ei in e:
            for mi in mu:
                ball.simulate(5.0, q0={"y": 1.1}, v0={"x": 1.0}, params={"e": ei, "mu": mi},
                              method="event")
    out[BALL] = (ball, kw, bare_ball, e.size * mu.size)
    n_mu = 10
    e2 = np.linspace(0.4, 0.7, max(1, n_block // n_mu))
    mu2 = np.linspace(0.3, 0.8, n_mu)
    q0 = {"x": 0.0, "y": 1.0, "th": 0.2}
    kw2 = dict(params={"e": e2, "mu": mu2}, q0=q0, t_final=1.0, method="event",
               outputs={"impacts": "count(impact)", "th": "th", "x": "x"})

    def bare_block():
        for ei in e2:
            for mi in mu2:
                block.simulate(1.0, q0=q0, params={"e": ei, "mu": mi}, method="event")
    out[BLOCK] = (block, kw2, bare_block, e2.size * mu2.size)
    return out


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def _pids(ex):
    """The processes a backend runs on besides this one: a pool's workers; a Dask
    cluster's workers and their nannies."""
    import psutil
    if ex is None or isinstance(ex, str) or not hasattr(ex, "submit"):
        return []
    if hasattr(ex, "_processes"):
        return list(ex._processes or ())
    if hasattr(ex, "scheduler_info"):
        workers = list(ex.run(os.getpid).values())
        return workers + [psutil.Process(p).ppid() for p in workers]
    return []


def _cpu(pids):
    """CPU seconds (user + system) of this process and ``pids``, so far."""
    import psutil
    tot = 0.0
    for proc in [psutil.Process()] + [psutil.Process(p) for p in pids]:
        t = proc.cpu_times()
        tot += t.user + t.system
    return tot


def measure(system, kw, bare, repeat, ex):
    """Best of ``repeat`` (interleaved: another job on the machine hits all alike) of the
    bare loop and of the sweep on every backend in ``ex`` (name -> (executor, chunk)):
    ``{name: (wall, CPU seconds of all its processes, df.attrs["sweep"])}``."""
    best = {}
    ref = system.sweep(**kw)
    pids, idle = {}, {}
    for name, (e, chunk) in ex.items():            # warm: workers load System and code
        system.sweep(executor=e, chunk=chunk, **kw)
        pids[name] = _pids(e)
        c0 = _cpu(pids[name])
        time.sleep(0.5)                 # CPU of the idle processes (Dask: event loops)
        idle[name] = (_cpu(pids[name]) - c0) / 0.5

    def keep(name, t, cpu, info):
        old = best.get(name)
        best[name] = (min(t, old[0]) if old else t, min(cpu, old[1]) if old else cpu, info)

    for _ in range(repeat):
        c0 = time.process_time()
        t, _ = _timed(bare)
        keep("bare", t, time.process_time() - c0, None)
        for name, (e, chunk) in ex.items():
            c0 = _cpu(pids[name])
            t, df = _timed(lambda: system.sweep(executor=e, chunk=chunk, **kw))
            cpu = _cpu(pids[name]) - c0 - idle[name] * t
            assert df.equals(ref), name           # bit for bit, whatever the backend and size
            keep(name, t, cpu, df.attrs["sweep"])
    return best


def costs(n, best):
    """``r`` (CPU s a run, bare loop) and per backend ``(o, c)``: CPU seconds beyond
    ``simulate`` per run inside a task, and per task outside the runs (every process of
    the backend counted)."""
    r = best["bare"][1] / n
    out = {}
    for key, (t, cpu, info) in best.items():
        if key != "bare":
            o = info["run_cpu_seconds"] / n - r
            c = (cpu - info["run_cpu_seconds"]) / info["tasks"]
            out[key] = (o, c)
    return r, out


def _print_costs(name, n, best):
    r, cc = costs(n, best)
    print(f"\n   {name}: {n} runs, simulate() {r * 1e3:.3f} ms CPU a run (bare loop; wall "
          f"{best['bare'][0] / n * 1e3:.3f} ms)")
    print(f"   {'backend':31s}{'wall ms':>9s}{'tasks':>6s}{'runs/task':>10s}{'CPU/run':>9s}"
          f"{'CPU/task':>10s}{'gap/task':>10s}{'task/r':>8s}{'wall vs serial':>15s}")
    t_serial = best["serial"][0]
    for key, (o, c) in cc.items():
        t, cpu, info = best[key]
        share = c * info["tasks"] / (n * r)        # the tasks' cost per run, against r
        print(f"   {key:31s}{t * 1e3:9.1f}{info['tasks']:6d}{n / info['tasks']:10.1f}"
              f"{o * 1e6:7.1f}us{c * 1e3:8.2f}ms{info['task_overhead'] * 1e3:8.2f}ms"
              f"{100 * share:7.1f}%{t_serial / t:14.2f}x")
    return r, cc


def scaling(repeat, n_ball, n_block):
    """Print part 4 (see the module docstring)."""
    from distributed import Client, LocalCluster
    print("4. Scaling (issue 32): CPU beyond simulate() per run (inside a task) and per task "
          "(every process of the backend: client, scheduler, workers, nannies); 'task/r' = "
          "CPU/task x tasks / runs, against simulate()'s CPU r (issue: < 5 %)")
    spawn = multiprocessing.get_context("spawn")
    found = {}
    with ProcessPoolExecutor(1, mp_context=spawn) as pool1, \
            ProcessPoolExecutor(2, mp_context=spawn) as pool2, \
            LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=":0") as lc1, \
            Client(lc1) as dask1, \
            LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as lc2, \
            Client(lc2) as dask2:
        ex = {"serial": (None, None), "serial, 1 run a task": (None, 1),
              "threads x1": (_threads(1), None), "process pool x1, 1 run a task": (pool1, 1),
              "process pool x1": (pool1, None), "Dask 1 worker, 1 run a task": (dask1, 1),
              "Dask 1 worker": (dask1, None), "process pool x2": (pool2, None),
              "Dask 2 workers": (dask2, None)}
        loads = workloads(n_ball, n_block)
        for name, (system, kw, bare, n) in loads.items():
            best = measure(system, kw, bare, repeat, ex)
            r, cc = _print_costs(name, n, best)
            found[name] = (n, r, cc, best)
            main = _client_share(system, kw, dask1, repeat)
            found[name] += (main,)
        s = _startup(*loads[BALL][:2])
    _ratios(found)
    _print_model(found, s)
    print(f"   (load average during the run: {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores)")


def _threads(n):
    from concurrent.futures import ThreadPoolExecutor
    return ThreadPoolExecutor(n)


def _client_share(system, kw, client, repeat):
    """CPU seconds per task of this process (the client and, in a LocalCluster, the
    scheduler): the part of a task's cost that does not spread over the workers."""
    best = np.inf
    for _ in range(repeat):
        c0 = _cpu([])
        df = system.sweep(executor=client, chunk=1, **kw)
        best = min(best, (_cpu([]) - c0) / df.attrs["sweep"]["tasks"])
    return best


def _startup(system, kw):
    """A worker's start: a fresh 2-worker LocalCluster (processes, imports), and the
    unpickling of the System and plan its first tasks report."""
    from distributed import Client, LocalCluster
    t0 = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as lc, \
            Client(lc) as c:
        t_up = time.perf_counter() - t0
        df = system.sweep(executor=c, **kw)
        df2 = system.sweep(executor=c, **kw)
    first = df.attrs["sweep"]["load_seconds"]
    again = df2.attrs["sweep"]["load_seconds"]
    print(f"\n   worker start-up: a 2-worker LocalCluster up in {t_up:.2f} s (processes, "
          f"imports: once per cluster); unpickling the System + plan {first * 1e3:.1f} ms "
          f"per worker on its first sweep, the plan alone {again * 1e3:.2f} ms on the next")
    return first


def _ratios(found):
    print("\n   Against serial (issue targets on 2 cores: Dask 1 worker within 1.05x; 2 workers"
          " >= 1.8x for the ball): CPU of all processes, and wall (shared machine)")
    for name, (n, r, cc, best, _) in found.items():
        t, cpu = best["serial"][:2]
        print(f"   {name:52s} Dask 1 worker: CPU {best['Dask 1 worker'][1] / cpu:5.3f}x, "
              f"wall {best['Dask 1 worker'][0] / t:5.3f}x serial; 2 workers: wall "
              f"{t / best['Dask 2 workers'][0]:4.2f}x serial speed (process pool x2 "
              f"{t / best['process pool x2'][0]:4.2f}x)")


def _print_model(found, s):
    print("\n   Model (module docstring) from the Dask costs above: tasks of k runs as the "
          "sweep cuts them, list-scheduled on W workers, handed out every c_s (the client's "
          "and scheduler's CPU a task), each lasting k (r + o) + c_w; plus start-up s")
    print(f"   {'workload':52s}{'N':>7s}{'W':>5s}{'k':>6s}{'wall s':>9s}{'speed-up':>9s}"
          f"{'eff.':>6s}")
    for name, (n, r, cc, best, c_s) in found.items():
        c = cc["Dask 1 worker, 1 run a task"][1]
        o = max(0.0, cc["Dask 1 worker"][0])        # (CPU noise can make it negative)
        c_w = max(0.0, c - c_s)
        client = c_s
        rows = [(n, 1), (n, 2), (4000 if name == BALL else 2000, 16)]
        rows += [(10 ** 5, w) for w in (16, 64, 256)]
        for i, (nn, w) in enumerate(rows):
            wall, eff, k = model(nn, w, r, o, c_w, c_s, s, client)
            print(f"   {name if i == 0 else '':52s}{nn:7d}{w:5d}{k:6d}{wall:9.2f}"
                  f"{eff * w:8.1f}x{100 * eff:5.0f}%")
        print(f"   {'':52s}(r {r * 1e3:.3f} ms, o {o * 1e6:.0f} us, c_w {c_w * 1e3:.2f} ms, "
              f"c_s {c_s * 1e3:.2f} ms, s {s * 1e3:.0f} ms)")


def model(n, w, r, o, c_w, c_s, s, client):
    """Predicted wall time, efficiency and largest task (runs) of ``n`` runs of ``r`` s on
    ``w`` workers (see the module docstring); the tasks are the ones the sweep's own rule
    (:class:`mechdae.sweep._schedule.Chunks`) cuts with these measured costs."""
    chunks = _schedule.Chunks(np.arange(n), "simulate", w)
    chunks.observe(1000, 1000 * (r + o))
    chunks.gaps = [1, c_w]
    chunks.client = [1, client]
    sizes = []
    while (idx := chunks.next()) is not None:
        sizes.append(idx.size)
    free = [0.0] * w                # list scheduling: each task to the first free worker,
    for i, k in enumerate(sizes):   # no sooner than the client and scheduler hand it out
        t = max(heapq.heappop(free), (i + 1) * c_s)
        heapq.heappush(free, t + k * (r + o) + c_w)
    wall = s + max(free)
    return wall, n * r / (w * wall), max(sizes)
