"""URDF robots (issue 26 part U): mechdae.robots.load_urdf against a closed form and
against Pinocchio, and the errors of bad files.

The reference data tests/data/robots/pinocchio_reference.npz was made by
benchmarks/robots_reference.py with Pinocchio (pin 4.1): crba, nonLinearEffects, aba
(zero torques), computeKineticEnergy and computePotentialEnergy at 5 random states of
each robot; the robots are tests/data/robots/*.urdf (ANYmal B, Panda and the G1 humanoid from
example-robot-data with their meshes stripped; a hand-written two-link arm).
"""
import math
import os

import casadi as ca
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from mechdae import robots
from mechdae.errors import ModelError, ModelWarning
from mechdae.robots.build import component_name

DATA = os.path.join(os.path.dirname(__file__), "data", "robots")
REF = np.load(os.path.join(DATA, "pinocchio_reference.npz"))
G = 9.81


def _compiled(key, **kw):
    m = robots.load_urdf(os.path.join(DATA, f"{key}.urdf"), **kw)
    return m, m.compile()


def _speed(sys, comp):
    return comp + ".w" if comp + ".w" in sys.u_names else comp + ".v"


def _coord(sys, comp):
    return comp + ".phi" if comp + ".phi" in sys.q_names else comp + ".s"


# ---------------------------------------------------------------------- a closed form
def _arm_closed_form(q1, q2):
    """M and V of tests/data/robots/two_link_arm.urdf: both joints about +y (the motion
    is planar in x-z), link1 (2 kg, com 0.3, Iyy 0.06), link2 (1 kg, com 0.2, Iyy 0.02)
    and the tool fixed to link2 at 0.5 (0.5 kg, com 0.55, inertia diag(4, 1, 3)e-3 turned
    by yaw 0.5 about z); the shoulder 1 m above the world origin."""
    l1, c1, m1, I1 = 0.6, 0.3, 2.0, 0.06
    c2, m2, I2 = 0.2, 1.0, 0.02
    c3, m3 = 0.55, 0.5
    R = Rotation.from_euler("xyz", [0.0, 0.0, 0.5]).as_matrix()
    I3 = (R @ np.diag([0.004, 0.001, 0.003]) @ R.T)[1, 1]
    M22 = I2 + m2 * c2 ** 2 + I3 + m3 * c3 ** 2
    M12 = M22 + (m2 * c2 + m3 * c3) * l1 * math.cos(q2)
    M11 = I1 + m1 * c1 ** 2 + (m2 + m3) * l1 ** 2 + 2 * M12 - M22
    # a rotation by q about +y takes x to (cos q, 0, -sin q)
    z1 = 1.0 - c1 * math.sin(q1)
    z2 = 1.0 - l1 * math.sin(q1) - c2 * math.sin(q1 + q2)
    z3 = 1.0 - l1 * math.sin(q1) - c3 * math.sin(q1 + q2)
    V = G * (m1 * z1 + m2 * z2 + m3 * z3)
    tool = np.array([l1 * math.cos(q1) + 0.5 * math.cos(q1 + q2), 0.0,
                     1.0 - l1 * math.sin(q1) - 0.5 * math.sin(q1 + q2)])
    return np.array([[M11, M12], [M12, M22]]), V, tool


