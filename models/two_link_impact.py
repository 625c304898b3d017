"""Impact of a free two-link mechanism on the ground (seed 000).

E. M. Rubanovich, A. M. Formalsky, "The problem of impact of a two-link mechanism"
(Russian): two identical uniform rods OB and OD (length ``l``, mass ``m``) hinged at O,
moving freely in a vertical plane (4 degrees of freedom). Foot B rests on the ground; foot D
strikes it with a perfectly inelastic impact (eq. 1.1: D sticks) with pre-impact velocity
at angle ``gamma`` to the ground; at impact both legs make the angle ``alpha`` with the
vertical. The impact equations in foot coordinates ``z = (x_D, y_D, x_B, y_B)`` read
``G(alpha) (z(+0) - z(-0)) = E`` with the mass matrix ``G`` of eq. (1.2).

Coordinates: hip ``xO, yO`` and the absolute leg angles ``th1`` (leg OD) and ``th2`` (leg
OB) from the downward vertical,

    D = O + l (sin th1, -cos th1),    B = O + l (sin th2, -cos th2).

At impact ``th1 = +alpha``, ``th2 = -alpha`` (D ahead of O, x_D > x_O) and
``yO = l cos(alpha)``; this convention reproduces G(alpha) of eq. (1.2) as
``J^-T M J^-1`` with J the foot Jacobian.

Contacts: ``D`` (gap y_D, tangent x_D, restitution 0, friction inf: D sticks after the
impact) and ``B`` (gap y_B, tangent x_B, restitution 0, friction ``f``).

``build(closure=True)`` declares D with ``friction_cone="closure"``: the modified impact
model (5.2) of sec. 5 — D keeps ``x_D(+0) = 0`` while it may lift off with zero normal
impulse (``E_1y = 0``), which gives the outcomes below gamma_5 (eqs. 5.3-5.13). It is an
impact-only law: such a System answers ``impact`` / ``impact_batch``, not ``simulate``.

Kinetic energy of a uniform rod with center c and angle th: ``m |c'|^2 / 2 + m l^2 th'^2 /
24``; gravity ``g`` acts on both rod centers (irrelevant for the impact itself).
"""
import math

import numpy as np

import mechdae as md

SIMULATION = dict(
    t_final=1.0,
    q0={"xO": 0.0, "yO": math.cos(0.4), "th1": 0.4, "th2": -0.4},
    v0={},
    plot=["yO", "th1", "th2"],
)


def build(l=1.0, m=1.0, f=0.5, g=9.81, closure=False):
    """Build the two-link mechanism; keyword arguments are parameter defaults.

    ``closure=True``: contact D with the closed friction cone (sec. 5, eq. 5.2).
    """
    model = md.Model("two_link_impact")
    xO, yO, th1, th2 = model.coordinates("xO yO th1 th2")
    l = model.parameter("l", l)
    m = model.parameter("m", m)
    f = model.parameter("f", f)
    g = model.parameter("g", g)
    T = 0
    V = 0
    for th in (th1, th2):
        cx = xO + 0.5 * l * md.sin(th)
        cy = yO - 0.5 * l * md.cos(th)
        vx = md.der(xO) + 0.5 * l * md.cos(th) * md.der(th)
        vy = md.der(yO) + 0.5 * l * md.sin(th) * md.der(th)
        T = T + 0.5 * m * (vx ** 2 + vy ** 2) + m * l ** 2 * md.der(th) ** 2 / 24
        V = V + m * g * cy
    model.kinetic_energy(T)
    model.potential_energy(V)
    xD, yD = xO + l * md.sin(th1), yO - l * md.cos(th1)
    xB, yB = xO + l * md.sin(th2), yO - l * md.cos(th2)
    model.contact("D", gap=yD, tangent=xD, restitution=0.0, friction=math.inf,
                  friction_cone="closure" if closure else "coulomb")
    model.contact("B", gap=yB, tangent=xB, restitution=0.0, friction=f)
    # what Result.animate draws: the two links from the hinge O, their feet, the ground
    model.draw("link1", [(xO, yO), (xD, yD)])
    model.draw("link2", [(xO, yO), (xB, yB)])
    model.draw("D", [(xD, yD)], kind="point")
    model.draw("B", [(xB, yB)], kind="point")
    model.draw("ground", [(-10.0, 0.0), (10.0, 0.0)], kind="surface")
    return model


def impact_state(alpha, gamma, speed=1.0, l=1.0):
    """Coordinates and speeds just before the impact, as dicts by name.

    ``th1 = alpha``, ``th2 = -alpha``, both feet on the ground; B at rest; D moving with
    ``speed (cos gamma, sin gamma)``. Returns ``(q, v)`` (speeds by coordinate name).
    ``alpha`` and ``gamma`` may be arrays (broadcast): the dicts then hold arrays, as
    ``System.impact_batch`` takes them.
    """
    fn = math
    if np.ndim(alpha) or np.ndim(gamma):
        alpha, gamma = np.broadcast_arrays(np.asarray(alpha, float), np.asarray(gamma, float))
        fn = np
    ca_, sa = fn.cos(alpha), fn.sin(alpha)
    # foot velocities from hip velocity (a, b) and rates w1, w2:
    #   D' = (a + l cos(th1) w1, b + l sin(th1) w1), B' = (a + l cos(th2) w2, b + l sin(th2) w2)
    # B' = 0 and D' = speed (cos gamma, sin gamma) give the generalized speeds:
    xd, yd = speed * fn.cos(gamma), speed * fn.sin(gamma)
    # unknowns a, b, w1, w2: a + l ca w2 = 0, b - l sa w2 = 0 (th2 = -alpha)
    # a + l ca w1 = xd, b + l sa w1 = yd  ->  l ca (w1 - w2) = xd, l sa (w1 + w2) = yd
    s_ = xd / (l * ca_)
    t_ = yd / (l * sa)
    w1 = 0.5 * (s_ + t_)
    w2 = 0.5 * (t_ - s_)
    a = -l * ca_ * w2
    b = l * sa * w2
    q = {"xO": 0.0 * alpha, "yO": l * ca_, "th1": alpha, "th2": -alpha}
    v = {"xO": a, "yO": b, "th1": w1, "th2": w2}
    return q, v


def boundary_curves(alpha):
    """The closed-form region boundaries of sec. 2 (radians), for plotting the map.

    ``gamma_1``: y_B(+0) = 0 when B leaves (2.9); ``gamma_2``: E_1y = 0 when B leaves
    (2.10); ``gamma_3``: E_2y = 0 when B stays (2.11); ``gamma_4``: E_1y = 0 when B stays
    (2.12). Branch rule of the paper: ``gamma = -pi + atan k`` for ``k >= 0``, else
    ``atan k``.
    """
    a = np.asarray(alpha, float)
    s2, c2 = np.sin(2 * a), np.cos(2 * a)

    def branch(k):
        return np.where(k >= 0, -np.pi + np.arctan(k), np.arctan(k))

    k1 = 6 * s2 * (1 - 3 * np.sin(a) ** 2) / (9 * c2 ** 2 + 3 * c2 - 5)
    k3 = 3 * np.tan(a) * c2 / (2 * (1 - 3 * np.sin(a) ** 2))
    return {
        "gamma_1": branch(k1),
        "gamma_2": -np.pi + np.arctan(15 * s2 / (25 + 12 * c2 - 9 * c2 ** 2)),
        "gamma_3": branch(k3),
        "gamma_4": -np.pi + np.arctan(3 * np.tan(a) / (2 * (1 + 3 * np.sin(a) ** 2))),
    }
