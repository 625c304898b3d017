"""Seed 001 (Zharikov 2005): mechdae's spatial impact against the paper's own formulas.

The paper's frame: normal x through the contact point O (origin), centers C1(-x_c1, 0, 0),
C2(x_c2, 0, 0); impulse S_1 = i S_1x + j P_1y + k P_1z on body 1 (-S_1 on body 2);
tangential impulse ratios P_1y = f_1 S_1x, P_1z = f_2 S_1x (15)-(16), the same in both
phases, restitution S_2x = k S_1x (14). Inertia in the paper's notation: axial moments
J_xx.. and centrifugal moments J_xy = int x y dm, the tensor being
[[J_xx, -J_xy, -J_xz], [-J_yx, J_yy, -J_yz], [-J_zx, -J_zy, J_zz]] (31)-(32).

models/oblique_impact.py has the normal along z, body 1 below: paper (x, y, z) = model
(z, x, y) (a cyclic permutation, right-handed), x_c1 = a1, x_c2 = a2, and the paper's
J_xy = -(model tensor)[z, x] etc. The formulas below are written in the paper's symbols
(28), (39'), (49), (50)-(53), (17)-(20) and compared with ``System.impact`` (e_n = e_t = k,
mu = inf) for random bodies with products of inertia.

Printed formulas corrected here (each derived from the paper's own equations (5)-(13)):

- (48), and with it row 2 of (50)-(51) and the numerator of (53): the f_1 term reads
  ``+(x_c1^2 b_12/D_1 + x_c2^2 b_22/D_2) m1 m2/(m1 + m2) f_1``; it must be ``-(...)``.
  Substituting (46)-(47) into (45) with P_1y = f_1 S_1x, S_1x = -m1 m2 (V_c1x - V_c2x)/(m1
  + m2) gives ``A_z = -mu B_12 f_1 + (1 - mu A_12) f_2``. With the minus the matrix of
  (50) is mu times the tangential block of the Delassus matrix, symmetric (b_12 = b_13 for
  a symmetric tensor) and positive definite; with the printed plus it is neither, and f_1,
  f_2 are wrong whenever a product of inertia couples y and z (test below).
- (19), (20) and the Cramer formulas for omega_1, omega_2 after (53): the right-hand sides
  read ``(0, -(1 + k) f_2 S_1x, (1 + k) f_1 S_1x)``; they lack the lever arms: the sum of
  (6) and (11) (of (8) and (13)) is ``(0, -(1 + k) x_c1 f_2 S_1x, (1 + k) x_c1 f_1 S_1x)``
  (x_c2 for body 2).
- (18) as extracted, ``-(i + j f_1 + k f_2)(1 + k) S_1x``, and (17): correct (they are the
  sums of (5)+(10) and (7)+(12)); (28) correct; (39'), (49) correct as printed
  (a_13 = J_xx J_yy - J_xy J_yx, b_13 = J_xx J_zy + J_xy J_zx, a_12 = -J_xx J_zz + J_xz J_zx,
  b_12 = J_xx J_yz + J_xz J_yx).
"""
import numpy as np
import pytest

from conftest import model_module
# random bodies with products of inertia; the compiled model under both impact laws
from test_seed001 import params_of, random_case, sys_  # noqa: F401 (sys_: a fixture)

ob = model_module("oblique_impact")

PAPER = (2, 0, 1)            # paper axis x, y, z -> model axis index z, x, y


def to_paper(vec):
    return np.asarray(vec, float)[list(PAPER)]


def from_paper(vec):
    out = np.empty(3)
    out[list(PAPER)] = vec
    return out


def paper_inertia(T_model):
    """Axial and centrifugal moments of the paper from the model's inertia tensor."""
    Tp = T_model[np.ix_(PAPER, PAPER)]
    J = {}
    for a, i in zip("xyz", range(3)):
        for b, j in zip("xyz", range(3)):
            J[a + b] = Tp[i, j] if i == j else -Tp[i, j]
    return J


def paper_matrix(J):
    """(31)/(32): the matrix of (6), (8) in the paper's notation."""
    return np.array([[J["xx"], -J["xy"], -J["xz"]],
                     [-J["yx"], J["yy"], -J["yz"]],
                     [-J["zx"], -J["zy"], J["zz"]]])


