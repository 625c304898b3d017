"""The tree fast path of the flattening (mechdae.components.flatten.tree) against the generic path.

A planar mechanism made only of World, Fixed, FixedTranslation, Body, BodyShape, Revolute,
Prismatic and Free, connected as a tree from the roots, is flattened in closed form; every
other model takes the generic path. Both must give the same System (names, coordinates,
parameters), the same motion and the same cut forces, and the fast path's flows must obey
Newton's second law for the whole mechanism.
"""
import math

import numpy as np
import pytest

import mechdae as md
from mechdae.components import planar as pl

TIGHT = dict(rtol=1e-11, atol=1e-12)


def _both_paths(build):
    """The model from ``build(fast)`` compiled by the fast and by the generic path: the
    same System (names, parameters, outputs, unavailable outputs)."""
    fm, gm = build(True), build(False)
    fs, gs = fm.compile(stabilization=None), gm.compile(stabilization=None)
    assert fm.flatten_stats["tree_fast_path"] and "tree_fast_path" not in gm.flatten_stats
    assert fs.q_names == gs.q_names and fs.u_names == gs.u_names and fs.m == gs.m
    assert fs.p_names == gs.p_names and np.array_equal(fs.p_defaults, gs.p_defaults)
    assert fs.output_names == gs.output_names
    assert fm._unavailable_outputs == gm._unavailable_outputs
    return fm, fs, gs


def _same_runs(fs, gs, t_end, n, q_tol, out_tol, names=None):
    """Both Systems run alike: coordinates to ``q_tol``, every output (or ``names``) to
    ``out_tol`` relative to its size."""
    t = np.linspace(0.0, t_end, n)
    a = fs.simulate(t_end, output_times=t, **TIGHT)
    b = gs.simulate(t_end, output_times=t, **TIGHT)
    assert np.abs(a.q - b.q).max() < q_tol
    for name in names or fs.output_names:
        ref = np.asarray(b[name])
        assert np.abs(np.asarray(a[name]) - ref).max() < out_tol * (1.0 + np.abs(ref).max()), \
            name
    return a, t


def _tree(fast=True):
    """A branching tree with every supported component: a swinging arm carrying a slider
    and a two-joint branch, a pendulum hanging from a tilted Fixed frame, a free body, and
    gravity off the -y axis."""
    m = md.Model("tree")
    m._tree_fast_path = fast
    w = m.add(pl.World("world", g=9.81, n=(0.3, -1.0)))
    j1 = m.add(pl.Revolute("j1", phi0=0.4, w0=0.5))
    arm = m.add(pl.BodyShape("arm", r=(1.0, 0.2), r_cm=(0.4, 0.1), m=1.5, I=0.2))
    hub = m.add(pl.Body("hub", m=0.3, I=0.01))             # a second body at j1's frame
    p1 = m.add(pl.Prismatic("p1", r=(0.6, 0.8), s0=0.2, v0=-0.3))
    slider = m.add(pl.Body("slider", m=0.7, I=0.05))
    j2 = m.add(pl.Revolute("j2", phi0=-0.7))
    rod = m.add(pl.FixedTranslation("rod", r=(0.3, -0.1)))
    j3 = m.add(pl.Revolute("j3", phi0=0.2, w0=1.0))
    l3 = m.add(pl.BodyShape("l3", r=(0.5, 0.0), r_cm=(0.25, 0.05), m=0.9, I=0.03))
    base = m.add(pl.Fixed("base", r=(2.0, 1.0), phi=0.3))
    j4 = m.add(pl.Revolute("j4", phi0=-1.0))
    l4 = m.add(pl.BodyShape("l4", r=(0.8, 0.0), r_cm=(0.4, 0.0), m=1.1, I=0.06))
    free = m.add(pl.Free("free", x0=-1.0, y0=0.5, phi0=0.1, vx0=0.4, vy0=1.2, w0=-2.0))
    ball = m.add(pl.Body("ball", m=0.5, I=0.02))
    m.connect(w.frame, j1.frame_a, free.frame_a)
    m.connect(j1.frame_b, arm.frame_a, hub.frame_a)
    m.connect(arm.frame_b, p1.frame_a, j2.frame_a)
    m.connect(p1.frame_b, slider.frame_a)
    m.connect(j2.frame_b, rod.frame_a)
    m.connect(rod.frame_b, j3.frame_a)
    m.connect(j3.frame_b, l3.frame_a)
    m.connect(base.frame, j4.frame_a)
    m.connect(j4.frame_b, l4.frame_a)
    m.connect(free.frame_b, ball.frame_a)
    return m


