"""Modelica.Mechanics.Rotational breadth (sources, sensors, kinematic components) against
closed forms and the behaviour the MSL documentation states for each class."""
import numpy as np
import pytest

import mechdae as md
from mechdae.components import rotational as rot
from mechdae.components import translational as tr

TIGHT = dict(rtol=1e-10, atol=1e-12)


def run(m, t_final=1.0, n=11, **kw):
    res = m.compile().simulate(t_final, output_times=np.linspace(0.0, t_final, n),
                               **dict(TIGHT, **kw))
    return res.t, res


def test_constant_torque_and_torque_step():
    """ConstantTorque: phi = tau t^2/(2 J), MSL's tau = -flange.tau = tau_constant;
    TorqueStep: the step from startTime on."""
    m = md.Model("ct")
    J1 = m.add(rot.Inertia("J1", J=2.0))
    J2 = m.add(rot.Inertia("J2", J=1.0))
    C = m.add(rot.ConstantTorque("C", tau_constant=3.0))
    S = m.add(rot.TorqueStep("S", stepTorque=2.0, offsetTorque=-1.0, startTime=0.5))
    m.connect(C.flange, J1.flange_a)
    m.connect(S.flange, J2.flange_a)
    t, res = run(m, n=21)
    assert np.allclose(res["J1.phi"], 3.0 * t ** 2 / 4.0, atol=1e-12)
    assert np.allclose(res["C.tau"], 3.0) and np.allclose(res["C.w"], res["J1.w"])
    assert np.allclose(res["J2.w"], np.where(t < 0.5, -t, -0.5 + (t - 0.5)), atol=1e-7)


def test_torque2_and_support_reaction_conserve_angular_momentum():
    """Torque2 between two inertias, and a torque source with useSupport on a housing:
    the reactions keep J1 w1 + J2 w2 = 0."""
    m = md.Model("t2")
    J1 = m.add(rot.Inertia("J1", J=1.0))
    J2 = m.add(rot.Inertia("J2", J=4.0))
    T = m.add(rot.Torque2("T", tau=lambda t: 1.0 + t))
    m.connect(J1.flange_b, T.flange_a)
    m.connect(T.flange_b, J2.flange_a)
    J3 = m.add(rot.Inertia("J3", J=1.0))
    H = m.add(rot.Inertia("H", J=3.0))
    L = m.add(rot.LinearSpeedDependentTorque("L", tau_nominal=-2.0, w_nominal=1.0,
                                             TorqueDirection=False, useSupport=True))
    m.connect(L.flange, J3.flange_a)
    m.connect(L.support, H.flange_a)
    t, res = run(m, v0={"J3.w": 1.0})
    assert np.allclose(res["J2.w"], (t + t ** 2 / 2) / 4.0, atol=1e-9)
    assert np.allclose(res["J1.w"] + 4.0 * res["J2.w"], 0.0, atol=1e-9)
    # relative speed decays with the reduced inertia: w' = -2 w (1/J3 + 1/H)
    assert np.allclose(res["L.w"], np.exp(-2.0 * (1 + 1 / 3.0) * t), rtol=1e-8)
    assert np.allclose(res["J3.w"] + 3.0 * res["H.w"], 1.0, atol=1e-9)


@pytest.mark.parametrize("cls, w", [
    ("QuadraticSpeedDependentTorque", lambda t: 1.0 / (1.0 + t)),
    ("InverseSpeedDependentTorque", lambda t: np.sqrt(np.maximum(1.0 - 2.0 * t, 0.0))),
])
def test_fan_and_constant_power_loads(cls, w):
    """A fan load tau = -(w/w_n)^2 (J w' = -w^2) and a constant-power load tau =
    -w_n/|w| (J w w' = -1), from w = 1 (outside the regularization w0)."""
    m = md.Model("ld")
    J = m.add(rot.Inertia("J", J=1.0))
    L = m.add(getattr(rot, cls)("L", tau_nominal=-1.0, w_nominal=1.0))
    m.connect(L.flange, J.flange_a)
    t, res = run(m, t_final=0.4, v0={"J.w": 1.0})
    assert np.allclose(res["J.w"], w(t), rtol=1e-8)


