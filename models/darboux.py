"""Darboux mechanism: straight-line motion of a vertex through a branch point.

Source: S. N. Burian, "Specificity of the Darboux mechanism rectilinear motion",
Vestnik SPbSU, Math. Mech. Astron. 5 (63), no. 4, 658-669 (2018) -- seed 004.

Mechanism
---------
Fixed points A = (-l, 0) and D = (l, 0).  Five massless inextensible rods:
KB and CM (length 2l) turn about their midpoints A and D, BC (length 2 sqrt(2) l),
KH and MH (length sqrt(2) l).  Point masses m sit at the five vertices K, B, C, M, H.
The vertex H then moves on the straight line x = 0 (the perpendicular bisector of AD);
h = y_H.  At h = 0 the vertices K, B, C, M form a square whose diagonals are BC and
KH + HM: the rank of the constraints drops from 9 to 8 and H could leave the line along a
curve (branch point, fig. 5 of the paper).

Coordinates (10)
    r = (x_K, y_K, x_B, y_B, x_C, y_C, x_M, y_M, x_H, y_H)
Energies
    T = m/2 |r'|^2,   V = 0
Forces
    an optional force F = (F_x, 0) on H, orthogonal to the line: it does no work on the
    straight-line motion but enters the multipliers (sec. 3).
Constraints (9), eq. (9) with the misprints of f2, f6 corrected
    f1 = |K - B|^2 - 4 l^2          f2 = (x_K + x_B + 2 l)/2     f3 = (y_K + y_B)/2
    f4 = |B - C|^2 - 8 l^2          f5 = |C - M|^2 - 4 l^2       f6 = (x_C + x_M - 2 l)/2
    f7 = (y_C + y_M)/2              f8 = |M - H|^2 - 2 l^2       f9 = |K - H|^2 - 2 l^2
(f2, f3 and f6, f7 pin the midpoints of KB and CM at A and D.)

With the reaction written G^T lam (DESIGN.md), lam has the sign of the paper's
Lambda_i in ``m r'' = F + sum Lambda_i grad f_i`` (6).

Reduced motion (for checks, not used by the model): with h as coordinate, eq. (2) gives
all vertices, T = a(h) h'^2 (4), and Lagrange's equation is
``2 a(h) h'' + a'(h) h'^2 = Q_h`` (5); for l = m = 1, h(0) = 0, h'(0) = 1 the solution is
``h(t) = t + (2/15) t^3 + O(t^5)``.
"""
import math

import mechdae as md

NAMES = ("xK", "yK", "xB", "yB", "xC", "yC", "xM", "yM", "xH", "yH")


def vertices(h, l=1.0):
    """Vertex coordinates on the straight-line branch as functions of h, eq. (2).

    alpha(h) = atan(h/l) (signed, smooth through h = 0) and
    beta(h) = acos(h^2 / (2 l sqrt(l^2 + h^2))) give the angles (1) of AK and DM.

    Parameters
    ----------
    h : float
        Ordinate of H (|h| < l sqrt((1 + sqrt 2)^2 - 1) ~ 2.197 l).
    l : float
        Length scale.

    Returns
    -------
    dict
        ``{name: value}`` for the ten coordinates.
    """
    al = math.atan(h / l)
    be = math.acos(h * h / (2.0 * l * math.sqrt(l * l + h * h)))
    t1, t2 = al + be, al - be
    vals = (-l + l * math.cos(t1), l * math.sin(t1),
            -l - l * math.cos(t1), -l * math.sin(t1),
            l + l * math.cos(t2), -l * math.sin(t2),
            l - l * math.cos(t2), l * math.sin(t2),
            0.0, h)
    return dict(zip(NAMES, vals))


