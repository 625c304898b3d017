"""Darboux mechanism (seed 004, Burian 2018): straight-line motion through the branch point.

Two layers:

* an independent reference written here in plain numpy/scipy from the paper: the vertex
  coordinates (2) as functions of h, the nine constraints (9) with the misprints of f2, f6
  fixed, the reduced Lagrange equation (5) ``2 a(h) h'' + a'(h) h'^2 = Q_h`` with
  ``a(h) = 1/2 sum_i m_i |dr_i/dh|^2`` and the multiplier system (8);
* the mechdae model ``models/darboux.py`` (10 coordinates, 9 holonomic constraints),
  compiled and simulated through h = 0, compared with that reference.
"""

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from conftest import model_module


# --------------------------------------------------------------------------------------
# independent reference (numpy/scipy only)
# --------------------------------------------------------------------------------------
def ref_r(h, l=1.0):
    """Vertex coordinates (x_K, y_K, x_B, y_B, x_C, y_C, x_M, y_M, x_H, y_H), eq. (2).

    alpha = atan(h/l) (smooth through h = 0), beta = acos(h^2 / (2 l sqrt(l^2 + h^2))).
    Written with complex-safe numpy functions so that complex-step differentiation works.
    """
    al = np.arctan(h / l)
    be = np.arccos(h**2 / (2 * l * np.sqrt(l**2 + h**2)))
    t1, t2 = al + be, al - be
    return np.array([
        -l + l * np.cos(t1), l * np.sin(t1),        # K
        -l - l * np.cos(t1), -l * np.sin(t1),       # B
        l + l * np.cos(t2), -l * np.sin(t2),        # C
        l - l * np.cos(t2), l * np.sin(t2),         # M
        0.0 * h, h,                                 # H
    ])


def ref_dr(h, l=1.0):
    """dr/dh by complex step (exact to rounding)."""
    eps = 1e-30
    return np.imag(ref_r(h + 1j * eps, l)) / eps


def ref_ddr(h, l=1.0, e=1e-5):
    """d2r/dh2 by a fourth-order central difference of the complex-step derivative."""
    return (-ref_dr(h + 2 * e, l) + 8 * ref_dr(h + e, l) - 8 * ref_dr(h - e, l)
            + ref_dr(h - 2 * e, l)) / (12 * e)


def ref_a(h, l=1.0, m=1.0):
    """a(h) of eq. (4): T = a(h) h'^2, equal masses m at the five vertices."""
    return 0.5 * m * np.sum(ref_dr(h, l) ** 2)


def ref_da(h, l=1.0, m=1.0, e=1e-5):
    return (-ref_a(h + 2 * e, l, m) + 8 * ref_a(h + e, l, m) - 8 * ref_a(h - e, l, m)
            + ref_a(h - 2 * e, l, m)) / (12 * e)


def ref_f(r, l=1.0):
    """The nine constraints (9), with f2 = (x_K + x_B + 2l)/2 and f6 = (x_C + x_M - 2l)/2."""
    xK, yK, xB, yB, xC, yC, xM, yM, xH, yH = r
    return np.array([
        (xK - xB) ** 2 + (yK - yB) ** 2 - 4 * l * l,
        (xK + xB + 2 * l) / 2,
        (yK + yB) / 2,
        (xB - xC) ** 2 + (yB - yC) ** 2 - 8 * l * l,
        (xC - xM) ** 2 + (yC - yM) ** 2 - 4 * l * l,
        (xC + xM - 2 * l) / 2,
        (yC + yM) / 2,
        (xM - xH) ** 2 + (yM - yH) ** 2 - 2 * l * l,
        (xK - xH) ** 2 + (yK - yH) ** 2 - 2 * l * l,
    ])


def ref_G(r, l=1.0):
    """Constraint Jacobian d f / d r (9 x 10), analytic."""
    xK, yK, xB, yB, xC, yC, xM, yM, xH, yH = r
    G = np.zeros((9, 10))
    G[0, [0, 1, 2, 3]] = 2 * np.array([xK - xB, yK - yB, xB - xK, yB - yK])
    G[1, [0, 2]] = 0.5
    G[2, [1, 3]] = 0.5
    G[3, [2, 3, 4, 5]] = 2 * np.array([xB - xC, yB - yC, xC - xB, yC - yB])
    G[4, [4, 5, 6, 7]] = 2 * np.array([xC - xM, yC - yM, xM - xC, yM - yC])
    G[5, [4, 6]] = 0.5
    G[6, [5, 7]] = 0.5
    G[7, [6, 7, 8, 9]] = 2 * np.array([xM - xH, yM - yH, xH - xM, yH - yM])
    G[8, [0, 1, 8, 9]] = 2 * np.array([xK - xH, yK - yH, xH - xK, yH - yK])
    return G