def test_sign_torque_brakes_at_constant_rate():
    m = md.Model("sg")
    J = m.add(rot.Inertia("J", J=2.0))
    S = m.add(rot.SignTorque("S", tau_nominal=-4.0, reg="Linear", w0=0.01))
    m.connect(S.flange, J.flange_a)
    t, res = run(m, t_final=0.5, v0={"J.w": 5.0})
    assert np.allclose(res["J.w"], 5.0 - 2.0 * t, rtol=1e-9)
    assert np.allclose(res["S.tau"], -4.0)


def test_eddy_current_torque_braking_curve():
    """tau = 2 tau_n w_n/(1 + w_n^2) at w_n = w/w_nominal (w = 3, w_nominal = 1: 0.6
    tau_n), always braking; lossPower = tau w."""
    m = md.Model("ec")
    C = m.add(rot.ConstantSpeed("C", w_fixed=3.0))
    E = m.add(rot.EddyCurrentTorque("E", tau_nominal=10.0, w_nominal=1.0))
    m.connect(C.flange, E.flange)
    t, res = run(m)
    assert np.allclose(res["E.tau"], 6.0) and np.allclose(res["E.lossPower"], 18.0)
    assert np.allclose(res["C.tau"], 6.0)        # the drive supplies the braking torque


def test_speed_source_drives_inertia_through_spring_to_steady_torque():
    """MSL's typical test bench: Speed (w_ref) -> spring -> inertia -> damper -> ground.
    Steady state: the inertia turns at w_ref, the spring twists by d w_ref / c and the
    drive delivers the damper's torque d w_ref."""
    m = md.Model("sp")
    S = m.add(rot.Speed("S", w_ref=lambda t: 10.0 + 0 * t))     # a varying-type reference
    c = m.add(rot.Spring("c", c=1e3))
    J = m.add(rot.Inertia("J", J=0.1))
    d = m.add(rot.Damper("d", d=2.0))
    F = m.add(rot.Fixed("F"))
    m.connect(S.flange, c.flange_a)
    m.connect(c.flange_b, J.flange_a)
    m.connect(J.flange_b, d.flange_a)
    m.connect(d.flange_b, F.flange)
    t, res = run(m, t_final=3.0, n=4, v0={"J.w": 10.0}, q0={"J.phi": -0.02})
    assert res["J.w"][-1] == pytest.approx(10.0, abs=1e-6)
    assert res["c.phi_rel"][-1] == pytest.approx(-2.0 * 10.0 / 1e3, abs=1e-8)
    assert res["S.flange.tau"][-1] == pytest.approx(-20.0, abs=1e-5)


def test_constant_speed_and_accelerate_in_closed_form():
    """ConstantSpeed and Accelerate with constant references position an inertia directly
    (rheonomic constraints); their torques are J a and 0."""
    m = md.Model("cf")
    J1 = m.add(rot.Inertia("J1", J=2.0))
    J2 = m.add(rot.Inertia("J2", J=2.0))
    A = m.add(rot.Accelerate("A", a_ref=3.0, w_start=1.0))
    C = m.add(rot.ConstantSpeed("C", w_fixed=2.0, phi_start=0.1))
    m.connect(A.flange, J1.flange_a)
    m.connect(C.flange, J2.flange_a)
    t, res = run(m)
    assert np.allclose(res["J1.phi"], t + 1.5 * t ** 2, atol=1e-10)
    assert np.allclose(res["A.flange.tau"], -6.0, atol=1e-8)       # J a, into the source
    assert np.allclose(res["J2.phi"], 0.1 + 2.0 * t, atol=1e-10)
    assert np.allclose(res["C.tau"], 0.0, atol=1e-8)


