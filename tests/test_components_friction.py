"""Contact and friction components (mechdae/components/friction.py) against closed forms.

Stops: harmonic motion between impacts, Newton's law at the stop. Rough mass: the forced
stick-slip oscillator of tests/test_stick_slip.py, and the hand-written model it tests.
Clutch, brake, bearing friction: piecewise constant accelerations (each inertia under the
friction torque +-mu cgeo fn while slipping, a common acceleration once locked). Only roots
of scalar closed forms are found numerically (brentq, in test_stick_slip's reference).
"""
import numpy as np
import pytest

import mechdae as md
from mechdae.components import rotational as rot
from mechdae.components import translational as tr
from mechdae.errors import ModelError
from conftest import model_module
from test_stick_slip import G, _analytic, _events

TOL = dict(method="event", rtol=1e-11, atol=1e-13)


def _impacts(res, contact=None):
    return [e for e in res.events if e.kind == "impact"
            and (contact is None or e.contact == contact)]


def _speeds_at(res, name, t):
    """(before, after) values of ``name`` at the event time ``t`` (rows repeated there)."""
    k = np.where(np.abs(res.t - t) < 1e-12)[0]
    assert len(k) >= 2
    return res[name][k[0]], res[name][k[-1]]


# ------------------------------------------------------------------------------ stops

def _stop_reference(A, d, e, w, n):
    """Times and pre-impact speeds of the first n impacts of the mass-spring-stop."""
    t = np.arccos(-d / A) / w
    v = w * np.sqrt(A ** 2 - d ** 2)
    out = []
    for _ in range(n):
        out.append((t, v))
        t += 2.0 / w * (np.pi - np.arctan2(e * v / w, d))
        v *= e
    return out


@pytest.mark.parametrize("d,e", [(0.5, 0.8), (0.5, 0.0), (0.3, 1.0)])
def test_mass_spring_stop_impacts_match_the_harmonic_closed_form(d, e):
    mod = model_module("mass_spring_stop")
    system = mod.build(m=2.0, c=8.0, d=d, e=e).compile(stabilization=None)
    # output points are Hermite interpolants of a window's sub-samples: short windows
    res = system.simulate(6.0, q0={"mass.s": -1.0}, max_step=0.05, **TOL)
    w = 2.0
    ref = _stop_reference(1.0, d, e, w, 3)
    imp = _impacts(res, "stop.upper")
    if e == 0.0:
        # plastic: the mass stops at the stop, the spring (c d > 0) pulls it back at once:
        # then a free oscillation of amplitude d about 0, which never reaches the stop again
        assert [ev.kind for ev in res.events] == ["impact"]
        assert imp[0].t == pytest.approx(ref[0][0], abs=1e-9)
        k = res.t > imp[0].t + 1e-9
        s_ref = d * np.cos(w * (res.t[k] - imp[0].t))
        assert np.max(np.abs(res["mass.s"][k] - s_ref)) < 1e-8
        return
    assert len(imp) >= 3
    for ev, (t_k, v_k) in zip(imp, ref):
        assert ev.t == pytest.approx(t_k, abs=1e-9)
        before, after = _speeds_at(res, "mass.v", ev.t)
        assert before == pytest.approx(v_k, rel=1e-8)
        assert after == pytest.approx(-e * v_k, rel=1e-8, abs=1e-12)
        assert ev.impulse[0] == pytest.approx(2.0 * (1 + e) * v_k, rel=1e-8)  # m (1 + e) v
    assert res["mass.s"].max() <= d + 1e-9
    # between impacts: harmonic motion from the post-impact state
    t0, v0 = ref[0][0], -e * ref[0][1]
    k = (res.t > t0 + 1e-9) & (res.t < ref[1][0] - 1e-9)
    tau = res.t[k] - t0
    s_ref = d * np.cos(w * tau) + v0 / w * np.sin(w * tau)
    assert np.max(np.abs(res["mass.s"][k] - s_ref)) < 1e-8


