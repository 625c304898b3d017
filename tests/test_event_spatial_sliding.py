"""method="event": sustained sliding on contacts with two tangent directions (mode "s").

Closed forms (seed 003, ball on a rough plane, Ivanov 1993 §3): while the contact point A
slides with velocity v_A, the friction force f = -mu m g e (e = v_A / |v_A|) acts at
A = G - rho e_z, so G' ' = -mu g e and (omega x r)' = (r x f) x r / J = rho^2 f / J:
v_A' = -mu g (1 + m rho^2 / J) e. The direction e stays constant, |v_A| falls linearly to
zero at t_stick = |v_A(0)| / (mu g (1 + m rho^2 / J)), the center follows the parabola (3.8)
G(t) = G(0) + v_G(0) t - mu g e t^2 / 2, the energy falls at the friction power
mu m g |v_A| and then the ball rolls at constant velocity with constant energy.
"""
import math
import sys

import numpy as np
import pytest

import mechdae as md
import mechdae.simulate.unified  # noqa: F401
from conftest import REPO

sys.path.insert(0, str(REPO / "models"))
import ivanov_ball  # noqa: E402

MU, G, RHO, M = 0.3, 9.81, 0.1, 1.0
V0 = {"ball.vx": 1.0, "ball.vy": 0.5, "ball.wx": 20.0, "ball.wy": -5.0, "ball.wz": 3.0}
Q0 = {"ball.z": RHO}          # on the plane: no bounce


@pytest.fixture(scope="module")
def ball():
    return ivanov_ball.build(mu=MU).compile(stabilization=None)


@pytest.fixture(scope="module")
def ball_event(ball):
    # max_step: output points are Hermite interpolants of the window's sub-samples
    return ball.simulate(0.6, q0=Q0, v0=V0, method="event", max_step=0.01)


def _world_omega_xy(res, J):
    pi = ivanov_ball.quasi_velocities(res, m=M, rho=RHO)
    return (pi[:, 0] + M * RHO * res["ball.vy"]) / J, (pi[:, 1] - M * RHO * res["ball.vx"]) / J


def test_ball_slides_to_stick_at_closed_form(ball_event):
    res = ball_event
    J = 0.4 * M * RHO ** 2
    k = 1 + M * RHO ** 2 / J
    # initial orientation = identity: body and world angular velocities coincide
    vA0 = np.array([V0["ball.vx"] - RHO * V0["ball.wy"], V0["ball.vy"] + RHO * V0["ball.wx"]])
    e = vA0 / np.linalg.norm(vA0)
    t_stick = np.linalg.norm(vA0) / (MU * G * k)
    kinds = [(ev.kind, ev.contact) for ev in res.events]
    assert kinds == [("stick", "plane")]
    ts = res.events[0].t
    assert ts == pytest.approx(t_stick, abs=1e-8)                       # measured 4e-11
    assert set(res.modes) == {"s", "k"}
    slide, roll = res.t < ts - 1e-9, res.t > ts + 1e-9
    t = res.t[slide]
    wx, wy = _world_omega_xy(res, J)
    vA = np.column_stack([res["ball.vx"] - RHO * wy, res["ball.vy"] + RHO * wx])
    # contact-point velocity: constant direction, magnitude falling at mu g (1 + m rho^2/J)
    np.testing.assert_allclose(vA[slide], vA0 - MU * G * k * t[:, None] * e, atol=1e-9)
    # the direction stays e: no component across it, none against it before the stick
    assert np.max(np.abs(vA[slide] @ np.array([-e[1], e[0]]))) < 5e-9        # 2e-9
    assert np.all(vA[slide] @ e > 0)
    # center: the parabola (3.8), acceleration -mu g e
    for c, j in (("x", 0), ("y", 1)):
        v0 = V0[f"ball.v{c}"]
        np.testing.assert_allclose(res[f"ball.{c}"][slide], v0 * t - 0.5 * MU * G * e[j] * t ** 2,
                                   atol=1e-9)
        np.testing.assert_allclose(res[f"ball.v{c}"][slide], v0 - MU * G * e[j] * t, atol=1e-9)
    assert np.max(np.abs(res["ball.z"] - RHO)) < 1e-12
    # friction force -mu m g e while sliding (normal force m g)
    lam = res.contact_forces["plane"]
    np.testing.assert_allclose(lam[slide], np.tile([M * G, *(-MU * M * G * e)], (t.size, 1)),
                               atol=1e-9)
    # energy: dE/dt = -mu m g |v_A|, i.e. E0 - mu m g (|v_A0| t - mu g k t^2 / 2); then constant
    E = res.energy
    E_c = E[0] - MU * M * G * (np.linalg.norm(vA0) * t - 0.5 * MU * G * k * t ** 2)
    np.testing.assert_allclose(E[slide], E_c, atol=1e-8)
    E_roll = E[0] - 0.5 * MU * M * G * np.linalg.norm(vA0) * t_stick
    np.testing.assert_allclose(E[roll], E_roll, atol=1e-9)
    # pi1, pi2, pi3 of (3.7): constant through sliding, the stick and rolling
    pi = ivanov_ball.quasi_velocities(res, m=M, rho=RHO)
    assert np.max(np.abs(pi - pi[0])) < 1e-8                            # measured 1.5e-10
    # rolling: straight line at v = (pi2, -pi1) / (J / rho + m rho), A at rest
    c = J / RHO + M * RHO
    np.testing.assert_allclose(res["ball.vx"][roll], pi[0, 1] / c, atol=1e-9)
    np.testing.assert_allclose(res["ball.vy"][roll], -pi[0, 0] / c, atol=1e-9)
    assert np.max(np.abs(vA[roll])) < 1e-9
    np.testing.assert_allclose(lam[roll], np.tile([M * G, 0.0, 0.0], (int(roll.sum()), 1)),
                               atol=1e-9)


