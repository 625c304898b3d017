"""MJCF robots in (issue 26, part M): the reader against MuJoCo's own compiled model, the
built Model's mass matrix and bias forces against ``mujoco.mj_fullM`` / ``qfrc_bias`` live,
bad files, and a 12-joint quadruped on four frictional point feet standing and dropped
(event method and time stepping) against statics and the free-fall impact law.

Files: tests/data/robots/mjcf_arm.xml (a 2-link arm: two joints on one body, an offset
anchor, a reference angle, a full inertia tensor, a fixed hand) and mjcf_quadruped.xml
(made by make_mjcf_quadruped.py: free torso, 12 hinges, spherical feet).
"""
import os
import warnings

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from mechdae.errors import ModelError, ModelWarning  # noqa: E402
from mechdae.components import rotational as rot  # noqa: E402
from mechdae.robots import contacts as rc  # noqa: E402
from mechdae.robots.mjcf import (_axis_angle, _pose, _rot, description_from_mjcf,  # noqa: E402
                                 load_mjcf)

DATA = os.path.join(os.path.dirname(__file__), "data", "robots")
ARM, QUAD = os.path.join(DATA, "mjcf_arm.xml"), os.path.join(DATA, "mjcf_quadruped.xml")
G = 9.81
M_QUAD = 17.4                                   # 10 + 4 (0.5 + 1.0 + 0.3 + 0.05)
Z_STAND = 0.42                                  # legs straight, foot spheres on z = 0
K_SPRING = 200.0                                # N m/rad at every leg joint (tests' servo)


def _mj(path):
    mj = mujoco.MjModel.from_xml_path(path)
    return mj, mujoco.MjData(mj)


def _name(mj, kind, i):
    """The file's name, or the reader's for an unnamed joint or body."""
    prefix = {mujoco.mjtObj.mjOBJ_JOINT: "joint", mujoco.mjtObj.mjOBJ_BODY: "body"}.get(kind)
    return mujoco.mj_id2name(mj, kind, i) or (f"{prefix}{i}" if prefix else None)


def _random_state(mj, rng):
    qpos = rng.uniform(-1.0, 1.0, mj.nq)
    for j in range(mj.njnt):
        if mj.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
            a = mj.jnt_qposadr[j] + 3
            qpos[a:a + 4] /= np.linalg.norm(qpos[a:a + 4])
    return qpos, rng.uniform(-2.0, 2.0, mj.nv)


def _link_poses(desc, qpos_of):
    """World pose of every link of a description (its own forward kinematics)."""
    T = {desc.root: np.eye(4)}
    for j in desc.joints:                          # the readers list parents first
        if j.type in ("revolute", "continuous"):
            M = _pose(R=_axis_angle(j.axis, qpos_of[j.name]))
        elif j.type == "prismatic":
            M = _pose(j.axis * qpos_of[j.name])
        elif j.type == "floating":
            q = qpos_of[j.name]
            M = _pose(q[:3], _rot(q[3:]))
        elif j.type == "spherical":
            M = _pose(R=_rot(qpos_of[j.name]))
        else:
            M = np.eye(4)
        T[j.child] = T[j.parent] @ j.origin @ M
    return T