def ref_curvature_terms(r, v, l=1.0):
    """c_i = v^T f_i'' v of the nine constraints (the f_i'' are constant matrices)."""
    d = lambda i, j: (v[2 * i] - v[2 * j]) ** 2 + (v[2 * i + 1] - v[2 * j + 1]) ** 2  # noqa: E731
    K, B, C, M, H = range(5)
    return np.array([2 * d(K, B), 0, 0, 2 * d(B, C), 2 * d(C, M), 0, 0, 2 * d(M, H), 2 * d(K, H)])


def ref_gauss_forces(r, v, F, m=1.0, l=1.0):
    """Vertex forces G^T Lam of the system (8) solved with a pseudo-inverse (Gauss's
    principle: the minimum-norm multipliers; G^T Lam does not depend on the choice)."""
    G = ref_G(r, l)
    lam = np.linalg.pinv(G @ G.T, rcond=1e-12) @ (-m * ref_curvature_terms(r, v, l) - G @ F)
    return G.T @ lam


def ref_reduced(t_span, h0, hd0, l=1.0, m=1.0, t_eval=None):
    """Integrate eq. (5) with Q_h = 0: h'' = -a'(h) h'^2 / (2 a(h))."""
    def rhs(t, s):
        return [s[1], -ref_da(s[0], l, m) * s[1] ** 2 / (2 * ref_a(s[0], l, m))]
    return solve_ivp(rhs, t_span, [h0, hd0], method="DOP853", rtol=1e-12, atol=1e-13,
                     dense_output=True, t_eval=t_eval)


def ref_multipliers(h, hd, hdd, Fx=0.0, l=1.0, m=1.0):
    """Multipliers of  m r'' = F + G^T Lam  along the straight-line motion (minimum norm)."""
    r = ref_r(h, l)
    G = ref_G(r, l)
    rdd = ref_ddr(h, l) * hd**2 + ref_dr(h, l) * hdd
    F = np.zeros(10)
    F[8] = Fx
    lam = np.linalg.lstsq(G.T, m * rdd - F, rcond=None)[0]
    return lam, G, m * rdd - F


# --------------------------------------------------------------------------------------
# the reference itself reproduces the paper
# --------------------------------------------------------------------------------------
def test_reference_coordinates_satisfy_all_nine_constraints():
    for h in (-2.0, -0.7, 0.0, 0.3, 1.2, 2.1):
        assert np.abs(ref_f(ref_r(h))).max() < 1e-13
    # |BC| = 2 sqrt(2) l for every h (the statement of sec. 2)
    r = ref_r(0.77, l=1.3)
    assert np.hypot(r[2] - r[4], r[3] - r[5]) == pytest.approx(2 * np.sqrt(2) * 1.3, rel=1e-14)


def test_reference_rank_drops_by_one_at_the_square():
    s0 = np.linalg.svd(ref_G(ref_r(0.0)), compute_uv=False)
    s1 = np.linalg.svd(ref_G(ref_r(0.3)), compute_uv=False)
    assert s0[-1] < 1e-12 and s0[-2] > 0.4       # rank 8 at h = 0
    assert s1[-1] > 0.1                           # rank 9 elsewhere (sigma_min ~ h)


def test_reference_a_of_h():
    # a(0) = m/2 + 2 m l^2 alpha'(0)^2 = 5/2 (l = m = 1); a''(0) = -4  =>  h''' (0) = 4/5
    assert ref_a(0.0) == pytest.approx(2.5, rel=1e-14)
    e = 1e-3
    a2 = (ref_a(e) - 2 * ref_a(0.0) + ref_a(-e)) / e**2
    assert a2 == pytest.approx(-4.0, abs=1e-4)
    assert ref_da(0.0) == pytest.approx(0.0, abs=1e-10)   # a is even


