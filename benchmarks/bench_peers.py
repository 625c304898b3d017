"""mechdae against Pinocchio and MuJoCo (issue 15's targets), all rows in one run.

1. One right-hand side of the n-link chain (models/nlink_chain.py), n = 8 and 16:
   mechdae's generated C (``mechdae.simulate.smooth.ode_library``) called in a C loop,
   through ``casadi.external`` (a serial map: CasADi's call path, no Python) and from
   Python (a CasADi buffer), against Pinocchio's ABA in C++ (header-only at -O3, built
   once by this script and cached, some minutes: the ``pin`` wheel ships Pinocchio's
   headers but no Eigen, CasADi's wheel ships Eigen 3.4; without headers or a C++
   compiler the script says why) and ``pinocchio.aba`` from Python (Python's call
   overhead included: a lower bound of Pinocchio's speed). Before timing, the
   accelerations of both peers agree with mechdae's at 5 random states to 1e-9
   (asserted: the same chain; see _peer_models.py for the mapping of coordinates).
2. A 10 s run of the chain at rtol 1e-8 / atol 1e-10, 501 outputs: ``System.simulate``
   against scipy's LSODA (``odeint``) on ``pinocchio.aba`` and MuJoCo's RK4 at dt = 1 ms
   (``mujoco.rollout``, all steps in C; MuJoCo's accelerations checked to 1e-9 too),
   each with its largest angle error against a reference (mechdae, Adams at rtol 1e-13,
   checked against LSODA on Pinocchio at rtol 1e-13); then mechdae at each peer's
   accuracy (the loosest rtol that reaches it), with BDF/Newton
   (``integrator_options={"linear_multistep_method": "bdf"}``) and with
   ``integrator_options=mechdae.simulate.smooth.ADAMS`` (no Jacobians).
3. Time stepping: the whole ``simulate()`` of the 10-bead column (models/column_of_beads,
   dt = 1 ms, 10 s, every step stored) per step against MuJoCo per step on a column of
   10 spheres (``_peer_models.mj_column``). The same: bodies, one vertical slide joint
   each, masses, radii, gravity, dt, the 10 contact pairs, no friction. Not the same:
   the contact law -- mechdae runs Moreau-Jean (rigid contacts, Newton's impact law
   e = 0.9, an LCP per step on the active set, gaps in closed form); MuJoCo soft
   contacts (a stiff damped spring in acceleration units, k = 1e5, damping set for
   e = 0.9, so bounces last ~10 ms and the stack rests sunk by tens of um) after a
   collision-detection pass each step. The stack at rest at 10 s is printed for both.

Peers not installed (``pip install ".[bench]"``): their rows are skipped with the reason.

Measured (issue 15; 5 full runs, 8 of row 2, on the 2 shared cores under a load
average of 2-4.7 from other sessions: absolute times vary 2x between runs, the ratios
within a run are what counts; pin 4.1.0, mujoco 4.0.0, CasADi 3.8.2; ranges over runs):

  one rhs, us   mechdae C loop / external / Python   Pinocchio ABA C++ / Python
  n = 8         0.91-2.10 / 1.16-2.64 / 1.12-2.54    3.63-8.10 / 4.81-9.74
  n = 16        3.41-6.50 / 3.56-7.09 / 3.45-7.10    8.04-14.78 / 9.03-17.40
  mechdae / Pinocchio: n = 8 0.24-0.30x (C loops), 0.32-0.35x (external vs C++),
  0.22-0.36x (both from Python); n = 16 0.39-0.44x, 0.36-0.48x, 0.23-0.47x (target
  <= 2x: met). Pinocchio runs 6-D spatial algebra per joint (a 3-D tree); mechdae's
  generated code is the planar Lagrangian's scalar expressions and an LDL solve.
  Inside cvodes one rhs costs 2.7-7.2 us (n = 8), 4.9-11.5 us (n = 16): CasADi's
  oracle call adds as much as the generated code itself, or more.

  10 s run, rtol 1e-8   mechdae (err)            LSODA+Pinocchio (err)  MuJoCo RK4 (err)
  (before: cvodes BDF by default)
  n = 8                 0.018-0.041 s (6.4e-7)   1.49-1.70x (2.5e-9)    9.3-11.6x (5.1e-10)
  n = 16                0.057-0.127 s (2.6e-7)   0.84-1.42x (1.3e-9)    5.0-6.6x (1.2e-9)
  (now: Adams first by default, BDF for stiff stretches; one run, load ~3)
  n = 8                 0.013 s (6.9e-8)         2.65x (2.5e-9)         18.7x (5.1e-10)
  n = 16                0.033 s (9.2e-8)         2.24x (1.3e-9)         14.2x (1.2e-9)
  (peer time / mechdae time; target > 1: met.) At each peer's accuracy: against LSODA
  Adams at rtol 1e-10 is 1.88x (n = 8) and 2.07x (n = 16) faster, BDF would need rtol
  1e-11/1e-12 (0.41x and 0.19x); against MuJoCo Adams 10.9x and 13.1x, BDF 2.9x and
  1.2x. BDF at rtol 1e-8 is ~100x less accurate than LSODA: that is why the default
  changed (smooth.py, _adams_first).

  column of 10 beads, us/step: mechdae whole simulate() 6.0-13.6 (its loop 4.9-11.5);
  MuJoCo 12.4-27.4 (rollout, states stored), 11.4-27.1 (mj_step in C); mechdae /
  MuJoCo 0.40-0.50x (both storing every step), 0.35-0.53x (against MuJoCo's C loop)
  (target < 1: met). At 10 s the bottom bead is -64.8 um (mechdae) and -47.4 um
  (MuJoCo) from resting on the ground, the top bead at 1.89977 and 1.89940 m.

Run:  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/bench_peers.py
      [--rows rhs,smooth,stepping]
"""
import argparse
import importlib
import importlib.util
import os
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "models"))
import _peer_models as pm  # noqa: E402
from bench_compile import _load_chain  # noqa: E402  (models/nlink_chain.py)

