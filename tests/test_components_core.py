"""The acausal core: alias elimination, flows by Newton's third law, named outputs,
initial values by potential, hand-written terms mixed with components, late changes."""
import numpy as np
import pytest

import mechdae as md
from mechdae.components import electrical as el
from mechdae.components import rotational as rot
from mechdae.components import translational as tr


def _oscillator(L=0.2):
    m = md.Model("osc")
    mass = m.add(tr.Mass("mass", m=1.0, L=L))
    spring = m.add(tr.Spring("spring", c=4.0))
    wall = m.add(tr.Fixed("wall"))
    m.connect(wall.flange, spring.flange_a)
    m.connect(spring.flange_b, mass.flange_a)
    return m


def test_oscillator_from_components_is_the_harmonic_oscillator():
    m = _oscillator()
    s = m.compile()
    assert s.q_names == ["mass.s"] and s.u_names == ["mass.v"] and s.nv == s.nz == 0
    st = m.flatten_stats
    assert st["general_nodes"] == 0 and st["nodes"] == 3
    res = s.simulate(2.0, q0={"mass.s": 0.6})          # spring stretched by 0.5 (L/2 = 0.1)
    t = res.t
    assert np.allclose(res["spring.s_rel"], 0.5 * np.cos(2 * t), atol=1e-7)
    # flows: spring pulls the mass back and the wall forward; Newton at the node and mass
    assert np.allclose(res["spring.f"], 4.0 * res["spring.s_rel"])
    assert np.allclose(res["mass.flange_a.f"], -res["spring.flange_b.f"])
    assert np.allclose(res["wall.flange.f"], res["spring.f"])
    assert np.allclose(res["mass.a"], -4.0 * res["spring.s_rel"])
    assert np.allclose(res["mass.flange_b.f"], 0.0)                 # unconnected: zero flow
    assert np.allclose(res["mass.flange_b.s"] - res["mass.flange_a.s"], 0.2)
    assert np.ptp(res.energy) < 1e-6 * res.energy[0]                # spring energy booked


def test_initial_value_by_potential_solves_for_the_coordinate():
    s = _oscillator().compile()
    res = s.simulate(1.0, q0={"spring.flange_b.s": 0.5})
    assert res["mass.s"][0] == pytest.approx(0.6, abs=1e-10)        # flange_a at s - L/2
    assert res.init_report["mass.s"][1] == pytest.approx(0.6, abs=1e-10)
    with pytest.raises(ValueError, match="wall.flange.s"):
        s.simulate(1.0, q0={"wall.flange.s": 0.5})                  # fixed: nothing to solve


def test_initial_node_voltage_of_an_rc_circuit():
    m = md.Model("rc")
    src = m.add(el.CurrentSource("I", I=0.0))
    R = m.add(el.Resistor("R", R=2.0))
    C = m.add(el.Capacitor("C", C=0.5))
    g = m.add(el.Ground("g"))
    m.connect(src.p, R.p, C.p)
    m.connect(src.n, R.n, C.n, g.p)
    res = m.compile().simulate(1.0, q0={"R.p.v": 2.0})
    assert res["C.v"][0] == pytest.approx(2.0)
    assert np.allclose(res["C.v"], 2.0 * np.exp(-res.t / 1.0), rtol=1e-7)
    # the resistor's current is the capacitor's discharge: i_R = -i_C
    assert np.allclose(res["R.i"], -res["C.i"], atol=1e-8)


