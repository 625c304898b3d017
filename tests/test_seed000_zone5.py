"""Seed 000 (Rubanovich & Formalsky), section 5: the zone below gamma_5, and region IV.

Below gamma_5 the inelastic impact with D sticking (2.2) needs E_1y < 0: no consistent
solution. Section 5 replaces (2.2) by the modified model (5.2): D keeps x_D(+0) = 0 while
its normal impulse is zero (E_1y = 0) and it may lift off. In mechdae that is the contact
option ``friction_cone="closure"`` (the closure of the Coulomb cone as mu -> inf, see
mechdae/contact/closure.py), ``two_link_impact.build(closure=True)``.

Derivation (feet coordinates z = (x_D, y_D, x_B, y_B), G of (1.2), G (z+ - z-) = E, z- =
(cos gamma, sin gamma, 0, 0), g_ij 1-based): with x_D+ = 0 and E_1y = 0 row 2 of (1.3)
leaves y_D free, so the modified problem is the standard one with G replaced by its Schur
complement on g_22. B stays (z_B+ = 0): row 2 gives (5.3), row 4 gives (5.4). B leaves
(E_2 = 0): rows 2-4 by Cramer's rule give (5.5) and (5.6), both as printed (sign +).
Corrections of the printed text (OCR or typesetting), checked below:
- (5.12) printed "0 < alpha < alpha'/4 pi" reads 0 < alpha < pi/4 (from (5.8), (5.10));
- (5.13) printed "alpha' < alpha < alpha'/2 pi" reads alpha' < alpha < pi/2;
- the closing remark's "x_2*(+0) = 0, E_1y = 0" reads x_1*(+0) = 0, as in (5.2);
- below (2.13), "gamma_2 and gamma_4 coincide" on pi/4 < alpha < alpha': they cross at
  both ends and differ in between by at most 0.192 deg (at alpha = 50.15 deg); in that
  sliver the law gives "stays" with D sticking and "leaves" with D lifting off.
Not in the paper, found here: B staying in the modified zone needs f >= f*(alpha) =
|g22 g31 - g21 g32| / |g22 g41 - g21 g42| (the ratio E_2x/E_2y of (5.3)-(5.4), independent
of gamma), the analogue of |I/F| in (4.2)-(4.3); B sliding there has the velocity (3.3)
with I, F, g33, g43 of the Schur complement. Near gamma_5 on 0 < alpha < pi/4, a small f
lets B slide backwards with D sticking (E_1y >= 0 holds for that hypothesis).
"""
import itertools
import math
import os
import sys

import numpy as np
import pytest
from scipy.optimize import brentq

import mechdae as md
from mechdae.errors import ModelError

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
sys.path.insert(0, os.path.dirname(__file__))
import two_link_impact as tl  # noqa: E402
from test_seed000 import G_paper, gammas, paper_hypotheses  # noqa: E402

ALPHA_P = math.asin(math.sqrt(2.0 / 3.0))       # alpha' of (2.13)


@pytest.fixture(scope="module")
def closed():
    return tl.build(closure=True).compile()


@pytest.fixture(scope="module")
def default():
    return tl.build().compile()


def gamma5(a):
    g1, g2, g3, g4 = gammas(a)
    return g4 if a < ALPHA_P else g2           # (2.14)


# ----------------------------------------------------------------- the paper, in feet
def feet_solutions(a, g, f, tol=1e-10):
    """Every consistent (D mode, B mode) of (1.3) with (5.2) or (2.2) for D, (2.7), (3.2).

    An enumeration independent of mechdae: per hypothesis four linear conditions join
    ``G (z+ - z-) = E``; the inequalities of (2.7), (5.7) and Coulomb's (3.2) decide.
    Returns ``{(D mode, B mode): (z+, E)}`` with B modes stick / separate / slide+ / slide-.
    """
    G = G_paper(a)
    zm = np.array([math.cos(g), math.sin(g), 0.0, 0.0])
    e = np.eye(8)
    out = {}
    for dm, bm in itertools.product(("stick", "separate"),
                                    ("stick", "separate", "slide+", "slide-")):
        A = np.zeros((8, 8))
        A[:4, :4], A[:4, 4:] = G, -np.eye(4)
        b = np.concatenate([G @ zm, np.zeros(4)])
        rows = [e[0], e[1]] if dm == "stick" else [e[0], e[5]]          # (2.2) | (5.2)
        s = {"slide+": 1.0, "slide-": -1.0}.get(bm, 0.0)
        rows += {"stick": [e[2], e[3]], "separate": [e[6], e[7]]}.get(
            bm, [e[3], e[6] + s * f * e[7]])                             # E_2x = -s f E_2y
        A[4:] = rows
        X = np.linalg.solve(A, b)
        zp, E = X[:4], X[4:]
        ok = E[1] >= -tol if dm == "stick" else zp[1] >= -tol            # (2.7) | (5.7)
        if bm == "stick":
            ok &= E[3] >= -tol and abs(E[2]) <= f * E[3] + tol
        elif bm == "separate":
            ok &= zp[3] >= -tol
        else:
            ok &= E[3] >= -tol and s * zp[2] > tol
        if ok:
            out[(dm, bm)] = (zp, E)
    return out


