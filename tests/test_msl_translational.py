"""Modelica.Mechanics.Translational breadth (sources, sensors, components) against closed
forms and the behaviour the MSL documentation states for each class."""
import casadi as ca
import numpy as np
import pytest

import mechdae as md
from mechdae.components import translational as tr
from mechdae.components._support import regularized_sign

TIGHT = dict(rtol=1e-10, atol=1e-12)


def run(m, t_final=1.0, n=11, **kw):
    res = m.compile().simulate(t_final, output_times=np.linspace(0.0, t_final, n),
                               **dict(TIGHT, **kw))
    return res.t, res


def test_constant_force_accelerates_mass_uniformly():
    """ConstantForce on a mass: s = F t^2/(2 m); MSL's f = flange.f = -f_constant."""
    m = md.Model("cf")
    M = m.add(tr.Mass("M", m=2.0))
    F = m.add(tr.ConstantForce("F", f_constant=3.0))
    m.connect(F.flange, M.flange_a)
    t, res = run(m)
    assert np.allclose(res["M.s"], 3.0 * t ** 2 / 4.0, atol=1e-12)
    assert np.allclose(res["F.f"], -3.0)
    assert m.flatten_stats["network_fast_path"]        # a template in the closed-form pass


def test_force_step_with_support_conserves_momentum():
    """ForceStep between two masses (useSupport): the support takes the reaction, so the
    total momentum stays 0; the step acts from startTime on."""
    m = md.Model("fs")
    A = m.add(tr.Mass("A", m=1.0))
    B = m.add(tr.Mass("B", m=3.0))
    F = m.add(tr.ForceStep("F", stepForce=2.0, offsetForce=1.0, startTime=0.5,
                           useSupport=True))
    m.connect(F.flange, A.flange_a)
    m.connect(F.support, B.flange_a)
    t, res = run(m, n=21)
    f = 1.0 + 2.0 * (t >= 0.5)
    v_a = np.where(t < 0.5, t, 0.5 + 3.0 * (t - 0.5))
    assert np.allclose(res["A.v"], v_a, atol=1e-7)
    assert np.allclose(res["A.v"] * 1.0 + res["B.v"] * 3.0, 0.0, atol=1e-9)
    assert np.allclose(res["F.f"][t != 0.5], -f[t != 0.5])


def test_force2_pushes_two_masses_apart():
    m = md.Model("f2")
    A = m.add(tr.Mass("A", m=1.0))
    B = m.add(tr.Mass("B", m=2.0))
    F = m.add(tr.Force2("F", f=lambda t: 2.0 * t))
    m.connect(A.flange_b, F.flange_a)
    m.connect(F.flange_b, B.flange_a)
    t, res = run(m)
    assert np.allclose(res["A.s"], -t ** 3 / 3.0, atol=1e-9)
    assert np.allclose(res["B.s"], t ** 3 / 6.0, atol=1e-9)


@pytest.mark.parametrize("cls, law", [
    ("LinearSpeedDependentForce", lambda v: -v / 2.0),
    ("QuadraticSpeedDependentForce", lambda v: -(v / 2.0) ** 2),
])
def test_speed_dependent_load_on_a_coasting_mass(cls, law):
    """A load f_nominal < 0 (braking in the direction of motion) on a mass coasting at
    v0: m v' = f_nominal |v/v_nominal|^k, solved in closed form."""
    m = md.Model("sd")
    M = m.add(tr.Mass("M", m=1.0))
    F = m.add(getattr(tr, cls)("F", f_nominal=-1.0, v_nominal=2.0))
    m.connect(F.flange, M.flange_a)
    t, res = run(m, v0={"M.v": 4.0})
    v = 4.0 * np.exp(-t / 2.0) if cls.startswith("Linear") else 1.0 / (1 / 4.0 + t / 4.0)
    assert np.allclose(res["M.v"], v, rtol=1e-8)
    assert np.allclose(res["F.v"], v, rtol=1e-8)
    assert np.allclose(-res["F.f"], law(res["F.v"]), rtol=1e-10)


def test_speed_dependent_force_direction_false_changes_sign():
    """ForceDirection=False: the force follows the sign of v (a viscous load); each
    instance keeps its own law (no shared template for different options)."""
    m = md.Model("sd2")
    M1 = m.add(tr.Mass("M1", m=1.0))
    M2 = m.add(tr.Mass("M2", m=1.0))
    F1 = m.add(tr.QuadraticSpeedDependentForce("F1", f_nominal=-1.0, v_nominal=1.0))
    F2 = m.add(tr.QuadraticSpeedDependentForce("F2", f_nominal=-1.0, v_nominal=1.0,
                                               ForceDirection=False))
    m.connect(F1.flange, M1.flange_a)
    m.connect(F2.flange, M2.flange_a)
    t, res = run(m, t_final=0.5, v0={"M1.v": -1.0, "M2.v": -1.0})
    assert np.allclose(res["M1.v"], -1.0 / (1.0 - t), rtol=1e-8)     # v' = -v^2: pushes on
    assert np.allclose(res["M2.v"], -1.0 / (1.0 + t), rtol=1e-8)     # v' = +v^2: brakes


