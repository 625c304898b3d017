"""``System.simulate(rtol=None, atol=None)``: each method applies its own tolerances."""
import math

import numpy as np
import pytest

import mechdae as md

REPO = __import__("pathlib").Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def ball():
    return md.load(str(REPO / "models/bouncing_ball.py")).compile(stabilization=None)


def _impact_time_error(res, e=0.5, n=6):
    # t_k = t_1 + sum_{j<k} 2 e^j v_1 / g, t_1 = sqrt(2 h0 / g), h0 = 1 m
    ti = np.array([ev.t for ev in res.events if ev.kind == "impact"][:n])
    t1 = math.sqrt(2 / 9.81)
    exact = t1 + np.concatenate([[0.0], np.cumsum(2 * 9.81 * t1 * e ** np.arange(1, n) / 9.81)])
    return np.max(np.abs(ti - exact))


@pytest.fixture(scope="module")
def oscillator():
    return md.load(str(REPO / "models/mass_spring_stop.py")).compile(stabilization=None)


def _oscillator_impact_error(res, A=1.0, d=0.5, e=0.8, om=2.0, n=4):
    # models/mass_spring_stop.py: t_1 = arccos(-d/A)/om, then flights of
    # 2/om (pi - atan2(e v_k / om, d)) with v_{k+1} = e v_k (its docstring)
    ti = np.array([ev.t for ev in res.events if ev.kind == "impact"][:n])
    t, v = [math.acos(-d / A) / om], om * math.sqrt(A * A - d * d)
    for _ in range(1, n):
        t.append(t[-1] + 2 / om * (math.pi - math.atan2(e * v / om, d)))
        v *= e
    return np.max(np.abs(ti - np.array(t)))


def test_event_uses_its_tighter_defaults(ball, oscillator):
    res = ball.simulate(1.5, q0={"y": 1.1}, params={"e": 0.5}, method="event")
    assert (res.stats["rtol"], res.stats["atol"]) == (1e-10, 1e-12)
    # free flights are integrated as excursions from the window's start: exact whatever
    # the tolerance, so the ball's impact times are exact at any rtol
    assert _impact_time_error(res) < 5e-12            # measured 3e-13
    # harmonic flights are not: the impact times follow the tolerance
    tight = oscillator.simulate(10.0, q0={"mass.s": -1.0}, method="event")
    loose = oscillator.simulate(10.0, q0={"mass.s": -1.0}, method="event",
                                rtol=1e-6, atol=1e-8)
    assert loose.stats["rtol"] == 1e-6
    assert _oscillator_impact_error(tight) < 5e-9       # measured 6e-10
    assert _oscillator_impact_error(loose) > 100 * _oscillator_impact_error(tight)


def test_smooth_defaults_unchanged_auto_follows_event(ball, oscillator):
    pend = md.load(str(REPO / "models/pendulum.py")).compile()
    for method in ("auto", "smooth"):      # no contacts: "auto" is the smooth driver
        res = pend.simulate(1.0, q0={"x": 1.0, "y": 0.0}, method=method)
        assert (res.stats["rtol"], res.stats["atol"]) == (1e-8, 1e-10)
    # contacts: "auto" runs the event driver with its tolerances
    res = ball.simulate(1.5, q0={"y": 1.1}, params={"e": 0.5})
    assert res.stats["method"] == "auto"
    assert (res.stats["rtol"], res.stats["atol"]) == (1e-10, 1e-12)
    res = oscillator.simulate(10.0, q0={"mass.s": -1.0})
    err = _oscillator_impact_error(res)
    assert err < 5e-9                                  # measured 6e-10
    loose = oscillator.simulate(10.0, q0={"mass.s": -1.0}, rtol=1e-8, atol=1e-10)
    err_loose = _oscillator_impact_error(loose)
    assert err_loose < 5e-8                            # measured 9e-9
    assert err_loose > 5 * err
