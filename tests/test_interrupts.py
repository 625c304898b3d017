"""Interrupts honoured (issue 24): Ctrl-C (SIGINT to a child process running a script)
stops a smooth run, a streamed run and a serial sweep within a fraction of a second with
KeyboardInterrupt, keeps what was computed (``err.partial``, the file marked
``"interrupted"``, the sweep's finished rows) and leaves a sweep resumable with the
interrupted row run again."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import REPO

# An undamped oscillator x'' = -k x (energy 1/2 k x0^2 conserved) and a pendulum in
# Cartesian coordinates (a constraint: integrated in chunks through
# simulate/singular.py); each child prints READY when the long call starts, and JSON
# lines with what it saw.
PRELUDE = textwrap.dedent('''
    import json, sys, time
    import numpy as np
    import mechdae as md

    def osc():
        m = md.Model("osc")
        x = m.coordinates("x")
        k = m.parameter("k", 1.0)
        m.kinetic_energy(0.5 * md.der(x) ** 2)
        m.potential_energy(0.5 * k * x ** 2)
        return m.compile(stabilization=None)

    def pendulum():
        m = md.Model("pendulum")
        x, y = m.coordinates("x y")
        m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2))
        m.potential_energy(9.81 * y)
        m.holonomic(x ** 2 + y ** 2 - 1.0, name="rod")
        return m.compile(stabilization=None)

    def report(**kw):
        kw.setdefault("cpu", time.process_time())     # CPU seconds of the whole process
        print(json.dumps(kw), flush=True)

    def ready():
        print("READY", flush=True)
''')

SMOOTH = PRELUDE + textwrap.dedent('''
    S = {"osc": osc, "pendulum": pendulum}[sys.argv[1]]()
    out = sys.argv[2] if len(sys.argv) > 2 else None
    S.simulate(0.1, method="cvodes", q0={"x": 1.0})         # compiled, warmed up
    ready()
    t0 = time.perf_counter()
    try:
        # (the pendulum: 0.1 s between outputs, its chunks of 64 outputs take ~10 ms)
        S.simulate(1e6 if sys.argv[1] == "osc" else 1e4, method="cvodes", q0={"x": 1.0},
                   n_out=100001, out=out)
        report(type="finished")
    except BaseException as e:
        p = getattr(e, "partial", None)
        ok = p is not None and bool(np.all(np.isfinite(np.asarray(p.q))))
        report(type=type(e).__name__, msg=str(e), t_exc=time.perf_counter(),
               partial_t=None if p is None else float(p.t[-1]),
               partial_n=None if p is None else int(len(p.t)), finite=ok,
               stats_interrupted=None if p is None else p.stats.get("interrupted"),
               energy=None if p is None else float(np.ptp(np.asarray(p.energy))))
''')

SWEEP = PRELUDE + textwrap.dedent('''
    S = osc()
    out = sys.argv[1]

    def state(row):
        # rows 0, 2: k = 1, fast; row 1: k = 1e6, seconds of integration
        print(f"ROW {int(row)}", flush=True)
        return {"x": 1.0}, {}

    S.simulate(0.1, method="cvodes", q0={"x": 1.0})
    ready()
    try:
        df = S.sweep(samples={"row": [0, 1, 2], "k": [1.0, 1e6, 1.0]}, state=state,
                     t_final=float(sys.argv[2]), method="cvodes", outputs={"top": "max(x)"},
                     out=out, executor="serial", chunk=3, progress=False, n_out=20001)
        report(type="finished", status=list(df["status"]), **df.attrs["sweep"])
    except BaseException as e:
        p = getattr(e, "partial", None)
        report(type=type(e).__name__, msg=str(e), t_exc=time.perf_counter(),
               rows=None if p is None else [int(i) for i in p.index])
''')


def _cpu_seconds(pid):
    """CPU time (user + system) of process ``pid`` so far, or None where /proc cannot
    tell."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _wait_for_cpu(pid, seconds, cap=30.0):
    """Wait until the child has run ``seconds`` of CPU time from now (what its outputs
    depend on: on a loaded machine wall time says little), at most ``cap`` s of wall time;
    plain ``seconds`` of wall time where /proc is not there."""
    c0 = _cpu_seconds(pid)
    if c0 is None:
        time.sleep(seconds)
        return
    t_end = time.monotonic() + cap
    while time.monotonic() < t_end:
        c = _cpu_seconds(pid)
        if c is None or c - c0 >= seconds:
            return
        time.sleep(0.02)


