r"""``Modelica.Mechanics.MultiBody.Examples.Elementary.Pendulum``: a simple pendulum with
one revolute joint, one body and a bearing damper.

MSL's model: ``world`` (uniform gravity ``g = 9.81`` m/s^2 along -y), an actuated revolute
joint ``rev`` about ``n = {0, 0, 1}`` (the plane normal) whose ``axis`` and ``bearing``
flanges carry a rotational ``damper`` (``d = 0.1`` N m s/rad), and a ``body``
(``m = 1`` kg, center of mass at ``r_CM = {0.5, 0, 0}`` m from ``frame_a``, MSL's default
inertia ``I_11 = I_22 = I_33 = 0.001`` kg m^2 about the center of mass). The joint starts at
``phi = 0`` (the rod horizontal, along the world x axis) with ``w = 0``; MSL's experiment:
``StopTime = 5`` s.

Adaptations to the planar library (the motion is planar: the axis is the plane normal and
gravity lies in the plane):

- the spatial ``Body`` becomes a ``pl.BodyShape`` with ``r = r_cm = r_CM`` (its
  ``frame_b`` is the center of mass, a convenience for plots; MSL's Body has no frame_b),
  and its inertia tensor reduces to ``I_33``, the one about the plane normal;
- ``ActuatedRevolute`` / ``Revolute(useAxisFlange=true)`` is ``pl.Revolute(...,
  useAxisFlange=True)``; its ``support`` flange plays MSL's ``bearing`` (fixed in the
  world, as the revolute's frame_a is the world frame here).

With ``J = I_33 + m r^2`` (about the pivot) and ``phi`` measured from the x axis:

.. math::

    J \ddot\varphi = -m g r \cos\varphi - d \dot\varphi ,

the ODE the tests solve with scipy and compare with the simulation; the energy
``T + V`` decreases by the damper's dissipation ``\int d \dot\varphi^2 dt``, and at rest
(hanging, ``phi = -pi/2``) the joint carries the weight ``m g``.
"""
import math

import mechdae as md
from mechdae.components import planar as pl
from mechdae.components import rotational as rot

SIMULATION = dict(
    t_final=5.0,                                  # MSL experiment(StopTime=5)
    q0={"rev.phi": 0.0},                          # phi(fixed=true) at its start 0
    v0={"rev.w": 0.0},                            # w(fixed=true) at 0
    method="auto",
    stabilization=None,                           # a tree: no constraint
    plot=["rev.phi", "rev.w", "body.frame_b.x", "body.frame_b.y"],
)


def build(m=1.0, r_CM=(0.5, 0.0), I_33=0.001, d=0.1, g=9.81, phi0=0.0, w0=0.0):
    """Build MSL's Pendulum; keyword arguments are the MSL parameters (``I_33`` the body's
    inertia about the plane normal) and the joint's start values."""
    model = md.Model("msl_multibody_pendulum")
    world = model.add(pl.World("world", g=g))
    rev = model.add(pl.Revolute("rev", phi0=phi0, w0=w0, useAxisFlange=True))
    damper = model.add(rot.Damper("damper", d=d))
    body = model.add(pl.BodyShape("body", r=tuple(r_CM), r_cm=tuple(r_CM), m=m, I=I_33))
    model.connect(world.frame, rev.frame_a)
    model.connect(damper.flange_b, rev.axis)
    model.connect(rev.support, damper.flange_a)
    model.connect(body.frame_a, rev.frame_b)
    return model


def pendulum_rhs(m=1.0, r=0.5, I_33=0.001, d=0.1, g=9.81):
    """Right-hand side ``f(t, [phi, w])`` of the pendulum ODE (for scipy)."""
    J = I_33 + m * r ** 2

    def f(t, y):
        return [y[1], (-m * g * r * math.cos(y[0]) - d * y[1]) / J]
    return f