def test_reference_series_two_fifteenths():
    sol = ref_reduced((0.0, 0.3), 0.0, 1.0)
    for t in (0.05, 0.1, 0.2, 0.3):
        err = sol.sol(t)[0] - (t + 2.0 / 15.0 * t**3)
        assert abs(err) < 0.02 * t**5            # next term is about -0.0107 t^5


def test_reference_multiplier_limits_of_sec3():
    """F = 0: |Lam_9| -> 1/10 (b/a = 32768/327680); F_x = 1: Lam_9 ~ -1/(8 t) (40960/327680).

    Sign: with m r'' = F + sum Lam_i grad f_i (the paper's (6)) we get Lam_9 -> +1/10 and,
    for F_x = 1, Lam_9 -> -inf as t -> 0+, which is what the text says; the printed series
    carry the opposite signs (an inconsistency inside the paper).
    """
    sol = ref_reduced((0.0, 0.2), 0.0, 1.0)
    for t in (1e-2, 1e-3):
        h, hd = sol.sol(t)
        hdd = -ref_da(h) * hd**2 / (2 * ref_a(h))
        lam0 = ref_multipliers(h, hd, hdd, Fx=0.0)[0]
        lam1 = ref_multipliers(h, hd, hdd, Fx=1.0)[0]
        assert lam0[8] == pytest.approx(0.1, abs=2 * t)
        assert lam1[8] * 8 * t == pytest.approx(-1.0, abs=3 * t)


def test_reference_vertex_forces_unique_at_branch_point():
    lam, G, R = ref_multipliers(0.0, 1.0, 0.0)
    # left null vector a of G^T: sum a_i grad f_i = 0 (sec. 4)
    U, s, Vt = np.linalg.svd(G)
    a = U[:, -1]
    assert np.abs(G.T @ a).max() < 1e-12
    for k in (0.0, 1.0, -7.5):
        assert np.allclose(G.T @ (lam + k * a), R, atol=1e-9)
    # m r'' at h = 0, h' = 1: the vertices of the square accelerate with (+-1, +-1), H not
    assert np.allclose(R, [1, -1, -1, 1, 1, -1, -1, 1, 0, 0], atol=1e-8)
    # the same from (8) solved by a pseudo-inverse (Gauss), without the parametrization (2)
    assert np.allclose(ref_gauss_forces(ref_r(0.0), ref_dr(0.0), np.zeros(10)), R, atol=1e-10)


def test_reference_force_pushes_H_off_the_line_at_the_square():
    """With F = (F_x, 0) on H, at h = 0 (two tangent directions) Gauss's principle gives H
    an acceleration off the line, (5/9, 4/9) for F_x = 1: the force 'selects' the curve
    gamma (the remark of sec. 5); at h != 0 the line is the only direction."""
    F = np.zeros(10)
    F[8] = 1.0
    acc = ref_gauss_forces(ref_r(0.0), ref_dr(0.0), F) + F
    assert acc[8:] == pytest.approx([5 / 9, 4 / 9], abs=1e-10)


# --------------------------------------------------------------------------------------
# the mechdae model: 10 coordinates, 9 constraints, through the branch point
# --------------------------------------------------------------------------------------
md = pytest.importorskip("mechdae")


@pytest.fixture(scope="module")
def darboux():
    return model_module("darboux")


@pytest.fixture(scope="module")
def run_from_square(darboux):
    """Start in the square h = 0 with h' = 1 (the paper's fig. 4), l = m = 1, F = 0."""
    sys = darboux.build().compile(stabilization=md.Baumgarte(alpha=10.0, beta=10.0))
    T = np.concatenate([[0.0, 1e-3, 1e-2], np.linspace(0.05, 1.0, 20)])
    res = sys.simulate(1.0, q0=darboux.vertices(0.0), v0=darboux.vertex_velocities(0.0, 1.0),
                       output_times=T, rtol=1e-12, atol=1e-13)
    return sys, res


def test_darboux_model_matches_reference_kinematics(darboux):
    sys = darboux.build().compile(stabilization=None)
    assert sys.nq == 10 and sys.m == 9 and sys.k == 0
    assert sys.q_names == ["xK", "yK", "xB", "yB", "xC", "yC", "xM", "yM", "xH", "yH"]
    for h in (-0.8, 0.0, 0.4):
        q = darboux.vertices(h)
        assert np.allclose(list(q.values()), ref_r(h), atol=1e-15)
        assert np.allclose(list(darboux.vertex_velocities(h, 1.0).values()), ref_dr(h),
                           atol=1e-13)
        d = sys.dynamics_terms(q, None)
        assert np.abs(d["phi"]).max() < 1e-14
        assert np.allclose(d["G"], ref_G(ref_r(h)), atol=1e-14)