BODIES = {"arm": 1.5, "hub": 0.3, "slider": 0.7, "l3": 0.9, "l4": 1.1, "ball": 0.5}


def test_fast_and_generic_paths_give_the_same_system_motion_and_cut_forces():
    _, fs, gs = _both_paths(_tree)
    assert fs.m == 0 and fs.nq == 8
    # every potential, flow (cut force and torque) and body output
    a, _ = _same_runs(fs, gs, 1.5, 31, 1e-8, 1e-7)
    # a tree: no constraint, the energy is conserved to the integration tolerance
    assert np.ptp(a.energy) < 1e-8 * abs(a.energy).max()


def test_fast_path_cut_forces_obey_newton_for_the_whole_mechanism():
    """sum_i m_i a_cm,i = M g + (forces of the World and the Fixed frame on the mechanism):
    the flows into World and Fixed are minus those forces (Newton's third law at a node)."""
    m = _tree(True)
    s = m.compile(stabilization=None)
    t = np.linspace(0.0, 1.0, 4001)
    r = s.simulate(1.0, output_times=t, **TIGHT)
    n = np.array([0.3, -1.0]) / math.hypot(0.3, 1.0)
    for k, c in enumerate("xy"):
        p = sum(mass * r[f"{b}.v_cm_{c}"] for b, mass in BODIES.items())     # momentum
        dp = np.gradient(p, t, edge_order=2)[50:-50]
        ext = (sum(BODIES.values()) * 9.81 * n[k]
               - r[f"world.frame.f{c}"] - r[f"base.frame.f{c}"])[50:-50]
        # the finite difference of the momentum is good to 1.7e-4 of the force (measured,
        # at the fastest moment); a flow without its inertial or moved-force term is off by O(1)
        assert np.abs(dp - ext).max() < 5e-4 * np.abs(ext).max()


def test_hanging_chain_at_rest_carries_its_weight_on_the_fast_path():
    """Eight links at rest: each joint carries the weight of the links below it."""
    m = md.Model("chain8")
    prev = m.add(pl.World("world")).frame
    for i in range(1, 9):
        j = m.add(pl.Revolute(f"j{i}", phi0=-math.pi / 2 if i == 1 else 0.0))
        b = m.add(pl.BodyShape(f"b{i}", r=(1.0, 0.0), r_cm=(0.5, 0.0), m=0.5 * i, I=0.1))
        m.connect(prev, j.frame_a)
        m.connect(j.frame_b, b.frame_a)
        prev = b.frame_b
    res = m.compile().simulate(0.5)
    assert m.flatten_stats["tree_fast_path"]
    below = np.cumsum([0.5 * i for i in range(8, 0, -1)])[::-1]     # mass of links i..8
    for i in range(1, 9):
        assert np.allclose(res[f"j{i}.frame_a.fy"], below[i - 1] * 9.81, atol=1e-9)
        assert np.allclose(res[f"j{i}.frame_a.fx"], 0.0, atol=1e-9)
        assert np.allclose(res[f"j{i}.frame_b.tau"], 0.0, atol=1e-9)
    assert np.allclose(res["world.frame.fy"], -below[0] * 9.81, atol=1e-9)
    assert np.allclose(res["b8.frame_b.y"], -8.0, atol=1e-12)


