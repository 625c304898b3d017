"""Acausal components: compile and simulation cost against the same model written by hand.

1. A chain of ``n`` Mass + Spring components (a Fixed wall, then spring, mass, spring,
   mass, ...) against the same chain written as one DSL Model (coordinates, kinetic and
   potential energy). Flattening and alias elimination must leave no extra states: the
   two Systems have the same coordinates, and the cost per right-hand side (and per
   simulation) is the same. Target: compile (build + flatten + compile) within 2x of the
   hand-written model.

   Measured (n = 30, best of 3, load ~1), with the 1-D network fast path of the flattening
   (mechdae/components/flatten/network.py: the masses' positions as coordinates, springs'
   energies, dampers and sources as generalized forces, the generic path's outputs
   written directly; the components build no CasADi equations): compile 36.6-37.6 ms
   against 39.1-39.4 ms by hand, ratio 0.93-0.96 (target 2: met; was 147 ms, 3.76x):
   build 4.1 ms (by hand 17.9), flatten 17.4 ms (the 362 outputs: every flange's position
   and force, each spring's s_rel, v_rel, f, each mass's a), compile_model 17.0 ms (by hand
   22.2). The generic path (``model._network_fast_path = False``) still takes 147-154 ms.
   Simulate 1 s: the same 240 rhs, 3.2 ms against 2.7-2.8 ms (1.15-1.18x, as before: the
   362 outputs evaluated at the output times; the hand-written model has none).
   Section 3's mass-spring-damper line takes the same path: 1,001 components in 0.71 s
   (was 2.85 s; growth N^0.97); the RC ladder does not (1.51-1.57 s, as before).
2. A 30-link planar pendulum chain from ``pl.World``, ``pl.Revolute`` and ``pl.BodyShape``
   (relative joint angles, per-link parameters ``r``, ``r_cm``, ``m``, ``I``) against
   models/nlink_chain.py (absolute angles, three shared parameters): compile time, nodes of
   the mass matrix, and simulate cost. Target: compile within 2x, the same cost per step.
   The spatial library's chain (``sp.Revolute`` about z) is reported beside it.
   Then both chains again with ``compile(evaluate=True)`` (parameters folded in as numbers).

   Measured (best of 3, load ~1), with the tree fast path of the flattening
   (mechdae/components/flatten/tree.py: frames in closed form from the root, cut forces by
   Newton-Euler; the components build no CasADi equations), its kinetic energy in
   composite-rigid-body form (mechdae/components/flatten/crba.py: one term ``D^T Ic (V + D/2)`` per
   joint, composite inertias about the joints), and M and the velocity terms of h handed to
   compile() instead of derived from T (``Model._inertia``, mechdae/symbolic/derive.py):
   M by the composite-rigid-body algorithm (``M_jk = S_j^T X_jk Ic_k S_k``, the forces of
   a subtree moved toward the root as one vector per link), the velocity terms by
   Newton-Euler with ``q'' = 0`` (origins' accelerations out from the root, forces back
   from the leaves). Default compile 73.6-81.8 ms against 51.3-54.2 ms (ratio 1.4-1.5,
   target 2: met; was 1.6-1.7; --quick under load 1.7-2.5): build 6.7 ms, flatten 55 ms
   (was 38: M and the velocity terms are built here now), compile_model 27 ms (was 55).
   M 4,008 instructions (derived from T: 6,560; nlink_chain.py 6,513), h 1,841 (was
   4,919; nlink_chain.py 1,912); both run as generated C. The right-hand side alone
   (CVODES' clock of its rhs calls, 15 runs each, min and median): 20.4-22.5 us against
   19.8-22.1 us, 1.02-1.05x (the same runs before the change: 1.03-1.09x). Simulate 2 s:
   46.6 ms against 42.0 ms, per rhs 1.09x (was 1.15-1.19x): the rest is the 876 outputs
   (every frame's potentials and cut forces) evaluated at the 501 output times after the
   integration (nlink_chain.py has none).
   With ``evaluate=True`` (``Model.substitute`` folds the parameters into the handed M and
   c too): M 3,158 + h 904 instructions (was 5,710 + 3,252; nlink_chain.py's evaluated
   build 4,559 + 1,250), the rhs alone 0.99x its evaluated build (was 1.03x).
   The spatial chain (mechdae/components/flatten/tree_spatial.py, the same composite form in 3-D;
   M and h still derived from T; not measured again): compile 209-214 ms (4.0x; was
   2.36 s, 37.8x): build 27 ms, flatten 110 ms (2,448 outputs and 451 parameters through
   the Model API: ~35 ms), compile_model 74 ms; M 7,340 + h
   7,181 instructions (was 13,391 + 6,182, past codegen's limit of MAX_SOURCE / 22 chars =
   18,181, so it ran interpreted at 5.2x per rhs): now generated C, the rhs alone 1.13x,
   per rhs 1.32x (2,448 outputs).
3. Scale: a mass-spring-damper line and an RC ladder of ``N`` components (about 5
   flat equations per component) through every stage: component construction, flattening
   (alias elimination included), index reduction, derivation; the growth exponent between
   sizes. Target: 1,000 components in under 10 s.

Usage::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/bench_components.py [--quick]
"""
import argparse
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import mechdae as md  # noqa: E402
from mechdae.components import electrical as el, translational as tr  # noqa: E402


