"""Constraint perturbations follow the designed linear dynamics (Baumgarte, Mukharlyamov)."""
import numpy as np
from scipy.linalg import expm

import mechdae as md
from _modeling import load, knife_edge


def _pendulum_off_manifold(stab):
    s = load("pendulum").compile(stabilization=stab)
    # off the manifold: phi0 = 1.1^2 - 1 = 0.21, phi0' = 2 x x' = 2*1.1*0.3
    return s, s.simulate(2.0, q0={"x": 1.1, "y": 0.0}, v0={"x": 0.3, "y": 0.5},
                         initialize=False, rtol=1e-11, atol=1e-13)


def test_baumgarte_drift_follows_damped_oscillator():
    alpha, beta = 2.0, 3.0
    s, res = _pendulum_off_manifold(md.Baumgarte(alpha=alpha, beta=beta))
    t = res.t
    p0, pd0 = 0.21, 2 * 1.1 * 0.3
    wd = np.sqrt(beta ** 2 - alpha ** 2)
    exact = np.exp(-alpha * t) * (p0 * np.cos(wd * t) + (pd0 + alpha * p0) / wd * np.sin(wd * t))
    assert np.max(np.abs(res.residuals["rod"] - exact)) < 1e-8
    assert abs(res.residuals["rod"][-1]) < 0.05 * p0


def test_no_stabilization_drift_grows_linearly():
    s, res = _pendulum_off_manifold(None)
    exact = 0.21 + 2 * 1.1 * 0.3 * res.t          # phi'' = 0
    assert np.max(np.abs(res.residuals["rod"] - exact)) < 1e-7
    assert res.residuals["rod"][-1] > 1.5


def test_mukharlyamov_non_diagonal_gains_on_double_pendulum():
    H = np.array([[-9.0, 2.0], [1.0, -16.0]])
    K = np.array([[-6.0, 1.0], [-0.5, -8.0]])
    s = load("double_pendulum").compile(stabilization=md.Mukharlyamov(H, K))
    q0 = {"x1": 1.05, "y1": 0.0, "x2": 2.0, "y2": 0.1}
    v0 = {"x1": 0.1, "y1": 0.2, "x2": -0.3, "y2": 0.4}
    res = s.simulate(2.0, q0=q0, v0=v0, initialize=False, rtol=1e-11, atol=1e-13)
    terms = s.dynamics_terms(q0, v0)
    Y0 = np.concatenate([terms["phi"], terms["G"] @ s.state_arrays(q0, v0)[1]])
    A = np.block([[np.zeros((2, 2)), np.eye(2)], [H, K]])
    exact = np.array([(expm(A * t) @ Y0)[:2] for t in res.t])
    got = np.column_stack([res.residuals["rod1"], res.residuals["rod2"]])
    assert np.max(np.abs(got - exact)) < 1e-7
    # and the same System accepts Baumgarte at simulate time without recompiling
    res2 = s.simulate(2.0, q0=q0, v0=v0, initialize=False, stabilization=md.Baumgarte(3.0, 3.0),
                      rtol=1e-11, atol=1e-13)
    p0, pd0 = Y0[0], Y0[2]
    crit = (p0 + (pd0 + 3.0 * p0) * res2.t) * np.exp(-3.0 * res2.t)   # critically damped
    assert np.max(np.abs(res2.residuals["rod1"] - crit)) < 1e-7


def test_nonholonomic_perturbation_decays_exponentially():
    gamma = 4.0
    m, b = knife_edge()
    s = m.compile(stabilization=md.Baumgarte(alpha=1.0, gamma=gamma))
    res = s.simulate(1.5, q0={"b.theta": 0.3}, v0={"b.vx": 1.0, "b.vy": 0.5, "b.w": 0.7},
                     initialize=False, rtol=1e-11, atol=1e-13)
    psi0 = -np.sin(0.3) * 1.0 + np.cos(0.3) * 0.5
    exact = psi0 * np.exp(-gamma * res.t)
    assert np.max(np.abs(res.residuals["skate"] - exact)) < 1e-8


def test_redundant_constraint_rank_drop_reported_and_reaction_unique():
    base = load("pendulum")
    x, y = base["x"], base["y"]
    base.holonomic(2 * (x ** 2 + y ** 2 - 1.0), name="rod_again")   # same constraint twice
    s = base.compile(stabilization=md.Baumgarte(10.0, 10.0))
    assert s.constraint_rank({"x": 1.0, "y": 0.0}) == 1
    res = s.simulate(2.0, q0={"x": 1.0, "y": 0.0}, rtol=1e-10, atol=1e-12)
    assert res.stats["rank_drops"] == res.t.size
    ref = load("pendulum").compile(stabilization=md.Baumgarte(10.0, 10.0)).simulate(
        2.0, q0={"x": 1.0, "y": 0.0}, rtol=1e-10, atol=1e-12)
    assert np.max(np.abs(res.q - ref.q)) < 1e-6
    # generalized reaction G^T lam: 2 (x, y) (lam1 + 2 lam2), equal to the single-rod one
    lam_eff = res.multipliers["rod"] + 2 * res.multipliers["rod_again"]
    assert np.all(np.isfinite(lam_eff))
    assert np.max(np.abs(lam_eff - ref.multipliers["rod"])) < 1e-5
    # minimum norm: lam2 = 2 lam1
    assert np.max(np.abs(res.multipliers["rod_again"] - 2 * res.multipliers["rod"])) < 1e-5


def test_projection_keeps_constraints_at_output_points():
    s = load("pendulum").compile(stabilization=[None, md.Projection()])
    res = s.simulate(3.0, q0={"x": 1.0, "y": 0.0}, rtol=1e-6, atol=1e-8,
                     output_times=np.linspace(0, 3, 61))
    assert res.max_drift() < 1e-12