@pytest.mark.parametrize("reg", ["Exp", "Sine", "Linear", "CoSine"])
def test_sign_force_is_f_nominal_beyond_v0(reg):
    """SignForce: -f_nominal sign(v) outside the regularization (|v| >= v0); MSL's exact
    regularized values inside."""
    m = md.Model("sg")
    M = m.add(tr.Mass("M", m=1.0))
    F = m.add(tr.SignForce("F", f_nominal=-2.0, reg=reg, v0=0.1))
    m.connect(F.flange, M.flange_a)
    t, res = run(m, t_final=0.5, v0={"M.v": 3.0})
    assert np.allclose(res["M.v"], 3.0 - 2.0 * t, rtol=1e-9)
    v = np.array([-0.05, 0.02, 0.05, 0.2])
    expect = {"Exp": 2 / (1 + np.exp(-v / 0.001)) - 1, "Sine": np.sin(np.pi / 2 * v / 0.1),
              "Linear": v / 0.1,
              "CoSine": np.sign(v) * (1 - np.cos(np.pi / 2 * v / 0.1))}[reg]
    expect = np.where(np.abs(v) >= 0.1, np.sign(v), expect) if reg != "Exp" else expect
    got = [float(ca.evalf(regularized_sign(ca.DM(x), 0.1, reg))) for x in v]
    assert np.allclose(got, expect, rtol=1e-12)
    with pytest.raises(ValueError, match="reg='Tanh'"):
        tr.SignForce("bad", f_nominal=1.0, reg="Tanh")


def test_inverse_speed_dependent_force_is_constant_power():
    """f = f_nominal v_nominal / |v|: the power f v stays f_nominal v_nominal, so the
    kinetic energy grows linearly: v^2 = v0^2 + 2 P t / m."""
    m = md.Model("inv")
    M = m.add(tr.Mass("M", m=2.0))
    F = m.add(tr.InverseSpeedDependentForce("F", f_nominal=3.0, v_nominal=1.0))
    m.connect(F.flange, M.flange_a)
    t, res = run(m, v0={"M.v": 1.0})
    assert np.allclose(res["M.v"], np.sqrt(1.0 + 2 * 3.0 * t / 2.0), rtol=1e-8)


def test_eddy_current_force_peaks_at_nominal_speed():
    """EddyCurrentForce: |f| = f_nominal at v = v_nominal; lossPower = f v."""
    m = md.Model("ed")
    C = m.add(tr.ConstantSpeed("C", v_fixed=2.0))
    E = m.add(tr.EddyCurrentForce("E", f_nominal=5.0, v_nominal=2.0))
    m.connect(C.flange, E.flange)
    t, res = run(m)
    assert np.allclose(res["E.f"], 5.0) and np.allclose(res["E.lossPower"], 10.0)
    assert np.allclose(res["C.f"], -5.0)           # the drive's flange takes -f


def test_constant_speed_drives_a_mass_against_a_spring():
    """ConstantSpeed bolted to a mass (a rheonomic constraint): s = v t; the drive's
    force is the spring's c s plus the mass's m a = 0."""
    m = md.Model("cs")
    M = m.add(tr.Mass("M", m=1.0))
    C = m.add(tr.ConstantSpeed("C", v_fixed=2.0, s_start=0.5))
    k = m.add(tr.Spring("k", c=10.0))
    W = m.add(tr.Fixed("W"))
    m.connect(C.flange, M.flange_a)
    m.connect(M.flange_b, k.flange_a)
    m.connect(k.flange_b, W.flange)
    t, res = run(m)
    assert np.allclose(res["M.s"], 0.5 + 2.0 * t, atol=1e-9)
    assert np.allclose(res["C.f"], -10.0 * res["M.s"], rtol=1e-8)