def chain_components(n, c=100.0, mass=1.0, damper=0.0):
    m = md.Model("chain")
    prev = m.add(tr.Fixed("wall")).flange
    for i in range(n):
        if damper:
            sp = m.add(tr.SpringDamper(f"s{i}", c=c, d=damper))
        else:
            sp = m.add(tr.Spring(f"s{i}", c=c))
        ms = m.add(tr.Mass(f"m{i}", m=mass))
        m.connect(prev, sp.flange_a)
        m.connect(sp.flange_b, ms.flange_a)
        prev = ms.flange_b
    return m


def chain_by_hand(n, c=100.0, mass=1.0):
    m = md.Model("chain")
    xs = [m.coordinates(f"m{i}.s", speeds=f"m{i}.v") for i in range(n)]
    prev = 0.0
    for i, x in enumerate(xs):
        cp = m.parameter(f"s{i}.c", c)
        mp = m.parameter(f"m{i}.m", mass)
        m.kinetic_energy(0.5 * mp * md.der(x) ** 2)
        m.potential_energy(0.5 * cp * (x - prev) ** 2)
        prev = x
    return m


def rc_ladder(N):
    m = md.Model("rc")
    src = m.add(el.VoltageSource("src", V=1.0))
    g = m.add(el.Ground("gnd"))
    m.connect(src.n, g.p)
    prev = src.p
    for i in range(max(1, (N - 2) // 2)):
        R = m.add(el.Resistor(f"R{i}", R=1.0))
        C = m.add(el.Capacitor(f"C{i}", C=1e-3))
        m.connect(prev, R.p)
        m.connect(R.n, C.p)
        m.connect(C.n, g.p)
        prev = R.n
    return m


def best(f, repeat):
    out, t = None, np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        t = min(t, time.perf_counter() - t0)
    return t, out


def compare_chain(n, repeat=3):
    t_comp, s_comp = best(lambda: chain_components(n).compile(stabilization=None), repeat)
    t_hand, s_hand = best(lambda: chain_by_hand(n).compile(stabilization=None), repeat)
    assert s_comp.nq == s_hand.nq == n and s_comp.nv == s_comp.nz == 0
    q0 = {f"m{i}.s": 0.01 * (i + 1) for i in range(n)}
    r1 = s_comp.simulate(1.0, q0=q0, stabilization=None)      # builds the integrator
    r2 = s_hand.simulate(1.0, q0=q0, stabilization=None)
    t_sc, r1 = best(lambda: s_comp.simulate(1.0, q0=q0), repeat)
    t_sh, r2 = best(lambda: s_hand.simulate(1.0, q0=q0), repeat)
    dev = np.abs(r1.q - r2.q).max()
    print(f"chain of {n} Mass+Spring: compile components {t_comp * 1e3:7.1f} ms, by hand "
          f"{t_hand * 1e3:7.1f} ms, ratio {t_comp / t_hand:5.2f} (target <= 2)")
    print(f"   simulate 1 s: components {t_sc * 1e3:7.1f} ms ({r1.stats['n_rhs']} rhs), by hand "
          f"{t_sh * 1e3:7.1f} ms ({r2.stats['n_rhs']} rhs), ratio {t_sc / t_sh:5.2f}; "
          f"states {s_comp.nq}+{s_comp.nu} vs {s_hand.nq}+{s_hand.nu}; max |dq| {dev:.1e}")


def pendulum_chain(lib, n):
    """n links hanging from the world, point masses at the tips (joint coordinates)."""
    from mechdae.components import planar as pl, spatial as sp
    m = md.Model(f"chain{n}")
    if lib == "planar":
        prev = m.add(pl.World("world")).frame
        mk = lambda i: (pl.Revolute(f"j{i}"), pl.BodyShape(             # noqa: E731
            f"b{i}", r=(0.0, -1.0), r_cm=(0.0, -1.0), m=1.0, I=0.0))
    else:
        prev = m.add(sp.World("world", n=(0, -1, 0))).frame
        mk = lambda i: (sp.Revolute(f"j{i}"), sp.BodyShape(             # noqa: E731
            f"b{i}", r=(0, -1, 0), r_cm=(0, -1, 0), m=1.0, I=0.0))
    for i in range(1, n + 1):
        j, b = (m.add(c) for c in mk(i))
        m.connect(prev, j.frame_a)
        m.connect(j.frame_b, b.frame_a)
        prev = b.frame_b
    return m


def rhs_cost(r):
    """Seconds per right-hand side inside the integrator (CVODES' own clock of its rhs
    calls), or None; the rest of ``simulate`` is set-up, outputs and the Result."""
    t, k = r.stats.get("t_wall_daeF"), r.stats.get("nfevals")
    return t / k if t and k else None


def compare_pendulum_chain(n=30, repeat=3, spatial=True):
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).resolve().parents[1] / "models" / "nlink_chain.py"
    spec = importlib.util.spec_from_file_location("nlink_chain", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    t_hand, s_hand = best(lambda: mod.build(n).compile(stabilization=None), repeat)
    q0 = {"theta1": 0.5}
    s_hand.simulate(2.0, q0=q0)
    t_sh, r_h = best(lambda: s_hand.simulate(2.0, q0=q0), repeat)
    nodes_h = s_hand.functions["M"].n_nodes()
    rhs_h = rhs_cost(r_h)
    print(f"{n}-link pendulum chain (models/nlink_chain.py): compile {t_hand * 1e3:7.1f} ms, "
          f"M {nodes_h} nodes, simulate 2 s {t_sh * 1e3:7.1f} ms ({r_h.stats['n_rhs']} rhs)")
    for lib in ("planar", "spatial") if spatial else ("planar",):
        t_c, s_c = best(lambda: pendulum_chain(lib, n).compile(stabilization=None),
                        repeat if lib == "planar" else 1)
        qc = {"j1.phi": 0.5, "j2.phi": -0.5}     # theta1 = 0.5, the others 0
        s_c.simulate(2.0, q0=qc)
        t_sc, r_c = best(lambda: s_c.simulate(2.0, q0=qc), repeat if lib == "planar" else 1)
        theta = np.cumsum([r_c[f"j{i}.phi"][-1] for i in range(1, n + 1)])
        dev = max(abs(theta[i] - r_h[f"theta{i + 1}"][-1]) for i in range(n))
        nodes_c = s_c.functions["M"].n_nodes()
        rhs_c = rhs_cost(r_c)
        inner = f", the rhs alone {rhs_c / rhs_h:4.2f}" if rhs_c and rhs_h else ""
        print(f"   from {lib} components: compile {t_c * 1e3:7.1f} ms (ratio "
              f"{t_c / t_hand:5.1f}, target <= 2), M {nodes_c} nodes ({nodes_c / nodes_h:4.1f}x), "
              f"simulate {t_sc * 1e3:7.1f} ms ({r_c.stats['n_rhs']} rhs; per rhs ratio "
              f"{(t_sc / r_c.stats['n_rhs']) / (t_sh / r_h.stats['n_rhs']):4.2f}{inner}, "
              f"target 1); max |dtheta(2 s)| {dev:.1e}")


def compare_evaluated_chain(n=30, repeat=3):
    """The same two chains compiled with ``evaluate=True`` (parameters folded in as numbers,
    Modelica's Evaluate=true): the components' zero offsets and inertias vanish, so the
    right-hand side is small enough to run as generated C."""
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).resolve().parents[1] / "models" / "nlink_chain.py"
    spec = importlib.util.spec_from_file_location("nlink_chain", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rows = {}
    for label, build, q0 in (("nlink_chain.py", lambda: mod.build(n), {"theta1": 0.5}),
                             ("planar components", lambda: pendulum_chain("planar", n),
                              {"j1.phi": 0.5, "j2.phi": -0.5})):
        for ev in (None, True):
            t_c, s = best(lambda: build().compile(stabilization=None, evaluate=ev), repeat)
            t0 = time.perf_counter()
            s.simulate(2.0, q0=q0)                     # generates and compiles C (cached)
            t_first = time.perf_counter() - t0
            t_s, r = best(lambda: s.simulate(2.0, q0=q0), repeat)
            rows[(label, ev)] = (t_c, t_s / r.stats["n_rhs"], rhs_cost(r))
            inner = rhs_cost(r)
            print(f"   {label:18s} evaluate={str(ev):5s}: compile {t_c * 1e3:7.1f} ms, M "
                  f"{s.functions['M'].n_instructions():6d} + h "
                  f"{s.functions['h'].n_instructions():5d} instructions, first simulate "
                  f"{t_first:6.2f} s, simulate 2 s {t_s * 1e3:7.1f} ms ({r.stats['n_rhs']} rhs, "
                  f"{'C' if r.stats['compiled'] else 'interpreted'}, "
                  f"{r.stats.get('lmm', 'bdf')}), per rhs {t_s / r.stats['n_rhs'] * 1e6:6.1f} us"
                  + (f" (the rhs alone {inner * 1e6:5.1f} us, outputs {len(s.output_names)})"
                     if inner else ""))
    hand, comp = rows[("nlink_chain.py", None)], rows[("planar components", True)]
    hand_ev = rows[("nlink_chain.py", True)]
    plain = rows[("planar components", None)]
    print(f"   components evaluate=True against nlink_chain.py: compile ratio "
          f"{comp[0] / hand[0]:4.1f} (against its evaluated build {comp[0] / hand_ev[0]:4.1f}), "
          f"per rhs ratio {comp[1] / hand[1]:4.2f} ({comp[1] / hand_ev[1]:4.2f}); target 2 / 1")
    if all(r[2] for r in (hand, plain, comp, hand_ev)):
        print(f"   the rhs alone (integrator's clock): components {plain[2] / hand[2]:4.2f}x "
              f"nlink_chain.py, evaluate=True {comp[2] / hand_ev[2]:4.2f}x its evaluated build")


def stages(kind, N):
    t0 = time.perf_counter()
    m = chain_components(N // 2, damper=0.5) if kind == "msd" else rc_ladder(N)
    t1 = time.perf_counter()
    m.flatten()
    s = m.compile()
    t2 = time.perf_counter()
    st = s.compile_stats
    n_eq = len(m.equations) + len(m.holonomic_) + s.nq + len(m.outputs)
    print(f"{kind:4s} {len(m.components):6d} components ({n_eq:6d} flat equations and "
          f"outputs): build {t1 - t0:6.2f} s  flatten {st['flatten']:6.2f} s (alias "
          f"elimination {st['alias_elimination']:5.2f} s, {st['aliases_eliminated']} "
          f"potentials eliminated)  index reduction {st['index_reduction']:6.2f} s  "
          f"derivation {st['derivation']:6.2f} s  total {t2 - t0:6.2f} s  "
          f"(states {s.nq + s.nu + s.nv}, algebraic {s.nz})")
    return t2 - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    print(f"mechdae {md.__version__}; OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}")
    compare_chain(30, repeat=1 if args.quick else 3)
    compare_pendulum_chain(30, repeat=1 if args.quick else 3, spatial=not args.quick)
    compare_evaluated_chain(30, repeat=1 if args.quick else 3)
    sizes = [100, 300] if args.quick else [100, 300, 1000]
    for kind in ("msd", "rc"):
        ts = [stages(kind, N) for N in sizes]
        k = np.polyfit(np.log(sizes), np.log(ts), 1)[0]
        print(f"   {kind}: total time grows as N^{k:.2f} over N = {sizes}; "
              f"{'OK' if ts[-1] < 10 or sizes[-1] < 1000 else 'SLOW'} (target: 1,000 components < 10 s)")


if __name__ == "__main__":
    main()
