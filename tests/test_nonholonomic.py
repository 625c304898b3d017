"""Chaplygin sleigh (models/chaplygin_sleigh.py): a nonholonomic constraint.

The closed-form solution (Chaplygin; Bloch, Nonholonomic Mechanics and Control, 1.7),
written here independently of mechdae:
    u = U tanh s,  omega = U sqrt(m/J) sech s,  s = s0 + a m U t / J,
    theta = theta0 + J/(a sqrt(m J)) (gd(s) - gd(s0)),
with u the forward speed of the center, J = I + m a^2, U = sqrt(2E/m).
"""

import numpy as np
import pytest
from conftest import model_module

md = pytest.importorskip("mechdae")

M, I, A = 1.3, 0.4, 0.6
U0, W0 = 0.2, 2.5


def ref_sleigh(t, u0=U0, w0=W0, theta0=0.0, m=M, I=I, a=A):
    """Closed-form (u, omega, theta)(t) of the Chaplygin sleigh."""
    J = I + m * a * a
    U = np.sqrt(u0**2 + J * w0**2 / m)
    s0 = np.arctanh(u0 / U)
    s = s0 + a * m * U * t / J
    gd = lambda x: 2 * np.arctan(np.tanh(x / 2))  # noqa: E731
    u = U * np.tanh(s)
    w = U * np.sqrt(m / J) / np.cosh(s)
    th = theta0 + J / (a * np.sqrt(m * J)) * (gd(s) - gd(s0))
    return u, w, th, U


def test_reference_closed_form_satisfies_reduced_equations():
    t = np.linspace(0, 5, 501)
    u, w, th, U = ref_sleigh(t)
    J = I + M * A * A
    du, dw, dth = (np.gradient(x, t, edge_order=2) for x in (u, w, th))
    assert np.allclose(M * du[5:-5], M * A * w[5:-5] ** 2, atol=1e-3)
    assert np.allclose(J * dw[5:-5], -M * A * u[5:-5] * w[5:-5], atol=1e-3)
    assert np.allclose(dth[5:-5], w[5:-5], atol=1e-3)
    assert u[0] == pytest.approx(U0) and w[0] == pytest.approx(W0)


@pytest.fixture(scope="module")
def sleigh():
    cs = model_module("chaplygin_sleigh")
    model = cs.build(m=M, I=I, a=A)
    return cs, model


@pytest.fixture(scope="module")
def sleigh_run(sleigh):
    cs, model = sleigh
    sys = model.compile(stabilization=md.Baumgarte(alpha=5.0, beta=5.0, gamma=5.0))
    T = np.linspace(0, 8, 161)
    res = sys.simulate(8.0, q0={"x": 0.0, "y": 0.0, "theta": 0.0},
                       v0=cs.initial_velocity(U0, W0, 0.0, a=A), output_times=T,
                       rtol=1e-10, atol=1e-12)
    return res


def test_chaplygin_sleigh_matches_closed_form(sleigh_run):
    res = sleigh_run
    th = res["theta"]
    u = res["der(x)"] * np.cos(th) + res["der(y)"] * np.sin(th)
    u_ref, w_ref, th_ref, U = ref_sleigh(res.t)
    assert np.abs(u - u_ref).max() < 1e-6
    assert np.abs(res["der(theta)"] - w_ref).max() < 1e-6
    assert np.abs(th - th_ref).max() < 1e-6
    # the spin is converted into forward motion: straight line with speed U at the end
    assert abs(res["der(theta)"][-1]) < 1e-2 * W0
    assert u[-1] == pytest.approx(U, rel=1e-3)


def test_chaplygin_sleigh_energy_and_constraint(sleigh_run):
    res = sleigh_run
    E = 0.5 * M * (res["der(x)"] ** 2 + res["der(y)"] ** 2) + 0.5 * I * res["der(theta)"] ** 2
    assert np.abs(E / E[0] - 1).max() < 1e-8
    assert np.abs(res.residuals["blade"]).max() < 1e-9
    # the reaction does no work: lam * psi-gradient . u = lam * (psi - b) = 0 on the manifold


def test_chaplygin_sleigh_perturbation_decays_as_designed(sleigh):
    """initialize=False with a sideways slip psi(0) = 0.05: Baumgarte gives
    psi' + gamma psi = 0, so psi(t) = 0.05 exp(-gamma t); without stabilization psi stays."""
    cs, model = sleigh
    v0 = cs.initial_velocity(U0, W0, 0.0, a=A)
    v0["der(y)"] += 0.05                      # psi = cos(0) * dy - ... : +0.05
    T = np.linspace(0, 1.0, 21)
    gamma = 3.0
    sys = model.compile(stabilization=md.Baumgarte(alpha=5.0, beta=5.0, gamma=gamma))
    res = sys.simulate(1.0, q0={"theta": 0.0}, v0=v0, output_times=T, initialize=False,
                       rtol=1e-10, atol=1e-12)
    psi = res.residuals["blade"]
    assert psi[0] == pytest.approx(0.05, rel=1e-12)
    assert np.allclose(psi, 0.05 * np.exp(-gamma * res.t), rtol=1e-5, atol=1e-10)

    sys0 = model.compile(stabilization=None)
    res0 = sys0.simulate(1.0, q0={"theta": 0.0}, v0=v0, output_times=T, initialize=False,
                         rtol=1e-10, atol=1e-12)
    assert np.allclose(res0.residuals["blade"], 0.05, rtol=1e-6)
