"""Drawing from the model: components and rigid bodies draw themselves, placed by the
frames and flanges the run computed (checked against the closed-form kinematics), and
``Result.animate`` writes a GIF of a planar, a spatial and a 1-D model; every model file
in models/ animates through ``mechdae run --animate`` (slow)."""
import glob
import math
import os

import numpy as np
import pytest

import mechdae as md
from mechdae.components import planar as pl, rotational as rot, spatial as sp
from mechdae.components import translational as tr
from mechdae.simulate.scene import Scene, model_shapes

pytest.importorskip("matplotlib")

MODELS = os.path.join(os.path.dirname(__file__), "..", "models")


def _by(scene, kind, name):
    return [s for s in scene.shapes if s.kind == kind and s.name == name]


def test_planar_pendulum_draws_its_links_where_the_joint_angles_put_them(tmp_path):
    m = md.Model("dp")
    w = m.add(pl.World("world"))
    j1 = m.add(pl.Revolute("j1", phi0=0.4))
    l1 = m.add(pl.BodyShape("l1", r=(0.8, 0.0), r_cm=(0.4, 0.0), m=1.0, I=0.05))
    j2 = m.add(pl.Revolute("j2", phi0=-0.3))
    l2 = m.add(pl.BodyShape("l2", r=(0.5, 0.0), r_cm=(0.25, 0.0), m=1.0, I=0.02))
    m.connect(w.frame, j1.frame_a)
    m.connect(j1.frame_b, l1.frame_a)
    m.connect(l1.frame_b, j2.frame_a)
    m.connect(j2.frame_b, l2.frame_a)
    res = m.compile().simulate(0.5, params={"l2.r[1]": 0.6}, progress=False)
    scene = Scene(res, m)
    assert scene.dim == 2
    kinds = sorted({s.kind for s in scene.shapes})
    assert kinds == ["axes", "capsule", "joint", "sphere"]
    p1, p2 = res["j1.phi"], res["j2.phi"]
    # tip of l2: closed form of the chain, with the length given at simulate time
    tip = np.stack([0.8 * np.cos(p1) + 0.6 * np.cos(p1 + p2),
                    0.8 * np.sin(p1) + 0.6 * np.sin(p1 + p2)], axis=1)
    (bar,) = _by(scene, "capsule", "l2")
    assert np.allclose(scene.point(bar.anchors[1])[:, :2], tip, atol=1e-9)
    # the sphere of l1 at its center of mass r_cm = (0.4, 0)
    (ball,) = _by(scene, "sphere", "l1")
    cm = np.stack([0.4 * np.cos(p1), 0.4 * np.sin(p1)], axis=1)
    assert np.allclose(scene.point(ball.anchors[0])[:, :2], cm, atol=1e-9)
    anim = res.animate(tmp_path / "dp.gif", fps=10)
    assert os.path.getsize(tmp_path / "dp.gif") > 1000
    assert len(anim.frame_times) == 6


def test_spatial_top_draws_its_center_of_mass_on_the_rotated_axis(tmp_path):
    from PIL import Image
    m = md.Model("top")
    w = m.add(sp.World("world"))
    j = m.add(sp.Spherical("j", n=(1.0, 0.0, 0.0), angle0=0.3))
    b = m.add(sp.Body("b", m=1.0, I=(0.02, 0.02, 0.03), r_cm=(0.0, 0.0, 0.1)))
    m.connect(w.frame, j.frame_a)
    m.connect(j.frame_b, b.frame_a)
    res = m.compile().simulate(0.3, v0={"j.wz": 40.0}, progress=False)
    scene = Scene(res, m)
    assert scene.dim == 3
    (ball,) = _by(scene, "sphere", "b")
    c = scene.point(ball.anchors[0])
    # the center of mass is 0.1 m from the pivot, at R e_z 0.1 (R from the quaternion)
    assert np.allclose(np.linalg.norm(c, axis=1), 0.1, atol=1e-9)
    q = np.stack([res[f"j.q{k}"] for k in range(4)], axis=1)
    q /= np.linalg.norm(q, axis=1)[:, None]
    q0, q1, q2, q3 = q.T
    ez = np.stack([2 * (q1 * q3 + q0 * q2), 2 * (q2 * q3 - q0 * q1),
                   1 - 2 * (q1 ** 2 + q2 ** 2)], axis=1)
    assert np.allclose(c, 0.1 * ez, atol=1e-9)
    assert c[0, 2] == pytest.approx(0.1 * math.cos(0.3), abs=1e-12)
    res.animate(tmp_path / "top.gif", fps=10)
    with Image.open(tmp_path / "top.gif") as im:
        assert im.n_frames == 4


