"""Energy bookkeeping of hybrid runs: the energy lost at events accounts for the whole
change of T + V of a frictionless bouncing ball (closed form: each impact keeps e^2 of
the kinetic energy)."""
import pytest

import mechdae as md
from conftest import REPO


def test_bouncing_ball_energy_balance_matches_restitution_losses():
    e, h0, g, m, R = 0.8, 1.0, 9.81, 1.0, 0.1
    model = md.load(str(REPO / "models" / "bouncing_ball.py"), e=e)
    sys = model.compile(stabilization=None)
    res = sys.simulate(1.5, q0={"x": 0.0, "y": R + h0}, method="event", rtol=1e-10, atol=1e-12)
    impacts = [ev for ev in res.events if ev.kind == "impact"]
    assert len(impacts) >= 2
    b = res.energy_balance()
    # energy before impact k is m g h0 (all kinetic at the ground, V measured from y = R
    # plus the constant m g R); each impact keeps e^2 of it
    T1 = m * g * h0
    expected = sum(-(1 - e**2) * T1 * e**(2 * k) for k in range(len(impacts)))
    assert b["events"] == pytest.approx(expected, rel=1e-7)
    assert abs(b["unexplained"]) < 1e-7 * T1
    assert b["final"] - b["initial"] == pytest.approx(expected, rel=1e-7)

