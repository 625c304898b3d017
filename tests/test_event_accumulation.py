"""Issue 13: the event driver resolves every impact of an accumulation that is above the
method's resolution, and books the energy of the accumulation once.

Ball dropped from h0 with restitution e (models/bouncing_ball.py): impact k at
t_k = t_1 + sum_{j=1}^{k-1} 2 e^j v_1 / g, bounce heights e^{2k} h0, accumulation point
t_inf = t_1 + 2 v_1 e / (g (1 - e)); between impacts the free-flight parabola.
"""
import math
import sys

import numpy as np
import pytest

import mechdae as md
from conftest import REPO

G, R, H0 = 9.81, 0.1, 1.0


def _ball(e, mu=0.0):
    return md.load(str(REPO / "models/bouncing_ball.py"), e=e, mu=mu).compile(stabilization=None)


def _closed_form(e, n):
    t1 = math.sqrt(2 * H0 / G)
    v1 = G * t1
    tk = t1 + np.concatenate([[0.0], np.cumsum(2 * v1 / G * e ** np.arange(1, n))])
    return tk, v1, t1 + 2 * v1 * e / (G * (1 - e))


@pytest.fixture(scope="module", params=[0.5, 0.8, 0.9])
def run(request):
    e = request.param
    t_inf = _closed_form(e, 1)[2]
    res = _ball(e).simulate(t_inf + 0.5, q0={"y": R + H0}, method="event", n_out=2001)
    return e, res


def test_every_bounce_above_1e_6_of_the_drop_height_at_its_closed_form_time(run):
    e, res = run
    ti = np.array([ev.t for ev in res.events if ev.kind == "impact"])
    # bounce k (after impact k + 1) rises e^(2k) h0: all those above 1e-6 h0 are resolved
    n_needed = int(math.floor(math.log(1e-6) / (2 * math.log(e)))) + 1
    assert ti.size >= n_needed                  # e = 0.8: 40 impacts (31 needed)
    tk, v1, t_inf = _closed_form(e, ti.size)
    np.testing.assert_allclose(ti, tk, rtol=0, atol=1e-9)       # measured 1e-11
    acc = [ev for ev in res.events if ev.kind == "accumulation"]
    assert len(acc) == 1 and acc[0].extra["reason"] == "velocity"
    assert acc[0].t == pytest.approx(t_inf, abs=1e-9)
    # impulses: (1 + e) v_k, the last (closing) impact plastic
    imps = [ev for ev in res.events if ev.kind == "impact"]
    vk = v1 * e ** np.arange(ti.size)
    np.testing.assert_allclose([ev.impulse[0] for ev in imps[:-1]], (1 + e) * vk[:-1],
                               rtol=1e-7)
    assert imps[-1].impulse[0] == pytest.approx(vk[-1], rel=1e-6)
    # the contact closes only below the velocity resolution 2 sqrt(2 g gap_tol)
    assert vk[-1] < 2 * math.sqrt(2 * G * 1e-8) < vk[-2]


def test_flights_are_the_free_fall_parabola_to_1e_9(run):
    e, res = run
    ti = np.array([ev.t for ev in res.events if ev.kind == "impact"])
    tk, v1, t_inf = _closed_form(e, ti.size)
    t, y = res.t, res["y"]
    k = np.searchsorted(tk, t, side="right") - 1          # last impact before t
    fly = (k >= 0) & (t < tk[-1])
    tau = t[fly] - tk[k[fly]]
    vk = v1 * e ** (k[fly] + 1)
    exact = R + vk * tau - 0.5 * G * tau ** 2
    np.testing.assert_allclose(y[fly], exact, rtol=0, atol=1e-9)
    first = t < tk[0]
    np.testing.assert_allclose(y[first], R + H0 - 0.5 * G * t[first] ** 2, rtol=0, atol=1e-9)
    rest = t > tk[-1]
    assert np.all(np.abs(y[rest] - R) < 1e-12)


def test_accumulation_energy_is_booked_once(run):
    """The plastic closing impact books the energy of the remaining bounces; the
    accumulation event books nothing, so the frictionless ball's ledger closes."""
    e, res = run
    acc = [ev for ev in res.events if ev.kind == "accumulation"][0]
    assert acc.energy_after == acc.energy_before == pytest.approx(G * R, rel=1e-12)
    b = res.energy_balance()
    assert b["events"] == pytest.approx(G * R - G * (R + H0), rel=1e-12)
    assert abs(b["unexplained"]) < 1e-10                # measured 5e-14


def test_zeno_early_keeps_the_former_jump():
    e = 0.8
    res = _ball(e).simulate(5.0, q0={"y": R + H0}, method="event", zeno="early")
    ti = np.array([ev.t for ev in res.events if ev.kind == "impact"])
    assert ti.size == 6                         # 5 flight ratios agree: jump at the 6th
    tk, _, t_inf = _closed_form(e, ti.size)
    np.testing.assert_allclose(ti, tk, atol=1e-9)
    acc = [ev for ev in res.events if ev.kind == "accumulation"]
    assert acc[0].extra["reason"] == "early" and acc[0].t == pytest.approx(t_inf, abs=1e-8)
    assert abs(res.energy_balance()["unexplained"]) < 1e-10


def test_bad_zeno_option_is_named():
    with pytest.raises(ValueError, match="zeno"):
        _ball(0.8).simulate(1.0, method="event", zeno="sometimes")
    with pytest.raises(ValueError, match="min_impact"):
        _ball(0.8).simulate(1.0, method="event", zeno={"min_impact": 3})


@pytest.mark.slow
def test_spinning_ball_keeps_every_impact_of_its_accumulation():
    """Seed 003 (Ivanov 1993), the ball on a rough plane: flight times in the ratio kappa
    and apex heights in kappa^2 for every resolved impact (24 here), the tangential
    impulse of each, pi_1..pi_3 of (3.7) constant."""
    sys.path.insert(0, str(REPO / "models"))
    import ivanov_ball
    kappa, rho = 0.7, 0.1
    ball = ivanov_ball.build(mu=0.05, kappa=kappa).compile(stabilization=None)
    res = ball.simulate(4.0, q0={"ball.z": 0.5}, v0={"ball.vx": 1.0, "ball.wx": 60.0},
                        method="event", n_out=4001)
    imp = [ev for ev in res.events if ev.kind == "impact"]
    ti = np.array([ev.t for ev in imp])
    assert ti.size >= 20
    d = np.diff(ti)
    np.testing.assert_allclose(d[1:] / d[:-1], kappa, rtol=1e-8)       # measured 3e-10
    # apex heights from the pre-impact normal speeds, h_k = v_k^2 / (2 g): kappa^2
    h = np.array([ev.extra["v_minus"][0] ** 2 / (2 * G) for ev in imp])
    np.testing.assert_allclose(h[1:] / h[:-1], kappa ** 2, rtol=1e-7)
    # every impact transmits a tangential impulse (the ball slides at each)
    assert all(np.hypot(*ev.impulse[1:3]) > 0 for ev in imp)
    pi = ivanov_ball.quasi_velocities(res)
    assert np.max(np.abs(pi - pi[0])) < 1e-7
    acc = [ev for ev in res.events if ev.kind == "accumulation"]
    t1 = math.sqrt(2 * 0.4 / G)
    t_inf = t1 + 2 * math.sqrt(2 * G * 0.4) * kappa / (G * (1 - kappa))
    assert acc and acc[0].t == pytest.approx(t_inf, abs=1e-8)
