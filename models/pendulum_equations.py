r"""Planar pendulum written as plain equations (an index-3 DAE, reduced by compile()).

The same physics as ``models/pendulum.py``, but without energies or a mechanical
constraint: the unknowns are the position ``(x, y)`` of the bob (second-order variables)
and the rod tension per unit length ``T`` (algebraic),

.. math::

    m x'' = -T x, \qquad m y'' = -T y - m g, \qquad x^2 + y^2 = L^2 .

The constraint contains no highest derivative (``x''``, ``y''``, ``T``), so it cannot be
solved for anything as written: Pantelides' algorithm differentiates it twice,

.. math::

    e = x^2 + y^2 - L^2, \quad e' = 2 (x x' + y y'), \quad
    e'' = 2 (x x'' + x'^2 + y y'' + y'^2),

(``c = (0, 0, 2)``: differential index 3).  Substituting ``x'', y''`` in ``e'' = 0`` gives
the tension ``T = m (x'^2 + y'^2 - g y) / L^2`` (the rod force is ``T L``; it equals
``-2 lam`` of the ``m.holonomic`` pendulum).  The states are ``x, der(x), y, der(y)``;
the hidden constraints ``e = 0, e' = 0`` are kept by the same Baumgarte stabilization as a
mechanical constraint (``e'' + 2 alpha e' + beta^2 e = 0``) and by consistent
initialization, and ``res.residuals["rod"]`` is ``e`` along the run.

Released from ``(x, y) = (L, 0)`` at rest, the period is ``4 sqrt(L/g) K(sin(pi/4))``
(``K`` the complete elliptic integral of the first kind): 2.3678 s for ``L = 1``,
``g = 9.81``.
"""
import mechdae as md

SIMULATION = dict(
    t_final=10.0,
    q0={"x": 1.0, "y": 0.0, "der(x)": 0.0, "der(y)": 0.0},
    v0={},
    stabilization=md.Baumgarte(alpha=10.0, beta=10.0),
    plot=["x", "y", "T"],
)


def build(L=1.0, g=9.81, m=1.0):
    """Build the plain-equation pendulum; keyword arguments are parameter defaults.

    Returns
    -------
    mechdae.Model
        Variables ``x``, ``y`` (second order) and ``T`` (algebraic); equations
        ``newton_x``, ``newton_y`` and ``rod``.
    """
    model = md.Model("pendulum_equations")
    x = model.variable("x", 1.0)
    y = model.variable("y", 0.0)
    T = model.variable("T")
    L = model.parameter("L", L)
    g = model.parameter("g", g)
    mass = model.parameter("m", m)
    model.equation(mass * md.der(md.der(x)) == -T * x, name="newton_x")
    model.equation(mass * md.der(md.der(y)) == -T * y - mass * g, name="newton_y")
    model.equation(x ** 2 + y ** 2 == L ** 2, name="rod")
    model.draw("rod", [(0.0, 0.0), (x, y)])          # what Result.animate draws
    model.draw("bob", [(x, y)], radius=0.06 * L)
    return model
