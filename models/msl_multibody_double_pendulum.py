r"""``Modelica.Mechanics.MultiBody.Examples.Elementary.DoublePendulum``: a double pendulum
of two steel boxes on two revolute joints, with a bearing damper on the first joint.

MSL's model: ``world`` (``g = 9.81`` m/s^2 along -y); ``revolute1`` (an actuated revolute
about MSL's default axis ``n = {0, 0, 1}``) whose ``axis`` and ``bearing`` carry a rotational
``damper`` (``d = 0.1`` N m s/rad); ``boxBody1`` (``BodyBox``, ``r = {0.5, 0, 0}``,
``width = 0.06`` m); ``revolute2`` (undamped); ``boxBody2`` (the same box). Both joints start
at ``phi = 0``, ``w = 0`` (both boxes horizontal, along the world x axis); MSL's experiment:
``StopTime = 3`` s.

Adaptations to the planar library (both axes are the plane normal, gravity in the plane):

- each ``BodyBox`` becomes a ``pl.BodyShape`` whose mass and inertia are computed from its
  MSL dimensions and MSL's default steel density ``density = 7700`` kg/m^3: ``length =
  |r| = 0.5`` m along x, ``width = 0.06`` m along y (MSL's ``widthDirection = {0, 1, 0}``),
  ``height = width`` = 0.06 m along z, no hole (``innerWidth = innerHeight = 0``):
  ``m = density length width height = 13.86`` kg, center of mass ``r_cm = r/2``, and of the
  inertia tensor only the part about the plane normal, ``I = m (length^2 + width^2)/12 =
  0.2929`` kg m^2 (about the center of mass);
- ``ActuatedRevolute`` is ``pl.Revolute(..., useAxisFlange=True)`` (``support`` = MSL's
  ``bearing``); joint angles as in MSL: ``revolute1.phi`` from the world x axis,
  ``revolute2.phi`` relative to the first box.

With absolute angles ``th1 = phi1``, ``th2 = phi1 + phi2`` the Lagrange equations
(:func:`double_pendulum_rhs`) are those of two rigid bodies (``m_i``, ``I_i``, center at
``a_i = L_i/2``) with the joint torque ``-d phi1'`` on ``th1``; the tests solve them with
scipy and compare, check that the energy falls by the damper's dissipation
``\int d \dot\varphi_1^2 dt`` and, for ``d = 0``, is conserved; with point masses
(``I = 0``, ``r_cm = r``) the model equals models/planar_double_pendulum.py.
"""
import math

import numpy as np

import mechdae as md
from mechdae.components import planar as pl
from mechdae.components import rotational as rot

SIMULATION = dict(
    t_final=3.0,                                  # MSL experiment(StopTime=3)
    q0={"revolute1.phi": 0.0, "revolute2.phi": 0.0},
    v0={"revolute1.w": 0.0, "revolute2.w": 0.0},
    method="auto",
    stabilization=None,                           # a tree: no constraint
    plot=["revolute1.phi", "revolute2.phi", "boxBody2.frame_b.x", "boxBody2.frame_b.y"],
)


def box_properties(r=(0.5, 0.0), width=0.06, height=None, density=7700.0):
    """Mass, center of mass and inertia about the plane normal (at the center) of an MSL
    ``BodyBox`` from ``frame_a`` to ``r`` (``height`` defaults to ``width``, as in MSL)."""
    height = width if height is None else height
    length = math.hypot(*r)
    m = density * length * width * height
    I = m * (length ** 2 + width ** 2) / 12.0
    return m, (r[0] / 2.0, r[1] / 2.0), I


def build(d=0.1, r=(0.5, 0.0), width=0.06, height=None, density=7700.0, g=9.81,
          point_masses=None):
    """Build MSL's DoublePendulum; keyword arguments are the MSL parameters (both boxes
    alike). ``point_masses=(m1, m2)`` replaces the boxes by point masses at ``r`` (for the
    comparison with models/planar_double_pendulum.py)."""
    model = md.Model("msl_multibody_double_pendulum")
    world = model.add(pl.World("world", g=g))
    revolute1 = model.add(pl.Revolute("revolute1", useAxisFlange=True))
    damper = model.add(rot.Damper("damper", d=d))
    bodies = []
    for k in (1, 2):
        if point_masses is None:
            mk, rcm, Ik = box_properties(r, width, height, density)
        else:
            mk, rcm, Ik = point_masses[k - 1], tuple(r), 0.0
        bodies.append(pl.BodyShape(f"boxBody{k}", r=tuple(r), r_cm=rcm, m=mk, I=Ik))
    boxBody1, boxBody2 = (model.add(b) for b in bodies)
    revolute2 = model.add(pl.Revolute("revolute2"))
    model.connect(damper.flange_b, revolute1.axis)
    model.connect(revolute1.support, damper.flange_a)
    model.connect(revolute1.frame_b, boxBody1.frame_a)
    model.connect(revolute2.frame_b, boxBody2.frame_a)
    model.connect(boxBody1.frame_b, revolute2.frame_a)
    model.connect(world.frame, revolute1.frame_a)
    return model


def double_pendulum_rhs(m1, m2, I1, I2, a1, a2, L1, d=0.0, g=9.81):
    """Right-hand side ``f(t, [th1, th2, w1, w2])`` (absolute angles from the x axis) of two
    rigid bodies on revolutes: body k has mass ``m_k``, inertia ``I_k`` about its center at
    ``a_k`` along its rod, joint 2 at ``L1`` along rod 1, a damper ``d`` on joint 1."""
    def f(t, y):
        th1, th2, w1, w2 = y
        c, s = math.cos(th1 - th2), math.sin(th1 - th2)
        M = np.array([[I1 + m1 * a1 ** 2 + m2 * L1 ** 2, m2 * L1 * a2 * c],
                      [m2 * L1 * a2 * c, I2 + m2 * a2 ** 2]])
        rhs = np.array([-m2 * L1 * a2 * s * w2 ** 2 - (m1 * a1 + m2 * L1) * g * math.cos(th1)
                        - d * w1,
                        m2 * L1 * a2 * s * w1 ** 2 - m2 * a2 * g * math.cos(th2)])
        acc = np.linalg.solve(M, rhs)
        return [w1, w2, acc[0], acc[1]]
    return f
