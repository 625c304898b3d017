"""Moreau-Jean time stepping (method="timestepping"): Siconos BouncingBallTS reference."""
import numpy as np
import pytest

import mechdae as md
import mechdae.simulate.timestepping  # noqa: F401  (registers the method)


def siconos_ball(e=0.9):
    """Siconos BouncingBallTS: M = diag(m, m, 2/5 m R^2), g on dof 0, gap = q0."""
    m = md.Model("siconos_ball")
    x, y, th = m.coordinates("q0 q1 q2")
    mass, R, g = 1.0, 0.1, 9.81
    m.kinetic_energy(0.5 * mass * (md.der(x) ** 2 + md.der(y) ** 2)
                     + 0.5 * (0.4 * mass * R ** 2) * md.der(th) ** 2)
    m.potential_energy(mass * g * x)
    m.contact("floor", gap=x, restitution=e)
    return m.compile(stabilization=None)


def test_siconos_bouncing_ball_ts_reference(peerdata):
    ref = np.loadtxt(peerdata / "siconos-tutorials/examples/mechanics/BouncingBall/"
                     "BouncingBallTS.ref", skiprows=1)
    res = siconos_ball().simulate(10.0, q0={"q0": 1.0}, method="timestepping", dt=0.005,
                                  theta=0.5, store_impulses=True)
    assert res.t.size == ref.shape[0] == 2001
    assert res.stats["steps"] == 2000
    np.testing.assert_allclose(res.t, ref[:, 0], atol=1e-12)
    np.testing.assert_allclose(res["q0"], ref[:, 1], atol=1e-10)     # measured 3e-15
    np.testing.assert_allclose(res["der(q0)"], ref[:, 2], atol=1e-10)  # measured 2e-14
    np.testing.assert_allclose(res.impulses[:, 0], ref[:, 3], atol=1e-10)
    # first impact at t = 0.455: v+ = -e v- exactly, p = v+ - v- + m g h
    ev = res.events[0]
    assert ev.kind == "impact" and ev.contact == "floor" and ev.t == pytest.approx(0.455)
    assert ev.impulse[0] == pytest.approx(8.4366, abs=1e-12)
    # resting: per-step impulse m g h
    assert res.impulses[-1, 0] == pytest.approx(9.81 * 0.005, rel=1e-12)


def test_restitution_exact_apex_ratio():
    """Apex heights of the time-stepped ball fall by e^2 (up to O(dt))."""
    res = siconos_ball(e=0.8).simulate(3.0, q0={"q0": 1.0}, method="timestepping", dt=1e-5)
    ti = [e.t for e in res.events[:5]]
    apex = [res["q0"][(res.t > a) & (res.t < b)].max() for a, b in zip(ti[:-1], ti[1:])]
    np.testing.assert_allclose(np.array(apex[1:]) / apex[:-1], 0.64, rtol=1e-3)
    assert apex[0] == pytest.approx(0.64, rel=1e-3)


def test_python_fallback_same_numbers():
    s = siconos_ball()
    a = s.simulate(0.6, q0={"q0": 1.0}, method="timestepping", dt=0.005, compiled=False)
    b = s.simulate(0.6, q0={"q0": 1.0}, method="timestepping", dt=0.005)
    assert not a.stats["compiled"] and b.stats["compiled"]
    np.testing.assert_allclose(a.q, b.q, atol=1e-14)


def test_bad_options():
    s = siconos_ball()
    with pytest.raises(ValueError, match="theta"):
        s.simulate(1.0, method="timestepping", theta=0.2)
    with pytest.raises(ValueError, match="projection"):
        s.simulate(1.0, method="timestepping", projection="foo")


def test_pendulum_bilateral_projection_keeps_rod_length():
    """Holonomic constraint enforced at velocity level, drift removed by projection."""
    m = md.Model("pend")
    x, y = m.coordinates("x y")
    m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2))
    m.potential_energy(9.81 * y)
    m.holonomic(x ** 2 + y ** 2 - 1.0, name="rod")
    m.contact("wall", gap=x + 0.5, restitution=1.0)
    s = m.compile(stabilization=None)
    res = s.simulate(3.0, q0={"x": 1.0, "y": 0.0}, method="timestepping", dt=1e-3)
    r = np.hypot(res["x"], res["y"])
    assert np.max(np.abs(r - 1.0)) < 1e-10
    assert np.min(res["x"]) > -0.5 - 0.02            # the wall holds (O(dt) penetration)
    assert any(e.kind == "impact" for e in res.events)
