"""Rocking block: a planar rectangular block with two corner contacts on the ground.

Parameters as in the Siconos tutorial RockingBlockTS (examples/mechanics/RockingBlock):
width ``l = 1.0``, height ``h = 1.5``, ``m = 1``, ``I = m (h^2 + l^2)/12`` about the
center, restitution ``e = 0.5``, initial state ``q0 = (0, 1.0, 0.2)``, ``v0 = 0``; friction
``mu`` is added (the tutorial is frictionless). Coordinates: center ``x, y`` and angle
``th`` (counter-clockwise). Corners in body axes: left ``(-l/2, -h/2)`` (contact ``L``),
right ``(l/2, -h/2)`` (contact ``R``); gaps are their heights, tangents their abscissas.

Known result (G. W. Housner, BSSA 53, 1963): rocking about one corner, a plastic
(``e = 0``) no-slip impact of the other corner with the first one lifting off gives
``w+ = w- (1 - 3/2 sin^2 alpha)``, ``alpha = atan(l/h)``.
"""
import math

import mechdae as md

SIMULATION = dict(
    t_final=2.0,
    q0={"x": 0.0, "y": 1.0, "th": 0.2},
    v0={},
    plot=["x", "y", "th"],
)


def build(l=1.0, h=1.5, m=1.0, e=0.5, mu=0.5, g=9.81):
    """Build the block; keyword arguments are parameter defaults."""
    model = md.Model("rocking_block")
    x, y, th = model.coordinates("x y th", unit=["m", "m", "rad"])
    l = model.parameter("l", l, unit="m")
    h = model.parameter("h", h, unit="m")
    m = model.parameter("m", m, unit="kg")
    e = model.parameter("e", e, unit="1")
    mu = model.parameter("mu", mu, unit="1")
    g = model.parameter("g", g, unit="m/s^2")
    I = m * (h ** 2 + l ** 2) / 12
    model.kinetic_energy(0.5 * m * (md.der(x) ** 2 + md.der(y) ** 2)
                         + 0.5 * I * md.der(th) ** 2)
    model.potential_energy(m * g * y)
    c, s = md.cos(th), md.sin(th)

    def corner(bx, by):
        return (x + c * bx - s * by, y + s * bx + c * by)
    for name, (bx, by) in (("L", (-l / 2, -h / 2)), ("R", (l / 2, -h / 2))):
        px, py = corner(bx, by)
        model.contact(name, gap=py, tangent=px, restitution=e, friction=mu)
        model.draw(name, [(px, py)], kind="point")
    # what Result.animate draws: the block, its corner contacts (above), the ground
    model.draw("block", [corner(-l / 2, -h / 2), corner(l / 2, -h / 2), corner(l / 2, h / 2),
                         corner(-l / 2, h / 2)])
    model.draw("ground", [(-10.0, 0.0), (10.0, 0.0)], kind="surface")
    return model


def flat_state(w, l=1.0, h=1.5):
    """Block flat (``th = 0``) on the ground, rocking with angular velocity ``w`` about the
    right corner (``w > 0``: the left corner comes down with speed ``w l``) or about the
    left one (``w < 0``). Returns ``(q, v)`` dicts."""
    cx = l / 2 if w > 0 else -l / 2
    # corner velocity v + w x r = (vx + w h/2, vy + w cx) = 0
    q = {"x": 0.0, "y": h / 2, "th": 0.0}
    v = {"x": -w * h / 2, "y": -w * cx, "th": w}
    return q, v
