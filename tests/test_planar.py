"""Planar multibody components (mechdae.components.planar): agreement with the hand-written
models, cut forces, drives, force elements, contacts, bad input and the guide's example."""
import math
import re

import numpy as np
import pytest

import mechdae as md
from mechdae.components import planar as pl
from mechdae.components import rotational as rot
from mechdae.components import translational as tr

from conftest import REPO, model_module

TIGHT = dict(rtol=1e-12, atol=1e-12)


def _chain(n, L=1.0, mass=1.0):
    """n links hanging from the world: Revolute + BodyShape (point mass at the tip)."""
    m = md.Model(f"chain{n}")
    prev = m.add(pl.World("world")).frame
    for i in range(1, n + 1):
        j = m.add(pl.Revolute(f"j{i}"))
        b = m.add(pl.BodyShape(f"b{i}", r=(0.0, -L), r_cm=(0.0, -L), m=mass, I=0.0))
        m.connect(prev, j.frame_a)
        m.connect(j.frame_b, b.frame_a)
        prev = b.frame_b
    return m


def _pendulum(g=9.81, mass=2.0, a=0.5, I=0.1, useAxisFlange=False, phi0=0.0, w0=0.0):
    m = md.Model("pendulum")
    world = m.add(pl.World("world", g=g))
    j = m.add(pl.Revolute("j1", phi0=phi0, w0=w0, useAxisFlange=useAxisFlange))
    body = m.add(pl.BodyShape("l1", r=(2 * a, 0.0), r_cm=(a, 0.0), m=mass, I=I))
    m.connect(world.frame, j.frame_a)
    m.connect(j.frame_b, body.frame_a)
    return m, j


# ------------------------------------------------------------------ agreement with models
def test_double_pendulum_equals_the_cartesian_model():
    s = model_module("planar_double_pendulum").build().compile(stabilization=None)
    assert s.q_names == ["j1.phi", "j2.phi"] and s.m == 0
    h = model_module("double_pendulum").build().compile(
        stabilization=md.Baumgarte(alpha=20.0, beta=20.0))
    t = np.linspace(0.0, 3.0, 31)
    r1 = s.simulate(3.0, output_times=t, **TIGHT)
    r2 = h.simulate(3.0, q0={"x1": 1.0, "y1": 0.0, "x2": 2.0, "y2": 0.0}, output_times=t,
                    **TIGHT)
    err = max(np.abs(r1[f"l{k}.frame_b.{c}"] - r2[f"{c}{k}"]).max()
              for k in (1, 2) for c in "xy")
    assert err < 1e-9                                   # measured 4.4e-10
    # energy of the tree model: no constraint, conserved to the integrator tolerance
    assert np.ptp(r1.energy) < 1e-8                     # measured 1.5e-9


def test_eight_link_chain_equals_models_nlink_chain():
    s = _chain(8).compile(stabilization=None)
    assert s.q_names == [f"j{i}.phi" for i in range(1, 9)] and s.m == 0
    h = model_module("nlink_chain").build(8).compile(stabilization=None)
    t = np.linspace(0.0, 2.0, 21)
    # theta1 = 1 (absolute angles from the downward vertical), the others 0: relative
    # joint angles j1 = 1, j2 = -1
    r1 = s.simulate(2.0, q0={"j1.phi": 1.0, "j2.phi": -1.0}, output_times=t, **TIGHT)
    r2 = h.simulate(2.0, q0={"theta1": 1.0}, output_times=t, **TIGHT)
    theta = np.cumsum([r1[f"j{i}.phi"] for i in range(1, 9)], axis=0)
    err = max(np.abs(theta[i] - r2[f"theta{i + 1}"]).max() for i in range(8))
    assert err < 1e-9                                   # measured 3e-10
    assert np.abs(r1["b8.frame_a.phi"] - r2["theta8"]).max() < 1e-9


