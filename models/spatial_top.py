r"""Heavy symmetric top on a fixed point, built from spatial multibody components.

``world`` (gravity ``g`` along -z) -> ``pivot`` (``sp.Spherical``: orientation as a
quaternion, angular velocity in the top's axes as speeds, no gimbal lock) -> ``top``
(``sp.Body``: mass ``M``, center of mass at ``l`` along the top's symmetry axis e_3,
moments of inertia ``A`` (transverse) and ``C`` (axial) about the center of mass).

Steady precession (Lagrange top): tilt ``theta`` from the vertical, precession rate
``Omega`` about the world z axis and spin component ``omega_3`` about the symmetry axis
satisfy

.. math::

    M g l = \Omega \left(C \omega_3 - A_o \Omega \cos\theta\right),
    \qquad A_o = A + M l^2 ,

(``A_o`` the transverse moment about the fixed point). ``SIMULATION`` starts the top on
that motion: tilted by ``theta`` about the world x axis, with the body angular velocity
``Omega e_z`` (resolved in the top's axes) plus the spin that the relation gives; the
tests check that the tilt stays constant and the precession rate is ``Omega``, and the
gyroscopic limit ``Omega -> M g l / (C omega_3)`` for a fast top.
"""
import math

import mechdae as md
from mechdae.components import spatial as sp

THETA, OMEGA = 0.4, 3.0                  # tilt (rad) and precession rate (rad/s)


def steady_precession(theta=THETA, Omega=OMEGA, M=1.0, l=0.1, A=0.002, C=0.004, g=9.81):
    """Body angular velocity ``(wx, wy, wz)`` (top axes) of steady precession at tilt
    ``theta`` (about world x) and rate ``Omega``."""
    w3 = (M * g * l + (A + M * l * l) * Omega ** 2 * math.cos(theta)) / (C * Omega)
    return (0.0, Omega * math.sin(theta), w3)


_W = steady_precession()

SIMULATION = dict(
    t_final=2 * math.pi / OMEGA,           # one precession period
    v0={"pivot.wx": _W[0], "pivot.wy": _W[1], "pivot.wz": _W[2]},
    stabilization=None,
    rtol=1e-10,
    atol=1e-10,
    plot=["top.r_cm_0[1]", "top.r_cm_0[2]", "top.r_cm_0[3]"],
)


def build(M=1.0, l=0.1, A=0.002, C=0.004, g=9.81, theta=THETA):
    """Build the top; ``theta`` is the initial tilt about the world x axis."""
    m = md.Model("spatial_top")
    world = m.add(sp.World("world", g=g))
    pivot = m.add(sp.Spherical("pivot", n=(1.0, 0.0, 0.0), angle0=theta))
    top = m.add(sp.Body("top", m=M, I=(A, A, C), r_cm=(0.0, 0.0, l)))
    m.connect(world.frame, pivot.frame_a)
    m.connect(pivot.frame_b, top.frame_a)
    return m
