"""Event-driven driver: Painlevé stop, impact without collision, options, the impact
resolution against System.impact, integrator reuse."""
import importlib.util
import math

import numpy as np
import pytest

import mechdae as md


def _module(path):
    spec = importlib.util.spec_from_file_location("m_" + path.replace("/", "_"), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_painleve_inconsistency_stops_with_time_contact_U_F():
    rod = _module("models/painleve_rod.py")
    sys_ = rod.build(mu=2.0, both_ends=False).compile(stabilization=None)
    q, v = rod.sliding_state(0.8, -1.0)
    with pytest.raises(md.PainleveError) as info:
        sys_.simulate(0.5, q0=q, v0=v, method="event")
    msg = str(info.value)
    assert "t = 0" in msg and "'A'" in msg and "U = " in msg and "F = " in msg
    U, Fv = info.value.U, info.value.F
    assert float(msg.split("U = ")[1].split(",")[0]) == pytest.approx(U, rel=1e-5)
    assert info.value.contact == "A" and info.value.t == 0.0
    th, mu = 0.8, 2.0
    # U = (1 + 3 cos^2 - 3 mu sin cos) / m for s = -1, F = -g (th' = 0)
    assert U == pytest.approx(1 + 3 * math.cos(th) ** 2 - 3 * mu * math.sin(th) * math.cos(th),
                              rel=1e-9)
    assert Fv == pytest.approx(-9.81, rel=1e-9)


def test_painleve_resolved_by_impact_without_collision():
    rod = _module("models/painleve_rod.py")
    sys_ = rod.build(mu=2.0, both_ends=False).compile(stabilization=None)
    q, v = rod.sliding_state(0.8, -1.0)
    res = sys_.simulate(0.3, q0=q, v0=v, method="event", painleve="impact")
    ev = [e for e in res.events if e.kind == "painleve"]
    assert len(ev) == 1 and ev[0].t == 0.0
    assert ev[0].impulse[0] > 0                     # a normal impulse at zero normal speed
    assert ev[0].energy_after <= ev[0].energy_before + 1e-12
    assert res.modes[1] == "k"                      # the end sticks after the tangential impact


def test_unknown_option_is_named():
    sys_ = md.load("models/bouncing_ball.py").compile(stabilization=None)
    with pytest.raises(TypeError, match="zenoo"):
        sys_.simulate(1.0, method="event", zenoo=True)
    with pytest.raises(ValueError, match="painleve"):
        sys_.simulate(1.0, method="event", painleve="ignore")


def test_impact_matches_system_impact():
    """The driver's impact (own contact-space assembly + C kernel) equals System.impact."""
    sys_ = md.load("models/rocking_block.py").compile(stabilization=None)
    res = sys_.simulate(0.4, q0={"x": 0.0, "y": 1.0, "th": 0.2}, method="event")
    imp = [e for e in res.events if e.kind == "impact"][0]
    k = int(np.flatnonzero(np.isclose(res.t, imp.t))[0])
    q, u_minus, u_plus = res.q[k], res.v[k], res.v[k + 1]
    out = sys_.impact(q, u_minus)
    assert np.allclose(out.v_plus_array, u_plus, atol=1e-10)


def test_integrators_are_built_once_per_mode():
    sys_ = md.load("models/bouncing_ball.py").compile(stabilization=None)
    sys_.simulate(5.0, q0={"y": 1.1}, method="event")
    n = len(sys_._integrators)
    res = sys_.simulate(5.0, q0={"y": 1.1}, method="event", params={"g": 9.0})
    assert len(sys_._integrators) == n
    assert sorted(res.stats["modes"]) == ["n", "o"]


def test_auto_without_contacts_is_smooth():
    sys_ = md.load("models/pendulum.py").compile()
    res = sys_.simulate(1.0, q0={"x": 1.0, "y": 0.0}, method="auto")
    assert res.stats["method"] == "cvodes" and not res.events