T_RUN, TOL = 10.0, dict(rtol=1e-8, atol=1e-10)
ROUNDS = 7


def peer(name, pip):
    """The module ``name``, or None after printing why its rows are skipped."""
    if importlib.util.find_spec(name) is None:
        print(f"{name} not installed (pip install {pip}, or mechdae[bench]): its rows "
              "skipped")
        return None
    return importlib.import_module(name)


def race(entrants, rounds=ROUNDS):
    """Least figure of each entrant over ``rounds`` rounds, the entrants taking turns in
    every round (a load that comes and goes on the shared cores hits them alike).
    ``entrants``: name -> callable returning its figure (seconds) for one trial."""
    figs = {}
    for _ in range(rounds):
        for name, trial in entrants.items():
            figs[name] = min(figs.get(name, np.inf), trial())
    return figs


def timed(f):
    """A trial of ``f``: its wall seconds."""
    def trial():
        t0 = time.perf_counter()
        f()
        return time.perf_counter() - t0
    return trial


class Chain:
    """The n-link chain in mechdae, with its compiled right-hand side at hand."""

    def __init__(self, n):
        from mechdae.simulate.inputs import resolve_inputs
        from mechdae.simulate.smooth import ode_function, ode_library, _pack
        self.n = n
        self.sys = _load_chain().build(n).compile(stabilization=None)
        pv = self.sys.param_vector()
        self.L, self.m, self.g = (float(pv[self.sys.p_names.index(k)]) for k in "Lmg")
        specs = resolve_inputs(self.sys, None)
        self.f, self.compiled = ode_function(self.sys, specs, "auto")
        self.lib, self.f_mx = ode_library(self.sys, specs, "auto")
        self.P = _pack(self.sys, 0.0, 1.0, pv, self.sys.H, self.sys.K, np.zeros(0))
        self.q0 = {f"theta{i + 1}": 0.5 for i in range(n)}

    def acc(self, theta, omega):
        """mechdae's angular accelerations (scaled time with T = 1: dx/dtau = dx/dt)."""
        x = np.concatenate([theta, omega])
        return np.array(self.f(x, 0.0, self.P)).ravel()[self.n:]

    def states(self, k=5, seed=0):
        rng = np.random.default_rng(seed + self.n)
        return [(rng.uniform(-np.pi, np.pi, self.n), rng.uniform(-3, 3, self.n))
                for _ in range(k)]