def test_darboux_rank_drop_reported_not_a_crash(darboux, run_from_square):
    sys, res = run_from_square
    assert sys.constraint_rank(darboux.vertices(0.0)) == 8
    assert sys.constraint_rank(darboux.vertices(0.3)) == 9
    assert res.stats["min_constraint_rank"] == 8
    assert res.stats["rank_drops"] >= 1 and res.stats["rank_drop_times"][0] == 0.0
    assert np.all(np.isfinite(res.q)) and np.all(np.isfinite(res.v))


def test_darboux_trajectory_matches_reduced_equation(run_from_square):
    """All 10 coordinates from the branch point h = 0 on: h(t) is the solution of (5) (scipy),
    H stays on its line, every vertex on the straight-line branch (2), constraints hold."""
    sys, res = run_from_square
    ref = ref_reduced((0.0, 1.0), 0.0, 1.0)
    h_ref = ref.sol(res.t)[0]
    assert np.abs(res["yH"] - h_ref).max() < 1e-8
    assert np.abs(res["xH"]).max() < 1e-9
    for i, hi in enumerate(h_ref):
        assert np.abs(res.q[i] - ref_r(hi)).max() < 1e-8
    for k in range(1, 10):
        assert np.abs(res.residuals[f"f{k}"]).max() < 1e-9
    E = 0.5 * np.sum(res.v**2, axis=1)
    assert np.abs(E - 2.5).max() < 1e-9          # T = a(0) h'(0)^2 = 5/2
    assert res["yH"][-1] == pytest.approx(1.1062847, abs=1e-6)


def test_darboux_series_two_fifteenths(run_from_square):
    """h(t) = t + (2/15) t^3 + O(t^5) (sec. 3); the O(t^5) coefficient is about -0.0107."""
    _, res = run_from_square
    for t in (0.05, 0.1, 0.15, 0.2):
        i = int(np.argmin(np.abs(res.t - t)))
        assert res.t[i] == pytest.approx(t)
        err = res["yH"][i] - (t + 2.0 / 15.0 * t**3)
        assert abs(err) < 0.02 * t**5
    # and the cubic term is really there: without it the error is (2/15) t^3
    i = int(np.argmin(np.abs(res.t - 0.1)))
    assert res["yH"][i] - 0.1 == pytest.approx(2.0 / 15.0 * 0.1**3, rel=2e-3)


def test_darboux_vertex_forces_unique_at_branch_point(darboux, run_from_square):
    """At h = 0 (rank 8) the multipliers are not unique, the vertex forces G^T lam are:
    the minimum-norm multipliers of the Result and any lam + k a (G^T a = 0) give the same
    forces, equal to m r'' = (1, -1, -1, 1, 1, -1, -1, 1, 0, 0) for h' = 1, F = 0."""
    sys, res = run_from_square
    assert res.t[0] == 0.0
    lam = np.array([res.multipliers[f"f{k}"][0] for k in range(1, 10)])
    G = np.array(sys.functions["G"](res.q[0], 0.0, sys.param_vector()))
    U, s, Vt = np.linalg.svd(G)
    a = U[:, -1]
    assert s[-1] < 1e-12
    forces = G.T @ lam
    assert np.all(np.isfinite(lam)) and np.abs(lam).max() < 10
    assert np.allclose(forces, [1, -1, -1, 1, 1, -1, -1, 1, 0, 0], atol=1e-8)
    for k in (1.0, -3.0, 100.0):
        assert np.allclose(G.T @ (lam + k * a), forces, atol=1e-8)
    # a different (non-minimum-norm) choice: drop f9 and solve the remaining 8 (rank 8)
    lam8 = np.linalg.lstsq(G[:8].T, forces, rcond=None)[0]
    assert np.allclose(G[:8].T @ lam8, forces, atol=1e-8)
    assert not np.allclose(np.r_[lam8, 0.0], lam, atol=1e-3)


