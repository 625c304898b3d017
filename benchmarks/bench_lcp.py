"""LCP solver timings: mechdae's C Lemke against peers, in one run.

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/bench_lcp.py [--quick]

Problems: for each n in (4, 16, 64, 256), random LCPs built from a known solution
(``q = w* - M z*`` with about half of the z* active), half with a P-matrix
(PD symmetric part plus a skew part), half symmetric PSD-plus-ridge. Every solver sees the
same problems and every result is checked against z*.

Peers (imported lazily; a missing one prints "skipped (pip install ...)"):
* Drake ``pydrake.solvers.UnrevisedLemkeSolver`` (C++): a fresh solver object per solve,
  because it silently warm-starts from its previous solution otherwise. Its Python entry
  is ``Solve(MathematicalProgram)``, so the time includes the binding; the table also shows
  Drake minus its own call overhead (the same call on a trivial q >= 0 problem of the same
  size, where Lemke returns before pivoting), the fairest estimate of its C++ work.
* ``lemkelcp`` (pure Python, pip).
* A plain numpy Lemke written below (dense tableau, minimum-ratio test).

Also printed: the per-call overhead of ``mechdae.lcp.solve`` at n = 4 (Python call minus
the C time per problem measured through ``solve_batch``), and ``solve_batch`` over 10,000
problems of n = 4 against a Python loop of ``solve``.
"""
import argparse
import os
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from mechdae import lcp  # noqa: E402

SIZES = (4, 16, 64, 256)


# ---------------------------------------------------------------------------------------
# problems
# ---------------------------------------------------------------------------------------
def make_problems(n, count, seed=0):
    rng = np.random.default_rng(seed + n)
    out = []
    for k in range(count):
        A = rng.normal(size=(n, n)) / np.sqrt(n)
        if k % 2 == 0:
            S = rng.normal(size=(n, n)) / np.sqrt(n)
            M = A @ A.T + 0.1 * np.eye(n) + (S - S.T)       # P-matrix, not symmetric
        else:
            M = A @ A.T + 0.1 * np.eye(n)                   # symmetric PD
        active = rng.random(n) < 0.5
        z = np.where(active, rng.uniform(0.5, 2.0, n), 0.0)
        w = np.where(active, 0.0, rng.uniform(0.5, 2.0, n))
        out.append((np.ascontiguousarray(M), w - M @ z, z))
    return out


# ---------------------------------------------------------------------------------------
# a plain numpy Lemke (the "what you would write in an afternoon" baseline)
# ---------------------------------------------------------------------------------------
def numpy_lemke(M, q, max_piv=10000):
    """Lemke with covering vector 1 on a full numpy tableau [I, -M, -1 | q]."""
    n = q.size
    if np.all(q >= 0):
        return np.zeros(n), True
    T = np.hstack([np.eye(n), -M, -np.ones((n, 1)), q[:, None]])
    basis = list(range(n))
    r = int(np.argmin(q))
    entering = 2 * n
    for _ in range(max_piv):
        T[r] /= T[r, entering]
        others = np.arange(n) != r
        T[others] -= np.outer(T[others, entering], T[r])
        leaving = basis[r]
        basis[r] = entering
        if leaving == 2 * n:
            break
        entering = leaving + n if leaving < n else leaving - n
        col = T[:, entering]
        pos = col > 1e-12
        if not pos.any():
            return np.zeros(n), False
        ratios = np.full(n, np.inf)
        ratios[pos] = T[pos, -1] / col[pos]
        r = int(np.argmin(ratios))
    else:
        return np.zeros(n), False
    z = np.zeros(n)
    for i, b in enumerate(basis):
        if n <= b < 2 * n:
            z[b - n] = T[i, -1]
    return z, True


# ---------------------------------------------------------------------------------------
# solvers: each returns a function solve(M, q) -> z (or None on failure)
# ---------------------------------------------------------------------------------------
def mechdae_solver():
    def solve(M, q):
        r = lcp.solve(M, q)
        return r.z if r.success else None
    return solve


def drake_solver():
    from pydrake.solvers import MathematicalProgram, UnrevisedLemkeSolver

    def prepare(M, q):
        prog = MathematicalProgram()
        z = prog.NewContinuousVariables(q.size, "z")
        prog.AddLinearComplementarityConstraint(M, q, z)
        return prog, z

    cache = {}

    def solve(M, q):
        key = (id(M), id(q))
        if key not in cache:            # build the program once, outside the timing
            cache[key] = prepare(M, q)
        prog, z = cache[key]
        res = UnrevisedLemkeSolver().Solve(prog)     # fresh solver: no hidden warm start
        return res.GetSolution(z) if res.is_success() else None
    solve.prepare = lambda probs: [solve(M, q) for M, q, _ in probs]
    return solve


def lemkelcp_solver():
    from lemkelcp.lemkelcp import lemketableau

    def solve(M, q):
        # lemkelcp 0.1 (the PyPI release) keeps its index maps in range objects, which
        # Python 3 cannot assign to: convert them to lists, then run its own algorithm.
        t = lemketableau(M, q, 100000)
        t.wPos, t.zPos = list(t.wPos), list(t.zPos)
        z, code, _ = t.lemkeAlgorithm()
        return z if code == 0 else None
    return solve


def numpy_solver():
    def solve(M, q):
        z, ok = numpy_lemke(M, q)
        return z if ok else None
    return solve


PEERS = [("drake", drake_solver, "pip install drake"),
         ("lemkelcp", lemkelcp_solver, "pip install lemkelcp"),
         ("numpy", numpy_solver, "")]


