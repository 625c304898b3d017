"""Impact benchmarks (run with OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1).

1. A two-contact planar impact with friction (rocking block, both corners closed) called
   from Python: the C kernel alone (``mechdae.contact.impact`` on a given Delassus matrix),
   the assembly alone (``contact_problem``), and the whole ``System.impact`` (fast path:
   gap evaluation, one CasADi buffer call of the active set's Function, one bound C solve,
   a lazy result), with the breakdown of the fast path.
2. The seed-000 impact (two-link mechanism, both feet closed) through ``System.impact``
   with the states as arrays and as dicts by name (the docs' and model files' form),
   with and without ``params`` (issue 15 targets: < 8 us arrays, < 12 us dicts).
3. 10,000 impacts of seed 000 (two-link mechanism over an (alpha, gamma) grid, states
   built with numpy) through the vectorized path ``System.impact_batch`` (one mapped
   CasADi call + one C call, both over BATCH_THREADS threads; target < 30 ms), against a
   Python loop over numpy solving the same problems by mode enumeration (the peer), and
   against a Python loop over ``System.impact``. Ratios are printed; the 1-thread figure
   and the C kernel alone too.
4. One contact sliding in space (a rigid body on one foot, 200 random states): the C
   enumeration per impact, whose sliding direction comes from the certified closed form
   (mdae_slide_search1), against the same problems solved in numpy (sliding angle by a
   fine scan and bisection of the trigonometric polynomial: the peer, not exhaustive).
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


def warm(system, q, v, timeout=10.0):
    """Run the fast path past A.COMPILE_AFTER solves and wait for its generated C (the
    steady state of a loop of impacts); returns whether the compiled code is in use."""
    for _ in range(A.COMPILE_AFTER + 2):
        system.impact(q, v)
    fs = [f for f in A._assembler(system)._fast_f.values() if f is not None]
    t0 = time.perf_counter()
    while any(f.current is f.F for f in fs) and time.perf_counter() - t0 < timeout:
        time.sleep(0.05)
    system.impact(q, v)
    return all(f.current is not f.F for f in fs)


def main():
    out = []
    # ------------------------------------------------------------ 1. single impact
    blk = rb.build().compile()
    q, v = rb.flat_state(1.0)
    qa, ua = (np.asarray(x, float) for x in blk.state_arrays(q, v)[:2])
    compiled = warm(blk, qa, ua) if hasattr(A, "COMPILE_AFTER") else False
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
          f"(target < 10 us: {'met' if t_sys < 10e-6 else 'NOT met'}; generated C "
          f"{'in use' if compiled else 'not in use'})")
    print(f"    of which: gaps {t_gap * 1e6:.2f} us, active-set Function {t_fun * 1e6:.2f} us,"
          f" bound C solve + result {t_c * 1e6:.2f} us,"
          f" Python {(t_sys - t_gap - t_fun - t_c) * 1e6:.2f} us")
    # ------------------------------------------------------------ 2. one seed-000 impact
    s = tl.build().compile()
    qd1, vd1 = tl.impact_state(0.4, -2.0)
    qa1, ua1 = (np.asarray(x, float) for x in s.state_arrays(qd1, vd1)[:2])
    pf = {"f": 0.5}
    compiled = warm(s, qa1, ua1) if hasattr(A, "COMPILE_AFTER") else False
    t_arr = best(lambda: s.impact(qa1, ua1), 20000, rep=7)
    t_dict = best(lambda: s.impact(qd1, vd1), 20000, rep=7)
    t_arr_p = best(lambda: s.impact(qa1, ua1, params=pf), 20000, rep=7)
    t_dict_p = best(lambda: s.impact(qd1, vd1, params=pf), 20000, rep=7)
    print("\nseed-000 impact (two-link mechanism, both feet closed), System.impact "
          f"(generated C {'in use' if compiled else 'not in use'}):")
    print(f"  states as arrays                        {t_arr * 1e6:8.2f} us   "
          f"(target < 8 us: {'met' if t_arr < 8e-6 else 'NOT met'})")
    print(f"  states as dicts by name                 {t_dict * 1e6:8.2f} us   "
          f"(target < 12 us: {'met' if t_dict < 12e-6 else 'NOT met'})")
    print(f"  arrays, params={{'f': 0.5}}               {t_arr_p * 1e6:8.2f} us")
    print(f"  dicts, params={{'f': 0.5}}                {t_dict_p * 1e6:8.2f} us")
    # ------------------------------------------------------------ 3. 10,000 seed-000 impacts
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
    # the C kernel alone on the batch's contact-space problems (one thread)
    asm = A._assembler(s)
    Pm = np.tile(np.asarray(s.p_defaults, float)[:, None], (1, N))
    Pm[s.p_names.index("f")] = 0.5
    ob = asm.evaluate_batch(qs.T, vs.T, np.zeros((0, N)), 0.0, Pm, np.zeros((0, N)))
    Db, vb, Lb = (np.ascontiguousarray(ob["D"]), np.ascontiguousarray(ob["Wu"][:, :, 0]),
                  ob["laws"][:, :, 0])
    enb, etb, mub = (np.ascontiguousarray(Lb[:, j::3]) for j in range(3))
    t_kern = best(lambda: mc.impact_batch(Db, vb, enb, etb, mub, 2, energy="report"), 1,
                  rep=7)
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
          f"(target < 30 ms: {'met' if t_batch < 30e-3 else 'NOT met'}; "
          f"{A.BATCH_THREADS} threads)")
    print(f"    same, 1 thread                        {t_batch1 * 1e3:8.2f} ms")
    print(f"    C kernel alone (1 thread)             {t_kern * 1e3:8.2f} ms   "
          f"({t_kern / N * 1e6:.2f} us a problem)")
    print(f"    states from impact_state (numpy) + batch {t_states * 1e3:5.2f} ms")
    print(f"  Python loop over numpy enumeration      {t_np * 1e3:8.1f} ms   "
          f"ratio {t_np / t_batch:6.1f}x (target >= 30x)")
    print(f"  Python loop over System.impact          {t_loop * 1e3:8.1f} ms   "
          f"ratio {t_loop / t_batch:6.1f}x")
    print(f"  modes agree with the numpy peer on {agree}/{len(range(0, N, 97))} sampled problems")
    # ------------------------------------------------------------ 4. one contact in space
    probs = one_foot_problems(200)
    t_c = best(lambda: [mc.impact(D, v, 0.0, 0.0, mu, 3, energy="report")
                        for D, v, mu in probs], 1, rep=5) / len(probs)
    t_np = best(lambda: [numpy_slide3(D, v, mu[0]) for D, v, mu in probs[:40]], 1,
                rep=3) / 40
    same = sum(1 for D, v, mu in probs[:40]
               if _same_first(mc.impact(D, v, 0.0, 0.0, mu, 3, energy="report"),
                              numpy_slide3(D, v, mu[0])))
    print("\none contact sliding in space (rigid body on one foot, 200 states):")
    print(f"  mechdae.contact.impact (enumeration)    {t_c * 1e6:8.2f} us a problem "
          "(exhaustive: certified closed-form direction)")
    print(f"  numpy peer (scan + bisection)           {t_np * 1e6:8.2f} us a problem   "
          f"ratio {t_np / t_c:6.1f}x")
    print(f"  same first solution on {same}/40 problems")
    return out


def one_foot_problems(n, seed=1):
    """(D, v, mu) of a rigid body (unit mass, random principal inertia) touching the
    ground at one random point, approaching with random speeds."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        r = rng.normal(size=3)
        r[2] = -abs(r[2])
        rows = []
        for d in np.eye(3)[[2, 0, 1]]:
            rows.append(np.concatenate([d, np.cross(r, d)]))
        W = np.array(rows)
        D = W @ np.diag(np.concatenate([[1.0] * 3, 1.0 / rng.uniform(0.1, 1.0, 3)])) @ W.T
        v = W @ rng.normal(size=6)
        if v[0] < 0:
            out.append((D, v, np.array([rng.uniform(0.1, 2.0)])))
    return out


