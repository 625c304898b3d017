"""Seed 003 (Ivanov 1993): eccentric disk on a smooth plane, spinning ball on a rough plane."""
import math
import sys

import numpy as np
import pytest

import mechdae.simulate.timestepping  # noqa: F401
import mechdae.simulate.unified  # noqa: F401
from conftest import REPO

sys.path.insert(0, str(REPO / "models"))
import ivanov_ball  # noqa: E402
import ivanov_disk  # noqa: E402


@pytest.fixture(scope="module")
def disk():
    return ivanov_disk.build().compile(stabilization=None)


@pytest.fixture(scope="module")
def ball():
    return ivanov_ball.build(mu=0.05, kappa=0.7).compile(stabilization=None)


def test_disk_liftoff_angle_eq_2_14(disk):
    G = 2.0
    w0 = ivanov_disk.spin_for_gamma(G)
    Gm, G1, phi1 = ivanov_disk.gamma_values(phi0_dot=w0)
    assert Gm == pytest.approx(2.0) and G1 == 1.5
    q0, v0 = ivanov_disk.initial_state(phi0_dot=w0)
    res = disk.simulate(1.0, q0=q0, v0=v0, method="unified", dt=1e-3)
    lo = [e for e in res.events if e.kind == "liftoff"][0]
    phi_lo = np.interp(lo.t, res.t, res["phi"])
    assert phi_lo == pytest.approx(phi1, abs=1e-8)        # measured 4e-10
    # the time-stepped disk leaves the support at the same angle (impulse drops to 0)
    ts = disk.simulate(0.5, q0=q0, v0=v0, method="timestepping", dt=1e-5, store_impulses=True,
                       every=1)
    k = np.argmax((ts.impulses[1:, 0] == 0) & (ts.t[1:] > 0.01)) + 1
    assert ts["phi"][k] == pytest.approx(phi1, abs=2e-3)


def test_disk_no_liftoff_below_gamma1(disk):
    """1 <= Gamma <= Gamma_1: full revolutions without leaving the support."""
    w0 = ivanov_disk.spin_for_gamma(1.4)
    q0, v0 = ivanov_disk.initial_state(phi0_dot=w0)
    res = disk.simulate(2.0, q0=q0, v0=v0, method="unified", dt=1e-3)
    assert not [e for e in res.events if e.kind in ("liftoff", "impact")]
    assert np.max(np.abs(res.x[:, 0])) == 0.0              # s stays 0
    assert res["phi"][-1] > res["phi"][0] + 2 * math.pi    # it does rotate
    assert np.ptp(res.energy) < 1e-8 * abs(res.energy[0])  # smooth plane: E conserved (2.11)


def test_disk_lands_with_chatter_and_returns_to_support(disk):
    w0 = ivanov_disk.spin_for_gamma(2.0)
    q0, v0 = ivanov_disk.initial_state(phi0_dot=w0)
    res = disk.simulate(2.5, q0=q0, v0=v0, method="unified", dt=1e-3)
    kinds = [e.kind for e in res.events]
    assert kinds[0] == "liftoff" and "accumulation" in kinds
    imp = [e for e in res.events if e.kind == "impact"]
    assert len(imp) > 10
    assert all(e.energy_after < e.energy_before for e in imp)
    acc = [e.t for e in res.events if e.kind == "accumulation"][0]
    assert np.all(res.x[res.t > acc + 1e-9, 0] == 0) or "liftoff" in kinds[kinds.index("accumulation"):]


