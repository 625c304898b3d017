r"""A ball bouncing on a vibrating table (the bouncing-ball map of Holmes).

A ball of radius ``R`` and mass ``m``, center height ``y``, above a table whose surface moves
as ``s(t) = A sin(omega t)``. The contact is rheonomic, with gap and relative normal
velocity

.. math::

    g = y - R - A \sin\omega t, \qquad v_n = y' - A\omega\cos\omega t ,

and Newton's law acts on the relative velocity: ``v_n^+ = -e v_n^-``, i.e. the ball leaves
the table with ``y'^+ = s'(t) - e (y'^- - s'(t)) = (1 + e) s'(t) - e y'^-`` (P. J. Holmes,
*The dynamics of repeated impacts with a sinusoidally vibrating table*, J. Sound Vib. 84,
1982). Between impacts ``T = m/2 y'^2``, ``V = m g y``.
"""
import mechdae as md

SIMULATION = dict(
    t_final=2.0,
    q0={"y": 0.3},
    v0={},
    method="event",
    stabilization=None,
    plot=["y"],
)


def build(R=0.1, m=1.0, g=9.81, e=0.5, A=0.01, omega=20.0):
    """Build the ball on the vibrating table.

    Parameters
    ----------
    R, m, g : float
        Radius (m), mass (kg), gravity (m/s^2).
    e : float
        Restitution of the table contact.
    A, omega : float
        Table amplitude (m) and angular frequency (rad/s).
    """
    model = md.Model("vibrating_table")
    y = model.coordinates("y")
    R = model.parameter("R", R)
    mass = model.parameter("m", m)
    g = model.parameter("g", g)
    e = model.parameter("e", e)
    A = model.parameter("A", A)
    omega = model.parameter("omega", omega)
    model.kinetic_energy(0.5 * mass * md.der(y) ** 2)
    model.potential_energy(mass * g * y)
    model.contact("table", gap=y - R - A * md.sin(omega * model.time), restitution=e)
    # what Result.animate draws: the ball, its contact point and the moving table
    table = A * md.sin(omega * model.time)
    model.draw("ball", [(0.0, y)], radius=R)
    model.draw("table", [(0.0, y - R)], kind="point")
    model.draw("top", [(-2 * R, table), (2 * R, table)], kind="surface")
    return model