def test_slider_crank_equals_the_hand_written_model_and_its_multiplier():
    mod = model_module("planar_slider_crank")
    stab = md.Baumgarte(alpha=20.0, beta=20.0)
    s = mod.build().compile(stabilization=stab)
    # j3.phi and slide.s are eliminated by rows linear in them; one row stays a constraint
    assert s.q_names == ["j1.phi", "j2.phi"] and s.m == 1
    h = model_module("slider_crank").build().compile(stabilization=stab)
    t = np.linspace(0.0, 5.0, 51)
    kw = dict(output_times=t, rtol=1e-11, atol=1e-11)
    r1 = s.simulate(5.0, q0=mod.SIMULATION["q0"], v0=mod.SIMULATION["v0"], **kw)
    r2 = h.simulate(5.0, q0={"th1": 0.0}, v0={"th1": 6.0, "th2": 3.0}, **kw)
    assert np.abs(r1["j1.phi"] - r2["th1"]).max() < 1e-6          # measured 2.8e-8
    assert np.abs(r1["slide.s"] - r2["s"]).max() < 1e-6
    assert np.abs(-(r1["j1.phi"] + r1["j2.phi"]) - r2["th2"]).max() < 1e-6
    # the pin force on the rod (j3.frame_b flows) is the multiplier of the loop constraint
    lam = r2.multipliers["loop"]
    scale = np.abs(lam).max()
    assert np.abs(r1["j3.frame_b.fx"] - lam[:, 0]).max() < 1e-6 * scale   # measured 2e-8
    assert np.abs(r1["j3.frame_b.fy"] - lam[:, 1]).max() < 1e-6 * scale
    # Newton at the piston: inertial force minus weight = pin force + guide force
    assert np.allclose(r1["piston.frame_a.fy"], 9.81, atol=1e-9)       # only its weight
    assert r1.max_drift() < 1e-6


def test_rocking_block_from_a_body_and_two_contacts_has_the_same_events():
    rb = model_module("rocking_block")
    m = md.Model("pl_block")
    l, h, mass = 1.0, 1.5, 1.0
    world = m.add(pl.World("world"))
    free = m.add(pl.Free("free"))
    body = m.add(pl.Body("block", m=mass, I=mass * (h ** 2 + l ** 2) / 12))
    m.connect(world.frame, free.frame_a)
    m.connect(free.frame_b, body.frame_a)
    for name, r in (("L", (-l / 2, -h / 2)), ("R", (l / 2, -h / 2))):
        m.connect(body.frame_a, m.add(pl.PointLineContact(name, r=r, e=0.5, mu=0.5)).frame)
    s1 = m.compile(stabilization=None)
    assert s1.contact_names == ["L.contact", "R.contact"]
    s2 = rb.build().compile(stabilization=None)
    r1 = s1.simulate(3.0, q0={"free.x": 0.0, "free.y": 1.0, "free.phi": 0.2}, method="event",
                     max_events=2000)
    r2 = s2.simulate(3.0, q0={"x": 0.0, "y": 1.0, "th": 0.2}, method="event", max_events=2000)
    e1 = [(e.t, e.kind, e.contact) for e in r1.events]
    e2 = [(e.t, e.kind, f"{e.contact}.contact" if e.contact else e.contact) for e in r2.events]
    assert len(e1) == len(e2)
    for (t1, k1, c1), (t2, k2, c2) in zip(e1[:10], e2[:10]):
        assert (k1, c1) == (k2, c2) and t1 == pytest.approx(t2, abs=1e-9)
    assert r1.modes[-1] == "kk" and abs(r1["free.phi"][-1]) < 1e-12
    assert r1["free.y"][-1] == pytest.approx(h / 2, abs=1e-12)


