"""Chaplygin sleigh: a rigid body on a horizontal plane supported by a knife edge.

Source: S. A. Chaplygin, "On the theory of motion of nonholonomic systems. The reducing
multiplier theorem" (1911); A. M. Bloch, Nonholonomic Mechanics and Control, sec. 1.7.

Body
    mass m, moment of inertia I about its center of mass C (planar motion, no gravity work).
    The knife edge touches the plane at P, a distance a behind C on the body axis
    e1 = (cos theta, sin theta):  P = C - a e1.
Coordinates
    x, y (center of mass), theta (heading)
Energies
    T = m/2 (x'^2 + y'^2) + I/2 theta'^2,   V = 0
Nonholonomic constraint ("blade"): P cannot move across the blade, v_P . e2 = 0 with
e2 = (-sin theta, cos theta):
    psi = -sin(theta) x' + cos(theta) y' - a theta' = 0.

Known solution.  With the forward speed u = v_C . e1 and omega = theta',
    m u' = m a omega^2,        (I + m a^2) omega' = -m a u omega,
energy E = m u^2/2 + (I + m a^2) omega^2/2 is conserved and, with U = sqrt(2E/m),
J = I + m a^2, s(t) = s0 + a m U t / J:
    u = U tanh s,    omega = U sqrt(m/J) sech s,
    theta = theta0 + (J / (a sqrt(m J))) (gd(s) - gd(s0)),   gd(s) = 2 atan(tanh(s/2)).
The sleigh ends up moving in a straight line with speed U (for a > 0, the center ahead of
the blade); all its rotation is converted into translation.
"""
import math

import mechdae as md


def build(m=1.0, I=0.5, a=0.5):
    """The Chaplygin sleigh.

    Parameters
    ----------
    m : float
        Mass (kg).
    I : float
        Moment of inertia about the center of mass (kg m^2).
    a : float
        Distance from the blade contact point P to the center of mass C (m), C ahead of P.

    Returns
    -------
    mechdae.Model
        Coordinates ``x, y, theta``; nonholonomic constraint ``"blade"``.
    """
    mod = md.Model("chaplygin_sleigh")
    x, y, th = mod.coordinates("x y theta")
    M = mod.parameter("m", m)
    J = mod.parameter("I", I)
    A = mod.parameter("a", a)
    mod.kinetic_energy(0.5 * M * (md.der(x) ** 2 + md.der(y) ** 2) + 0.5 * J * md.der(th) ** 2)
    mod.nonholonomic(-md.sin(th) * md.der(x) + md.cos(th) * md.der(y) - A * md.der(th),
                     name="blade")
    # what Result.animate draws: the sleigh from its blade P (a behind C) to the front
    e1 = (md.cos(th), md.sin(th))
    mod.draw("sleigh", [(x - A * e1[0], y - A * e1[1]), (x + A * e1[0], y + A * e1[1])])
    mod.draw("C", [(x, y)], radius=0.1 * A)
    mod.draw("blade", [(x - A * e1[0], y - A * e1[1])], kind="point")
    return mod


def initial_velocity(u0, omega0, theta0=0.0, a=0.5):
    """Velocities satisfying the blade constraint for forward speed u0 and spin omega0.

    v_C = u0 e1 + a omega0 e2.

    Returns
    -------
    dict
        ``{"der(x)": ..., "der(y)": ..., "der(theta)": ...}``
    """
    c, s = math.cos(theta0), math.sin(theta0)
    return {"der(x)": u0 * c - a * omega0 * s, "der(y)": u0 * s + a * omega0 * c,
            "der(theta)": omega0}


# `mechdae run models/chaplygin_sleigh.py`: a spinning push; the spin dies out, the sleigh
# straightens and speeds up.
SIMULATION = dict(
    t_final=10.0,
    v0=initial_velocity(0.1, 2.0),
    stabilization="default",
)