def paper_solution(m1, m2, J1, J2, x1, x2, k, V1, W1, V2, W2, printed=False):
    """The paper's closed form (28), (39'), (49)-(53), (17)-(20) in its own frame.

    ``printed=True`` keeps the two misprints (the sign of the f_1 term in (48) and the
    missing lever arms in (19)-(20)) to show what they change."""
    mu = m1 * m2 / (m1 + m2)
    S1x = -mu * (V1[0] - V2[0])                                           # (28)
    D1, D2 = np.linalg.det(paper_matrix(J1)), np.linalg.det(paper_matrix(J2))
    a13 = J1["xx"] * J1["yy"] - J1["xy"] * J1["yx"]                       # (39')
    a23 = J2["xx"] * J2["yy"] - J2["xy"] * J2["yx"]
    b13 = J1["xx"] * J1["zy"] + J1["xy"] * J1["zx"]
    b23 = J2["xx"] * J2["zy"] + J2["xy"] * J2["zx"]
    a12 = -J1["xx"] * J1["zz"] + J1["xz"] * J1["zx"]                      # (49)
    a22 = -J2["xx"] * J2["zz"] + J2["xz"] * J2["zx"]
    b12 = J1["xx"] * J1["yz"] + J1["xz"] * J1["yx"]
    b22 = J2["xx"] * J2["yz"] + J2["xz"] * J2["yx"]
    A13 = x1 ** 2 * a13 / D1 + x2 ** 2 * a23 / D2
    B13 = x1 ** 2 * b13 / D1 + x2 ** 2 * b23 / D2
    A12 = x1 ** 2 * a12 / D1 + x2 ** 2 * a22 / D2
    B12 = x1 ** 2 * b12 / D1 + x2 ** 2 * b22 / D2
    Ay = ((V1[1] - V2[1]) + (x1 * W1[2] + x2 * W2[2])) / (V1[0] - V2[0])
    Az = ((V1[2] - V2[2]) - (x1 * W1[1] + x2 * W2[1])) / (V1[0] - V2[0])
    s21 = +1.0 if printed else -1.0                         # corrected: -mu B12 f1 in (48)
    Mf = np.array([[1 + mu * A13, -mu * B13],                                  # (50)
                   [s21 * mu * B12, 1 - mu * A12]])
    Df = np.linalg.det(Mf)                                                      # (51)
    f1 = np.linalg.det(np.array([[Ay, Mf[0, 1]], [Az, Mf[1, 1]]])) / Df        # (52)
    f2 = np.linalg.det(np.array([[Mf[0, 0], Ay], [Mf[1, 0], Az]])) / Df        # (53)
    dir_ = np.array([1.0, f1, f2])
    U1 = V1 + (1 + k) * S1x * dir_ / m1                                         # (17)
    U2 = V2 - (1 + k) * S1x * dir_ / m2                                         # (18)
    out = dict(S1x=S1x, f1=f1, f2=f2, U1=U1, U2=U2, Mf=Mf)
    for b, J, x, W in (("1", J1, x1, W1), ("2", J2, x2, W2)):                  # (19), (20)
        lever = 1.0 if printed else x
        rhs = (1 + k) * S1x * lever * np.array([0.0, -f2, f1])
        A = paper_matrix(J)
        D = np.linalg.det(A)
        dW = np.empty(3)
        for i in range(3):                          # Cramer, as the formulas after (53)
            Ai = A.copy()
            Ai[:, i] = rhs
            dW[i] = np.linalg.det(Ai) / D
        out["W" + b] = W + dW
    return out


def paper_of(c, printed=False):
    return paper_solution(c["m1"], c["m2"], paper_inertia(c["J1"]), paper_inertia(c["J2"]),
                          c["a1"], c["a2"], c["k"], to_paper(c["v1"]), to_paper(c["w1"]),
                          to_paper(c["v2"]), to_paper(c["w2"]), printed=printed)