def solver_set(sys_, a, g, f):
    q, v = tl.impact_state(a, g)
    out = sys_.impact(q, v, all_solutions=True, params={"f": f})
    found = {}
    for s in out.solutions:
        bm = s.modes["B"]
        if bm == "slide":
            bm = "slide+" if s.contact_velocities["B"][1] > 0 else "slide-"
        found[(s.modes["D"], bm)] = s
    return out, found


def modified(a, g):
    """(5.3)-(5.6), f* and the Schur-complement data of the modified law."""
    G = G_paper(a)
    g_ = lambda i, j: G[i - 1, j - 1]                       # noqa: E731
    x1, y1 = math.cos(g), math.sin(g)
    det = lambda *r: np.linalg.det(np.array([[g_(i, j) for j in r[1]] for i in r[0]]))  # noqa
    A = det((2, 3, 4), (2, 3, 4))
    yD_stay = y1 + g_(2, 1) / g_(2, 2) * x1                                        # (5.3)
    E2y_stay = (g_(2, 1) * g_(4, 2) - g_(2, 2) * g_(4, 1)) / g_(2, 2) * x1          # (5.4)
    yD_leave = y1 + det((2, 3, 4), (1, 3, 4)) / A * x1                             # (5.5)
    yB_leave = det((2, 3, 4), (2, 3, 1)) / A * x1                                  # (5.6)
    Ip = (g_(2, 2) * g_(3, 1) - g_(2, 1) * g_(3, 2)) / g_(2, 2) * x1
    Fp = (g_(2, 2) * g_(4, 1) - g_(2, 1) * g_(4, 2)) / g_(2, 2) * x1
    g33 = g_(3, 3) - g_(2, 3) * g_(3, 2) / g_(2, 2)
    g43 = g_(4, 3) - g_(2, 3) * g_(4, 2) / g_(2, 2)
    return dict(yD_stay=yD_stay, E2y_stay=E2y_stay, yD_leave=yD_leave, yB_leave=yB_leave,
                det58=det((2, 3, 4), (2, 3, 1)),
                det510=g_(2, 1) * g_(4, 2) - g_(2, 2) * g_(4, 1),
                fstar=abs(Ip / Fp), I=Ip, F=Fp, g33=g33, g43=g43)


def _below(rng, lo, hi, margin=0.01):
    a = rng.uniform(lo, hi)
    return a, rng.uniform(-math.pi + margin, gamma5(a) - margin)


# ----------------------------------------------------------------- closed forms
def test_modified_law_closed_forms_5_3_to_5_6(closed):
    rng = np.random.default_rng(0)
    n_stay = n_leave = 0
    for _ in range(60):
        a, g = _below(rng, 0.03, math.pi / 2 - 0.03)
        ref = modified(a, g)
        out, found = solver_set(closed, a, g, 1e3)       # f large: B may stay
        assert out.status != "inconsistent"
        for (dm, bm), s in found.items():
            assert dm == "separate", (a, g, dm, bm)    # below gamma_5 D always lifts off
            vD, tD = s.contact_velocities["D"]
            assert tD == pytest.approx(0.0, abs=1e-12)          # x_D(+0) = 0 of (5.2)
            assert s.impulses["D"][0] == pytest.approx(0.0, abs=1e-12)      # E_1y = 0
            if bm == "stick":
                n_stay += 1
                assert vD == pytest.approx(ref["yD_stay"], rel=1e-9, abs=1e-12)
                assert s.impulses["B"][0] == pytest.approx(ref["E2y_stay"], rel=1e-9)
            if bm == "separate":
                n_leave += 1
                assert vD == pytest.approx(ref["yD_leave"], rel=1e-9, abs=1e-12)
                assert s.contact_velocities["B"][0] == pytest.approx(ref["yB_leave"],
                                                                     rel=1e-9, abs=1e-12)
            assert s.energy_after < out.energy_before
    assert n_stay > 5 and n_leave > 5


