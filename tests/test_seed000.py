"""Seed 000 (Rubanovich & Formalsky): impact of a free two-link mechanism.

Checks the solver (System.impact, contact_problem, impact_batch) against the paper:
G(alpha) of eq. (1.2), the boundary curves gamma_1..gamma_4 of sec. 2, the regions I-IV
of fig. 5 with the sliding velocity (3.3), and the ambiguity of region IV.

Sign convention (checked here): I = g31 x1- + g32 y1-, F = g41 x1- + g42 y1- with
(x1-, y1-) the pre-impact velocity of D and g_ij the entries of G (1-based, feet order
x_D, y_D, x_B, y_B); B sliding forward (x_B+ > 0) has x_B+ = (I + f F)/(g33 + f g43),
backward x_B+ = (I - f F)/(g33 - f g43).
"""
import math
import os
import sys

import numpy as np
import pytest
from scipy.optimize import brentq

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
import two_link_impact as tl  # noqa: E402


@pytest.fixture(scope="module")
def sys_():
    return tl.build().compile()


# ----------------------------------------------------------------- paper formulas
def G_paper(a):
    """Eq. (1.2) with m = 1."""
    c2, s2 = math.cos(a) ** 2, math.sin(a) ** 2
    S, Ct = 1 / math.sin(2 * a), 1 / math.tan(2 * a)
    return 0.5 * np.array([
        [(3 * c2 + 1) / (3 * c2), -S, (3 * c2 - 1) / (3 * c2), Ct],
        [-S, (3 * s2 + 1) / (3 * s2), -Ct, (3 * s2 - 1) / (3 * s2)],
        [(3 * c2 - 1) / (3 * c2), -Ct, (3 * c2 + 1) / (3 * c2), S],
        [Ct, (3 * s2 - 1) / (3 * s2), S, (3 * s2 + 1) / (3 * s2)]])


def _branch(k):
    return -math.pi + math.atan(k) if k >= 0 else math.atan(k)


def gammas(a):
    """Closed-form boundary curves gamma_1..gamma_4 (sec. 2)."""
    s, c2 = math.sin(a), math.cos(2 * a)
    g1 = _branch(6 * math.sin(2 * a) * (1 - 3 * s * s) / (9 * c2 ** 2 + 3 * c2 - 5))
    g2 = -math.pi + math.atan(15 * math.sin(2 * a) / (25 + 12 * c2 - 9 * c2 ** 2))
    g3 = _branch(3 * math.tan(a) * c2 / (2 * (1 - 3 * s * s)))
    g4 = -math.pi + math.atan(3 * math.tan(a) / (2 * (1 + 3 * s * s)))
    return g1, g2, g3, g4


def paper_hypotheses(a, g):
    """Foot-coordinate impact of the paper: 'leaves' and 'stays' quantities, I and F."""
    G = G_paper(a)
    z1 = np.array([math.cos(g), math.sin(g)])
    # B leaves: E_2 = 0, z_D+ = 0
    z2 = np.linalg.solve(G[2:, 2:], G[2:, :2] @ z1)
    E1_leave = -G[:2, :2] @ z1 + G[:2, 2:] @ z2
    # B stays (stick): z+ = 0
    E = -G[:, :2] @ z1
    I = G[2, 0] * z1[0] + G[2, 1] * z1[1]
    F = G[3, 0] * z1[0] + G[3, 1] * z1[1]
    L = z2[1] >= 0 and E1_leave[1] >= 0
    S = E[3] >= 0 and E[1] >= 0
    region = {(True, False): "I", (False, False): "II", (False, True): "III",
              (True, True): "IV"}[(L, S)]
    g1, g2, g3, g4 = gammas(a)
    g5 = g4 if a < math.asin(math.sqrt(2.0 / 3.0)) else g2
    if g < g5:
        region = "0"          # below gamma_5: E_1y < 0 under (2.2); sec. 5 uses (5.2)
    return dict(G=G, I=I, F=F, yB_leave=z2[1], E1y_leave=E1_leave[1], E2y_stay=E[3],
                E1y_stay=E[1], region=region)


# ----------------------------------------------------------------- helpers on the solver
def _rows(prob):
    return {f"{c}.{k}": r[j] for c, r in zip(prob.contacts, prob.rows)
            for j, k in enumerate(("n", "t"))}


