"""Moreau-Jean time stepping: steps per second (10-contact column, single ball) vs MuJoCo.

The whole ``simulate()`` of the column against MuJoCo's column of spheres (issue 15's
target) is in benchmarks/bench_peers.py: 0.35-0.53x MuJoCo's time per step there.

Run:  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/bench_timestepping.py
"""
import os
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np  # noqa: E402

import mechdae as md  # noqa: E402
import mechdae.simulate.timestepping  # noqa: E402,F401

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "models"))
sys.path.insert(0, HERE)
import column_of_beads  # noqa: E402


def ball(e=0.8):
    m = md.Model("ball")
    x, y, th = m.coordinates("x y th")
    m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2) + 0.5 * 0.004 * md.der(th) ** 2)
    m.potential_energy(9.81 * y)
    m.contact("floor", gap=y - 0.1, restitution=e)
    return m.compile(stabilization=None)


def best(f, n=3):
    return min(f() for _ in range(n))


def main():
    col = column_of_beads.build(10).compile(stabilization=None)
    q0 = column_of_beads.initial_heights(10)
    T, dt = 10.0, 1e-3
    col.simulate(0.01, q0=q0, method="timestepping", dt=dt)           # compile once
    r = col.simulate(T, q0=q0, method="timestepping", dt=dt, every=100)
    sps = best(lambda: col.simulate(T, q0=q0, method="timestepping", dt=dt,
                                    every=100).stats["steps_per_second"] ** -1) ** -1
    print(f"column of 10 beads (10 contacts, max active {r.stats['max_active']}): "
          f"{sps:,.0f} steps/s ({1e6 / sps:.2f} us/step); target > 20,000")
    b = ball()
    b.simulate(0.01, q0={"y": 1.0}, method="timestepping", dt=dt)
    rb = b.simulate(T, q0={"y": 1.0}, method="timestepping", dt=dt, every=1)
    us_ball = best(lambda: b.simulate(T, q0={"y": 1.0}, method="timestepping", dt=dt,
                                      every=100).stats["loop_time"]) / (T / dt) * 1e6
    print(f"single ball: {us_ball:.3f} us/step ({1e6 / us_ball:,.0f} steps/s)")
    ti = [e.t for e in rb.events[:4]]
    apex = [rb["y"][(rb.t > a) & (rb.t < c)].max() - 0.1 for a, c in zip(ti[:-1], ti[1:])]
    print(f"  mechdae apex ratios {np.round(np.array(apex[1:]) / apex[:-1], 4)} "
          f"(e^2 = {0.8 ** 2:.4f})")
    try:
        import mujoco
    except ImportError:
        print("mujoco not installed (pip install mujoco): peer skipped")
        return
    xml = """<mujoco><option timestep="0.001" gravity="0 0 -9.81"/>
      <worldbody><geom type="plane" size="5 5 .1" solref="-100000 -%g" solimp="0.99 0.999 0.001"/>
      <body pos="0 0 1.1"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body>
      </worldbody></mujoco>"""
    from _peer_models import restitution_damping     # benchmarks/: damping for e = 0.8
    damp = restitution_damping(0.8, 1e5)
    mdl = mujoco.MjModel.from_xml_string(xml % damp)
    dat = mujoco.MjData(mdl)
    n = int(T / 0.001)
    zs = np.empty(n)

    def run():
        mujoco.mj_resetData(mdl, dat)
        t0 = time.perf_counter()
        for i in range(n):
            mujoco.mj_step(mdl, dat)
            zs[i] = dat.qpos[2]
        return time.perf_counter() - t0
    tm = best(run)
    # MuJoCo's time includes the Python call per step; also time one C-side call of n steps
    mujoco.mj_resetData(mdl, dat)
    t0 = time.perf_counter()
    mujoco.mj_step(mdl, dat, nstep=n)
    tm_c = time.perf_counter() - t0
    us_mj, us_mj_c = tm / n * 1e6, tm_c / n * 1e6
    print(f"MuJoCo ball: {us_mj:.3f} us/step from Python, {us_mj_c:.3f} us/step (nstep in C)")
    print(f"ratio mechdae / MuJoCo (C loop): {us_ball / us_mj_c:.2f}")
    # MuJoCo apex ratios (soft contact: restitution only approximated)
    up = np.where((np.diff(np.sign(np.diff(zs))) < 0))[0] + 1
    apex_mj = zs[up][zs[up] > 0.1 + 1e-3][:4] - 0.1
    print(f"  MuJoCo apex ratios {np.round(apex_mj[1:] / apex_mj[:-1], 4)} (e^2 = 0.6400)")


if __name__ == "__main__":
    main()
