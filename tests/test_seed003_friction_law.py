"""Seed 003 (Ivanov 1993), section 3: the general impact law (3.9) with the change of
variables (3.10) and the equations (3.11) in method "unified" (``impact_map=``).

A point mass on a rough floor (m = 1, gap y, tangent x) with a restitution that depends on
the position and a smooth tangential law, both differentiable as (3.10) asks:

    kappa*(x) = 0.5 + 0.2 sin x,      r(u) = -0.3 tanh(u_x / 2)

(``r``: tangential impulse per unit normal impulse, a function of the continuous speed).
Then b = (r, 1), H_x = -(1 + kappa*) r, P_x = -H_x / (1 + kappa*) = r, and

    (3.9)  y'+ = -kappa* y'-,  x'+ = x'- + y'- H_x(x, pi_x);
    (3.10) x' = pi_x + y' P_x(pi_x)  (pi_x continuous through impacts);
    (3.11) flight: pi_x'' = -F P_x - P_x' gdot, i.e. pi_x'' (1 + r'(pi_x) y') = g r;
           v' = (F sign s - W*' v) / W* — the paper prints "+ W*' v"; differentiating
           gdot = W* v sign s gives the minus sign (W* varies with kappa*(x) here);
           support (s = 0): pi_x'' = -r F / U = g r (Ivanov: mu F U^-1 cos beta).

Flights are exact parabolas, so the impacts follow a recursion: the test compares the
unified run with it.
"""
import math

import numpy as np
import pytest
from scipy.optimize import brentq

import mechdae as md

G = 9.81


def r_num(w):
    return -0.3 * math.tanh(w / 2.0)


def kappa_num(x):
    return 0.5 + 0.2 * math.sin(x)


@pytest.fixture(scope="module")
def point():
    m = md.Model("rough_point")
    x, y = m.coordinates("x y")
    m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2))
    m.potential_energy(G * y)
    m.contact("floor", gap=y, tangent=x, restitution=0.8, friction=0.0)
    law = {"restitution": 0.5 + 0.2 * md.sin(x), "tangential": -0.3 * md.tanh(md.der(x) / 2)}
    return m.compile(stabilization=None), law


@pytest.fixture(scope="module")
def run(point):
    sys_, law = point
    return sys_.simulate(4.0, q0={"y": 1.0}, v0={"x": 2.0}, method="unified", dt=1e-3,
                         impact_map=law)


def recursion(n):
    """Impacts (t, x, x'-, y'-, pi_x, x'+, y'+) from exact parabolas and (3.9)-(3.10)."""
    t, X, xd, v = math.sqrt(2 / G), 2.0 * math.sqrt(2 / G), 2.0, math.sqrt(2 * G)
    out = []
    for _ in range(n):
        ym = -v
        pi = brentq(lambda w: w - (xd - r_num(w) * ym), -10, 10)     # (3.10) before
        yp = kappa_num(X) * v                                         # (3.9)
        xp = pi + r_num(pi) * yp                                      # (3.10) after
        out.append((t, X, xd, ym, pi, xp, yp))
        dt = 2 * yp / G
        X, xd, t, v = X + xp * dt, xp, t + dt, yp
    return out