def test_spring_pressing_on_the_stop_accumulates_and_rests():
    # stop before the rest position (d < 0): flights shrink, Zeno, then rest on the stop
    mod = model_module("mass_spring_stop")
    system = mod.build(m=1.0, c=4.0, d=-0.2, e=0.5).compile(stabilization=None)
    res = system.simulate(4.0, q0={"mass.s": -1.0}, **TOL)
    ref = _stop_reference(1.0, -0.2, 0.5, 2.0, 4)
    imp = _impacts(res, "stop.upper")
    for ev, (t_k, _) in zip(imp[:4], ref):
        assert ev.t == pytest.approx(t_k, abs=1e-9)
    assert any(ev.kind == "accumulation" for ev in res.events)
    end = res.t > res.events[-1].t + 1e-6
    assert np.allclose(res["mass.s"][end], -0.2, atol=1e-9)
    assert np.allclose(res.contact_forces["stop.upper"][end, 0], 4.0 * 0.2, rtol=1e-8)


def test_stop_parameters_and_lower_bound():
    # a free mass bouncing between two stops: velocity reverses with e at each
    m = md.Model("box")
    mass = m.add(tr.Mass("mass", m=1.0, L=0.2))
    stop = m.add(tr.Stop("stop", s_min=-1.0, s_max=1.0, e=0.5))
    m.connect(mass.flange_b, stop.flange)             # the right end: -1 <= s + 0.1 <= 1
    system = m.compile(stabilization=None)
    assert {"stop.s_min", "stop.s_max", "stop.e"} <= set(system.p_names)
    res = system.simulate(6.0, v0={"mass.s": 1.0}, params={"stop.e": 0.5}, **TOL)
    imp = _impacts(res)
    # the right end travels 0.9 at speed 1, then 2.0 back at speed 0.5
    assert [ev.contact for ev in imp] == ["stop.upper", "stop.lower"]
    assert [ev.t for ev in imp] == pytest.approx([0.9, 4.9], abs=1e-9)
    assert res["mass.v"][-1] == pytest.approx(0.25, rel=1e-9)


# ------------------------------------------------------------------------------ rough mass

def _rough_model(F0=4.0, omega=2.0, mu=0.3, **kw):
    m = md.Model("rough")
    box = m.add(tr.MassWithStopAndFriction("box", m=1.0, g=G, mu=mu, **kw))
    force = m.add(tr.Force("F", f=lambda t: F0 * md.sin(omega * t)))
    m.connect(force.flange, box.flange_a)
    return m


@pytest.mark.parametrize("F0", [6.0, 4.0])
def test_rough_mass_stick_slip_matches_the_closed_form(F0):
    res = _rough_model(F0=F0).compile(stabilization=None).simulate(8.0, **TOL)
    ref = _analytic(8.0, F0=F0)
    got = _events(res)
    assert len(ref) >= 4
    assert [mo for _, mo in got] == [mo for _, mo in ref]
    assert np.max(np.abs(np.array([t for t, _ in got]) - [t for t, _ in ref])) < 1e-8
    assert np.allclose(res["box.y"], 0.0, atol=1e-12)            # stays on the surface


def test_rough_mass_equals_the_hand_written_stick_slip_model():
    out = np.linspace(0.0, 6.0, 121)
    res = _rough_model(F0=4.0).compile(stabilization=None).simulate(6.0, output_times=out,
                                                                    **TOL)
    ref = md.load("models/stick_slip.py", mu=0.3).compile(stabilization=None).simulate(
        6.0, params={"F0": 4.0, "alpha": 0.0}, output_times=out, **TOL)
    assert len(res.events) == len(ref.events)
    assert np.max(np.abs(res["box.s"] - ref["x"])) < 1e-8
    assert np.max(np.abs(res["box.v"] - ref.v[:, 0])) < 1e-8
    assert np.max(np.abs(res.contact_forces["box.surface"] - ref.contact_forces["support"])) \
        < 1e-8


