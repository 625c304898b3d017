"""Seed 000 walking one step: the two-link mechanism pivots on foot B, swings leg OD
forward and down, strikes the ground with D, and the next phase starts with the contact
mode the impact solver found (method="event").

The swing-phase initial state is built by time reversal: from a strike state with given
``(alpha, gamma)`` (both feet on the ground, B at rest, D moving with unit speed at angle
``gamma``) the motion pinned at B is integrated backwards for ``T_SWING`` (speeds reversed,
then reversed again). The pinned motion is conservative and reversible, so the forward run
strikes at ``t = T_SWING`` with exactly that ``(alpha, gamma)``, which the closed-form
curves gamma_1..gamma_4 of the paper (tests/test_seed000.py) place in region I (B leaves)
or II (B slides).
"""
import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
import two_link_impact as tl  # noqa: E402
from test_seed000 import gammas, paper_hypotheses  # noqa: E402

T_SWING = 0.04


@pytest.fixture(scope="module")
def sys_():
    return tl.build().compile()


def strike_state(alpha, gamma, speed=1.0, l=1.0):
    """``(q, u)`` arrays (xO, yO, th1, th2): both feet down, B at rest, D at ``gamma``."""
    ca_, sa = math.cos(alpha), math.sin(alpha)
    s_ = speed * math.cos(gamma) / (l * ca_)
    t_ = speed * math.sin(gamma) / (l * sa)
    w1, w2 = 0.5 * (s_ + t_), 0.5 * (t_ - s_)
    return (np.array([0.0, l * ca_, alpha, -alpha]),
            np.array([-l * ca_ * w2, l * sa * w2, w1, w2]))


def foot_velocity(q, u, l=1.0):
    """``(x_D', y_D')`` and ``(x_B', y_B')`` from the generalized speeds."""
    _, _, th1, th2 = q
    a, b, w1, w2 = u
    return (np.array([a + l * math.cos(th1) * w1, b + l * math.sin(th1) * w1]),
            np.array([a + l * math.cos(th2) * w2, b + l * math.sin(th2) * w2]))


def walk_one_step(sys_, alpha, gamma, f, t_final=0.1):
    q, u = strike_state(alpha, gamma)
    back = sys_.simulate(T_SWING, q0=q, v0=-u, params={"f": f}, method="event")
    assert set(back.modes) == {"ok"}          # D open, B sticking all along the swing
    q0, v0 = back.q[-1], -back.v[-1]
    assert q0[1] - math.cos(q0[2]) > 0.01      # D in the air ...
    vD, vB = foot_velocity(q0, v0)
    assert vD[0] > 0 and vD[1] < 0             # ... moving forward and down
    assert np.linalg.norm(vB) < 1e-8           # B is a pivot
    return sys_.simulate(t_final, q0=q0, v0=v0, params={"f": f}, method="event")


def _strike(res):
    imp = [e for e in res.events if e.kind == "impact"]
    assert imp and imp[0].contact == "D"
    t = imp[0].t
    i = np.flatnonzero(res.t == t)
    assert i.size == 2                        # state before and after the event
    return imp, t, i[0], i[1]


def test_walking_step_region_I_back_foot_leaves(sys_):
    alpha, gamma, f = 0.3, -0.6, 1.0
    ph = paper_hypotheses(alpha, gamma)
    assert ph["region"] == "I" and gamma > gammas(alpha)[0]
    res = walk_one_step(sys_, alpha, gamma, f)
    imp, t, i0, i1 = _strike(res)
    assert t == pytest.approx(T_SWING, abs=1e-7)
    assert res.modes[i0] == "ok"                 # swing: D open, B sticking
    # strike configuration and D velocity angle: the region predicted by the paper
    q, u = res.q[i0], res.v[i0]
    assert q[2] == pytest.approx(alpha, abs=1e-7) and q[3] == pytest.approx(-alpha, abs=1e-7)
    vD, _ = foot_velocity(q, u)
    g_strike = math.atan2(vD[1], vD[0])
    assert g_strike == pytest.approx(gamma, abs=1e-6)
    assert np.linalg.norm(vD) == pytest.approx(1.0, abs=1e-6)
    assert paper_hypotheses(q[2], g_strike)["region"] == "I"
    # the impact solver on the pre-impact state, and what the driver did
    out = sys_.impact(q, u, params={"f": f}, all_solutions=True)
    assert out.status == "unique"
    assert out.modes == {"D": "stick", "B": "separate"}
    assert imp[0].extra["modes"] == out.modes
    np.testing.assert_allclose(res.v[i1], out.v_plus_array, atol=1e-10)
    # next step: D is the stance foot (sticking), B swings off the ground
    assert res.modes[i1] == "ko" and res.modes[-1] == "ko"
    kinds = {(e.contact, e.kind) for e in res.events if e.t == t}
    assert ("B", "liftoff") in kinds and ("D", "stick") in kinds
    yB = res["yO"] - np.cos(res["th2"])
    yD = res["yO"] - np.cos(res["th1"])
    after = res.t > t + 1e-3
    assert np.all(yB[after] > 0) and np.max(np.abs(yD[after])) < 1e-6
    # plastic strike: energy lost, D at rest after it
    assert imp[0].energy_after < imp[0].energy_before
    vD1, vB1 = foot_velocity(res.q[i1], res.v[i1])
    assert np.linalg.norm(vD1) < 1e-10 and vB1[1] > 0


def test_walking_step_region_II_back_foot_slides(sys_):
    alpha, gamma, f = 0.5, -1.4, 1.0
    ph = paper_hypotheses(alpha, gamma)
    assert ph["region"] == "II"
    res = walk_one_step(sys_, alpha, gamma, f)
    imp, t, i0, i1 = _strike(res)
    assert t == pytest.approx(T_SWING, abs=1e-7)
    q, u = res.q[i0], res.v[i0]
    vD, _ = foot_velocity(q, u)
    assert paper_hypotheses(q[2], math.atan2(vD[1], vD[0]))["region"] == "II"
    out = sys_.impact(q, u, params={"f": f}, all_solutions=True)
    assert out.modes == {"D": "stick", "B": "slide"}
    assert imp[0].extra["modes"] == out.modes
    # B slides forward with the sliding velocity (3.3): x_B+ = (I + f F) / (g33 + f g43)
    G = ph["G"]
    _, vB1 = foot_velocity(res.q[i1], res.v[i1])
    xB_paper = (ph["I"] + f * ph["F"]) / (G[2, 2] + f * G[3, 2])
    assert vB1[0] == pytest.approx(xB_paper, rel=1e-6)
    assert abs(vB1[1]) < 1e-9
    assert res.modes[i1] == "k+"                  # D sticks, B slides forward ...
    stick = [e for e in res.events if e.contact == "B" and e.kind == "stick"]
    assert stick and stick[0].t > t               # ... until friction stops it
    assert res.modes[-1] == "kk"