def test_two_link_mechanism_impacts_equal_seed_000_with_all_solutions():
    tl = model_module("two_link_impact")
    m = model_module("planar_two_link_impact").build()
    s1 = m.compile()
    s2 = tl.build().compile()
    rng = np.random.default_rng(0)
    worst, seen = 0.0, set()
    for _ in range(100):
        a, g, f = rng.uniform(0.1, 1.4), rng.uniform(-math.pi, 0.0), rng.uniform(0.0, 6.0)
        q, v = tl.impact_state(a, g)
        # hip x, y; leg OD's absolute angle; the knee's relative angle
        q1 = [q["xO"], q["yO"], q["th1"], q["th2"] - q["th1"]]
        v1 = [v["xO"], v["yO"], v["th1"], v["th2"] - v["th1"]]
        o1 = s1.impact(q1, v1, all_solutions=True, params={"B.mu": f})
        o2 = s2.impact([q[n] for n in s2.q_names], [v[n] for n in s2.q_names],
                       all_solutions=True, params={"f": f})
        assert o1.status == o2.status and len(o1.solutions) == len(o2.solutions)
        seen.add(o1.status)
        for x1, x2 in zip(o1.solutions, o2.solutions):
            vp = x2.v_plus_array
            worst = max(worst, np.abs(x1.v_plus_array
                                      - [vp[0], vp[1], vp[2], vp[3] - vp[2]]).max())
            for c in "DB":
                worst = max(worst, np.abs(np.subtract(x1.impulses[f"{c}.contact"],
                                                      x2.impulses[c])).max())
                assert x1.modes[f"{c}.contact"] == x2.modes[c]
    assert worst < 1e-12                                # measured 2.7e-15
    assert seen == {"unique", "ambiguous", "inconsistent"}


def test_two_link_legs_dropped_land_together_and_stand():
    mod = model_module("planar_two_link_impact")
    sim = dict(mod.SIMULATION)
    s = mod.build().compile(stabilization=None)
    r = s.simulate(sim["t_final"], q0=sim["q0"], method="event")
    t_land = math.sqrt(2 * mod.H / 9.81)
    assert [(e.kind, e.contact) for e in r.events] == [
        ("impact", "D.contact"), ("impact", "B.contact"), ("stick", "D.contact"),
        ("stick", "B.contact")]
    assert all(e.t == pytest.approx(t_land, abs=1e-9) for e in r.events)
    # f = 0.5 exceeds the A-frame's thrust ratio tan(a)/2: the legs stand where they land
    assert r["hip.y"][-1] == pytest.approx(math.cos(mod.A), abs=1e-12)
    assert r["O.phi"][-1] == pytest.approx(-2 * mod.A, abs=1e-12)


# ------------------------------------------------------------------ cut forces, drives
def test_hanging_pendulum_at_rest_carries_its_weight():
    mass, a = 2.0, 0.5
    m, _ = _pendulum(mass=mass, a=a, phi0=-math.pi / 2)
    res = m.compile().simulate(1.0)
    assert np.allclose(res["j1.phi"], -math.pi / 2, atol=1e-12)
    assert np.allclose(res["j1.frame_a.fy"], mass * 9.81, atol=1e-9)      # the world holds it
    assert np.allclose(res["j1.frame_a.fx"], 0.0, atol=1e-9)
    assert np.allclose(res["j1.frame_a.tau"], 0.0, atol=1e-9)
    assert np.allclose(res["world.frame.fy"], -mass * 9.81, atol=1e-9)
    assert np.allclose(res["j1.frame_b.fy"], -mass * 9.81, atol=1e-9)     # node balance
    assert np.allclose(res["l1.r_cm_y"], -a, atol=1e-12)


