"""The acausal layer (issue 9) checked against physics: closed forms of linear circuits and
drives, energy balances, Newton's laws at every inertia, the same system written by hand
in the DSL, cut forces as constraint multipliers, hierarchy, parameters and bad input."""
import warnings

import numpy as np
import pytest
from scipy.integrate import cumulative_simpson, simpson
from scipy.linalg import expm

import mechdae as md
from conftest import model_module
from mechdae.components import electrical as el
from mechdae.components import rotational as rot
from mechdae.components import translational as tr

TIGHT = dict(rtol=1e-11, atol=1e-12)


def linear_response(A, B, x0, t):
    """Exact solution of ``x' = A x + B`` (B constant) at the times ``t`` (starting at
    ``t = 0``): the exponential of the augmented matrix ``[[A, B], [0, 0]]``, applied step
    by step on a uniform grid (rounding grows like N eps)."""
    n = len(x0)
    Ab = np.zeros((n + 1, n + 1))
    Ab[:n, :n], Ab[:n, n] = A, B
    t = np.asarray(t, float)
    z = np.append(x0, 1.0)
    if t.size > 2 and np.allclose(np.diff(t), t[1] - t[0], rtol=1e-12, atol=0):
        z = expm(Ab * t[0]) @ z
        Phi = expm(Ab * (t[1] - t[0]))
        out = [z]
        for _ in range(t.size - 1):
            z = Phi @ z
            out.append(z)
        return np.array(out)[:, :n]
    return np.array([(expm(Ab * tk) @ z)[:n] for tk in t])


# ------------------------------------------------------------------ 1. DC motor drive
DC = dict(V=12.0, R=0.5, L=0.01, k=0.05, J=1e-3, b=1e-4, ratio=10.0, J_load=0.05, b_load=1e-3)


def dc_closed_form(V, R, L, k, J, b, ratio, J_load, b_load):
    """(A, B, w_ss) of the drive in x = (i, w_rotor): the load reflected through the gear."""
    J_eff = J + J_load / ratio ** 2
    b_eff = b + b_load / ratio ** 2
    A = np.array([[-R / L, -k / L], [k / J_eff, -b_eff / J_eff]])
    B = np.array([V / L, 0.0])
    return A, B, k * V / (k ** 2 + R * b_eff)


@pytest.fixture(scope="module")
def dc_run():
    system = model_module("dc_motor_drive").build(**DC).compile()
    t = np.linspace(0.0, 1.0, 4001)
    res = system.simulate(1.0, output_times=t, **TIGHT)
    return system, res


def test_dc_motor_matches_linear_ode(dc_run):
    system, res = dc_run
    A, B, w_ss = dc_closed_form(**DC)
    # the exact solution of the linear ODE from rest
    X = linear_response(A, B, [0.0, 0.0], res.t)
    i, w = res["L.i"], res["rotor.w"]
    err_i = np.max(np.abs(i - X[:, 0])) / np.max(np.abs(X[:, 0]))
    err_w = np.max(np.abs(w - X[:, 1])) / np.max(np.abs(X[:, 1]))
    assert err_i < 1e-7 and err_w < 1e-7, (err_i, err_w)
    # the same current through every series element; steady state and time constants
    np.testing.assert_allclose(res["R.i"], i, rtol=0, atol=1e-10)
    np.testing.assert_allclose(res["emf.i"], i, rtol=0, atol=1e-10)
    lam = np.linalg.eigvals(A)
    assert np.all(lam.real < 0) and np.all(lam.imag == 0)
    tau = np.sort(-1.0 / lam.real)
    np.testing.assert_allclose(tau, [0.0215505, 0.2724221], rtol=1e-5)
    np.testing.assert_allclose(w_ss, 234.8336595, rtol=1e-9)
    np.testing.assert_allclose(np.linalg.solve(A, -B)[1], w_ss, rtol=1e-12)
    # the slow mode dominates the approach to steady state
    long = system.simulate(12 * tau[1], **TIGHT)
    np.testing.assert_allclose(long["rotor.w"][-1], w_ss, rtol=1e-5)
    np.testing.assert_allclose(long["load.w"][-1], w_ss / DC["ratio"], rtol=1e-5)
    i_ss = (DC["b"] + DC["b_load"] / DC["ratio"] ** 2) * w_ss / DC["k"]
    # the current's transient starts ~V/R = 24 A, 50 i_ss: exp(-12) of it is left
    np.testing.assert_allclose(long["R.i"][-1], i_ss, rtol=1e-3)
    x_end = linear_response(A, B, [0.0, 0.0], [long.t[-1]])[0]
    np.testing.assert_allclose([long["R.i"][-1], long["rotor.w"][-1]], x_end, rtol=1e-8)


