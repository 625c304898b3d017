r"""``Modelica.Mechanics.Translational.Examples.Accelerate``: a mass moved by an
acceleration source.

``accelerate`` (``Sources.Accelerate``, fed by ``Blocks.Sources.Constant(k=1)``: ``a_ref =
1`` m/s^2, states ``s``, ``v`` starting at 0) moves ``mass`` (``m = 1`` kg, ``L = 1`` m) at
its ``flange_a``. MSL's experiment: ``StopTime = 1`` s.

Physics: a constant reference positions the flange in closed form, ``s = t^2/2``,
``v = t``; the mass has no degree of freedom left (its coordinate is eliminated by the
rheonomic definition) and the source's force ``-accelerate.flange.f = m a = 1`` N.
tests/test_msl_reference.py compares ``accelerate.s`` and ``accelerate.v`` with the MSL
reference result.
"""
import mechdae as md
from mechdae.components import translational as tr

SIMULATION = dict(
    t_final=1.0,                                   # MSL experiment(StopTime=1.0)
    q0={},
    v0={},
    method="auto",
    stabilization="default",
    plot=["accelerate.s", "accelerate.v"],
)


def build(k=1.0, m=1.0, L=1.0):
    """Build MSL's ``Accelerate`` (``k``: the value of the Constant block)."""
    model = md.Model("Accelerate")
    accelerate = model.add(tr.Accelerate("accelerate", a_ref=k))
    mass = model.add(tr.Mass("mass", m=m, L=L))
    model.connect(accelerate.flange, mass.flange_a)
    return model