def test_rotating_pendulum_pivot_force_is_centripetal_plus_weight_component():
    mass, a, I = 2.0, 0.5, 0.1
    m, _ = _pendulum(mass=mass, a=a, I=I, w0=8.0)
    res = m.compile().simulate(2.0, rtol=1e-10, atol=1e-10)
    phi, w = res["l1.frame_a.phi"], res["l1.w"]
    er = np.array([np.cos(phi), np.sin(phi)])            # from the pivot to the center
    F = np.array([res["j1.frame_a.fx"], res["j1.frame_a.fy"]])   # world -> joint -> body
    tension = -(F * er).sum(axis=0)                      # pull toward the pivot
    # m a w^2 + m g cos(theta), theta from the downward vertical: cos(theta) = -sin(phi)
    assert np.abs(tension - (mass * a * w ** 2 - mass * 9.81 * np.sin(phi))).max() < 1e-6
    assert np.ptp(res.energy) < 1e-7 * abs(res.energy[0])
    # without gravity (the World's parameter): uniform rotation, pure centripetal pull
    res0 = m.compile().simulate(1.0, params={"world.g": 0.0})
    assert np.allclose(res0["l1.w"], 8.0, atol=1e-8)
    F0 = np.array([res0["j1.frame_a.fx"], res0["j1.frame_a.fy"]])
    assert np.allclose(np.hypot(*F0), mass * a * 64.0, rtol=1e-7)


def test_torque_and_spring_on_the_axis_flange_act_on_the_joint_coordinate():
    mass, a, I = 2.0, 0.5, 0.1
    J = I + mass * a ** 2
    m, j = _pendulum(g=0.0, mass=mass, a=a, I=I, useAxisFlange=True)
    drive = m.add(rot.Torque("drive", tau=3.0))
    m.connect(drive.flange, j.axis)
    res = m.compile().simulate(1.0)
    assert np.allclose(res["j1.phi"], 0.5 * 3.0 / J * res.t ** 2, atol=1e-7)
    assert np.allclose(res["j1.axis.phi"], res["j1.phi"])
    assert np.allclose(res["j1.frame_a.tau"], 3.0, atol=1e-7)            # reaction to ground
    m, j = _pendulum(g=0.0, mass=mass, a=a, I=I, useAxisFlange=True, phi0=0.2)
    spring = m.add(rot.Spring("spring", c=5.0))
    m.connect(j.axis, spring.flange_b)
    m.connect(j.support, spring.flange_a)
    res = m.compile().simulate(1.0)
    assert np.allclose(res["j1.phi"], 0.2 * np.cos(np.sqrt(5.0 / J) * res.t), atol=1e-7)


def test_prismatic_with_a_force_on_its_axis_and_its_guide_force():
    m = md.Model("slider")
    world = m.add(pl.World("world"))
    p = m.add(pl.Prismatic("p", r=(2.0, 0.0), useAxisFlange=True))   # direction normalized
    body = m.add(pl.Body("body", m=2.0, I=0.1))
    push = m.add(tr.Force("push", f=4.0))
    m.connect(world.frame, p.frame_a)
    m.connect(p.frame_b, body.frame_a)
    m.connect(push.flange, p.axis)
    res = m.compile().simulate(1.0)
    assert np.allclose(res["p.s"], 0.5 * 2.0 * res.t ** 2, atol=1e-7)
    assert np.allclose(res["body.frame_a.x"], res["p.s"])
    assert np.allclose(res["p.frame_a.fy"], 2.0 * 9.81, atol=1e-7)       # the guide holds it
    # the drive's reaction goes through frame_a to the world (MSL: frame_a.f = -frame_b.f)
    assert np.allclose(res["p.frame_a.fx"], 4.0, atol=1e-7)