def _pendulum_with(extra, fast=True):
    m = md.Model("p")
    m._tree_fast_path = fast
    w = m.add(pl.World("world"))
    j = m.add(pl.Revolute("j1", phi0=0.5))
    b = m.add(pl.BodyShape("l1", r=(1.0, 0.0), r_cm=(0.5, 0.0), m=1.0, I=0.1))
    m.connect(w.frame, j.frame_a)
    if extra == "reversed":                      # the body hangs from its frame_b
        m.connect(j.frame_b, b.frame_b)
    else:
        m.connect(j.frame_b, b.frame_a)
    if extra == "elements":
        # force elements and sensors between the tree's frames, and a contact
        sp = m.add(pl.SpringDamper("sp", c=20.0, d=0.5, s_rel0=0.8))
        m.connect(w.frame, sp.frame_a)
        m.connect(b.frame_b, sp.frame_b)
        f = m.add(pl.Force("f", force=lambda t: (md.sin(3 * t), 0.5)))
        m.connect(b.frame_b, f.frame_b)
        tq = m.add(pl.Torque("tq", tau=0.2))
        m.connect(j.frame_b, tq.frame_b)
        sen = m.add(pl.RelativeVelocity("sen"))
        m.connect(w.frame, sen.frame_a)
        m.connect(b.frame_b, sen.frame_b)
        floor = m.add(pl.PointLineContact("floor", r=(1.0, 0.0), p0=(0.0, -1.5), e=0.5))
        m.connect(b.frame_a, floor.frame)
    elif extra == "hand":
        m.output("twice", 2 * m.parameter("k", 1.0))
    elif extra == "expression":
        m2 = m.parameter("mass", 1.0)
        b2 = m.add(pl.Body("b2", m=m2, I=0.1))
        m.connect(b.frame_b, b2.frame_a)
    return m


def test_force_elements_sensors_and_contacts_on_the_tree_stay_on_the_fast_path():
    fm, fs, gs = _both_paths(lambda fast: _pendulum_with("elements", fast))
    # the contact's flows and every flow between it and the World carry the contact force
    assert {"floor.frame.fy", "j1.frame_b.fx", "j1.frame_a.tau", "world.frame.fx"} <= \
        set(fm._unavailable_outputs) and "l1.frame_a.fx" not in fm._unavailable_outputs
    _same_runs(fs, gs, 1.0, 11, 1e-8, 1e-7,
               names=["sp.f", "sp.lossPower", "sen.vx_rel", "floor.gap", "sp.frame_a.fx"])


def _driven(fast=True):
    """Drive flanges: a spring-damper and a torque on a revolute's axis, a spring-damper
    and a force on a prismatic's axis, a speed sensor."""
    from mechdae.components import rotational as rot, translational as tr
    m = md.Model("drive")
    m._tree_fast_path = fast
    w = m.add(pl.World("world"))
    j = m.add(pl.Revolute("j1", phi0=0.5, useAxisFlange=True))
    b = m.add(pl.BodyShape("l1", r=(1.0, 0.0), r_cm=(0.5, 0.0), m=1.0, I=0.1))
    p = m.add(pl.Prismatic("p1", r=(1.0, 0.0), s0=0.3, useAxisFlange=True))
    s = m.add(pl.Body("s", m=0.5, I=0.01))
    m.connect(w.frame, j.frame_a)
    m.connect(j.frame_b, b.frame_a)
    m.connect(b.frame_b, p.frame_a)
    m.connect(p.frame_b, s.frame_a)
    d = m.add(rot.SpringDamper("d", c=3.0, d=0.4, phi_rel0=0.2))
    m.connect(j.support, d.flange_a)
    m.connect(j.axis, d.flange_b)
    tq = m.add(rot.Torque("tq", tau=lambda t: md.sin(2 * t)))
    m.connect(j.axis, tq.flange)
    ws = m.add(rot.SpeedSensor("ws"))
    m.connect(j.axis, ws.flange)
    sd = m.add(tr.SpringDamper("sd", c=20.0, d=1.0))
    m.connect(p.support, sd.flange_a)
    m.connect(p.axis, sd.flange_b)
    f = m.add(tr.Force("f", f=1.5))
    m.connect(p.axis, f.flange)
    return m


def test_drives_on_the_axis_flanges_stay_on_the_fast_path():
    _, fs, gs = _both_paths(_driven)
    a, t = _same_runs(fs, gs, 2.0, 21, 1e-9, 1e-8)              # q measured 8e-11
    # the axis flange balances the elements on it: flange torques sum to zero at the node
    assert np.allclose(a["j1.axis.tau"] + a["d.flange_b.tau"] + a["tq.flange.tau"], 0.0,
                       atol=1e-12)
    assert np.allclose(a["tq.flange.tau"], -np.sin(2 * t), atol=1e-12)
    assert np.allclose(a["ws.w"], a["j1.w"], atol=1e-12)


