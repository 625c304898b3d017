"""Impact benchmarks (run with OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1).

1. A two-contact planar impact with friction (rocking block, both corners closed) called
   from Python: the C kernel alone (``mechdae.contact.impact`` on a given Delassus matrix),
   the assembly alone (``contact_problem``), and the whole ``System.impact`` (fast path:
   gap evaluation, one CasADi buffer call of the active set's Function, one bound C solve,
   a lazy result), with the breakdown of the fast path.
2. 10,000 impacts of seed 000 (two-link mechanism over an (alpha, gamma) grid, states
   built with numpy) through the vectorized path ``System.impact_batch`` (one mapped
   CasADi call + one C call, both over BATCH_THREADS threads), against a Python loop over
   numpy solving the same problems by mode enumeration (the peer), and against a Python
   loop over ``System.impact``. Ratios are printed; the 1-thread figure too.
"""
import itertools
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "models"))

import mechdae.contact as mc  # noqa: E402
import mechdae.contact.assembly as A  # noqa: E402
import rocking_block as rb  # noqa: E402
import two_link_impact as tl  # noqa: E402


def best(fn, n, rep=5):
    ts = []
    for _ in range(rep):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        ts.append((time.perf_counter() - t0) / n)
    return min(ts)


def numpy_enum(D, v, mu, tol=1e-9):
    """Peer: the same Newton impact (e = 0) by enumerating modes in numpy (2D contacts)."""
    k = len(mu)
    sols = []
    for modes in itertools.product(range(4), repeat=k):   # sep, stick, slide+, slide-
        A = np.zeros((2 * k, 2 * k))
        r = np.zeros(2 * k)
        ok = True
        for a, md_ in enumerate(modes):
            i = 2 * a
            if md_ >= 2 and np.isinf(mu[a]):
                ok = False
                break
            if md_ == 0:
                A[i, i] = 1.0
                A[i + 1, i + 1] = 1.0
            elif md_ == 1:
                A[i:i + 2] = D[i:i + 2]
                r[i:i + 2] = -v[i:i + 2]
            else:
                s = 1.0 if md_ == 2 else -1.0
                A[i] = D[i]
                r[i] = -v[i]
                A[i + 1, i + 1] = 1.0
                A[i + 1, i] = s * mu[a]
        if not ok:
            continue
        try:
            P = np.linalg.solve(A, r)
        except np.linalg.LinAlgError:
            continue
        w = D @ P + v
        sc = tol * max(1.0, np.abs(v).max())
        good = True
        for a, md_ in enumerate(modes):
            i = 2 * a
            if P[i] < -sc or w[i] < -sc:
                good = False
            elif md_ == 1 and abs(P[i + 1]) > mu[a] * P[i] + sc:
                good = False
            elif md_ >= 2 and (1.0 if md_ == 2 else -1.0) * w[i + 1] < -sc:
                good = False
        if good:
            sols.append((modes, P))
    return sols