def test_f1_f2_and_velocities_17_20_28_52_53_for_random_bodies(sys_):
    rng = np.random.default_rng(1)
    for c in [random_case(rng) for _ in range(20)]:
        state = ob.impact_state(c["a1"], c["a2"], c["v1"], c["w1"], c["v2"], c["w2"])
        out = sys_.impact(*state, params=params_of(c), all_solutions=True)
        assert out.status == "unique" and out.modes["C"] == "stick"
        pap = paper_of(c)
        # impulse on body 2: (normal, t_x, t_y) of the model = -(1 + k) S_1x (1, f1, f2)
        Pn, Pt1, Pt2 = out.impulses["C"]
        assert Pn == pytest.approx(-(1 + c["k"]) * pap["S1x"], rel=1e-11)         # (28)
        assert Pt1 / Pn == pytest.approx(pap["f1"], rel=1e-9, abs=1e-12)          # (52)
        assert Pt2 / Pn == pytest.approx(pap["f2"], rel=1e-9, abs=1e-12)          # (53)
        vp = out.v_plus
        got = {key: np.array([vp[f"b{key[1]}.{key[0]}{x}"] for x in "xyz"])
               for key in ("v1", "w1", "v2", "w2")}
        np.testing.assert_allclose(got["v1"], from_paper(pap["U1"]), rtol=1e-10, atol=1e-11)
        np.testing.assert_allclose(got["v2"], from_paper(pap["U2"]), rtol=1e-10, atol=1e-11)
        np.testing.assert_allclose(got["w1"], from_paper(pap["W1"]), rtol=1e-10, atol=1e-11)
        np.testing.assert_allclose(got["w2"], from_paper(pap["W2"]), rtol=1e-10, atol=1e-11)
        # the corrected matrix of (50) is symmetric positive definite (mu x Delassus block)
        Mf = pap["Mf"]
        assert Mf[0, 1] == pytest.approx(Mf[1, 0], rel=1e-12, abs=1e-14)
        assert np.all(np.linalg.eigvalsh(0.5 * (Mf + Mf.T)) > 0)


def test_printed_misprints_change_the_answer_only_where_the_derivation_says():
    rng = np.random.default_rng(5)
    # a product of inertia coupling the paper's y and z (body 1 turned about the normal),
    # a large tangential velocity (model x, y = paper y, z)
    ang = 0.7
    Rz = np.array([[np.cos(ang), -np.sin(ang), 0], [np.sin(ang), np.cos(ang), 0], [0, 0, 1]])
    c = dict(m1=1.0, m2=2.0, J1=Rz @ np.diag([0.6, 1.4, 1.0]) @ Rz.T, J2=np.diag([0.7, 0.9, 1.1]),
             a1=0.8, a2=0.6, k=0.5, v1=np.zeros(3), w1=np.zeros(3),
             v2=np.array([1.0, 0.5, -0.5]), w2=np.zeros(3))
    good, bad = paper_of(c), paper_of(c, printed=True)
    # the printed sign of (48) gives other f1, f2
    assert np.hypot(bad["f1"] - good["f1"], bad["f2"] - good["f2"]) > 0.1
    assert not np.allclose(bad["Mf"], bad["Mf"].T)
    # principal axes along the paper's axes: b_12 = b_13 = 0, the sign does not matter,
    # and (19)-(20) without x_c differ from the corrected ones by the factor x_c exactly
    c2 = dict(c, J1=np.diag(rng.uniform(0.5, 1.5, 3)), J2=np.diag(rng.uniform(0.5, 1.5, 3)))
    good, bad = paper_of(c2), paper_of(c2, printed=True)
    assert bad["f1"] == pytest.approx(good["f1"], rel=1e-13)
    assert bad["f2"] == pytest.approx(good["f2"], rel=1e-13)
    w10, w20 = to_paper(c2["w1"]), to_paper(c2["w2"])
    np.testing.assert_allclose(good["W1"] - w10, c2["a1"] * (bad["W1"] - w10), rtol=1e-12)
    np.testing.assert_allclose(good["W2"] - w20, c2["a2"] * (bad["W2"] - w20), rtol=1e-12)


def test_compression_ends_with_equal_contact_point_velocities_9_24_26():
    """(9) and its components (24)-(26) at the end of the first phase (impulse S_1):
    the closed form of the first phase alone, k = 0, sticks the contact points."""
    rng = np.random.default_rng(11)
    for _ in range(10):
        c = dict(random_case(rng), k=0.0)
        pap = paper_of(c)
        x1, x2 = c["a1"], c["a2"]
        U1, U2, W1, W2 = pap["U1"], pap["U2"], pap["W1"], pap["W2"]
        assert U1[0] - U2[0] == pytest.approx(0.0, abs=1e-12)                     # (24)
        assert U1[1] - U2[1] == pytest.approx(-(x1 * W1[2] + x2 * W2[2]), abs=1e-12)  # (25)
        assert U1[2] - U2[2] == pytest.approx(x1 * W1[1] + x2 * W2[1], abs=1e-12)  # (26)
        # momentum (21)-(23)
        np.testing.assert_allclose(c["m1"] * U1 + c["m2"] * U2,
                                   c["m1"] * to_paper(c["v1"]) + c["m2"] * to_paper(c["v2"]),
                                   atol=1e-12)
