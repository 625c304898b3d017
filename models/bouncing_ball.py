r"""Bouncing ball: a ball of radius ``R`` and mass ``m`` on horizontal ground.

Coordinates: the center ``(x, y)``; ``T = m/2 (x'^2 + y'^2)``, ``V = m g y``. One contact,
``ground``, with gap ``g = y - R``, sliding velocity ``x'``, Newton restitution ``e`` and
friction ``mu``.

Dropped from rest at height ``h0`` (center at ``R + h0``), the ball hits the ground at
``t_1 = sqrt(2 h0 / g)`` with speed ``v_1 = g t_1``; flight ``k`` after impact ``k`` lasts
``2 e^k v_1 / g``, so the impact times form a geometric series,
``t_{k+1} - t_k = e (t_k - t_{k-1})``, with the accumulation (Zeno) point

.. math::

    t_\infty = t_1 + \frac{2 v_1 e}{g (1 - e)},

after which the ball rests: ``y = R``, ``y' = 0``, normal force ``m g``. Dropped from rest
at ``h``: ``t_inf = sqrt(2 h / g) (1 + 2 e / (1 - e))`` (:func:`t_inf`; 4.0637 s for the
defaults below, h = 1 m, e = 0.8). ``mechdae run`` prints the computed ``t_inf`` against
this closed form (:func:`summary`) and the plot marks it.
"""
import math

import mechdae as md

SIMULATION = dict(
    t_final=5.0,
    q0={"x": 0.0, "y": 1.1},
    v0={},
    method="auto",
    stabilization=None,
    plot=["y"],
)


def build(R=0.1, m=1.0, g=9.81, e=0.8, mu=0.0):
    """Build the bouncing ball.

    Parameters
    ----------
    R, m, g : float
        Radius (m), mass (kg), gravity (m/s^2): parameter defaults.
    e, mu : float
        Restitution and friction of the ground contact: parameter defaults too, so
        ``simulate(params={"e": 0.5})`` (or ``mechdae run ... -p e=0.5``) changes them
        without recompiling.
    """
    model = md.Model("bouncing_ball")
    x, y = model.coordinates("x y", unit="m")
    R = model.parameter("R", R, unit="m")
    mass = model.parameter("m", m, unit="kg")
    g = model.parameter("g", g, unit="m/s^2")
    e = model.parameter("e", e, unit="1")
    mu = model.parameter("mu", mu, unit="1")
    model.kinetic_energy(0.5 * mass * (md.der(x) ** 2 + md.der(y) ** 2))
    model.potential_energy(mass * g * y)
    model.contact("ground", gap=y - R, tangent=x, restitution=e, friction=mu)
    model.draw("ball", [(x, y)], radius=R)
    model.draw("ground", [(x, y - R)], kind="point")
    model.draw("floor", [(-10.0, 0.0), (10.0, 0.0)], kind="surface")
    return model


def t_inf(h, e, g=9.81, v=0.0):
    """Accumulation time of the impacts of a ball whose gap is ``h`` with vertical speed
    ``v`` (up positive) at t = 0: first impact at ``t_1 = (v + sqrt(v^2 + 2 g h)) / g`` with
    speed ``v_1 = sqrt(v^2 + 2 g h)``, then ``t_inf = t_1 + 2 v_1 e / (g (1 - e))``; dropped
    from rest, ``sqrt(2 h / g) (1 + 2 e / (1 - e))``.

    >>> round(t_inf(1.0, 0.8), 6)
    4.063713
    """
    v1 = math.sqrt(v * v + 2.0 * g * h)
    return (v + v1) / g + 2.0 * v1 * e / (g * (1.0 - e))


def summary(res):
    """Lines ``mechdae run`` adds to its summary: the accumulation point of the run against
    the closed form :func:`t_inf` of its initial state and parameters."""
    p = dict(zip(res.system.p_names, (float(v) for v in res.params)))
    k = list(res.names["q"]).index("y")
    h, v = float(res.q[0, k]) - p["R"], float(res.v[0, k])
    if not 0.0 < p["e"] < 1.0:
        return []
    exact = t_inf(h, p["e"], p["g"], v)
    acc = [ev.t for ev in res.events if ev.kind == "accumulation"]
    got = (f"computed {acc[0]:.10g} s, difference {acc[0] - exact:+.2e} s" if acc
           else "no accumulation point in the run")
    return [f"t_inf        closed form sqrt(2h/g) (1 + 2e/(1 - e)) = {exact:.10g} s "
            f"(h = {h:g} m, e = {p['e']:g}); {got}"]
