"""Planar double pendulum in Cartesian coordinates: two point masses, two rigid rods.

    T = m1/2 |r1'|^2 + m2/2 |r2'|^2,   V = g (m1 y1 + m2 y2),
    phi_1 = |r1|^2 - L1^2 = 0,   phi_2 = |r2 - r1|^2 - L2^2 = 0.

Classic chaotic example (e.g. Shinbrot et al., Am. J. Phys. 60 (1992) 491); energy is
conserved, which the tests check.
"""
import mechdae as md

SIMULATION = dict(
    t_final=10.0,
    q0={"x1": 1.0, "y1": 0.0, "x2": 2.0, "y2": 0.0},
    v0={},
    stabilization=md.Baumgarte(alpha=20.0, beta=20.0),
    plot=["x1", "y1", "x2", "y2"],
)


def build(L1=1.0, L2=1.0, m1=1.0, m2=1.0, g=9.81):
    """Build the double pendulum; keyword arguments are parameter defaults."""
    model = md.Model("double_pendulum")
    x1, y1, x2, y2 = model.coordinates("x1 y1 x2 y2")
    L1 = model.parameter("L1", L1)
    L2 = model.parameter("L2", L2)
    m1 = model.parameter("m1", m1)
    m2 = model.parameter("m2", m2)
    g = model.parameter("g", g)
    d = md.der
    model.kinetic_energy(0.5 * m1 * (d(x1) ** 2 + d(y1) ** 2) + 0.5 * m2 * (d(x2) ** 2 + d(y2) ** 2))
    model.potential_energy(g * (m1 * y1 + m2 * y2))
    model.holonomic(x1 ** 2 + y1 ** 2 - L1 ** 2, name="rod1")
    model.holonomic((x2 - x1) ** 2 + (y2 - y1) ** 2 - L2 ** 2, name="rod2")
    # what Result.animate draws: the two rods and the two bobs
    model.draw("rod1", [(0.0, 0.0), (x1, y1)])
    model.draw("rod2", [(x1, y1), (x2, y2)])
    model.draw("bob1", [(x1, y1)], radius=0.06 * L1)
    model.draw("bob2", [(x2, y2)], radius=0.06 * L2)
    return model