def test_ball_event_and_unified_stick_times_agree(ball, ball_event):
    ru = ball.simulate(0.6, q0=Q0, v0=V0, method="unified", dt=1e-3)
    stick_u = [e.t for e in ru.events if e.kind == "stick"]
    assert len(stick_u) == 1
    assert ball_event.events[0].t == pytest.approx(stick_u[0], abs=1e-8)   # measured 6e-11
    tf = ball_event.t[-1]
    for n in ("ball.x", "ball.y", "ball.vx", "ball.vy"):
        assert ball_event[n][-1] == pytest.approx(np.interp(tf, ru.t, ru[n]), abs=1e-8)


@pytest.mark.parametrize("kJ", [0.4, 2.0 / 3.0])
def test_spatial_rigid_sphere_slides_to_stick(kJ):
    """A sphere built with ``rigid_body(planar=False)`` (solid or hollow): same closed form,
    t_stick = |v_A(0)| / (mu g (1 + m r^2 / J)), the contact A = G - r e_z sliding along a
    fixed direction, then rolling with constant velocity."""
    r, m_, mu, g = 0.2, 3.0, 0.25, 9.81
    J = kJ * m_ * r ** 2
    m = md.Model("sphere")
    b = m.rigid_body("s", mass=m_, inertia=[J, J, J], planar=False)
    m.potential_energy(m_ * g * b.z)
    w = b.omega_world
    m.contact("floor", gap=b.z - r, tangent_velocity=[b.v[0] - r * w[1], b.v[1] + r * w[0]],
              friction=mu, restitution=0.0)
    s = m.compile(stabilization=None)
    v0 = {"s.vx": -0.7, "s.vy": 1.2, "s.wx": 4.0, "s.wy": 9.0, "s.wz": -2.0}
    res = s.simulate(1.5, q0={"s.z": r}, v0=v0, method="event", max_step=0.02)
    vA0 = np.array([v0["s.vx"] - r * v0["s.wy"], v0["s.vy"] + r * v0["s.wx"]])
    t_stick = np.linalg.norm(vA0) / (mu * g * (1 + m_ * r ** 2 / J))
    assert [e.kind for e in res.events] == ["stick"]
    assert res.events[0].t == pytest.approx(t_stick, abs=1e-8)
    e = vA0 / np.linalg.norm(vA0)
    slide, roll = res.t < t_stick - 1e-9, res.t > t_stick + 1e-9
    t = res.t[slide]
    np.testing.assert_allclose(res["s.vx"][slide], v0["s.vx"] - mu * g * e[0] * t, atol=1e-9)
    np.testing.assert_allclose(res["s.vy"][slide], v0["s.vy"] - mu * g * e[1] * t, atol=1e-9)
    v_roll = np.array([v0["s.vx"], v0["s.vy"]]) - mu * g * e * t_stick
    np.testing.assert_allclose(res["s.vx"][roll], v_roll[0], atol=1e-9)
    np.testing.assert_allclose(res["s.vy"][roll], v_roll[1], atol=1e-9)
    assert np.ptp(res.energy[roll]) < 1e-9