def _child(script, args, tmp_path, signal_after=0.3, marker="READY", timeout=60.0):
    """Run ``script`` in a child; SIGINT once the child has run ``signal_after`` s of CPU
    time after the line ``marker`` (None: no signal). Returns (the JSON record it printed,
    the seconds from the SIGINT to the exception (measured in the child: wall time, or its
    CPU time where that is less), all stdout lines)."""
    path = tmp_path / "child.py"
    path.write_text(script)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    p = subprocess.Popen([sys.executable, str(path), *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env, cwd=str(REPO))
    lines, t_sig, cpu_sig = [], None, None
    deadline = time.monotonic() + timeout
    try:
        for line in p.stdout:
            lines.append(line.rstrip("\n"))
            if marker is not None and line.strip() == marker and t_sig is None:
                _wait_for_cpu(p.pid, signal_after)
                t_sig = time.perf_counter()
                cpu_sig = _cpu_seconds(p.pid)
                p.send_signal(signal.SIGINT)
                break
            if time.monotonic() > deadline:
                break
        rest, err = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        pytest.fail(f"child still running {timeout} s after start (SIGINT at {t_sig})")
    lines += rest.splitlines()
    recs = [json.loads(s) for s in lines if s.startswith("{")]
    assert recs, f"child printed no record; stdout {lines}, stderr {err[-3000:]}"
    rec = recs[-1]
    delay = rec["t_exc"] - t_sig if t_sig is not None and "t_exc" in rec else None
    if delay is not None and cpu_sig is not None and "cpu" in rec:
        # the reaction in the child's CPU time (a loaded machine stretches the wall time)
        delay = min(delay, rec["cpu"] - cpu_sig)
    return rec, delay, lines


@pytest.mark.parametrize("model", ["osc", "pendulum"])
def test_ctrl_c_stops_a_smooth_run_with_its_partial(tmp_path, model):
    rec, delay, _ = _child(SMOOTH, [model], tmp_path)
    assert rec["type"] == "KeyboardInterrupt", rec        # not SolverError (CV_RHSFUNC_FAIL)
    assert delay < 0.5, delay                             # (measured: ~0.05 s)
    assert "interrupted (Ctrl-C)" in rec["msg"] and model in rec["msg"]
    # the output points done before the interrupt: finite, conservative to the tolerance
    assert rec["partial_n"] > 100 and 0 < rec["partial_t"] < 1e6 and rec["finite"]
    assert rec["stats_interrupted"].startswith("KeyboardInterrupt")
    assert rec["energy"] < 1e-2           # (scale 0.5 J, 9.81 J; the pendulum drifts 3e-3)


@pytest.mark.parametrize("model", ["osc", "pendulum"])
def test_ctrl_c_stops_a_streamed_run_and_marks_its_file(tmp_path, model):
    pytest.importorskip("h5py")
    import mechdae as md
    out = tmp_path / "run.h5"
    rec, delay, _ = _child(SMOOTH, [model, str(out)], tmp_path)
    assert rec["type"] == "KeyboardInterrupt", rec        # was: swallowed, run went on
    assert delay < 0.5, delay
    assert str(out) in rec["msg"]
    assert not os.path.exists(str(out) + ".part")
    res = md.Result.open(out)
    try:
        assert res.status == "interrupted" and "KeyboardInterrupt" in res.error
        # the file holds every point computed, the partial's last point included
        assert len(res.t) == rec["partial_n"] and res.t[-1] == rec["partial_t"]
        assert len(res.t) > 100
    finally:
        res.close()


def test_ctrl_c_stops_a_serial_sweep_and_resume_runs_the_row_again(tmp_path):
    pytest.importorskip("pyarrow")
    import pandas as pd
    out = tmp_path / "sweep.parquet"
    t_final = "30"           # row 1 (k = 1e6): ~5000 periods, ~2.5 s; rows 0, 2: ~10 ms
    rec, delay, lines = _child(SWEEP, [str(out), t_final], tmp_path, marker="ROW 1")
    assert rec["type"] == "KeyboardInterrupt", rec        # was: row 1 "failed", sweep on
    assert delay < 0.5, delay
    assert "ROW 2" not in lines                           # the sweep stopped
    assert rec["rows"] == [0] and "again" in rec["msg"]
    # row 0 (finished in the interrupted chunk) is on disk; the interrupted row is not a row
    df = pd.read_parquet(out)
    assert list(df["run"]) == [0] and list(df["status"]) == ["ok"]
    # resumed: rows 1 and 2 run (row 1 again), row 0 comes from the file
    rec2, _, lines2 = _child(SWEEP, [str(out), t_final], tmp_path, marker=None)
    assert rec2["type"] == "finished", rec2
    assert rec2["status"] == ["ok", "ok", "ok"]
    assert rec2["ran"] == 2 and rec2["resumed"] == 1
    assert "ROW 1" in lines2 and "ROW 2" in lines2


IMPACT = textwrap.dedent('''
    import json, math, sys, time
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    from test_impact_all_solutions import body_delassus, impact

    # a body on 6 feet, all of which may slide at once in space: every mode combination
    # enumerated, searches of the sliding directions by branch and bound (~1 s each call)
    k = 6
    ang = 2 * math.pi * np.arange(k) / k
    pts = [(0.5 * math.cos(t), 0.5 * math.sin(t), -0.3) for t in ang]
    D, W = body_delassus(1.0, (0.2, 0.25, 0.3), pts)
    v = W @ np.array([1.0, 0.3, -1.0, 0.1, 0.2, 0.4])
    print("READY", flush=True)
    try:
        for _ in range(30):
            impact(D, v, 0.0, 0.0, 0.5, 3, all_solutions=True, energy="report")
        print(json.dumps(dict(type="finished")), flush=True)
    except BaseException as e:
        print(json.dumps(dict(type=type(e).__name__, t_exc=time.perf_counter())), flush=True)
''')


def test_ctrl_c_stops_a_spatial_impact_enumeration(tmp_path):
    """The C enumeration of mode combinations polls the interrupt callback (between
    combinations, after each search of sliding directions): it ran ~6 s deaf to Ctrl-C."""
    rec, delay, _ = _child(IMPACT, [str(REPO / "tests")], tmp_path)
    assert rec["type"] == "KeyboardInterrupt", rec
    assert delay < 0.5, delay


STEPPING = PRELUDE + textwrap.dedent('''
    m = md.Model("ball")
    y = m.coordinates("y")
    m.kinetic_energy(0.5 * md.der(y) ** 2)
    m.potential_energy(9.81 * y)
    m.contact("ground", gap=y, restitution=0.5)
    S = m.compile(stabilization=None)
    out = sys.argv[1] or None
    S.simulate(0.1, method="timestepping", q0={"y": 1.0}, dt=1e-3)
    ready()
    try:
        # 2e8 Moreau-Jean steps in one call of the C loop (minutes)
        kw = dict(out=out) if out else dict(output_times=np.linspace(0.0, 2000.0, 2001))
        S.simulate(2000.0, method="timestepping", q0={"y": 1.0}, dt=1e-5, **kw)
        report(type="finished")
    except BaseException as e:
        p = getattr(e, "partial", None)
        report(type=type(e).__name__, msg=str(e), t_exc=time.perf_counter(),
               partial_t=None if p is None else float(p.t[-1]),
               partial_n=None if p is None else int(len(p.t)),
               y_max=None if p is None else float(np.max(np.asarray(p["y"]))))
''')


@pytest.mark.parametrize("streamed", [False, True])
def test_ctrl_c_stops_time_stepping(tmp_path, streamed):
    """The C stepping loop polls the interrupt callback between steps (~every 4e6 flops):
    a run of 2e8 steps stops at once, with the outputs (or the file) up to there."""
    if streamed:
        pytest.importorskip("h5py")
    out = str(tmp_path / "steps.h5") if streamed else ""
    rec, delay, _ = _child(STEPPING, [out], tmp_path, signal_after=0.5)
    assert rec["type"] == "KeyboardInterrupt", rec
    assert delay < 0.5, delay
    assert rec["partial_n"] > 10 and 0 < rec["partial_t"] < 2000.0
    assert rec["y_max"] <= 1.0 + 1e-9                     # a bouncing ball loses energy
    if streamed:
        import mechdae as md
        res = md.Result.open(out)
        try:
            assert res.status == "interrupted" and len(res.t) == rec["partial_n"]
        finally:
            res.close()
    else:
        assert "ball: time stepping" in rec["msg"] and "interrupted (Ctrl-C)" in rec["msg"]


EVENTS = PRELUDE + textwrap.dedent('''
    # an oscillator x'' = -100 x that never reaches its wall at x = 2: one long smooth
    # phase of the event engine on CasADi's integrators
    m = md.Model("osc_wall")
    x = m.coordinates("x")
    m.kinetic_energy(0.5 * md.der(x) ** 2)
    m.potential_energy(50.0 * x ** 2)
    m.contact("wall", gap=2.0 - x, restitution=0.5)
    S = m.compile(stabilization=None)
    method = sys.argv[1]
    kw = dict(phase_integrator=sys.argv[2]) if len(sys.argv) > 2 else {}
    S.simulate(0.1, method=method, q0={"x": 1.0}, **kw)
    ready()
    try:
        S.simulate(1e6 if kw else 1e5, method=method, q0={"x": 1.0}, n_out=10001, **kw)
        report(type="finished")
    except BaseException as e:
        p = getattr(e, "partial", None)
        report(type=type(e).__name__, msg=str(e), t_exc=time.perf_counter(),
               partial_t=None if p is None else float(p.t[-1]),
               partial_n=None if p is None else int(len(p.t)),
               x_max=None if p is None else float(np.max(np.abs(np.asarray(p["x"])))))
''')


@pytest.mark.parametrize("method", ["event", "auto"])
def test_ctrl_c_stops_the_event_engine(tmp_path, method):
    """Ctrl-C inside the event engine's CasADi integrator: was a SolverError ("event")
    or a hand-over to time stepping that ran on ("auto")."""
    rec, delay, _ = _child(EVENTS, [method], tmp_path, signal_after=1.5)
    assert rec["type"] == "KeyboardInterrupt", rec
    assert delay < 0.5, delay
    assert f"osc_wall: {method} run" in rec["msg"]
    assert rec["partial_n"] > 5 and 0 < rec["partial_t"] < 1e5
    assert abs(rec["x_max"] - 1.0) < 1e-6                  # amplitude kept: no impact


def test_ctrl_c_stops_the_c_phase_integrator(tmp_path):
    """The event engine's C Dormand-Prince integrator (csrc/mdae_ode.c) polls the
    interrupt callback between steps: one event-free phase of 1e6 s was deaf to Ctrl-C
    (the whole run, ~20 s)."""
    rec, delay, _ = _child(EVENTS, ["event", "rk"], tmp_path, signal_after=0.5)
    assert rec["type"] == "KeyboardInterrupt", rec
    assert delay < 0.5, delay
    assert "osc_wall: event run" in rec["msg"]
    # (the phase started at t = 0 is the whole run: the partial holds its start)
    assert rec["partial_n"] >= 1 and rec["partial_t"] >= 0.0


THREADS = PRELUDE + textwrap.dedent('''
    import pandas  # noqa: F401  (the sweep's own import, ~0.5 s, done before READY)
    S = osc()
    S.simulate(0.1, method="cvodes", q0={"x": 1.0})
    ready()
    try:
        # 2 threads x chunks of 8 rows of ~0.5 s: a chunk runs ~4 s
        S.sweep(params={"k": np.linspace(1.0, 2.0, 16)}, q0={"x": 1.0}, t_final=1e4,
                executor="threads", workers=2, chunk=8, method="cvodes",
                outputs={"top": "max(x)"}, progress=False, n_out=20001)
        report(type="finished")
    except BaseException as e:
        report(type=type(e).__name__, msg=str(e), t_exc=time.perf_counter())
''')


def test_ctrl_c_stops_a_thread_sweep_after_the_running_rows(tmp_path):
    """Only the main thread gets SIGINT: the chunks running on threads start no further
    row (they ran their whole chunk, seconds, before the sweep could stop)."""
    # SIGINT 1.2 s after READY: inside the first chunks (a row ~0.5 s, a chunk ~4 s) even
    # when the sweep's set-up is slow on a loaded machine (a signal during the set-up is a
    # plain KeyboardInterrupt: nothing ran yet)
    rec, delay, _ = _child(THREADS, [], tmp_path, signal_after=1.2)
    assert rec["type"] == "KeyboardInterrupt", rec
    assert delay < 2.0, delay                 # one row (~0.5 s), not a chunk of 8 (~4 s)
    assert "sweep osc: interrupted (Ctrl-C)" in rec["msg"]
