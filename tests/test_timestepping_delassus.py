"""The Moreau-Jean C loop assembles its own Delassus matrix; one step cross-checked against
:func:`mechdae.contact.assembly.contact_problem` on a model with a bilateral constraint and
a frictional contact: a pendulum (Cartesian, rod constraint) whose bob, a free-spinning disk,
hits a vertical wall.

With no velocity-dependent forces (``dh/du = 0``, ``dh/dq = 0``) the iteration matrix is
``M`` and one step reads

    [M  C^T] [u_free - u_k]   [dt h    ]
    [C  0  ] [Lambda      ] = [-C u_k  ],   u_{k+1} = u_free + B P,

    P: the impact law (e_n, e_t, mu) on the contact velocity c = W u_free + e W u_k, whose
       contact-space matrix is D = W M_c^-1 W^T (M_c^-1: inverse restricted to C u = 0),

so the step's impulse and speeds follow from ``contact_problem``'s ``M, h, C, W, D, B``.
"""
import math

import numpy as np
import pytest

import mechdae as md
from mechdae.contact.assembly import contact_problem
from mechdae.contact.kernels import impact

L, R, XW = 1.0, 0.1, 0.6


def pendulum_at_wall():
    m = md.Model("pendulum_wall")
    x, y, th = m.coordinates("x y th")
    mass = m.parameter("m", 1.0)
    g = m.parameter("g", 9.81)
    J = 0.5 * mass * R ** 2
    m.kinetic_energy(0.5 * mass * (md.der(x) ** 2 + md.der(y) ** 2) + 0.5 * J * md.der(th) ** 2)
    m.potential_energy(mass * g * y)
    m.holonomic(x ** 2 + y ** 2 - L ** 2, name="rod")
    e = m.parameter("e", 0.5)
    mu = m.parameter("mu", 0.3)
    # disk touching the wall x = XW at its rightmost point: velocity (x', y' + R th')
    m.contact("wall", gap=XW - R - x, tangent=y + R * th, restitution=e, friction=mu)
    return m.compile(stabilization=None)


@pytest.fixture(scope="module")
def sys_():
    return pendulum_at_wall()


def _state(w, spin):
    x = XW - R
    y = -math.sqrt(L ** 2 - x ** 2)
    return np.array([x, y, 0.0]), np.array([-y * w, x * w, spin])


@pytest.mark.parametrize("w, spin, params, mode", [
    (2.0, 0.0, {}, "stick"),                     # P_t / P_n = 0.069 < mu = 0.3
    (2.0, -40.0, {}, "slide"),                   # spin: P_t = +mu P_n
    (2.0, 40.0, {"e": 0.2, "mu": 0.1}, "slide"),  # P_t = -mu P_n
    (2.0, 0.0, {"mu": 5.0, "e": 0.2}, "stick"),
])
def test_one_step_matches_contact_problem(sys_, w, spin, params, mode):
    dt = 1e-3
    q, u = _state(w, spin)
    res = sys_.simulate(dt, q0=q, v0=u, params=params, method="timestepping", dt=dt,
                        theta=0.5, initialize=False, projection="none",
                        store_impulses=True)
    assert res.stats["steps"] == 1
    u1 = res.v[-1]
    P_step = res.impulses[-1]                           # (P_n, P_t) of "wall"
    prob = contact_problem(sys_, q, u, active=["wall"], params=params)
    assert prob.dim == 2 and prob.C.shape == (1, 3)
    M, h, C, W = prob.M, prob.h, prob.C, prob.W
    # u_free: the smooth part of the step, with C u = 0
    K = np.block([[M, C.T], [C, np.zeros((1, 1))]])
    sol = np.linalg.solve(K, np.concatenate([dt * h, -C @ u]))
    u_free = u + sol[:3]
    # D from contact_problem is the constrained Delassus matrix (checked independently)
    Mi = np.linalg.inv(M)
    Mc = Mi - Mi @ C.T @ np.linalg.solve(C @ Mi @ C.T, C @ Mi)
    np.testing.assert_allclose(prob.D, W @ Mc @ W.T, rtol=1e-9, atol=1e-12)   # measured 3e-12 (regularized solve)
    np.testing.assert_allclose(prob.B, Mc @ W.T, rtol=1e-9, atol=1e-12)   # measured 3e-12 (regularized solve)
    # the one-step impact law on c = W u_free + e W u_k
    e_n, e_t, mu = prob.e_n[0], prob.e_t[0], prob.mu[0]
    c = W @ u_free + np.array([e_n, e_t]) * (W @ u)
    v_fake = c / (1.0 + np.array([e_n, e_t]))
    out = impact(prob.D, v_fake, e_n=e_n, e_t=e_t, mu=mu, dim=2)
    np.testing.assert_allclose(P_step, out.P, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(u1, u_free + prob.B @ out.P, rtol=1e-9, atol=1e-12)
    # Coulomb and Newton on the step: P_n > 0, |P_t| <= mu P_n, v_n+ = -e v_n- (+ dt g part)
    Pn, Pt = P_step
    assert Pn > 0 and abs(Pt) <= mu * Pn * (1 + 1e-12)
    vn1 = (W @ u1)[0]
    assert vn1 + e_n * (W @ u)[0] == pytest.approx(0.0, abs=1e-10)
    vt1 = (W @ u1)[1] + e_t * (W @ u)[1]
    assert (abs(Pt) < mu * Pn * (1 - 1e-9)) == (mode == "stick")
    if mode == "stick":
        assert abs(vt1) < 1e-10                          # sticking
    else:
        assert vt1 * Pt < 0                              # sliding against the impulse
    # and the bilateral constraint holds at velocity level after the step
    assert abs((C @ u1)[0]) < 1e-10                     # measured 6e-12