@pytest.mark.parametrize("extra", ["reversed", "hand", "expression"])
def test_anything_else_takes_the_generic_path_with_the_same_motion(extra):
    m = _pendulum_with(extra)
    s = m.compile(stabilization=None)
    assert "tree_fast_path" not in m.flatten_stats
    if extra == "hand":
        # a hand-written output changes nothing: the motion is the plain pendulum's,
        # flattened by the fast path
        ref = _pendulum_with(None)
        rs = ref.compile(stabilization=None)
        assert ref.flatten_stats["tree_fast_path"]
        a = s.simulate(1.0, n_out=11, **TIGHT)
        b = rs.simulate(1.0, n_out=11, **TIGHT)
        assert np.abs(a["j1.phi"] - b["j1.phi"]).max() < 1e-9
        assert np.abs(a["j1.frame_a.fy"] - b["j1.frame_a.fy"]).max() < 1e-7


# ------------------------------------------------------------------ spatial library
def _spatial_tree(fast=True):
    """Every supported spatial component, gravity off the axes, inertia tensors with
    products of inertia, axes off the coordinate axes."""
    from mechdae.components import spatial as sp
    m = md.Model("sptree")
    m._tree_fast_path = fast
    w = m.add(sp.World("world", n=(0.2, -0.3, -1.0)))
    j1 = m.add(sp.Revolute("j1", n=(0, 0, 1), phi0=0.3, w0=1.0))
    b1 = m.add(sp.BodyShape("b1", r=(1.0, 0.2, 0.1), r_cm=(0.5, 0.1, 0.0), m=1.2,
                            I=(0.1, 0.2, 0.15)))
    j2 = m.add(sp.Revolute("j2", n=(1, 1, 0), phi0=-0.5, w0=0.7))
    b2 = m.add(sp.Body("b2", m=0.8, I=[[0.05, 0.01, 0], [0.01, 0.07, 0.0], [0, 0, 0.04]],
                       r_cm=(0.3, 0.0, -0.2)))
    fr = m.add(sp.FixedRotation("fr", r=(0.1, 0.0, 0.3), n=(0, 1, 0), angle=0.4))
    p1 = m.add(sp.Prismatic("p1", n=(1, 0, 0), s0=0.2, v0=0.5))
    box = m.add(sp.BodyBox("box", r=(0.3, 0.1, 0.0), width=0.1))
    ft = m.add(sp.FixedTranslation("ft", r=(0.0, 0.4, 0.0)))
    fx = m.add(sp.Fixed("fx", r=(1.0, 2.0, 0.0), n=(1, 0, 0), angle=0.3))
    j3 = m.add(sp.Revolute("j3", n=(0, 1, 0), phi0=0.2))
    b3 = m.add(sp.BodyCylinder("b3", r=(0.5, 0.0, 0.0), diameter=0.1))
    m.connect(w.frame, j1.frame_a)
    m.connect(j1.frame_b, b1.frame_a)
    m.connect(b1.frame_b, j2.frame_a, fr.frame_a)
    m.connect(j2.frame_b, b2.frame_a)
    m.connect(fr.frame_b, p1.frame_a)
    m.connect(p1.frame_b, box.frame_a, ft.frame_a)
    m.connect(fx.frame, j3.frame_a)
    m.connect(j3.frame_b, b3.frame_a)
    return m


def test_spatial_fast_and_generic_paths_give_the_same_motion_and_cut_forces():
    _, fs, gs = _both_paths(_spatial_tree)
    assert fs.m == 0
    # potentials, f[i], t[i] resolved in the frames; q measured 1.2e-13
    a, _ = _same_runs(fs, gs, 1.0, 21, 1e-9, 1e-8)
    assert np.ptp(a.energy) < 1e-8 * abs(a.energy).max()