@pytest.mark.parametrize("method,dt", [("unified", 1e-3), ("timestepping", 1e-4)])
def test_ball_bounces_kappa_and_quasi_velocities(ball, method, dt):
    kappa, mu, g, rho = 0.7, 0.05, 9.81, 0.1
    res = ball.simulate(4.0, q0={"ball.z": 0.5}, v0={"ball.vx": 1.0, "ball.wx": 60.0},
                        method=method, dt=dt)
    imp = np.array([e.t for e in res.events if e.kind == "impact"])
    t1 = math.sqrt(2 * 0.4 / g)
    assert imp[0] == pytest.approx(t1, abs=1e-9 if method == "unified" else 2 * dt)
    d = np.diff(imp[:7])
    np.testing.assert_allclose(d[1:] / d[:-1], kappa, rtol=1e-6 if method == "unified" else 5e-3)
    # apex heights fall as kappa^2
    h = [res["ball.z"][(res.t > a) & (res.t < b)].max() - rho for a, b in zip(imp[:5], imp[1:6])]
    np.testing.assert_allclose(np.array(h[1:]) / h[:-1], kappa ** 2,
                               rtol=1e-5 if method == "unified" else 1e-2)
    # pi1, pi2, pi3 of (3.7) constant through bounces, sliding and rolling
    pi = ivanov_ball.quasi_velocities(res)
    assert np.max(np.abs(pi - pi[0])) < (1e-6 if method == "unified" else 2e-4)
    # rolling at the end: v = (pi2, -pi1) / (J/rho + m rho)
    c = 0.4 * rho + rho
    assert res["ball.vx"][-1] == pytest.approx(pi[0, 1] / c, rel=1e-4)
    assert res["ball.vy"][-1] == pytest.approx(-pi[0, 0] / c, rel=1e-4)
    # sliding phase after the accumulation: horizontal acceleration -mu g along the slip
    t_inf = t1 + 2 * math.sqrt(2 * g * 0.4) * kappa / (g * (1 - kappa))
    sel = (res.t > t_inf + 0.05) & (res.t < t_inf + 0.5)
    ay = np.polyfit(res.t[sel], res["ball.vy"][sel], 1)[0]
    ax = np.polyfit(res.t[sel], res["ball.vx"][sel], 1)[0]
    assert math.hypot(ax, ay) == pytest.approx(mu * g, rel=1e-3)    # parabola (3.8)
    # then a straight line: constant velocity
    late = res.t > 3.9
    assert np.ptp(res["ball.vy"][late]) < 1e-3 and np.ptp(res["ball.vx"][late]) < 1e-3


def test_ball_end_of_sliding_located_at_closed_form_then_rolls(ball):
    """Unified method: after the accumulation of impacts the contact point slides with
    v_A' = f/m + rho^2 f / J = -mu g (1 + m rho^2 / J) s (s the fixed sliding direction:
    the friction force f = -mu m g s acts at A = G - rho e_z, and (r x f) x r = rho^2 f for
    f normal to r), so sliding ends at t_stick = t_acc + |v_A(t_acc)| / (mu g (1 + m rho^2/J));
    a "stick" event there, then rolling on a straight line at constant velocity."""
    kappa, mu, g, rho, m = 0.7, 0.05, 9.81, 0.1, 1.0
    J = 0.4 * m * rho ** 2
    res = ball.simulate(4.0, q0={"ball.z": 0.5}, v0={"ball.vx": 1.0, "ball.wx": 60.0},
                        method="unified", dt=1e-3)
    t_acc = [e.t for e in res.events if e.kind == "accumulation"][0]
    stick = [e for e in res.events if e.kind == "stick"]
    assert len(stick) == 1
    k = np.flatnonzero(res.t == t_acc)[-1]
    pi = ivanov_ball.quasi_velocities(res)
    vx, vy = res["ball.vx"][k], res["ball.vy"][k]
    wx, wy = (pi[k, 0] + m * rho * vy) / J, (pi[k, 1] - m * rho * vx) / J     # world omega
    vA = math.hypot(vx - rho * wy, vy + rho * wx)
    t_stick = t_acc + vA / (mu * g * (1 + m * rho ** 2 / J))
    assert stick[0].t == pytest.approx(t_stick, abs=1e-6)                # measured 7e-13
    assert np.linalg.norm(stick[0].extra["vt_after"]) < 1e-9
    after = res.t > stick[0].t
    assert np.ptp(res["ball.vx"][after]) < 1e-12 and np.ptp(res["ball.vy"][after]) < 1e-12
    assert np.max(np.abs(pi - pi[0])) < 1e-8
    # rolling velocity (pi2, -pi1) / (J / rho + m rho)
    c = J / rho + m * rho
    assert res["ball.vx"][-1] == pytest.approx(pi[0, 1] / c, rel=1e-8)        # 5e-9
    assert res["ball.vy"][-1] == pytest.approx(-pi[0, 0] / c, rel=1e-8)
