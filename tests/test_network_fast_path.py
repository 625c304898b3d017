"""The 1-D network fast path of the flattening (mechdae.components.flatten.network) against the
generic path.

A model made only of translational (rotational) Fixed, Mass (Inertia), Spring, Damper,
SpringDamper, Force (Torque) and position/speed sensors, with one positioning flange per
node, is written directly in the masses' coordinates; every other model takes the generic
path. Both must give the same System (names, coordinates, parameters, outputs), the same
motion and the same cut forces, and the fast path's flows must obey Newton's laws.
"""
import numpy as np
import pytest

import mechdae as md
from mechdae.components import rotational as rot, translational as tr

TIGHT = dict(rtol=1e-11, atol=1e-12)


def _both_paths(build):
    """The model from ``build(fast)`` compiled by the fast and by the generic path: the
    same System (names, start values, parameters, outputs)."""
    fm, gm = build(True), build(False)
    fs, gs = fm.compile(stabilization=None), gm.compile(stabilization=None)
    assert fm.flatten_stats["network_fast_path"] and "network_fast_path" not in gm.flatten_stats
    assert fs.q_names == gs.q_names and fs.u_names == gs.u_names and fs.m == gs.m == 0
    assert fs.p_names == gs.p_names and np.array_equal(fs.p_defaults, gs.p_defaults)
    assert fs.output_names == gs.output_names
    assert fm._unavailable_outputs == gm._unavailable_outputs == {}
    assert [c["default"] for c in fm.coords] == [c["default"] for c in gm.coords]
    assert [s["default"] for s in fm.speeds_] == [s["default"] for s in gm.speeds_]
    return fs, gs


def _same_runs(fs, gs, t_end, n, q_tol=1e-9, out_tol=1e-9):
    """Both Systems run alike: coordinates and speeds to ``q_tol``, every output (flows
    included) to ``out_tol`` relative to its size."""
    t = np.linspace(0.0, t_end, n)
    a = fs.simulate(t_end, output_times=t, **TIGHT)
    b = gs.simulate(t_end, output_times=t, **TIGHT)
    assert np.abs(a.q - b.q).max() < q_tol and np.abs(a.v - b.v).max() < q_tol
    for name in fs.output_names:
        ref = np.asarray(b[name])
        assert np.abs(np.asarray(a[name]) - ref).max() < out_tol * (1.0 + np.abs(ref).max()), \
            name
    return a, t


def _chain(n, fast, c=100.0, mass=1.0):
    """benchmarks/bench_components.py's chain: a wall, then spring, mass, spring, mass..."""
    m = md.Model("chain")
    m._network_fast_path = fast
    prev = m.add(tr.Fixed("wall")).flange
    for i in range(n):
        sp = m.add(tr.Spring(f"s{i}", c=c))
        ms = m.add(tr.Mass(f"m{i}", m=mass, s=0.01 * (i + 1)))
        m.connect(prev, sp.flange_a)
        m.connect(sp.flange_b, ms.flange_a)
        prev = ms.flange_b
    return m


def test_chain_of_30_same_system_motion_and_flows_and_energy_conserved():
    fs, gs = _both_paths(lambda fast: _chain(30, fast))
    assert fs.nq == 30 and fs.p_names[:3] == ["wall.s0", "s0.c", "s0.s_rel0"]
    a, _ = _same_runs(fs, gs, 1.0, 21)
    # springs only: the energy is conserved to the integration tolerance
    assert np.ptp(a.energy) < 1e-8 * np.abs(a.energy).max()
    # each spring's flange_b flow is its force c (s_rel - 0); the mass between two springs
    # takes m a = f_{i+1} - f_i
    for i in range(29):
        assert np.allclose(a[f"s{i}.flange_b.f"], 100.0 * a[f"s{i}.s_rel"], atol=1e-12)
        assert np.allclose(a[f"m{i}.a"], a[f"s{i + 1}.f"] - a[f"s{i}.f"], atol=1e-7)


