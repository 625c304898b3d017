"""Bouncing ball through its accumulation point: mechdae ``method="event"`` vs scipy's
``solve_ivp`` with events (terminal event at the ground, restart after each impact).

Ball of radius R = 0.1 dropped from 1 m (center at 1.1), e = 0.8, t_final = 5 s; the
accumulation point is t_inf = t_1 + 2 v_1 e / (g (1 - e)) = 4.0637 s.

Since issue 13 mechdae resolves every impact until the pre-impact speed falls below the
velocity resolution (40 impacts, the last bounce 4e-8 m high; bounces above 1e-6 h0 end at
the 32nd), each at its closed-form time to 1e-11, and then closes the contact with an
accumulation event at the extrapolated t_inf; ``zeno="early"`` is the former early jump
(6 impacts, the ball resting from 4.0631 s while the true one still bounces 1.8 cm).

scipy is run twice: without a resting heuristic (it has to restart after every impact; the
flights shrink geometrically so it stalls at t_inf: capped by ``MAX_EVENTS`` impacts or
``MAX_WALL`` seconds, and we report where it stopped), and with the usual heuristic (stop
bouncing once the rebound speed falls below ``V_REST``; it then rests early, before t_inf).

Measured (2 shared cores, OPENBLAS_NUM_THREADS=1; best of 50 for the ball, of 3 for the
other rows; load 0.4-1). "start" is commit d8b5482, before issue 13's speed work.

==============================  ==========  ===========  ==========  ================
row                             now         cvodes path  start       ratio vs start
==============================  ==========  ===========  ==========  ================
ball, 40 impacts, 5 s           1.6 ms      --           156 ms      97x (scipy 20.8x)
ball, zeno="early" (6 impacts)  1.4 ms      --           52-130 ms   --
rocking block to rest, 3 s      30 ms       603 ms       958 ms      31.7x
seed-003 spinning ball, 4 s     10.4 ms     165 ms       186 ms      17.8x
8-link chain (smooth), 10 s     21.8 ms     544 ms       540 ms      24.8x
10-bead column, 2 s (3757 ev.)  0.91 s      5.09 s       5.69 s      6.3x
==============================  ==========  ===========  ==========  ================

The 8-link chain's ``method="cvodes"`` takes 28 ms (its rtol 1e-8; 43 ms at the event
method's 1e-10): the event method is faster. scipy's ``solve_ivp`` takes 33-40 ms on the ball
(it stalls 5 ms before t_inf).

Where the ball's time went, in the steps of issue 13:

- the phases in C (csrc/mdae_ode.c: each mode's right-hand side and event functions as
  generated C, Dormand-Prince 8(5,3) / 5(4), event sampling on the continuous extension):
  156 -> 15 ms; what was left was the Python of each impact (~250 us);
- the simple impacts in C too (csrc/mdae_cycle.c: one contact hits in flight, none other
  touching, a unique solution after which it separates, not the end of its series: the same
  contact space, impact kernel call and accumulation checks as the Python logic, bitwise the
  same events and samples) 15 -> 2.8 ms; 39 of the 40 impacts, 0.13 ms of C in all;
- the fixed cost of a call 1.9 -> 0.42 ms (simulate(0.3) of the ball, no impact): set-up
  cached per System and parameters (contact laws, the mass-matrix check), the engine's C
  objects kept per thread, the Result's energies from generated C (345 -> 20 us), contact
  forces only where a contact is closed, the output grid, the samples stacked as blocks,
  a time passed to generated C as a float (no array): 2.8 -> 1.6 ms in all.

What remains (py-spy, 5 s run): 0.42 ms fixed; ~0.2 ms booking the 39 C impacts as events
and samples; ~0.7 ms for the last impact, which ends the series below the velocity
resolution and goes through the Python rules (plastic impact, contact-force problem,
projection onto the surface, the pending accumulation event, two phases at rest). A run to
t = 4.06 s (31 impacts, all in C) takes 0.9 ms. Every figure is Python-overhead bound on this
machine (a numpy call on a 2-vector costs 1-3 us here).

Run: ``OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/bench_event.py``
"""
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np                       # noqa: E402
from scipy.integrate import solve_ivp    # noqa: E402

import mechdae as md                     # noqa: E402

G, R, H0, E, T_FINAL = 9.81, 0.1, 1.0, 0.8, 5.0
MAX_EVENTS, MAX_WALL, V_REST = 10000, 20.0, 1e-3
REPEAT = 5
BALL_REPEAT = 50           # about 2 ms a run: the best of 50 is steady


