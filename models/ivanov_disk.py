"""Eccentric disk on a smooth horizontal plane (Ivanov 1993, seed 003, §2, eqs. 2.10-2.17).

A round disk of radius ``rho`` whose center of mass ``G`` lies at distance ``r < rho`` from
its geometric center ``C`` moves in the vertical plane XOZ on a smooth support. Coordinates
of ``G``: ``x`` (horizontal), ``z`` (height); ``phi``: angle of ``CG`` (axis GX') with the
horizontal, so that the lowest point of the disk is at height ``z - f(phi)``,
``f(phi) = rho + r sin(phi)`` (2.2):

    2T = m (x'^2 + z'^2) + J3 phi'^2,   J3 = m j^2,   Pi = m g z,
    gap q = z - rho - r sin(phi) >= 0,  Newton restitution kappa, no friction.

With ``phi(0) = -pi/2`` (G lowest), ``phi'(0) = phi0_dot > 0`` and ``q = q' = 0`` the energy
constant is ``Gamma = E0/(m g r)``, ``E0 = m j^2 phi0_dot^2 / 2 - m g r`` (2.11-2.12). The
disk keeps contact while ``sin^2 phi - 2 Gamma sin phi + 1 + j^2/r^2 >= 0`` (2.13): for
``1 <= Gamma <= Gamma_1 = 1 + j^2/(2 r^2)`` (the paper prints "r +", a misprint) it rotates
without lift-off; for ``Gamma > Gamma_1`` it lifts off at

    phi_1 = asin(Gamma - sqrt(Gamma^2 - 2 Gamma_1 + 1))                          (2.14)

flies with ``phi'' = 0`` (2.15), lands with a decaying infinite sequence of impacts and
returns to the support phase.

Periodic impact-free motions (the paper's sequence Gamma_n, stated without formula; derived
here): the flight (2.15) ends with ``q = q' = 0`` iff it spans ``phi - phi_1 = 2 cot phi_1``
and lands at ``phi = pi - phi_1 (mod 2 pi)``, where ``F = 0`` again, so the support takes
over without an impact. That happens for ``2 cot phi_1 + 2 phi_1 = (2n - 1) pi``, giving
``Gamma_n = (sin^2 phi_1 + 2 Gamma_1 - 1) / (2 sin phi_1)`` (inverse of 2.14); ``n = 1`` is
``Gamma_1`` itself (see :func:`periodic_gammas`).
"""
import math

import mechdae as md

SIMULATION = dict(t_final=1.5, q0={"phi": -math.pi / 2, "z": 0.5}, v0={"phi": 12.0},
                  method="unified", plot=["z", "phi"])


def gamma_values(rho=1.0, r=0.5, j=0.5, g=9.81, phi0_dot=12.0):
    """``(Gamma, Gamma_1, phi_1 or None)`` of (2.12)-(2.14) for the initial spin."""
    G = (0.5 * j ** 2 * phi0_dot ** 2 - g * r) / (g * r)
    G1 = 1.0 + j ** 2 / (2 * r ** 2)
    phi1 = math.asin(G - math.sqrt(G * G - 2 * G1 + 1)) if G > G1 else None
    return G, G1, phi1


def spin_for_gamma(Gamma, r=0.5, j=0.5, g=9.81):
    """Initial ``phi'`` giving the energy constant ``Gamma`` (2.11-2.12)."""
    return math.sqrt(2 * g * r * (Gamma + 1)) / j


def periodic_gammas(n_max, r=0.5, j=0.5):
    """``Gamma_1 < Gamma_2 < ... < Gamma_{n_max}`` of the impact-free periodic motions."""
    from scipy.optimize import brentq
    G1 = 1.0 + j ** 2 / (2 * r ** 2)
    out = []
    for n in range(1, n_max + 1):
        p = math.pi / 2 if n == 1 else brentq(
            lambda x: 2 / math.tan(x) + 2 * x - (2 * n - 1) * math.pi, 1e-12,
            math.pi / 2 - 1e-12, xtol=1e-15)
        S = math.sin(p)
        out.append((S * S + 2 * G1 - 1) / (2 * S))
    return out


def initial_state(rho=1.0, r=0.5, phi0_dot=12.0):
    """``q0, v0`` of the paper: G lowest (phi = -pi/2), on the support, spinning."""
    return {"x": 0.0, "z": rho - r, "phi": -math.pi / 2}, {"x": 0.0, "z": 0.0, "phi": phi0_dot}


def build(m=1.0, rho=1.0, r=0.5, j=0.5, g=9.81, kappa=0.5):
    """Build the eccentric disk; keyword arguments are parameter defaults."""
    model = md.Model("ivanov_disk")
    x, z, phi = model.coordinates("x z phi")
    mass = model.parameter("m", m)
    rho_ = model.parameter("rho", rho)
    r_ = model.parameter("r", r)
    j_ = model.parameter("j", j)
    g_ = model.parameter("g", g)
    model.kinetic_energy(0.5 * mass * (md.der(x) ** 2 + md.der(z) ** 2)
                         + 0.5 * mass * j_ ** 2 * md.der(phi) ** 2)
    model.potential_energy(mass * g_ * z)
    model.contact("support", gap=z - rho_ - r_ * md.sin(phi), restitution=kappa)
    # what Result.animate draws: the disk of radius rho around its geometric center C
    # (G - r (cos phi, sin phi)), the mass center G, the lowest point and the floor
    cx, cz = x - r_ * md.cos(phi), z - r_ * md.sin(phi)
    model.draw("disk", [(cx, cz)], radius=rho_)
    model.draw("G", [(x, z)], radius=0.08 * rho_)
    model.draw("support", [(cx, cz - rho_)], kind="point")
    model.draw("floor", [(-10.0, 0.0), (10.0, 0.0)], kind="surface")
    return model
