"""Contact kernels: speed of one planar two-contact impact with friction called from Python,
and of 10,000 impacts of the seed-000 two-link mechanism through the batch path, each
against a Python loop over numpy doing the same mode enumeration.

Run: OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/bench_contact.py
Targets (issue 4): < 10 us per call; 10,000 problems < 50 ms and >= 30x the numpy loop.
"""
import itertools
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from mechdae.contact import impact, impact_batch  # noqa: E402


def two_link_delassus(alpha, gamma, l=1.0, m=1.0, V=1.0):
    """Seed 000 (Rubanovich & Formalsky): rods OB, OD hinged at O, angles -alpha, alpha to
    the vertical; q = (x_O, y_O, theta_B, theta_D). Contacts [D, B], each [normal, tangent];
    D strikes with speed V at angle gamma to the ground, B at rest."""
    tb, td = -alpha, alpha
    M = np.zeros((4, 4))
    for col, th in ((2, tb), (3, td)):
        J = np.zeros((2, 4))
        J[0, 0] = J[1, 1] = 1.0
        J[0, col] = 0.5 * l * np.cos(th)
        J[1, col] = 0.5 * l * np.sin(th)
        M += m * J.T @ J
        M[col, col] += m * l * l / 12.0
    W = np.array([[0, 1, 0, l * np.sin(td)], [1, 0, 0, l * np.cos(td)],
                  [0, 1, l * np.sin(tb), 0], [1, 0, l * np.cos(tb), 0]])
    D = W @ np.linalg.solve(M, W.T)
    v = np.array([-V * np.sin(gamma), V * np.cos(gamma), 0.0, 0.0])
    return 0.5 * (D + D.T), v


def numpy_enumeration(D, v, e_n, e_t, mu, tol=1e-9):
    """The same planar enumeration as csrc/mdae_contact.c, in numpy (first solution)."""
    k = len(mu)
    c = v * np.repeat(1 + np.c_[e_n, e_t], 1, 0).ravel()
    lists = [("S", "K") if np.isinf(m) else (("S", "0") if m == 0 else ("S", "K", "+", "-"))
             for m in mu]
    sw = max(np.abs(c).max(), 1e-300)
    tw, tp = tol * sw, tol * sw / D.diagonal().max()
    for combo in itertools.product(*lists):
        A = np.zeros((2 * k, 2 * k))
        b = np.zeros(2 * k)
        for a, md in enumerate(combo):
            o = 2 * a
            if md == "S":
                A[o, o] = A[o + 1, o + 1] = 1.0
            elif md == "K":
                A[o:o + 2] = D[o:o + 2]
                b[o:o + 2] = -c[o:o + 2]
            else:
                A[o] = D[o]
                b[o] = -c[o]
                A[o + 1, o + 1] = 1.0
                A[o + 1, o] = {"+": 1.0, "-": -1.0, "0": 0.0}[md] * mu[a]
        try:
            P = np.linalg.solve(A, b)
        except np.linalg.LinAlgError:
            continue
        w = D @ P + c
        ok = True
        for a, md in enumerate(combo):
            o = 2 * a
            if md == "S":
                ok = w[o] >= -tw
            elif md == "K":
                ok = P[o] >= -tp and (np.isinf(mu[a]) or abs(P[o + 1]) <= mu[a] * P[o] + tp)
            elif md == "+":
                ok = P[o] >= -tp and w[o + 1] >= -tw
            elif md == "-":
                ok = P[o] >= -tp and w[o + 1] <= tw
            else:
                ok = P[o] >= -tp
            if not ok:
                break
        if ok:
            return P, w - np.c_[e_n, e_t].ravel() * v
    return None, None


def best_of(fn, repeat=5):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main():
    # --- one two-contact planar impact with friction, from Python ---------------------
    D, v = two_link_delassus(0.4, 1.0)
    e_n, e_t, mu = np.zeros(2), np.zeros(2), np.array([np.inf, 0.5])
    ncall = 20000
    t_c = best_of(lambda: [impact(D, v, e_n, e_t, mu, 2) for _ in range(ncall)], 3) / ncall
    t_np = best_of(lambda: [numpy_enumeration(D, v, e_n, e_t, mu) for _ in range(500)], 3) / 500
    s = impact(D, v, e_n, e_t, mu, 2)
    P_np, vp_np = numpy_enumeration(D, v, e_n, e_t, mu)
    assert np.allclose(s.P, P_np) and np.allclose(s.v_plus, vp_np)
    print(f"single impact (2 planar contacts, friction) via mechdae.contact.impact: "
          f"{t_c * 1e6:7.2f} us/call   (target < 10 us)")
    print(f"  same enumeration, Python loop over numpy:                        "
          f"{t_np * 1e6:7.2f} us/call   ratio {t_np / t_c:6.1f}x")

    # --- 10,000 seed-000 impacts through the batch path --------------------------------
    N = 10000
    rng = np.random.default_rng(0)
    al = rng.uniform(0.05, 1.2, N)
    ga = rng.uniform(0.05, np.pi - 0.05, N)
    f = rng.uniform(0.0, 2.0, N)
    Ds = np.empty((N, 4, 4))
    vs = np.empty((N, 4))
    for i in range(N):
        Ds[i], vs[i] = two_link_delassus(al[i], ga[i])
    mus = np.c_[np.full(N, np.inf), f]
    t_b = best_of(lambda: impact_batch(Ds, vs, 0.0, 0.0, mus, 2, energy="report"), 5)
    out = impact_batch(Ds, vs, 0.0, 0.0, mus, 2, energy="report")
    nloop = 1000
    t0 = time.perf_counter()
    for i in range(nloop):
        P_np, _ = numpy_enumeration(Ds[i], vs[i], np.zeros(2), np.zeros(2), mus[i])
        if P_np is not None:
            assert np.allclose(P_np, out.P[i], atol=1e-9 * (1 + np.abs(P_np).max()))
    t_loop = (time.perf_counter() - t0) * N / nloop
    counts = {k: int((out.status == k).sum()) for k in ("unique", "ambiguous", "inconsistent")}
    print(f"batch of {N} seed-000 impacts (enumeration, C):                   "
          f"{t_b * 1e3:7.2f} ms       (target < 50 ms)  {counts}")
    print(f"  Python loop over numpy (extrapolated from {nloop}):                "
          f"{t_loop * 1e3:7.1f} ms       ratio {t_loop / t_b:6.1f}x (target >= 30x)")


if __name__ == "__main__":
    main()