def scipy_ball(resting, rtol=1e-10, atol=1e-12):
    def rhs(t, y):
        return [y[1], -G]

    def hit(t, y):
        return y[0] - R
    hit.terminal, hit.direction = True, -1
    t, y = 0.0, np.array([R + H0, 0.0])
    n = 0
    wall0 = time.perf_counter()
    stopped = "t_final"
    while t < T_FINAL:
        sol = solve_ivp(rhs, (t, T_FINAL), y, events=hit, rtol=rtol, atol=atol)
        t, y = sol.t[-1], sol.y[:, -1].copy()
        if sol.status != 1:
            break
        n += 1
        y[1] = -E * y[1]
        y[0] = R
        if resting and y[1] < V_REST:
            y[1] = 0.0
            t = T_FINAL            # rests from here on (no more dynamics to integrate)
            stopped = f"rest heuristic at t = {sol.t[-1]:.6f}"
            break
        if n >= MAX_EVENTS:
            stopped = f"event cap ({MAX_EVENTS}) at t = {t:.10f}"
            break
        if time.perf_counter() - wall0 > MAX_WALL:
            stopped = f"wall cap ({MAX_WALL:g} s) at t = {t:.10f}"
            break
        if sol.t[-1] - sol.t[0] == 0.0:
            stopped = f"no progress at t = {t:.10f}"
            break
    return time.perf_counter() - wall0, n, t, y, stopped


def best(f, k=REPEAT):
    out = [f() for _ in range(k)]
    return min(o[0] for o in out), out[0]


def main():
    t1 = np.sqrt(2 * H0 / G)
    t_inf = t1 + 2 * G * t1 * E / (G * (1 - E))
    sys_ = md.load("models/bouncing_ball.py", e=E).compile(stabilization=None)
    sys_.simulate(T_FINAL, q0={"y": R + H0}, method="event")      # build the integrators

    t_md, (_, res) = best(lambda: timed(lambda: sys_.simulate(
        T_FINAL, q0={"y": R + H0}, method="event", rtol=1e-10, atol=1e-12)), k=BALL_REPEAT)
    t_ea, res_ea = _time(lambda: sys_.simulate(T_FINAL, q0={"y": R + H0}, method="event",
                                               zeno="early"), REPEAT)
    n_ea = sum(e.kind == "impact" for e in res_ea.events)
    ti = np.array([e.t for e in res.events if e.kind == "impact"])
    t1 = np.sqrt(2 * H0 / G)
    tk = t1 + np.concatenate([[0.0], np.cumsum(2 * G * t1 / G * E ** np.arange(1, ti.size))])
    acc = [e for e in res.events if e.kind == "accumulation"]
    n_imp = sum(e.kind == "impact" for e in res.events)
    t_nr, (_, n_nr, tt_nr, y_nr, why_nr) = best(lambda: scipy_ball(False), k=1)
    t_rs, (_, n_rs, tt_rs, y_rs, why_rs) = best(lambda: scipy_ball(True))
    print(f"bouncing ball, e = {E}, t_final = {T_FINAL} s, analytic t_inf = {t_inf:.10f} s\n")
    print(f"{'':32s}{'wall [s]':>10s}{'impacts':>9s}{'reached t':>14s}{'y(end)':>14s}"
          f"{'v(end)':>12s}  note")
    print(f"{'mechdae event':32s}{t_md:10.4f}{n_imp:9d}{res.t[-1]:14.10f}{res['y'][-1]:14.10f}"
          f"{res.v[-1, 1]:12.2e}  accumulation at {acc[0].t:.10f} "
          f"(error {acc[0].t - t_inf:.1e})")
    print(f"{'mechdae event, zeno=early':32s}{t_ea:10.4f}{n_ea:9d}{res_ea.t[-1]:14.10f}"
          f"{res_ea['y'][-1]:14.10f}{res_ea.v[-1, 1]:12.2e}  early jump")
    print(f"{'':32s}impact times vs closed form: max error {np.max(np.abs(ti - tk)):.1e} s")
    print(f"{'scipy solve_ivp, no heuristic':32s}{t_nr:10.4f}{n_nr:9d}{tt_nr:14.10f}"
          f"{y_nr[0]:14.10f}{y_nr[1]:12.2e}  stalls: {why_nr}")
    print(f"{'scipy solve_ivp, rest heuristic':32s}{t_rs:10.4f}{n_rs:9d}{T_FINAL:14.10f}"
          f"{y_rs[0]:14.10f}{y_rs[1]:12.2e}  {why_rs} (t_inf - t_rest = "
          f"{t_inf - float(why_rs.split('= ')[-1]):.3f} s early)")
    print(f"{'':32s}mechdae: {res.stats['n_rk_phases']} C phases ({res.stats['n_rk_steps']} "
          f"Runge-Kutta steps, {res.stats['n_shoots']} location steps), "
          f"{res.stats['n_windows']} cvodes windows; {res.stats['n_c_impacts']} impacts resolved "
          "in the C cycle")
    print(f"\nper impact: mechdae {t_md / n_imp * 1e3:.2f} ms, scipy {t_nr / max(n_nr, 1) * 1e3:.2f} ms")
    print(f"ratios: scipy(no heuristic) / mechdae = {t_nr / t_md:.1f}x, "
          f"scipy(rest heuristic) / mechdae = {t_rs / t_md:.2f}x")


