"""Spatial multibody components (mechdae.components.spatial): closed forms (steady
precession, rolling, oscillators), conservation laws, agreement with the planar library and
the hand-written models, loop closure, cut forces and torques, bad input."""
import math

import numpy as np
import pytest

import mechdae as md
from mechdae.components import planar as pl
from mechdae.components import spatial as sp
from mechdae.components import translational as tr

from conftest import model_module

TIGHT = dict(rtol=1e-11, atol=1e-11)


def _double_pendulum(lib, L1=1.0, L2=0.7, m1=1.0, m2=2.0):
    """Two links in the (x, y) plane, gravity -y; point masses at the tips."""
    m = md.Model("dp")
    if lib is sp:
        w = m.add(sp.World("world", n=(0.0, -1.0, 0.0)))
        kw1 = dict(r=(L1, 0, 0), r_cm=(L1, 0, 0), m=m1, I=0.0)
        kw2 = dict(r=(L2, 0, 0), r_cm=(L2, 0, 0), m=m2, I=0.0)
    else:
        w = m.add(pl.World("world"))
        kw1 = dict(r=(L1, 0), r_cm=(L1, 0), m=m1, I=0.0)
        kw2 = dict(r=(L2, 0), r_cm=(L2, 0), m=m2, I=0.0)
    j1 = m.add(lib.Revolute("j1", phi0=-0.4))
    b1 = m.add(lib.BodyShape("b1", **kw1))
    j2 = m.add(lib.Revolute("j2", phi0=0.9))
    b2 = m.add(lib.BodyShape("b2", **kw2))
    m.connect(w.frame, j1.frame_a); m.connect(j1.frame_b, b1.frame_a)
    m.connect(b1.frame_b, j2.frame_a); m.connect(j2.frame_b, b2.frame_a)
    return m


def test_double_pendulum_equals_the_planar_library_with_cut_forces():
    s = _double_pendulum(sp).compile(stabilization=None)
    assert s.q_names == ["j1.phi", "j2.phi"] and s.m == 0      # joint coordinates only
    p = _double_pendulum(pl).compile(stabilization=None)
    t = np.linspace(0.0, 3.0, 31)
    r1 = s.simulate(3.0, output_times=t, **TIGHT)
    r2 = p.simulate(3.0, output_times=t, **TIGHT)
    for q in ("j1.phi", "j2.phi"):
        assert np.abs(r1[q] - r2[q]).max() < 1e-8                     # measured 2e-10
    # cut force at the second joint: spatial f resolved in frame_a of j2 (the first link's
    # axes), planar fx, fy in the world: rotate back
    c, s1 = np.cos(r1["j1.phi"]), np.sin(r1["j1.phi"])
    fx = c * r1["j2.frame_a.f[1]"] - s1 * r1["j2.frame_a.f[2]"]
    fy = s1 * r1["j2.frame_a.f[1]"] + c * r1["j2.frame_a.f[2]"]
    scale = np.abs(r2["j2.frame_a.fy"]).max()
    assert np.abs(fx - r2["j2.frame_a.fx"]).max() < 1e-7 * scale
    assert np.abs(fy - r2["j2.frame_a.fy"]).max() < 1e-7 * scale
    # a free revolute transmits no torque about its axis; no force or torque leaves the plane
    assert np.abs(r1["j2.frame_a.t[3]"]).max() < 1e-9 * scale
    assert np.abs(r1["j2.frame_a.f[3]"]).max() < 1e-9 * scale
    assert np.ptp(r1.energy) < 1e-7 * abs(r1.energy[0])               # measured 6e-9