def test_dc_motor_energy_balance(dc_run):
    system, res = dc_run
    p = DC
    i, w, wl = res["L.i"], res["rotor.w"], res["load.w"]
    P_in = -res["src.v"] * res["src.i"]          # flow into the source at p is -i
    np.testing.assert_allclose(P_in, p["V"] * i, rtol=0, atol=1e-9)
    W_in = cumulative_simpson(P_in, x=res.t, initial=0.0)
    W_R = cumulative_simpson(res["R.LossPower"], x=res.t, initial=0.0)
    W_b = cumulative_simpson(res["bearing.lossPower"] + res["friction.lossPower"],
                             x=res.t, initial=0.0)
    np.testing.assert_allclose(res["R.LossPower"], p["R"] * i ** 2, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(res["bearing.lossPower"] + res["friction.lossPower"],
                               p["b"] * w ** 2 + p["b_load"] * wl ** 2, rtol=1e-12)
    E_kin = 0.5 * p["J"] * w ** 2 + 0.5 * p["J_load"] * wl ** 2
    np.testing.assert_allclose(res.kinetic, E_kin, rtol=1e-12, atol=1e-12)
    E_mag = 0.5 * p["L"] * i ** 2
    gap = W_in - (E_kin + E_mag + W_R + W_b)
    # Simpson quadrature on the 2.5e-4 s grid (the fastest time constant is 0.02 s): 5e-10
    assert np.max(np.abs(gap)) < 1e-8 * W_in[-1], (np.max(np.abs(gap)), W_in[-1])
    # through res.evaluate: the electrical power equals the mechanical power plus losses
    k = p["k"]
    np.testing.assert_allclose(res["emf.v"] * res["emf.i"], k * w * i, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(res["emf.v"] * res["emf.i"],
                               -res["emf.flange.tau"] * w, rtol=1e-12, atol=1e-12)


def test_dc_motor_gear_and_newton(dc_run):
    system, res = dc_run
    p = DC
    r = p["ratio"]
    # the gear between two inertias eliminates the load's coordinate: one coordinate per
    # degree of freedom, no constraint to stabilize
    assert system.holonomic == [] and system.q_names == ["rotor.phi"]
    np.testing.assert_allclose(res["load.phi"] * r, res["rotor.phi"], rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(res["load.w"] * r, res["rotor.w"], rtol=1e-9, atol=1e-9)
    ta, tb = res["gear.flange_a.tau"], res["gear.flange_b.tau"]
    np.testing.assert_allclose(r * ta + tb, 0.0, atol=1e-10 * np.max(np.abs(tb)))
    # Newton at each inertia, with the acceleration from the exact linear ODE x' = A x + B
    A, B, _ = dc_closed_form(**p)
    X = np.column_stack([res["L.i"], res["rotor.w"]])
    a_rotor = (X @ A.T + B)[:, 1]
    tau_rotor = res["rotor.flange_a.tau"] + res["rotor.flange_b.tau"]
    np.testing.assert_allclose(p["J"] * a_rotor, tau_rotor, rtol=0,
                               atol=1e-8 * np.max(np.abs(p["J"] * a_rotor)))
    tau_load = res["load.flange_a.tau"] + res["load.flange_b.tau"]
    np.testing.assert_allclose(p["J_load"] * a_rotor / r, tau_load, rtol=0,
                               atol=1e-8 * np.max(np.abs(tau_load)))
    np.testing.assert_allclose(res["rotor.a"], a_rotor, rtol=1e-8, atol=1e-8 * a_rotor.max())
    # the motor torque is k i into the flange (flow -k i into the EMF), the bearing b w
    np.testing.assert_allclose(res["emf.flange.tau"], -p["k"] * res["L.i"], rtol=1e-12)
    np.testing.assert_allclose(res["rotor.flange_a.tau"], p["k"] * res["L.i"], rtol=1e-12)
    np.testing.assert_allclose(res["bearing.tau"], -p["b"] * res["rotor.w"], rtol=1e-12)


def test_dc_motor_drive_model_file_steady_speed():
    mod = model_module("dc_motor_drive")
    sim = mod.SIMULATION
    system = mod.build().compile(stabilization=sim["stabilization"])
    res = system.simulate(6.0, q0=sim["q0"], v0=sim["v0"], method=sim["method"])
    _, _, w_ss = dc_closed_form(**DC)
    np.testing.assert_allclose(res["load.w"][-1], w_ss / DC["ratio"], rtol=1e-6)
    np.testing.assert_allclose(res["load.w"][-1], 23.483366, rtol=1e-6)
    assert res.max_drift() < 1e-9
    # build() keywords reach the parameters
    s2 = mod.build(V=6.0).compile()
    assert s2.param_vector(None)[s2.p_names.index("src.V")] == 6.0


# ------------------------------------------------------------------ 2. chain vs hand DSL
CHAIN_M = [1.0, 2.0, 0.5]
CHAIN_C = [40.0, 25.0, 60.0]
CHAIN_D = [0.3, 0.1, 0.5]
CHAIN_S0 = [0.2, 0.3, 0.25]       # unstretched lengths


def chain_components():
    m = md.Model("chain")
    wall = m.add(tr.Fixed("wall"))
    prev = wall.flange
    for j, (mj, cj, dj, s0) in enumerate(zip(CHAIN_M, CHAIN_C, CHAIN_D, CHAIN_S0), start=1):
        sd = m.add(tr.SpringDamper(f"sd{j}", c=cj, d=dj, s_rel0=s0))
        mass = m.add(tr.Mass(f"mass{j}", m=mj))
        m.connect(prev, sd.flange_a)
        m.connect(sd.flange_b, mass.flange_a)
        prev = mass.flange_b
    return m


def chain_by_hand():
    m = md.Model("chain_hand")
    xs = [m.coordinates(f"mass{j}.s", speeds=f"mass{j}.v") for j in range(1, len(CHAIN_M) + 1)]
    T = sum(0.5 * mj * md.der(x) ** 2 for mj, x in zip(CHAIN_M, xs))
    V = 0
    prev = 0.0
    prev_x = None
    for j, (x, cj, dj, s0) in enumerate(zip(xs, CHAIN_C, CHAIN_D, CHAIN_S0)):
        s_rel = x - prev
        V = V + 0.5 * cj * (s_rel - s0) ** 2
        f_d = dj * md.der(s_rel)
        m.generalized_force(-f_d, x)
        if prev_x is not None:
            m.generalized_force(f_d, prev_x)
        prev, prev_x = x, x
    m.kinetic_energy(T)
    m.potential_energy(V)
    return m


def test_spring_damper_chain_equals_hand_written_model():
    sc = chain_components().compile()
    sh = chain_by_hand().compile()
    n = len(CHAIN_M)
    assert sc.nq == sc.nu == n and sc.nv == 0 and sc.nz == 0 and sc.m == 0
    assert sc.q_names == sh.q_names == [f"mass{j}.s" for j in range(1, n + 1)]
    assert sc.u_names == sh.u_names == [f"mass{j}.v" for j in range(1, n + 1)]
    q0 = {"mass1.s": 0.5, "mass2.s": 0.6, "mass3.s": 1.2}
    v0 = {"mass2.v": 1.0}
    t = np.linspace(0.0, 3.0, 601)
    rc = sc.simulate(3.0, q0=q0, v0=v0, output_times=t, rtol=1e-12, atol=1e-13)
    rh = sh.simulate(3.0, q0=q0, v0=v0, output_times=t, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(rc.q, rh.q, rtol=0, atol=1e-9)
    np.testing.assert_allclose(rc.v, rh.v, rtol=0, atol=1e-9)
    assert np.ptp(rc["mass3.s"]) > 0.1                 # it moves
    # element forces from the hand-computed relative motion
    x = [rc[f"mass{j}.s"] for j in range(1, n + 1)]
    v = [rc[f"mass{j}.v"] for j in range(1, n + 1)]
    x_prev, v_prev = np.zeros_like(t), np.zeros_like(t)
    for j in range(n):
        f = CHAIN_C[j] * (x[j] - x_prev - CHAIN_S0[j]) + CHAIN_D[j] * (v[j] - v_prev)
        np.testing.assert_allclose(rc[f"sd{j + 1}.f"], f, rtol=0, atol=1e-9)
        np.testing.assert_allclose(rc[f"sd{j + 1}.s_rel"], x[j] - x_prev, atol=1e-12)
        np.testing.assert_allclose(rc[f"sd{j + 1}.lossPower"],
                                   CHAIN_D[j] * (v[j] - v_prev) ** 2, rtol=1e-10, atol=1e-12)
        x_prev, v_prev = x[j], v[j]
    # Newton at each mass: m a = f_{j+1} - f_j (the accelerations from the hand model)
    for j in range(n):
        f_in = rc[f"sd{j + 1}.f"]
        f_out = rc[f"sd{j + 2}.f"] if j + 1 < n else 0.0
        np.testing.assert_allclose(rc[f"mass{j + 1}.a"] * CHAIN_M[j], f_out - f_in,
                                   rtol=0, atol=1e-9)
        np.testing.assert_allclose(rc[f"mass{j + 1}.flange_a.f"], -f_in, atol=1e-9)
    # energy: T + V decreases by the damper losses
    loss = sum(rc[f"sd{j}.lossPower"] for j in range(1, n + 1))
    np.testing.assert_allclose(rc.energy[0] - rc.energy[-1], simpson(loss, x=t), rtol=1e-6)


# ------------------------------------------------------------------ 3. rigid connection
def test_rigidly_connected_masses_cut_force_from_the_eliminated_coordinate():
    """Two masses joined directly: one degree of freedom, so one coordinate (mass2.s is
    eliminated, alias elimination of a rigid connection); the cut force is m2 a, read from
    the Lagrange equation of the eliminated coordinate along the motion."""
    m1, m2, L1, L2, F = 1.0, 2.0, 0.2, 0.4, 3.0
    m = md.Model("rigid")
    push = m.add(tr.Force("push", f=F))
    mass1 = m.add(tr.Mass("mass1", m=m1, L=L1))
    mass2 = m.add(tr.Mass("mass2", m=m2, L=L2))
    m.connect(push.flange, mass1.flange_a)
    m.connect(mass1.flange_b, mass2.flange_a)          # both define the node: eliminated
    system = m.compile()
    assert system.q_names == ["mass1.s"] and system.holonomic == []
    t = np.linspace(0.0, 1.0, 101)
    res = system.simulate(1.0, q0={"mass1.s": 0.0}, output_times=t, **TIGHT)
    a = F / (m1 + m2)
    np.testing.assert_allclose(res["mass1.s"], 0.5 * a * t ** 2, atol=1e-9)
    np.testing.assert_allclose(res["mass2.s"] - res["mass1.s"], (L1 + L2) / 2, atol=1e-12)
    np.testing.assert_allclose(res["mass1.a"], a, rtol=1e-9)
    np.testing.assert_allclose(res["mass2.a"], a, rtol=1e-9)
    # the cut force: the flow into mass2 is m2 a, Newton's third law on mass1
    np.testing.assert_allclose(res["mass2.flange_a.f"], m2 * a, rtol=1e-9)
    np.testing.assert_allclose(res["mass1.flange_b.f"], -m2 * a, rtol=1e-9)
    np.testing.assert_allclose(res["mass1.flange_a.f"], F, rtol=1e-12)
    # initial values may name the eliminated coordinate (solved for mass1.s)
    res2 = system.simulate(1.0, q0={"mass2.s": 1.0}, v0={"mass2.v": 0.5}, output_times=t,
                           **TIGHT)
    assert res2["mass1.s"][0] == pytest.approx(1.0 - (L1 + L2) / 2, abs=1e-12)
    np.testing.assert_allclose(res2["mass2.s"], 1.0 + 0.5 * t + 0.5 * a * t ** 2, atol=1e-9)


def test_gear_fed_by_a_torque_is_substituted_and_sensors_measure_cut_forces():
    # no inertia on the motor side: the gear defines flange_a (a tree joint, no constraint)
    m = md.Model("gear_tree")
    tq = m.add(rot.Torque("tq", tau=2.0))
    gear = m.add(rot.IdealGear("gear", ratio=4.0))
    load = m.add(rot.Inertia("load", J=0.5))
    m.connect(tq.flange, gear.flange_a)
    m.connect(gear.flange_b, load.flange_a)
    system = m.compile()
    assert system.q_names == ["load.phi"] and system.holonomic == [] and system.nv == 0
    res = system.simulate(1.0, **TIGHT)
    np.testing.assert_allclose(res["load.a"], 4.0 * 2.0 / 0.5, rtol=1e-12)
    np.testing.assert_allclose(res["load.phi"], 0.5 * 16.0 * res.t ** 2, atol=1e-9)
    np.testing.assert_allclose(res["gear.flange_a.phi"], 4.0 * res["load.phi"], atol=1e-12)
    np.testing.assert_allclose([res["gear.flange_a.tau"][-1], res["gear.flange_b.tau"][-1]],
                               [2.0, -8.0], rtol=1e-12)
    # a ForceSensor between two masses is a rigid connection measuring the cut force m2 a
    m = md.Model("sensor")
    push = m.add(tr.Force("push", f=3.0))
    m1, m2 = m.add(tr.Mass("m1", m=1.0)), m.add(tr.Mass("m2", m=2.0))
    fs = m.add(tr.ForceSensor("fs"))
    m.connect(push.flange, m1.flange_a)
    m.connect(m1.flange_b, fs.flange_a)
    m.connect(fs.flange_b, m2.flange_a)
    res = m.compile().simulate(1.0, **TIGHT)
    np.testing.assert_allclose(res["fs.f"], 2.0 * 1.0, rtol=1e-9)
    np.testing.assert_allclose(res["m2.a"], 1.0, rtol=1e-9)


def test_massless_node_between_damper_and_spring():
    # Maxwell element: wall - damper - (massless node y) - spring - mass x; the node is a
    # general variable with the force balance d y' = c (x - y)
    c, d, mass_ = 8.0, 2.0, 1.0
    m = md.Model("maxwell")
    wall = m.add(tr.Fixed("wall"))
    damper = m.add(tr.Damper("damper", d=d))
    spring = m.add(tr.Spring("spring", c=c))
    mass = m.add(tr.Mass("mass", m=mass_))
    m.connect(wall.flange, damper.flange_a)
    m.connect(damper.flange_b, spring.flange_a)
    m.connect(spring.flange_b, mass.flange_a)
    system = m.compile()
    assert system.q_names == ["mass.s"] and system.v_names == ["damper.flange_b.s"]
    t = np.linspace(0.0, 2.0, 201)
    res = system.simulate(2.0, q0={"mass.s": 1.0}, output_times=t, **TIGHT)
    A = np.array([[0.0, 1.0, 0.0], [-c / mass_, 0.0, c / mass_], [c / d, 0.0, -c / d]])
    X = linear_response(A, np.zeros(3), [1.0, 0.0, 0.0], t)     # (x, x', y)
    np.testing.assert_allclose(res["mass.s"], X[:, 0], atol=1e-8)
    np.testing.assert_allclose(res["damper.flange_b.s"], X[:, 2], atol=1e-8)
    np.testing.assert_allclose(res["damper.f"], res["spring.f"], atol=1e-8)   # massless node


# ------------------------------------------------------------------ 4. position sources
def test_position_source_drives_mass_through_spring():
    A, w, c, mass_ = 0.1, 3.0, 16.0, 1.0
    m = md.Model("driven")
    pos = m.add(tr.Position("pos", s_ref=lambda t: A * md.sin(w * t)))
    spring = m.add(tr.Spring("spring", c=c))
    mass = m.add(tr.Mass("mass", m=mass_))
    m.connect(pos.flange, spring.flange_a)
    m.connect(spring.flange_b, mass.flange_a)
    system = m.compile()
    assert system.q_names == ["mass.s"] and system.holonomic == []    # the source is rheonomic
    t = np.linspace(0.0, 5.0, 501)
    res = system.simulate(5.0, output_times=t, **TIGHT)
    # m x'' = c (A sin(w t) - x), x(0) = x'(0) = 0
    w0 = np.sqrt(c / mass_)
    x = A * w0 ** 2 / (w0 ** 2 - w ** 2) * (np.sin(w * t) - w / w0 * np.sin(w0 * t))
    xd = A * w0 ** 2 * w / (w0 ** 2 - w ** 2) * (np.cos(w * t) - np.cos(w0 * t))
    np.testing.assert_allclose(res["mass.s"], x, rtol=0, atol=1e-8)
    np.testing.assert_allclose(res["mass.v"], xd, rtol=0, atol=1e-8)
    np.testing.assert_allclose(res["pos.flange.s"], A * np.sin(w * t), atol=1e-14)
    np.testing.assert_allclose(res["spring.f"], c * (x - A * np.sin(w * t)), atol=1e-7)
    # the source feels the spring force (flow into the source = -flow into the spring)
    np.testing.assert_allclose(res["pos.flange.f"], c * (x - A * np.sin(w * t)), atol=1e-7)


def test_position_source_on_mass_is_a_stabilized_program_constraint():
    A, w, mass_ = 0.1, 3.0, 2.0
    m = md.Model("program")
    pos = m.add(tr.Position("pos", s_ref=lambda t: A * md.sin(w * t)))
    mass = m.add(tr.Mass("mass", m=mass_))
    m.connect(pos.flange, mass.flange_a)
    system = m.compile()
    assert system.holonomic == [("connect(mass.flange_a.s)", 1)]
    t = np.linspace(0.0, 5.0, 501)
    res = system.simulate(5.0, output_times=t, **TIGHT)
    # initialization finds the speed the program needs at t = 0
    assert res.init_report["mass.v"][1] == pytest.approx(A * w, rel=1e-12)
    np.testing.assert_allclose(res["mass.s"], A * np.sin(w * t), atol=1e-9)
    np.testing.assert_allclose(res["mass.v"], A * w * np.cos(w * t), atol=1e-9)
    # the flow (a multiplier) is the force that drives the mass: m s_ref''
    f = -mass_ * A * w ** 2 * np.sin(w * t)
    np.testing.assert_allclose(res["mass.flange_a.f"], f, atol=1e-8)
    np.testing.assert_allclose(res["pos.flange.f"], -f, atol=1e-8)
    assert res.max_drift() < 1e-9
    # an inconsistent start (initialize=False) is pulled back by the stabilization
    drift = system.simulate(5.0, q0={"mass.s": 0.01}, initialize=False, output_times=t, **TIGHT)
    err = np.abs(drift["mass.s"] - A * np.sin(w * t))
    assert err[0] == pytest.approx(0.01) and err[-1] < 1e-8


# ------------------------------------------------------------------ 5. circuits
def rc_parallel(C1=1e-3, C2=3e-3, R=100.0):
    m = md.Model("parallel_caps")
    c1 = m.add(el.Capacitor("C1", C=C1))
    c2 = m.add(el.Capacitor("C2", C=C2))
    r = m.add(el.Resistor("R", R=R))
    gnd = m.add(el.Ground("gnd"))
    m.connect(c1.p, c2.p, r.p)
    m.connect(c1.n, c2.n, r.n, gnd.p)
    return m


def test_parallel_capacitors_discharge_index_reduction_and_init():
    C1, C2, R = 1e-3, 3e-3, 100.0
    system = rc_parallel(C1, C2, R).compile()
    # both capacitor voltages equal the node voltage: the two equations are differentiated
    # (hidden constraints), so the three voltages are not independent states
    dae = dict(zip(system.dae.equations, system.dae.c))
    assert dae == {"node C1.p.v": 0, "C1.v": 1, "C2.v": 1}
    assert set(system.general_hidden) == {"C1.v", "C2.v"}
    t = np.linspace(0.0, 1.0, 201)
    with warnings.catch_warnings():
        warnings.simplefilter("error")             # C2.v was not given: no warning
        res = system.simulate(1.0, q0={"C1.v": 1.0}, output_times=t, **TIGHT)
    # consistent initialization: C2.v and the node follow C1.v
    assert res.init_report["C2.v"] == pytest.approx((0.0, 1.0), abs=1e-12)
    assert "C1.v" not in res.init_report
    v = np.exp(-t / (R * (C1 + C2)))
    for name in ("C1.v", "C2.v", "R.v"):
        np.testing.assert_allclose(res[name], v, rtol=0, atol=1e-9)
    np.testing.assert_allclose(res["R.i"], v / R, rtol=0, atol=1e-11)
    # the currents split by capacitance; KCL at the node
    np.testing.assert_allclose(res["C1.i"], -C1 * v / (R * (C1 + C2)), atol=1e-11)
    np.testing.assert_allclose(res["C2.i"], -C2 * v / (R * (C1 + C2)), atol=1e-11)
    np.testing.assert_allclose(res["C1.i"] + res["C2.i"] + res["R.i"], 0.0, atol=1e-11)


def test_capacitor_across_a_voltage_source_is_initialized_to_it():
    V, C, R = 3.0, 1e-3, 10.0
    m = md.Model("clamped")
    src = m.add(el.VoltageSource("src", V=V))
    cap = m.add(el.Capacitor("C", C=C))
    r = m.add(el.Resistor("R", R=R))
    gnd = m.add(el.Ground("gnd"))
    m.connect(src.p, cap.p, r.p)
    m.connect(src.n, cap.n, r.n, gnd.p)
    res = m.compile().simulate(0.1, **TIGHT)
    assert res.init_report["C.v"] == pytest.approx((0.0, V))
    np.testing.assert_allclose(res["C.v"], V, atol=1e-10)
    np.testing.assert_allclose(res["C.i"], 0.0, atol=1e-10)
    np.testing.assert_allclose(res["src.i"], -V / R, rtol=1e-10)


def test_rc_charging_closed_form():
    V, R, C = 5.0, 1e3, 1e-4
    m = md.Model("rc")
    src = m.add(el.VoltageSource("src", V=V))
    r = m.add(el.Resistor("R", R=R))
    c = m.add(el.Capacitor("C", C=C))
    gnd = m.add(el.Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    system = m.compile()
    assert system.v_names == ["C.v"]
    t = np.linspace(0.0, 0.5, 201)
    res = system.simulate(0.5, output_times=t, **TIGHT)
    vc = V * (1.0 - np.exp(-t / (R * C)))
    np.testing.assert_allclose(res["C.v"], vc, rtol=0, atol=1e-9)
    np.testing.assert_allclose(res["R.i"], V / R * np.exp(-t / (R * C)), rtol=0, atol=1e-12)
    # energy: the supplied work C V^2 (1 - e^(-t/RC)) ends in the capacitor and the resistor
    # (half each as t -> inf)
    W_in = cumulative_simpson(V * res["R.i"], x=t, initial=0.0)
    W_R = cumulative_simpson(res["R.LossPower"], x=t, initial=0.0)
    np.testing.assert_allclose(W_in, C * V ** 2 * (1.0 - np.exp(-t / (R * C))), rtol=1e-4,
                               atol=1e-9)
    np.testing.assert_allclose(W_in, 0.5 * C * res["C.v"] ** 2 + W_R, rtol=1e-4, atol=1e-9)


def test_series_rlc_step_response_closed_form():
    V, R, L, C = 5.0, 2.0, 0.1, 0.01
    m = md.Model("rlc")
    src = m.add(el.VoltageSource("src", V=V))
    r = m.add(el.Resistor("R", R=R))
    ind = m.add(el.Inductor("L", L=L))
    cap = m.add(el.Capacitor("C", C=C))
    gnd = m.add(el.Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, ind.p)
    m.connect(ind.n, cap.p)
    m.connect(cap.n, src.n, gnd.p)
    system = m.compile()
    assert sorted(system.v_names) == ["C.v", "L.i"]
    t = np.linspace(0.0, 1.0, 401)
    res = system.simulate(1.0, output_times=t, **TIGHT)
    alpha, w0 = R / (2 * L), 1.0 / np.sqrt(L * C)
    wd = np.sqrt(w0 ** 2 - alpha ** 2)              # underdamped: alpha = 10, w0 = 31.6
    e = np.exp(-alpha * t)
    vc = V * (1.0 - e * (np.cos(wd * t) + alpha / wd * np.sin(wd * t)))
    i = V / (L * wd) * e * np.sin(wd * t)
    np.testing.assert_allclose(res["C.v"], vc, rtol=0, atol=1e-8)
    np.testing.assert_allclose(res["L.i"], i, rtol=0, atol=1e-9)
    np.testing.assert_allclose(res["L.v"], V * e * (np.cos(wd * t) - alpha / wd
                                                    * np.sin(wd * t)), atol=1e-7)
    # the initial inductor current can be given too (q0, like a coordinate)
    res2 = system.simulate(1.0, q0={"L.i": 0.5, "C.v": 1.0}, output_times=t, **TIGHT)
    A = np.array([[-R / L, -1.0 / L], [1.0 / C, 0.0]])
    X = linear_response(A, np.array([V / L, 0.0]), [0.5, 1.0], t)
    np.testing.assert_allclose(res2["L.i"], X[:, 0], atol=1e-8)
    np.testing.assert_allclose(res2["C.v"], X[:, 1], atol=1e-8)


# ------------------------------------------------------------------ 6. hierarchy
class Drive(md.Component):
    """A voltage-fed DC motor: source, armature R and L, ground, EMF and rotor inertia, wired
    inside the component; the rotor's free flange is re-exported as ``flange``."""

    def __init__(self, name, V=12.0, R=0.5, L=0.01, k=0.05, J=1e-3):
        super().__init__(name)
        src = self.add(el.VoltageSource("src", V=V))
        r = self.add(el.Resistor("R", R=R))
        ind = self.add(el.Inductor("L", L=L))
        gnd = self.add(el.Ground("gnd"))
        emf = self.add(el.EMF("emf", k=k))
        rotor = self.add(rot.Inertia("rotor", J=J))
        self.connect(src.p, r.p)
        self.connect(r.n, ind.p)
        self.connect(ind.n, emf.p)
        self.connect(emf.n, src.n, gnd.p)
        self.connect(emf.flange, rotor.flange_a)
        self.flange = rotor.flange_b                      # re-exported connector


DRIVE = dict(V=12.0, R=0.5, L=0.01, k=0.05, J=1e-3)
LOADS = {"d1": (0.01, 2e-3), "d2": (0.05, 5e-4)}      # (inertia, damping) of each load


def two_drives():
    m = md.Model("two_drives")
    fixed = m.add(rot.Fixed("fixed"))
    for name, (J_load, b_load) in LOADS.items():
        d = m.add(Drive(name, **DRIVE))
        load = m.add(rot.Inertia(f"load_{name}", J=J_load))
        damper = m.add(rot.Damper(f"damper_{name}", d=b_load))
        m.connect(d.flange, load.flange_a)           # rigid: rotor and load turn together
        m.connect(load.flange_b, damper.flange_a)
        m.connect(damper.flange_b, fixed.flange)
    return m


def drive_closed_form(V, R, L, k, J, J_load, b_load):
    J_eff = J + J_load
    return (np.array([[-R / L, -k / L], [k / J_eff, -b_load / J_eff]]), np.array([V / L, 0.0]))


def test_hierarchy_two_drives_names_and_parameters_per_instance():
    system = two_drives().compile()
    for d in ("d1", "d2"):
        assert {f"{d}.R.R", f"{d}.src.V", f"{d}.emf.k", f"{d}.rotor.J", f"{d}.L.L"} \
            <= set(system.p_names)
        assert f"{d}.rotor.phi" in system.q_names and f"{d}.L.i" in system.v_names
    assert "R.R" not in system.p_names
    t = np.linspace(0.0, 0.5, 501)
    res = system.simulate(0.5, output_times=t, **TIGHT)
    i = {}
    for d, (J_load, b_load) in LOADS.items():
        A, B = drive_closed_form(J_load=J_load, b_load=b_load, **DRIVE)
        X = linear_response(A, B, [0.0, 0.0], t)
        np.testing.assert_allclose(res[f"{d}.emf.i"], X[:, 0], rtol=0,
                                   atol=1e-7 * np.max(np.abs(X[:, 0])))
        np.testing.assert_allclose(res[f"{d}.rotor.w"], X[:, 1], rtol=0,
                                   atol=1e-7 * np.max(np.abs(X[:, 1])))
        np.testing.assert_allclose(res[f"load_{d}.w"], X[:, 1], rtol=0,
                                   atol=1e-7 * np.max(np.abs(X[:, 1])))
        # the re-exported flange carries the torque that accelerates and brakes the load
        # (the flow into the rotor is minus the torque on the load)
        a = (X @ A.T + B)[:, 1]
        np.testing.assert_allclose(-res[f"{d}.rotor.flange_b.tau"], J_load * a + b_load * X[:, 1],
                                   rtol=0, atol=1e-7 * np.max(np.abs(J_load * a)))
        i[d] = res[f"{d}.emf.i"]
    # the two instances are kept apart: the lighter load spins up faster and its back EMF
    # cuts its current sooner
    assert np.max(i["d2"] - i["d1"]) > 3.0 and res["d1.rotor.w"][-1] > res["d2.rotor.w"][-1]
    # parameters per instance, at simulate time, on the same System
    res2 = system.simulate(0.5, output_times=t, params={"d1.R.R": 1.0}, **TIGHT)
    A, B = drive_closed_form(J_load=LOADS["d1"][0], b_load=LOADS["d1"][1],
                             **dict(DRIVE, R=1.0))
    X = linear_response(A, B, [0.0, 0.0], t)
    np.testing.assert_allclose(res2["d1.emf.i"], X[:, 0], rtol=0,
                               atol=1e-7 * np.max(np.abs(X[:, 0])))
    assert np.max(np.abs(res2["d1.emf.i"] - res["d1.emf.i"])) > 1.0
    np.testing.assert_allclose(res2["d2.emf.i"], res["d2.emf.i"], rtol=0,
                               atol=1e-9 * np.max(np.abs(res["d2.emf.i"])))


def test_nested_hierarchy_first_order_drive():
    """A drive inside a drive train inside the model: paths nest, the physics is the
    first-order motor w' = (k i - b w) / J, i = (V - k w) / R."""
    class Motor(md.Component):
        def __init__(self, name, V=12.0, R=0.5, k=0.05, J=1e-3):
            super().__init__(name)
            src = self.add(el.VoltageSource("src", V=V))
            r = self.add(el.Resistor("R", R=R))
            gnd = self.add(el.Ground("gnd"))
            emf = self.add(el.EMF("emf", k=k))
            rotor = self.add(rot.Inertia("rotor", J=J))
            self.connect(src.p, r.p)
            self.connect(r.n, emf.p)
            self.connect(emf.n, src.n, gnd.p)
            self.connect(emf.flange, rotor.flange_a)
            self.flange = rotor.flange_b

    class Train(md.Component):
        def __init__(self, name, b=1e-4):
            super().__init__(name)
            motor = self.add(Motor("motor"))
            damper = self.add(rot.Damper("damper", d=b))
            fixed = self.add(rot.Fixed("fixed"))
            self.connect(motor.flange, damper.flange_a)
            self.connect(damper.flange_b, fixed.flange)

    m = md.Model("nested")
    m.add(Train("train"))
    system = m.compile()
    assert system.q_names == ["train.motor.rotor.phi"] and system.nv == 0
    assert "train.motor.R.R" in system.p_names and "train.damper.d" in system.p_names
    t = np.linspace(0.0, 1.0, 201)
    V, R, k, J, b = 12.0, 0.5, 0.05, 1e-3, 1e-4
    for params in (None, {"train.motor.R.R": 2.0, "train.damper.d": 1e-3}):
        if params:
            R, b = 2.0, 1e-3
        res = system.simulate(1.0, output_times=t, params=params, **TIGHT)
        w_ss, tau = k * V / (k ** 2 + R * b), J * R / (k ** 2 + R * b)
        w = w_ss * (1.0 - np.exp(-t / tau))
        np.testing.assert_allclose(res["train.motor.rotor.w"], w, rtol=0, atol=1e-8 * w_ss)
        np.testing.assert_allclose(res["train.motor.emf.i"], (V - k * w) / R, rtol=0,
                                   atol=1e-8 * V / R)
        np.testing.assert_allclose(res["train.damper.tau"], -b * w, rtol=0, atol=1e-10)


def test_start_speeds_given_to_components():
    m = md.Model("start")
    m.add(tr.Mass("mass", m=1.0, s=0.5, v=2.0))
    m.add(rot.Inertia("J", J=1.0, phi=0.3, w=1.5))
    res = m.compile().simulate(1.0, output_times=[0.0, 1.0])
    assert res["mass.s"][0] == 0.5 and res["J.phi"][0] == 0.3      # start positions: used
    np.testing.assert_allclose([res["mass.v"][0], res["J.w"][0]], [2.0, 1.5])
    np.testing.assert_allclose([res["mass.s"][-1], res["J.phi"][-1]], [2.5, 1.8])


# ------------------------------------------------------------------ 7. bad input
def _raises(fn, *names, exc=md.ModelError, match=None):
    with pytest.raises(exc) as info:
        fn()
    msg = str(info.value)
    for n in names:
        assert n in msg, (n, msg)
    if match is not None:
        assert match in msg, msg
    return msg


def test_connecting_different_domains_is_refused():
    m = md.Model("domains")
    mass = m.add(tr.Mass("mass"))
    J = m.add(rot.Inertia("J"))
    R = m.add(el.Resistor("R"))
    _raises(lambda: m.connect(mass.flange_a, J.flange_a), "'mass.flange_a'", "translational",
            "'J.flange_a'", "rotational", match="different connector types")
    _raises(lambda: m.connect(mass.flange_b, R.p), "'mass.flange_b'", "'R.p'", "electrical Pin")
    _raises(lambda: m.connect(mass.flange_a, "floor"), "'floor'", exc=TypeError)
    assert m.connections == []


def test_connector_connected_to_itself():
    m = md.Model("self")
    mass = m.add(tr.Mass("mass"))
    spring = m.add(tr.Spring("spring"))
    _raises(lambda: m.connect(mass.flange_a, spring.flange_a, mass.flange_a),
            "'mass.flange_a'", match="connected to itself")
    _raises(lambda: m.connect(mass.flange_a), "mass.flange_a", match="at least two")


def test_circuit_without_ground():
    m = md.Model("floating")
    src = m.add(el.VoltageSource("src"))
    r = m.add(el.Resistor("R"))
    m.connect(src.p, r.p)
    m.connect(src.n, r.n)
    _raises(m.compile, "src.p", "src.n", "R.p", "R.n", "Ground", match="undetermined")


def test_node_fixed_twice():
    m = md.Model("twice")
    f1 = m.add(tr.Fixed("f1"))
    f2 = m.add(tr.Fixed("f2", s0=1.0))
    spring = m.add(tr.Spring("spring"))
    mass = m.add(tr.Mass("mass"))
    m.connect(f1.flange, f2.flange, spring.flange_a)
    m.connect(spring.flange_b, mass.flange_a)
    _raises(m.compile, "f1", "f2", "spring.flange_a", match="fixed twice")
    m = md.Model("twice_rot")
    a, b = m.add(rot.Fixed("a")), m.add(rot.Fixed("b"))
    J = m.add(rot.Inertia("J"))
    d = m.add(rot.Damper("d"))
    m.connect(a.flange, b.flange, d.flange_a)
    m.connect(d.flange_b, J.flange_a)
    _raises(m.compile, "by a and b", match="fixed twice")


def test_component_added_twice_or_to_two_models():
    m = md.Model("one")
    mass = m.add(tr.Mass("mass"))
    _raises(lambda: m.add(mass), "'mass'")
    other = md.Model("two")
    _raises(lambda: other.add(mass), "'mass'", "model 'one'", match="already part of")
    _raises(lambda: m.add(tr.Mass("mass")), "'mass'", match="unique")
    _raises(lambda: m.add("mass"), "'mass'", exc=TypeError)


def test_connector_of_a_component_never_added():
    m = md.Model("stray")
    mass = m.add(tr.Mass("mass"))
    spring = tr.Spring("spring")                     # never added
    m.connect(mass.flange_a, spring.flange_a)
    _raises(m.compile, "'spring.flange_a'", "model 'stray'", match="not part of")


def test_structurally_singular_circuits_are_reported_by_name():
    # two ideal voltage sources in parallel: both fix the same voltage, the currents split
    # in no determined way
    m = md.Model("parallel_sources")
    s1 = m.add(el.VoltageSource("s1", V=1.0))
    s2 = m.add(el.VoltageSource("s2", V=2.0))
    r = m.add(el.Resistor("R"))
    gnd = m.add(el.Ground("gnd"))
    m.connect(s1.p, s2.p, r.p)
    m.connect(s1.n, s2.n, r.n, gnd.p)
    _raises(m.compile, "'s1.v'", "'s2.v'", "'s1.i'", "'s2.i'", match="structurally singular")
    # a source shorted by an ideal wire: its equation fixes nothing, its current is free
    m = md.Model("shorted_source")
    src = m.add(el.VoltageSource("src", V=1.0))
    gnd = m.add(el.Ground("gnd"))
    m.connect(src.p, src.n, gnd.p)
    _raises(m.compile, "'src.v'", "'src.i'")


# ------------------------------------------------------------------ 8. parameters
def test_parameters_are_named_and_change_the_answer_without_recompiling(dc_run):
    system, res = dc_run
    assert {"src.V", "R.R", "L.L", "emf.k", "rotor.J", "bearing.d", "gear.ratio", "load.J",
            "friction.d"} <= set(system.p_names)
    t = res.t[::8]
    for change in ({"R.R": 1.0}, {"src.V": 6.0, "gear.ratio": 5.0},
                   {"load.J": 0.2, "emf.k": 0.08, "L.L": 0.02}):
        r = system.simulate(1.0, output_times=t, params=change, **TIGHT)
        p = dict(DC)
        key = {"R.R": "R", "src.V": "V", "gear.ratio": "ratio", "load.J": "J_load",
               "emf.k": "k", "L.L": "L"}
        p.update({key[k]: v for k, v in change.items()})
        A, B, w_ss = dc_closed_form(**p)
        X = linear_response(A, B, [0.0, 0.0], t)
        np.testing.assert_allclose(r["L.i"], X[:, 0], rtol=0, atol=1e-7 * np.abs(X[:, 0]).max())
        np.testing.assert_allclose(r["load.w"], X[:, 1] / p["ratio"], rtol=0,
                                   atol=1e-7 * np.abs(X[:, 1]).max() / p["ratio"])
    # R.R = 1: the steady speed k V / (k^2 + R b_eff) drops from 234.83 to 229.89 rad/s
    w_ss = dc_closed_form(**dict(DC, R=1.0))[2]
    assert w_ss == pytest.approx(0.6 / (0.0025 + 1.1e-4), rel=1e-12)
    r = system.simulate(15.0, params={"R.R": 1.0}, **TIGHT)    # slow time constant 0.56 s
    np.testing.assert_allclose(r["load.w"][-1], w_ss / DC["ratio"], rtol=1e-6)
    # the defaults are untouched
    r = system.simulate(1.0, output_times=t, **TIGHT)
    np.testing.assert_allclose(r["L.i"], res["L.i"][::8], atol=1e-9)
    with pytest.raises(Exception, match="R.X"):
        system.simulate(1.0, params={"R.X": 1.0})