# --------------------------------------------------------------------------------------
# issue 13's other rows: the C phases against the cvodes windows (phase_integrator=
# "cvodes", the path every mode took before) in the same run, and the figures measured at
# the start commit (d8b5482, same machine, before the C phases: "today")
TODAY = dict(rock=0.958, spin=0.186, chain=0.540, beads=5.69)


def _models():
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                    "models"))
    import column_of_beads
    import ivanov_ball
    import nlink_chain
    return column_of_beads, ivanov_ball, nlink_chain


def timed(f):
    """``(wall time, result)`` of one call of ``f``."""
    w0 = time.perf_counter()
    r = f()
    return time.perf_counter() - w0, r


def _time(f, k):
    f()                                  # build and compile first
    t, (_, r) = best(lambda: timed(f), k)
    return t, r


def others(beads=True):
    """Rocking block to rest, seed-003 spinning ball, 8-link chain, 10-bead column."""
    column_of_beads, ivanov_ball, nlink_chain = _models()
    rock = md.load("models/rocking_block.py").compile(stabilization=None)
    spin = ivanov_ball.build(mu=0.05, kappa=0.7).compile(stabilization=None)
    chain = nlink_chain.build(8).compile(stabilization=None)
    col = column_of_beads.build().compile(stabilization=None)
    rows = [
        ("rock", "rocking block to rest, 3 s", lambda **o: rock.simulate(
            3.0, q0={"x": 0.0, "y": 1.0, "th": 0.2}, method="event", max_events=2000, **o), 3),
        ("spin", "seed-003 spinning ball, 4 s", lambda **o: spin.simulate(
            4.0, q0={"ball.z": 0.5}, v0={"ball.vx": 1.0, "ball.wx": 60.0}, method="event",
            n_out=4001, **o), 3),
        ("chain", "8-link chain (smooth), 10 s", lambda **o: chain.simulate(
            10.0, q0={"theta1": 1.0}, method="event", **o), 3),
    ]
    if beads:
        rows.append(("beads", "10-bead column, 2 s", lambda **o: col.simulate(
            2.0, q0=column_of_beads.SIMULATION["q0"], method="event", **o), 1))
    print(f"\n{'':32s}{'C phases':>10s}{'cvodes':>10s}{'ratio':>7s}{'today':>9s}{'ratio':>7s}"
          "  events  RK steps")
    for key, name, run, k in rows:
        t_c, r = _time(run, k)
        t_v, _ = _time(lambda: run(phase_integrator="cvodes"), 1 if key == "beads" else k)
        print(f"{name:32s}{t_c:10.4f}{t_v:10.4f}{t_v / t_c:6.1f}x{TODAY[key]:9.3f}"
              f"{TODAY[key] / t_c:6.1f}x{len(r.events):8d}{r.stats['n_rk_steps']:10d}")
    t_s, _ = _time(lambda: chain.simulate(10.0, q0={"theta1": 1.0}, method="cvodes"), 3)
    t_s10, _ = _time(lambda: chain.simulate(10.0, q0={"theta1": 1.0}, method="cvodes",
                                            rtol=1e-10, atol=1e-12), 1)
    print(f"{'8-link chain, method=cvodes':32s}{t_s:10.4f}  (rtol 1e-8, its default); at the "
          f"event method's rtol 1e-10: {t_s10:.4f}")


if __name__ == "__main__":
    import sys as _sys
    main()
    others(beads="--no-beads" not in _sys.argv)