def main():
    out = []
    # ------------------------------------------------------------ 1. single impact
    blk = rb.build().compile()
    q, v = rb.flat_state(1.0)
    qa, ua = (np.asarray(x, float) for x in blk.state_arrays(q, v)[:2])
    blk.impact(qa, ua)
    prob = blk.contact_problem(qa, ua)
    D, vm = prob.D, prob.v_minus
    t_kernel = best(lambda: mc.impact(D, vm, prob.e_n, prob.e_t, prob.mu, 2), 2000)
    t_asm = best(lambda: blk.contact_problem(qa, ua), 2000)
    t_sys = best(lambda: blk.impact(qa, ua), 20000, rep=7)
    asm = A._assembler(blk)
    fs = asm.fast_solver((0, 1))
    t_gap = best(asm.workspace().gap_eval, 20000)
    t_fun = best(fs.eval, 20000)
    fs.eval()
    tail = (blk, 0.0, None, None)
    t_c = best(lambda: fs.kernel.solve_result(A.ImpactResult, 1e-9, False, A.PIVOT_TOL,
                                              fs.lazy_head, tail), 20000)
    print("two-contact planar impact with friction (rocking block):")
    print(f"  kernel  mechdae.contact.impact(D, v-)   {t_kernel * 1e6:8.2f} us")
    print(f"  assembly System.contact_problem        {t_asm * 1e6:8.2f} us")
    print(f"  System.impact (assembly + kernel)      {t_sys * 1e6:8.2f} us   "
          f"(target < 10 us: {'met' if t_sys < 10e-6 else 'NOT met'})")
    print(f"    of which: gaps {t_gap * 1e6:.2f} us, active-set Function {t_fun * 1e6:.2f} us,"
          f" bound C solve + result {t_c * 1e6:.2f} us,"
          f" Python {(t_sys - t_gap - t_fun - t_c) * 1e6:.2f} us")
    # ------------------------------------------------------------ 2. 10,000 seed-000 impacts
    s = tl.build().compile()
    n = 100
    al, ga = np.meshgrid(np.linspace(0.05, np.pi / 2 - 0.05, n),
                         np.linspace(-np.pi + 0.05, -0.05, n), indexing="ij")
    qd, vd = tl.impact_state(al.ravel(), ga.ravel())          # vectorized: dicts of arrays
    qs = np.column_stack([qd[k] for k in s.q_names])
    vs = np.column_stack([vd[u[4:-1]] for u in s.u_names])   # "der(xO)" -> "xO"
    N = len(qs)
    s.impact_batch(qs, vs, params={"f": 0.5})
    t_batch = best(lambda: s.impact_batch(qs, vs, params={"f": 0.5}), 1, rep=7)
    t_states = best(lambda: s.impact_batch(*tl.impact_state(al.ravel(), ga.ravel()),
                                           params={"f": 0.5}), 1, rep=7)
    threads = A.BATCH_THREADS
    A.BATCH_THREADS = 1
    s.impact_batch(qs, vs, params={"f": 0.5})
    t_batch1 = best(lambda: s.impact_batch(qs, vs, params={"f": 0.5}), 1, rep=7)
    A.BATCH_THREADS = threads
    # peer: Python loop over numpy (D from the same assembly, enumeration in numpy)
    probs = [s.contact_problem(qs[i], vs[i], params={"f": 0.5}) for i in range(N)]
    Ds = [p.D for p in probs]
    vms = [p.v_minus for p in probs]
    mu = np.array([np.inf, 0.5])
    m = 1000
    t_np = best(lambda: [numpy_enum(Ds[i], vms[i], mu) for i in range(m)], 1, rep=3) * N / m
    t_loop = best(lambda: [s.impact(qs[i], vs[i], params={"f": 0.5}) for i in range(m)], 1,
                  rep=3) * N / m
    # agreement of the batch with the numpy peer on the first solution's B mode
    ob = s.impact_batch(qs, vs, params={"f": 0.5})
    agree = sum(1 for i in range(0, N, 97)
                if (lambda sl: (not sl and ob.status[i] == "inconsistent")
                    or (sl and ob.modes[i, 1] == [0, 1, 2, 2][sl[0][0][1]]))(
                        numpy_enum(Ds[i], vms[i], mu)))
    print(f"\n{N} impacts of seed 000 (two-link mechanism, f = 0.5):")
    print(f"  System.impact_batch (vectorized)        {t_batch * 1e3:8.2f} ms   "
          f"(target < 50 ms: {'met' if t_batch < 50e-3 else 'NOT met'}; "
          f"{A.BATCH_THREADS} threads)")
    print(f"    same, 1 thread                        {t_batch1 * 1e3:8.2f} ms")
    print(f"    states from impact_state (numpy) + batch {t_states * 1e3:5.2f} ms")
    print(f"  Python loop over numpy enumeration      {t_np * 1e3:8.1f} ms   "
          f"ratio {t_np / t_batch:6.1f}x (target >= 30x)")
    print(f"  Python loop over System.impact          {t_loop * 1e3:8.1f} ms   "
          f"ratio {t_loop / t_batch:6.1f}x")
    print(f"  modes agree with the numpy peer on {agree}/{len(range(0, N, 97))} sampled problems")
    return out


if __name__ == "__main__":
    main()