def test_massless_node_between_spring_and_damper_is_a_first_order_state():
    """Maxwell element: a mass on a spring in series with a damper to the wall. The middle
    node has no inertia: it is a general variable with the force balance c (x - s) = d s'."""
    c, d, mm = 10.0, 2.0, 1.0
    m = md.Model("maxwell")
    wall = m.add(tr.Fixed("wall"))
    damper = m.add(tr.Damper("damper", d=d))
    spring = m.add(tr.Spring("spring", c=c))
    mass = m.add(tr.Mass("mass", m=mm))
    m.connect(wall.flange, damper.flange_a)
    m.connect(damper.flange_b, spring.flange_a)
    m.connect(spring.flange_b, mass.flange_a)
    s = m.compile()
    assert s.q_names == ["mass.s"] and s.v_names == ["damper.flange_b.s"]
    res = s.simulate(2.0, q0={"mass.s": 0.1})
    # closed form: x' = v, m v' = -c (x - y), d y' = c (x - y)
    from scipy.linalg import expm
    A = np.array([[0, 1, 0], [-c / mm, 0, c / mm], [c / d, 0, -c / d]])
    X = np.array([expm(A * t) @ [0.1, 0.0, 0.0] for t in res.t])
    assert np.abs(res["mass.s"] - X[:, 0]).max() < 1e-7
    assert np.abs(res["damper.flange_b.s"] - X[:, 2]).max() < 1e-7
    assert np.allclose(res["damper.f"], -res["spring.flange_a.f"], atol=1e-9)


def test_gear_to_a_spring_is_substituted_and_transmits_torque():
    """A gear whose output side only meets a spring defines that side: no extra coordinate,
    no constraint; the torques satisfy ratio tau_a + tau_b = 0."""
    r = 4.0
    m = md.Model("geared")
    J = m.add(rot.Inertia("J", J=0.5))
    gear = m.add(rot.IdealGear("gear", ratio=r))
    spring = m.add(rot.Spring("spring", c=8.0))
    fixed = m.add(rot.Fixed("fixed"))
    m.connect(J.flange_b, gear.flange_a)
    m.connect(gear.flange_b, spring.flange_a)
    m.connect(spring.flange_b, fixed.flange)
    s = m.compile()
    assert s.q_names == ["J.phi"] and s.m == 0
    res = s.simulate(1.0, q0={"J.phi": 0.2})
    w = np.sqrt(8.0 / r ** 2 / 0.5)                      # spring seen through the gear
    assert np.allclose(res["J.phi"], 0.2 * np.cos(w * res.t), atol=1e-7)
    assert np.allclose(r * res["gear.flange_a.tau"] + res["gear.flange_b.tau"], 0, atol=1e-10)


def test_hand_written_terms_may_use_component_symbols():
    m = _oscillator(L=0.0)
    mass = m.components[0]
    x = mass.flange_a.s                               # a component potential (placeholder)
    m.output("twice_s", 2 * x)                        # resolved when the model is flattened
    res = m.compile().simulate(1.0, q0={"mass.s": 0.3})
    assert np.allclose(res["twice_s"], 2 * res["mass.s"])


def test_components_after_compile_and_wrong_objects_are_refused():
    m = _oscillator()
    m.compile()
    with pytest.raises(md.ModelError, match="after the model was compiled"):
        m.add(tr.Mass("late"))
    with pytest.raises(TypeError, match="not a component"):
        md.Model("x").add(object())
    with pytest.raises(TypeError, match="connectors"):
        md.Model("x").connect(1, 2)


def test_a_stop_on_a_fixed_flange_is_refused():
    m = md.Model("fixed stop")
    wall = m.add(tr.Fixed("wall"))
    stop = m.add(tr.Stop("stop", s_max=1.0))
    m.add(tr.Mass("mass"))
    m.connect(wall.flange, stop.flange)
    with pytest.raises(md.ModelError, match="stop.upper.*no coordinate"):
        m.compile()


def test_the_same_instance_added_twice_says_so():
    m = md.Model("twice")
    mass = m.add(tr.Mass("mass"))
    with pytest.raises(md.ModelError, match="already part of"):
        m.add(mass)


