"""Planar pendulum in Cartesian coordinates (index-3 DAE).

A point mass ``m`` on a massless rod of length ``L`` about the origin, gravity ``-g e_y``:

    T = m/2 (x'^2 + y'^2),   V = m g y,   phi = x^2 + y^2 - L^2 = 0.

The textbook index-3 test problem (Hairer & Wanner, *Solving ODEs II*, sec. VII.1); the
multiplier gives the rod force ``G^T lam = 2 lam (x, y)``, i.e. the tension
``S = -2 lam L = m (v^2/L - g y/L)``.
"""
import mechdae as md

SIMULATION = dict(
    t_final=10.0,
    q0={"x": 1.0, "y": 0.0},
    v0={},
    stabilization=md.Baumgarte(alpha=10.0, beta=10.0),
    plot=["x", "y"],
)


def build(L=1.0, g=9.81, m=1.0):
    """Build the pendulum; keyword arguments are parameter defaults."""
    model = md.Model("pendulum")
    x, y = model.coordinates("x y")
    L = model.parameter("L", L)
    g = model.parameter("g", g)
    mass = model.parameter("m", m)
    model.kinetic_energy(0.5 * mass * (md.der(x) ** 2 + md.der(y) ** 2))
    model.potential_energy(mass * g * y)
    model.holonomic(x ** 2 + y ** 2 - L ** 2, name="rod")
    # what Result.animate draws: the rod from the pivot and the bob
    model.draw("rod", [(0.0, 0.0), (x, y)])
    model.draw("bob", [(x, y)], radius=0.06 * L)
    return model