def test_heavy_top_steady_precession_closed_form():
    mod = model_module("spatial_top")
    s = mod.build().compile(stabilization=None)
    assert s.q_names == [f"pivot.q{k}" for k in range(4)] and s.m == 0
    sim = dict(mod.SIMULATION)
    T = sim["t_final"]
    t = np.linspace(0.0, T, 101)
    r = s.simulate(T, v0=sim["v0"], output_times=t, **TIGHT)
    x, y, z = (r[f"top.r_cm_0[{k}]"] for k in (1, 2, 3))
    l = 0.1
    # tilt constant (no nutation), precession at the rate the closed form was solved for
    assert np.abs(np.arccos(z / l) - mod.THETA).max() < 1e-7         # measured 4e-9
    az = np.unwrap(np.arctan2(y, x))
    rate = np.gradient(az, t)
    assert np.abs(rate - mod.OMEGA).max() < 1e-5 * mod.OMEGA
    assert np.ptp(r.energy) < 1e-8
    # the pivot carries the weight plus the centripetal force of the center of mass
    M, g = 1.0, 9.81
    assert np.abs(r["pivot.frame_a.f[3]"] - M * g).max() < 1e-7
    rho = l * math.sin(mod.THETA)
    fh = np.hypot(r["pivot.frame_a.f[1]"], r["pivot.frame_a.f[2]"])
    assert np.abs(fh - M * mod.OMEGA ** 2 * rho).max() < 1e-7


def test_fast_top_precesses_at_the_gyroscopic_rate():
    # Omega -> M g l / (C w3) as the spin grows (relative error ~ A_o Omega^2 cos / (M g l))
    mod = model_module("spatial_top")
    s = mod.build().compile(stabilization=None)
    w3 = 400.0
    Om = 1.0 * 9.81 * 0.1 / (0.004 * w3)
    t = np.linspace(0.0, 0.5, 51)
    r = s.simulate(0.5, v0={"pivot.wy": Om * math.sin(mod.THETA), "pivot.wz": w3},
                   output_times=t, **TIGHT)
    az = np.unwrap(np.arctan2(r["top.r_cm_0[2]"], r["top.r_cm_0[1]"]))
    rate = (az[-1] - az[0]) / 0.5
    # next order: Omega = M g l / (C w3) (1 + A_o Omega^2 cos(theta) / (M g l) + ...),
    # here +0.42 %
    corr = (0.002 + 0.1 ** 2) * Om ** 2 * math.cos(mod.THETA) / (9.81 * 0.1)
    assert rate == pytest.approx(Om * (1 + corr), rel=5e-4)


def test_free_body_conserves_energy_and_angular_momentum_and_equals_rigid_body():
    J = np.array([[0.3, 0.02, 0.01], [0.02, 0.5, -0.03], [0.01, -0.03, 0.7]])
    m = md.Model("free")
    w = m.add(sp.World("world", g=0.0))
    f = m.add(sp.FreeMotion("f", v0=(0.1, 0.2, -0.3), w0=(1.0, 2.0, 0.5), n=(1, 1, 0),
                            angle0=0.7))
    b = m.add(sp.Body("b", m=2.0, I=J))
    m.connect(w.frame, f.frame_a); m.connect(f.frame_b, b.frame_a)
    s = m.compile(stabilization=None)
    t = np.linspace(0.0, 5.0, 101)
    r = s.simulate(5.0, output_times=t, rtol=1e-12, atol=1e-12)
    assert np.ptp(r.energy) < 1e-9                                      # measured 6e-10
    R = np.array([[[r[f"b.frame_a.R[{i},{j}]"][k] for j in (1, 2, 3)] for i in (1, 2, 3)]
                  for k in range(t.size)])
    wa = np.array([r[f"b.w_a[{i}]"] for i in (1, 2, 3)]).T
    L = np.einsum("kij,jl,kl->ki", R, J, wa)
    assert np.abs(L - L[0]).max() < 1e-9                                # measured 6e-10
    # the same body written with Model.rigid_body
    h = md.Model("free_dsl")
    h.rigid_body("b", mass=2.0, inertia=J, planar=False)
    q = sp.quaternion((1, 1, 0), 0.7)
    rh = h.compile(stabilization=None).simulate(
        5.0, q0={f"b.q{k}": q[k] for k in range(4)},
        v0={"b.vx": 0.1, "b.vy": 0.2, "b.vz": -0.3, "b.wx": 1.0, "b.wy": 2.0, "b.wz": 0.5},
        output_times=t, rtol=1e-12, atol=1e-12)
    assert max(np.abs(rh[f"b.q{k}"] - r[f"f.q{k}"]).max() for k in range(4)) < 1e-9
    assert np.abs(rh["b.z"] - r["f.z"]).max() < 1e-12


