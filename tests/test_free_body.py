"""Torque-free rigid body in space (models/free_body.py): Euler-Poinsot motion.

Checks against physics, computed here independently with numpy/scipy: conservation of
energy and of the world angular momentum, the unit quaternion, uniform motion of the
center, and the intermediate-axis (Dzhanibekov) flip with the period of the elliptic-
function solution (Landau & Lifshitz, Mechanics, sec. 37).
"""

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.special import ellipk
from conftest import model_module


md = pytest.importorskip("mechdae")


# ---------------------------------------------------------------------- reference
def ref_flip_half_period(I, w):
    """Time between sign changes of omega_2 (principal axes, I1 < I2 < I3): 2 K(k) / s."""
    I1, I2, I3 = np.asarray(I, float)
    w = np.asarray(w, float)
    E2 = np.sum(np.array([I1, I2, I3]) * w**2)          # 2 E
    L2 = np.sum((np.array([I1, I2, I3]) * w) ** 2)      # |L|^2
    if L2 < E2 * I2:                                     # rotation about axis 1: swap 1, 3
        I1, I3 = I3, I1
    s = np.sqrt((I3 - I2) * (L2 - E2 * I1) / (I1 * I2 * I3))
    k2 = (I2 - I1) * (E2 * I3 - L2) / ((I3 - I2) * (L2 - E2 * I1))
    return 2.0 * ellipk(k2) / s


def ref_euler_crossings(I, w0, t_final):
    """Sign changes of omega_2 from Euler's equations in principal axes (scipy)."""
    I1, I2, I3 = I

    def rhs(t, w):
        return [(I2 - I3) * w[1] * w[2] / I1, (I3 - I1) * w[2] * w[0] / I2,
                (I1 - I2) * w[0] * w[1] / I3]

    ev = lambda t, w: w[1]  # noqa: E731
    sol = solve_ivp(rhs, (0, t_final), w0, rtol=1e-12, atol=1e-12, events=ev)
    return sol.t_events[0]


def quat_to_R(q):
    q0, q1, q2, q3 = q / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (q2 * q2 + q3 * q3), 2 * (q1 * q2 - q0 * q3), 2 * (q1 * q3 + q0 * q2)],
        [2 * (q1 * q2 + q0 * q3), 1 - 2 * (q1 * q1 + q3 * q3), 2 * (q2 * q3 - q0 * q1)],
        [2 * (q1 * q3 - q0 * q2), 2 * (q2 * q3 + q0 * q1), 1 - 2 * (q1 * q1 + q2 * q2)]])


def test_reference_half_period_matches_euler_integration():
    I, w0 = (1.0, 2.0, 3.0), (0.01, 4.0, 0.02)
    th = ref_flip_half_period(I, w0)
    tc = ref_euler_crossings(I, w0, 3 * th)
    assert np.diff(tc) == pytest.approx(th, rel=1e-8)
    assert th == pytest.approx(5.35091643, rel=1e-7)


# ---------------------------------------------------------------------- mechdae
I_PRINC = (1.0, 2.0, 3.0)
W_PRINC = (0.01, 4.0, 0.02)
TILT = 0.4


@pytest.fixture(scope="module")
def flip_run():
    fb = model_module("free_body")
    model = fb.build(mass=2.0, I1=I_PRINC[0], I2=I_PRINC[1], I3=I_PRINC[2], tilt=TILT)
    sys = model.compile(stabilization=None)
    v0 = dict(fb.spin_near_intermediate_axis(W_PRINC[1], (W_PRINC[0], W_PRINC[2]), TILT))
    v0.update({"b.vx": 0.3, "b.vy": -0.2, "b.vz": 0.1})
    q0 = {"b.q0": np.cos(0.2), "b.q1": np.sin(0.2) * 0.6, "b.q2": np.sin(0.2) * 0.8, "b.q3": 0.0}
    t_final = 12.0
    res = sys.simulate(t_final, q0=q0, v0=v0, output_times=np.linspace(0, t_final, 1201),
                       rtol=1e-11, atol=1e-12)
    return fb, res


def _omega_quat(res):
    om = np.column_stack([res["b.wx"], res["b.wy"], res["b.wz"]])
    qu = np.column_stack([res[f"b.q{i}"] for i in range(4)])
    return om, qu


def test_free_body_energy_and_world_angular_momentum_conserved(flip_run):
    fb, res = flip_run
    J = fb.inertia_tensor(*I_PRINC, tilt=TILT)
    om, qu = _omega_quat(res)
    E = 0.5 * np.einsum("ti,ij,tj->t", om, J, om)
    Lw = np.array([quat_to_R(q) @ (J @ w) for q, w in zip(qu, om)])
    assert np.abs(E / E[0] - 1).max() < 1e-8
    assert np.linalg.norm(Lw - Lw[0], axis=1).max() / np.linalg.norm(Lw[0]) < 1e-8


def test_free_body_quaternion_norm_kept(flip_run):
    _, res = flip_run
    _, qu = _omega_quat(res)
    assert np.abs(np.linalg.norm(qu, axis=1) - 1).max() < 1e-8


def test_free_body_center_moves_uniformly(flip_run):
    _, res = flip_run
    assert np.allclose(res["b.x"], 0.3 * res.t, atol=1e-9)
    assert np.allclose(res["b.y"], -0.2 * res.t, atol=1e-9)


def test_intermediate_axis_flip_period(flip_run):
    """omega . e2 (e2: intermediate principal axis in body axes) changes sign every
    2 K(k)/s = 5.3509 s; the first change at 2.8041 s (scipy Euler integration)."""
    fb, res = flip_run
    om, _ = _omega_quat(res)
    e2 = fb.principal_frame(TILT)[:, 1]
    w2 = om @ e2
    t = res.t
    idx = np.nonzero(np.sign(w2[1:]) != np.sign(w2[:-1]))[0]
    tc = np.array([t[i] - w2[i] * (t[i + 1] - t[i]) / (w2[i + 1] - w2[i]) for i in idx])
    ref = ref_euler_crossings(I_PRINC, W_PRINC, 12.0)
    half = ref_flip_half_period(I_PRINC, W_PRINC)
    assert len(tc) == len(ref) == 2
    assert tc == pytest.approx(ref, abs=2e-3)          # linear interpolation on a 0.01 s grid
    assert tc[1] - tc[0] == pytest.approx(half, rel=1e-3)
