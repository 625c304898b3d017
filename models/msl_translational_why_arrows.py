r"""``Modelica.Mechanics.Translational.Examples.WhyArrows``: what the arrows of the
Translational icons mean (the flange axis direction).

Three rods (``L = 1`` m) hang on ``fixed`` at the origin: ``rod1`` ends there with its
``flange_b`` (so its ``flange_a`` is at ``-1``), ``rod2`` and ``rod3`` start there (their
``flange_b`` at ``+1``); position sensors read the free ends. ``mass1`` and ``inertia2``
(``m = 1`` kg, ``L = 2`` m, at rest at ``s = 0``) hang at their ``flange_b`` on springs
(``c = 11`` N/m, ``s_rel0 = 2`` m) from ``fixed1`` / ``fixed2`` at ``s0 = -1.9`` m. MSL's
experiment: ``StopTime = 1`` s.

Physics: the springs are compressed by ``2 - (1 - (-1.9)) = -0.9`` m at the start, so
both masses oscillate about ``s = -0.9`` m with ``omega = sqrt(11)``:
``s = -0.9 + 0.9 cos(omega t)``. tests/test_msl_reference.py compares ``mass1`` and
``inertia2`` with the MSL reference result and checks the sensors.
"""
import mechdae as md
from mechdae.components import translational as tr

SIMULATION = dict(
    t_final=1.0,                                   # MSL experiment(StopTime=1.0)
    q0={"mass1.s": 0.0, "inertia2.s": 0.0},
    v0={"mass1.v": 0.0, "inertia2.v": 0.0},
    method="auto",
    stabilization="default",
    plot=["mass1.s", "inertia2.s"],
)


def build():
    """Build MSL's ``WhyArrows``."""
    model = md.Model("WhyArrows")
    fixed = model.add(tr.Fixed("fixed"))
    rods = [model.add(tr.Rod(f"rod{k}", L=1.0)) for k in (1, 2, 3)]
    sensors = [model.add(tr.PositionSensor(f"positionSensor{k}")) for k in (1, 2, 3)]
    fixed1 = model.add(tr.Fixed("fixed1", s0=-1.9))
    fixed2 = model.add(tr.Fixed("fixed2", s0=-1.9))
    spring1 = model.add(tr.Spring("spring1", s_rel0=2.0, c=11.0))
    spring2 = model.add(tr.Spring("spring2", s_rel0=2.0, c=11.0))
    mass1 = model.add(tr.Mass("mass1", L=2.0, m=1.0))
    inertia2 = model.add(tr.Mass("inertia2", L=2.0, m=1.0))
    model.connect(spring1.flange_b, mass1.flange_b)
    model.connect(spring2.flange_b, inertia2.flange_b)
    model.connect(rods[2].flange_b, sensors[2].flange)
    model.connect(rods[0].flange_a, sensors[0].flange)
    model.connect(rods[0].flange_b, fixed.flange)
    model.connect(rods[2].flange_a, fixed.flange)
    model.connect(fixed.flange, rods[1].flange_a)
    model.connect(rods[1].flange_b, sensors[1].flange)
    model.connect(fixed1.flange, spring1.flange_a)
    model.connect(fixed2.flange, spring2.flange_a)
    return model
