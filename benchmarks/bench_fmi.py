"""Exported FMUs under FMPy against System.simulate on the same model (same tolerance).

Models: the Maxwell element of tests/test_fmi.py (wall - damper - node - spring - mass, 3
states, 21 outputs) and a 10-link planar pendulum chain from the components (World,
Revolute, BodyShape; 10 coordinates, many outputs), each run for 10 s with 1,001 output
points and relative tolerance 1e-8; the bouncing ball (e = 0.8) to 3.9 s (35 impacts) at
1e-10 against the event method:

* ``System.simulate`` (cvodes on mechdae's generated C, outputs evaluated after the run);
* the FMI 3.0 Model-Exchange FMU under ``fmpy.simulate_fmu`` (FMPy's CVode, Python driver
  loop calling the FMU's C per step and per output point);
* the FMI 3.0 Co-Simulation FMU under ``fmpy.simulate_fmu`` (mechdae's DOP853 compiled in,
  one ``fmi3DoStep`` per output interval).

Printed: export time, best-of-3 wall time of each run and the ratio FMU / simulate.

Measured (2 shared cores, load ~4-7, OPENBLAS_NUM_THREADS=1, best of 3; exports after the
first reuse the cached csrc/ kernel objects):

    model    run                              time      / simulate   deviation / range
    maxwell  System.simulate                  2.7 ms    1.00
    maxwell  FMU model-exchange               37 ms     13.6         9.5e-08   (export 0.64 s)
    maxwell  FMU co-simulation                24 ms     8.8          1.3e-07   (export 0.68 s)
    chain10  System.simulate                  33 ms     1.00
    chain10  FMU model-exchange               46 ms     1.38         6.5e-07   (export 1.13 s)
    chain10  FMU co-simulation                34 ms     1.01         2.8e-09   (export 1.26 s)
    ball     simulate(method="event")         0.6 ms    1.00
    ball     FMU model-exchange               20 ms     37           3.3e-09   (export 0.51 s)
    ball     FMU co-simulation                11 ms     19           7.8e-13   (export 0.70 s)

On small models FMPy's Python driver loop (an output point, a ctypes call per FMI function,
CVode re-initialized at every event) dominates; on the chain the model's C does, and the
FMU runs within 1.0-1.4x of simulate(). The event method resolves the ball's simple
impacts in C without Python (mdae_cycle.c), hence its 0.6 ms.
"""
import os
import sys
import tempfile
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import mechdae as md  # noqa: E402
from mechdae.components import planar as pl  # noqa: E402
from mechdae.components import translational as tr  # noqa: E402

try:
    import fmpy
except ImportError:                                    # pragma: no cover
    sys.exit("bench_fmi.py needs fmpy (pip install fmpy; it is in the test extra)")


def maxwell():
    m = md.Model("maxwell")
    wall, damper = m.add(tr.Fixed("wall")), m.add(tr.Damper("damper", d=2.0))
    spring, mass = m.add(tr.Spring("spring", c=8.0)), m.add(tr.Mass("mass", m=1.0, s=1.0))
    m.connect(wall.flange, damper.flange_a)
    m.connect(damper.flange_b, spring.flange_a)
    m.connect(spring.flange_b, mass.flange_a)
    return m.compile(), "mass.s", {}


def chain(n=10):
    m = md.Model(f"chain{n}")
    prev = m.add(pl.World("world")).frame
    for i in range(1, n + 1):
        j = m.add(pl.Revolute(f"j{i}", phi0=0.3 if i == 1 else 0.0))
        b = m.add(pl.BodyShape(f"b{i}", r=(0.0, -0.5), r_cm=(0.0, -0.5), m=1.0, I=0.0))
        m.connect(prev, j.frame_a)
        m.connect(j.frame_b, b.frame_a)
        prev = b.frame_b
    return m.compile(), f"j{n}.phi", {}