def test_free_body_with_spring_damper_force_and_torque_sources():
    """Zero-length spring from the origin: a 2-D harmonic oscillator; a damper along the
    line; Force / Torque sources give the closed-form accelerations; sensors read them."""
    c, mass, I = 4.0, 1.0, 0.5
    m = md.Model("free")
    world = m.add(pl.World("world", g=0.0))
    free = m.add(pl.Free("free"))
    body = m.add(pl.Body("body", m=mass, I=I))
    spring = m.add(pl.Spring("spring", c=c))
    torque = m.add(pl.Torque("torque", tau=lambda t: 0.5 * t))
    pos = m.add(pl.RelativePosition("pos", resolveInFrame="world"))
    vel = m.add(pl.RelativeVelocity("vel", resolveInFrame="world"))
    ang = m.add(pl.RelativeAngle("ang"))
    m.connect(world.frame, free.frame_a, spring.frame_a, pos.frame_a, vel.frame_a, ang.frame_a)
    m.connect(free.frame_b, body.frame_a, spring.frame_b, torque.frame_b, pos.frame_b,
              vel.frame_b, ang.frame_b)
    res = m.compile().simulate(2.0, q0={"free.x": 0.3, "free.y": -0.2}, v0={"free.vy": 0.4},
                               rtol=1e-10, atol=1e-10)
    t, w = res.t, 2.0
    assert np.allclose(res["free.x"], 0.3 * np.cos(w * t), atol=1e-7)
    assert np.allclose(res["free.y"], -0.2 * np.cos(w * t) + 0.2 * np.sin(w * t), atol=1e-7)
    assert np.allclose(res["free.phi"], 0.5 * t ** 3 / 6 / I, atol=1e-7)
    assert np.allclose(res["pos.x_rel"], res["free.x"]) and np.allclose(res["ang.phi_rel"],
                                                                        res["free.phi"])
    assert np.allclose(res["vel.vy_rel"], res["free.vy"], atol=1e-9)
    assert np.allclose(res["spring.f"], c * res["spring.s_rel"])
    assert np.allclose(res["spring.frame_b.fx"], c * res["free.x"], atol=1e-9)

    # damper along x from a fixed point, pushed by a constant force: v -> F / d
    m = md.Model("damped")
    world = m.add(pl.World("world", g=0.0))
    free = m.add(pl.Free("free", x0=1.0))
    body = m.add(pl.Body("body", m=mass, I=I))
    damper = m.add(pl.Damper("damper", d=2.0))
    force = m.add(pl.Force("force", force=(1.0, 0.0)))
    m.connect(world.frame, free.frame_a, damper.frame_a)
    m.connect(free.frame_b, body.frame_a, damper.frame_b, force.frame_b)
    res = m.compile().simulate(2.0, rtol=1e-10, atol=1e-10)
    assert np.allclose(res["free.vx"], 0.5 * (1.0 - np.exp(-2.0 * res.t)), atol=1e-7)
    assert np.allclose(res["damper.f"], 2.0 * res["free.vx"], atol=1e-9)
    assert np.allclose(res["free.y"], 0.0) and np.allclose(res["free.phi"], 0.0)


def test_spring_damper_between_two_bodies_conserves_momentum():
    m = md.Model("two bodies")
    world = m.add(pl.World("world", g=0.0))
    bodies = []
    for k, x0 in enumerate((0.0, 1.5)):
        f = m.add(pl.Free(f"f{k}", x0=x0, vy0=0.3 * (1 - 2 * k)))
        b = m.add(pl.Body(f"b{k}", m=1.0 + k, I=0.1))
        m.connect(world.frame, f.frame_a)
        m.connect(f.frame_b, b.frame_a)
        bodies.append(b)
    sd = m.add(pl.SpringDamper("sd", c=10.0, d=0.5, s_rel0=1.0))
    m.connect(bodies[0].frame_a, sd.frame_a)
    m.connect(bodies[1].frame_a, sd.frame_b)
    res = m.compile().simulate(3.0, rtol=1e-10, atol=1e-10)
    px = res["f0.vx"] + 2.0 * res["f1.vx"]
    py = res["f0.vy"] + 2.0 * res["f1.vy"]
    assert np.ptp(px) < 1e-8 and np.ptp(py) < 1e-8
    assert res.energy[-1] < res.energy[0]                       # the damper dissipates


