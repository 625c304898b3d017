"""Planar double pendulum built from multibody components (World, Revolute, BodyShape).

The same system as models/double_pendulum.py (two point masses ``m1``, ``m2`` on massless
rods ``L1``, ``L2``, gravity ``g``), but with joint coordinates: ``j1.phi`` is the angle of
the first rod from the world x axis, ``j2.phi`` the angle of the second rod relative to
the first (MSL PlanarMechanics conventions). Each rod is a ``BodyShape`` with its mass at
``frame_b`` (``r_cm = r``, ``I = 0``). A tree: two coordinates, no constraint.

Both rods start horizontal (``x1 = 1, x2 = 2`` in the Cartesian model); tests check that
the two models agree to 1e-9, and the joint cut forces (``res["j1.frame_a.fx"]``).
"""
import mechdae as md
from mechdae.components import planar as pl

SIMULATION = dict(
    t_final=10.0,
    q0={"j1.phi": 0.0, "j2.phi": 0.0},
    v0={},
    stabilization=None,
    plot=["l1.frame_b.x", "l1.frame_b.y", "l2.frame_b.x", "l2.frame_b.y"],
)


def build(L1=1.0, L2=1.0, m1=1.0, m2=1.0, g=9.81):
    """Build the double pendulum; keyword arguments are parameter defaults."""
    m = md.Model("planar_double_pendulum")
    world = m.add(pl.World("world", g=g))
    j1 = m.add(pl.Revolute("j1"))
    l1 = m.add(pl.BodyShape("l1", r=(L1, 0.0), r_cm=(L1, 0.0), m=m1, I=0.0))
    j2 = m.add(pl.Revolute("j2"))
    l2 = m.add(pl.BodyShape("l2", r=(L2, 0.0), r_cm=(L2, 0.0), m=m2, I=0.0))
    m.connect(world.frame, j1.frame_a)
    m.connect(j1.frame_b, l1.frame_a)
    m.connect(l1.frame_b, j2.frame_a)
    m.connect(j2.frame_b, l2.frame_a)
    return m
