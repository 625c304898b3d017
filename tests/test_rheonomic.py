"""Rheonomic contacts: a block on a moving belt, a ball on a vibrating table.

Contact velocities are relative, ``v_c = W(q, t) u + Wt(q, t)``; impact laws and friction
act on them. References are closed forms: the belt oscillator's stick/slip times and
motion (models/belt_stick_slip.py) and the free flights between impacts on a table moving as
``A sin(omega t)`` (models/vibrating_table.py), with only scalar roots found numerically
(brentq).
"""
import casadi as ca
import numpy as np
import pytest
from scipy.optimize import brentq

import mechdae as md
from conftest import model_module

G = 9.81


@pytest.fixture(scope="module")
def belt():
    return model_module("belt_stick_slip").build().compile()


@pytest.fixture(scope="module")
def table():
    return model_module("vibrating_table").build().compile()


def _belt_closed_form(m=1.0, k=10.0, mu=0.3, v_b=0.5):
    x0 = mu * m * G / k
    om = np.sqrt(k / m)
    t1 = np.arcsin(v_b / (om * x0)) / om
    x1 = x0 * (1 - np.cos(om * t1))
    t2 = t1 + (x0 - x1) / v_b

    def x(t):
        t = np.asarray(t, float)
        return np.where(t < t1, x0 * (1 - np.cos(om * t)),
                        np.where(t < t2, x1 + v_b * (t - t1),
                                 x0 + v_b / om * np.sin(om * (t - t2))))
    return t1, t2, x


# ---------------------------------------------------------------------- compile
def test_rheonomic_terms_are_derived_once(belt, table):
    """Wt: the speed-free part of the contact velocities; Wdot_u has its time derivative."""
    pv = belt.p_defaults
    assert belt.rheonomic and table.rheonomic
    assert np.allclose(np.array(belt.Wt([0.1, 0.0], 0.0, pv)).ravel(), [0.0, -0.5])
    A, w = 0.01, 20.0
    t = 0.3
    pt = table.p_defaults
    assert float(table.Wt([0.2], t, pt)) == pytest.approx(-A * w * np.cos(w * t), abs=1e-15)
    # d/dt (y' - A w cos w t) - y'' = A w^2 sin w t
    assert float(table.Wdot_u([0.2], [1.0], t, pt)) == pytest.approx(A * w * w * np.sin(w * t),
                                                                     abs=1e-14)
    assert not model_module("bouncing_ball").build().compile().rheonomic


def test_tangent_velocity_must_be_affine_in_speeds():
    m = md.Model("bad_belt")
    x, y = m.coordinates("x y")
    m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2))
    m.contact("belt", gap=y, tangent_velocity=md.der(x) ** 2 - 1.0, friction=0.3)
    with pytest.raises(md.ModelError, match="affine in the speeds"):
        m.compile()


def test_unified_rejects_rheonomic(table):
    with pytest.raises(ValueError, match="rheonomic"):
        table.simulate(0.1, q0={"y": 0.3}, method="unified")


# ---------------------------------------------------------------------- belt
def test_belt_stick_slip_event_matches_closed_form(belt):
    t1, t2, x = _belt_closed_form()
    # max_step: output points are Hermite interpolants of the window sub-samples
    res = belt.simulate(6.0, q0={"x": 0.0, "y": 0.0}, v0={"x": 0.0}, method="event",
                        max_step=0.05, rtol=1e-11, atol=1e-13)
    ev = [(e.t, e.kind) for e in res.events if e.kind in ("stick", "slide")]
    assert ev[0][1] == "stick" and ev[0][0] == pytest.approx(t1, abs=1e-9)
    assert ev[1][1] == "slide" and ev[1][0] == pytest.approx(t2, abs=1e-9)
    # then the limit cycle: x' returns to v_b tangentially each period, no stick phase
    assert len(ev) == 2
    assert np.max(np.abs(res.q[:, 0] - x(res.t))) < 1e-8
    # the contact stays closed, normal force m g; friction k x while sticking (belt carries
    # the block), + mu m g while sliding (belt faster than the block)
    lam = res.contact_forces["belt"]
    assert np.allclose(lam[:, 0], G, rtol=1e-8)
    stick = (res.t > t1 + 1e-6) & (res.t < t2 - 1e-6)
    slide = (res.t > t2 + 1e-6) | (res.t < t1 - 1e-6)
    assert np.allclose(lam[stick, 1], 10.0 * x(res.t[stick]), rtol=1e-7)
    assert np.allclose(lam[slide, 1], 0.3 * G, rtol=1e-10)


def test_belt_stick_slip_timestepping_is_first_order(belt):
    t1, t2, x = _belt_closed_form()
    errs = []
    for dt in (2e-3, 1e-3):
        res = belt.simulate(4.0, q0={"x": 0.0, "y": 0.0}, v0={"x": 0.0},
                            method="timestepping", dt=dt)
        errs.append(np.max(np.abs(res.q[:, 0] - x(res.t))))
    assert errs[1] < 3e-3
    assert 1.5 < errs[0] / errs[1] < 2.6