def test_one_dimensional_schematic_blocks_springs_and_rotors(tmp_path):
    m = md.Model("osc")
    fx = m.add(tr.Fixed("fixed", s0=1.0))
    k = m.add(tr.Spring("spring", c=40.0, s_rel0=0.5))
    mass = m.add(tr.Mass("mass", m=1.0, L=0.2, s=0.2))
    m.connect(mass.flange_b, k.flange_a)
    m.connect(k.flange_b, fx.flange)
    J = m.add(rot.Inertia("J", J=0.1, w=2.0))
    d = m.add(rot.Damper("d", d=0.05))
    f = m.add(rot.Fixed("f"))
    m.connect(J.flange_b, d.flange_a)
    m.connect(d.flange_b, f.flange)
    res = m.compile().simulate(1.0, progress=False)
    scene = Scene(res, m)
    assert sorted(s.kind for s in scene.shapes) == ["block", "damper", "ground", "ground",
                                                     "rotor", "spring"]
    (block,) = _by(scene, "block", "mass")
    a, b = scene.point(block.anchors[0]), scene.point(block.anchors[1])
    # the block spans s -+ L/2 on its line; the spring runs from it to the wall at s0
    assert np.allclose(a[:, 0], res["mass.s"] - 0.1) and np.allclose(b[:, 0], res["mass.s"] + 0.1)
    (spring,) = _by(scene, "spring", "spring")
    assert np.allclose(scene.point(spring.anchors[1])[:, 0], 1.0)
    assert np.allclose(a[:, 1], b[:, 1])
    # the rotor's spoke turns with phi: free rotor with damping, phi(t) = J w0/d (1 - e^(-d t/J))
    (rotor,) = _by(scene, "rotor", "J")
    _, R = scene.pose(rotor.anchors[0])
    phi = np.unwrap(np.arctan2(R[:, 1, 0], R[:, 0, 0]))
    exact = 0.1 * 2.0 / 0.05 * (1 - np.exp(-0.05 * res.t / 0.1))
    assert np.allclose(phi, exact, atol=1e-5)
    # the rotational line lies below the translational one
    assert scene.point(rotor.anchors[0])[0, 1] < a[0, 1]
    res.animate(tmp_path / "osc.gif", fps=5)


def test_contacts_draw_their_point_and_plane_and_joint_drives_are_left_to_the_joint():
    m = md.Model("ball")
    w = m.add(pl.World("world"))
    fr = m.add(pl.Free("free", y0=0.5))
    b = m.add(pl.Body("ball", m=1.0, I=0.01))
    c = m.add(pl.PointLineContact("floor", r=(0.0, -0.1), p0=(0.0, 0.0), n=(0.0, 1.0), e=0.5))
    m.connect(w.frame, fr.frame_a)
    m.connect(fr.frame_b, b.frame_a, c.frame)
    j = m.add(pl.Revolute("j", useAxisFlange=True))
    d = m.add(rot.Damper("damp", d=0.1))
    arm = m.add(pl.BodyShape("arm", r=(0.3, 0.0), r_cm=(0.15, 0.0)))
    m.connect(w.frame, j.frame_a)
    m.connect(j.frame_b, arm.frame_a)
    m.connect(j.axis, d.flange_a)
    m.connect(j.support, d.flange_b)
    shapes = model_shapes(m)
    assert {s.kind for s in shapes if s.name == "floor"} == {"point", "plane"}
    res = m.compile().simulate(0.2, progress=False, method="event")
    scene = Scene(res, m)
    assert not _by(scene, "damper", "damp")          # on the joint's drive flanges
    (pt,) = _by(scene, "point", "floor")
    assert pt.extra["contact"] == "floor.contact"
    assert np.allclose(scene.point(pt.anchors[0])[:, 1], res["free.y"] - 0.1, atol=1e-12)


def test_rigid_bodies_of_a_hand_written_model_draw_themselves():
    m = md.Model("free")
    b = m.rigid_body("b", mass=1.0, inertia=0.1, planar=True, gravity=9.81)
    res = m.compile().simulate(0.3, q0={"b.theta": 0.2}, v0={"b.vx": 1.0}, progress=False)
    scene = Scene(res, m)
    (ball,) = _by(scene, "sphere", "b")
    P = scene.point(ball.anchors[0])
    assert np.allclose(P[:, 0], res.t, atol=1e-6)                  # x = v0 t
    assert np.allclose(P[:, 1], -0.5 * 9.81 * res.t ** 2, atol=1e-6)
    _, R = scene.pose(_by(scene, "axes", "b")[0].anchors[0])
    assert np.allclose(R[:, 0, 0], math.cos(0.2)) and np.allclose(R[:, 1, 0], math.sin(0.2))


def _model_files():
    return sorted(os.path.basename(f)[:-3] for f in glob.glob(os.path.join(MODELS, "*.py")))


@pytest.mark.parametrize("name", ["msl_multibody_double_pendulum", "pendulum",
                                  "msl_translational_oscillator"])
def test_run_animate_representative_models(name, tmp_path):
    from mechdae.cli import main
    out = tmp_path / f"{name}.gif"
    rc = main(["run", os.path.join(MODELS, f"{name}.py"), "--t-final", "0.1", "--no-plot",
               "--animate", str(out)])
    assert rc == 0 and out.stat().st_size > 1000


@pytest.mark.slow
@pytest.mark.parametrize("name", _model_files())
def test_every_model_file_animates(name, tmp_path):
    from mechdae.cli import main
    out = tmp_path / f"{name}.gif"
    rc = main(["run", os.path.join(MODELS, f"{name}.py"), "--t-final", "0.05", "--no-plot",
               "--animate", str(out), "--no-progress"])
    assert rc == 0 and out.stat().st_size > 1000


def test_stop_draws_the_point_that_touches_it():
    from mechdae.components import friction
    m = md.Model("stop")
    mass = m.add(tr.Mass("mass", m=1.0, L=0.2, s=0.0, v=1.0))
    stop = m.add(friction.Stop("stop", s_max=0.3, e=0.5))
    m.connect(mass.flange_b, stop.flange)
    res = m.compile().simulate(0.6, method="event", progress=False)
    scene = Scene(res, m)
    (pt,) = _by(scene, "point", "stop")
    assert pt.extra["contact"] == "stop.upper"
    # the flange_b of the mass: s + L/2, reaching the stop at t = 0.2 s, then back at v/2
    x = scene.point(pt.anchors[0])[:, 0]
    assert np.allclose(x, res["mass.s"] + 0.1) and x.max() == pytest.approx(0.3, abs=1e-9)
    (hit,) = [e.t for e in res.events if e.kind == "impact"]
    assert hit == pytest.approx(0.2, abs=1e-9)