def test_F_Coulomb_is_mu_m_g_and_F_prop_is_viscous():
    # launched at v0 with Coulomb F_c and viscous F_prop: m v' = -F_c - F_prop v, so it stops
    # at t = m / F_prop ln(1 + F_prop v0 / F_c)
    Fc, Fp, v0, mass = 2.0, 0.5, 3.0, 1.0
    m = md.Model("visc")
    m.add(tr.MassWithStopAndFriction("box", m=mass, F_Coulomb=Fc, F_prop=Fp, g=G))
    res = m.compile(stabilization=None).simulate(4.0, v0={"box.s": v0}, **TOL)
    stick = [e.t for e in res.events if e.kind == "stick"]
    assert stick == [pytest.approx(mass / Fp * np.log(1 + Fp * v0 / Fc), abs=1e-9)]
    t = res.t[res.t < stick[0]]
    v_ref = (v0 + Fc / Fp) * np.exp(-Fp * t / mass) - Fc / Fp
    assert np.max(np.abs(res["box.v"][: len(t)] - v_ref)) < 1e-8


def test_rough_mass_slides_into_its_stop():
    # decelerating at mu g from v0, the right end hits smax after D = v0 t - mu g t^2 / 2
    mu, v0, D, e = 0.2, 2.0, 0.5, 0.5
    m = md.Model("slide")
    m.add(tr.MassWithStopAndFriction("box", m=1.0, L=0.2, smax=D + 0.1, mu=mu, g=G, e=e))
    res = m.compile(stabilization=None).simulate(2.0, v0={"box.s": v0}, **TOL)
    a = mu * G
    t1 = (v0 - np.sqrt(v0 ** 2 - 2 * a * D)) / a
    v1 = v0 - a * t1
    imp = _impacts(res, "box.upper")
    assert imp[0].t == pytest.approx(t1, abs=1e-9)
    before, after = _speeds_at(res, "box.v", imp[0].t)
    assert before == pytest.approx(v1, rel=1e-8) and after == pytest.approx(-e * v1, rel=1e-8)
    stick = [ev.t for ev in res.events if ev.kind == "stick"]
    assert stick[-1] == pytest.approx(t1 + e * v1 / a, abs=1e-9)


# ------------------------------------------------------------------------------ rotational

def _clutch_model(f_normalized=1.0, m_plate=1e-3):
    m = md.Model("clutch")
    j1 = m.add(rot.Inertia("J1", J=1.0))
    j2 = m.add(rot.Inertia("J2", J=2.0))
    clutch = m.add(rot.Clutch("clutch", fn_max=10.0, mu=0.3, cgeo=0.5,
                              f_normalized=f_normalized, m_plate=m_plate))
    torque = m.add(rot.Torque("tau", tau=1.0))
    m.connect(torque.flange, j1.flange_a)
    m.connect(j1.flange_b, clutch.flange_a)
    m.connect(clutch.flange_b, j2.flange_a)
    return m.compile(stabilization=None)


