r"""Stick-slip on a moving belt: a block held by a spring to a wall, on a belt at speed ``v_b``.

A block of mass ``m`` with coordinates ``x`` (along the belt, from the spring's rest
position) and ``y`` (normal to the belt, gap ``g = y``), a spring of stiffness ``k`` to the
wall and Coulomb friction ``mu`` (static = kinetic) against a belt that moves at constant
speed ``v_b``. The contact is rheonomic: the sliding velocity is relative to the belt,

.. math::

    T = \tfrac{m}{2}(x'^2 + y'^2), \quad V = \tfrac{k}{2} x^2 + m g y, \quad
    v_t = x' - v_b .

Sticking (``x' = v_b``) the friction force ``k x`` holds while ``k x <= mu m g``, i.e. up to
``x_s = mu m g / k``. Sliding slower than the belt (``v_t < 0``) friction pushes with
``+mu m g``: harmonic motion about ``x_0 = mu m g / k = x_s`` at ``omega = sqrt(k / m)``.
Released at rest at ``x = 0`` (``v_t = -v_b``; assume ``v_b < omega x_0``):

.. math::

    x = x_0 (1 - \cos\omega t) \quad \text{until } x' = v_b:\quad
    t_1 = \frac{1}{\omega}\arcsin\frac{v_b}{\omega x_0},\ x_1 = x_0(1 - \cos\omega t_1),

then the block sticks (``k x_1 < mu m g``) and rides with the belt, ``x = x_1 + v_b (t - t_1)``,
until ``x = x_s`` at ``t_2 = t_1 + (x_0 - x_1) / v_b``; then it slips,

.. math::

    x = x_0 + \frac{v_b}{\omega}\sin\omega (t - t_2), \qquad x' = v_b \cos\omega (t - t_2),

the stick-slip limit cycle: ``x'`` returns to ``v_b`` after each period ``2 pi / omega``
exactly at ``x = x_s`` (tangentially: with equal static and kinetic friction the stick phases
of the cycle have zero length), so the motion stays on this harmonic loop.
The classic belt-driven stick-slip oscillator (e.g. Popp & Stelter, *Stick-slip vibrations and chaos*, Phil. Trans.
R. Soc. A 332, 1990).
"""
import mechdae as md

SIMULATION = dict(
    t_final=6.0,
    q0={"x": 0.0, "y": 0.0},
    v0={"x": 0.0},
    method="event",
    stabilization=None,
    plot=["x"],
)


def build(m=1.0, g=9.81, k=10.0, mu=0.3, v_b=0.5):
    """Build the block on the belt.

    Parameters
    ----------
    m, g, k, v_b : float
        Mass (kg), gravity (m/s^2), spring stiffness (N/m), belt speed (m/s): parameter
        defaults.
    mu : float
        Friction coefficient (static = kinetic), a parameter default.
    """
    model = md.Model("belt_stick_slip")
    x, y = model.coordinates("x y")
    mass = model.parameter("m", m)
    g = model.parameter("g", g)
    k = model.parameter("k", k)
    mu = model.parameter("mu", mu)
    v_b = model.parameter("v_b", v_b)
    model.kinetic_energy(0.5 * mass * (md.der(x) ** 2 + md.der(y) ** 2))
    model.potential_energy(0.5 * k * x ** 2 + mass * g * y)
    model.contact("belt", gap=y, tangent_velocity=md.der(x) - v_b, restitution=0.0,
                  friction=mu)
    # what Result.animate draws: the block on the belt, held by the spring from x = -1
    w, h = 0.2, 0.1
    model.draw("block", [(x - w / 2, y), (x + w / 2, y), (x + w / 2, y + h), (x - w / 2, y + h)])
    model.draw("belt", [(x, y)], kind="point")
    model.draw("spring", [(-1.0, y + h / 2), (x - w / 2, y + h / 2)])
    model.draw("surface", [(-1.0, 0.0), (1.0, 0.0)], kind="surface")
    return model
