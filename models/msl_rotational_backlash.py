r"""``Modelica.Mechanics.Rotational.Examples.Backlash`` (the SpringDamper and ElastoBacklash
parts): an inertia on a spring-damper compared with one on an elastic backlash.

``inertia1`` and ``inertia2`` (``J = 5`` kg m^2) start at rest at ``phi = pi/2`` against
the housing, ``inertia1`` through ``springDamper`` (``c = 2e4`` N m/rad, ``d = 50`` N m s/rad),
``inertia2`` through ``elastoBacklash`` (same ``c``, ``d``, total backlash ``b = pi/4``:
no torque while ``|phi_rel| <= pi/8``). MSL's experiment: ``StopTime = 1`` s.

Adaptation: MSL's example has a third branch with ``ElastoBacklash2`` (backlash with
impacts), which mechdae does not have yet (the ideal-switching part of issue 28); its
reference columns are not among those compared. tests/test_msl_reference.py compares
``elastoBacklash.phi_rel``, ``elastoBacklash.w_rel``, ``springDamper.phi_rel``,
``springDamper.w_rel`` with the MSL reference result.
"""
import math

import mechdae as md
from mechdae.components import rotational as rot

SIMULATION = dict(
    t_final=1.0,                                   # MSL experiment(StopTime=1.0)
    q0={"inertia1.phi": math.pi / 2, "inertia2.phi": math.pi / 2},
    v0={"inertia1.w": 0.0, "inertia2.w": 0.0},
    method="auto",
    stabilization="default",
    plot=["inertia1.phi", "inertia2.phi"],
)


def build(c=20e3, d=50.0, b=math.pi / 4, J=5.0):
    """Build the SpringDamper and ElastoBacklash branches of MSL's ``Backlash``."""
    model = md.Model("Backlash")
    fixed1 = model.add(rot.Fixed("fixed1"))
    fixed2 = model.add(rot.Fixed("fixed2"))
    sd = model.add(rot.SpringDamper("springDamper", c=c, d=d))
    eb = model.add(rot.ElastoBacklash("elastoBacklash", c=c, d=d, b=b))
    inertia1 = model.add(rot.Inertia("inertia1", J=J))
    inertia2 = model.add(rot.Inertia("inertia2", J=J))
    model.connect(sd.flange_b, inertia1.flange_a)
    model.connect(eb.flange_b, inertia2.flange_a)
    model.connect(fixed1.flange, sd.flange_a)
    model.connect(fixed2.flange, eb.flange_a)
    return model