@pytest.mark.parametrize("m_plate", [1e-3, 1.0])
def test_clutch_slips_then_locks(m_plate):
    # slip: J1 w1' = 1 - mu cgeo fn = -0.5, J2 w2' = +1.5; lock-up at 5 - 0.5 t = 0.75 t
    res = _clutch_model(m_plate=m_plate).simulate(6.0, v0={"J1.w": 5.0}, **TOL)
    ev = [(e.t, e.kind) for e in res.events]
    assert [k for _, k in ev] == ["stick"]
    assert ev[0][0] == pytest.approx(4.0, abs=1e-9)
    slip = res.t < 4.0 - 1e-9
    assert np.max(np.abs(res["J1.w"][slip] - (5.0 - 0.5 * res.t[slip]))) < 1e-9
    assert np.max(np.abs(res["J2.w"][slip] - 0.75 * res.t[slip])) < 1e-9
    lock = res.t > 4.0 + 1e-9
    w_ref = 3.0 + (res.t[lock] - 4.0) / 3.0                   # common acceleration 1/(J1+J2)
    assert np.max(np.abs(res["J1.w"][lock] - w_ref)) < 1e-8
    assert np.max(np.abs(res["J2.w"][lock] - w_ref)) < 1e-8
    # contact forces: normal = fn exactly; friction torque = cgeo * tangential
    lam = res.contact_forces["clutch.friction"]
    assert np.allclose(lam[:, 0], 10.0, rtol=1e-10)
    assert np.allclose(0.5 * np.abs(lam[slip, 1]), 0.3 * 0.5 * 10.0, rtol=1e-10)
    assert np.allclose(0.5 * lam[lock, 1], 2.0 / 3.0, rtol=1e-8)   # J2 * common acceleration
    assert np.allclose(res["clutch.fn"], 10.0)
    assert np.allclose(res["clutch.p"], 0.0, atol=1e-12)


def test_clutch_engaging_at_t0_locks_at_the_closed_form_time_for_any_plate_mass():
    # free until t0 = 0.5 (J1 accelerates to 5.5), then slip: lock-up at 0.5 + 5.5 / 1.25
    times = []
    for mp in (1e-3, 1.0):
        system = _clutch_model(f_normalized=lambda t: md.if_else(t >= 0.5, 1.0, 0.0),
                               m_plate=mp)
        res = system.simulate(6.0, v0={"J1.w": 5.0}, **TOL)
        stick = [e.t for e in res.events if e.kind == "stick"]
        assert stick == [pytest.approx(4.9, abs=1e-9)]
        times.append([e.t for e in res.events])
        assert res["J1.w"][-1] == pytest.approx(res["J2.w"][-1], abs=1e-9)
    # the plate lands within sqrt(2 gap_tol m_plate / fn) of t0; lock-up is unchanged
    assert times[0][-1] == pytest.approx(times[1][-1], abs=1e-9)


@pytest.mark.parametrize("method", ["event", "auto", "timestepping"])
def test_brake_stops_a_spinning_inertia(method):
    # J w' = -mu cgeo fn: stops at J w0 / (mu cgeo fn) = 3 s after turning w0 t / 2 = 2.25 rad
    m = md.Model("brake")
    J = m.add(rot.Inertia("J", J=2.0))
    brake = m.add(rot.Brake("brake", fn_max=20.0, f_normalized=0.5, mu=0.4, cgeo=0.25))
    m.connect(J.flange_b, brake.flange_a)
    system = m.compile(stabilization=None)
    kw = TOL if method == "event" else dict(method=method)
    res = system.simulate(4.0, v0={"J.w": 1.5}, **kw)
    tol = dict(event=1e-9, auto=1e-8, timestepping=1e-3)[method]
    if method != "timestepping":
        assert [(e.kind) for e in res.events] == ["stick"]
        assert res.events[0].t == pytest.approx(3.0, abs=1e-9)
    assert res["J.phi"][-1] == pytest.approx(2.25, abs=tol)
    assert res["J.w"][-1] == pytest.approx(0.0, abs=tol)
    assert res["brake.w"][-1] == pytest.approx(0.0, abs=tol)