def test_rigid_chain_of_three_masses_has_one_coordinate_and_the_cut_forces():
    """mass1 - mass2 - mass3 joined directly, pushed by F: one degree of freedom; the force
    through each joint is the mass beyond it times a = F / (m1 + m2 + m3)."""
    ms, F = (1.0, 2.0, 3.0), 6.0
    m = md.Model("rigid3")
    push = m.add(tr.Force("push", f=F))
    bodies = [m.add(tr.Mass(f"m{i}", m=mi, L=0.1)) for i, mi in enumerate(ms)]
    m.connect(push.flange, bodies[0].flange_a)
    m.connect(bodies[0].flange_b, bodies[1].flange_a)
    m.connect(bodies[1].flange_b, bodies[2].flange_a)
    s = m.compile()
    assert s.q_names == ["m0.s"] and s.m == 0
    res = s.simulate(1.0)
    a = F / sum(ms)
    assert np.allclose(res["m2.a"], a, rtol=1e-10)
    assert np.allclose(res["m1.flange_b.f"], -ms[2] * a, rtol=1e-9)       # into m1 from m2
    assert np.allclose(res["m1.flange_a.f"], (ms[1] + ms[2]) * a, rtol=1e-9)
    assert np.allclose(res["m2.s"] - res["m0.s"], 0.2, atol=1e-12)


def test_mass_fixed_to_a_wall_is_static_and_the_wall_takes_the_force():
    m = md.Model("bolted")
    wall = m.add(tr.Fixed("wall", s0=1.0))
    mass = m.add(tr.Mass("mass", m=2.0, L=0.4))
    push = m.add(tr.Force("push", f=lambda t: 3.0 * md.sin(t)))
    m.connect(wall.flange, mass.flange_a)
    m.connect(push.flange, mass.flange_b)
    s = m.compile()
    assert s.nq == 0
    res = s.simulate(2.0)
    assert np.allclose(res["mass.s"], 1.2)
    assert np.allclose(res["wall.flange.f"], 3.0 * np.sin(res.t), atol=1e-12)  # pushed


def test_program_constraint_is_kept_and_the_rigid_neighbour_eliminated():
    """Position drives mass1 (a rheonomic program constraint: stabilized, multiplier);
    mass2 bolted to mass1 is eliminated; the drive force is (m1 + m2) s_ref''."""
    A, w, m1, m2 = 0.1, 3.0, 1.0, 2.0
    m = md.Model("driven pair")
    pos = m.add(tr.Position("pos", s_ref=lambda t: A * md.sin(w * t)))
    b1 = m.add(tr.Mass("b1", m=m1))
    b2 = m.add(tr.Mass("b2", m=m2))
    m.connect(pos.flange, b1.flange_a)
    m.connect(b1.flange_b, b2.flange_a)
    s = m.compile()
    assert s.q_names == ["b1.s"] and s.m == 1
    res = s.simulate(2.0, rtol=1e-10, atol=1e-12)
    acc = -A * w ** 2 * np.sin(w * res.t)
    assert np.allclose(res["b1.s"], A * np.sin(w * res.t), atol=1e-8)
    assert np.allclose(res["b2.flange_a.f"], m2 * acc, atol=1e-6)
    assert np.allclose(res["pos.flange.f"], -(m1 + m2) * acc, atol=1e-6)


def test_geared_loop_that_closes_is_redundant_and_a_mismatched_one_locks():
    def loop(r2):
        m = md.Model("loop")
        J1 = m.add(rot.Inertia("J1", J=1.0))
        J2 = m.add(rot.Inertia("J2", J=1.0))
        g1 = m.add(rot.IdealGear("g1", ratio=2.0))
        g2 = m.add(rot.IdealGear("g2", ratio=r2))
        tq = m.add(rot.Torque("tq", tau=1.0))
        m.connect(tq.flange, J1.flange_a)
        m.connect(J1.flange_b, g1.flange_a, g2.flange_a)
        m.connect(g1.flange_b, J2.flange_a, g2.flange_b)
        return m
    s = loop(2.0).compile()                  # the second gear repeats the first
    assert s.q_names == ["J1.phi"] and s.m == 0
    res = s.simulate(1.0)
    assert np.allclose(res["J1.a"], 1.0 / (1.0 + 1.0 / 2.0 ** 2), rtol=1e-9)
    # how the torque divides between two redundant gears is not determined: not offered
    for name in ("g1.flange_a.tau", "g2.flange_b.tau"):
        with pytest.raises(KeyError, match="redundant"):
            res[name]
    # ratios 2 and 3 in one loop: the only motion is none (a jammed train); the torque
    # goes into the gears
    s = loop(3.0).compile()
    assert s.nq == 0
    res = s.simulate(1.0)
    assert np.allclose(res["J1.phi"], 0.0) and np.allclose(res["J2.w"], 0.0)
    assert np.allclose(res["J1.flange_a.tau"], 1.0)