@pytest.mark.parametrize("path", [ARM, QUAD])
def test_description_kinematics_and_inertias_are_mujocos(path):
    """The description's own forward kinematics puts every body's center of mass, its
    inertia tensor (world axes) and every geom where MuJoCo puts them (xipos, ximat
    diag(body_inertia) ximat^T, geom_xpos/xmat) at random joint positions."""
    desc = description_from_mjcf(path)
    mj, d = _mj(path)
    rng = np.random.default_rng(3)
    for _ in range(3):
        d.qpos[:], _ = _random_state(mj, rng)
        mujoco.mj_kinematics(mj, d)
        qpos_of = {}
        for j in range(mj.njnt):
            a = mj.jnt_qposadr[j]
            n = {int(mujoco.mjtJoint.mjJNT_FREE): 7, int(mujoco.mjtJoint.mjJNT_BALL): 4}.get(
                int(mj.jnt_type[j]), 1)
            qpos_of[_name(mj, mujoco.mjtObj.mjOBJ_JOINT, j)] = \
                d.qpos[a:a + n] if n > 1 else d.qpos[a]
        T = _link_poses(desc, qpos_of)
        for b in range(mj.nbody):
            bn = "world" if b == 0 else _name(mj, mujoco.mjtObj.mjOBJ_BODY, b)
            link, Tl = desc.links[bn], T[bn]
            if mj.body_mass[b] > 0:
                R = Tl[:3, :3]
                np.testing.assert_allclose(R @ link.inertial.com + Tl[:3, 3], d.xipos[b],
                                           atol=1e-14)
                Xi = d.ximat[b].reshape(3, 3)
                np.testing.assert_allclose(R @ link.inertial.inertia @ R.T,
                                           Xi @ np.diag(mj.body_inertia[b]) @ Xi.T, atol=1e-15)
                assert link.inertial.mass == mj.body_mass[b]
            geoms = range(mj.body_geomadr[b], mj.body_geomadr[b] + mj.body_geomnum[b])
            assert len(link.visuals) == len(geoms)
            for g, geo in zip(geoms, link.visuals):
                Tg = Tl @ geo.origin
                np.testing.assert_allclose(Tg[:3, 3], d.geom_xpos[g], atol=1e-14)
                np.testing.assert_allclose(Tg[:3, :3], d.geom_xmat[g].reshape(3, 3), atol=1e-14)


def test_arm_description_records_the_file():
    desc = description_from_mjcf(ARM)
    J = {j.name: j for j in desc.joints}
    assert desc.root == "world" and desc.name == "arm2"
    # two joints on body "upper": chained through a massless link at the first one
    assert (J["shoulder_yaw"].parent, J["shoulder_yaw"].child) == ("base", "upper__shoulder_yaw")
    assert (J["shoulder_pitch"].parent, J["shoulder_pitch"].child) == \
        ("upper__shoulder_yaw", "upper")
    assert desc.links["upper__shoulder_yaw"].inertial is None
    assert J["shoulder_yaw"].type == "continuous" and J["elbow"].type == "revolute"
    assert J["elbow"].limits == {"lower": -2.0, "upper": 2.0, "effort": None, "velocity": None}
    assert (J["elbow"].damping, J["elbow"].friction) == (0.1, 0.05)
    np.testing.assert_allclose(J["elbow"].axis, np.array([0, 1, 0.2]) / np.sqrt(1.04))
    assert J["base_fixed"].type == "fixed" and J["hand_fixed"].type == "fixed"
    # the hand's sphere collides; the base's cylinder (contype 0) is drawn only
    assert [g.kind for g in desc.links["hand"].collisions] == ["sphere"]
    assert desc.links["hand"].collisions[0].size == (0.03,)
    assert desc.links["base"].collisions == [] and desc.links["base"].visuals[0].kind == \
        "cylinder"
    assert desc.links["upper"].collisions[0].size == pytest.approx((0.03, 0.3))


def _maps(mj, sys_):
    """System positions of MuJoCo's qpos and qvel, by joint name (free joint: x, y, z,
    q0..q3 and vx, vy, vz (world), wx, wy, wz (body) -- MuJoCo's qvel convention)."""
    qi, ui = [], []
    for j in range(mj.njnt):
        n, t = _name(mj, mujoco.mjtObj.mjOBJ_JOINT, j), mj.jnt_type[j]
        if t == mujoco.mjtJoint.mjJNT_HINGE:
            qn, un = ["phi"], ["w"]
        elif t == mujoco.mjtJoint.mjJNT_SLIDE:
            qn, un = ["s"], ["v"]
        elif t == mujoco.mjtJoint.mjJNT_FREE:
            qn, un = ["x", "y", "z", "q0", "q1", "q2", "q3"], ["vx", "vy", "vz", "wx", "wy", "wz"]
        else:
            qn, un = ["q0", "q1", "q2", "q3"], ["wx", "wy", "wz"]
        qi += [sys_.q_names.index(f"{n}.{c}") for c in qn]
        ui += [sys_.u_names.index(f"{n}.{c}") for c in un]
    return np.array(qi), np.array(ui)


