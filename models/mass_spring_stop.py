r"""Mass on a spring hitting a stop: an impact oscillator built from components.

A mass ``m`` (``tr.Mass``) hangs on a linear spring of stiffness ``c`` (``tr.Spring``) from
a fixed wall (``tr.Fixed``); the spring is relaxed at ``s = 0``. A hard stop (``tr.Stop``)
at ``s = d`` limits the motion, ``s <= d``, with Newton restitution ``e``:

.. math::

    m s'' = -c s \quad (s < d), \qquad s'(t_k^+) = -e\, s'(t_k^-) \quad (s(t_k) = d).

Between impacts the motion is harmonic with ``omega = sqrt(c / m)``. Released at rest from
``s(0) = -A`` (``A > |d|``), ``s(t) = -A cos(omega t)`` until the first impact at

.. math::

    t_1 = \frac{1}{\omega}\arccos\left(-\frac{d}{A}\right), \qquad
    v_1 = \omega \sqrt{A^2 - d^2} .

After impact ``k`` the mass leaves the stop with speed ``e v_k``; energy is conserved in
flight, so it returns with that speed, ``v_{k+1} = e v_k = e^k v_1``, after the flight time

.. math::

    t_{k+1} - t_k = \frac{2}{\omega}\left(\pi - \operatorname{atan2}\!\left(
        \frac{e v_k}{\omega},\, d\right)\right)

(the free oscillation from ``(d, -e v_k)`` back to ``d``). For ``d > 0`` (the stop beyond the
rest position) the flights tend to the period ``2 pi / omega`` and the impacts go on with
geometrically decreasing speeds; for ``d < 0`` (the spring presses the mass on the stop) the
flights shrink like ``2 e v_k / (omega^2 |d|)``, a bouncing ball in the field ``omega^2 |d|``,
with a finite accumulation (Zeno) time, after which the mass rests on the stop with the stop
force ``c |d|``. Each impact dissipates ``m v_k^2 (1 - e^2) / 2``.

Names: ``mass.s``, ``mass.v``, parameters ``mass.m``, ``spring.c``, ``stop.s_max``
(= ``d``), ``stop.e``; the contact is ``stop.upper``.
"""
import mechdae as md
from mechdae.components import translational as tr

SIMULATION = dict(
    t_final=5.0,
    q0={"mass.s": -1.0},
    v0={},
    method="event",
    stabilization=None,
    plot=["mass.s", "mass.v"],
)


def build(m=1.0, c=4.0, d=0.5, e=0.8):
    """Build the mass-spring-stop oscillator.

    Parameters
    ----------
    m : float
        Mass (kg), parameter ``"mass.m"``.
    c : float
        Spring stiffness (N/m), parameter ``"spring.c"``; the spring is relaxed at ``s = 0``.
    d : float
        Position of the stop (m), parameter ``"stop.s_max"``.
    e : float
        Restitution of the stop, parameter ``"stop.e"``.

    Returns
    -------
    Model
    """
    model = md.Model("mass_spring_stop")
    wall = model.add(tr.Fixed("wall", s0=-1.0))
    spring = model.add(tr.Spring("spring", c=c, s_rel0=1.0))
    mass = model.add(tr.Mass("mass", m=m))
    stop = model.add(tr.Stop("stop", s_max=d, e=e))
    model.connect(wall.flange, spring.flange_a)
    model.connect(spring.flange_b, mass.flange_a)
    model.connect(mass.flange_b, stop.flange)
    return model
