"""The seed-000 two-link mechanism (a walker's legs) built from planar components.

The same mechanism as models/two_link_impact.py: two uniform legs ``OD`` and ``OB``
(length ``l``, mass ``m``) hinged at the hip ``O``, which moves freely in the vertical
plane; the feet ``D`` (plastic, no sliding: ``mu = inf``) and ``B`` (plastic, Coulomb
friction ``f``) are contacts with the ground line y = 0. Components: ``hip`` (``pl.Free``:
hip position and the absolute angle of leg OD) -> leg ``OD`` (``pl.BodyShape``, frame_b at
the foot D) and the ``O`` hinge (``pl.Revolute``: the angle of OB relative to OD) -> leg
``OB``; ``pl.PointLineContact`` at each foot.

Coordinates: ``hip.x``, ``hip.y``, ``hip.phi`` (OD from the downward vertical,
counter-clockwise), ``O.phi`` (OB relative to OD). tests/test_planar.py checks that its
impact problems (all solutions, modes and impulses) equal models/two_link_impact.py's over
random (alpha, gamma, f).

``SIMULATION``: the legs, opened symmetrically by ``2 a``, are dropped from a height ``h``
above touchdown; both feet land at once (plastic) and, with ``f`` above the thrust ratio
``N_t/N_n = tan(a)/2`` of the A-frame, the legs stand still.
"""
import math

import mechdae as md
from mechdae.components import planar as pl

A, H = 0.3, 0.05                          # half opening angle (rad), drop height (m)

SIMULATION = dict(
    t_final=0.5,
    q0={"hip.y": math.cos(A) + H, "hip.phi": A, "O.phi": -2 * A},
    method="event",
    stabilization=None,
    plot=["hip.y", "hip.phi", "O.phi"],
)


def build(l=1.0, m=1.0, f=0.5, g=9.81):
    """Build the mechanism; keyword arguments are parameter defaults (``f`` is
    ``"B.mu"``)."""
    model = md.Model("planar_two_link_impact")
    world = model.add(pl.World("world", g=g))
    hip = model.add(pl.Free("hip"))
    legs = [model.add(pl.BodyShape(n, r=(0.0, -l), r_cm=(0.0, -l / 2), m=m, I=m * l ** 2 / 12))
            for n in ("OD", "OB")]
    knee = model.add(pl.Revolute("O"))
    D = model.add(pl.PointLineContact("D", e=0.0, mu=math.inf))
    B = model.add(pl.PointLineContact("B", e=0.0, mu=f))
    model.connect(world.frame, hip.frame_a)
    model.connect(hip.frame_b, legs[0].frame_a, knee.frame_a)
    model.connect(knee.frame_b, legs[1].frame_a)
    model.connect(legs[0].frame_b, D.frame)
    model.connect(legs[1].frame_b, B.frame)
    return model