def test_bearing_friction_stick_slip_matches_the_closed_form():
    # J phi'' = sin t - tau_c sign(w): the stick-slip oscillator with m = J, F0 = 1, omega = 1
    # and the friction bound tau_c = mu m g
    J, tau_c = 2.0, 0.7
    m = md.Model("bearing")
    inertia = m.add(rot.Inertia("J", J=J))
    bearing = m.add(rot.BearingFriction("bearing", tau_c=tau_c))
    torque = m.add(rot.Torque("tau", tau=lambda t: md.sin(t)))
    m.connect(torque.flange, inertia.flange_a)
    m.connect(inertia.flange_b, bearing.flange_a)
    res = m.compile(stabilization=None).simulate(10.0, **TOL)
    ref = _analytic(10.0, m=J, F0=1.0, w=1.0, mu=tau_c / (J * G))
    got = [(e.t, e.extra["mode"] if e.kind == "slide" else "stick") for e in res.events]
    assert len(ref) >= 5
    assert [mo for _, mo in got] == [mo for _, mo in ref]
    assert np.max(np.abs(np.array([t for t, _ in got]) - [t for t, _ in ref])) < 1e-8
    assert res.events[0].t == pytest.approx(np.arcsin(tau_c), abs=1e-9)
    # the mu_pos-style table with a constant torque is the same component
    same = rot.BearingFriction("b2", tau_pos=[[0.0, tau_c], [10.0, tau_c]])
    assert [p[2] for p in same._params if p[0] == "tau_c"] == [tau_c]


# ------------------------------------------------------------------------------ bad input

def test_stop_must_act_on_a_mass():
    m = md.Model("bad")
    m.add(tr.Stop("stop", s_max=1.0))
    with pytest.raises(ModelError, match="stop.flange: nothing fixes their s"):
        m.compile()
    m = md.Model("bad2")
    wall = m.add(tr.Fixed("wall"))
    spring = m.add(tr.Spring("spring"))
    stop = m.add(tr.Stop("stop", s_max=1.0))
    m.connect(wall.flange, spring.flange_a)
    m.connect(spring.flange_b, stop.flange)
    with pytest.raises(ModelError, match="a contact force acts at a node without inertia"):
        m.compile()


def test_clutch_flanges_must_be_inertias():
    m = md.Model("bad")
    j = m.add(rot.Inertia("J"))
    c = m.add(rot.Clutch("clutch", fn_max=1.0))
    m.connect(j.flange_b, c.flange_a)
    with pytest.raises(ModelError, match="clutch.flange_b.phi: a contact force"):
        m.compile()


@pytest.mark.parametrize("make,match", [
    (lambda: rot.Clutch("c", fn_max=1.0, mu_pos=[[0, 0.5], [1, 0.4]]),
     "speed-dependent friction is not supported"),
    (lambda: rot.Brake("b", fn_max=1.0, peak=1.2), "peak=1.2 is not supported"),
    (lambda: rot.Clutch("c", fn_max=1.0, mu=0.3, mu_pos=[0, 0.3]), "mu or mu_pos, not both"),
    (lambda: rot.Clutch("c", fn_max=1.0, f_normalized=-0.5), "f_normalized=-0.5 must be >= 0"),
    (lambda: rot.BearingFriction("b", tau_pos=[[0, 1.0], [1, 2.0]]),
     "tau_pos=.*speed-dependent friction is not supported"),
    (lambda: rot.BearingFriction("b"), "give tau_c"),
    (lambda: tr.MassWithStopAndFriction("m", F_Stribeck=10.0, F_Coulomb=5.0),
     "F_Stribeck=10.0 is not supported"),
    (lambda: tr.MassWithStopAndFriction("m", mu=0.3, F_Coulomb=5.0), "mu or F_Coulomb"),
    (lambda: tr.Stop("s"), "both bounds are infinite"),
    (lambda: tr.Stop("s", s_min=2.0, s_max=1.0), "s_min=2.0 must be below s_max=1.0"),
    (lambda: tr.Stop("s", s_max=1.0, e=1.5), r"outside \[0, 1\]"),
])
def test_unsupported_options_raise_clear_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_constant_mu_pos_table_is_accepted():
    c = rot.Clutch("c", fn_max=1.0, mu_pos=[[0.0, 0.4], [5.0, 0.4]])
    assert [p[2] for p in c._params if p[0] == "mu"] == [0.4]
    assert [p[2] for p in rot.Brake("b")._params if p[0] == "mu"] == [0.5]   # MSL default