def test_spatial_fast_path_cut_forces_obey_newton_for_the_whole_mechanism():
    m = _spatial_tree(True)
    s = m.compile(stabilization=None)
    t = np.linspace(0.0, 1.0, 4001)
    r = s.simulate(1.0, output_times=t, **TIGHT)
    masses = {"b1": 1.2, "b2": 0.8,
              "box": 7700.0 * math.hypot(0.3, 0.1) * 0.1 * 0.1,      # density L w h
              "b3": 7700.0 * math.pi * 0.5 * 0.05 ** 2}              # density pi L r^2
    n = np.array([0.2, -0.3, -1.0]) / np.linalg.norm([0.2, -0.3, -1.0])
    # the World's frame has world axes; the Fixed frame's force is resolved in its axes
    R = np.array([[r[f"fx.frame.R[{i},{j}]"] for j in (1, 2, 3)] for i in (1, 2, 3)])
    f_fx = np.einsum("ijt,jt->it", R, np.array([r[f"fx.frame.f[{k}]"] for k in (1, 2, 3)]))
    for k in range(3):
        p = sum(mass * r[f"{b}.v_cm_0[{k + 1}]"] for b, mass in masses.items())
        dp = np.gradient(p, t, edge_order=2)[50:-50]
        ext = (sum(masses.values()) * 9.81 * n[k] - r[f"world.frame.f[{k + 1}]"]
               - f_fx[k])[50:-50]
        assert np.abs(dp - ext).max() < 5e-4 * np.abs(ext).max()


def _spinning(fast=True):
    """A top on a spherical joint carrying an arm, and a free body (FreeMotion) on the arm:
    quaternion coordinates, declared speeds, kinematics q' = N(q) u."""
    from mechdae.components import spatial as sp
    m = md.Model("top")
    m._tree_fast_path = fast
    w = m.add(sp.World("world"))
    j = m.add(sp.Spherical("j", n=(1, 0, 0), angle0=0.3, w0=(0.5, -0.2, 30.0)))
    b = m.add(sp.Body("b", m=1.0, I=[[0.02, 0.001, 0], [0.001, 0.025, 0], [0, 0, 0.03]],
                      r_cm=(0.01, 0.0, 0.1)))
    arm = m.add(sp.BodyShape("arm", r=(0.2, 0, 0), r_cm=(0.1, 0.02, 0), m=0.3, I=0.001))
    fm = m.add(sp.FreeMotion("fm", r0=(0.5, 0.2, 1.0), v0=(0.3, 0, 2.0), n=(0, 1, 0),
                             angle0=0.4, w0=(1.0, 2.0, -1.0)))
    fb = m.add(sp.Body("fb", m=0.7, I=(0.01, 0.02, 0.03), r_cm=(0.05, 0.0, 0.0)))
    m.connect(w.frame, j.frame_a)
    m.connect(j.frame_b, b.frame_a, arm.frame_a)
    m.connect(arm.frame_b, fm.frame_a)
    m.connect(fm.frame_b, fb.frame_a)
    return m


def test_spatial_quaternion_joints_on_the_fast_path():
    _, fs, gs = _both_paths(_spinning)
    assert fs.q_names[:4] == ["j.q0", "j.q1", "j.q2", "j.q3"] and "j.wz" in fs.u_names
    a, _ = _same_runs(fs, gs, 1.0, 21, 1e-8, 1e-7)      # every output, cut forces included
    assert np.ptp(a.energy) < 1e-7 * abs(a.energy).max()   # spin 30 rad/s: measured 5e-8


def test_other_spatial_joints_take_the_generic_path():
    from mechdae.components import spatial as sp
    m = md.Model("cardan")
    w = m.add(sp.World("world"))
    j = m.add(sp.Universal("j", phi_a0=0.2))
    b = m.add(sp.BodyShape("b", r=(0.0, 0.0, -1.0), r_cm=(0.0, 0.0, -0.5)))
    m.connect(w.frame, j.frame_a)
    m.connect(j.frame_b, b.frame_a)
    m.compile()
    assert "tree_fast_path" not in m.flatten_stats