@pytest.mark.parametrize("exact", [True, False])
@pytest.mark.parametrize("varying", [False, True])
def test_speed_source_drives_mass_through_spring_to_steady_force(exact, varying):
    """Speed (v_ref = 2) -> spring -> mass -> damper -> ground: in steady state the mass
    moves at v_ref and the drive's force is the damper's d v_ref. The filtered source
    starts at v_ref (MSL's initial equation), so a constant reference is exact either way;
    a reference given as a function of time is integrated in the source's own states."""
    m = md.Model("sp")
    M = m.add(tr.Mass("M", m=1.0))
    k = m.add(tr.Spring("k", c=100.0))
    S = m.add(tr.Speed("S", v_ref=(lambda t: 2.0 + 0 * t) if varying else 2.0, exact=exact))
    d = m.add(tr.Damper("d", d=5.0))
    W = m.add(tr.Fixed("W"))
    m.connect(S.flange, k.flange_a)
    m.connect(k.flange_b, M.flange_a)
    m.connect(M.flange_b, d.flange_a)
    m.connect(d.flange_b, W.flange)
    t, res = run(m, t_final=8.0, n=5)
    assert res["M.v"][-1] == pytest.approx(2.0, abs=1e-6)
    assert res["S.flange.f"][-1] == pytest.approx(-5.0 * 2.0, abs=1e-5)
    assert np.allclose(res["S.s"], 2.0 * t, atol=1e-8)


def test_filtered_speed_source_follows_its_first_order_filter():
    """Speed(exact=False) with a ramp reference v_ref = t: v' = (t - v) w_crit from
    v(0) = 0, i.e. v = t - (1 - exp(-w_crit t))/w_crit."""
    m = md.Model("flt")
    S = m.add(tr.Speed("S", v_ref=lambda t: t, f_crit=2.0))
    k = m.add(tr.Spring("k", c=1.0))
    M = m.add(tr.Mass("M", m=1.0))
    m.connect(S.flange, k.flange_a)
    m.connect(k.flange_b, M.flange_a)
    t, res = run(m)
    wc = 2 * np.pi * 2.0
    assert np.allclose(res["S.v"], t - (1 - np.exp(-wc * t)) / wc, atol=1e-8)
    assert np.allclose(res["S.a"], 1 - np.exp(-wc * t), atol=1e-7)


def test_accelerate_source_integrates_its_reference():
    """Accelerate(a_ref = t): s = t^3/6 (states from 0); a stiff spring makes the mass
    follow it."""
    m = md.Model("acc")
    A = m.add(tr.Accelerate("A", a_ref=lambda t: t))
    k = m.add(tr.Spring("k", c=1e6))
    M = m.add(tr.Mass("M", m=2.0))
    m.connect(A.flange, k.flange_a)
    m.connect(k.flange_b, M.flange_a)
    t, res = run(m)
    assert np.allclose(res["A.s"], t ** 3 / 6, atol=1e-10)
    assert np.allclose(res["A.v"], t ** 2 / 2, atol=1e-10)
    assert np.allclose(res["M.s"], t ** 3 / 6, atol=5e-5)


def test_speed_source_bolted_to_a_mass_is_refused_when_its_reference_varies():
    m = md.Model("bad")
    M = m.add(tr.Mass("M", m=1.0))
    S = m.add(tr.Speed("S", v_ref=lambda t: t))
    m.connect(S.flange, M.flange_a)
    with pytest.raises(md.ModelError, match="general variable"):
        m.compile()


def test_sensors_read_acceleration_relative_motion_and_power():
    """A force F(t) = 2 + t drives mass A, which pushes mass B through a power sensor and
    a multi-sensor: a = F/(mA + mB); the sensors pass the force mB a and read power f v;
    relative sensors between the masses read the rigid offset (0 here)."""
    m = md.Model("sens")
    F = m.add(tr.Force("F", f=lambda t: 2.0 + t))
    A = m.add(tr.Mass("A", m=1.0))
    B = m.add(tr.Mass("B", m=3.0))
    P = m.add(tr.PowerSensor("P"))
    X = m.add(tr.MultiSensor("X"))
    acc = m.add(tr.AccSensor("acc"))
    rel_s = m.add(tr.RelPositionSensor("rel_s"))
    rel_v = m.add(tr.RelSpeedSensor("rel_v"))
    rel_a = m.add(tr.RelAccSensor("rel_a"))
    rs = m.add(tr.RelativeStates("rs"))
    m.connect(F.flange, A.flange_a)
    m.connect(A.flange_b, P.flange_a)
    m.connect(P.flange_b, X.flange_a)
    m.connect(X.flange_b, B.flange_a)
    m.connect(acc.flange, B.flange_b)
    for s in (rel_s, rel_v, rel_a, rs):
        m.connect(s.flange_a, F.flange)
        m.connect(s.flange_b, B.flange_b)
    t, res = run(m)
    a = (2.0 + t) / 4.0
    v = (2.0 * t + t ** 2 / 2) / 4.0
    assert np.allclose(res["acc.a"], a, atol=1e-9)
    assert np.allclose(res["P.power"], 3.0 * a * v, atol=1e-8)
    assert np.allclose(res["X.f"], 3.0 * a, atol=1e-9)
    assert np.allclose(res["X.v"], v, atol=1e-9)
    assert np.allclose(res["X.power"], res["P.power"], atol=1e-12)
    for name in ("rel_s.s_rel", "rel_v.v_rel", "rel_a.a_rel", "rs.s_rel", "rs.v_rel",
                 "rs.a_rel"):
        assert np.allclose(res[name], 0.0, atol=1e-9)


