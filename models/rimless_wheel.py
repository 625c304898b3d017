r"""Rimless wheel rolling down a slope: McGeer's simplest passive walker.

Sources: T. McGeer, "Passive dynamic walking", Int. J. Robotics Research 9(2) (1990)
62-82; M. J. Coleman, A. Chatterjee, A. Ruina, "Motions of a rimless spoked wheel: a
simple three-dimensional system with impacts", Dynamics and Stability of Systems 12(3)
(1997) 139-159.

A hub of mass ``m`` and central inertia ``I`` carries ``n`` massless spokes of length
``L``, ``2 alpha = 2 pi / n`` apart, on a plane inclined by ``gamma``.  Coordinates in the
slope's frame (``x`` down the slope, ``y`` normal to it): the hub ``(x, y)`` and the
angle ``th`` of spoke 0 from the slope normal (spoke ``k`` at ``th - 2 alpha k``), so

    T = m/2 (x'^2 + y'^2) + I/2 th'^2,   V = m g (y cos(gamma) - x sin(gamma)),

and one contact per spoke tip, ``gap_k = y - L cos(th - 2 alpha k)``, tangent
``x - L sin(th - 2 alpha k)``, plastic (``e = 0``) and without slip (``mu = inf``).

Closed form.  In stance on spoke ``k`` its angle ``phi`` from the slope normal goes from
``-alpha`` to ``alpha`` with ``(m L^2 + I) phi'' = m g L sin(phi + gamma)``; the next
spoke's plastic impact keeps the angular momentum about its tip,
``w+ = c w-``, ``c = (m L^2 cos(2 alpha) + I) / (m L^2 + I)``, the old spoke lifts off.
With ``kappa = m g L / (m L^2 + I)`` the step map of the post-impact rate is
``w_{j+1} = c sqrt(w_j^2 + 4 kappa sin(alpha) sin(gamma))``: the fixed point
(:func:`fixed_point`) ``w+* = c sqrt(4 kappa sin(alpha) sin(gamma) / (1 - c^2))``, its
multiplier ``c^2`` (:func:`multiplier`; stable), and the step time (:func:`step_time`)
``int_{-alpha}^{alpha} dphi / sqrt(w+*^2 + 2 kappa (cos(gamma - alpha) - cos(phi + gamma)))``.
"""
import math

import mechdae as md


def build(n=8, m=1.0, I=0.05, L=1.0, g=9.81, gamma=0.08):
    """The rimless wheel with ``n`` spokes on a slope ``gamma`` (rad)."""
    model = md.Model("rimless_wheel")
    x, y, th = model.coordinates("x y th")
    mass, J = model.parameter("m", m), model.parameter("I", I)
    L_, g_ = model.parameter("L", L), model.parameter("g", g)
    gam = model.parameter("gamma", gamma)
    d = md.der
    model.kinetic_energy(0.5 * mass * (d(x) ** 2 + d(y) ** 2) + 0.5 * J * d(th) ** 2)
    model.potential_energy(mass * g_ * (y * md.cos(gam) - x * md.sin(gam)))
    for k in range(n):
        a = th - 2.0 * math.pi * k / n
        model.contact(f"spoke{k}", gap=y - L_ * md.cos(a), tangent=x - L_ * md.sin(a),
                      restitution=0.0, friction=math.inf)
        # what Result.animate draws (in the slope's axes): the spokes and their feet
        foot = (x - L_ * md.sin(a), y - L_ * md.cos(a))
        model.draw(f"leg{k}", [(x, y), foot])
        model.draw(f"spoke{k}", [foot], kind="point")
    model.draw("hub", [(x, y)], radius=0.08 * L_)
    model.draw("slope", [(-10.0, 0.0), (10.0, 0.0)], kind="surface")
    return model


def _kc(n, m, I, L, g):
    alpha = math.pi / n
    return m * g * L / (m * L ** 2 + I), (m * L ** 2 * math.cos(2 * alpha) + I) / (m * L ** 2 + I)


def fixed_point(n=8, m=1.0, I=0.05, L=1.0, g=9.81, gamma=0.08):
    """Post-impact angular rate ``w+*`` (rad/s) of the periodic rolling."""
    kappa, c = _kc(n, m, I, L, g)
    alpha = math.pi / n
    return c * math.sqrt(4 * kappa * math.sin(alpha) * math.sin(gamma) / (1 - c * c))


def multiplier(n=8, m=1.0, I=0.05, L=1.0, g=9.81):
    """Floquet multiplier of the step map (``c^2``)."""
    return _kc(n, m, I, L, g)[1] ** 2


def step_time(n=8, m=1.0, I=0.05, L=1.0, g=9.81, gamma=0.08):
    """Duration of one step (s) on the periodic rolling (quadrature of the energy)."""
    from scipy.integrate import quad
    kappa, _ = _kc(n, m, I, L, g)
    alpha, w = math.pi / n, fixed_point(n, m, I, L, g, gamma)
    f = lambda p: 1.0 / math.sqrt(w * w + 2 * kappa * (math.cos(gamma - alpha)  # noqa: E731
                                                       - math.cos(p + gamma)))
    return quad(f, -alpha, alpha, epsabs=1e-14, epsrel=1e-13)[0]


def initial_state(n=8, L=1.0, w=1.0):
    """``(q0, v0)`` just after an impact: spoke 0 at ``-alpha`` on the ground, rate ``w``."""
    alpha = math.pi / n
    q0 = {"x": -L * math.sin(alpha), "y": L * math.cos(alpha), "th": -alpha}
    v0 = {"x": L * math.cos(alpha) * w, "y": L * math.sin(alpha) * w, "th": w}
    return q0, v0


_Q0, _V0 = initial_state(w=fixed_point())
SIMULATION = dict(t_final=3.0, q0=_Q0, v0=_V0, method="event", stabilization=None,
                  plot=["th"])