def test_sensors_power_multi_acceleration_relative():
    """A torque 2 + t drives J1, which drives J2 through a power sensor and a multi
    sensor: a = tau/(J1 + J2); power = J2 a w; relative sensors read 0 across rigid
    parts and J1's angle across a Disc's offset."""
    m = md.Model("sens")
    T = m.add(rot.Torque("T", tau=lambda t: 2.0 + t))
    J1 = m.add(rot.Inertia("J1", J=1.0))
    P = m.add(rot.PowerSensor("P"))
    X = m.add(rot.MultiSensor("X"))
    D = m.add(rot.Disc("D", deltaPhi=0.25))
    J2 = m.add(rot.Inertia("J2", J=3.0))
    acc = m.add(rot.AccSensor("acc"))
    ra, rw, rc = (m.add(rot.RelAngleSensor("ra")), m.add(rot.RelSpeedSensor("rw")),
                  m.add(rot.RelAccSensor("rc")))
    rs = m.add(rot.RelativeStates("rs"))
    m.connect(T.flange, J1.flange_a)
    m.connect(J1.flange_b, P.flange_a)
    m.connect(P.flange_b, X.flange_a)
    m.connect(X.flange_b, D.flange_a)
    m.connect(D.flange_b, J2.flange_a)
    m.connect(acc.flange, J2.flange_b)
    for s in (ra, rw, rc, rs):
        m.connect(s.flange_a, J1.flange_a)
        m.connect(s.flange_b, J2.flange_b)
    t, res = run(m)
    a = (2.0 + t) / 4.0
    w = (2.0 * t + t ** 2 / 2) / 4.0
    assert np.allclose(res["acc.a"], a, atol=1e-9)
    assert np.allclose(res["X.tau"], 3.0 * a, atol=1e-9)
    assert np.allclose(res["X.w"], w, atol=1e-9)
    assert np.allclose(res["P.power"], 3.0 * a * w, atol=1e-8)
    assert np.allclose(res["ra.phi_rel"], 0.25, atol=1e-9)
    assert np.allclose(res["rs.phi_rel"], 0.25, atol=1e-9)
    assert np.allclose(res["D.phi"], res["J2.phi"] - 0.125, atol=1e-9)
    for name in ("rw.w_rel", "rc.a_rel", "rs.w_rel", "rs.a_rel"):
        assert np.allclose(res[name], 0.0, atol=1e-9)


def test_ideal_planetary_willis_equation_and_torques():
    """Sun and ring driven at constant speeds: the carrier turns at (w_s + r w_r)/(1 + r)
    (Willis); a load torque on the carrier splits as sun : ring : carrier = 1 : r :
    -(1 + r)."""
    r = 100 / 50
    m = md.Model("pl")
    S = m.add(rot.ConstantSpeed("S", w_fixed=3.0))
    R = m.add(rot.ConstantSpeed("R", w_fixed=-1.0))
    P = m.add(rot.IdealPlanetary("P", ratio=r))
    L = m.add(rot.ConstantTorque("L", tau_constant=-6.0))
    m.connect(S.flange, P.sun)
    m.connect(R.flange, P.ring)
    m.connect(P.carrier, L.flange)
    t, res = run(m)
    w_c = (3.0 + r * -1.0) / (1 + r)
    assert np.allclose(res["P.carrier.phi"], w_c * t, atol=1e-10)
    tau_sun = res["P.sun.tau"]
    assert np.allclose(tau_sun, 6.0 / (1 + r), atol=1e-9)
    assert np.allclose(res["P.ring.tau"], r * tau_sun, atol=1e-9)
    assert np.allclose(res["P.carrier.tau"], -(1 + r) * tau_sun, atol=1e-9)


def test_planetary_with_inertias_is_a_single_degree_of_freedom_per_two_shafts():
    """Sun inertia driven by a torque, ring fixed: the carrier turns at w_sun/(1 + r) and
    the sun sees the carrier inertia reflected by (1 + r)^2."""
    r = 3.0
    m = md.Model("pl2")
    T = m.add(rot.ConstantTorque("T", tau_constant=2.0))
    Js = m.add(rot.Inertia("Js", J=0.1))
    Jc = m.add(rot.Inertia("Jc", J=1.6))
    P = m.add(rot.IdealPlanetary("P", ratio=r))
    F = m.add(rot.Fixed("F"))
    m.connect(T.flange, Js.flange_a)
    m.connect(Js.flange_b, P.sun)
    m.connect(P.carrier, Jc.flange_a)
    m.connect(P.ring, F.flange)
    t, res = run(m)
    a_sun = 2.0 / (0.1 + 1.6 / (1 + r) ** 2)
    assert np.allclose(res["Js.w"], a_sun * t, rtol=1e-8)
    assert np.allclose(res["Jc.w"], a_sun * t / (1 + r), rtol=1e-8)


