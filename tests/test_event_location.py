"""Event location of the event driver: Hermite-seeded Newton steps on re-integrated states
(``e`` and ``e'`` from one integration each) locate impacts to the time tolerance with
about one integration per event; the bouncing ball's impact times are the closed form."""
import math

import numpy as np
import pytest

import mechdae as md

REPO = __import__("pathlib").Path(__file__).resolve().parents[1]


def test_ball_impacts_located_with_one_or_two_integrations_each():
    sys_ = md.load(str(REPO / "models/bouncing_ball.py")).compile(stabilization=None)
    e, g, h0 = 0.8, 9.81, 1.0
    res = sys_.simulate(5.0, q0={"y": 1.1}, method="event", rtol=1e-12, atol=1e-14)
    ti = np.array([ev.t for ev in res.events if ev.kind == "impact"])
    t1 = math.sqrt(2 * h0 / g)
    n = ti.size
    exact = t1 + np.concatenate([[0.0], np.cumsum(2 * g * t1 * e ** np.arange(1, n) / g)])
    np.testing.assert_allclose(ti, exact, atol=1e-9)
    acc = [ev for ev in res.events if ev.kind == "accumulation"]
    t_inf = t1 + 2 * g * t1 * e / (g * (1 - e))
    assert acc and acc[0].t == pytest.approx(t_inf, abs=1e-8)
    # located events: the n impacts; at most two integrations each (Illinois needed ~5)
    assert res.stats["n_shoots"] <= 2 * n


def test_ball_flights_are_whole_windows_and_impacts_land_on_the_surface():
    """A flight spans one or two cvodes windows; the gap function re-arms inside the window
    after an impact, so each impact fires at the surface (not ``gap_tol`` below it); the
    contact closed at the Zeno impact is projected onto the ground (no Baumgarte transient)."""
    sys_ = md.load(str(REPO / "models/bouncing_ball.py")).compile(stabilization=None)
    res = sys_.simulate(5.0, q0={"y": 1.1}, method="event")
    imp = [ev for ev in res.events if ev.kind == "impact"]
    # windows are at most MAX_WINDOW long (a fixed cap, not t_final / 5 since issue 10):
    # a flight spans one or two windows plus one per MAX_WINDOW of its length
    from mechdae.simulate.event import MAX_WINDOW
    assert res.stats["n_windows"] <= 2 * len(imp) + 4 + 5.0 / MAX_WINDOW   # measured 28
    y, t = res["y"], res.t
    for ev in imp:
        k = np.flatnonzero(t == ev.t)[0]                        # the pre-impact sample
        assert abs(y[k] - 0.1) < 1e-9                            # measured 4e-10
    close = [ev.t for ev in res.events if ev.kind == "close"][0]
    after = t > close
    assert np.all(np.abs(y[after] - 0.1) < 1e-14)
    assert np.all(np.abs(res.v[after, 1]) < 1e-14)