def vertex_velocities(h, hdot, l=1.0):
    """Velocities ``dr/dh * h'`` on the straight-line branch, from (2) differentiated.

    alpha' = l / (l^2 + h^2);  beta' = -c' / sqrt(1 - c^2) with
    c = h^2 / (2 l sqrt(l^2 + h^2)),  c' = h (2 l^2 + h^2) / (2 l (l^2 + h^2)^(3/2)).

    Returns
    -------
    dict
        ``{name: rate}``; use as ``v0`` (names are the coordinates').
    """
    al = math.atan(h / l)
    c = h * h / (2.0 * l * math.sqrt(l * l + h * h))
    be = math.acos(c)
    dal = l / (l * l + h * h)
    dc = h * (2 * l * l + h * h) / (2.0 * l * (l * l + h * h) ** 1.5)
    dbe = -dc / math.sqrt(1.0 - c * c)
    t1, t2 = al + be, al - be
    w1, w2 = (dal + dbe) * hdot, (dal - dbe) * hdot
    vals = (-l * math.sin(t1) * w1, l * math.cos(t1) * w1,
            l * math.sin(t1) * w1, -l * math.cos(t1) * w1,
            -l * math.sin(t2) * w2, -l * math.cos(t2) * w2,
            l * math.sin(t2) * w2, l * math.cos(t2) * w2,
            0.0, hdot)
    return dict(zip(NAMES, vals))


def build(l=1.0, m=1.0, Fx=0.0):
    """The Darboux mechanism with all 10 coordinates and 9 holonomic constraints.

    Parameters
    ----------
    l : float
        Length scale (m): |AD| = 2l, |KB| = |CM| = 2l, |BC| = 2 sqrt(2) l, |KH| = |MH| = sqrt(2) l.
    m : float
        Mass at each of the five vertices (kg).
    Fx : float
        Force on H along x, orthogonal to the line of motion (N).

    Returns
    -------
    mechdae.Model
    """
    mod = md.Model("darboux")
    h0 = vertices(0.0, l)
    xK, yK, xB, yB, xC, yC, xM, yM, xH, yH = mod.coordinates(
        " ".join(NAMES), default=[h0[n] for n in NAMES])
    L = mod.parameter("l", l)
    mass = mod.parameter("m", m)
    F = mod.parameter("Fx", Fx)

    q = (xK, yK, xB, yB, xC, yC, xM, yM, xH, yH)
    mod.kinetic_energy(0.5 * mass * sum(md.der(c) ** 2 for c in q))
    mod.generalized_force(F, xH)

    mod.holonomic((xK - xB) ** 2 + (yK - yB) ** 2 - 4 * L**2, name="f1")
    mod.holonomic((xK + xB + 2 * L) / 2, name="f2")
    mod.holonomic((yK + yB) / 2, name="f3")
    mod.holonomic((xB - xC) ** 2 + (yB - yC) ** 2 - 8 * L**2, name="f4")
    mod.holonomic((xC - xM) ** 2 + (yC - yM) ** 2 - 4 * L**2, name="f5")
    mod.holonomic((xC + xM - 2 * L) / 2, name="f6")
    mod.holonomic((yC + yM) / 2, name="f7")
    mod.holonomic((xM - xH) ** 2 + (yM - yH) ** 2 - 2 * L**2, name="f8")
    mod.holonomic((xK - xH) ** 2 + (yK - yH) ** 2 - 2 * L**2, name="f9")
    # what Result.animate draws: the five bars between the vertices
    for name, (a, b) in dict(KB=((xK, yK), (xB, yB)), BC=((xB, yB), (xC, yC)),
                             CM=((xC, yC), (xM, yM)), MH=((xM, yM), (xH, yH)),
                             HK=((xH, yH), (xK, yK))).items():
        mod.draw(name, [a, b])
    return mod


# `mechdae run models/darboux.py`: start in the square (h = 0) with h' = 1, as in fig. 4.
SIMULATION = dict(
    t_final=1.0,
    q0=vertices(0.0),
    v0=vertex_velocities(0.0, 1.0),
    stabilization="default",
)
