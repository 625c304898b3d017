"""Consistent initialization keeps a state that already satisfies the constraints (issue 14).

A pendulum started with only ``q0={"x": L}`` (``y`` left at its default 0) is already on
the circle: the minimal-norm correction must be zero. It used to move y to -2.44e-7 (a
singular partial Jacobian, 2 y = 0, made the solver step off and come back along a double
root), an error of 1.2e-7 at t = 1 whatever the tolerance.
"""
import math
import os

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import mechdae as md

MODELS = os.path.join(os.path.dirname(__file__), "..", "models")


@pytest.fixture(scope="module")
def pendulum():
    return md.load(os.path.join(MODELS, "pendulum.py")).compile(
        stabilization=md.Baumgarte(alpha=10.0, beta=10.0))


def test_given_x_alone_leaves_y_exactly_at_its_consistent_default(pendulum):
    res = pendulum.simulate(1.0, q0={"x": 1.0}, rtol=1e-10, atol=1e-12,
                            output_times=np.linspace(0, 1, 11))
    assert res["y"][0] == 0.0 and res["x"][0] == 1.0
    # released from rest at theta = pi/2: theta'' = -g/L sin(theta), x = sin, y = -cos
    ref = solve_ivp(lambda t, s: [s[1], -9.81 * math.sin(s[0])], (0, 1), [math.pi / 2, 0.0],
                    rtol=1e-13, atol=1e-13, t_eval=res.t)
    err = np.hypot(res["x"] - np.sin(ref.y[0]), res["y"] + np.cos(ref.y[0]))
    assert err.max() < 1e-8


def test_inconsistent_start_is_still_projected(pendulum):
    with pytest.warns(UserWarning, match="changed given values"):
        res = pendulum.simulate(0.1, q0={"x": 1.2, "y": 0.0})
    assert res["x"][0] ** 2 + res["y"][0] ** 2 == pytest.approx(1.0, abs=1e-12)
    # y alone given off the circle: x (free) moves, y (given) is kept
    res = pendulum.simulate(0.1, q0={"y": -0.6})
    assert res["y"][0] == pytest.approx(-0.6, abs=1e-12)
    assert abs(res["x"][0]) == pytest.approx(0.8, abs=1e-10)