def test_two_link_arm_mass_matrix_and_energy_closed_form():
    m = robots.load_urdf(os.path.join(DATA, "two_link_arm.urdf"))
    tool = m.links["tool"]                    # a merged link: a rigid offset from link2
    sys = m.compile()
    assert m.flatten_stats.get("tree_fast_path") is True
    assert sys.q_names == ["shoulder.phi", "elbow_joint.phi"]
    assert sys.u_names == ["shoulder.w", "elbow_joint.w"]
    outs = dict(m.outputs)
    q = ca.vertcat(*[c["sym"] for c in m.coords])
    ps = ca.vertcat(*[c["sym"] for c in m.params])
    f_tool = ca.Function("tool", [q, ps], [ca.vertcat(*[outs[f"tool_frame.frame_b.r[{k}]"]
                                                    for k in (1, 2, 3)])])
    p = sys.param_vector()
    for q1, q2 in ((0.0, 0.0), (0.4, -1.1), (-2.0, 2.5), (1.3, 3.0)):
        M_ref, V_ref, tool_ref = _arm_closed_form(q1, q2)
        d = sys.dynamics_terms([q1, q2], [0.0, 0.0])
        np.testing.assert_allclose(d["M"], M_ref, rtol=1e-12, atol=1e-14)
        w = np.array([0.7, -1.9])
        T, V = (float(x) for x in sys.functions["energy"]([q1, q2], w, 0.0, p))
        assert T == pytest.approx(0.5 * w @ M_ref @ w, rel=1e-12)
        assert V == pytest.approx(V_ref, rel=1e-12)
        r_tool = np.array(f_tool([q1, q2], p)).ravel()
        np.testing.assert_allclose(r_tool, tool_ref, atol=1e-14)
    # the file's data kept
    assert m.joints["shoulder"].limits == dict(lower=-2.0, upper=2.0, effort=40.0, velocity=3.0)
    assert m.joints["elbow-joint"].friction == 0.25
    assert m.joints["elbow-joint"].limits == dict(lower=None, upper=None, effort=None,
                                                  velocity=None)
    assert m.joints["elbow-joint"].name == "elbow_joint"
    assert tool.path == "tool_frame.frame_b"
    assert set(m.links) == {"base", "link1", "link2", "tool"}
    desc = m.description
    assert desc.root == "base" and desc.links["tool"].collisions[0].kind == "sphere"
    assert desc.links["link1"].collisions[0].size == (0.03, 0.6)


def test_axis_is_normalised():
    """A URDF axis "0 3 0" is the unit axis +y (the specification asks for unit axes;
    mechdae normalises, where Pinocchio 4.1 scales the joint's speed by the length)."""
    with open(os.path.join(DATA, "two_link_arm.urdf")) as f:
        text = f.read()
    assert text.count('<axis xyz="0 1 0"/>') == 2
    sys3 = robots.load_urdf(text.replace('<axis xyz="0 1 0"/>', '<axis xyz="0 3 0"/>')).compile()
    M_ref, _, _ = _arm_closed_form(0.3, 0.9)
    np.testing.assert_allclose(sys3.dynamics_terms([0.3, 0.9], [0, 0])["M"], M_ref, rtol=1e-12)


# ---------------------------------------------------------------------- Pinocchio
def _pinocchio_map(key, sys, m):
    """``(P, coordinate map, damping per speed)``: mechdae speed k <- Pinocchio v index
    (P), coordinate name -> (Pinocchio q index, its nq)."""
    names = list(REF[f"{key}/names"])
    P = np.zeros((sys.nu, REF[f"{key}/v"].shape[1]))
    qmap = {}
    for n, a, b, nq in zip(names, REF[f"{key}/idx_q"], REF[f"{key}/idx_v"], REF[f"{key}/nq"]):
        if n == "root_joint":                 # the free flyer: v (local), w (local)
            for k, s in enumerate(("vx", "vy", "vz", "wx", "wy", "wz")):
                P[sys.u_names.index(f"base.{s}"), b + k] = 1.0
            continue
        c = component_name(n)
        qmap[_coord(sys, c)] = (a, nq)
        P[sys.u_names.index(_speed(sys, c)), b] = 1.0
    D = np.zeros(sys.nu)
    for n, j in m.joints.items():
        D[sys.u_names.index(_speed(sys, component_name(n)))] = j.damping
    assert np.all(P.sum(axis=0) == 1) and np.all(P.sum(axis=1) == 1)
    return P, qmap, D


