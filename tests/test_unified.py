"""method="unified" (seed 003 (s, v) form): checks on a frictionless bouncing point."""
import math

import numpy as np
import pytest

import mechdae as md
import mechdae.simulate.unified  # noqa: F401


def ball(e=0.5, n=1):
    m = md.Model("ball")
    y = m.coordinates("y")[0] if n == 1 else m.coordinates("y")
    m.kinetic_energy(0.5 * md.der(y) ** 2)
    m.potential_energy(9.81 * y)
    m.contact("floor", gap=y, restitution=e)
    if n == 2:
        m.contact("ceiling", gap=3 - y, restitution=e)
    return m.compile(stabilization=None)


def test_impact_times_geometric_and_accumulation():
    e, g = 0.5, 9.81
    res = ball(e).simulate(3.0, q0={"y": 1.0}, method="unified", dt=1e-3)
    imp = np.array([ev.t for ev in res.events if ev.kind == "impact"])
    t1 = math.sqrt(2 / g)
    v1 = math.sqrt(2 * g)
    assert imp[0] == pytest.approx(t1, abs=1e-12)
    expect = t1 + np.cumsum([2 * v1 * e ** k / g for k in range(1, 8)])
    np.testing.assert_allclose(imp[1:8], expect, atol=1e-10)
    t_inf = t1 + 2 * v1 * e / (g * (1 - e))
    acc = [ev.t for ev in res.events if ev.kind == "accumulation"]
    assert acc and acc[0] == pytest.approx(t_inf, abs=1e-6)
    assert np.all(res["y"][res.t > t_inf + 1e-6] == pytest.approx(0.0, abs=1e-12))
    ev = res.events[0]
    assert ev.extra["gdot_after"] == pytest.approx(-e * ev.extra["gdot_before"])


def test_not_one_contact_is_an_error():
    with pytest.raises(ValueError, match="exactly one unilateral contact"):
        ball(n=2).simulate(1.0, q0={"y": 1.0}, method="unified")
