"""Optimal control through contact (issue 16): build and solve times, Ipopt iterations.

Run with OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1.

1. Block on a rough floor, contact-implicit (``method="complementarity"``, Scholtes
   homotopy 1e-3 -> 1e-9), sliding throughout (T = 0.8 s, N = 100) and waiting in stiction
   (T = 1.5 s, N = 60); peer: the same Moreau--Jean MPCC written by hand in ``casadi.Opti``
   for the 2-DOF block (what a user writes without mechdae), same homotopy and warm starts.
2. Rimless wheel, one periodic step by the fixed mode sequence [stance S0, impact S1]
   (N = 20, 3 RK4 substeps): build time, solve time, iterations (target: under 5 s).

The models are those of tests/test_ocp_contact.py.
"""
import os
import sys
import time

import casadi as ca
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import test_ocp_contact as T  # noqa: E402


def block_mechdae(Tf, N):
    t0 = time.perf_counter()
    s, F = T._block()
    ocp = s.ocp(N=N, t_final=Tf, method="complementarity", controls=["F"])
    ocp.initial(q0={"x": 0.0, "y": 0.0}, v0={"x": 0.0, "y": 0.0})
    ocp.final(q={"x": T.D}, v={"x": 0.0})
    ocp.running_cost(F ** 2)
    t1 = time.perf_counter()
    sol = ocp.solve()
    return t1 - t0, sol.solve_time, sol.iterations, sol.cost


def block_peer(Tf, N, eps0=1e-3, eps1=1e-9):
    """The same transcription by hand: x, y, vx, vy; Pn, beta+-, gamma; theta = 1/2."""
    m, mu, g, h = T.MASS, T.MU, T.G, Tf / N
    t0 = time.perf_counter()
    op = ca.Opti()
    X = op.variable(4, N + 1)
    Fc = op.variable(1, N)
    Pn, bp, bm, gam = (op.variable(1, N) for _ in range(4))
    eps = op.parameter()
    x, y, vx, vy = (X[i, :] for i in range(4))
    op.subject_to(m * (vx[1:] - vx[:-1]) == h * Fc + bp - bm)
    op.subject_to(m * (vy[1:] - vy[:-1]) == -h * m * g + Pn)
    op.subject_to(x[1:] == x[:-1] + h * (vx[:-1] + vx[1:]) / 2)
    op.subject_to(y[1:] == y[:-1] + h * (vy[:-1] + vy[1:]) / 2)
    pairs = [(Pn, y[:-1] / h + vy[1:]), (bp, gam + vx[1:]), (bm, gam - vx[1:]),
             (gam, mu * Pn - bp - bm)]
    for a, b in pairs:
        op.subject_to(a >= 0)
        op.subject_to(b >= 0)
        op.subject_to(a * b <= eps)
    op.subject_to(X[:, 0] == 0)
    op.subject_to(x[-1] == T.D)
    op.subject_to(vx[-1] == 0)
    op.minimize(h * ca.sumsqr(Fc))
    t1 = time.perf_counter()
    e, iters, sol = eps0, 0, None
    opts = dict(print_level=0, sb="yes")
    current = None
    while True:
        if opts is not current:          # rebuild the solver only when its options change
            op.solver("ipopt", dict(print_time=False, expand=True), opts)
            current = opts
        op.set_value(eps, e)
        sol = op.solve()
        iters += op.stats()["iter_count"]
        if e <= eps1 * (1 + 1e-9):
            break
        for v in (X, Fc, Pn, bp, bm, gam):
            op.set_initial(v, sol.value(v))
        op.set_initial(op.lam_g, sol.value(op.lam_g))
        if current.get("warm_start_init_point") is None:
            opts = dict(print_level=0, sb="yes", warm_start_init_point="yes", mu_init=1e-6,
                        warm_start_bound_push=1e-9, warm_start_mult_bound_push=1e-9,
                        warm_start_slack_bound_push=1e-9)
        e = max(e * 0.1, eps1)
    return t1 - t0, time.perf_counter() - t1, iters, float(sol.value(op.f))


def wheel_step():
    t0 = time.perf_counter()
    s = T._wheel()
    N, a = 20, T.ALPHA
    ocp = s.ocp(N=N, t_final="free", substeps=3, phases=[{"stance": ["S0"]}, {"impact": ["S1"]}])
    ocp.initial(q0={"x": 0.0})
    ocp.periodic(offset={"th": -2 * a}, free=["x"])
    th = np.r_[np.linspace(a, -a, N + 1), -a]
    ocp.guess(q={"th": th, "x": -T.L * np.sin(th), "y": T.L * np.cos(th)}, v={"th": -1.0},
              durations=[0.8])
    t1 = time.perf_counter()
    sol = ocp.solve(options={"tol": 1e-10})
    t2 = time.perf_counter()
    chk = sol.simulate_check()
    return t1 - t0, t2 - t1, sol.stats["iter_count"], chk.defect, time.perf_counter() - t2


def main():
    print("1. block on a rough floor, contact-implicit (build s, solve s, Ipopt iterations, cost)")
    for Tf, N in ((0.8, 100), (1.5, 60)):
        b, s_, it, c = block_mechdae(Tf, N)
        pb, ps, pit, pc = block_peer(Tf, N)
        print(f"   T = {Tf}, N = {N}: mechdae build {b:.2f} s, solve {s_:.2f} s, {it} iterations, "
              f"cost {c:.6f}")
        print(f"   {'':17}peer (hand-written Opti) build {pb:.2f} s, solve {ps:.2f} s, {pit} "
              f"iterations, cost {pc:.6f}; solve-time ratio mechdae/peer {s_ / ps:.2f}")
    b, s_, it, defect, tc = wheel_step()
    print(f"2. rimless wheel periodic step: build {b:.2f} s, solve {s_:.2f} s ({it} iterations), "
          f"event re-simulation {tc:.2f} s, defect {defect:.2g}; total {b + s_:.2f} s "
          f"(target < 5 s)")


if __name__ == "__main__":
    main()