def test_subzone_bounds_5_8_and_5_10_are_pi_over_4_and_alpha_prime():
    det58 = lambda a: modified(a, -3.0)["det58"]        # noqa: E731  (gamma-free)
    det510 = lambda a: modified(a, -3.0)["det510"]      # noqa: E731
    assert brentq(det58, 0.3, 1.2, xtol=1e-14) == pytest.approx(math.pi / 4, abs=1e-12)
    assert brentq(det510, 0.3, 1.3, xtol=1e-14) == pytest.approx(ALPHA_P, abs=1e-12)
    for a in np.linspace(0.02, math.pi / 2 - 0.02, 60):
        assert (det58(a) <= 0) == (a >= math.pi / 4)          # (5.8): B may leave
        assert (det510(a) <= 0) == (a <= ALPHA_P)             # (5.10): B may stay


def test_5_9_and_5_11_are_the_opposites_of_2_10_and_2_12():
    for a in np.linspace(0.05, math.pi / 2 - 0.05, 25):
        g1, g2, g3, g4 = gammas(a)
        for gam, key in ((g2, "yD_leave"), (g4, "yD_stay")):
            assert modified(a, gam)[key] == pytest.approx(0.0, abs=1e-12)
            assert modified(a, gam - 0.01)[key] > 0 > modified(a, gam + 0.01)[key]


def test_gamma_2_and_gamma_4_cross_at_pi_over_4_and_alpha_prime():
    d = lambda a: gammas(a)[1] - gammas(a)[3]           # noqa: E731
    assert brentq(d, 0.6, 0.9, xtol=1e-14) == pytest.approx(math.pi / 4, abs=1e-10)
    assert brentq(d, 0.9, 1.2, xtol=1e-14) == pytest.approx(ALPHA_P, abs=1e-10)
    aa = np.linspace(math.pi / 4, ALPHA_P, 2001)
    gap = np.degrees([d(a) for a in aa])
    assert 0.19 < gap.max() < 0.193 and gap.min() > -1e-9   # "coincide": within 0.192 deg


# ----------------------------------------------------------------- the sub-zones
def test_below_gamma5_alpha_under_pi_over_4_is_like_region_III(closed):
    """(5.12): B stays (f >= f*) or slides (f < f*), D lifts off when B stays."""
    rng = np.random.default_rng(1)
    for _ in range(25):
        a, g = _below(rng, 0.03, math.pi / 4 - 0.01)
        ref = modified(a, g)
        _, big = solver_set(closed, a, g, 1.5 * ref["fstar"] + 0.01)
        assert set(big) == {("separate", "stick")}
        f = 0.5 * ref["fstar"]
        _, small = solver_set(closed, a, g, f)
        assert {bm[:5] for _, bm in small} == {"slide"}
        for (dm, bm), s in small.items():
            if dm == "separate":          # sliding velocity: (3.3) with the Schur data
                sg = 1.0 if bm == "slide+" else -1.0
                xB = (ref["I"] + sg * f * ref["F"]) / (ref["g33"] + sg * f * ref["g43"])
                assert s.contact_velocities["B"][1] == pytest.approx(xB, rel=1e-9)


def test_below_gamma5_between_pi_over_4_and_alpha_prime_is_like_region_IV(closed):
    """Interval (2.13): B stays and leaves both consistent when f >= f*; else leaves."""
    rng = np.random.default_rng(2)
    for _ in range(25):
        a, g = _below(rng, math.pi / 4 + 0.01, ALPHA_P - 0.01)
        ref = modified(a, g)
        out, big = solver_set(closed, a, g, 1.5 * ref["fstar"] + 0.01)
        assert out.ambiguous
        assert {("separate", "stick"), ("separate", "separate")} <= set(big)
        assert set(big) - {("separate", "stick"), ("separate", "separate")} <= {
            ("separate", "slide-")}     # the third solution, as in region IV (below)
        out, small = solver_set(closed, a, g, 0.5 * ref["fstar"])
        assert set(small) == {("separate", "separate")} and out.status == "unique"


def test_below_gamma5_beyond_alpha_prime_the_body_jumps(closed):
    """(5.9), (5.13): both legs leave the ground; the vertical momentum before the impact
    points upwards (the paper's explanation)."""
    rng = np.random.default_rng(3)
    for _ in range(25):
        a, g = _below(rng, ALPHA_P + 0.01, math.pi / 2 - 0.01)
        assert g <= gammas(a)[1]                       # (5.9) holds in all of the zone
        for f in (0.05, 1.0, 50.0):
            out, found = solver_set(closed, a, g, f)
            assert set(found) == {("separate", "separate")} and out.status == "unique"
            s = found[("separate", "separate")]
            assert s.contact_velocities["D"][0] > 0 and s.contact_velocities["B"][0] > 0
        q, v = tl.impact_state(a, g)
        p_y = 2 * v["yO"] + math.sin(g)           # m = 1: sum of the rods' centre speeds
        assert p_y > 0