@pytest.mark.parametrize("path", [ARM, QUAD])
def test_mass_matrix_and_bias_are_mujocos(path):
    """M(q) and h(q, u) of the built Model against mj_fullM and -qfrc_bias + qfrc_passive
    (joint damping, built as dampers) at random states, to 1e-9 relative."""
    sys_ = load_mjcf(path).compile(stabilization=None)
    mj, d = _mj(path)
    qi, ui = _maps(mj, sys_)
    assert sys_.nu == mj.nv and sys_.nq == mj.nq
    rng = np.random.default_rng(7)
    for _ in range(4):
        d.qpos[:], d.qvel[:] = _random_state(mj, rng)
        mujoco.mj_forward(mj, d)
        M = np.zeros((mj.nv, mj.nv))
        mujoco.mj_fullM(mj, d, M)
        q, u = np.zeros(sys_.nq), np.zeros(sys_.nu)
        q[qi], u[ui] = d.qpos, d.qvel
        terms = sys_.dynamics_terms(q, u)
        np.testing.assert_allclose(terms["M"][np.ix_(ui, ui)], M, rtol=0,
                                   atol=1e-9 * np.abs(M).max())
        h = -d.qfrc_bias + d.qfrc_passive
        np.testing.assert_allclose(terms["h"][ui], h, rtol=0, atol=1e-9 * np.abs(h).max())


@pytest.mark.parametrize("robot", ["panda", "g1"])
def test_urdf_robots_written_as_mjcf_by_mujoco(robot, tmp_path):
    """Part U's URDF robots (example-robot-data: the Panda arm, the Unitree G1 humanoid with
    29 joints on a free pelvis) compiled by MuJoCo and written out as MJCF (MjSpec.to_xml),
    read back by load_mjcf: kinematics, inertias, M and h against MuJoCo's. (ANYmal B's
    URDF is refused by MuJoCo itself: its base inertia is not positive definite.) The
    Panda's finger <mimic> comes back as a joint <equality>: kept as a mimic, warned."""
    spec = mujoco.MjSpec.from_file(os.path.join(DATA, f"{robot}.urdf"))
    if robot == "g1":
        spec.worldbody.first_body().add_freejoint(name="root")
    spec.compile()
    path = str(tmp_path / f"{robot}.xml")
    with open(path, "w") as f:
        f.write(spec.to_xml())
    if robot == "panda":
        J = {j.name: j for j in description_from_mjcf(path).joints}
        assert J["panda_finger_joint2"].mimic == {"joint": "panda_finger_joint1",
                                                  "multiplier": 1.0, "offset": 0.0}
        with pytest.warns(ModelWarning, match="'panda_finger_joint2' mimics"):
            test_mass_matrix_and_bias_are_mujocos(path)
    else:
        test_mass_matrix_and_bias_are_mujocos(path)
    test_description_kinematics_and_inertias_are_mujocos(path)


def test_arm_on_a_floating_base():
    """floating_base=True puts a FreeMotion 'base' between the World and the arm's base."""
    sys_ = load_mjcf(ARM, floating_base=True).compile(stabilization=None)
    assert {"base.x", "base.q0", "shoulder_yaw.phi"} <= set(sys_.q_names)
    with pytest.raises(ModelError, match="free joint 'root'"):
        load_mjcf(QUAD, floating_base=True)


