"""Slider-crank built from planar multibody components (one kinematic loop).

The same mechanism as models/slider_crank.py: crank (length ``r``, moment of inertia
``J1`` about the pivot, no mass), connecting rod (length ``l``, uniform, mass ``m2``),
slider (mass ``m3``) on the world x axis, in a vertical plane. Components: ``j1``
(Revolute at the origin) -> ``crank`` (BodyShape, center of mass at the pivot) -> ``j2``
-> ``rod`` (BodyShape) -> ``j3`` -> slider frame, which the Prismatic ``slide`` (along
world x from the origin) also reaches, with the ``piston`` Body on it.

The loop closes at the node of ``j3.frame_b`` and ``slide.frame_b``: flattening solves
the tree for every frame, and the rows of the joint met last become constraints. Rows
linear in one coordinate eliminate it (``j3.phi``, ``slide.s``, still readable by name),
one stays a holonomic constraint (stabilized); its multiplier and the eliminated rows'
forces are the cut force of the pin, ``res["j3.frame_b.fx"]``, ``["j3.frame_b.fy"]``
(the force the slider applies on the rod, equal to the multiplier ``lam`` of the
hand-written model's loop constraint).

Angles: ``j1.phi`` is the crank angle ``th1``; the rod's absolute angle
``j1.phi + j2.phi`` is ``-th2`` of the hand-written model.
"""
import mechdae as md
from mechdae.components import planar as pl

SIMULATION = dict(
    t_final=5.0,
    q0={"j1.phi": 0.0},
    v0={"j1.w": 6.0, "j2.w": -9.0},     # consistent at the dead center: th2' = 3 rad/s
    stabilization=md.Baumgarte(alpha=20.0, beta=20.0),
    plot=["j1.phi", "slide.s"],
)


def build(r=1.0, l=2.0, J1=0.5, m2=1.0, m3=1.0, g=9.81):
    """Build the slider-crank; keyword arguments are parameter defaults."""
    m = md.Model("planar_slider_crank")
    world = m.add(pl.World("world", g=g))
    j1 = m.add(pl.Revolute("j1"))
    crank = m.add(pl.BodyShape("crank", r=(r, 0.0), r_cm=(0.0, 0.0), m=0.0, I=J1))
    j2 = m.add(pl.Revolute("j2"))
    rod = m.add(pl.BodyShape("rod", r=(l, 0.0), r_cm=(l / 2, 0.0), m=m2, I=m2 * l ** 2 / 12))
    j3 = m.add(pl.Revolute("j3"))
    slide = m.add(pl.Prismatic("slide", r=(1.0, 0.0), s0=r + l))
    piston = m.add(pl.Body("piston", m=m3, I=0.0))
    m.connect(world.frame, j1.frame_a, slide.frame_a)
    m.connect(j1.frame_b, crank.frame_a)
    m.connect(crank.frame_b, j2.frame_a)
    m.connect(j2.frame_b, rod.frame_a)
    m.connect(rod.frame_b, j3.frame_a)
    m.connect(j3.frame_b, slide.frame_b, piston.frame_a)
    return m