def test_closure_law_equals_the_feet_enumeration_everywhere(closed, default):
    """Random (alpha, gamma, f) over the whole rectangle (2.8): the solver's solution set
    is the independent enumeration in feet coordinates; above gamma_5, outside the sliver
    gamma_4 < gamma < gamma_2, it equals the default law's (D sticks)."""
    rng = np.random.default_rng(4)
    for _ in range(150):
        a = rng.uniform(0.03, math.pi / 2 - 0.03)
        g = rng.uniform(-math.pi + 0.01, -0.01)
        f = math.exp(rng.uniform(-3, 3))
        ref = feet_solutions(a, g, f)
        out, found = solver_set(closed, a, g, f)
        assert set(found) == set(ref), (a, g, f)
        assert out.status != "inconsistent"            # the modified law always answers
        for key, s in found.items():
            zp, E = ref[key]
            np.testing.assert_allclose(s.contact_velocities["D"], zp[[1, 0]], atol=1e-10)
            np.testing.assert_allclose(s.contact_velocities["B"], zp[[3, 2]], atol=1e-10)
            np.testing.assert_allclose(s.impulses["B"], E[[3, 2]], atol=1e-10)
        g2, g4 = gammas(a)[1], gammas(a)[3]
        if g > gamma5(a) and not (g4 < g < g2):
            assert set(solver_set(default, a, g, f)[1]) == set(found)


def test_the_sliver_between_gamma_4_and_gamma_2(closed):
    a = 50.15 * math.pi / 180
    g2, g4 = gammas(a)[1], gammas(a)[3]
    g = 0.5 * (g2 + g4)
    ph = paper_hypotheses(a, g)
    out, found = solver_set(closed, a, g, 2 * abs(ph["I"] / ph["F"]) + 0.1)
    assert {("stick", "stick"), ("separate", "separate")} <= set(found)


# ----------------------------------------------------------------- region IV, 3rd solution
def test_region_IV_third_solution_is_physical(default):
    """Verdict: B sliding backwards in region IV is a consistent, dissipative solution of
    the paper's own law, so the impact there has three solutions, not two.

    It satisfies (2.7) (E_1y > 0, E_2y > 0, y_B+ = 0), Coulomb's (3.2) with the friction
    impulse opposing the sliding (E_2x x_B+ < 0: negative friction work), and the kinetic
    energy falls. Its velocity is the second branch of (3.3), x_B+ = (I - fF)/(g33 - f g43),
    with a negative denominator: it exists iff f > g33/g43 (the impulsive counterpart of
    Painleve's case, friction feeding the backward slide), and in region IV
    |I/F| > g33/g43, so it exists exactly when the paper's ambiguity (4.3) does. The paper
    examines sliding only for f < |I/F| and so misses it."""
    rng = np.random.default_rng(5)
    n = 0
    while n < 20:
        a = rng.uniform(0.03, math.pi / 2 - 0.03)
        g = rng.uniform(-math.pi + 0.01, -0.01)
        ph = paper_hypotheses(a, g)
        if ph["region"] != "IV" or abs(g - gammas(a)[2]) < 1e-3:
            continue
        n += 1
        G, I, F = ph["G"], ph["I"], ph["F"]
        r = abs(I / F)
        assert r > G[2, 2] / G[3, 2]
        for f, exists in ((1.3 * r, True), (0.7 * r, False)):
            out, found = solver_set(default, a, g, f)
            assert (("stick", "slide-") in found) == exists
            if not exists:
                continue
            s = found[("stick", "slide-")]
            xB = s.contact_velocities["B"][1]
            assert G[2, 2] - f * G[3, 2] < 0
            assert xB == pytest.approx((I - f * F) / (G[2, 2] - f * G[3, 2]), rel=1e-9)
            E2y, E2x = s.impulses["B"]
            assert s.impulses["D"][0] > 0 and E2y > 0
            assert s.contact_velocities["B"][0] == pytest.approx(0.0, abs=1e-12)
            assert E2x == pytest.approx(f * E2y, rel=1e-9) and E2x * xB < 0
            assert s.energy_after < out.energy_before
            assert set(found) == {("stick", "stick"), ("stick", "separate"),
                                  ("stick", "slide-")}