def _branched(fast):
    """A wall holding m1 by a spring and a damper in parallel; m1 carries m2 through a
    SpringDamper and m3 (a sliding mass of length 0.4) through a preloaded spring; m3 is
    damped to a second wall; a force F0 sin(2 t) pushes m2 (F0 a parameter of the Model);
    sensors on m3's flanges."""
    m = md.Model("branched")
    m._network_fast_path = fast
    w1 = m.add(tr.Fixed("w1", s0=-0.2))
    k1 = m.add(tr.Spring("k1", c=40.0, s_rel0=0.5))
    d1 = m.add(tr.Damper("d1", d=0.8))
    m1 = m.add(tr.Mass("m1", m=1.5, s=0.4, v=0.3))
    sd = m.add(tr.SpringDamper("sd", c=25.0, d=0.6, s_rel0=0.3))
    m2 = m.add(tr.Mass("m2", m=0.7, s=0.8))
    k3 = m.add(tr.Spring("k3", c=60.0, s_rel0=0.2))
    m3 = m.add(tr.Mass("m3", m=2.0, L=0.4, s=0.9, v=-0.5))
    d3 = m.add(tr.Damper("d3", d=1.2))
    w2 = m.add(tr.Fixed("w2", s0=2.0))
    F0 = m.parameter("F0", 3.0)                      # a Model parameter in the source
    push = m.add(tr.Force("push", f=lambda t: F0 * md.sin(2.0 * t)))
    pos = m.add(tr.PositionSensor("pos"))
    vel = m.add(tr.SpeedSensor("vel"))
    m.connect(w1.flange, k1.flange_a, d1.flange_a)
    m.connect(k1.flange_b, d1.flange_b, m1.flange_a)
    m.connect(m1.flange_b, sd.flange_a, k3.flange_a)
    m.connect(sd.flange_b, m2.flange_a, push.flange)
    m.connect(k3.flange_b, m3.flange_a, pos.flange)
    m.connect(m3.flange_b, d3.flange_a, vel.flange)
    m.connect(d3.flange_b, w2.flange)
    return m


MASSES = {"m1": 1.5, "m2": 0.7, "m3": 2.0}


def test_branched_network_with_dampers_and_a_source():
    fs, gs = _both_paths(_branched)
    assert fs.q_names == ["m1.s", "m2.s", "m3.s"] and fs.p_names[0] == "F0"
    a, t = _same_runs(fs, gs, 2.0, 41)
    # Newton for the whole network: sum m a = f(t) + the forces of the walls on it (minus
    # the flows into the walls)
    lhs = sum(mass * a[f"{k}.a"] for k, mass in MASSES.items())
    rhs = 3.0 * np.sin(2.0 * t) - a["w1.flange.f"] - a["w2.flange.f"]
    assert np.allclose(lhs, rhs, atol=1e-9)
    # Newton's third law at a node: the flows there sum to zero
    assert np.allclose(a["m1.flange_b.f"] + a["sd.flange_a.f"] + a["k3.flange_a.f"], 0.0,
                       atol=1e-12)
    # the sliding mass's flanges, the sensors, the damper's loss
    assert np.allclose(a["m3.flange_b.s"] - a["m3.flange_a.s"], 0.4, atol=1e-12)
    assert np.allclose(a["pos.s"], a["m3.s"] - 0.2, atol=1e-12)
    assert np.allclose(a["vel.v"], a["m3.v"], atol=1e-12)
    assert np.allclose(a["d3.lossPower"], 1.2 * a["m3.v"] ** 2, atol=1e-12)
    assert np.allclose(a["sd.f"], 25.0 * (a["sd.s_rel"] - 0.3) + 0.6 * a["sd.v_rel"],
                       atol=1e-12)
    # parameters by name, as the generic path names them
    p = {"m2.m": 0.9, "k1.c": 30.0, "F0": 1.0, "m3.L": 0.1, "w2.s0": 2.5}
    a = fs.simulate(1.0, params=p, **TIGHT)
    b = gs.simulate(1.0, params=p, **TIGHT)
    assert np.abs(a.q - b.q).max() < 1e-9 and np.allclose(a["m3.flange_b.s"],
                                                          a["m3.s"] + 0.05, atol=1e-12)


