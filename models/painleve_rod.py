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

Both ends are contacts by default: ``A`` (the lower end, with friction ``mu``) and ``B =
(x + l cos th, y + l sin th)`` (frictionless, ``mu_B``), so a rod that tips over lands on
its other end instead of passing through the floor; ``build(both_ends=False)`` is the
classic one-contact problem of the paradox.
"""
import math

import mechdae as md

SIMULATION = dict(
    t_final=1.0,
    q0={"x": math.cos(0.8), "y": math.sin(0.8), "th": 0.8},
    v0={"x": -1.0},
    plot=["x", "y", "th"],
)


def build(m=1.0, l=1.0, mu=0.5, g=9.81, mu_B=0.0, both_ends=True, e=0.0):
    """Build the rod; keyword arguments are parameter defaults (SI units).

    ``e``: Newton restitution of the end ``A`` (plastic by default; method "unified"
    needs ``e > 0``).

    ``both_ends``: end ``B`` is a contact too (frictionless unless ``mu_B``); False
    leaves only ``A``, the setting of Painlevé's paradox.
    """
    model = md.Model("painleve_rod")
    x, y, th = model.coordinates("x y th", unit=["m", "m", "rad"])
    m = model.parameter("m", m, unit="kg")
    l = model.parameter("l", l, unit="m")
    mu = model.parameter("mu", mu, unit="1")
    g = model.parameter("g", g, unit="m/s^2")
    model.kinetic_energy(0.5 * m * (md.der(x) ** 2 + md.der(y) ** 2)
                         + 0.5 * (m * l ** 2 / 3) * md.der(th) ** 2)
    model.potential_energy(m * g * y)
    A = (x - l * md.cos(th), y - l * md.sin(th))
    B = (x + l * md.cos(th), y + l * md.sin(th))
    e = model.parameter("e", e, unit="1")
    model.contact("A", gap=A[1], tangent=A[0], friction=mu, restitution=e)
    model.draw("rod", [A, B])
    model.draw("A", [A], kind="point")
    if both_ends:
        mu_B = model.parameter("mu_B", mu_B, unit="1")
        model.contact("B", gap=B[1], tangent=B[0], friction=mu_B)
        model.draw("B", [B], kind="point")
    model.draw("floor", [(-10.0, 0.0), (10.0, 0.0)], kind="surface")
    return model


def sliding_state(th, xA_dot, th_dot=0.0, l=1.0):
    """``(q, v)`` with the end A on the plane, sliding with ``x_A' = xA_dot``."""
    q = {"x": l * math.cos(th), "y": l * math.sin(th), "th": th}
    v = {"x": xA_dot - l * math.sin(th) * th_dot, "y": l * math.cos(th) * th_dot,
         "th": th_dot}
    return q, v