def test_point_mass_sticks_then_slides_along_the_force():
    """Spatial sticking (mode "k", two tangent directions) until the friction cone is left:
    a particle on a rough floor pushed by F = c t along (cos th, sin th) sticks until
    t_s = mu m g / c, then slides along the force with m s'' = c t - mu m g."""
    mu, g, m_, c, th = 0.4, 9.81, 2.0, 5.0, 0.6
    m = md.Model("particle")
    x, y, z = m.coordinates("x y z")
    F = m.input("F", default=lambda t: c * t)
    m.kinetic_energy(0.5 * m_ * (md.der(x) ** 2 + md.der(y) ** 2 + md.der(z) ** 2))
    m.potential_energy(m_ * g * z)
    m.generalized_force(F * math.cos(th), x)
    m.generalized_force(F * math.sin(th), y)
    m.contact("floor", gap=z, tangent=[x, y], restitution=0.0, friction=mu)
    s = m.compile(stabilization=None)
    res = s.simulate(3.0, method="event", max_step=0.05)
    ts = mu * m_ * g / c
    assert [(e.kind, e.extra.get("mode")) for e in res.events] == [("slide", "s")]
    assert res.events[0].t == pytest.approx(ts, abs=1e-8)
    stick, slide = res.t < ts, res.t > ts
    assert np.max(np.abs(res["x"][stick])) < 1e-12 and np.max(np.abs(res["y"][stick])) < 1e-12
    t = res.t[slide]
    sc = c / (6 * m_) * (t ** 3 - ts ** 3) - c * ts ** 2 / (2 * m_) * (t - ts) - mu * g * (t - ts) ** 2 / 2
    np.testing.assert_allclose(res["x"][slide], sc * math.cos(th), atol=1e-8)
    np.testing.assert_allclose(res["y"][slide], sc * math.sin(th), atol=1e-8)
    # sticking: friction balances the push (|lam_t| = c t <= mu m g); sliding: -mu m g e
    lam = res.contact_forces["floor"]
    e = np.array([math.cos(th), math.sin(th)])
    np.testing.assert_allclose(lam[stick, 1:], -c * res.t[stick, None] * e, atol=1e-8)
    np.testing.assert_allclose(lam[slide, 1:], np.tile(-mu * m_ * g * e, (t.size, 1)), atol=1e-8)


def test_curved_slide_renews_its_direction_and_stops():
    """A particle sliding along x with a constant side force F < mu m g along y: the
    sliding direction turns (the reference direction is renewed every 60 degrees) until
    the particle stops and sticks; checked against a direct integration of
    v' = F e_y - mu g v / |v| (scipy DOP853)."""
    from scipy.integrate import solve_ivp
    mu, g, F = 0.4, 9.81, 2.0
    m = md.Model("curve")
    x, y, z = m.coordinates("x y z")
    m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2 + md.der(z) ** 2))
    m.potential_energy(g * z)
    m.generalized_force(F, y)
    m.contact("floor", gap=z, tangent=[x, y], friction=mu, restitution=0.0)
    res = m.compile(stabilization=None).simulate(2.0, v0={"x": 3.0}, method="event")
    a = mu * g

    def f(t, X):
        n = math.hypot(X[2], X[3])
        return [X[2], X[3], -a * X[2] / n, F - a * X[3] / n]

    stop = lambda t, X: math.hypot(X[2], X[3]) - 1e-7          # noqa: E731
    stop.terminal = True
    ref = solve_ivp(f, [0, 2], [0, 0, 3.0, 0], rtol=1e-13, atol=1e-14, events=stop,
                    method="DOP853")
    # the last 1e-7 of |v|: linear extrapolation with d|v|/dt = v . v' / |v|
    t_ref = ref.t_events[0][0]
    vdot = np.array(f(0, ref.y[:, -1])[2:])
    t_ref += 1e-7 / abs(vdot @ ref.y[2:, -1] / 1e-7)
    assert [e.kind for e in res.events] == ["stick"]
    assert res.events[0].t == pytest.approx(t_ref, abs=1e-8)
    assert res["x"][-1] == pytest.approx(ref.y[0, -1], abs=1e-8)
    assert res["y"][-1] == pytest.approx(ref.y[1, -1], abs=1e-8)