def test_belt_contact_forces_and_impact_use_relative_velocity(belt):
    # sliding at x = 0 with the block at rest: v_t = -v_b, friction +mu m g
    cf = belt.contact_forces({"x": 0.0, "y": 0.0}, {"x": 0.0, "y": 0.0})
    assert cf.modes["belt"] == "slide"
    assert cf.lam["belt"][1] == pytest.approx(0.3 * G, rel=1e-12)
    # riding with the belt: stick, spring force k x balanced by friction
    cf = belt.contact_forces({"x": 0.1, "y": 0.0}, {"x": 0.5, "y": 0.0})
    assert cf.modes["belt"] == "stick"
    assert cf.lam["belt"][1] == pytest.approx(1.0, rel=1e-12)
    # plastic impact with infinite-enough friction: tangential velocity -> belt speed
    r = belt.impact({"x": 0.0, "y": 0.0}, {"x": 0.0, "y": -10.0}, params={"mu": 1.0})
    assert r.contact_velocities["belt"][1] == pytest.approx(0.0, abs=1e-12)
    assert r.v_plus["der(x)"] == pytest.approx(0.5, abs=1e-12)


# ---------------------------------------------------------------------- vibrating table
R, A, W, E = 0.1, 0.01, 20.0, 0.5


def _surface(t):
    return R + A * np.sin(W * t), A * W * np.cos(W * t)


def test_vibrating_table_impact_closed_form(table):
    """One impact at time t: v_n+ = -e v_n- on the relative velocity y' - s'(t)."""
    for t, vy in ((0.3, -1.0), (1.1, -0.2), (0.05, 0.1)):
        ys, sd = _surface(t)
        r = table.impact({"y": ys}, {"y": vy}, t=t)
        vm = vy - sd
        if vm < 0:
            assert r.v_plus["der(y)"] == pytest.approx(sd - E * vm, abs=1e-13)
            assert r.impulses["table"][0] == pytest.approx(-(1 + E) * vm, abs=1e-13)
            assert r.contact_velocities["table"][0] == pytest.approx(-E * vm, abs=1e-13)
        else:
            assert r.impulses["table"][0] == 0.0
        rb = table.impact_batch(np.array([[ys]]), np.array([[vy]]), t=t)
        assert rb.v_plus_array[0, 0] == pytest.approx(r.v_plus["der(y)"], abs=1e-13)
        rs = table.impact({"y": ys}, {"y": vy}, t=t, all_solutions=True)
        assert rs.v_plus["der(y)"] == pytest.approx(r.v_plus["der(y)"], abs=1e-13)


def test_rheonomic_impact_at_rest_relative_to_surface_gives_no_impulse(table):
    for t in (0.0, 0.3, 0.9):
        ys, sd = _surface(t)
        r = table.impact({"y": ys}, {"y": sd}, t=t)
        assert r.impulses["table"][0] == pytest.approx(0.0, abs=1e-14)
        assert r.v_plus["der(y)"] == pytest.approx(sd, abs=1e-14)


def test_vibrating_table_event_run_closed_form(table):
    """Two impacts of the dropped ball: times and relative velocities from the free-flight
    closed form; post-impact relative normal velocity = -e x pre-impact."""
    y0 = 0.3
    res = table.simulate(0.4, q0={"y": y0}, v0={"y": 0.0}, method="event")
    imps = [e for e in res.events if e.kind == "impact"]
    t1 = brentq(lambda t: y0 - 0.5 * G * t * t - _surface(t)[0], 0.1, 0.25, xtol=1e-15)
    vm1 = -G * t1 - _surface(t1)[1]
    assert imps[0].t == pytest.approx(t1, abs=1e-9)
    assert imps[0].extra["v_minus"][0] == pytest.approx(vm1, abs=1e-8)
    assert imps[0].extra["v_plus"][0] == pytest.approx(-E * imps[0].extra["v_minus"][0],
                                                       abs=1e-10)
    y1, v1 = _surface(t1)[0], _surface(t1)[1] - E * vm1

    def f(t):
        return y1 + v1 * (t - t1) - 0.5 * G * (t - t1) ** 2 - _surface(t)[0]
    ts = np.linspace(t1 + 1e-6, t1 + 0.5, 50001)
    j = int(np.argmax(f(ts) < 0))
    t2 = brentq(f, ts[j - 1], ts[j], xtol=1e-15)
    assert imps[1].t == pytest.approx(t2, abs=1e-9)
    vm2 = v1 - G * (t2 - t1) - _surface(t2)[1]
    assert imps[1].extra["v_minus"][0] == pytest.approx(vm2, abs=1e-8)
    assert imps[1].extra["v_plus"][0] == pytest.approx(-E * vm2, abs=1e-9)
    # the kinetic energy may grow at an impact (the table does work): no EnergyGainError
    assert imps[0].energy_after is not None


def test_vibrating_table_timestepping_first_impact(table):
    """Moreau-Jean on the relative velocity: the rebound after the first impact."""
    y0 = 0.3
    t1 = brentq(lambda t: y0 - 0.5 * G * t * t - _surface(t)[0], 0.1, 0.25, xtol=1e-15)
    vm1 = -G * t1 - _surface(t1)[1]
    v1 = _surface(t1)[1] - E * vm1
    res = table.simulate(t1 + 0.05, q0={"y": y0}, v0={"y": 0.0}, method="timestepping",
                         dt=1e-4)
    # after the impact: free flight y' = v1 - g (t - t1), O(dt)
    j = -1
    assert res.v[j, 0] == pytest.approx(v1 - G * (res.t[j] - t1), abs=0.02)