def test_malformed_and_missing_files(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text("<mujoco><worldbody><body name='a'><geom size='0.1'/></worldbody></mujoco>")
    with pytest.raises(ModelError, match="bad.xml.*MuJoCo cannot compile it"):
        description_from_mjcf(bad)
    with pytest.raises(FileNotFoundError, match="nothere.xml"):
        description_from_mjcf(tmp_path / "nothere.xml")


def test_closed_loop_is_refused_naming_the_equality(tmp_path):
    """A four-bar closed by an <equality connect>: the reader reads trees only."""
    f = tmp_path / "fourbar.xml"
    f.write_text("""<mujoco><worldbody>
      <body name="crank"><joint name="j1" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.01"/>
        <body name="coupler" pos="0.2 0 0"><joint name="j2" axis="0 1 0"/>
          <geom type="capsule" fromto="0 0 0 0 0 0.5" size="0.01"/></body></body>
      <body name="rocker" pos="0.4 0 0"><joint name="j3" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 0.5" size="0.01"/></body>
    </worldbody>
    <equality><connect name="close_loop" body1="coupler" body2="rocker" anchor="0 0 0.5"/></equality>
    </mujoco>""")
    with pytest.raises(ModelError, match="'close_loop' \\(connect\\) closes a kinematic loop"):
        description_from_mjcf(f)


def test_dynamics_the_description_cannot_carry_are_warned(tmp_path):
    f = tmp_path / "armature.xml"
    f.write_text("""<mujoco><option gravity="0 0 -9.8"/><worldbody><body name="b" gravcomp="0.5">
      <joint name="hinge" axis="0 1 0" armature="0.01" stiffness="3"/>
      <geom type="sphere" size="0.1" pos="0 0 -0.5"/></body></worldbody></mujoco>""")
    with pytest.warns(ModelWarning) as rec:
        description_from_mjcf(f)
    text = " ".join(str(r.message) for r in rec)
    assert "gravity" in text and "'hinge' has armature 0.01" in text and "stiffness 3" in text
    assert "body 'b' has gravcomp 0.5" in text


def test_mesh_geometry_kept_with_its_file(tmp_path):
    """A mesh geom keeps its file (resolved through <compiler meshdir>), its scale and the
    file's frame: MuJoCo scales and recenters the vertices; the Geometry's origin undoes
    the recentering, so every file vertex, scaled, lands where MuJoCo puts it."""
    verts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float)
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "tet.obj").write_text(
        "".join(f"v {x} {y} {z}\n" for x, y, z in verts)
        + "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    f = tmp_path / "mesh.xml"
    f.write_text("""<mujoco><compiler meshdir="assets"/>
      <asset><mesh name="tet" file="tet.obj" scale="2 1 0.5"/></asset><worldbody>
      <body name="b" pos="0 0 1"><joint name="j" axis="0 0 1" pos="0.1 0 0"/>
        <geom type="mesh" mesh="tet" pos="0.2 0 0" euler="0.3 0 0"/></body></worldbody></mujoco>""")
    desc = description_from_mjcf(f)
    geo = desc.links["b"].visuals[0]
    assert geo.kind == "mesh" and geo.scale == (2.0, 1.0, 0.5)
    assert os.path.samefile(geo.filename, tmp_path / "assets" / "tet.obj")
    mj, d = _mj(str(f))
    mujoco.mj_kinematics(mj, d)
    T = _link_poses(desc, {"j": 0.0})["b"] @ geo.origin
    for k, v in enumerate(verts):
        ours = T[:3, :3] @ (np.array(geo.scale) * v) + T[:3, 3]
        theirs = d.geom_xmat[0].reshape(3, 3) @ mj.mesh_vert[k] + d.geom_xpos[0]
        np.testing.assert_allclose(ours, theirs, atol=1e-6)        # MuJoCo's are float32


def test_feet_are_found_and_bad_names_refused():
    desc = description_from_mjcf(QUAD)
    assert rc.feet(desc) == ["LF_FOOT", "RF_FOOT", "LH_FOOT", "RH_FOOT"]
    m = load_mjcf(QUAD)
    with pytest.raises(ModelError, match="'NO_SUCH_FOOT'"):
        rc.attach_contacts(m, desc, ["NO_SUCH_FOOT"])
    arm = description_from_mjcf(ARM)
    assert rc.feet(arm) == ["hand"]                # leaf link with a collision sphere


def test_feet_found_by_their_geoms_names(tmp_path):
    """Menagerie style: the foot is a sphere geom named like *foot* on the shank, beside a
    knee bumper sphere: only the foot becomes a contact, at its center with its radius."""
    f = tmp_path / "leg.xml"
    f.write_text("""<mujoco><worldbody><body name="shank" pos="0 0 0.5">
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="knee_bumper" type="sphere" size="0.03" pos="0 0 0.2"/>
      <geom name="FL_foot" type="sphere" size="0.02" pos="0.01 0 -0.2"/>
      </body></worldbody></mujoco>""")
    desc = description_from_mjcf(f)
    assert rc.feet(desc) == ["shank"]
    m = load_mjcf(f, contacts="feet", friction=0.5)
    sys_ = m.compile()
    assert sys_.contact_names == ["shank_contact.contact"]
    gap = sys_.dynamics_terms({"z.s": 0.0}, {})["gap"]
    assert gap == pytest.approx([0.5 - 0.2 - 0.02])


# ---------------------------------------------------------------------- on the ground
@pytest.fixture(scope="module")
def quadruped():
    """The quadruped on its four spherical feet (mu = 0.8, plastic), every leg joint held
    by a torsion spring at zero angle (legs straight: an equilibrium the springs make
    stable) attached by the joint names of the file; compiled once."""
    m = load_mjcf(QUAD, contacts="feet", friction=0.8, restitution=0.0)
    for n, j in m.joints.items():
        if n != "root":
            s = m.add(rot.Spring(f"{n}_spring", c=K_SPRING))
            m.connect(j.support, s.flange_a)
            m.connect(j.axis, s.flange_b)
    mj, d = _mj(QUAD)
    d.qpos[2] = Z_STAND
    mujoco.mj_kinematics(mj, d)
    mujoco.mj_comPos(mj, d)
    feet = {f"{n}_FOOT_contact.contact": d.geom_xpos[mujoco.mj_name2id(
        mj, mujoco.mjtObj.mjOBJ_GEOM, f"{n}_foot_sphere")] for n in ("LF", "RF", "LH", "RH")}
    return m.compile(), feet, d.subtree_com[1].copy()


def _statics(cf, feet, com, k=-1):
    """Force and moment balance about the ground origin at sample k (N, N m)."""
    W = M_QUAD * G
    fz = sum(cf[c][k, 0] for c in feet)
    mx = sum(cf[c][k, 0] * feet[c][1] for c in feet) - W * com[1]
    my = sum(cf[c][k, 0] * feet[c][0] for c in feet) - W * com[0]
    ft = sum(cf[c][k, 1:] for c in feet)
    return fz / W - 1.0, mx, my, ft


def _simulate(sys_, *args, **kw):
    with warnings.catch_warnings():       # 4 frictional contacts: the complete search of
        warnings.simplefilter("ignore", RuntimeWarning)     # contact modes is budgeted
        return sys_.simulate(*args, **kw)


def test_quadruped_standing_on_four_frictional_feet(quadruped):
    """Event method, 0.3 s standing: all four feet stick; their normal forces sum to the
    weight and balance its moment (sum F_i x_i = W x_com), the friction forces cancel;
    the base does not move."""
    sys_, feet, com = quadruped
    res = _simulate(sys_, 0.3, q0={"root.z": Z_STAND}, method="event",
                    output_times=np.linspace(0, 0.3, 7))
    assert res.events == [] and res.modes[-1] == "kkkk"
    for k in (0, 3, -1):
        dfz, mx, my, ft = _statics(res.contact_forces, feet, com, k)
        assert abs(dfz) < 1e-10 and abs(mx) < 1e-10 and abs(my) < 1e-10
        assert np.abs(ft).max() < 1e-10
    # the split is not even: the torso's center of mass is 1 cm ahead
    cf = res.contact_forces
    assert cf["LF_FOOT_contact.contact"][-1, 0] > cf["LH_FOOT_contact.contact"][-1, 0] + 1.0
    assert np.abs(res["root.z"] - Z_STAND).max() < 1e-12
    assert np.abs(res.v).max() < 1e-11


@pytest.mark.slow         # ~8 s alone (mode searches at the 4-foot closure), 30 s loaded
def test_quadruped_dropped_from_10_cm_lands_and_sticks(quadruped):
    """Event method: free fall for sqrt(2 h / g), four plastic impacts at that instant whose
    normal impulses sum to m sqrt(2 g h) (the legs are straight: the impact stops the
    whole robot), all feet stick, energy m g h lost, then it stands as above."""
    sys_, feet, com = quadruped
    h = 0.1
    res = _simulate(sys_, 0.4, q0={"root.z": Z_STAND + h}, method="event",
                    output_times=np.linspace(0, 0.4, 9))
    imp = [e for e in res.events if e.kind == "impact"]
    assert {e.contact for e in imp} == set(feet) and len(imp) == 4
    t_hit = np.sqrt(2 * h / G)
    assert all(e.t == pytest.approx(t_hit, abs=1e-9) for e in imp)
    assert sum(e.impulse[0] for e in imp) == pytest.approx(M_QUAD * np.sqrt(2 * G * h),
                                                           rel=1e-9)
    assert {e.contact for e in res.events if e.kind == "stick"} == set(feet)
    lost = sum(e.energy_before - e.energy_after for e in imp)     # each contact's share
    assert lost == pytest.approx(M_QUAD * G * h, rel=1e-9)
    assert res.modes[-1] == "kkkk"
    after = res.t > t_hit + 1e-6
    assert np.abs(res["root.z"][after] - Z_STAND).max() < 1e-10
    assert np.abs(res.v[after]).max() < 1e-9
    dfz, mx, my, ft = _statics(res.contact_forces, feet, com)
    assert abs(dfz) < 1e-10 and abs(mx) < 1e-9 and abs(my) < 1e-9 and np.abs(ft).max() < 1e-9


def test_quadruped_dropped_from_10_cm_time_stepping(quadruped):
    """Moreau-Jean, dt = 1 ms: the four feet land in the step that reaches the ground, the
    robot stops there (sunk by less than the step's approach v dt, Moreau-Jean's position
    error at a plastic impact) and stands: the normal impulse of a step is the weight
    times dt, and nothing moves."""
    sys_, feet, com = quadruped
    h, dt = 0.1, 1e-3
    res = _simulate(sys_, 0.4, q0={"root.z": Z_STAND + h}, method="timestepping", dt=dt,
                    store_impulses=True)
    imp = [e for e in res.events if e.kind == "impact"]
    t_hit = np.sqrt(2 * h / G)
    assert {e.contact for e in imp} == set(feet)
    assert all(t_hit < e.t <= t_hit + 2 * dt for e in imp)
    v_hit = np.sqrt(2 * G * h)
    sink = Z_STAND - res["root.z"][-1]
    assert 0.0 <= sink < v_hit * dt
    v_after = np.abs(res.v[res.t > t_hit + 2 * dt]).max(axis=1)
    assert v_after.max() < 1e-7 and v_after[-1] < 1e-9, (v_after.max(), v_after[-1])
    rows = [i for i, r in enumerate(res.impulse_rows) if r.endswith(".n")]
    assert res.impulses[-1, rows].sum() / dt == pytest.approx(M_QUAD * G, rel=1e-8)


BALL_SLIDE = """<mujoco model="cart_ball"><worldbody>
  <body name="cart" pos="0 0 1" euler="0 0 0.4">
    <joint name="rail" type="slide" axis="1 0.2 0" ref="0.25" damping="0.3"/>
    <inertial pos="0.02 0 0" mass="3" diaginertia="0.03 0.04 0.05"/>
    <body name="bob" pos="0.1 0 -0.05" quat="0.9 0.1 0.2 0.3">
      <joint name="ball" type="ball" pos="0 0 0.3"/>
      <inertial pos="0.05 0.02 -0.1" quat="0.8 0.0 0.6 0.0" mass="1.2" diaginertia="0.01 0.012 0.015"/>
      <geom type="sphere" size="0.05"/>
    </body></body></worldbody></mujoco>"""


def test_slide_and_ball_joints_are_mujocos(tmp_path):
    """A cart on a slide (rotated, with ref and damping) carrying a ball-joint pendulum with
    an offset anchor: prismatic and spherical joints, M and h against MuJoCo's."""
    f = tmp_path / "cart_ball.xml"
    f.write_text(BALL_SLIDE)
    J = {j.name: j for j in description_from_mjcf(f).joints}
    assert J["rail"].type == "prismatic" and J["ball"].type == "spherical"
    test_mass_matrix_and_bias_are_mujocos(str(f))
    test_description_kinematics_and_inertias_are_mujocos(str(f))


def test_scene_with_two_free_bodies_and_unnamed_joints(tmp_path):
    """A scene: a floor, a two-body robot on an unnamed free joint ("joint0"), a free box
    and a static sphere fixed to the world: M and h against MuJoCo's."""
    f = tmp_path / "scene.xml"
    f.write_text("""<mujoco><worldbody><geom type="plane" size="1 1 0.1"/>
      <body name="a" pos="0 0 1"><freejoint/><geom type="box" size="0.1 0.2 0.3"/>
        <body name="a2" pos="0.2 0 0"><joint name="h" axis="0 1 0"/>
          <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/></body></body>
      <body name="box" pos="1 0 0.5" euler="0.1 0.2 0.3"><freejoint name="boxfree"/>
        <geom type="box" size="0.1 0.1 0.1"/></body>
      <body name="static" pos="0 1 0"><geom type="sphere" size="0.1"/></body>
    </worldbody></mujoco>""")
    J = [(j.name, j.type, j.parent, j.child) for j in description_from_mjcf(f).joints]
    assert J == [("joint0", "floating", "world", "a"), ("h", "continuous", "a", "a2"),
                 ("boxfree", "floating", "world", "box"),
                 ("static_fixed", "fixed", "world", "static")]
    test_mass_matrix_and_bias_are_mujocos(str(f))
    test_description_kinematics_and_inertias_are_mujocos(str(f))


def test_feet_of_a_urdf_robot_on_the_ground():
    """contacts="feet" on part U's ANYmal B URDF (feet are links fixed below the shanks,
    merged into them): four contacts whose gaps, at a random pose of base and joints, are
    the heights of the foot spheres' centers (the description's own kinematics) minus
    their radius, 0.031 m."""
    from mechdae.robots import load_urdf, parse_urdf
    path = os.path.join(DATA, "anymal.urdf")
    desc = parse_urdf(path)
    assert rc.feet(desc) == ["LF_FOOT", "RF_FOOT", "LH_FOOT", "RH_FOOT"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)       # the file's missing meshes
        m = load_urdf(path, floating_base=True, contacts="feet", ground=-0.1)
    sys_ = m.compile(stabilization=None)
    rng = np.random.default_rng(2)
    joints = {j.name: float(x) for j, x in zip(
        [j for j in desc.joints if j.type != "fixed"], rng.uniform(-0.5, 0.5, 12))}
    quat = rng.normal(size=4)
    quat /= np.linalg.norm(quat)
    base = _pose([0.1, -0.2, 0.6], _rot(quat))
    q = {f"{n}.phi": x for n, x in joints.items()}
    q.update({"base.x": 0.1, "base.y": -0.2, "base.z": 0.6})
    q.update({f"base.q{k}": float(quat[k]) for k in range(4)})
    T = _link_poses(desc, joints)
    gaps = dict(zip(sys_.contact_names, sys_.dynamics_terms(q, {})["gap"]))
    for foot in ("LF_FOOT", "RF_FOOT", "LH_FOOT", "RH_FOOT"):
        (sphere,) = desc.links[foot].collisions
        c = base @ T[foot] @ sphere.origin
        assert gaps[f"{foot}_contact.contact"] == pytest.approx(c[2, 3] + 0.1 - 0.031,
                                                                abs=1e-13)


def test_a_box_sole_touches_at_its_corners(tmp_path):
    """A foot whose collision shape is a box (a humanoid's sole) gets a point contact at
    each of its eight corners: at a tilted pose the gaps are the corners' heights."""
    f = tmp_path / "sole.xml"
    f.write_text("""<mujoco><worldbody><body name="shin" pos="0 0 0.5">
      <joint name="ankle" axis="1 0 0"/>
      <body name="foot"><geom type="box" size="0.1 0.05 0.02" pos="0.03 0 -0.3"/></body>
      </body></worldbody></mujoco>""")
    m = load_mjcf(f, contacts="feet")
    sys_ = m.compile(stabilization=None)
    assert len(sys_.contact_names) == 8 and sys_.contact_names[1] == "foot_contact_2.contact"
    phi = 0.2
    gaps = sys_.dynamics_terms({"ankle.phi": phi}, {})["gap"]
    R = _axis_angle([1, 0, 0], phi)
    corners = [R @ (np.array([0.03, 0, -0.3]) + np.array([sx * 0.1, sy * 0.05, sz * 0.02]))
               for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
    np.testing.assert_allclose(gaps, [0.5 + c[2] for c in corners], atol=1e-14)
