"""Modelica.Electrical.Analog breadth (Basic, Sources, Sensors, the non-switching Ideal
parts) against closed forms and the behaviour the MSL documentation states."""
import numpy as np
import pytest
import scipy.linalg as sl

import mechdae as md
from mechdae.components import electrical as el
from mechdae.components import translational as tr

TIGHT = dict(rtol=1e-10, atol=1e-12)


def run(m, t_final=1.0, n=11, **kw):
    res = m.compile().simulate(t_final, output_times=np.linspace(0.0, t_final, n),
                               **dict(TIGHT, **kw))
    return res.t, res


def circuit(name, source, *loads):
    """``source`` from ground to node a, then each load from a to ground."""
    m = md.Model(name)
    g = m.add(el.Ground("g"))
    m.add(source)
    m.connect(source.n, g.p)
    for ld in loads:
        m.add(ld)
        m.connect(source.p, ld.p)
        m.connect(ld.n, g.p)
    return m, g


def test_rc_step_response_through_step_voltage():
    """StepVoltage(V=2, startTime=0.1) charging C through R: v_C = V (1 - exp(-(t - t0)/RC))
    after the step, 0 before."""
    m = md.Model("rc")
    g = m.add(el.Ground("g"))
    src = m.add(el.StepVoltage("src", V=2.0, startTime=0.1))
    R = m.add(el.Resistor("R", R=10.0))
    C = m.add(el.Capacitor("C", C=0.01))
    m.connect(src.n, g.p, C.n)
    m.connect(src.p, R.p)
    m.connect(R.n, C.p)
    t, res = run(m, n=21)
    v = np.where(t < 0.1, 0.0, 2.0 * (1 - np.exp(-(t - 0.1) / 0.1)))
    assert np.allclose(res["C.v"], v, atol=1e-6)
    assert np.allclose(res["src.v"], np.where(t < 0.1, 0.0, 2.0))