# ------------------------------------------------------------------ structure, bad input
def _fourbar(l3=1.0):
    m = md.Model("fourbar")
    world = m.add(pl.World("world"))
    parts = [pl.Revolute("j1", phi0=math.pi / 2), pl.BodyShape("crank", r=(1.0, 0.0)),
             pl.Revolute("j2", phi0=-math.pi / 2), pl.BodyShape("coupler", r=(2.0, 0.0),
                                                                r_cm=(1.0, 0.0)),
             pl.Revolute("j3", phi0=-math.pi / 2), pl.BodyShape("rocker", r=(l3, 0.0)),
             pl.Revolute("j4"), pl.Fixed("ground", r=(2.0, 0.0))]
    prev = world.frame
    for p in parts:
        m.add(p)
        m.connect(prev, p.frame_a if hasattr(p, "frame_a") else p.frame)
        prev = getattr(p, "frame_b", None)
    return m


def test_four_bar_loop_is_joint_coordinates_and_constraints():
    s = _fourbar().compile()
    # j4.phi eliminated by the angle row of the cut joint; its x, y rows are constraints
    assert s.q_names == ["j1.phi", "j2.phi", "j3.phi"] and s.m == 2
    res = s.simulate(2.0, v0={"j1.w": 1.0, "j2.w": -1.0, "j3.w": 1.0})
    assert res.max_drift() < 1e-5
    assert np.allclose(res["j4.frame_b.x"], 2.0, atol=1e-5)
    # Newton's third law at the cut node
    assert np.allclose(res["ground.frame.fy"] + res["j4.frame_b.fy"], 0.0, atol=1e-9)


def test_bad_input_is_named():
    m = md.Model("no world")
    f, j, b = m.add(pl.Fixed("f")), m.add(pl.Revolute("j")), m.add(pl.Body("b"))
    m.connect(f.frame, j.frame_a)
    m.connect(j.frame_b, b.frame_a)
    with pytest.raises(md.ModelError, match="b: a body takes its weight from the World"):
        m.compile()

    m = md.Model("two worlds")
    w1, w2, j, b = (m.add(pl.World("w1")), m.add(pl.World("w2")), m.add(pl.Revolute("j")),
                    m.add(pl.Body("b")))
    m.connect(w1.frame, j.frame_a)
    m.connect(j.frame_b, b.frame_a)
    with pytest.raises(md.ModelError, match=r"2 Worlds \(w1, w2\)"):
        m.compile()

    m = md.Model("floating")
    m.add(pl.World("world"))
    m.add(pl.Body("b"))
    with pytest.raises(md.ModelError, match="'b.frame_a' is not positioned by anything.*pl.Free"):
        m.compile()

    m = md.Model("dangling")
    m.add(pl.World("world"))
    b, j = m.add(pl.BodyShape("b")), m.add(pl.Revolute("j"))
    m.connect(b.frame_b, j.frame_a)
    with pytest.raises(md.ModelError, match="'b.frame_a', 'b.frame_b' are not positioned"):
        m.compile()

    m = md.Model("self")
    j = m.add(pl.Revolute("j"))
    with pytest.raises(md.ModelError, match="two frames of joint 'j'"):
        m.connect(j.frame_a, j.frame_b)

    with pytest.raises(ValueError, match="2-vector"):
        pl.BodyShape("b", r=1.0)
    with pytest.raises(ValueError, match="nonzero planar direction"):
        pl.World("w", n=(0.0, 0.0))

    # a loop that cannot close (rocker of length 7 between pivots 2 apart, crank 1,
    # coupler 2): initialization names the cut joint's constraint
    s = _fourbar(7.0).compile()
    with pytest.raises(ValueError, match="consistent initialization failed.*j4.cut_"):
        s.simulate(0.1)


# ------------------------------------------------------------------ guide section 8
def test_guide_section_8_example_runs():
    txt = (REPO / "docs" / "guide.md").read_text()
    sec = txt[txt.index("## 8. Planar multibody components"):]
    blocks = re.findall(r"```python\n(.*?)```", sec, re.S)
    ns = {}
    exec(compile(blocks[0], "guide section 8", "exec"), ns)
    res = ns["res"]
    assert res.system.q_names == ["j1.phi", "j2.phi"]
    assert res.max_drift() < 1e-6
    # the damper takes energy out of the double pendulum
    assert res.energy[-1] < res.energy[0]
    assert np.isfinite(res["j1.frame_a.fy"]).all()


