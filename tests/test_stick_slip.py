"""Stick-slip block (models/stick_slip.py): transition times against the closed form.

The reference is the piecewise closed-form motion: while sticking, slip starts when
``|F(t) - m g sin(alpha)| = mu m g cos(alpha)``; while sliding with direction ``s``,
``x'(t) = F0/(m w) (cos w t_s - cos w t) - g (sin alpha + s mu cos alpha)(t - t_s)``, and at
its first zero the block sticks if the bound holds, else it reverses. Only the roots of
these scalar closed forms are found numerically (brentq, 1e-14).
"""
import numpy as np
import pytest
from scipy.optimize import brentq

import mechdae as md

G = 9.81


def _analytic(t_final, m=1.0, alpha=0.0, F0=6.0, w=2.0, mu=0.3, v0=0.0):
    """List of (t, new mode) with mode in {"stick", "+", "-"}."""
    gs, gc = G * np.sin(alpha), G * np.cos(alpha)
    F = lambda t: F0 * np.sin(w * t)                              # noqa: E731
    out, t, mode, ts = [], 0.0, "stick" if v0 == 0 else ("+" if v0 > 0 else "-"), 0.0
    dt = 1e-3
    while t < t_final:
        if mode == "stick":
            f = lambda s: abs(F(s) / m - gs) - mu * gc            # noqa: E731
            a = t + 1e-9
            while a < t_final and f(a + dt) < 0:
                a += dt
            if a >= t_final:
                break
            t = brentq(f, a, a + dt, xtol=1e-14)
            mode = "+" if F(t) / m - gs > 0 else "-"
            ts = t
        else:
            s = 1.0 if mode == "+" else -1.0
            v = lambda u: (F0 / (m * w) * (np.cos(w * ts) - np.cos(w * u))   # noqa: E731
                           - (gs + s * mu * gc) * (u - ts) + (v0 if ts == 0 and not out else 0))
            a = t + 1e-6
            while a < t_final and s * v(a + dt) > 0:
                a += dt
            if a >= t_final:
                break
            t = brentq(v, a, a + dt, xtol=1e-14)
            if abs(F(t) / m - gs) <= mu * gc:
                mode = "stick"
            else:
                mode = "-" if mode == "+" else "+"
                ts = t
        out.append((t, mode))
    return out


def _events(res):
    out = []
    for e in res.events:
        if e.kind == "stick":
            out.append((e.t, "stick"))
        elif e.kind == "slide":
            out.append((e.t, e.extra["mode"]))
    return out


@pytest.mark.parametrize("F0,alpha", [(6.0, 0.0), (4.0, 0.0), (4.0, 0.15)])
def test_stick_slip_times_match_the_closed_form(F0, alpha):
    sys_ = md.load("models/stick_slip.py", mu=0.3).compile(stabilization=None)
    res = sys_.simulate(8.0, params={"F0": F0, "alpha": alpha}, method="event", rtol=1e-11,
                        atol=1e-13)
    ref = _analytic(8.0, F0=F0, alpha=alpha)
    got = _events(res)
    assert len(ref) >= 4
    assert [m for _, m in got] == [m for _, m in ref]
    assert np.max(np.abs(np.array([t for t, _ in got]) - [t for t, _ in ref])) < 1e-8


def test_sticking_block_does_not_move_and_friction_balances_the_force():
    sys_ = md.load("models/stick_slip.py", mu=0.3).compile(stabilization=None)
    res = sys_.simulate(2.0, params={"F0": 4.0}, method="event", rtol=1e-11, atol=1e-13)
    t_slip = np.arcsin(0.3 * G / 4.0) / 2.0
    k = res.t < t_slip - 1e-6
    assert np.allclose(res["x"][k], 0.0, atol=1e-12)
    lam = res.contact_forces["support"]
    assert np.allclose(lam[k, 0], G, rtol=1e-9)                         # normal force m g
    assert np.allclose(lam[k, 1], -4.0 * np.sin(2.0 * res.t[k]), atol=1e-9)  # balances F(t)
    slide = np.array([m in "+-" for m in res.modes])
    assert np.allclose(np.abs(lam[slide, 1]), 0.3 * lam[slide, 0], rtol=1e-12)


def test_block_on_incline_decelerates_and_sticks():
    # launched down a 0.1 rad slope with mu = 0.3 > tan(0.1): sticks at v0 / (g (mu cos - sin))
    sys_ = md.load("models/stick_slip.py", mu=0.3).compile(stabilization=None)
    a = 0.1
    res = sys_.simulate(2.0, v0={"x": -1.5}, params={"F0": 0.0, "alpha": a}, method="event",
                        rtol=1e-11, atol=1e-13)
    t_stop = 1.5 / (G * (0.3 * np.cos(a) - np.sin(a)))
    st = [e.t for e in res.events if e.kind == "stick"]
    assert st == [pytest.approx(t_stop, abs=1e-9)]
    x_stop = -1.5 * t_stop / 2
    assert res["x"][-1] == pytest.approx(x_stop, abs=1e-9)
