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


def test_event_uses_its_tighter_defaults(ball):
    res = ball.simulate(1.5, q0={"y": 1.1}, params={"e": 0.5}, method="event")
    assert (res.stats["rtol"], res.stats["atol"]) == (1e-10, 1e-12)
    assert _impact_time_error(res) < 5e-8             # measured 5e-9
    loose = ball.simulate(1.5, q0={"y": 1.1}, params={"e": 0.5}, method="event",
                          rtol=1e-8, atol=1e-10)
    assert loose.stats["rtol"] == 1e-8
    assert _impact_time_error(loose) > 5e-8           # measured 5e-7


def test_smooth_defaults_unchanged_auto_follows_event(ball):
    pend = md.load(str(REPO / "models/pendulum.py")).compile()
    for method in ("auto", "smooth"):      # no contacts: "auto" is the smooth driver
        res = pend.simulate(1.0, q0={"x": 1.0, "y": 0.0}, method=method)
        assert (res.stats["rtol"], res.stats["atol"]) == (1e-8, 1e-10)
    # contacts: "auto" runs the event driver with its tolerances. (A free fall over one
    # window is solved exactly by cvodes' Adams method whatever the tolerance, since the
    # windows no longer shrink with t_final: compare the impact times of the bounces.)
    res = ball.simulate(1.5, q0={"y": 1.1}, params={"e": 0.5})
    assert res.stats["method"] == "auto"
    assert (res.stats["rtol"], res.stats["atol"]) == (1e-10, 1e-12)
    err = _impact_time_error(res)
    assert err < 5e-9                                  # measured 5e-10
    loose = ball.simulate(1.5, q0={"y": 1.1}, params={"e": 0.5}, rtol=1e-8, atol=1e-10)
    err_loose = _impact_time_error(loose)
    assert err_loose < 5e-6                            # measured 5e-8
    assert err_loose > 10 * err
