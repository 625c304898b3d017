r"""``Modelica.Mechanics.Rotational.Examples.First``: a simple drive train.

A motor inertia ``inertia1`` (``Jmotor = 0.1`` kg m^2) is driven by a sinusoidal torque
``tau(t) = amplitude sin(2 pi f t)`` (``amplitude = 10`` N m, ``f = 5`` Hz). Through an
ideal gear ``idealGear`` (``ratio = 10``: ``inertia1.phi = ratio * inertia2.phi``) it drives
``inertia2`` (``J = 2``), which is connected to the load ``inertia3`` (``Jload = 2``) by a
torsion spring ``spring`` (``c = 1e4`` N m/rad, the elasticity of the gearbox). A damper
``damper`` (``d = damping = 10`` N m s/rad) between ``inertia2`` and the housing ``fixed``
models the damping in the gearbox bearing. MSL's experiment: ``StopTime = 1`` s, all
states at rest at zero (``inertia2.phi = inertia2.w = 0``, ``spring.phi_rel = 0``,
``inertia3.w = 0``).

Adaptation: in MSL the ``torque`` source and the ``idealGear`` have ``useSupport=true``
with their supports connected to ``fixed``. A support bolted to a fixed housing takes the
reaction torque and does not move, which is exactly what a source / gear without a support
does here (the reaction goes to ground); so the mechdae model uses ``rot.Torque`` and
``rot.IdealGear`` without supports. The topology, names and parameters are otherwise MSL's.

Both inertias at the gear define their flange angles, so the gear relation
``inertia1.phi - ratio * inertia2.phi = 0`` is solved for one of them: ``inertia2.phi`` is
eliminated (one coordinate per degree of freedom, still readable by name), and the gear
torque (``idealGear.flange_a.tau``) follows from the eliminated inertia's equation of
motion.

Physics (what tests/test_msl_examples.py checks): with ``phi2 = inertia2.phi`` and
``phi3 = inertia3.phi`` the motor inertia reflected through the gear adds
``ratio^2 Jmotor`` to ``inertia2``:

.. math::

    (J_2 + r^2 J_{motor}) \ddot\varphi_2 &= r\,\tau(t) - d\,\dot\varphi_2
                                          - c(\varphi_2 - \varphi_3) \\
    J_{load} \ddot\varphi_3 &= c(\varphi_2 - \varphi_3),

a linear system whose solution is ``expm`` of the state matrix augmented with the
harmonic oscillator generating ``sin``/``cos``; plus Newton's law at every inertia from
the connector torques, the gear's torque ratio, and the energy balance
``E(t) - E(0) = int tau w1 dt - int d w2^2 dt``.
"""
import mechdae as md
from mechdae.components import rotational as rot

SIMULATION = dict(
    t_final=1.0,                                  # MSL experiment(StopTime=1.0)
    q0={"inertia2.phi": 0.0, "inertia3.phi": 0.0},  # spring.phi_rel(fixed=true) = 0
    v0={"inertia2.w": 0.0, "inertia3.w": 0.0},
    method="auto",
    stabilization="default",
    plot=["inertia2.w", "inertia3.w"],            # what MSL's documentation asks to plot
)


def build(amplitude=10.0, f=5.0, Jmotor=0.1, Jload=2.0, ratio=10.0, damping=10.0):
    """Build MSL's ``First`` (parameters with MSL's names and defaults)."""
    m = md.Model("First")
    fixed = m.add(rot.Fixed("fixed"))
    torque = m.add(rot.Torque("torque", tau=lambda t: amplitude * md.sin(2 * md.pi * f * t)))
    inertia1 = m.add(rot.Inertia("inertia1", J=Jmotor))
    idealGear = m.add(rot.IdealGear("idealGear", ratio=ratio))
    inertia2 = m.add(rot.Inertia("inertia2", J=2.0))
    spring = m.add(rot.Spring("spring", c=1.0e4))
    inertia3 = m.add(rot.Inertia("inertia3", J=Jload))
    damper = m.add(rot.Damper("damper", d=damping))
    m.connect(inertia1.flange_b, idealGear.flange_a)
    m.connect(idealGear.flange_b, inertia2.flange_a)
    m.connect(inertia2.flange_b, spring.flange_a)
    m.connect(spring.flange_b, inertia3.flange_a)
    m.connect(damper.flange_a, inertia2.flange_b)
    m.connect(damper.flange_b, fixed.flange)
    m.connect(torque.flange, inertia1.flange_a)
    return m