# ---------------------------------------------------------------------------------------
# timing
# ---------------------------------------------------------------------------------------
def time_per_solve(solve, probs, budget):
    """Microseconds per solve: best of several passes over the problems, within budget."""
    out = [solve(M, q) for M, q, _ in probs]        # warm-up (and correctness)
    ok = all(z is not None and np.allclose(z, zs, atol=1e-6 * max(1, zs.max()))
             for z, (_, _, zs) in zip(out, probs))
    best = np.inf
    t_end = time.perf_counter() + budget
    while True:
        t0 = time.perf_counter()
        for M, q, _ in probs:
            solve(M, q)
        dt = (time.perf_counter() - t0) / len(probs)
        best = min(best, dt)
        if time.perf_counter() > t_end:
            break
    return best * 1e6, ok


def c_time_per_problem(probs, repeat=5, budget=0.3):
    """mechdae C time per problem: solve_batch over the stack, divided by its size
    (best of at least ``repeat`` runs, continuing up to ``budget`` seconds)."""
    Ms = np.stack([p[0] for p in probs])
    qs = np.stack([p[1] for p in probs])
    lcp.solve_batch(Ms, qs)
    best = np.inf
    t_end = time.perf_counter() + budget
    k = 0
    while k < repeat or time.perf_counter() < t_end:
        t0 = time.perf_counter()
        lcp.solve_batch(Ms, qs)
        best = min(best, time.perf_counter() - t0)
        k += 1
    return best / len(probs) * 1e6


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="shorter budgets")
    args = ap.parse_args(argv)
    budget = 0.3 if args.quick else 1.0

    peers = []
    for name, factory, hint in PEERS:
        try:
            peers.append((name, factory()))
        except ImportError:
            print(f"{name}: skipped ({hint})")

    print(f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}  "
          f"python {sys.version.split()[0]}  numpy {np.__version__}")
    print("microseconds per solve (best pass); 'ok' = every z matches the known solution\n")
    header = (f"{'n':>4} {'pivots':>6} {'mdae C':>9} {'mdae py':>9}" +
              "".join(f" {name:>10}" for name, _ in peers) +
              (f" {'drake-ovh':>10}" if any(n == "drake" for n, _ in peers) else "") +
              "".join(f" {'x ' + name:>10}" for name, _ in peers) +
              (f" {'x drakeC':>9}" if any(n == "drake" for n, _ in peers) else ""))
    print(header)
    for n in SIZES:
        count = {4: 200, 16: 100, 64: 20, 256: 6}[n]
        probs = make_problems(n, count)
        pivots = np.mean([lcp.solve(M, q).iterations for M, q, _ in probs])
        t_c = c_time_per_problem(probs)
        t_py, ok = time_per_solve(mechdae_solver(), probs, budget)
        assert ok, "mechdae returned a wrong solution"
        times = {}
        oks = {}
        for name, solve in peers:
            sub = probs if name != "lemkelcp" or n <= 64 else probs[:2]
            times[name], oks[name] = time_per_solve(solve, sub, budget if n < 256 else budget / 2)
        drake_c = None
        if "drake" in times:
            trivial = [(M, np.abs(q) + 1.0, np.zeros(n)) for M, q, _ in probs]
            ovh, _ = time_per_solve(dict(peers)["drake"], trivial, budget / 2)
            drake_c = max(times["drake"] - ovh, 1e-3)
        row = f"{n:>4} {pivots:>6.1f} {t_c:>9.2f} {t_py:>9.2f}"
        row += "".join(f" {times[name]:>9.1f}{'' if oks[name] else '!'}" for name, _ in peers)
        if drake_c is not None:
            row += f" {drake_c:>10.2f}"
        row += "".join(f" {times[name] / t_py:>9.1f}x" for name, _ in peers)
        if drake_c is not None:
            row += f" {drake_c / t_c:>8.1f}x"
        print(row)
    print("\nratios 'x name' = peer time / mechdae solve() time (both Python calls);"
          "\n'drake-ovh' = Drake time minus its call overhead on a trivial problem;"
          " 'x drakeC' = that / mechdae C time per problem. '!' = wrong or failed solutions.")

    # per-call overhead at n = 4
    probs = make_problems(4, 200, seed=1)
    t_c = c_time_per_problem(probs, repeat=20)
    t_py, _ = time_per_solve(mechdae_solver(), probs, budget)
    raw = [(M, q) for M, q, _ in probs]
    best = np.inf
    for _ in range(20):
        t0 = time.perf_counter()
        for M, q in raw:
            lcp.solve(M, q)
        best = min(best, (time.perf_counter() - t0) / len(raw))
    t_call = best * 1e6
    print(f"\nper-call overhead of lcp.solve at n=4: {t_call:.2f} us per call - "
          f"{t_c:.2f} us C work = {t_call - t_c:.2f} us")

    # batch of 10,000 problems of n = 4
    B = 10000
    base = make_problems(4, 100, seed=2)
    Ms = np.stack([base[k % 100][0] for k in range(B)])
    qs = np.stack([base[k % 100][1] for k in range(B)])
    t_batch = t_loop = np.inf
    for _ in range(3):                      # best of three, both ways
        t0 = time.perf_counter()
        b = lcp.solve_batch(Ms, qs)
        t_batch = min(t_batch, time.perf_counter() - t0)
        t0 = time.perf_counter()
        for k in range(B):
            lcp.solve(Ms[k], qs[k])
        t_loop = min(t_loop, time.perf_counter() - t0)
    assert b.success.all()
    print(f"solve_batch over {B} problems of n=4: {t_batch * 1e3:.2f} ms; Python loop of "
          f"solve: {t_loop * 1e3:.2f} ms; ratio {t_loop / t_batch:.1f}x")


if __name__ == "__main__":
    main()