def numpy_slide3(D, v, mu, grid=720):
    """Peer: a single 3D contact by the modes in numpy; the sliding angle from a scan of
    G(th) = V x s on ``grid`` points refined by bisection (first consistent solution:
    separate, stick, slide)."""
    if v[0] >= 0:
        return "separate", np.zeros(3)
    P = np.linalg.solve(D, -v)
    if P[0] >= 0 and np.hypot(P[1], P[2]) <= mu * P[0] * (1 + 1e-12):
        return "stick", P

    def G(th):
        g = np.stack([np.ones_like(th), -mu * np.cos(th), -mu * np.sin(th)])
        rho = -v[0] / (D[0] @ g)
        w = (D @ g) * rho + v[:, None]
        return w[1] * np.sin(th) - w[2] * np.cos(th), rho, w
    th = np.linspace(0.0, 2 * np.pi, grid + 1)
    g = G(th)[0]
    for i in np.flatnonzero(np.sign(g[:-1]) != np.sign(g[1:])):
        a, b = th[i], th[i + 1]
        for _ in range(60):
            m = 0.5 * (a + b)
            if np.sign(G(np.array([m]))[0][0]) == np.sign(G(np.array([a]))[0][0]):
                a = m
            else:
                b = m
        x = np.array([0.5 * (a + b)])
        _, rho, w = G(x)
        if rho[0] >= 0 and w[1, 0] * np.cos(x[0]) + w[2, 0] * np.sin(x[0]) >= 0:
            return "slide", rho[0] * np.array([1.0, -mu * np.cos(x[0]), -mu * np.sin(x[0])])
    return "none", np.full(3, np.nan)


def _same_first(sol, peer):
    mode, P = peer
    if mode == "none":
        return sol.status == "inconsistent"
    return sol.modes[0] == mode and np.allclose(sol.P, P, atol=1e-7 * max(1.0, abs(P).max()))


if __name__ == "__main__":
    main()