def test_world_torque_changes_the_angular_momentum_at_its_rate():
    m = md.Model("spun")
    w = m.add(sp.World("world", g=0.0))
    f = m.add(sp.FreeMotion("f"))
    b = m.add(sp.Body("b", m=1.0, I=(0.1, 0.2, 0.3)))
    tq = m.add(sp.WorldTorque("tq", torque=(0.0, 0.5, 1.0)))
    m.connect(w.frame, f.frame_a); m.connect(f.frame_b, b.frame_a, tq.frame_b)
    t = np.linspace(0.0, 2.0, 21)
    r = m.compile(stabilization=None).simulate(2.0, v0={"f.wx": 3.0}, output_times=t,
                                               **TIGHT)
    R = np.array([[[r[f"b.frame_a.R[{i},{j}]"][k] for j in (1, 2, 3)] for i in (1, 2, 3)]
                  for k in range(t.size)])
    wa = np.array([r[f"b.w_a[{i}]"] for i in (1, 2, 3)]).T
    L = np.einsum("kij,jl,kl->ki", R, np.diag([0.1, 0.2, 0.3]), wa)
    assert np.abs(L - (L[0] + np.outer(t, [0.0, 0.5, 1.0]))).max() < 1e-8


def _slider_crank(r=1.0, l=2.0, J1=0.5, m2=1.0, m3=1.0, cut=None, I3=0.0):
    m = md.Model("spatial_slider_crank")
    world = m.add(sp.World("world", n=(0, -1, 0)))
    j1 = m.add(sp.Revolute("j1", cut=cut == "j1"))
    crank = m.add(sp.BodyShape("crank", r=(r, 0, 0), r_cm=(0, 0, 0), m=0.0, I=J1))
    j2 = m.add(sp.Revolute("j2", cut=cut == "j2"))
    rod = m.add(sp.BodyShape("rod", r=(l, 0, 0), r_cm=(l / 2, 0, 0), m=m2,
                             I=(0.0, m2 * l ** 2 / 12, m2 * l ** 2 / 12)))
    j3 = m.add(sp.Revolute("j3"))
    slide = m.add(sp.Prismatic("slide", n=(1, 0, 0), s0=r + l, cut=cut == "slide"))
    piston = m.add(sp.Body("piston", m=m3, I=I3))
    m.connect(world.frame, j1.frame_a, slide.frame_a)
    m.connect(j1.frame_b, crank.frame_a); m.connect(crank.frame_b, j2.frame_a)
    m.connect(j2.frame_b, rod.frame_a); m.connect(rod.frame_b, j3.frame_a)
    m.connect(j3.frame_b, slide.frame_b, piston.frame_a)
    return m


def test_slider_crank_loop_equals_the_hand_written_model_and_its_multiplier():
    stab = md.Baumgarte(alpha=20.0, beta=20.0)
    s = _slider_crank().compile(stabilization=stab)
    # the loop is cut at a revolute: its angle is eliminated by the closure row linear in
    # it, the slider by a position row; the planar loop's out-of-plane rows are redundant
    # (reported, not constraints); one row stays a constraint
    assert s.q_names == ["j1.phi", "j2.phi"] and s.m == 1
    h = model_module("slider_crank").build().compile(stabilization=stab)
    t = np.linspace(0.0, 5.0, 51)
    kw = dict(output_times=t, rtol=1e-11, atol=1e-11)
    r1 = s.simulate(5.0, q0={"j1.phi": 0.0}, v0={"j1.w": 6.0, "j2.w": -9.0}, **kw)
    r2 = h.simulate(5.0, q0={"th1": 0.0}, v0={"th1": 6.0, "th2": 3.0}, **kw)
    assert np.abs(r1["j1.phi"] - r2["th1"]).max() < 1e-6                 # measured 9e-9
    assert np.abs(r1["slide.s"] - r2["s"]).max() < 1e-6
    lam = r2.multipliers["loop"]
    scale = np.abs(lam).max()
    # the pin force on the rod (the slider frame keeps world axes) = the multiplier
    assert np.abs(r1["j3.frame_b.f[1]"] - lam[:, 0]).max() < 1e-6 * scale
    assert np.abs(r1["j3.frame_b.f[2]"] - lam[:, 1]).max() < 1e-6 * scale
    # the guide takes no force along its axis
    assert np.abs(r1["slide.frame_b.f[1]"]).max() < 1e-6 * scale
    assert r1.max_drift() < 1e-6