def rhs_rows(ch, pin, lib):
    """Row 1 for one chain: microseconds per right-hand side, and the ratios."""
    n, x = ch.n, np.concatenate([np.linspace(0.1, 0.8, ch.n), -0.05 * np.arange(ch.n)])
    out, t = np.zeros(2 * n), np.zeros(1)
    trials, k = {}, 20000
    # through casadi.external, no Python between calls: a serial map of K calls
    K = 2000
    buf, ev = ch.f.map(K, "serial").buffer()
    X, TT, PP, O = np.tile(x, K), np.zeros(K), np.tile(ch.P, K), np.zeros(2 * n * K)
    for i, a in enumerate((X, TT, PP)):
        buf.set_arg(i, memoryview(a))
    buf.set_res(0, memoryview(O))
    trials["external"] = lambda: timed(lambda: [ev() for _ in range(10)])() / (10 * K)
    buf1, ev1 = ch.f.buffer()
    for i, a in enumerate((x, t, ch.P)):
        buf1.set_arg(i, memoryview(a))
    buf1.set_res(0, memoryview(out))
    trials["python"] = lambda: timed(lambda: [ev1() for _ in range(k)])() / k
    if lib is not None and ch.lib is not None:
        addr, sz, _, _ = ch.lib.symbol(ch.f_mx.name())
        trials["c_loop"] = lambda: lib.casadi_loop(addr, *sz, pm.ptr(x), pm.ptr(t),
                                                   pm.ptr(ch.P), pm.ptr(out), k, 1)
    if pin is not None:
        model = pm.pin_chain(pin, n, ch.L, ch.m, ch.g)
        data = model.createData()
        q, v, tau, a = pm.relative(x[:n]), pm.relative(x[n:]), np.zeros(n), np.zeros(n)
        trials["pin_py"] = lambda: timed(
            lambda: [pin.aba(model, data, q, v, tau) for _ in range(k)])() / k
        if lib is not None:
            trials["pin_cxx"] = lambda: lib.pin_chain_aba(n, ch.L, ch.m, ch.g, pm.ptr(q),
                                                          pm.ptr(v), pm.ptr(a), k, 1)
    figs = race(trials)
    us = {key: val * 1e6 for key, val in figs.items()}
    where = "generated C" if ch.compiled else "CasADi Function (NO C COMPILER)"
    line = (f"chain n = {n}: one right-hand side ({where}): "
            + (f"C loop {us['c_loop']:.2f} us, " if "c_loop" in us else "")
            + f"via casadi.external {us['external']:.2f} us, from Python {us['python']:.2f} us")
    print(line)
    if "pin_cxx" in us:
        print(f"  Pinocchio ABA C++ {us['pin_cxx']:.2f} us: mechdae / Pinocchio = "
              f"{us['c_loop'] / us['pin_cxx']:.2f}x (C loops), "
              f"{us['external'] / us['pin_cxx']:.2f}x (mechdae via casadi.external); "
              "target <= 2x")
    if "pin_py" in us:
        print(f"  pinocchio.aba from Python {us['pin_py']:.2f} us (a lower bound of "
              f"Pinocchio's speed): mechdae from Python / it = "
              f"{us['python'] / us['pin_py']:.2f}x")
    return us