def test_impacts_follow_the_general_law_3_9_3_10(run):
    imp = [e for e in run.events if e.kind == "impact"]
    ref = recursion(5)
    assert len(imp) >= 5
    for e, (t, X, xd, ym, pi, xp, yp) in zip(imp, ref):
        assert e.t == pytest.approx(t, abs=1e-10)              # measured 1e-13
        k = int(np.flatnonzero(run.t == e.t)[-1])       # the state on the surface
        # pre-impact speeds: the last step before, carried by the free flight
        vm = run.v[k - 1] + np.array([0.0, -G * (e.t - run.t[k - 1])])
        assert run["x"][k] == pytest.approx(X, abs=1e-8)
        assert vm == pytest.approx([xd, ym], abs=1e-8)
        assert run.v[k] == pytest.approx([xp, yp], abs=1e-8)
        # (3.9): x'+ = x'- + y'- H_x with H_x = -(1 + kappa*) r(pi_x)
        H = -(1 + kappa_num(X)) * r_num(pi)
        assert run.v[k, 0] == pytest.approx(vm[0] + vm[1] * H, abs=1e-8)
        assert e.extra["gdot_after"] == pytest.approx(-kappa_num(X) * e.extra["gdot_before"],
                                                      rel=1e-10)
        # (3.10): pi_x = x' - y' P_x is the continuous variable, the same on both sides
        assert run.ut[k - 1, 0] + (e.t - run.t[k - 1]) * G * r_num(pi) / (
            1 - 0.15 / math.cosh(pi / 2) ** 2 * ym) == pytest.approx(pi, abs=1e-6)
        assert run.ut[k, 0] == pytest.approx(pi, abs=1e-8)


def test_flight_equation_3_11(run):
    """pi_x'' (1 + r' y') = g r along a flight (central differences of the RK4 steps)."""
    imp = [e.t for e in run.events if e.kind == "impact"]
    t, ut, yd = run.t, run.ut[:, 0], run.v[:, 1]
    sel = np.flatnonzero((t > imp[1] + 0.01) & (t < imp[2] - 0.01))[::50]
    for j in sel:
        h = t[j + 1] - t[j]
        assert t[j] - t[j - 1] == pytest.approx(h, rel=1e-9)
        d = (ut[j + 1] - ut[j - 1]) / (2 * h)
        w = ut[j]
        dr = -0.3 / 2 / math.cosh(w / 2) ** 2
        assert d == pytest.approx(G * r_num(w) / (1 + dr * yd[j]), rel=1e-5)
    # the physical flight is free: x' constant, y'' = -g (W*' term of (3.11) with its sign)
    fl = (t > imp[1] + 1e-9) & (t < imp[2] - 1e-9)
    assert np.ptp(run.v[fl, 0]) < 1e-9
    np.testing.assert_allclose(np.diff(run.v[fl, 1]) / np.diff(t[fl]), -G, rtol=1e-8)


def test_support_phase_friction_is_r_times_normal_force(run):
    """After the accumulation (s = v = 0): pi_x'' = g r(pi_x), whose solution is
    sinh(x'/2) = sinh(x'_0/2) exp(-0.15 g (t - t_0))."""
    acc = [e.t for e in run.events if e.kind == "accumulation"]
    assert acc
    on = np.flatnonzero(run.t > acc[0] + 1e-9)
    t0, x0 = run.t[on[0]], run.v[on[0], 0]
    pred = 2 * np.arcsinh(math.sinh(x0 / 2) * np.exp(-0.15 * G * (run.t[on] - t0)))
    np.testing.assert_allclose(run.v[on, 0], pred, atol=1e-9)
    assert np.all(run.x[on] == 0.0)


def test_default_map_is_the_contact_law(point):
    sys_, _ = point
    a = sys_.simulate(2.0, q0={"y": 1.0}, v0={"x": 2.0}, method="unified", dt=1e-3)
    b = sys_.simulate(2.0, q0={"y": 1.0}, v0={"x": 2.0}, method="unified", dt=1e-3,
                      impact_map={"restitution": 0.8})
    np.testing.assert_array_equal(a.q, b.q)
    k = [e.t for e in a.events if e.kind == "impact"]
    assert np.diff(k)[1] / np.diff(k)[0] == pytest.approx(0.8, rel=1e-9)


def test_bad_maps_are_named(point):
    sys_, _ = point
    x = sys_.parent["x"]
    for bad, msg in (({"kappa": 0.5}, "keys"),
                     ({"restitution": 0.5 + 0.1 * md.der(x)}, "coordinates and parameters"),
                     ({"tangential": [0.1, 0.2]}, "1 expression")):
        with pytest.raises(ValueError, match=msg):
            sys_.simulate(0.1, q0={"y": 1.0}, method="unified", impact_map=bad)
