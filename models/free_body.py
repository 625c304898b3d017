"""Torque-free rigid body in space (Euler-Poinsot motion) and the intermediate-axis flip.

Source: Euler's equations of a free rigid body, e.g. L. D. Landau, E. M. Lifshitz,
Mechanics, sec. 37 (solution in Jacobi elliptic functions); the "Dzhanibekov effect" is
the instability of rotation about the axis of the intermediate principal moment.

Body
    mass ``mass``; inertia tensor about the center in body axes
    ``J = R0 diag(I1, I2, I3) R0^T`` with I1 < I2 < I3 and R0 a fixed rotation
    (angles ``tilt`` about body z then y), so J is a full tensor with products of inertia.
Coordinates
    center x, y, z and the unit quaternion q0..q3 (created by ``rigid_body``)
Speeds
    world velocity of the center vx, vy, vz; angular velocity in body axes wx, wy, wz
Energies
    T = 1/2 mass |v|^2 + 1/2 omega^T J omega,  V = 0  (no forces, no constraints)
Equations (derived by compile)
    mass v' = 0,   J omega' + omega x J omega = 0 (Euler),   q' = 1/2 q * (0, omega).
Invariants
    energy, world angular momentum ``R J omega``, |q| = 1.

Flip: started with omega mostly along the intermediate principal axis e2 = R0[:, 1], the
component ``e2 . omega`` changes sign periodically; in principal axes omega_2 ~ sn(tau, k)
with tau = t sqrt((I3 - I2)(L^2 - 2 E I1) / (I1 I2 I3)),
k^2 = (I2 - I1)(2 E I3 - L^2) / ((I3 - I2)(L^2 - 2 E I1)) (for L^2 > 2 E I2; swap 1 and 3
otherwise), so the sign changes every 2 K(k) in tau.
"""
import math

import numpy as np

import mechdae as md


def principal_frame(tilt=0.4):
    """The fixed rotation R0 (body axes <- principal axes): Rz(tilt) Ry(tilt/2)."""
    a, b = tilt, tilt / 2
    Rz = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    Ry = np.array([[math.cos(b), 0, math.sin(b)], [0, 1, 0], [-math.sin(b), 0, math.cos(b)]])
    return Rz @ Ry


def inertia_tensor(I1=1.0, I2=2.0, I3=3.0, tilt=0.4):
    """Full inertia tensor ``R0 diag(I1, I2, I3) R0^T`` (kg m^2)."""
    R0 = principal_frame(tilt)
    return R0 @ np.diag([I1, I2, I3]) @ R0.T


def build(mass=1.0, I1=1.0, I2=2.0, I3=3.0, tilt=0.4):
    """A free rigid body with a full inertia tensor (no forces).

    Parameters
    ----------
    mass : float
        Mass (kg).
    I1, I2, I3 : float
        Principal moments of inertia (kg m^2).
    tilt : float
        Angle (rad) of the principal frame in body axes; 0 gives a diagonal tensor.

    Returns
    -------
    mechdae.Model
        One spatial rigid body ``"b"``.
    """
    mod = md.Model("free_body")
    mod.rigid_body("b", mass=mass, inertia=inertia_tensor(I1, I2, I3, tilt), planar=False)
    return mod


def spin_near_intermediate_axis(w=4.0, eps=(0.01, 0.02), tilt=0.4):
    """Body-axis angular velocity ``R0 (eps1, w, eps2)``: a spin about e2, slightly off.

    Returns
    -------
    dict
        ``{"b.wx": ..., "b.wy": ..., "b.wz": ...}``
    """
    om = principal_frame(tilt) @ np.array([eps[0], w, eps[1]])
    return {"b.wx": om[0], "b.wy": om[1], "b.wz": om[2]}


# `mechdae run models/free_body.py`: three flips of the intermediate axis (period ~10.7 s).
SIMULATION = dict(
    t_final=20.0,
    v0=dict(spin_near_intermediate_axis(), **{"b.vx": 0.1}),
    stabilization=None,
)