def test_rack_and_rolling_wheel_transmit_ratio():
    """IdealGearR2T (ratio rad/m) and IdealRollingWheel (radius) between an inertia and a
    mass: the reflected inertia m/ratio^2 (m radius^2) and the force ratio tau."""
    for cls, kw, k in ((rot.IdealGearR2T, dict(ratio=4.0), 1 / 4.0),
                       (rot.IdealRollingWheel, dict(radius=0.5), 0.5)):
        m = md.Model("r2t")
        T = m.add(rot.ConstantTorque("T", tau_constant=1.0))
        J = m.add(rot.Inertia("J", J=0.2))
        G = m.add(cls("G", **kw))
        M = m.add(tr.Mass("M", m=8.0))
        m.connect(T.flange, J.flange_a)
        m.connect(J.flange_b, G.flangeR)
        m.connect(G.flangeT, M.flange_a)
        t, res = run(m)
        a = 1.0 / (0.2 + 8.0 * k ** 2)
        assert np.allclose(res["J.w"], a * t, rtol=1e-8)
        assert np.allclose(res["M.v"], k * a * t, rtol=1e-8)
        assert np.allclose(res["G.flangeT.f"] * k + res["G.flangeR.tau"], 0.0, atol=1e-9)
        assert tr.IdealGearR2T is rot.IdealGearR2T


def test_torque_to_angle_adaptor_outputs_the_motion_it_causes():
    m = md.Model("ad")
    J = m.add(rot.Inertia("J", J=2.0))
    ad = m.add(rot.TorqueToAngleAdaptor("ad", tau=-4.0))
    m.connect(ad.flange, J.flange_a)
    t, res = run(m)
    assert np.allclose(res["ad.phi"], t ** 2, atol=1e-10)
    assert np.allclose(res["ad.w"], 2 * t, atol=1e-10)
    assert np.allclose(res["ad.a"], 2.0, atol=1e-10)


def test_elasto_backlash_free_play_then_spring():
    """Inertia (J = 1, w = 1) centered in a backlash b = 0.2 against a spring c = 100:
    free for 0.1 s, half a spring oscillation (pi/10 s), back at -1 through the free
    play; no torque inside the play."""
    m = md.Model("bl")
    F = m.add(rot.Fixed("F"))
    B = m.add(rot.ElastoBacklash("B", c=100.0, b=0.2))
    J = m.add(rot.Inertia("J", J=1.0))
    m.connect(F.flange, B.flange_a)
    m.connect(B.flange_b, J.flange_a)
    t_end = 0.1 + np.pi / 10 + 0.05
    t = np.linspace(0.0, t_end, 1001)
    res = m.compile().simulate(t_end, v0={"J.w": 1.0}, output_times=t, **TIGHT)
    assert res["J.phi"][-1] == pytest.approx(0.05, abs=1e-7)
    assert res["J.w"][-1] == pytest.approx(-1.0, abs=1e-7)
    assert np.max(res["J.phi"]) == pytest.approx(0.1 + 0.1, abs=1e-5)   # 1/sqrt(c) past it
    inside = np.abs(res["J.phi"]) < 0.1 - 1e-9
    assert np.all(res["B.tau"][inside] == 0.0)


@pytest.mark.parametrize("varying", [False, True])
def test_speed_source_on_a_free_housing_conserves_angular_momentum(varying):
    """Speed(useSupport=True) between a free housing H and a spring-coupled load J (with
    a damper back to the housing): the load turns at w_ref relative to the housing, and
    the housing takes every reaction, J w_J + H w_H = 0 (a constant reference in closed
    form, a varying one through the source's own state)."""
    m = md.Model("sup")
    H = m.add(rot.Inertia("H", J=3.0))
    J = m.add(rot.Inertia("J", J=1.0))
    c = m.add(rot.Spring("c", c=100.0))
    d = m.add(rot.Damper("d", d=5.0))
    S = m.add(rot.Speed("S", w_ref=(lambda t: 2.0 + 0 * t) if varying else 2.0, exact=True,
                        useSupport=True))
    m.connect(S.support, H.flange_a)
    m.connect(S.flange, c.flange_a)
    m.connect(c.flange_b, J.flange_a)
    m.connect(J.flange_b, d.flange_a)
    m.connect(d.flange_b, H.flange_b)
    t, res = run(m, t_final=6.0, n=7)
    assert res["J.w"][-1] - res["H.w"][-1] == pytest.approx(2.0, abs=1e-5)
    assert np.allclose(res["J.w"] + 3.0 * res["H.w"], 0.0, atol=1e-10)
