"""Smooth simulation of the n-link chain (models/nlink_chain.py): mechdae vs scipy LSODA.

Per n (8, 16):

* one right-hand side: the generated C (``mechdae.codegen``, called through a CasADi
  buffer) against the CasADi Function object (the path without a C compiler);
* a 10 s run at rtol 1e-8 / atol 1e-10, 501 outputs: ``System.simulate`` (cvodes on the
  generated C), the same with ``compiled=False``, and scipy's LSODA on the same
  right-hand side (the compiled one, called from Python per evaluation), each with its
  largest error in the angles against a reference (mechdae at rtol 1e-12);
* the peers, Pinocchio's ABA and MuJoCo's RK4, are in benchmarks/bench_peers.py.

Then n = 64: the first simulate (compile of the generated C included, in a fresh cache
folder; the source is past ``mechdae.codegen.MAX_SOURCE``, so the interpreted Function
runs, with Adams first: ``mechdae.simulate.smooth.ADAMS``) and a repeat simulate on a new
output grid, against BDF/Newton on the same right-hand side (its finite-difference
Jacobians) and with the error against BDF at rtol 1e-12.

Run:  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/bench_smooth.py [--quick]
``--quick`` skips n = 64.
"""
import argparse
import os
import sys
import tempfile
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_compile import _load_chain as _chain  # noqa: E402  (models/nlink_chain.py)


def best(f, rep=3):
    out = []
    for _ in range(rep):
        t0 = time.perf_counter()
        f()
        out.append(time.perf_counter() - t0)
    return min(out)


def rhs_time(f, x, P, k=20000):
    """Seconds per evaluation of ``f(x, 0.3, P)`` through a CasADi buffer."""
    buf, ev = f.buffer()
    a, t, p, o = x.copy(), np.array([0.3]), P.copy(), np.zeros(x.size)
    for i, arr in enumerate((a, t, p)):
        buf.set_arg(i, memoryview(arr))
    buf.set_res(0, memoryview(o))
    return best(lambda: [ev() for _ in range(k)]) / k


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip n = 64")
    args = ap.parse_args(argv)
    from scipy.integrate import solve_ivp
    from mechdae.simulate.inputs import resolve_inputs
    from mechdae.simulate.smooth import ode_function, _pack
    chain = _chain()
    T, tol = 10.0, dict(rtol=1e-8, atol=1e-10)
    for n in (8, 16):
        s = chain.build(n).compile(stabilization=None)
        q0 = {f"theta{i + 1}": 0.5 for i in range(n)}
        specs = resolve_inputs(s, None)
        fc, is_c = ode_function(s, specs, "auto")
        ff, _ = ode_function(s, specs, False)
        x0 = np.concatenate(s.state_arrays(q0, None)[:2])
        P1 = _pack(s, 0.0, 1.0, s.param_vector(), s.H, s.K, np.zeros(0))
        us_c, us_f = rhs_time(fc, x0, P1) * 1e6, rhs_time(ff, x0, P1, 5000) * 1e6
        print(f"chain n = {n}: one right-hand side  generated C {us_c:.2f} us "
              f"({'compiled' if is_c else 'NO COMPILER'}), CasADi Function {us_f:.2f} us "
              f"(ratio {us_f / us_c:.1f}x)")
        ref = s.simulate(T, q0=q0, rtol=1e-12, atol=1e-14)
        s.simulate(T, q0=q0, **tol)                  # integrator built, code compiled
        s.simulate(T, q0=q0, compiled=False, **tol)
        r = s.simulate(T, q0=q0, **tol)
        rf = s.simulate(T, q0=q0, compiled=False, **tol)
        t_md = best(lambda: s.simulate(T, q0=q0, **tol))
        t_mf = best(lambda: s.simulate(T, q0=q0, compiled=False, **tol), 1)
        # scipy LSODA on the same (compiled) right-hand side, one Python call per evaluation
        buf, ev = fc.buffer()
        xa, ta, out = np.zeros(x0.size), np.zeros(1), np.zeros(x0.size)
        buf.set_arg(0, memoryview(xa))
        buf.set_arg(1, memoryview(ta))
        buf.set_arg(2, memoryview(P1))
        buf.set_res(0, memoryview(out))

        def f(t, x):
            xa[:] = x
            ta[0] = t
            ev()
            return out.copy()
        sol = {}

        def lsoda():
            sol["r"] = solve_ivp(f, (0.0, T), x0, method="LSODA", t_eval=ref.t, **tol)
        t_ls = best(lsoda, 1)
        e_md = np.abs(r.q - ref.q).max()
        e_mf = np.abs(rf.q - ref.q).max()
        e_ls = np.abs(sol["r"].y[:n].T - ref.q).max()
        print(f"  10 s run, rtol 1e-8: mechdae {t_md:.3f} s (err {e_md:.1e}, "
              f"{r.stats['n_rhs']} rhs), Function path {t_mf:.3f} s (err {e_mf:.1e}), "
              f"scipy LSODA same rhs {t_ls:.3f} s (err {e_ls:.1e}, {sol['r'].nfev} rhs); "
              f"LSODA / mechdae {t_ls / t_md:.1f}x")
    if args.quick:
        return 0
    n = 64
    with tempfile.TemporaryDirectory() as d:
        os.environ["MECHDAE_CACHE"] = d            # nothing compiled yet
        s = chain.build(n).compile(stabilization=None)
        q0 = {f"theta{i + 1}": 0.5 for i in range(n)}
        t0 = time.perf_counter()
        rc = s.simulate(0.01, q0=q0)
        t_first = time.perf_counter() - t0
        t0 = time.perf_counter()
        rg = s.simulate(0.01, q0=q0, n_out=37)
        t_grid = time.perf_counter() - t0
        # BDF / Newton (an explicit scheme option keeps it): the solver before Adams-first
        bdf = dict(integrator_options={"newton_scheme": "direct"})
        t0 = time.perf_counter()
        s.simulate(0.01, q0=q0, n_out=38, **bdf)
        t_bdf = time.perf_counter() - t0
        ref = s.simulate(0.01, q0=q0, n_out=37, rtol=1e-12, atol=1e-14, **bdf)
    how = ("compile of the generated C included" if rc.stats["compiled"] else
           "source past mechdae.codegen.MAX_SOURCE: Function path")
    print(f"chain n = 64: first simulate {t_first:.2f} s ({how}, "
          f"{rc.stats.get('lmm', 'bdf')}; target < 1 s), repeat on a new output grid "
          f"{t_grid * 1e3:.1f} ms (target < 50 ms; err {np.abs(rg.q - ref.q).max():.1e} "
          f"against BDF at rtol 1e-12); the same with BDF/Newton {t_bdf * 1e3:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