def check_peers(ch, pin, mujoco, lib):
    """Assert Pinocchio's (Python and C++) and MuJoCo's accelerations are mechdae's."""
    errs = {}
    for th, om in ch.states():
        a_md = ch.acc(th, om)
        q, v = pm.relative(th), pm.relative(om)
        if pin is not None:
            model = pm.pin_chain(pin, ch.n, ch.L, ch.m, ch.g)
            a = np.cumsum(pin.aba(model, model.createData(), q, v, np.zeros(ch.n)))
            errs["pinocchio"] = max(errs.get("pinocchio", 0),
                                    pm.check_same("pinocchio.aba", a_md, a))
            if lib is not None:
                a = np.zeros(ch.n)
                lib.pin_chain_aba(ch.n, ch.L, ch.m, ch.g, pm.ptr(q), pm.ptr(v), pm.ptr(a),
                                  0, 0)
                errs["Pinocchio C++"] = max(errs.get("Pinocchio C++", 0), pm.check_same(
                    "Pinocchio C++ harness", a_md, np.cumsum(a)))
        if mujoco is not None:
            mm = mujoco.MjModel.from_xml_string(pm.mj_chain_xml(ch.n, ch.L, ch.m, ch.g))
            a = np.cumsum(pm.mj_acc(mujoco, mm, mujoco.MjData(mm), q, v))
            errs["MuJoCo"] = max(errs.get("MuJoCo", 0), pm.check_same("MuJoCo", a_md, a))
    if errs:
        print(f"chain n = {ch.n}: accelerations at 5 random states agree with mechdae's: "
              + ", ".join(f"{k} {v:.1e}" for k, v in errs.items()))


def mj_start(mujoco, xml, qpos):
    """MuJoCo model, data and full-physics start state at ``qpos`` (at rest)."""
    mm = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(mm)
    d.qpos[:] = qpos
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    s0 = np.zeros(mujoco.mj_stateSize(mm, spec))
    mujoco.mj_getState(mm, d, s0, spec)
    return mm, d, s0, spec


def mj_trials(mujoco, mm, d, s0, spec, nstep, out):
    """Trials of MuJoCo: ``rollout`` (every state stored, in ``out["s"]``: time, qpos,
    ...) and ``mj_step`` with ``nstep`` (the C loop, nothing stored)."""
    from mujoco import rollout

    def run_rollout():
        out["s"] = rollout.rollout(mm, d, s0[None, :], nstep=nstep)[0][0]

    def run_c():
        mujoco.mj_setState(mm, d, s0, spec)
        mujoco.mj_step(mm, d, nstep=nstep)
    return timed(run_rollout), timed(run_c)


# mechdae's scheme options for the accuracy-matched rows: BDF / Newton on finite-difference
# Jacobians (integrator_options={"linear_multistep_method": "bdf"}) and Adams / functional
# iteration (no Jacobian; the default since issue 15 starts with it and hands a stiff
# stretch to BDF)
BDF = {"linear_multistep_method": "bdf"}
RTOLS = (1e-8, 1e-9, 1e-10, 1e-11, 1e-12)


