"""Unit tests of the event engine's pieces that need no System: event location
(first sign change, Hermite root, Newton on re-integrated states) and the accumulation
rule (measured ratio, extrapolated t_inf, zeno= options)."""
import math

import numpy as np
import pytest

from mechdae.simulate.event.accumulation import extrapolate, measured_ratio, zeno_options
from mechdae.simulate.event.location import first_crossing, hermite_root, locate


def test_first_crossing_finds_the_first_column_and_arms_a_function_starting_at_zero():
    tol = np.array([1e-8, 1e-8])
    # function 0 starts at 0 (just past an impact), dips by 1e-9 (below tol: ignored),
    # turns positive, then crosses at column 3; function 1 crosses at column 4
    E = np.array([[-1e-9, 0.5, 0.2, -0.1, -0.3],
                  [0.9, 0.7, 0.5, 0.1, -0.2]])
    j, fired, off = first_crossing(np.array([0.0, 1.0]), E, tol)
    assert j == 3 and fired == [0]
    assert np.all(off == 0.0)                 # armed by column 1: the bracket is unshifted
    j, fired, _ = first_crossing(np.array([1.0, 1.0]), np.abs(E), tol)
    assert j is None and fired == []


def test_hermite_root_of_a_cubic_is_exact():
    # e(s) = (1 - s)(1 + s + s^2) = 1 - s^3 on [0, 2]: root 1; e' = -3 s^2
    T = 2.0
    s = hermite_root(1.0, 0.0, 1.0 - T ** 3, -3 * T ** 2, T, 1e-12)
    assert s == pytest.approx(1.0, abs=1e-12)


def test_locate_newton_on_shots_lands_just_past_the_root():
    """Free fall of a ball from 1 m: gap e(t) = 1 - g t^2 / 2; the located time lies past
    the root sqrt(2/g) by at most the tolerance, with two shots."""
    g, tol = 9.81, 1e-12
    shots = []

    def shoot(t):
        shots.append(t)
        x = np.array([1 - 0.5 * g * t ** 2, -g * t])
        return x, np.array([x[0]]), np.array([x[1]])

    ta, tb = 0.4, 0.5
    xa, ea, eda = shoot(ta)
    xb, eb, edb = shoot(tb)
    shots.clear()
    t_e, x_e, e_e, which = locate(shoot, ta, xa, ea, tb, xb, eb, [0], eda, edb,
                                  np.zeros(1), tol)
    root = math.sqrt(2 / g)
    assert 0 <= t_e - root <= tol and e_e[0] <= 0 and which == [0]
    assert len(shots) <= 2


def test_measured_ratio_and_extrapolated_accumulation():
    e, t = 0.7, [0.0]
    for k in range(6):
        t.append(t[-1] + e ** k)
    assert measured_ratio(t, 4, 1e-9) == pytest.approx(e, rel=1e-12)
    # t_inf = sum of the geometric series
    assert extrapolate(t, e) == pytest.approx(1 / (1 - e), rel=1e-12)
    assert measured_ratio(t[:3], 2, 1e-9) is None                 # too few impacts
    assert measured_ratio([0.0, 1.0, 1.5, 2.5], 1, 0.05) is None   # ratio 2: no accumulation


def test_zeno_options():
    assert zeno_options(False) is None
    assert zeno_options(True)["early"] is False
    assert zeno_options("early")["early"] is True
    assert zeno_options({"early": True, "min_impacts": 3})["min_impacts"] == 3
    with pytest.raises(ValueError, match="unknown key"):
        zeno_options({"ratio": 0.1})