def test_rod_keeps_two_masses_at_its_length():
    m = md.Model("rod")
    F = m.add(tr.ConstantForce("F", f_constant=4.0))
    A = m.add(tr.Mass("A", m=1.0))
    R = m.add(tr.Rod("R", L=0.3))
    B = m.add(tr.Mass("B", m=1.0))
    m.connect(F.flange, A.flange_a)
    m.connect(A.flange_b, R.flange_a)
    m.connect(R.flange_b, B.flange_a)
    t, res = run(m)
    assert np.allclose(res["B.s"] - res["A.s"], 0.3, atol=1e-9)
    assert np.allclose(res["A.s"], t ** 2, atol=1e-9)
    assert np.allclose(res["R.flange_b.f"], -2.0, atol=1e-8)    # B's share m_B a


def test_force_to_position_adaptor_outputs_the_motion_it_causes():
    m = md.Model("ad")
    M = m.add(tr.Mass("M", m=2.0))
    ad = m.add(tr.GeneralForceToPositionAdaptor("ad", f=-4.0))
    m.connect(ad.flange, M.flange_a)
    t, res = run(m)
    assert np.allclose(res["ad.s"], t ** 2, atol=1e-10)      # flange.f = f: the node gets -f
    assert np.allclose(res["ad.a"], 2.0, atol=1e-10)


def test_units_are_declared_for_parameters_and_outputs():
    for cls in ("ConstantForce", "Speed", "PowerSensor", "Rod"):
        assert all(isinstance(u, str) for u in getattr(tr, cls).units.values())
    assert tr.Speed.units["v_ref"] == "m/s" and tr.PowerSensor.units["power"] == "W"


def test_elasto_gap_bounces_elastically_and_never_pulls():
    """A mass at s = 0.5 moving at -1 toward an ElastoGap on a wall (s_rel0 = 0): free
    flight for 0.5 s, half an oscillation of the contact spring (pi/w, w = sqrt(c/m)),
    then back at +1 (d = 0). With damping the contact force stays a push (f <= 0 at
    flange_b, MSL's damping limited by the spring force) and the energy lost is the
    integral of lossPower."""
    from scipy.integrate import cumulative_simpson
    for d in (0.0, 20.0):
        m = md.Model("gap")
        W = m.add(tr.Fixed("W"))
        G = m.add(tr.ElastoGap("G", c=1e4, d=d))
        M = m.add(tr.Mass("M", m=1.0))
        m.connect(W.flange, G.flange_a)
        m.connect(G.flange_b, M.flange_a)
        w = 100.0
        t_out = 0.5 + np.pi / w + 0.2
        t = np.linspace(0.0, t_out, 4001)
        res = m.compile().simulate(t_out, q0={"M.s": 0.5}, v0={"M.v": -1.0},
                                   output_times=t, **TIGHT)
        assert np.all(res["G.f"] <= 1e-12)
        if d == 0.0:
            assert res["M.v"][-1] == pytest.approx(1.0, abs=1e-6)
            assert res["M.s"][-1] == pytest.approx(0.2, abs=1e-6)
            assert np.min(res["M.s"]) == pytest.approx(-1.0 / w, rel=1e-4)
        else:
            E = 0.5 * res["M.v"] ** 2 + 0.5 * 1e4 * np.minimum(res["M.s"], 0.0) ** 2
            lost = cumulative_simpson(res["G.lossPower"], x=t, initial=0.0)
            assert np.max(np.abs(E - E[0] + lost)) < 1e-4
            assert 0.0 < res["M.v"][-1] < 1.0