def smooth_rows(ch, pin, mujoco):
    """Row 2 for one chain: 10 s runs, seconds and angle errors against the reference;
    then mechdae at the loosest rtol that is as accurate as each peer."""
    from scipy.integrate import odeint
    from mechdae.simulate.smooth import ADAMS
    s, n = ch.sys, ch.n
    # the reference: Adams at rtol 1e-13 (BDF there is 10x less accurate); checked
    # against LSODA on Pinocchio at 1e-13 below (agree to ~1e-12)
    ref = s.simulate(T_RUN, q0=ch.q0, rtol=1e-13, atol=1e-15, integrator_options=ADAMS)
    ts = ref.t
    th0 = np.array([ch.q0[f"theta{i + 1}"] for i in range(n)])
    got, err, trials = {}, {}, {}

    def md_run(key, rtol, scheme):
        def run():
            got[key] = s.simulate(T_RUN, q0=ch.q0, rtol=rtol, atol=rtol * 1e-2,
                                  integrator_options=dict(scheme))
        run()                                       # integrator built
        err[key] = np.abs(got[key].q - ref.q).max()
        trials[key] = timed(run)
    md_run("mechdae", TOL["rtol"], {})
    md_run(f"adams {TOL['rtol']:.0e}", TOL["rtol"], ADAMS)
    if pin is not None:
        model = pm.pin_chain(pin, n, ch.L, ch.m, ch.g)
        data, tau = model.createData(), np.zeros(n)
        y0 = np.concatenate([pm.relative(th0), np.zeros(n)])

        def f(y, t):
            return np.concatenate((y[n:], pin.aba(model, data, y[:n], y[n:], tau)))

        def lsoda(rtol=TOL["rtol"], atol=TOL["atol"]):
            y, info = odeint(f, y0, ts, rtol=rtol, atol=atol, full_output=True,
                             mxstep=10 ** 6)
            return np.cumsum(y[:, :n], axis=1), int(info["nfe"][-1])

        def run_ls():
            got["lsoda"] = lsoda()
        run_ls()
        err["lsoda"] = np.abs(got["lsoda"][0] - ref.q).max()
        trials["lsoda"] = timed(run_ls)
        e_ref = np.abs(lsoda(1e-13, 1e-15)[0] - ref.q).max()
    if mujoco is not None:
        mj = mj_start(mujoco, pm.mj_chain_xml(n, ch.L, ch.m, ch.g), pm.relative(th0))
        nstep = int(round(T_RUN / mj[0].opt.timestep))
        trials["mujoco"], trials["mujoco_c"] = mj_trials(mujoco, *mj, nstep, got)
        trials["mujoco"]()
        every = nstep // (ts.size - 1)
        st = got["s"][every - 1::every]                       # after steps 20, 40, ...
        assert np.allclose(st[:, 0], ts[1:], atol=1e-9), "MuJoCo output times"
        err["mujoco"] = np.abs(np.cumsum(st[:, 1:1 + n], axis=1) - ref.q[1:]).max()
    # mechdae at each peer's accuracy: the loosest rtol of RTOLS reaching it, per scheme
    matched = {}
    for peer_ in ("lsoda", "mujoco"):
        for scheme, opts in (("bdf", BDF), ("adams", ADAMS)):
            for rtol in RTOLS:
                key = f"{scheme} {rtol:.0e}"
                if key not in err:
                    md_run(key, rtol, opts)
                if err[key] <= err.get(peer_, -1):
                    matched[peer_, scheme] = key
                    break
    t = race(trials, 5)
    r = got["mechdae"]
    st = r.stats                   # CasADi's oracle counters, per call (Result.stats)
    in_cvodes = st["t_wall_daeF"] / max(1, st["n_call_daeF"])
    print(f"chain n = {n}, 10 s run, rtol 1e-8: mechdae (default: {st.get('lmm', 'bdf')}) "
          f"{t['mechdae']:.3f} s (err {err['mechdae']:.1e}, {st['n_rhs']} rhs at "
          f"{in_cvodes * 1e6:.2f} us each as cvodes calls them, {st['nlinsetups']} "
          "Jacobians by finite differences)")

    ka = f"adams {TOL['rtol']:.0e}"
    vs = "".join(f", {name} / it {t[k] / t[ka]:.2f}x" for k, name in
                 (("lsoda", "LSODA"), ("mujoco", "MuJoCo")) if k in t)
    print(f"  mechdae with integrator_options=ADAMS (Adams, functional iteration: no "
          f"Jacobian) at rtol 1e-8: {t[ka]:.3f} s (err {err[ka]:.1e}){vs}")

    def at_accuracy(peer_):
        out = []
        for scheme in ("bdf", "adams"):
            key = matched.get((peer_, scheme))
            name = "BDF" if scheme == "bdf" else "Adams (integrator_options=ADAMS)"
            out.append(f"{name} at rtol {key.split()[1]}: {t[key]:.3f} s, err "
                       f"{err[key]:.1e} ({t[peer_] / t[key]:.2f}x)" if key else
                       f"{name}: not reached by rtol {RTOLS[-1]:g}")
        return (f"    at its accuracy (err <= {err[peer_]:.1e}) mechdae "
                + "; ".join(out))
    if "lsoda" in t:
        print(f"  scipy LSODA (odeint) on pinocchio.aba {t['lsoda']:.3f} s (err "
              f"{err['lsoda']:.1e}, {got['lsoda'][1]} rhs): LSODA / mechdae "
              f"{t['lsoda'] / t['mechdae']:.2f}x (target > 1); the reference (mechdae, Adams "
              f"at rtol 1e-13) against LSODA+Pinocchio at rtol 1e-13: {e_ref:.1e}")
        print(at_accuracy("lsoda"))
    if "mujoco" in t:
        print(f"  MuJoCo RK4 dt = 1 ms {t['mujoco']:.3f} s (rollout: {nstep} steps in C, "
              f"every state stored; err {err['mujoco']:.1e}), {t['mujoco_c']:.3f} s "
              f"(mj_step nstep, nothing stored): MuJoCo / mechdae "
              f"{t['mujoco'] / t['mechdae']:.2f}x and {t['mujoco_c'] / t['mechdae']:.2f}x "
              "(target > 1)")
        print(at_accuracy("mujoco"))
    return t