def test_rigid_connection_that_cannot_close_is_refused():
    m = md.Model("overfixed")
    a = m.add(tr.Fixed("a", s0=0.0))
    b = m.add(tr.Fixed("b", s0=1.0))
    mass = m.add(tr.Mass("mass", m=1.0, L=0.5))
    m.connect(a.flange, mass.flange_a)
    m.connect(mass.flange_b, b.flange)
    with pytest.raises(md.ModelError, match="cannot close"):
        m.compile()


def test_forces_through_eliminated_joints_are_not_offered_with_contacts():
    m = md.Model("pair at a stop")
    b1 = m.add(tr.Mass("b1", m=1.0))
    b2 = m.add(tr.Mass("b2", m=1.0))
    stop = m.add(tr.Stop("stop", s_min=0.0, e=0.5))
    m.connect(b1.flange_b, b2.flange_a)
    m.connect(stop.flange, b2.flange_b)
    s = m.compile(stabilization=None)
    res = s.simulate(1.0, q0={"b1.s": 1.0}, v0={"b1.v": -2.0}, method="event")
    assert res.events and res.events[0].kind == "impact"
    with pytest.raises(KeyError):
        res["b2.flange_a.f"]


class _Slider(md.Component):
    """A joint coordinate without inertia that positions its flange (a prismatic joint)."""

    def __init__(self, name):
        super().__init__(name)
        x = self.coordinate("x", speed="v")
        self.flange = self.connector(tr.Flange, "flange")
        self.define(self.flange, x)


class _PointMass(md.Component):
    """A mass whose position its flange gives (a body in a multibody tree): inertia from its
    kinetic energy, its flow the inertial force m a (from the accelerations)."""

    def __init__(self, name, m=1.0):
        super().__init__(name)
        mass = self.parameter("m", m)
        self.flange = self.connector(tr.Flange, "flange")
        s = self.flange.s
        self.kinetic_energy(0.5 * mass * md.der(s) ** 2)
        self.potential_energy(mass * 9.81 * s)        # a weight along the axis
        self.flow(self.flange, self.energy_flows(self.flange), energy=True)   # m a + m g


def test_body_on_a_joint_reports_its_inertial_force_as_its_flow():
    m = md.Model("joint and body")
    j = m.add(_Slider("j"))
    body = m.add(_PointMass("body", m=2.0))
    spring = m.add(tr.Spring("spring", c=8.0))
    wall = m.add(tr.Fixed("wall"))
    m.connect(j.flange, body.flange, spring.flange_b)
    m.connect(wall.flange, spring.flange_a)
    s = m.compile()
    assert s.q_names == ["j.x"]
    res = s.simulate(1.0, q0={"j.x": 0.1})
    x_eq = -2.0 * 9.81 / 8.0                          # the weight stretches the spring
    assert np.allclose(res["j.x"], x_eq + (0.1 - x_eq) * np.cos(2.0 * res.t), atol=1e-7)
    # the body's flow is m a + m g = -c x; the joint carries nothing along its free axis
    assert np.allclose(res["body.flange.f"], -8.0 * res["j.x"], atol=1e-7)
    assert np.allclose(res["j.flange.f"], 0.0, atol=1e-7)


def test_parts_that_nothing_positions_are_named():
    m = md.Model("floating spring")
    m.add(tr.Spring("sp", c=1.0))
    with pytest.raises(md.ModelError, match="sp.flange_a, sp.flange_b: nothing fixes their s"):
        m.compile()
    m = md.Model("no ground")
    R = m.add(el.Resistor("R"))
    C = m.add(el.Capacitor("C"))
    m.connect(R.p, C.p)
    m.connect(R.n, C.n)
    with pytest.raises(md.ModelError, match="add a Ground"):
        m.compile()