@pytest.mark.parametrize("cut", ["j2", "slide"])
def test_the_user_chooses_where_the_loop_is_cut(cut):
    stab = md.Baumgarte(alpha=20.0, beta=20.0)
    # cut at the slide, j3's angle stays a coordinate: it moves the piston, which then needs
    # a moment of inertia (it does not rotate, so the motion is the same)
    s = _slider_crank(cut=cut, I3=0.1).compile(stabilization=stab)
    ref = _slider_crank().compile(stabilization=stab)
    t = np.linspace(0.0, 2.0, 21)
    kw = dict(output_times=t, rtol=1e-11, atol=1e-11)
    q0, v0 = {"j1.phi": 0.0}, {"j1.w": 6.0, "j2.w": -9.0}
    r1 = s.simulate(2.0, q0=q0, v0=v0, **kw)
    r2 = ref.simulate(2.0, q0=q0, v0=v0, **kw)
    # the constraint that stays is a row of the chosen joint; the motion is the same
    assert s.constraint_names and all(n.startswith(f"{cut}.") for n in s.constraint_names)
    assert np.abs(r1["j1.phi"] - r2["j1.phi"]).max() < 1e-6
    assert np.abs(r1["slide.s"] - r2["slide.s"]).max() < 1e-6
    assert np.abs(r1["j3.frame_b.f[2]"] - r2["j3.frame_b.f[2]"]).max() < 1e-5


def test_a_coordinate_without_inertia_is_named_before_the_run():
    s = _slider_crank(cut="slide").compile(stabilization=md.Baumgarte(alpha=20.0, beta=20.0))
    with pytest.raises(ValueError, match=r"mass matrix is singular.*no inertia along 'j3.w'"):
        s.simulate(0.1, v0={"j1.w": 6.0, "j2.w": -9.0})


def test_prismatic_spring_oscillator_period_and_static_deflection():
    c, M, g = 40.0, 2.0, 9.81
    m = md.Model("osc")
    w = m.add(sp.World("world", g=g))
    p = m.add(sp.Prismatic("p", n=(0, 0, 1), s0=-0.3))
    b = m.add(sp.Body("b", m=M, I=0.01))
    spring = m.add(sp.Spring("spring", c=c, s_unstretched=0.1))
    top = m.add(sp.Fixed("top", r=(0.0, 0.0, 0.5)))
    m.connect(w.frame, p.frame_a); m.connect(p.frame_b, b.frame_a, spring.frame_b)
    m.connect(top.frame, spring.frame_a)
    s = m.compile(stabilization=None)
    assert s.q_names == ["p.s"]
    om = math.sqrt(c / M)
    s_eq = 0.5 - 0.1 - M * g / c            # spring length 0.5 - s = 0.1 + M g / c
    t = np.linspace(0.0, 2.0, 41)
    r = s.simulate(2.0, q0={"p.s": s_eq + 0.05}, output_times=t, **TIGHT)
    assert np.abs(r["p.s"] - (s_eq + 0.05 * np.cos(om * t))).max() < 1e-8
    assert np.abs(r["spring.f"] - c * (0.5 - r["p.s"] - 0.1)).max() < 1e-9


def test_universal_joint_is_torque_free_about_its_axes_and_conserves_energy():
    m = md.Model("cardan")
    w = m.add(sp.World("world"))
    u = m.add(sp.Universal("u", phi_a0=0.3, phi_b0=-0.5, w_a0=1.0))
    b = m.add(sp.BodyShape("b", r=(0, 0, -1.0), r_cm=(0.1, 0.0, -0.6), m=1.5,
                           I=(0.05, 0.06, 0.02)))
    m.connect(w.frame, u.frame_a); m.connect(u.frame_b, b.frame_a)
    s = m.compile(stabilization=None)
    assert s.q_names == ["u.phi_a", "u.phi_b"]
    r = s.simulate(3.0, output_times=np.linspace(0, 3, 31), **TIGHT)
    assert np.ptp(r.energy) < 1e-8
    scale = np.abs(r["u.frame_a.f[3]"]).max()
    # torque on the cross: about n_a (frame_a axes) and about n_b (frame_b axes) zero
    assert np.abs(r["u.frame_a.t[1]"]).max() < 1e-8 * scale
    assert np.abs(r["u.frame_b.t[2]"]).max() < 1e-8 * scale