def stepping_rows(mujoco):
    """Row 3: whole simulate() of the 10-bead column per step against MuJoCo per step."""
    import column_of_beads
    n, T, dt = 10, 10.0, 1e-3
    col = column_of_beads.build(n).compile(stabilization=None)
    q0 = column_of_beads.initial_heights(n)
    col.simulate(0.01, q0=q0, method="timestepping", dt=dt)          # compiled once
    steps = int(round(T / dt))
    got = {}

    def run(every):
        r = col.simulate(T, q0=q0, method="timestepping", dt=dt, every=every)
        got[every] = r
        if every == 1:          # the loop of the same runs as the whole simulate() figure
            got["loop"] = min(got.get("loop", np.inf), r.stats["loop_time"])
    trials = {"all": timed(lambda: run(1)), "every100": timed(lambda: run(100))}
    if mujoco is not None:
        mj = mj_start(mujoco, pm.mj_column(n, dt=dt), [q0[f"y{i}"] for i in range(n)])
        trials["mujoco"], trials["mujoco_c"] = mj_trials(mujoco, *mj, steps, got)
    us = {k: v / steps * 1e6 for k, v in race(trials).items()}
    us_loop = got["loop"] / steps * 1e6
    r = got[1]
    print(f"column of {n} beads, 10 s at dt = 1 ms: whole simulate() {us['all']:.2f} us/step "
          f"(every step stored; {us['every100']:.2f} with every=100), its stepping loop "
          f"{us_loop:.2f} us/step; simulate / loop {us['all'] / us_loop:.2f}x "
          f"({len(r.events)} events)")
    if mujoco is None:
        return us
    print(f"  MuJoCo column of {n} spheres: {us['mujoco']:.2f} us/step (rollout, every "
          f"state stored), {us['mujoco_c']:.2f} us/step (mj_step nstep in C, nothing "
          f"stored); mechdae / MuJoCo {us['all'] / us['mujoco']:.2f}x (both storing every "
          f"step) and {us['all'] / us['mujoco_c']:.2f}x (against the C loop); target < 1")
    # the same physics as far as the contact laws allow: the stack at rest at 10 s
    y = np.column_stack([r[f"y{i}"] for i in range(n)])
    z = got["s"][:, 1:1 + n]
    print(f"  at 10 s: bottom bead {1e6 * (y[-1, 0] - 0.1):+.1f} um (mechdae) and "
          f"{1e6 * (z[-1, 0] - 0.1):+.1f} um (MuJoCo) from resting on the ground, top bead "
          f"at {y[-1, -1]:.5f} m and {z[-1, -1]:.5f} m (a rigid stack at rest: 1.9 m)")
    return us


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default="rhs,smooth,stepping",
                    help="comma-separated rows to run (rhs, smooth, stepping)")
    args = ap.parse_args(argv)
    rows = set(args.rows.split(","))
    pin = peer("pinocchio", "pin")
    mujoco = peer("mujoco", "mujoco")
    lib = None
    if pin is not None and rows & {"rhs"}:
        lib, why = pm.cxx_harness(pin)
        if lib is None:
            print(f"Pinocchio C++ figure skipped: {why}; pinocchio.aba from Python "
                  "stands for it (a lower bound of Pinocchio's speed)")
    for n in (8, 16):
        ch = Chain(n)
        check_peers(ch, pin, mujoco, lib)
        if "rhs" in rows:
            rhs_rows(ch, pin, lib)
        if "smooth" in rows:
            smooth_rows(ch, pin, mujoco)
    if "stepping" in rows:
        stepping_rows(mujoco)
    return 0


if __name__ == "__main__":
    sys.exit(main())