@pytest.mark.filterwarnings("ignore:robot 'panda'.*mimics:mechdae.errors.ModelWarning")
@pytest.mark.parametrize("key", ["two_link_arm", "panda", "anymal", "g1"])
def test_matches_pinocchio(key):
    """M, h, forward dynamics and energies against Pinocchio at 5 random states, 1e-9
    relative. Pinocchio's free flyer has speeds v = (v_local, w_local) (the base origin's
    velocity in the base frame), mechdae u = (R v_local, w_local): u = A v with
    A = diag(R, I, ...), so M = A M_pin A^T, u' = A a + (R (w x v_local), 0), and
    h = M u' at zero torque. Joint damping D (Panda's file has it) is a damper in mechdae,
    absent from Pinocchio's nle: h = ... - D u."""
    floating = bool(REF[f"{key}/floating"])
    m, sys = _compiled(key, floating_base=floating)
    assert m.flatten_stats.get("tree_fast_path") is True
    P, qmap, D = _pinocchio_map(key, sys, m)
    nv = P.shape[1]
    p, w = sys.param_vector(), np.zeros(len(sys.w_names))
    for s in range(len(REF[f"{key}/q"])):
        qp, vp = REF[f"{key}/q"][s], REF[f"{key}/v"][s]
        q = {k: (qp[a] if nq == 1 else math.atan2(qp[a + 1], qp[a]))   # continuous: cos, sin
             for k, (a, nq) in qmap.items()}
        A, Adv = np.eye(nv), np.zeros(nv)
        if floating:
            x, y, z, qx, qy, qz, qw = qp[:7]
            q.update({"base.x": x, "base.y": y, "base.z": z, "base.q0": qw, "base.q1": qx,
                      "base.q2": qy, "base.q3": qz})
            R = Rotation.from_quat([qx, qy, qz, qw]).as_matrix()
            A[:3, :3] = R
            Adv[:3] = R @ np.cross(vp[3:6], vp[:3])
        A, Adv = P @ A, P @ Adv
        u = A @ vp
        qa, ua, *_ = sys.state_arrays(q, dict(zip(sys.u_names, u)))
        Mp, nle, ddq = REF[f"{key}/M"][s], REF[f"{key}/nle"][s], REF[f"{key}/ddq"][s]
        M_ref = A @ Mp @ A.T
        h_ref = M_ref @ (A @ np.linalg.solve(Mp, -nle) + Adv) - D * u   # M_pin a = -nle
        d = sys.dynamics_terms(qa, ua)
        scale = np.abs(M_ref).max()
        np.testing.assert_allclose(d["M"], M_ref, rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(d["h"], h_ref, rtol=0, atol=1e-9 * np.abs(h_ref).max())
        xd = np.array(sys.xdot_function()(np.concatenate([qa, ua]), 0.0, p, w)).ravel()
        ud_ref = np.linalg.solve(M_ref, h_ref)
        np.testing.assert_allclose(xd[sys.nq:], ud_ref, rtol=0,
                                   atol=1e-9 * np.abs(ud_ref).max())
        if not D.any():                        # Pinocchio's aba itself
            np.testing.assert_allclose(xd[sys.nq:], A @ ddq + Adv, rtol=0,
                                       atol=1e-9 * np.abs(ud_ref).max())
        T, V = (float(e) for e in sys.functions["energy"](qa, ua, 0.0, p))
        assert T == pytest.approx(float(REF[f"{key}/T"][s]), rel=1e-9)
        assert V == pytest.approx(float(REF[f"{key}/V"][s]), rel=1e-9, abs=1e-9)


def test_quadruped_floating_base_names_and_links():
    m = robots.load_urdf(os.path.join(DATA, "anymal.urdf"), floating_base=True)
    sys = m.compile()
    assert sys.q_names[:7] == ["base.x", "base.y", "base.z", "base.q0", "base.q1", "base.q2",
                               "base.q3"]
    assert set(sys.u_names[:6]) == {"base.vx", "base.vy", "base.vz", "base.wx", "base.wy",
                                    "base.wz"}
    assert sys.nq == 19 and sys.nu == 18
    assert len(m.joints) == 12 and m.joints["LF_KFE"].limits["effort"] is not None
    assert m.links["base"].path == "base.frame_b"
    assert m.links["LF_SHANK"].path == "LF_KFE.frame_b"
    assert "LF_FOOT" in m.links and m.links["LF_FOOT"].path == "LF_FOOT_frame.frame_b"
    # total mass: Pinocchio's subtree mass of the whole robot, from the merged bodies
    mass = sum(float(v) for k, v in zip(sys.p_names, sys.param_vector()) if k.endswith("_body.m"))
    total = sum(l.inertial.mass for l in m.description.links.values() if l.inertial)
    assert mass == pytest.approx(total, rel=1e-14)


def test_actuated_inputs_act_on_their_joints():
    with pytest.warns(ModelWarning, match="joint 'panda_finger_joint2' mimics joint "
                      "'panda_finger_joint1' in the file; built as an independent joint"):
        m = robots.load_urdf(os.path.join(DATA, "panda.urdf"), actuated=True)
    assert m.joints["panda_finger_joint2"].mimic["joint"] == "panda_finger_joint1"
    sys = m.compile()
    assert m.flatten_stats.get("tree_fast_path") is True
    assert sys.w_names == [f"{component_name(j)}.tau" for j in m.joints]
    q = {"panda_joint2": 0.3, "panda_joint4": -1.2}
    q = {f"{k}.phi": v for k, v in q.items()}
    v = np.linspace(-1, 1, sys.nu)
    h0 = sys.dynamics_terms(q, v)["h"]
    tau = np.arange(1.0, sys.nu + 1)
    h1 = sys.dynamics_terms(q, v, inputs=dict(zip(sys.w_names, tau)))["h"]
    order = [sys.u_names.index(_speed(sys, n.split(".")[0])) for n in sys.w_names]
    np.testing.assert_allclose((h1 - h0)[order], tau, rtol=1e-12)


# ---------------------------------------------------------------------- files
def _urdf(body):
    return f'<?xml version="1.0"?>\n<robot name="r">{body}</robot>'


_LINK = '<link name="{}"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1"/>' \
        '</inertial></link>'


def _joint(name, parent, child, kind="revolute"):
    return f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child ' \
           f'link="{child}"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" ' \
           'velocity="1"/></joint>'


def test_meshes_resolved_or_warned(tmp_path):
    pkg = tmp_path / "share" / "my_robot" / "meshes"
    pkg.mkdir(parents=True)
    (pkg / "a.stl").write_text("solid a\nendsolid a\n")
    (tmp_path / "local.stl").write_text("solid b\nendsolid b\n")
    body = '<link name="a"><visual><geometry><mesh filename="package://my_robot/meshes/a.stl"' \
           ' scale="2 2 2"/></geometry></visual><visual><geometry><mesh filename="local.stl"/>' \
           '</geometry></visual><collision><geometry><mesh filename="package://other/x.dae"/>' \
           '</geometry></collision></link>'
    f = tmp_path / "r.urdf"
    f.write_text(_urdf(body))
    with pytest.warns(UserWarning, match="mesh 'package://other/x.dae' not found"):
        desc = robots.parse_urdf(f, package_dirs=[str(tmp_path / "share")])
    vis = desc.links["a"].visuals
    assert vis[0].filename == str(pkg / "a.stl") and vis[0].scale == (2.0, 2.0, 2.0)
    assert vis[1].filename == str(tmp_path / "local.stl")
    assert desc.links["a"].collisions[0].filename is None
    assert desc.links["a"].collisions[0].kind == "mesh"


@pytest.mark.parametrize("body, match", [
    (_LINK.format("a") + "<joint name='j'", "malformed XML"),
    (_LINK.format("a") + _joint("j", "a", "ghost"), "joint 'j': child link 'ghost' is not "
                                                    "defined"),
    (_LINK.format("a") + _LINK.format("b") + _LINK.format("c") + _joint("j1", "a", "c")
     + _joint("j2", "b", "c"), "link 'c' has two parents: joints 'j1' and 'j2'"),
    (_LINK.format("a") + _LINK.format("b") + _LINK.format("c") + _joint("j1", "a", "b")
     + _joint("j2", "b", "c") + _joint("j3", "c", "b"), "link 'b' has two parents"),
    (_LINK.format("a") + _LINK.format("b") + _LINK.format("c") + _joint("j2", "b", "c")
     + _joint("j3", "c", "b"), "2 root links|closed loop"),
    (_LINK.format("a") + _LINK.format("b") + _joint("j", "a", "b", "planar"),
     "joint 'j': type=\"planar\" is not supported"),
    (_LINK.format("a") + '<link name="b"><inertial><mass value="heavy"/></inertial></link>',
     "link 'b' <inertial> <mass>: value=\"heavy\" is not"),
    (_LINK.format("a") + _LINK.format("b-1") + _LINK.format("b_1") + _joint("j", "a", "b-1")
     + _joint("k", "a", "b_1"),
     "link 'b_1' \\(body\\) and link 'b-1' \\(body\\) both become component 'b_1_body'"),
])
def test_bad_files_name_the_element(body, match):
    with pytest.raises(ModelError, match=match):
        robots.load_urdf(_urdf(body))


def test_link_without_inertia_on_a_movable_joint():
    body = _LINK.format("a") + '<link name="b"/>' + _joint("j", "a", "b")
    with pytest.raises(ModelError, match="link 'b' on movable joint 'j' has no inertia"):
        robots.load_urdf(_urdf(body))
    # a massless link whose child carries mass is fine (a two-axis joint's middle link)
    body = _LINK.format("a") + '<link name="b"/>' + _LINK.format("c") + \
        _joint("j", "a", "b") + _joint("k", "b", "c").replace('0 0 1', '1 0 0')
    sys = robots.load_urdf(_urdf(body)).compile()
    M = sys.dynamics_terms([0.0, 0.0], [0.0, 0.0])["M"]
    np.testing.assert_allclose(M, np.diag([0.1, 0.1]), rtol=1e-14)


def test_not_a_urdf_file(tmp_path):
    f = tmp_path / "scene.xml"
    f.write_text("<mujoco/>")
    with pytest.raises(ModelError, match="root element is <mujoco>, not <robot>"):
        robots.load_urdf(f)
    with pytest.raises(ModelError, match="not found"):
        robots.load_urdf(tmp_path / "missing.urdf")


def test_floating_joint_in_the_file_is_a_free_body():
    """A URDF ``floating`` joint is a FreeMotion named after it: one body of mass m, center
    of mass c (link frame) and inertia J about it has ``M = m B^T B + diag(0, J)`` with
    ``B = [I, -R [c]x]`` (v_cm = v + R (w x c)) and ``V = m g (z + (R c)_z)``."""
    mass, c = 3.0, np.array([0.1, -0.05, 0.2])
    J = np.array([[0.05, 0.01, 0.0], [0.01, 0.04, 0.002], [0.0, 0.002, 0.03]])
    body = '<link name="world"/><link name="torso"><inertial><origin xyz="0.1 -0.05 0.2"/>' \
           '<mass value="3"/><inertia ixx="0.05" ixy="0.01" ixz="0" iyy="0.04" iyz="0.002" ' \
           'izz="0.03"/></inertial></link><joint name="free" type="floating"><parent ' \
           'link="world"/><child link="torso"/></joint>'
    sys = robots.load_urdf(_urdf(body)).compile()
    with pytest.raises(ModelError, match="already frees the robot \\(floating joint 'free'"):
        robots.load_urdf(_urdf(body), floating_base=True)
    quat = np.array([0.9, 0.1, -0.3, 0.2])
    quat /= np.linalg.norm(quat)
    q = {"free.x": 0.3, "free.y": -0.2, "free.z": 1.5, **{f"free.q{k}": quat[k] for k in range(4)}}
    d = sys.dynamics_terms(q, {})
    R = Rotation.from_quat([*quat[1:], quat[0]]).as_matrix()
    cx = np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
    B = np.hstack([np.eye(3), -R @ cx])
    M_ref = mass * B.T @ B
    M_ref[3:, 3:] += J
    order = [sys.u_names.index(f"free.{s}") for s in ("vx", "vy", "vz", "wx", "wy", "wz")]
    np.testing.assert_allclose(d["M"][np.ix_(order, order)], M_ref, rtol=0, atol=1e-14)
    qa, ua, *_ = sys.state_arrays(q, {})
    _, V = sys.functions["energy"](qa, ua, 0.0, sys.param_vector())
    assert float(V) == pytest.approx(mass * G * (1.5 + (R @ c)[2]), rel=1e-14)


def test_unphysical_inertia_refused_unless_merged():
    """A link whose own inertia breaks the triangle inequality (izz > ixx + iyy) is an
    error naming it on a movable joint; fixed to a heavier link (a sensor link), the merged
    inertia is a body's and the robot builds, as in Pinocchio."""
    bad = '<link name="imu"><inertial><mass value="0.01"/><inertia ixx="1e-6" iyy="1e-6" ' \
          'izz="5e-6"/></inertial></link>'
    body = _LINK.format("a") + bad + _joint("j", "a", "imu")
    with pytest.raises(ModelError, match="link 'imu'.*merged inertia.*is not a body's"):
        robots.load_urdf(_urdf(body))
    body = _LINK.format("a") + _LINK.format("b") + bad + _joint("j", "a", "b") + \
        _joint("s", "b", "imu", "fixed")
    sys = robots.load_urdf(_urdf(body)).compile()
    M = sys.dynamics_terms([0.0], [0.0])["M"]
    assert M[0, 0] == pytest.approx(0.1 + 5e-6, rel=1e-12)     # izz of b and of imu


def test_ball_joint_description_is_a_spherical_pendulum():
    """A description's ``spherical`` joint (MJCF ball) is a Spherical component: a body of
    mass m, center of mass c, inertia J about it, hung at the joint has ``M = J + m
    ([c]x)^T [c]x`` in the body's angular velocity and ``V = m g (R c)_z``."""
    from mechdae.robots import Inertial, Joint, Link, RobotDescription
    c, mass = np.array([0.0, 0.1, -0.4]), 2.0
    J = np.diag([0.03, 0.02, 0.01])
    desc = RobotDescription("ball", links={"top": Link("top"), "bob": Link(
        "bob", Inertial(mass, c, J))}, joints=[Joint("hip", "spherical", "top", "bob",
                                                   origin=np.eye(4))], root="top")
    sys = robots.build_model(desc).compile()
    quat = np.array([0.8, 0.3, 0.1, -0.2])
    quat /= np.linalg.norm(quat)
    q = {f"hip.q{k}": quat[k] for k in range(4)}
    cx = np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
    order = [sys.u_names.index(f"hip.{s}") for s in ("wx", "wy", "wz")]
    M = sys.dynamics_terms(q, {})["M"]
    np.testing.assert_allclose(M[np.ix_(order, order)], J + mass * cx.T @ cx, atol=1e-15)
    qa, ua, *_ = sys.state_arrays(q, {})
    R = Rotation.from_quat([*quat[1:], quat[0]]).as_matrix()
    _, V = sys.functions["energy"](qa, ua, 0.0, sys.param_vector())
    assert float(V) == pytest.approx(mass * G * (R @ c)[2], rel=1e-14)


def test_damping_kept_as_data_only_on_request():
    """``damping=False``: the file's joint damping stays data; by default each joint's
    damper adds ``-d u`` to h."""
    with pytest.warns(ModelWarning, match="mimics"):
        m = robots.load_urdf(os.path.join(DATA, "panda.urdf"), damping=False)
    sys = m.compile()
    assert m.joints["panda_joint1"].damping == 0.003
    v = np.ones(sys.nu)
    h = sys.dynamics_terms({}, v)["h"]
    with pytest.warns(ModelWarning, match="mimics"):
        sys_d = robots.load_urdf(os.path.join(DATA, "panda.urdf")).compile()
    assert sys.u_names == [f"panda_joint{k}.w" for k in range(1, 8)] + \
        ["panda_finger_joint1.v", "panda_finger_joint2.v"]
    damping = np.array([0.003] * 7 + [0.3] * 2)           # <dynamics damping> of the file
    np.testing.assert_allclose(sys_d.dynamics_terms({}, v)["h"], h - damping * v, rtol=1e-12,
                               atol=1e-12)


def test_robot_system_pickles():
    import pickle
    m = robots.load_urdf(os.path.join(DATA, "two_link_arm.urdf"), actuated=True)
    sys = m.compile()
    back = pickle.loads(pickle.dumps(sys))
    assert back.w_names == ["shoulder.tau", "elbow_joint.tau"]
    np.testing.assert_array_equal(back.dynamics_terms([0.2, 0.5], [1.0, -1.0])["M"],
                                  sys.dynamics_terms([0.2, 0.5], [1.0, -1.0])["M"])


def test_joint_friction_sticks_below_and_slips_above_its_torque():
    """``joint_friction=True``: the elbow's <dynamics friction="0.25"> is Coulomb friction
    on the joint. The arm held out horizontally by torques that balance gravity, plus an
    extra 0.2 N m on the elbow (< 0.25): it stays; plus 0.3 N m: it turns."""
    m = robots.load_urdf(os.path.join(DATA, "two_link_arm.urdf"), actuated=True,
                         joint_friction=True)
    assert m.joints["elbow-joint"].friction == 0.25
    sys = m.compile()
    assert "elbow_joint_friction.friction" in sys.contact_names
    hold = {"shoulder.tau": -G * (2 * 0.3 + 1 * 0.8 + 0.5 * 1.15),
            "elbow_joint.tau": -G * (1 * 0.2 + 0.5 * 0.55)}
    stay = sys.simulate(0.3, inputs={**hold, "elbow_joint.tau": hold["elbow_joint.tau"] + 0.2})
    assert abs(stay["elbow_joint.phi"][-1]) < 1e-9 and abs(stay["shoulder.phi"][-1]) < 1e-9
    # slipping, the elbow feels 0.3 - 0.25 N m: from rest u' = M^-1 (0, 0.05), so after a
    # short time t each angle is u' t^2 / 2 (to O(t^3): gravity stays balanced to first order)
    t = 0.02
    turn = sys.simulate(t, inputs={**hold, "elbow_joint.tau": hold["elbow_joint.tau"] + 0.3},
                        rtol=1e-10, atol=1e-12)
    M, _, _ = _arm_closed_form(0.0, 0.0)
    acc = np.linalg.solve(M, [0.0, 0.05])
    got = [turn["shoulder.phi"][-1], turn["elbow_joint.phi"][-1]]
    np.testing.assert_allclose(got, acc * t ** 2 / 2, rtol=1e-2)