def _spatial_elements(fast=True):
    """Force elements, sources, sensors and a contact on a spatial tree: a pendulum about y
    that strikes a floor (restitution 0.5) with a spring-damper to the World."""
    from mechdae.components import spatial as sp
    m = md.Model("spel")
    m._tree_fast_path = fast
    w = m.add(sp.World("world"))
    j = m.add(sp.Revolute("j", n=(0, 1, 0), phi0=-1.2, w0=0.5))
    arm = m.add(sp.BodyShape("arm", r=(1.0, 0.0, 0.0), r_cm=(0.5, 0.05, 0.0), m=1.0,
                             I=(0.01, 0.08, 0.08)))
    sd = m.add(sp.SpringDamper("sd", c=15.0, d=0.3, s_unstretched=0.5))
    f = m.add(sp.WorldForce("f", force=lambda t: (md.sin(t), 0.2, 0.0),
                            resolveInFrame="frame_b"))
    tq = m.add(sp.WorldTorque("tq", torque=(0.0, 0.4, 0.3)))
    floor = m.add(sp.PointPlaneContact("floor", radius=0.05, p0=(0.0, 0.0, -0.6), e=0.5))
    rp = m.add(sp.RelativePosition("rp"))
    rw = m.add(sp.RelativeAngularVelocity("rw"))
    m.connect(w.frame, j.frame_a, sd.frame_a, rp.frame_a, rw.frame_a)
    m.connect(j.frame_b, arm.frame_a, f.frame_b, tq.frame_b)
    m.connect(arm.frame_b, sd.frame_b, floor.frame, rp.frame_b, rw.frame_b)
    return m


def test_spatial_force_elements_sensors_and_contacts_stay_on_the_fast_path():
    fm, fs, gs = _both_paths(_spatial_elements)
    assert "floor.frame.f[3]" in fm._unavailable_outputs
    t = np.linspace(0.0, 1.5, 31)
    a = fs.simulate(1.5, output_times=t, **TIGHT)
    b = gs.simulate(1.5, output_times=t, **TIGHT)
    ev_a = [e.t for e in a.events]
    assert len(ev_a) >= 2 and np.allclose(ev_a, [e.t for e in b.events], atol=1e-9)
    # the same samples (output times and the events' instants), the same values
    assert np.allclose(a.t, b.t, atol=1e-9) and np.abs(a.q - b.q).max() < 1e-8
    for name in ("rp.r_rel[1]", "rp.r_rel[3]", "rw.w_rel[2]", "sd.f", "sd.v_rel",
                 "floor.gap", "arm.v_cm_0[1]"):
        assert np.abs(a[name] - b[name]).max() < 1e-7 * (1 + np.abs(b[name]).max()), name
    assert min(a["floor.gap"]) > -1e-6                          # it lands and bounces


def _spatial_driven(fast=True):
    from mechdae.components import rotational as rot, spatial as sp, translational as tr
    m = md.Model("spdrive")
    m._tree_fast_path = fast
    w = m.add(sp.World("world"))
    j = m.add(sp.Revolute("j", n=(0, 1, 0), phi0=0.4, useAxisFlange=True))
    b = m.add(sp.BodyBox("b", r=(0.5, 0.0, 0.0), width=0.06))
    p = m.add(sp.Prismatic("p", n=(1, 0, 0), s0=0.1, useAxisFlange=True))
    s = m.add(sp.Body("s", m=0.3, I=0.01))
    d = m.add(rot.Damper("d", d=0.1))
    tq = m.add(rot.Torque("tq", tau=lambda t: 0.5 * md.cos(t)))
    sd = m.add(tr.SpringDamper("sd", c=30.0, d=0.5))
    m.connect(w.frame, j.frame_a)
    m.connect(j.frame_b, b.frame_a)
    m.connect(b.frame_b, p.frame_a)
    m.connect(p.frame_b, s.frame_a)
    m.connect(j.support, d.flange_a)
    m.connect(j.axis, d.flange_b, tq.flange)
    m.connect(p.support, sd.flange_a)
    m.connect(p.axis, sd.flange_b)
    return m


def test_spatial_drives_on_the_axis_flanges_stay_on_the_fast_path():
    _, fs, gs = _both_paths(_spatial_driven)
    a, t = _same_runs(fs, gs, 2.0, 21, 1e-9, 1e-8)
    # the axis flange balances the damper and the torque source on it
    assert np.allclose(a["j.axis.tau"] + a["d.flange_b.tau"] + a["tq.flange.tau"], 0.0,
                       atol=1e-12)
    assert np.allclose(a["d.tau"], 0.1 * a["j.w"], atol=1e-12)