def _disks(e, mu, b, m1=1.0, m2=3.0, R1=0.1, R2=0.2):
    """Two free disks in the plane (no gravity) on a collision course: disk 1 at (-1, 0)
    with vx = 2, disk 2 at (0, b) with vx = -0.5."""
    m = md.Model("disks")
    w = m.add(pl.World("world", g=0.0))
    f1 = m.add(pl.Free("f1", x0=-1.0, vx0=2.0))
    f2 = m.add(pl.Free("f2", y0=b, vx0=-0.5))
    b1 = m.add(pl.Body("b1", m=m1, I=0.5 * m1 * R1 ** 2))
    b2 = m.add(pl.Body("b2", m=m2, I=0.5 * m2 * R2 ** 2))
    c = m.add(pl.PointPointContact("c", radius_a=R1, radius_b=R2, e=e, mu=mu))
    m.connect(w.frame, f1.frame_a, f2.frame_a)
    m.connect(f1.frame_b, b1.frame_a, c.frame_a)
    m.connect(f2.frame_b, b2.frame_a, c.frame_b)
    return m


def test_central_collision_of_two_disks_obeys_newton():
    e, m1, m2, v1, v2 = 0.5, 1.0, 3.0, 2.0, -0.5
    r = _disks(e, 0.0, 0.0).compile(stabilization=None).simulate(1.0, method="event")
    assert [ev.kind for ev in r.events] == ["impact"]
    assert r.events[0].t == pytest.approx((1.0 - 0.3) / (v1 - v2), abs=1e-9)
    assert r["f1.vx"][-1] == pytest.approx(((m1 - e * m2) * v1 + (1 + e) * m2 * v2) / (m1 + m2),
                                           abs=1e-12)
    assert r["f2.vx"][-1] == pytest.approx(((m2 - e * m1) * v2 + (1 + e) * m1 * v1) / (m1 + m2),
                                           abs=1e-12)


@pytest.mark.parametrize("mu", [0.1, 0.5])
def test_oblique_collision_of_two_disks_slides_or_sticks_by_the_friction_cone(mu):
    # line of centers at 30 degrees: n = (cos 30, sin 30); the normal impulse acts through
    # the centers, the tangential one at the rims (effective inverse mass 3 (1/m1 + 1/m2)
    # for uniform disks); the critical friction is 0.128
    e, m1, m2, R1, R2 = 0.5, 1.0, 3.0, 0.1, 0.2
    r = _disks(e, mu, 0.15).compile(stabilization=None).simulate(1.0, method="event")
    n = np.array([math.sqrt(3) / 2, 0.5])
    t = np.array([-n[1], n[0]])
    vrel = np.array([-2.5, 0.0])
    kn = 1 / m1 + 1 / m2
    Pn = (1 + e) * -(vrel @ n) / kn
    Pt_stick = -(vrel @ t) / (3 * kn)
    Pt = Pt_stick if abs(Pt_stick) <= mu * Pn else -mu * Pn * np.sign(vrel @ t)
    P = Pn * n + Pt * t
    # (the impact is located to the event tolerance: the line of centers is off by ~1e-10)
    assert (abs(Pt_stick) <= mu * Pn) == (mu == 0.5)
    assert r["f1.vx"][-1] == pytest.approx(2.0 - P[0] / m1, abs=1e-8)
    assert r["f1.vy"][-1] == pytest.approx(-P[1] / m1, abs=1e-8)
    assert r["f2.vx"][-1] == pytest.approx(-0.5 + P[0] / m2, abs=1e-8)
    assert r["f1.w"][-1] == pytest.approx(-R1 * Pt / (0.5 * m1 * R1 ** 2), abs=1e-8)
    assert r["f2.w"][-1] == pytest.approx(-R2 * Pt / (0.5 * m2 * R2 ** 2), abs=1e-8)
