"""Darboux mechanism (seed 004, Burian 2018): straight-line motion through the branch point.

Two layers:

* an independent reference written here in plain numpy/scipy from the paper: the vertex
  coordinates (2) as functions of h, the nine constraints (9) with the misprints of f2, f6
  fixed, the reduced Lagrange equation (5) ``2 a(h) h'' + a'(h) h'^2 = Q_h`` with
  ``a(h) = 1/2 sum_i m_i |dr_i/dh|^2`` and the multiplier system (8);
* the mechdae model ``models/darboux.py`` (10 coordinates, 9 holonomic constraints),
  compiled and simulated through h = 0, compared with that reference.
"""
import importlib.util
import pathlib

import numpy as np
import pytest
from scipy.integrate import solve_ivp

REPO = pathlib.Path(__file__).resolve().parents[1]


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
    # m r'' at h = 0, h' = 1: K, M accelerate towards the line... exactly (+-1, +-1), H at rest
    assert np.allclose(R, [1, -1, -1, 1, 1, -1, -1, 1, 0, 0], atol=1e-8)