def _body_on_the_floor(free, body, contact):
    """World -> FreeMotion -> Body with a PointPlaneContact on the plane z = 0."""
    m = md.Model("on_the_floor")
    w = m.add(sp.World("world"))
    f = m.add(sp.FreeMotion("f", **free))
    b = m.add(sp.Body("b", **body))
    c = m.add(sp.PointPlaneContact("c", **contact))
    m.connect(w.frame, f.frame_a)
    m.connect(f.frame_b, b.frame_a, c.frame)
    return m


@pytest.mark.slow
def test_sliding_sphere_starts_rolling_at_five_sevenths():
    # a solid sphere launched without spin slides until v = 5/7 v0 at t = 2 v0 / (7 mu g)
    rho, M, mu, g, v0 = 0.1, 2.0, 0.3, 9.81, 2.0
    m = _body_on_the_floor(dict(r0=(0, 0, rho), v0=(v0, 0, 0)), dict(m=M, I=0.4 * M * rho ** 2),
                           dict(radius=rho, mu=mu))
    r = m.compile(stabilization=None).simulate(0.5, method="event")
    stick = [e for e in r.events if e.kind == "stick"]
    assert len(stick) == 1 and stick[0].contact == "c.contact"
    assert stick[0].t == pytest.approx(2 * v0 / (7 * mu * g), abs=1e-9)
    assert r["f.vx"][-1] == pytest.approx(5 / 7 * v0, rel=1e-9)
    assert r["f.wy"][-1] == pytest.approx(5 / 7 * v0 / rho, rel=1e-9)
    assert np.abs(r["f.z"] - rho).max() < 1e-9


def test_point_contact_of_a_dropped_body_bounces_to_e_squared_height():
    e, h = 0.5, 0.4
    m = _body_on_the_floor(dict(r0=(0.0, 0.0, h)), dict(m=1.0, I=0.1), dict(e=e))
    t1 = math.sqrt(2 * h / 9.81)
    t_apex = t1 + e * t1                   # rebound speed e g t1, up for e t1
    r = m.compile(stabilization=None).simulate(
        t_apex, method="event", output_times=np.linspace(0.0, t_apex, 11))
    imp = [ev for ev in r.events if ev.kind == "impact"]
    assert imp[0].t == pytest.approx(t1, abs=1e-9)
    assert r["f.z"][-1] == pytest.approx(e * e * h, rel=1e-8)
    assert r["f.vz"][-1] == pytest.approx(0.0, abs=1e-8)


# ------------------------------------------------------------------ bad input
def test_bad_input_is_named():
    m = md.Model("nw")
    j = m.add(sp.Revolute("j"))
    b = m.add(sp.Body("b"))
    fx = m.add(sp.Fixed("fx"))
    m.connect(fx.frame, j.frame_a); m.connect(j.frame_b, b.frame_a)
    with pytest.raises(md.ModelError, match=r"b: a body takes its weight from the World"):
        m.compile()

    m = md.Model("two")
    w1, w2 = m.add(sp.World("w1")), m.add(sp.World("w2"))
    with pytest.raises(md.ModelError, match=r"2 Worlds \(w1, w2\)"):
        m.compile()

    m = md.Model("self")
    j = m.add(sp.Revolute("j"))
    with pytest.raises(md.ModelError, match=r"two frames of joint 'j'"):
        m.connect(j.frame_a, j.frame_b)

    m = md.Model("loose")
    w = m.add(sp.World("world"))
    b = m.add(sp.Body("b"))
    s = m.add(sp.Spring("s"))
    m.connect(w.frame, s.frame_a); m.connect(s.frame_b, b.frame_a)
    with pytest.raises(md.ModelError, match=r"'b.frame_a'.*not positioned.*FreeMotion"):
        m.compile()

    with pytest.raises(ValueError, match=r"Body 'b'.*triangle inequality"):
        sp.Body("b", I=(1.0, 1.0, 3.0))
    with pytest.raises(ValueError, match=r"Revolute 'j'.*nonzero direction"):
        sp.Revolute("j", n=(0, 0, 0))
    with pytest.raises(ValueError, match=r"Universal 'u'.*orthogonal"):
        sp.Universal("u", n_a=(1, 0, 0), n_b=(1, 1, 0))
    with pytest.raises(ValueError, match=r"quaternion"):
        sp.quaternion((0, 0, 0), 1.0)