# ----------------------------------------------------------------- the map, the batch
def test_regions_map_below_gamma5(closed, default):
    from mechdae.contact._cli import SETS, region_sets
    n, f = 36, 3.0
    alpha, gamma, sets, lifts = region_sets(closed, tl.impact_state, f=f, n=n)
    _, _, sets0, _ = region_sets(default, tl.impact_state, f=f, n=n)
    A, Gm = np.meshgrid(alpha, gamma, indexing="ij")
    checked = 0
    for i, j in np.ndindex(n, n):
        a, g = A[i, j], Gm[i, j]
        g1, g2, g3, g4 = gammas(a)
        if min(abs(g - c) for c in (g1, g2, g3, g4)) < 0.02 or \
                min(abs(a - c) for c in (math.pi / 4, ALPHA_P)) < 0.02:
            continue
        ref = feet_solutions(a, g, f)
        label = " | ".join(o for o, m in (("stays", "stick"), ("leaves", "separate"),
                                          ("slides", "slide")) if any(
            bm.startswith(m) for _, bm in ref))
        assert SETS[sets[i, j]] == label, (a, g)
        assert lifts[i, j] == all(dm == "separate" for dm, _ in ref)
        below = g < gamma5(a)
        assert (SETS[sets0[i, j]] == "inconsistent") == below
        if below:
            assert lifts[i, j]
            checked += 1
    assert checked > 100
    present = {SETS[k] for k in np.unique(sets[A < ALPHA_P])}
    assert {"stays", "leaves", "stays | leaves | slides"} <= present


def test_batch_agrees_with_single_calls_with_closure(closed):
    rng = np.random.default_rng(6)
    a = rng.uniform(0.05, 1.5, 40)
    g = rng.uniform(-3.1, -0.05, 40)
    q, v = tl.impact_state(a, g)
    out = closed.impact_batch(q, v, params={"f": 0.7}, energy="report")
    for i in range(0, 40, 3):
        qi, vi = tl.impact_state(float(a[i]), float(g[i]))
        s = closed.impact(qi, vi, params={"f": 0.7})
        np.testing.assert_allclose(out.v_plus_array[i], s.v_plus_array, atol=1e-10)
        assert out.mode("D")[i] == s.modes["D"] and out.mode("B")[i] == s.modes["B"]
        assert out.energy_after[i] <= out.energy_before[i]


# ----------------------------------------------------------------- the option itself
def test_closure_contact_in_3d_keeps_tangent_velocity_and_complementarity():
    """A sphere dropped with spin on a plane: the closure contact stops the tangential
    velocity with e_t (v_t+ = -e_t v_t-) while the normal law stays Newton's."""
    m = md.Model("ball")
    b = m.rigid_body("b", mass=1.0, inertia=[0.4, 0.4, 0.4])
    r = 1.0
    vel = b.velocity([0.0, 0.0, -r])
    m.contact("C", gap=b.z - r, tangent_velocity=[vel[0], vel[1]], restitution=0.5,
              friction=math.inf, tangential_restitution=0.2, friction_cone="closure")
    sys_ = m.compile()
    out = sys_.impact({"b.z": r}, {"b.vz": -2.0, "b.vx": 1.0, "b.wy": 3.0, "b.vy": -0.5},
                      all_solutions=True)
    assert out.status == "unique"
    vn, vt1, vt2 = out.contact_velocities["C"]
    vm = np.array([1.0 - 3.0 * r, -0.5])        # v_t- = v + w x (0, 0, -r)
    assert vn == pytest.approx(1.0, rel=1e-12)
    np.testing.assert_allclose([vt1, vt2], -0.2 * vm, atol=1e-12)
    assert out.energy_after < out.energy_before
    # separating contact: P_n = 0, the tangent still stopped (the closure, not Coulomb)
    out = sys_.impact({"b.z": r}, {"b.vz": 1.0, "b.vx": 1.0}, active=["C"])
    assert out.modes["C"] == "separate" and out.impulses["C"][0] == 0.0
    assert out.contact_velocities["C"][1] == pytest.approx(-0.2, abs=1e-12)


def test_closure_option_is_checked_and_impact_only(closed):
    m = md.Model("bad")
    x, y = m.coordinates("x y")
    m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2))
    m.contact("A", gap=y, tangent=x, friction=0.5, friction_cone="closure")
    m.contact("B", gap=y, tangent=x, friction=math.inf, friction_cone="closed")
    with pytest.raises(ModelError) as err:
        m.compile()
    assert "set friction=math.inf" in str(err.value) and "'closed'" in str(err.value)
    with pytest.raises(ValueError, match="friction_cone='closure'"):
        closed.simulate(0.1)
    q, v = tl.impact_state(0.5, -1.0)
    with pytest.raises(ValueError, match="friction_cone='closure'"):
        closed.contact_forces(q, v)
