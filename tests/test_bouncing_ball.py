"""Bouncing ball (models/bouncing_ball.py): geometric impact series, the accumulation
point t_inf = t_1 + 2 v_1 e / (g (1 - e)), rest afterwards; event / timestepping / auto agree.
"""
import numpy as np
import pytest

import mechdae as md
from mechdae.simulate import METHODS

G, R, H0 = 9.81, 0.1, 1.0


def _system(e=0.8, mu=0.0):
    return md.load("models/bouncing_ball.py", e=e, mu=mu).compile(stabilization=None)


def _analytic(e):
    t1 = np.sqrt(2 * H0 / G)
    v1 = G * t1
    return t1, v1, t1 + 2 * v1 * e / (G * (1 - e))


@pytest.fixture(scope="module")
def ball_event():
    return _system().simulate(5.0, q0={"y": R + H0}, method="event", rtol=1e-11, atol=1e-13)


def test_impact_times_follow_the_geometric_series(ball_event):
    e = 0.8
    t1, v1, _ = _analytic(e)
    ti = np.array([ev.t for ev in ball_event.events if ev.kind == "impact"])
    assert len(ti) >= 5
    expected = t1 + np.concatenate([[0.0], np.cumsum(2 * v1 / G * e ** np.arange(1, ti.size))])
    assert np.max(np.abs(ti - expected)) < 1e-8
    d = np.diff(ti)
    assert np.allclose(d[1:] / d[:-1], e, rtol=0, atol=1e-8)


def test_impulses_and_energy_per_impact(ball_event):
    e = 0.8
    t1, v1, _ = _analytic(e)
    imps = [ev for ev in ball_event.events if ev.kind == "impact"]
    # P_k = m (1 + e) v_k with v_k = e^(k-1) v_1, except the last, plastic (Zeno) one
    for k, ev in enumerate(imps[:-1]):
        assert ev.impulse[0] == pytest.approx((1 + e) * e ** k * v1, rel=1e-8)
        assert ev.energy_after - (R * G) == pytest.approx(e ** 2 * (ev.energy_before - R * G),
                                                          rel=1e-7)
    assert imps[-1].impulse[0] == pytest.approx(e ** (len(imps) - 1) * v1, rel=1e-8)


def test_accumulation_point_is_reached_and_passed(ball_event):
    _, _, t_inf = _analytic(0.8)
    acc = [ev for ev in ball_event.events if ev.kind == "accumulation"]
    assert len(acc) == 1
    assert acc[0].t == pytest.approx(t_inf, abs=1e-8)
    assert ball_event.t[-1] == 5.0 > t_inf
    after = ball_event.t > t_inf
    assert np.allclose(ball_event["y"][after], R, atol=1e-12)
    assert np.allclose(ball_event.v[after], 0.0, atol=1e-12)
    lam = ball_event.contact_forces["ground"][after, 0]
    assert np.allclose(lam, 1.0 * G, rtol=1e-9)
    assert acc[0].energy_after == pytest.approx(1.0 * G * R, rel=1e-12)


def test_flight_is_a_parabola_between_impacts(ball_event):
    e = 0.8
    t1, v1, _ = _analytic(e)
    k = np.flatnonzero((ball_event.t > t1 + 0.05) & (ball_event.t < t1 + 0.6))
    tt = ball_event.t[k] - t1
    y = R + e * v1 * tt - 0.5 * G * tt ** 2
    assert np.max(np.abs(ball_event["y"][k] - y)) < 1e-8


def test_event_location_tolerance_and_no_penetration(ball_event):
    assert ball_event["y"].min() > R - 1e-8


@pytest.mark.parametrize("e", [0.5, 0.9])
def test_accumulation_time_for_other_restitutions(e):
    _, _, t_inf = _analytic(e)
    res = _system(e).simulate(t_inf + 1.0, q0={"y": R + H0}, method="event", rtol=1e-11,
                              atol=1e-13)
    acc = [ev for ev in res.events if ev.kind == "accumulation"]
    assert acc and acc[0].t == pytest.approx(t_inf, abs=1e-7)
    assert res["y"][-1] == pytest.approx(R, abs=1e-12)


def test_three_methods_agree():
    sys_ = _system()
    _, _, t_inf = _analytic(0.8)
    ev = sys_.simulate(5.0, q0={"y": R + H0}, method="event")
    au = sys_.simulate(5.0, q0={"y": R + H0}, method="auto")
    assert "timestepping" in METHODS
    dt = 1e-3
    ts = sys_.simulate(5.0, q0={"y": R + H0}, method="timestepping", dt=dt)
    # first impacts: timestepping to O(dt)
    t_ev = [e.t for e in ev.events if e.kind == "impact"][:4]
    t_ts = [e.t for e in ts.events if e.kind == "impact"][:4]
    assert np.max(np.abs(np.subtract(t_ev, t_ts))) < 5 * dt
    t_au = [e.t for e in au.events if e.kind == "impact"][:4]
    assert np.max(np.abs(np.subtract(t_ev, t_au))) < 1e-9
    # auto is the event engine through the accumulation (issue 23: it used to cross it by
    # time stepping, up to 1.6 mm from "event" around t_inf, with no accumulation point)
    assert not [e for e in au.events if e.kind == "switch"]
    acc = [e.t for e in au.events if e.kind == "accumulation"]
    assert acc == [e.t for e in ev.events if e.kind == "accumulation"]
    assert acc[0] == pytest.approx(t_inf, abs=1e-7)
    for res in (ev, au, ts):
        assert res["y"][-1] == pytest.approx(R, abs=1e-5)
        assert abs(res.v[-1, 1]) < 1e-9
        # at t = 1.0 (second flight) all agree
        k = np.argmin(np.abs(res.t - 1.0))
        assert res["y"][k] == pytest.approx(ev["y"][np.argmin(np.abs(ev.t - 1.0))], abs=2e-2)
    assert au.contact_forces["ground"][-1, 0] == pytest.approx(G, rel=1e-9)


def test_energy_never_increases(ball_event):
    E = ball_event.energy
    assert np.all(np.diff(E) <= 1e-7 * E[0])
    for ev in ball_event.events:
        if ev.energy_before is not None:
            assert ev.energy_after <= ev.energy_before + 1e-12


def test_cli_run_bouncing_ball(tmp_path):
    import argparse
    from mechdae.simulate._cli import run
    import io
    args = argparse.Namespace(model="models/bouncing_ball.py", t_final=None, plot=str(tmp_path / "b.png"),
                              no_plot=False, param=[], method=None, save=None)
    out = io.StringIO()
    pytest.importorskip("matplotlib")
    assert run(args, out=out) == 0
    text = out.getvalue()
    assert "method       auto" in text
    assert (tmp_path / "b.png").exists()
