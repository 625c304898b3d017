r"""Stick-slip: a block on a rough incline driven by a harmonic force.

A block of mass ``m`` on a plane inclined at ``alpha``, coordinates ``x`` (along the plane,
up the slope) and ``y`` (normal to it, gap ``g = y``); Coulomb friction ``mu`` (static =
kinetic); a driving force ``F(t) = F0 sin(omega t)`` along the slope:

.. math::

    T = \tfrac{m}{2}(x'^2 + y'^2), \quad V = m g (x \sin\alpha + y \cos\alpha), \quad
    Q_x = F_0 \sin\omega t .

While sticking the friction force is ``lambda_t = m g sin(alpha) - F(t)``, admissible while
``|F(t) - m g sin alpha| <= mu m g cos alpha``; slip starts when the bound is reached. While
sliding, ``m x'' = F(t) - m g sin(alpha) - mu m g cos(alpha) sign(x')``, integrated in
closed form,

.. math::

    x'(t) = \frac{F_0}{m \omega}(\cos\omega t_s - \cos\omega t)
            - g(\sin\alpha + \mu \cos\alpha\, s)(t - t_s),

and the block sticks again at the first zero of ``x'`` where the bound holds (the classic
forced stick-slip oscillator; e.g. Den Hartog, *Forced vibrations with combined Coulomb and
viscous friction*, Trans. ASME 1931).
"""
import mechdae as md

SIMULATION = dict(
    t_final=6.0,
    q0={"x": 0.0, "y": 0.0},
    v0={},
    method="event",
    stabilization=None,
    plot=["x"],
)


def build(m=1.0, g=9.81, alpha=0.0, F0=6.0, omega=2.0, mu=0.3):
    """Build the stick-slip block.

    Parameters
    ----------
    m, g, alpha, F0, omega : float
        Mass (kg), gravity (m/s^2), slope angle (rad), force amplitude (N) and angular
        frequency (rad/s): parameter defaults.
    mu : float
        Friction coefficient (fixed at build time).
    """
    model = md.Model("stick_slip")
    x, y = model.coordinates("x y")
    mass = model.parameter("m", m)
    g = model.parameter("g", g)
    alpha = model.parameter("alpha", alpha)
    F0 = model.parameter("F0", F0)
    omega = model.parameter("omega", omega)
    model.kinetic_energy(0.5 * mass * (md.der(x) ** 2 + md.der(y) ** 2))
    model.potential_energy(mass * g * (x * md.sin(alpha) + y * md.cos(alpha)))
    model.generalized_force(F0 * md.sin(omega * model.time), x)
    model.contact("support", gap=y, tangent=x, restitution=0.0, friction=mu)
    # what Result.animate draws (in the incline's axes): the block and its contact point
    w, h = 0.2, 0.1
    model.draw("block", [(x - w / 2, y), (x + w / 2, y), (x + w / 2, y + h), (x - w / 2, y + h)])
    model.draw("support", [(x, y)], kind="point")
    model.draw("incline", [(-2.0, 0.0), (2.0, 0.0)], kind="surface")
    return model
