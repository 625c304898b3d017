"""Painlevé's rod: a uniform rod with one end sliding on a rough horizontal plane.

Rod of mass ``m`` and length ``2 l`` (half-length ``l``, central moment of inertia
``I = m l^2 / 3``), center ``(x, y)``, angle ``th`` to the horizontal; its lower end
``A = (x - l cos th, y - l sin th)`` touches the plane ``y = 0`` with Coulomb friction
``mu``. With the end sliding in the direction ``s = sign(x_A')`` the normal acceleration
of A is ``y_A'' = U N + F`` with

    U = (1 + 3 cos^2 th + 3 s mu sin th cos th) / m,      F = -g + l th'^2 sin th,

so ``U`` is proportional to ``1 + 3 cos^2 th -+ 3 mu sin th cos th``; for ``mu > 4/3`` it
becomes negative for some ``th`` when the end slides towards the rod (``s = -1`` for
``0 < th < pi/2``): inconsistent for ``F < 0``, indeterminate for ``F > 0`` (P. Painlevé,
Leçons sur le frottement, 1895; D. E. Stewart, SIAM Review 42(1), 2000).
"""
import math

import mechdae as md

SIMULATION = dict(
    t_final=1.0,
    q0={"x": math.cos(0.8), "y": math.sin(0.8), "th": 0.8},
    v0={"x": -1.0},
    plot=["x", "y", "th"],
)


def build(m=1.0, l=1.0, mu=0.5, g=9.81):
    """Build the rod; keyword arguments are parameter defaults."""
    model = md.Model("painleve_rod")
    x, y, th = model.coordinates("x y th")
    m = model.parameter("m", m)
    l = model.parameter("l", l)
    mu = model.parameter("mu", mu)
    g = model.parameter("g", g)
    model.kinetic_energy(0.5 * m * (md.der(x) ** 2 + md.der(y) ** 2)
                         + 0.5 * (m * l ** 2 / 3) * md.der(th) ** 2)
    model.potential_energy(m * g * y)
    model.contact("A", gap=y - l * md.sin(th), tangent=x - l * md.cos(th), friction=mu)
    return model


def sliding_state(th, xA_dot, th_dot=0.0, l=1.0):
    """``(q, v)`` with the end A on the plane, sliding with ``x_A' = xA_dot``."""
    q = {"x": l * math.cos(th), "y": l * math.sin(th), "th": th}
    v = {"x": xA_dot - l * math.sin(th) * th_dot, "y": l * math.cos(th) * th_dot,
         "th": th_dot}
    return q, v