def _rotational(fast):
    """A shaft: a fixed housing, torsion spring, inertia J1, damper and spring-damper in
    parallel to J2 (driven by a torque), spring to J3."""
    m = md.Model("shaft")
    m._network_fast_path = fast
    h = m.add(rot.Fixed("housing", phi0=0.1))
    k1 = m.add(rot.Spring("k1", c=30.0, phi_rel0=0.05))
    J1 = m.add(rot.Inertia("J1", J=0.5, phi=0.4, w=1.0))
    d = m.add(rot.Damper("d", d=0.3))
    sd = m.add(rot.SpringDamper("sd", c=12.0, d=0.1))
    J2 = m.add(rot.Inertia("J2", J=0.2))
    k2 = m.add(rot.Spring("k2", c=8.0))
    J3 = m.add(rot.Inertia("J3", J=1.0, phi=-0.3))
    tq = m.add(rot.Torque("tq", tau=2.0))
    ang = m.add(rot.AngleSensor("ang"))
    spd = m.add(rot.SpeedSensor("spd"))
    m.connect(h.flange, k1.flange_a)
    m.connect(k1.flange_b, J1.flange_a)
    m.connect(J1.flange_b, d.flange_a, sd.flange_a)
    m.connect(d.flange_b, sd.flange_b, J2.flange_a, tq.flange)
    m.connect(J2.flange_b, k2.flange_a, ang.flange)
    m.connect(k2.flange_b, J3.flange_a, spd.flange)
    return m


def test_rotational_network_same_system_motion_and_torques():
    fs, gs = _both_paths(_rotational)
    assert fs.q_names == ["J1.phi", "J2.phi", "J3.phi"] and "tq.tau" in fs.p_names
    a, t = _same_runs(fs, gs, 2.0, 41)
    # angular momentum: sum J w' = tau + the housing's torque on the shaft
    lhs = 0.5 * a["J1.a"] + 0.2 * a["J2.a"] + 1.0 * a["J3.a"]
    assert np.allclose(lhs, 2.0 - a["housing.flange.tau"], atol=1e-9)
    assert np.allclose(a["tq.flange.tau"], -2.0, atol=1e-12)
    assert np.allclose(a["ang.phi"], a["J2.phi"]) and np.allclose(a["spd.w"], a["J3.w"])
    assert np.allclose(a["d.lossPower"], 0.3 * a["d.w_rel"] ** 2, atol=1e-12)


def test_components_state_their_physics_once_and_build_it_once_per_class():
    """The closed-form pass evaluates each component's own equations; a class with a
    template builds them for one instance per process, every other instance is one
    Function call and never builds its own."""
    m = _chain(3, True)
    m.compile(stabilization=None)
    built = [c for c in m.components if c._built]
    assert len({type(c) for c in built}) == len(built) <= 3
    assert sum(not c._built for c in m.components) >= 4
    assert all(not c.__dict__["_V"] and not c.__dict__["_outputs"] for c in m.components
               if not c._built)
    m2 = _chain(40, True)
    m2.compile(stabilization=None)
    assert not any(c._built for c in m2.components)
    # reading them (as the tree fast path does for a spring on a drive flange) builds them
    spring = tr.SpringDamper("sd", c=2.0, d=0.5)
    assert len(spring._V) == 1 and spring._built
    assert [n for n, _ in spring._outputs] == ["s_rel", "v_rel", "f", "lossPower"]


def _bolted(fast):
    m = md.Model("bolted")
    m._network_fast_path = fast
    wall = m.add(tr.Fixed("wall", s0=1.0))
    mass = m.add(tr.Mass("mass", m=2.0, L=0.4))
    push = m.add(tr.Force("push", f=3.0))
    m.connect(wall.flange, mass.flange_a)
    m.connect(push.flange, mass.flange_b)
    return m