def test_mass_matrix_in_foot_coordinates_is_eq_1_2(sys_):
    for a in (0.2, 0.6, 1.1, 1.4):
        q, v = tl.impact_state(a, -1.0)
        prob = sys_.contact_problem(q, v)
        J = prob.W[[1, 0, 3, 2]]           # rows x_D, y_D, x_B, y_B
        Ji = np.linalg.inv(J)
        np.testing.assert_allclose(Ji.T @ prob.M @ Ji, G_paper(a), atol=1e-12)
        # pre-impact: B at rest, D at angle gamma
        np.testing.assert_allclose(prob.v_minus, [math.sin(-1.0), math.cos(-1.0), 0, 0],
                                   atol=1e-14)


def _leave_quantities(sys_, a, g):
    """'B leaves' hypothesis from the solver: D alone active (sticks, mu = inf)."""
    q, v = tl.impact_state(a, g)
    out = sys_.impact(q, v, active=["D"])
    prob = sys_.contact_problem(q, v)       # both contacts: to read B's velocity
    r = _rows(prob)
    if out.status == "inconsistent":
        return None, prob
    return prob.W[r["B.n"] // 2 * 2 + 0] @ out.v_plus_array if False else \
        (sys_.contact_problem(q, out.v_plus_array).v_minus[r["B.n"]], out), prob


@pytest.mark.parametrize("alpha", [0.15, 0.4, 0.62, 0.8, 1.0, 1.25, 1.45])
def test_boundary_curves_match_solver_sign_changes(sys_, alpha):
    g1, g2, g3, g4 = gammas(alpha)
    lo, hi = -math.pi + 1e-4, -1e-4
    grid = np.linspace(lo, hi, 241)

    def yB_after_leave(g):        # gamma_1: y_B+ = 0 when B leaves (solver's D-only impact)
        q, v = tl.impact_state(alpha, g)
        prob = sys_.contact_problem(q, v, active=["D"])
        P = -np.linalg.solve(prob.D, prob.v_minus)    # stick of D
        up = prob.u + prob.delta_u(P)
        return sys_.contact_problem(q, up, active=["B"]).v_minus[0]

    def leave_consistent(g):     # gamma_2: E_1y = 0 -> D-only impact becomes inconsistent
        q, v = tl.impact_state(alpha, g)
        out = sys_.impact(q, v, active=["D"], all_solutions=True)
        return 1.0 if out.status == "unique" else -1.0

    def stay_impulse(g, which):  # gamma_3 / gamma_4: both stick
        q, v = tl.impact_state(alpha, g)
        prob = sys_.contact_problem(q, v)
        P = -np.linalg.solve(prob.D, prob.v_minus)
        return P[2] if which == "B" else P[0]

    found = {}
    for name, fun, ref in (("g1", yB_after_leave, g1), ("g2", leave_consistent, g2),
                           ("g3", lambda g: stay_impulse(g, "B"), g3),
                           ("g4", lambda g: stay_impulse(g, "D"), g4)):
        vals = np.array([fun(g) for g in grid])
        idx = np.flatnonzero(np.sign(vals[:-1]) != np.sign(vals[1:]))
        roots = [brentq(fun, grid[i], grid[i + 1], xtol=1e-13, rtol=1e-15) for i in idx]
        found[name] = roots
        assert len(roots) == 1, (name, roots)
        assert abs(roots[0] - ref) < 1e-8, (name, roots[0], ref)
    # the D-only solver solution, where consistent, has the sign of y_B+ of the paper
    for g in grid[::20]:
        if leave_consistent(g) > 0:
            ph = paper_hypotheses(alpha, g)
            assert np.sign(yB_after_leave(g)) == np.sign(ph["yB_leave"])


def _classify_solver(sys_, a, g, f):
    q, v = tl.impact_state(a, g)
    out = sys_.impact(q, v, all_solutions=True, params={"f": f})
    return out, {s.modes["B"] for s in out.solutions}


ALPHAS = np.linspace(0.07, math.pi / 2 - 0.07, 13)
GAMMAS = np.linspace(-math.pi + 0.06, -0.06, 17)


def _near_boundary(a, g, eps=2e-3):
    ph = paper_hypotheses(a, g)
    return (any(abs(g - c) < eps for c in gammas(a))
            or abs(ph["I"]) < 1e-8)        # I = 0: sliding velocity 0 whatever f


def test_regions_I_to_IV_match_fig5(sys_):
    seen = set()
    for a in ALPHAS:
        for g in GAMMAS:
            if _near_boundary(a, g):
                continue
            ph = paper_hypotheses(a, g)
            reg = ph["region"]
            seen.add(reg)
            r = abs(ph["I"] / ph["F"])
            big, small = 2.0 * r + 0.1, 0.5 * r
            out_b, modes_b = _classify_solver(sys_, a, g, big)
            out_s, modes_s = _classify_solver(sys_, a, g, small)
            if reg == "0":      # default law (D: mu = inf, Coulomb cone): no consistent
                # impact below gamma_5. Sec. 5 treats this zone with the modified law (5.2),
                # friction_cone="closure": tests/test_seed000_zone5.py
                assert out_b.status == out_s.status == "inconsistent"
                continue
            if reg == "IV":
                # besides "stays" and "leaves", B sliding backwards with the second
                # branch of (3.3) is consistent too when f >= |I/F| > g33/g43
                assert modes_b - {"slide"} == {"stick", "separate"}
                modes_b = modes_b - {"slide"}
            assert all(s.modes["D"] == "stick" for s in out_b.solutions + out_s.solutions)
            expect = {"I": ({"separate"}, {"separate"}), "II": ({"slide"}, {"slide"}),
                      "III": ({"stick"}, {"slide"}),
                      "IV": ({"stick", "separate"}, {"separate"})}[reg]
            assert (modes_b, modes_s) == expect, (a, g, reg, modes_b, modes_s)
            assert out_b.ambiguous == (reg == "IV")
            assert not out_s.ambiguous
            # sliding velocity (3.3)
            for out, f in ((out_b, big), (out_s, small)):
                for s in out.solutions:
                    if s.modes["B"] != "slide":
                        continue
                    G = ph["G"]
                    xB = s.contact_velocities["B"][1]
                    if xB > 0:
                        ref = (ph["I"] + f * ph["F"]) / (G[2, 2] + f * G[3, 2])
                    else:
                        ref = (ph["I"] - f * ph["F"]) / (G[2, 2] - f * G[3, 2])
                    assert xB == pytest.approx(ref, rel=1e-9, abs=1e-12)
                    assert abs(s.contact_velocities["B"][0]) < 1e-12   # stays on the ground
    assert seen == {"0", "I", "II", "III", "IV"}


def test_region_IV_reports_both_solutions_with_impulses(sys_):
    # find a region IV point and check both solutions satisfy (2.7)
    for a in ALPHAS:
        for g in GAMMAS:
            if _near_boundary(a, g) or paper_hypotheses(a, g)["region"] != "IV":
                continue
            ph = paper_hypotheses(a, g)
            f = 2 * abs(ph["I"] / ph["F"]) + 0.1
            out, modes = _classify_solver(sys_, a, g, f)
            assert out.status == "ambiguous" and len(out.solutions) >= 2
            for s in out.solutions:
                assert s.impulses["D"][0] >= 0 and s.impulses["B"][0] >= -1e-12
                assert s.contact_velocities["B"][0] >= -1e-12
                assert s.energy_after <= out.energy_before + 1e-12
            stay = [s for s in out.solutions if s.modes["B"] == "stick"][0]
            # E_2 = (-I, -F) for the stay solution
            assert stay.impulses["B"][0] == pytest.approx(-ph["F"], rel=1e-9)
            assert stay.impulses["B"][1] == pytest.approx(-ph["I"], rel=1e-9)
            return
    pytest.fail("no region IV point on the grid")


def test_batch_path_agrees_with_single_calls(sys_):
    A, Gm = np.meshgrid(ALPHAS, GAMMAS, indexing="ij")
    qs, vs = [], []
    for a, g in zip(A.ravel(), Gm.ravel()):
        q, v = tl.impact_state(a, g)
        qs.append([q[n] for n in sys_.q_names])
        vs.append([v[sys_.speed_of[n]] if n in sys_.speed_of else v[n] for n in sys_.u_names])
    qs, vs = np.array(qs), np.array(vs)
    out = sys_.impact_batch(qs, vs, params={"f": 0.3})
    for i in range(0, len(qs), 7):
        s = sys_.impact(qs[i], vs[i], params={"f": 0.3})
        if s.status == "inconsistent":
            assert out.status[i] == "inconsistent"
            continue
        np.testing.assert_allclose(out.v_plus_array[i], s.v_plus_array, atol=1e-10)
        assert out.mode("B")[i] == s.modes["B"]
        assert out.status[i] == s.status


def test_region_map_vectorized_states_match_pointwise(sys_):
    from mechdae.contact._cli import CLASSES, region_map
    a1, g1, vec = region_map(sys_, tl.impact_state, f=0.5, n=24)
    a2, g2, pts = region_map(sys_, lambda a, g: tl.impact_state(float(a), float(g)), f=0.5,
                             n=24)
    np.testing.assert_array_equal(vec, pts)
    # the map shows the outcomes of fig. 5 (f = 0.5 < |I/F| somewhere: no region IV needed)
    assert {CLASSES[i] for i in np.unique(vec)} >= {"inconsistent", "leaves", "slides", "stays"}