SHAPES = {
    "Step": (dict(offset=0.5, startTime=0.2), lambda t: 0.5 + 2.0 * (t >= 0.2)),
    "Ramp": (dict(duration=0.4, startTime=0.2),
             lambda t: 2.0 * np.clip((t - 0.2) / 0.4, 0, 1)),
    "Sine": (dict(f=3.0, phase=0.3, startTime=0.1),
             lambda t: np.where(t < 0.1, 0, 2.0 * np.sin(2 * np.pi * 3 * (t - 0.1) + 0.3))),
    "Cosine": (dict(f=3.0, phase=0.3), lambda t: 2.0 * np.cos(2 * np.pi * 3 * t + 0.3)),
    "ExpSine": (dict(f=3.0, damping=2.0),
                lambda t: 2.0 * np.exp(-2 * t) * np.sin(2 * np.pi * 3 * t)),
    "Pulse": (dict(width=30.0, period=0.25),
              lambda t: 2.0 * (np.mod(t + 1e-12, 0.25) < 0.075)),
    "SawTooth": (dict(period=0.3), lambda t: 2.0 * np.mod(t + 1e-12, 0.3) / 0.3),
    "Trapezoid": (dict(rising=0.1, width=0.2, falling=0.1, period=0.5, nperiod=1),
                  lambda t: 2.0 * np.interp(t, [0, 0.1, 0.3, 0.4, 0.5, 1.0],
                                            [0, 1, 1, 0, 0, 0])),
    "Exponentials": (dict(riseTime=0.3, riseTimeConst=0.1, fallTimeConst=0.2),
                     lambda t: np.where(t < 0.3, 2.0 * (1 - np.exp(-t / 0.1)),
                                        2.0 * (1 - np.exp(-3.0)) * np.exp(-(t - 0.3) / 0.2))),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_voltage_and_current_sources_follow_msl_signal_shapes(shape):
    """Each voltage source across a resistor, each current source into one: the branch
    voltage is the Modelica.Blocks.Sources shape (offset, startTime)."""
    kw, y = SHAPES[shape]
    amp = "vMax" if shape == "Exponentials" else "V"
    srcV = getattr(el, f"{shape}Voltage")("sv", **{amp: 2.0}, **kw)
    amp = "iMax" if shape == "Exponentials" else "I"
    srcI = getattr(el, f"{shape}Current")("si", **{amp: 2.0}, **kw)
    m = md.Model("sh")
    g = m.add(el.Ground("g"))
    m.add(srcV)
    m.add(srcI)
    RV = m.add(el.Resistor("RV", R=4.0))
    RI = m.add(el.Resistor("RI", R=4.0))
    m.connect(srcV.n, RV.n, g.p, srcI.p, RI.n)
    m.connect(srcV.p, RV.p)
    m.connect(srcI.n, RI.p)                       # the current source drives into RI.p
    t = np.array([0.0, 0.05, 0.13, 0.21, 0.26, 0.33, 0.38, 0.47, 0.58, 0.71, 0.93])
    res = m.compile().simulate(1.0, output_times=t, **TIGHT)
    assert np.allclose(res["RV.v"], y(t), atol=1e-9)
    assert np.allclose(res["RI.v"], 4.0 * y(t), atol=1e-9)


def test_constant_and_signal_sources():
    m, _ = circuit("cs", el.ConstantVoltage("V", V=3.0), el.Conductor("G", G=2.0))
    t, res = run(m)
    assert np.allclose(res["G.i"], 6.0) and np.allclose(res["V.i"], -6.0)
    m, _ = circuit("sc", el.SignalCurrent("I", i=lambda t: 1.0 + t), el.Resistor("R", R=2.0))
    t, res = run(m)
    assert np.allclose(res["R.v"], -2.0 * (1.0 + t))     # drives from p to n through itself
    m, _ = circuit("sv", el.SignalVoltage("V", v=lambda t: t), el.Resistor("R", R=2.0))
    t, res = run(m)
    assert np.allclose(res["R.i"], t / 2.0)


def test_conductor_and_variable_resistor_with_temperature():
    """Conductor: i = G/(1 + alpha (T - T_ref)) v; VariableResistor R(t): i = v/R(t)."""
    m, _ = circuit("g", el.ConstantVoltage("V", V=2.0),
                   el.Conductor("G", G=4.0, alpha=0.01, T=320.15),
                   el.VariableResistor("R", R=lambda t: 1.0 + t),
                   el.VariableConductor("Gv", G=lambda t: 2.0 * t))
    t, res = run(m)
    assert np.allclose(res["G.i"], 2.0 * 4.0 / 1.2)
    assert np.allclose(res["R.i"], 2.0 / (1.0 + t), atol=1e-10)
    assert np.allclose(res["R.LossPower"], 4.0 / (1.0 + t), atol=1e-10)
    assert np.allclose(res["Gv.i"], 4.0 * t, atol=1e-10)


def test_variable_capacitor_and_inductor():
    """A constant current I into C(t): Q = I t, v = I t / C(t); a constant voltage V over
    L(t): Psi = V t, i = V t / L(t)."""
    m, _ = circuit("vc", el.ConstantCurrent("I", I=-0.5),
                   el.VariableCapacitor("C", C=lambda t: 1.0 + t))
    t, res = run(m)
    assert np.allclose(res["C.Q"], 0.5 * t, atol=1e-9)
    assert np.allclose(res["C.v"], 0.5 * t / (1.0 + t), atol=1e-9)
    m, _ = circuit("vl", el.ConstantVoltage("V", V=2.0),
                   el.VariableInductor("L", L=lambda t: 2.0 + t))
    t, res = run(m)
    assert np.allclose(res["L.Psi"], 2.0 * t, atol=1e-9)
    assert np.allclose(res["L.i"], 2.0 * t / (2.0 + t), atol=1e-9)


def _two_port(name, tp, drive, load):
    """``drive`` into port 1 (p1 at node a, n1 grounded), ``load`` across port 2."""
    m = md.Model(name)
    g = m.add(el.Ground("g"))
    for c in (tp, drive, load):
        m.add(c)
    m.connect(drive.n, tp.n1, tp.n2, load.n, g.p)
    m.connect(drive.p, tp.p1)
    m.connect(tp.p2, load.p)
    return m


def test_transformer_loose_coupling_matches_linear_ode():
    """Transformer driven by a sine on port 1, resistor R on port 2: L [i1', i2'] =
    [v1, -R i2] solved by expm of the system augmented with the sine generator."""
    L1, L2, M, R, w = 1.0, 2.0, 0.8, 3.0, 2 * np.pi
    m = _two_port("tf", el.Transformer("T", L1=L1, L2=L2, M=M),
                  el.SineVoltage("src", V=1.0, f=1.0), el.Resistor("R", R=R))
    t, res = run(m, n=101)
    Linv = np.linalg.inv([[L1, M], [M, L2]])
    A = np.zeros((4, 4))
    A[:2, :2] = Linv @ np.array([[0, 0], [0, -R]])
    A[:2, 2] = Linv @ np.array([1.0, 0.0])          # v1 = sin: state 2 = sin, 3 = cos
    A[2, 3], A[3, 2] = w, -w
    X = np.array([sl.expm(A * tk) @ np.array([0, 0, 0, 1.0]) for tk in t])
    assert np.allclose(res["T.i1"], X[:, 0], atol=1e-8)
    assert np.allclose(res["T.i2"], X[:, 1], atol=1e-8)
    assert np.allclose(res["T.v2"], -R * X[:, 1], atol=1e-8)


def test_ideal_transformer_ratio_and_perfect_coupling_refused():
    """IdealTransformer: v1 = n v2, i1 = -i2/n. A Transformer with perfect coupling
    (M^2 = L1 L2) has a singular inductance matrix: compile names the equations instead
    of integrating a wrong answer."""
    m = _two_port("tp", el.Transformer("T", L1=1.0, L2=4.0, M=2.0),
                  el.SineVoltage("src", V=1.0, f=1.0), el.Resistor("R", R=3.0))
    with pytest.raises(ValueError, match="'T.v1', 'T.dv'"):
        run(m, n=21)
    m = _two_port("it", el.IdealTransformer("T", n=0.5),
                  el.SineVoltage("src", V=1.0, f=1.0), el.Resistor("R", R=3.0))
    t, res = run(m, n=21)
    assert np.allclose(res["T.v2"], 2.0 * np.sin(2 * np.pi * t), atol=1e-10)
    assert np.allclose(res["T.i1"], -res["T.i2"] / 0.5, atol=1e-10)
    assert np.allclose(res["T.i2"], -2.0 * np.sin(2 * np.pi * t) / 3.0, atol=1e-10)


def test_gyrator_inverts_a_resistor():
    """A current I into port 1 and R across port 2: v1 = I/(G1 G2 R) (input resistance
    1/(G1 G2 R))."""
    m = _two_port("gy", el.Gyrator("G", G1=2.0, G2=0.5),
                  el.ConstantCurrent("I", I=-3.0), el.Resistor("R", R=4.0))
    t, res = run(m)
    assert np.allclose(res["G.v1"], 3.0 / (2.0 * 0.5 * 4.0))
    assert np.allclose(res["G.i2"], -2.0 * res["G.v1"])


@pytest.mark.parametrize("cls, kw, v2", [
    ("VCV", dict(gain=3.0), lambda v1, i1: 3.0 * v1),
    ("VCC", dict(transConductance=0.5), lambda v1, i1: -0.5 * v1 * 4.0),
    ("CCV", dict(transResistance=2.0), lambda v1, i1: 2.0 * i1),
    ("CCC", dict(gain=3.0), lambda v1, i1: -3.0 * i1 * 4.0),
])
def test_controlled_sources(cls, kw, v2):
    """Port 1 fed by V = 2 through R1 = 1 (VCx: no input current, v1 = 2; CCx: v1 = 0,
    i1 = 2); R2 = 4 across port 2 (a current-controlled source drives i2 into p2)."""
    m = md.Model("cc")
    g = m.add(el.Ground("g"))
    V = m.add(el.ConstantVoltage("V", V=2.0))
    R1 = m.add(el.Resistor("R1", R=1.0))
    S = m.add(getattr(el, cls)("S", **kw))
    R2 = m.add(el.Resistor("R2", R=4.0))
    m.connect(V.n, S.n1, S.n2, R2.n, g.p)
    m.connect(V.p, R1.p)
    m.connect(R1.n, S.p1)
    m.connect(S.p2, R2.p)
    t, res = run(m, t_final=0.1, n=2)
    v1, i1 = (2.0, 0.0) if cls.startswith("V") else (0.0, 2.0)
    assert np.allclose(res["S.v1"], v1) and np.allclose(res["R1.i"], i1)
    assert np.allclose(res["S.v2"], v2(v1, i1))


def test_translational_emf_linear_motor_reaches_no_load_speed():
    """V -> R -> TranslationalEMF(k) -> mass m: m v' = k i, i = (V - k v)/R, so
    v = V/k (1 - exp(-k^2 t/(R m))); the flange force f = -k i."""
    V, R, k, mass = 12.0, 2.0, 3.0, 0.5
    m = md.Model("lm")
    g = m.add(el.Ground("g"))
    src = m.add(el.ConstantVoltage("src", V=V))
    Rr = m.add(el.Resistor("R", R=R))
    emf = m.add(el.TranslationalEMF("emf", k=k))
    M = m.add(tr.Mass("M", m=mass))
    m.connect(src.n, emf.n, g.p)
    m.connect(src.p, Rr.p)
    m.connect(Rr.n, emf.p)
    m.connect(emf.flange, M.flange_a)
    t, res = run(m, t_final=0.5)
    v = V / k * (1 - np.exp(-k ** 2 * t / (R * mass)))
    assert np.allclose(res["M.v"], v, atol=1e-8)
    assert np.allclose(res["emf.vel"], v, atol=1e-8)
    assert np.allclose(res["emf.f"], -k * (V - k * v) / R, atol=1e-7)


def test_rotational_emf_with_support_keeps_angular_momentum():
    """RotationalEMF with useSupport between a rotor and a free stator: the stator takes
    the reaction, so J_r w_r + J_s w_s = 0."""
    from mechdae.components import rotational as rot
    m = md.Model("re")
    g = m.add(el.Ground("g"))
    src = m.add(el.ConstantVoltage("src", V=1.0))
    Rr = m.add(el.Resistor("R", R=1.0))
    emf = m.add(el.RotationalEMF("emf", k=0.5, useSupport=True))
    Jr = m.add(rot.Inertia("Jr", J=0.1))
    Js = m.add(rot.Inertia("Js", J=0.3))
    m.connect(src.n, emf.n, g.p)
    m.connect(src.p, Rr.p)
    m.connect(Rr.n, emf.p)
    m.connect(emf.flange, Jr.flange_a)
    m.connect(emf.support, Js.flange_a)
    t, res = run(m)
    assert np.allclose(0.1 * res["Jr.w"] + 0.3 * res["Js.w"], 0.0, atol=1e-10)
    # relative speed: w' = k i (1/Jr + 1/Js), i = (V - k w)/R
    a = 0.5 ** 2 * (1 / 0.1 + 1 / 0.3)
    assert np.allclose(res["emf.w"], (1.0 / 0.5) * (1 - np.exp(-a * t)), atol=1e-8)


def test_potentiometer_divides_and_loads():
    """V across pin_p..pin_n, contact at r: unloaded v_contact = r V; with R_L from the
    contact to ground: the divider R r || R_L in series with R (1 - r)."""
    V, R, r, RL = 10.0, 100.0, 0.3, 50.0
    m = md.Model("pot")
    g = m.add(el.Ground("g"))
    src = m.add(el.ConstantVoltage("src", V=V))
    P = m.add(el.Potentiometer("P", R=R, rConstant=r))
    L = m.add(el.Resistor("L", R=RL))
    m.connect(src.n, P.pin_n, L.n, g.p)
    m.connect(src.p, P.pin_p)
    m.connect(P.contact, L.p)
    t, res = run(m, t_final=0.1, n=2)
    low = 1 / (1 / (R * r) + 1 / RL)
    assert np.allclose(res["L.v"], V * low / (low + R * (1 - r)))
    assert np.allclose(res["P.LossPower"] + res["L.LossPower"], -res["src.v"] * res["src.i"])


@pytest.mark.parametrize("ideal", ["nullor", "IdealOpAmp3Pin"])
def test_inverting_amplifier_from_a_nullor(ideal):
    """Vin -> R1 -> inverting node -> R2 -> out; the ideal amplifier (a nullator from the
    node to ground and a norator from out to ground, or IdealOpAmp3Pin) makes
    v_out = -R2/R1 Vin."""
    m = md.Model("amp")
    g = m.add(el.Ground("g"))
    src = m.add(el.SignalVoltage("src", v=lambda t: np.sin(1.0) + 0 * t + t))
    R1 = m.add(el.Resistor("R1", R=1e3))
    R2 = m.add(el.Resistor("R2", R=4.7e3))
    m.connect(src.p, R1.p)
    if ideal == "nullor":
        nul = m.add(el.Nullator("nul"))
        nor = m.add(el.Norator("nor"))
        m.connect(R1.n, R2.p, nul.p)
        m.connect(R2.n, nor.p)
        m.connect(src.n, nul.n, nor.n, g.p)
        out = "nor.v"
    else:
        op = m.add(el.IdealOpAmp3Pin("op"))
        m.connect(R1.n, R2.p, op.in_n)
        m.connect(R2.n, op.out)
        m.connect(src.n, op.in_p, g.p)
        out = "op.out.v"
    t, res = run(m)
    assert np.allclose(res[out], -4.7 * (np.sin(1.0) + t), atol=1e-9)


def test_power_potential_and_multi_sensors():
    """A sine source into a resistor measured by PowerSensor / MultiSensor (current path
    in series, voltage path across) and PotentialSensor: power = v^2/R."""
    m = md.Model("ps")
    g = m.add(el.Ground("g"))
    src = m.add(el.SineVoltage("src", V=2.0, f=1.0))
    P = m.add(el.PowerSensor("P"))
    X = m.add(el.MultiSensor("X"))
    ph = m.add(el.PotentialSensor("ph"))
    R = m.add(el.Resistor("R", R=4.0))
    m.connect(src.p, P.pc, P.pv, X.pv, ph.p)
    m.connect(P.nc, X.pc)
    m.connect(X.nc, R.p)
    m.connect(src.n, R.n, P.nv, X.nv, g.p)
    t, res = run(m, n=21)
    v = 2.0 * np.sin(2 * np.pi * t)
    assert np.allclose(res["P.power"], v ** 2 / 4.0, atol=1e-10)
    assert np.allclose(res["X.power"], v ** 2 / 4.0, atol=1e-10)
    assert np.allclose(res["X.i"], v / 4.0, atol=1e-10)
    assert np.allclose(res["X.v"], v, atol=1e-10)
    assert np.allclose(res["ph.phi"], v, atol=1e-10)


def test_source_parameters_are_msl_names():
    with pytest.raises(TypeError, match="MSL's are V, duration, offset, startTime"):
        el.RampVoltage("r", V=1.0, T=2.0)
    assert el.PulseVoltage.units["period"] == "s" and el.PulseCurrent.units["I"] == "A"


def test_table_sources_interpolate_step_and_extrapolate():
    """TableVoltage / TableCurrent: linear segments, a step at a repeated time, linear
    extrapolation past the last row, offset from startTime (MSL's TimeTable)."""
    table = [(0.0, 0.0), (0.4, 2.0), (0.4, -1.0), (0.8, 1.0)]
    m = md.Model("tab")
    g = m.add(el.Ground("g"))
    sv = m.add(el.TableVoltage("sv", table=table, offset=0.5, startTime=0.1))
    si = m.add(el.TableCurrent("si", table=table))
    R = m.add(el.Resistor("R", R=2.0))
    m.connect(sv.n, si.p, R.n, g.p)
    m.connect(sv.p, si.n, R.p)
    t = np.array([0.0, 0.05, 0.3, 0.49, 0.51, 0.7, 0.95, 1.2])
    res = m.compile().simulate(1.2, output_times=t, **TIGHT)
    tp = t - 0.1
    y = np.where(tp < 0.4, 5.0 * tp, -1.0 + 5.0 * (tp - 0.4))
    assert np.allclose(res["sv.v"], 0.5 + np.where(t < 0.1, 0.0, y), atol=1e-12)
    y = np.where(t < 0.4, 5.0 * t, -1.0 + 5.0 * (t - 0.4))
    assert np.allclose(res["si.i"], y, atol=1e-12)
    with pytest.raises(ValueError, match="must not decrease"):
        el.TableVoltage("bad", table=[(1.0, 0.0), (0.0, 1.0)])


def test_m_transformer_with_two_inductors_is_the_transformer():
    """M_Transformer(N=2, L=(L1, M, L2)) and Transformer(L1, L2, M) in the same circuit
    (a sine on port 1, a resistor on port 2) give the same currents."""
    res = {}
    for kind in ("M", "T"):
        tf = el.M_Transformer("T", N=2, L=(1.0, 0.8, 2.0)) if kind == "M" else \
            el.Transformer("T", L1=1.0, L2=2.0, M=0.8)
        m = md.Model(f"tf{kind}")
        g = m.add(el.Ground("g"))
        src = m.add(el.SineVoltage("src", V=1.0, f=1.0))
        R = m.add(el.Resistor("R", R=3.0))
        m.add(tf)
        m.connect(src.n, tf.n1, tf.n2, R.n, g.p)
        m.connect(src.p, tf.p1)
        m.connect(tf.p2, R.p)
        t, res[kind] = run(m, n=21)
    assert np.allclose(res["M"]["T.i1"], res["T"]["T.i1"], atol=1e-9)
    assert np.allclose(res["M"]["T.i2"], res["T"]["T.i2"], atol=1e-9)
    assert np.allclose(res["M"]["R.v"], res["T"]["R.v"], atol=1e-9)
    with pytest.raises(ValueError, match="needs N"):
        el.M_Transformer("bad", N=2, L=(1.0, 2.0))