def _massless_junction(fast):
    m = md.Model("series")
    m._network_fast_path = fast
    wall = m.add(tr.Fixed("wall"))
    k1 = m.add(tr.Spring("k1", c=100.0))
    k2 = m.add(tr.Spring("k2", c=300.0))
    mass = m.add(tr.Mass("mass", m=1.0, s=0.1))
    m.connect(wall.flange, k1.flange_a)
    m.connect(k1.flange_b, k2.flange_a)               # a node nothing positions
    m.connect(k2.flange_b, mass.flange_a)
    return m


def _geared(fast):
    m = md.Model("geared")
    m._network_fast_path = fast
    J1 = m.add(rot.Inertia("J1", J=1.0, w=1.0))
    g = m.add(rot.IdealGear("g", ratio=2.0))
    J2 = m.add(rot.Inertia("J2", J=0.5))
    m.connect(J1.flange_b, g.flange_a)
    m.connect(g.flange_b, J2.flange_a)
    return m


def test_models_outside_the_fast_path_fall_back_to_the_generic_path():
    # a mass bolted to a wall: the node is positioned twice, the coordinate eliminated
    m = _bolted(True)
    s = m.compile()
    assert "network_fast_path" not in m.flatten_stats and s.nq == 0
    assert np.allclose(s.simulate(1.0)["wall.flange.f"], 3.0)
    # two springs in series: a node nothing positions (a massless junction); the generic
    # path refuses it (its flange's rate would be solved from the balance of flows), and
    # so does the model with the fast path on: no answer the generic path would not give
    with pytest.raises(md.ModelError, match=r"der\(k1\.flange_b\.s\)"):
        _massless_junction(True).compile()
    # a parameter that is not a number: the generic path names it
    m = md.Model("bad")
    m.add(tr.Mass("lump", m=float("nan")))
    with pytest.raises(md.ModelError, match="lump: parameter m=nan is not finite"):
        m.compile()
    # a gear (a relation): the angle ratio is kept
    m = _geared(True)
    s = m.compile()
    assert "network_fast_path" not in m.flatten_stats
    r = s.simulate(1.0)
    assert np.allclose(r["J1.flange_b.phi"], 2.0 * r["J2.flange_a.phi"], atol=1e-8)


def _tethered(extra):
    """The 2-chain whose last mass is also held at 0 by a stiffness of 100: a Spring to a
    second wall (``extra=None``), or the same force written as a hand-written potential
    energy, as a Spring whose ``c`` is a Model parameter, or as a Force fed back from the
    flange's position."""
    m = _chain(2, True)
    last = m.components[-1]
    if extra == "hand":
        m.potential_energy(0.5 * m.parameter("k", 100.0) * last.flange_b.s ** 2)
    elif extra == "feedback":
        f = m.add(tr.Force("fb", f=-100.0 * last.flange_b.s))
        m.connect(f.flange, last.flange_b)
    else:
        c = m.parameter("k", 100.0) if extra == "expression" else 100.0
        sp = m.add(tr.Spring("tether", c=c))
        m.connect(last.flange_b, sp.flange_b)
        m.connect(sp.flange_a, m.add(tr.Fixed("w2")).flange)
    return m


@pytest.mark.parametrize("case", ["hand", "expression", "feedback"])
def test_hand_written_terms_and_expressions_take_the_generic_path(case):
    """A hand-written term in the Model, a force that depends on a component's potential
    (the generic path), a parameter given as an expression (the closed-form pass): the
    motion of the same tether written as a plain Spring."""
    m = _tethered(case)
    s = m.compile(stabilization=None)
    # a parameter given as an expression of the Model's parameters is a value like any
    # other for the closed-form pass; a hand-written term or a force that reads another
    # component's potential needs the general passes' substitution
    assert ("network_fast_path" in m.flatten_stats) == (case == "expression")
    ref = _tethered(None)
    r = ref.compile(stabilization=None)
    assert ref.flatten_stats["network_fast_path"]
    a, b = s.simulate(1.0, **TIGHT), r.simulate(1.0, **TIGHT)
    assert np.ptp(b.q) > 0.01 and np.abs(a.q - b.q).max() < 1e-9