def test_a_loop_that_cannot_close_is_refused_at_initialization():
    # a four-bar whose links cannot reach: ground 3, crank 1, coupler 0.5, rocker 1
    m = md.Model("fourbar")
    w = m.add(sp.World("world", n=(0, -1, 0)))
    g2 = m.add(sp.Fixed("g2", r=(3.0, 0.0, 0.0)))
    ja, jb, jc, jd = (m.add(sp.Revolute(n)) for n in ("ja", "jb", "jc", "jd"))
    crank = m.add(sp.BodyShape("crank", r=(1.0, 0, 0), r_cm=(0.5, 0, 0), m=1.0, I=0.1))
    coupler = m.add(sp.BodyShape("coupler", r=(0.5, 0, 0), r_cm=(0.25, 0, 0), m=1.0, I=0.1))
    rocker = m.add(sp.BodyShape("rocker", r=(1.0, 0, 0), r_cm=(0.5, 0, 0), m=1.0, I=0.1))
    m.connect(w.frame, ja.frame_a); m.connect(ja.frame_b, crank.frame_a)
    m.connect(crank.frame_b, jb.frame_a); m.connect(jb.frame_b, coupler.frame_a)
    m.connect(coupler.frame_b, jc.frame_a); m.connect(jc.frame_b, rocker.frame_b)
    m.connect(rocker.frame_a, jd.frame_b); m.connect(jd.frame_a, g2.frame)
    s = m.compile()
    # the lengths leave a gap of 3 - 2.5 = 0.5 at best: initialization names the cut joint
    with pytest.raises(ValueError, match=r"initialization failed.*residual.*'jd\.cut_r"):
        s.simulate(0.1)


def test_msl_double_pendulum_in_its_spatial_form_equals_the_planar_adaptation():
    # MSL MultiBody.Examples.Elementary.DoublePendulum as written in MSL: BodyBox bodies
    # (steel, r = {0.5, 0, 0}, width 0.06), an actuated revolute with a bearing damper
    from mechdae.components import rotational as rot
    m = md.Model("DoublePendulum")
    world = m.add(sp.World("world", n=(0.0, -1.0, 0.0)))
    revolute1 = m.add(sp.Revolute("revolute1", useAxisFlange=True))
    damper = m.add(rot.Damper("damper", d=0.1))
    boxBody1 = m.add(sp.BodyBox("boxBody1", r=(0.5, 0.0, 0.0), width=0.06))
    revolute2 = m.add(sp.Revolute("revolute2"))
    boxBody2 = m.add(sp.BodyBox("boxBody2", r=(0.5, 0.0, 0.0), width=0.06))
    m.connect(damper.flange_b, revolute1.axis)
    m.connect(revolute1.support, damper.flange_a)
    m.connect(revolute1.frame_b, boxBody1.frame_a)
    m.connect(revolute2.frame_b, boxBody2.frame_a)
    m.connect(boxBody1.frame_b, revolute2.frame_a)
    m.connect(world.frame, revolute1.frame_a)
    s = m.compile(stabilization=None)
    mod = model_module("msl_multibody_double_pendulum")
    p = mod.build().compile(stabilization=None)
    t = np.linspace(0.0, 3.0, 31)
    r1 = s.simulate(3.0, output_times=t, **TIGHT)
    r2 = p.simulate(3.0, output_times=t, **TIGHT)
    mass, _, inertia = mod.box_properties()          # 13.86 kg, I_zz about the center
    pd = dict(zip(s.p_names, s.p_defaults))
    assert pd["boxBody1.m"] == pytest.approx(mass, rel=1e-12)
    assert pd["boxBody1.I_33"] == pytest.approx(inertia, rel=1e-12)
    for q in ("revolute1.phi", "revolute2.phi"):
        assert np.abs(r1[q] - r2[q]).max() < 1e-8
    assert np.abs(r1["boxBody2.frame_b.r[2]"] - r2["boxBody2.frame_b.y"]).max() < 1e-8