def test_darboux_multiplier_limit_at_branch_point(run_from_square):
    """Along the motion the multipliers are unique for h != 0; Lam_9 -> 1/10 as h -> 0
    (the 32768/327680 of sec. 3; see the sign note in test_reference_multiplier_limits)."""
    sys, res = run_from_square
    for t in (1e-3, 1e-2):
        i = int(np.argmin(np.abs(res.t - t)))
        h, hd = ref_reduced((0.0, 0.1), 0.0, 1.0).sol(res.t[i])
        hdd = -ref_da(h) * hd**2 / (2 * ref_a(h))
        lam_ref = ref_multipliers(h, hd, hdd)[0]
        lam = np.array([res.multipliers[f"f{k}"][i] for k in range(1, 10)])
        # Near h = 0 the multipliers are ill-conditioned along the near-null direction a of
        # G (non-unique at h = 0 itself), and the Result's multipliers include the
        # stabilization feedback H y + K z, amplified ~ 1/h^2 along a.  The vertex forces
        # G^T lam are the well-posed physical quantities: compare those.
        G = np.array(sys.functions["G"](res.q[i], res.t[i], sys.param_vector()))
        assert np.allclose(G.T @ lam, G.T @ lam_ref, atol=1e-5)
        if t >= 1e-2:
            assert np.allclose(lam, lam_ref, atol=5e-3)
            assert lam[8] == pytest.approx(0.1, abs=2 * t)


def test_darboux_force_orthogonal_to_line_unbounded_reactions(darboux):
    """F_x = 1 on H does no work on the straight-line motion: h(t) is unchanged, but the
    multipliers grow like Lam_9 ~ -1/(8 t) as t -> 0+ (40960/327680 in sec. 3); at h = 0
    itself the vertex forces are still finite: G^T lam = m r'' - F."""
    sys = darboux.build(Fx=1.0).compile(stabilization=md.Baumgarte(alpha=10.0, beta=10.0))
    T = np.array([0.0, 1e-3, 3e-3, 1e-2, 0.1, 0.3])
    res = sys.simulate(0.3, q0=darboux.vertices(0.0), v0=darboux.vertex_velocities(0.0, 1.0),
                       output_times=T, rtol=1e-12, atol=1e-13)
    ref = ref_reduced((0.0, 0.3), 0.0, 1.0)
    # the regularized multiplier solve (symbolic/linalg.py) truncates the force along the
    # near-null direction within |h| ~ 1e-4 of the branch point: ~1e-8 on h(t)
    assert np.abs(res["yH"] - ref.sol(res.t)[0]).max() < 5e-8
    assert np.abs(res["xH"]).max() < 5e-8
    # t = 1e-3 lies inside the regularization window (h ~ 1e-3: Lam_9 off by ~1 %)
    for i in (2, 3):
        t = res.t[i]
        assert res.multipliers["f9"][i] * 8 * t == pytest.approx(-1.0, abs=5 * t)
    lam0 = np.array([res.multipliers[f"f{k}"][0] for k in range(1, 10)])
    G = np.array(sys.functions["G"](res.q[0], 0.0, sys.param_vector()))
    F = np.zeros(10)
    F[8] = 1.0
    forces = G.T @ lam0
    assert np.all(np.isfinite(forces))
    assert np.allclose(forces, ref_gauss_forces(res.q[0], res.v[0], F), atol=1e-8)


def test_darboux_crossing_branch_point_from_below(darboux):
    """Start at h(-0.5) of the odd reduced solution and cross h = 0 at t = 0.5."""
    ref = ref_reduced((0.0, 1.0), 0.0, 1.0)
    h1, hd1 = ref.sol(0.5)
    sys = darboux.build().compile(stabilization=md.Baumgarte(alpha=10.0, beta=10.0))
    T = np.linspace(0.0, 1.0, 21)
    res = sys.simulate(1.0, q0=darboux.vertices(-h1), v0=darboux.vertex_velocities(-h1, hd1),
                       output_times=T, rtol=1e-10, atol=1e-12)
    h_ref = np.sign(T - 0.5) * ref.sol(np.abs(T - 0.5))[0]
    assert np.abs(res["yH"] - h_ref).max() < 1e-6
    assert np.abs(0.5 * np.sum(res.v**2, axis=1) - 2.5).max() < 1e-6