def ball():
    """The bouncing ball (e = 0.8) with its 35-odd impacts before 3.9 s: the contact FMU
    (impacts by mdae_impact_solve inside) against simulate(method="event")."""
    m = md.Model("ball")
    y = m.coordinates("y", default=1.0)
    m.kinetic_energy(0.5 * md.der(y) ** 2)
    m.potential_energy(9.81 * y)
    m.contact("floor", gap=y, restitution=0.8)
    return m.compile(stabilization=None), "y", {}


def run_contacts(build, t_final=3.9, n_out=391, rtol=1e-10):
    s, probe, _ = build()
    grid = np.linspace(0.0, t_final, n_out)
    t_sim, res = best(lambda: s.simulate(t_final, output_times=grid, method="event"))
    rows = [(s.name, "System.simulate(method='event')", t_sim, 1.0, 0.0)]
    with tempfile.TemporaryDirectory() as d:
        for kind, fmi_type in (("model-exchange", "ModelExchange"),
                               ("co-simulation", "CoSimulation")):
            path = os.path.join(d, f"{s.name}_{kind}.fmu")
            t0 = time.perf_counter()
            s.export_fmu(path, kind=kind, rtol=rtol, atol=rtol * 1e-2)
            t_exp = time.perf_counter() - t0
            t_fmu, r = best(lambda: fmpy.simulate_fmu(
                path, stop_time=t_final, output_interval=grid[1], relative_tolerance=rtol,
                fmi_type=fmi_type, output=[probe]))
            _, idx = np.unique(r["time"], return_index=True)
            # at the output grid (the event method adds rows at its events)
            on_grid = np.searchsorted(res.t, grid)
            err = np.max(np.abs(np.interp(grid, r["time"][idx], r[probe][idx])
                                - res[probe][on_grid])) / np.ptp(res[probe])
            rows.append((s.name, f"FMU {kind} (export {t_exp:.2f} s)", t_fmu, t_fmu / t_sim,
                         err))
    return rows


def best(f, k=3):
    out, ts = None, []
    for _ in range(k):
        t0 = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t0)
    return min(ts), out


def run(build, t_final=10.0, n_out=1001, rtol=1e-8):
    s, probe, v0 = build()
    grid = np.linspace(0.0, t_final, n_out)
    dt = grid[1] - grid[0]
    t_sim, res = best(lambda: s.simulate(t_final, v0=v0, output_times=grid, rtol=rtol,
                                         atol=rtol * 1e-2))
    rows = [(s.name, "System.simulate", t_sim, 1.0, 0.0)]
    with tempfile.TemporaryDirectory() as d:
        for kind, fmi_type in (("model-exchange", "ModelExchange"),
                               ("co-simulation", "CoSimulation")):
            path = os.path.join(d, f"{s.name}_{kind}.fmu")
            t0 = time.perf_counter()
            s.export_fmu(path, kind=kind, v0=v0, rtol=rtol, atol=rtol * 1e-2)
            t_exp = time.perf_counter() - t0
            t_fmu, r = best(lambda: fmpy.simulate_fmu(
                path, stop_time=t_final, output_interval=dt, relative_tolerance=rtol,
                fmi_type=fmi_type, output=[probe]))
            err = np.max(np.abs(np.interp(grid, r["time"], r[probe]) - res[probe])) \
                / np.ptp(res[probe])
            rows.append((s.name, f"FMU {kind} (export {t_exp:.2f} s)", t_fmu, t_fmu / t_sim,
                         err))
    return rows


def main():
    print(f"{'model':10s} {'run':42s} {'time [s]':>9s} {'/ simulate':>11s} {'dev/range':>10s}")
    rows = run(maxwell) + run(chain) + run_contacts(ball)
    for name, what, t, ratio, err in rows:
        print(f"{name:10s} {what:42s} {t:9.4f} {ratio:11.2f} {err:10.1e}")


if __name__ == "__main__":
    main()
