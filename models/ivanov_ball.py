"""Spinning ball thrown at an angle onto a rough horizontal plane (Ivanov 1993, seed 003, §3).

A homogeneous ball (radius ``rho``, mass ``m``, moment of inertia ``J = 2/5 m rho^2`` about
any diameter) is a spatial rigid body; the contact point is ``A = G - rho e_z``, its velocity
``v(A) = v(G) + omega x GA = (x' - rho w_y, y' + rho w_x, z')`` (world components). Newton
restitution ``kappa`` on the normal velocity, Coulomb friction ``mu``:

    T = m |v|^2 / 2 + J |omega|^2 / 2,   Pi = m g z,   gap q = z - rho >= 0.

The quasi-velocities of (3.7), the angular momentum about the contact point,

    pi1' = J w_x - m rho y',   pi2' = J w_y + m rho x',   pi3' = J w_z,

are constant during the whole motion (flights, impacts with friction, sliding, rolling).
The vertical motion is independent of the rest (F = -g): bounce heights fall as kappa^2 and
flight durations as kappa; after the accumulation of impacts the ball slides with the
horizontal acceleration -mu g (cos beta, sin beta) (the parabola (3.8)) and then rolls along
a straight line. ``beta`` is the (constant) direction of the sliding velocity.
"""
import mechdae as md

SIMULATION = dict(t_final=2.0, q0={"ball.z": 0.5}, v0={"ball.vx": 1.0, "ball.vz": 0.0,
                                                      "ball.wx": 20.0},
                  method="timestepping", plot=["ball.x", "ball.y", "ball.z"])


def build(m=1.0, rho=0.1, g=9.81, kappa=0.7, mu=0.3):
    """Build the ball; keyword arguments are defaults (kappa, mu are fixed numbers)."""
    model = md.Model("ivanov_ball")
    mass = model.parameter("m", m)
    rho_ = model.parameter("rho", rho)
    g_ = model.parameter("g", g)
    J = 0.4 * mass * rho_ ** 2
    b = model.rigid_body("ball", mass=mass, inertia=[J, J, J])
    model.potential_energy(mass * g_ * b.z)
    w = b.omega_world
    vA = [b.v[0] - rho_ * w[1], b.v[1] + rho_ * w[0]]
    model.contact("plane", gap=b.z - rho_, tangent_velocity=vA, restitution=kappa,
                  friction=mu)
    return model


def quasi_velocities(res, m=1.0, rho=0.1):
    """``(pi1', pi2', pi3')`` of (3.7) along a Result (world angular velocity)."""
    import numpy as np
    q = np.column_stack([res[f"ball.q{i}"] for i in range(4)])
    wb = np.column_stack([res["ball.wx"], res["ball.wy"], res["ball.wz"]])
    q0, q1, q2, q3 = q.T / np.linalg.norm(q, axis=1)
    R = np.empty((q.shape[0], 3, 3))
    R[:, 0] = np.column_stack([1 - 2 * (q2**2 + q3**2), 2 * (q1*q2 - q0*q3), 2 * (q1*q3 + q0*q2)])
    R[:, 1] = np.column_stack([2 * (q1*q2 + q0*q3), 1 - 2 * (q1**2 + q3**2), 2 * (q2*q3 - q0*q1)])
    R[:, 2] = np.column_stack([2 * (q1*q3 - q0*q2), 2 * (q2*q3 + q0*q1), 1 - 2 * (q1**2 + q2**2)])
    w = np.einsum("nij,nj->ni", R, wb)
    J = 0.4 * m * rho ** 2
    return np.column_stack([J * w[:, 0] - m * rho * res["ball.vy"],
                            J * w[:, 1] + m * rho * res["ball.vx"], J * w[:, 2]])