def test_oblique_frictionless_collision_of_two_spheres():
    # sphere 1 (m 1, radius 0.1) at (-1, 0, 0) with vx = 2 hits sphere 2 (m 3, radius 0.2) at
    # (0, 0.15, 0.1) moving with vx = -0.5: the normal impulse along the line of centers
    # (1 + e) v_n / (1/m1 + 1/m2); no spin, momentum conserved
    e, m1, m2 = 0.5, 1.0, 3.0
    m = md.Model("spheres")
    w = m.add(sp.World("world", g=0.0))
    f1 = m.add(sp.FreeMotion("f1", r0=(-1.0, 0.0, 0.0), v0=(2.0, 0.0, 0.0)))
    f2 = m.add(sp.FreeMotion("f2", r0=(0.0, 0.15, 0.1), v0=(-0.5, 0.0, 0.0)))
    b1 = m.add(sp.Body("b1", m=m1, I=0.004))
    b2 = m.add(sp.Body("b2", m=m2, I=0.048))
    c = m.add(sp.PointPointContact("c", radius_a=0.1, radius_b=0.2, e=e))
    m.connect(w.frame, f1.frame_a, f2.frame_a)
    m.connect(f1.frame_b, b1.frame_a, c.frame_a)
    m.connect(f2.frame_b, b2.frame_a, c.frame_b)
    r = m.compile(stabilization=None).simulate(1.0, method="event")
    d = np.array([math.sqrt(0.09 - 0.0325), 0.15, 0.1])    # centers 0.3 apart at contact
    n = d / np.linalg.norm(d)
    Pn = (1 + e) * 2.5 * n[0] / (1 / m1 + 1 / m2)
    v1 = np.array([2.0, 0, 0]) - Pn * n / m1
    v2 = np.array([-0.5, 0, 0]) + Pn * n / m2
    assert r.events[0].t == pytest.approx((1.0 - d[0]) / 2.5, abs=1e-9)
    for k, a in enumerate("xyz"):
        assert r[f"f1.v{a}"][-1] == pytest.approx(v1[k], abs=1e-8)
        assert r[f"f2.v{a}"][-1] == pytest.approx(v2[k], abs=1e-8)
    assert max(abs(r[f"f{i}.w{a}"][-1]) for i in (1, 2) for a in "xyz") < 1e-12
    with pytest.raises(ValueError, match=r"PointPointContact 'c'.*frictionless"):
        sp.PointPointContact("c", mu=0.3)


def test_relative_sensors_read_the_joint_motion():
    m = _double_pendulum(sp)
    j2 = next(c for c in m.components if c.name == "j2")
    b1 = next(c for c in m.components if c.name == "b1")
    b2 = next(c for c in m.components if c.name == "b2")
    pos = m.add(sp.RelativePosition("pos"))
    vel = m.add(sp.RelativeVelocity("vel", resolveInFrame="world"))
    rot_ = m.add(sp.RelativeAngularVelocity("rot"))
    for s_ in (pos, vel, rot_):
        m.connect(b1.frame_a, s_.frame_a)
        m.connect(b2.frame_b, s_.frame_b)
    r = m.compile(stabilization=None).simulate(1.0, output_times=np.linspace(0, 1, 11),
                                               **TIGHT)
    p1, p2 = r["j1.phi"], r["j2.phi"]
    # frame_b of link 2 from link 1's frame_a, in link 1's axes: (L1 + L2 cos p2, L2 sin p2)
    assert np.abs(r["pos.r_rel[1]"] - (1.0 + 0.7 * np.cos(p2))).max() < 1e-9
    assert np.abs(r["pos.r_rel[2]"] - 0.7 * np.sin(p2)).max() < 1e-9
    # world velocity of the tip relative to the pivot
    w1, w2 = r["j1.w"], r["j2.w"]
    vx = -np.sin(p1) * w1 - 0.7 * np.sin(p1 + p2) * (w1 + w2)
    assert np.abs(r["vel.v_rel[1]"] - vx).max() < 1e-9
    assert np.abs(r["rot.w_rel[3]"] - w2).max() < 1e-9
    assert np.abs(r["rot.w_rel[1]"]).max() < 1e-12
