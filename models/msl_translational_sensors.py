r"""``Modelica.Mechanics.Translational.Examples.Sensors``: the translational sensors.

A sinusoidal force (``Blocks.Sources.Sine(amplitude = 10, f = 4)`` into ``Sources.Force``)
pushes ``mass`` (``m = 1`` kg, ``L = 1`` m, at rest at 0) through a ``forceSensor`` and a
``multiSensor`` in series; ``positionSensor1``, ``speedSensor1`` and ``accSensor1`` read
``mass.flange_a``, ``positionSensor2`` reads ``mass.flange_b``. MSL's experiment:
``StopTime = 1`` s.

Physics: the sensors in series are rigid and massless, so ``m a = 10 sin(8 pi t)``:
``v = 10 (1 - cos(8 pi t))/(8 pi)``, ``s = 10 (t - sin(8 pi t)/(8 pi))/(8 pi)``; both force
sensors read the source's force, the multi-sensor's power is ``f v``, the two position
sensors differ by ``L``. tests/test_msl_reference.py checks these and compares ``mass.s``,
``mass.v`` with the MSL reference result.
"""
import mechdae as md
from mechdae.components import translational as tr

SIMULATION = dict(
    t_final=1.0,                                   # MSL experiment(StopTime=1.0)
    q0={"mass.s": 0.0},
    v0={"mass.v": 0.0},
    method="auto",
    stabilization="default",
    plot=["mass.s", "mass.v", "multiSensor.power"],
)


def build(amplitude=10.0, f=4.0, m=1.0, L=1.0):
    """Build MSL's ``Sensors`` (``amplitude``, ``f``: the Sine block's)."""
    model = md.Model("Sensors")
    forceSensor = model.add(tr.ForceSensor("forceSensor"))
    multiSensor = model.add(tr.MultiSensor("multiSensor"))
    speedSensor1 = model.add(tr.SpeedSensor("speedSensor1"))
    positionSensor1 = model.add(tr.PositionSensor("positionSensor1"))
    accSensor1 = model.add(tr.AccSensor("accSensor1"))
    positionSensor2 = model.add(tr.PositionSensor("positionSensor2"))
    mass = model.add(tr.Mass("mass", m=m, L=L))
    force = model.add(tr.Force("force", f=lambda t: amplitude * md.sin(2 * md.pi * f * t)))
    model.connect(forceSensor.flange_a, force.flange)
    model.connect(mass.flange_a, positionSensor1.flange)
    model.connect(mass.flange_a, speedSensor1.flange)
    model.connect(mass.flange_a, accSensor1.flange)
    model.connect(mass.flange_b, positionSensor2.flange)
    model.connect(forceSensor.flange_b, multiSensor.flange_a)
    model.connect(multiSensor.flange_b, mass.flange_a)
    return model
