"""Compile time of the planar n-link chain: mechdae vs sympy.physics.mechanics.

Both derive the equations of motion ``M(q) q'' = f(q, q')`` of the same system
(models/nlink_chain.py: point masses m at the tips of massless links of length L, absolute
angles from the downward vertical, gravity g):

* mechdae: ``build(n).compile(stabilization=None)`` -- derivation of M, h, Jacobians and
  the named CasADi Functions;
* sympy: ``LagrangesMethod(L, q).form_lagranges_equations()`` plus ``mass_matrix`` and
  ``forcing`` (the peer's equivalent of the same output, symbolic).

Usage::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/bench_compile.py [--quick]

``--quick`` skips sympy at n = 8 (about 10-40 s).  Each mechdae time is the best of
``--repeat`` runs (sympy: one run; its caches are cleared between sizes).
"""
import argparse
import importlib.util
import os
import pathlib
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

REPO = pathlib.Path(__file__).resolve().parents[1]


def _load_chain():
    spec = importlib.util.spec_from_file_location("_nlink_chain", REPO / "models" / "nlink_chain.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def mechdae_compile_time(n, repeat=3):
    """Best-of-``repeat`` seconds for build(n) + compile(); also returns the System."""
    chain = _load_chain()
    best, sys_ = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        sys_ = chain.build(n=n).compile(stabilization=None)
        best = min(best, time.perf_counter() - t0)
    return best, sys_


def sympy_chain(n):
    """The same chain with sympy.physics.mechanics LagrangesMethod: (M, forcing)."""
    import sympy as sp
    from sympy.physics.mechanics import LagrangesMethod, dynamicsymbols

    q = dynamicsymbols(f"theta1:{n + 1}")
    t = dynamicsymbols._t
    L, m, g = sp.symbols("L m g")
    x = y = 0
    T = V = 0
    for qi in q:
        x = x + L * sp.sin(qi)
        y = y - L * sp.cos(qi)
        T = T + m / 2 * (sp.diff(x, t) ** 2 + sp.diff(y, t) ** 2)
        V = V + m * g * y
    lm = LagrangesMethod(T - V, q)
    lm.form_lagranges_equations()
    return lm.mass_matrix, lm.forcing


def sympy_compile_time(n):
    import sympy as sp
    sp.core.cache.clear_cache()
    t0 = time.perf_counter()
    sympy_chain(n)
    return time.perf_counter() - t0


def check_same_equations(n, sys_):
    """Sanity check: sympy's and mechdae's M and forcing agree at a random state."""
    import numpy as np
    import sympy as sp
    from sympy.physics.mechanics import dynamicsymbols

    M_s, f_s = sympy_chain(n)
    q = dynamicsymbols(f"theta1:{n + 1}")
    qd = [sp.diff(qi, dynamicsymbols._t) for qi in q]
    rng = np.random.default_rng(0)
    qv, uv = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    subs = {sp.Symbol("L"): 1.0, sp.Symbol("m"): 1.0, sp.Symbol("g"): 9.81}
    subs.update({d: float(v) for d, v in zip(qd, uv)})
    subs.update({a: float(v) for a, v in zip(q, qv)})
    Ms = np.array(M_s.xreplace(subs).evalf(), dtype=float)
    fs = np.array(f_s.xreplace(subs).evalf(), dtype=float).ravel()
    d = sys_.dynamics_terms(qv, uv, params={"L": 1.0, "m": 1.0, "g": 9.81})
    return max(np.abs(Ms - d["M"]).max(), np.abs(fs - d["h"]).max())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip sympy at n = 8")
    ap.add_argument("--repeat", type=int, default=3, help="mechdae best-of repeats")
    ap.add_argument("--no-sympy", action="store_true", help="mechdae only")
    args = ap.parse_args(argv)

    try:
        import sympy  # noqa: F401
        import sympy.physics.mechanics  # noqa: F401  (import cost not timed)
        have_sympy = not args.no_sympy
    except ImportError:
        have_sympy = False
        print("sympy not installed (pip install sympy, or the 'bench' extra): mechdae only")

    print(f"{'n':>3}  {'mechdae [s]':>12}  {'sympy [s]':>10}  {'ratio':>9}  {'|diff|':>8}")
    for n in (2, 4, 6, 8):
        tm, sys_ = mechdae_compile_time(n, args.repeat)
        if have_sympy and not (args.quick and n == 8):
            ts = sympy_compile_time(n)
            diff = check_same_equations(n, sys_)
            print(f"{n:3d}  {tm:12.4f}  {ts:10.2f}  {ts / tm:8.0f}x  {diff:8.1e}", flush=True)
        else:
            print(f"{n:3d}  {tm:12.4f}  {'-':>10}  {'-':>9}", flush=True)
    print("mechdae alone (target: n = 30 under 2 s)")
    for n in (10, 20, 30):
        tm, _ = mechdae_compile_time(n, args.repeat)
        print(f"{n:3d}  {tm:12.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