def test_rolling_resistance_decelerates_uniformly():
    """RollingResistance on a coasting mass: m v' = -Cr fWeight cos(atan(inclination))
    while v > v0 (here Linear regularization below 1 mm/s)."""
    m = md.Model("roll")
    M = m.add(tr.Mass("M", m=2.0))
    R = m.add(tr.RollingResistance("R", fWeight=2.0 * 9.81, CrConstant=0.05,
                                   inclinationConstant=0.75, reg="Linear", v0=1e-3))
    m.connect(R.flange, M.flange_a)
    t, res = run(m, v0={"M.v": 1.0})
    dec = 0.05 * 9.81 * 0.8
    assert np.allclose(res["M.v"], 1.0 - dec * t, atol=1e-9)
    assert np.allclose(res["R.f"], 0.05 * 2 * 9.81 * 0.8, atol=1e-9)   # = flange.f


def test_vehicle_accelerates_and_reaches_its_terminal_speed():
    """Vehicle driven by a constant wheel torque: (m + J/R^2) a = tau/R - Cr m g
    - m g sin(atan(inclination)) without drag; with drag and a head wind vw the terminal
    speed solves tau/R = Cr m g + Cd A rho (v - vw)^2/2."""
    from mechdae.components import rotational as rot
    g = 9.80665

    def vehicle(**kw):
        m = md.Model("veh")
        V = m.add(tr.Vehicle("car", m=1000.0, J=2.0, R=0.3, **kw))
        T = m.add(rot.ConstantTorque("T", tau_constant=300.0))
        m.connect(T.flange, V.flangeR)
        return m

    t, res = run(vehicle(Cd=0.0, inclinationConstant=0.05), t_final=10.0,
                 v0={"car.mass.v": 1.0})
    a = (1000.0 - 0.015 * 1000 * g * np.cos(np.arctan(0.05))
         - 1000 * g * np.sin(np.arctan(0.05))) / (1000.0 + 2.0 / 0.3 ** 2)
    assert np.allclose(res["car.v"], 1.0 + a * t, atol=1e-8)
    assert np.allclose(res["car.a"], a, atol=1e-8)
    t, res = run(vehicle(A=2.0, Cd=0.3, CrConstant=0.01, vWindConstant=5.0), t_final=600.0,
                 n=7, v0={"car.mass.v": 1.0})
    v_inf = 5.0 + np.sqrt((1000.0 - 0.01 * 1000 * g) / (0.5 * 0.3 * 2.0 * 1.2))
    assert res["car.v"][-1] == pytest.approx(v_inf, rel=1e-8)
    assert res["car.fDrag.f"][-1] + res["car.fRoll.f"][-1] == pytest.approx(1000.0, rel=1e-7)


def test_brake_stops_a_mass_exactly_and_holds_it():
    """Brake (fn_max = 10, f_normalized = 0.5, mu = 0.4, cgeo = 1): friction force 2 N on a
    2 kg mass at 3 m/s: it stops at t = 3 s (s = 4.5 m) and sticks; a push of 1.5 N
    below the friction limit does not move it afterwards."""
    m = md.Model("brk")
    M = m.add(tr.Mass("M", m=2.0))
    B = m.add(tr.Brake("B", fn_max=10.0, f_normalized=0.5, mu=0.4))
    F = m.add(tr.Force("F", f=lambda t: md.if_else(t > 3.5, 1.5, 0.0)))
    m.connect(F.flange, M.flange_a)
    m.connect(M.flange_b, B.flange_a)
    res = m.compile().simulate(5.0, v0={"M.v": 3.0}, method="event",
                               output_times=np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0]))
    t = res.t
    assert np.allclose(res["M.v"], np.where(t < 3.0, 3.0 - t, 0.0), atol=1e-8)
    assert np.allclose(res["M.s"], np.where(t < 3.0, 3.0 * t - t ** 2 / 2, 4.5), atol=1e-8)
    assert any(e.kind == "stick" for e in res.events)
    assert np.allclose(res["B.fn"], 5.0)


def test_support_friction_is_a_constant_coulomb_force():
    m = md.Model("sf")
    M = m.add(tr.Mass("M", m=1.0))
    S = m.add(tr.SupportFriction("S", f_pos=[[0.0, 1.5], [2.0, 1.5]]))
    m.connect(M.flange_b, S.flange_a)
    res = m.compile().simulate(3.0, v0={"M.v": 3.0}, method="event",
                               output_times=np.array([0.0, 1.0, 2.0, 3.0]))
    t = res.t
    assert np.allclose(res["M.v"], np.where(t < 2.0, 3.0 - 1.5 * t, 0.0), atol=1e-8)
    assert np.allclose(res["M.s"], np.where(t < 2.0, 3.0 * t - 0.75 * t ** 2, 3.0),
                       atol=1e-8)
    with pytest.raises(ValueError, match="speed-dependent friction is not supported"):
        tr.SupportFriction("bad", f_pos=[[0.0, 1.0], [1.0, 2.0]])
