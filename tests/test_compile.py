"""compile(): derived M, h, Jacobians, contact kinematics, and compile time."""
import time

import numpy as np
import pytest

import mechdae as md
from _modeling import load


def test_pendulum_standard_form():
    s = load("pendulum").compile()
    t = s.dynamics_terms({"x": 0.6, "y": -0.8}, {"x": 0.8, "y": 0.6}, params={"m": 2.0})
    assert np.allclose(t["M"], 2.0 * np.eye(2))
    assert np.allclose(t["h"], [0.0, -2.0 * 9.81])
    assert np.allclose(t["G"], [[1.2, -1.6]])
    # c = d/dt(G u) at u' = 0 = 2 |u|^2
    assert np.allclose(t["c"], [2.0])


def test_chain_matches_closed_form_mass_matrix():
    s = load("nlink_chain", n=3).compile(None)
    th = np.array([0.3, -0.5, 1.1])
    M = np.array(s.M(th, s.p_defaults))
    # point masses: M_ij = L^2 m (n - max(i, j)) cos(th_i - th_j)
    n = 3
    ref = np.array([[(n - max(i, j)) * np.cos(th[i] - th[j]) for j in range(n)] for i in range(n)])
    assert np.allclose(M, ref)


def test_chain_energy_conserved():
    s = load("nlink_chain", n=5).compile(None)
    res = s.simulate(3.0, q0={"theta1": 1.0, "theta3": -0.5}, rtol=1e-11, atol=1e-13)
    assert res.energy_error() < 1e-8


@pytest.mark.parametrize("n, limit", [(8, 0.5), (30, 2.0)])
def test_chain_compile_time_grows_gently(n, limit):
    t0 = time.perf_counter()
    s = load("nlink_chain", n=n).compile(None)
    elapsed = time.perf_counter() - t0
    assert elapsed < limit, f"n={n}: compile took {elapsed:.3f} s"
    assert s.nq == n


def test_contact_kinematics_of_a_rolling_disk_edge():
    m = md.Model("disk")
    b = m.rigid_body("d", mass=1.0, inertia=0.5, planar=True)
    r = m.parameter("r", 0.5)
    m.potential_energy(9.81 * b.y)
    # contact point below the center: velocity v + w x (0, -r) = (vx + w r, vy)
    m.contact("ground", gap=b.y - r, tangent_velocity=b.vx + r * b.w, restitution=0.5,
              friction=0.3)
    m.contact("wall", gap=2.0 - b.x - r, tangent=b.y)
    s = m.compile()
    assert s.contact_names == ["ground", "wall"]
    assert s.contact_rows == ["ground.n", "ground.t0", "wall.n", "wall.t0"]
    assert s.contact_law("ground")["friction"] == 0.3
    t = s.contact_terms({"d.y": 0.5}, {"d.vx": 1.0, "d.w": 2.0})
    assert np.allclose(t["W"], [[0, 1, 0], [1, 0, 0.5], [-1, 0, 0], [0, 1, 0]])
    assert np.allclose(t["gap"], [0.0, 1.5])
    assert np.allclose(t["Wdot_u"], 0.0)


def test_contact_wdot_u_for_a_rotating_point():
    m = md.Model("bar")
    b = m.rigid_body("b", mass=1.0, inertia=0.1, planar=True)
    tip = b.position((1.0, 0.0))
    m.contact("tip", gap=tip[1], tangent=tip[0])
    s = m.compile()
    th, w = 0.4, 3.0
    t = s.contact_terms({"b.theta": th}, {"b.w": w})
    # tip acceleration at u' = 0: centripetal -w^2 (cos th, sin th)
    assert np.allclose(t["Wdot_u"], [-w ** 2 * np.sin(th), -w ** 2 * np.cos(th)])


def test_parameters_stay_symbolic():
    s = load("pendulum").compile()
    assert s.p_names == ["L", "g", "m"]
    M = s.functions["M"]
    assert M.name_in() == ["q", "p"]
    assert np.allclose(np.array(M([0.0, -1.0], [1.0, 9.81, 3.0])), 3.0 * np.eye(2))


def test_compile_leaves_model_unchanged_and_keeps_parent():
    m = load("pendulum")
    n_before = len(m.holonomic_)
    s = m.compile()
    assert s.parent is m and len(m.holonomic_) == n_before


def test_declared_speed_with_kinematics_projects_lagrange_equations():
    # pendulum angle theta with the tip speed u = L theta' as generalized speed
    m = md.Model("polar")
    th = m.coordinates("theta")
    u = m.speeds("u")
    L = m.parameter("L", 2.0)
    m.kinematics({th: u / L})
    m.kinetic_energy(0.5 * 3.0 * L ** 2 * md.der(th) ** 2)
    m.potential_energy(-3.0 * 9.81 * L * md.cos(th))
    s = m.compile()
    assert s.u_names == ["u"]
    t = s.dynamics_terms({"theta": 0.7}, {"u": 1.3})
    assert np.allclose(t["M"], [[3.0]])
    assert np.allclose(t["h"], [-3.0 * 9.81 * np.sin(0.7)])
    res = s.simulate(2.0, q0={"theta": 0.7}, rtol=1e-11, atol=1e-13)
    assert res.energy_error() < 1e-9
    assert np.allclose(res.evaluate(md.der(th)), res["u"] / 2.0)
