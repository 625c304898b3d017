r"""``Modelica.Mechanics.Translational.Examples.SignConvention``: the sign conventions of
forces and flanges.

Three free sliding masses (``m = 1`` kg, ``L = 1`` m, at rest at ``s = 0``), each driven by
a constant force of 1 N (``Blocks.Sources.Constant(k=1)`` into ``Sources.Force``):

1. ``force1`` pushes ``mass1`` at its ``flange_a``;
2. ``force2`` pulls ``mass2`` at its ``flange_b``;
3. ``force3`` is drawn the other way round, connected to ``mass3.flange_b``; in MSL its
   support is connected to ``fixed`` but ``useSupport=false`` removes that connection
   (a conditional connector that does not exist), so ``fixed`` is an unconnected
   component, kept here for the name.

A source's force acts on its flange in the positive direction (``flange.f = -f``)
whichever flange of the mass it is connected to, so all three masses move alike:
``a = 1`` m/s^2, ``v = 1`` m/s and ``s = 0.5`` m after 1 s, as MSL's documentation
states. MSL's experiment: ``StopTime = 1`` s. tests/test_msl_examples.py checks these
numbers and Newton's law ``m a = flange_a.f + flange_b.f`` from the connector forces.
"""
import mechdae as md
from mechdae.components import translational as tr

SIMULATION = dict(
    t_final=1.0,                                   # MSL experiment(StopTime=1.0)
    q0={"mass1.s": 0.0, "mass2.s": 0.0, "mass3.s": 0.0},
    v0={"mass1.v": 0.0, "mass2.v": 0.0, "mass3.v": 0.0},
    method="auto",
    stabilization=None,
    plot=["mass1.s", "mass2.s", "mass3.s"],
)


def build(m=1.0, L=1.0, k=1.0):
    """Build MSL's ``SignConvention`` (``k``: the value of the three Constant blocks)."""
    model = md.Model("SignConvention")
    mass1 = model.add(tr.Mass("mass1", m=m, L=L))
    force1 = model.add(tr.Force("force1", f=k))
    mass2 = model.add(tr.Mass("mass2", m=m, L=L))
    force2 = model.add(tr.Force("force2", f=k))
    mass3 = model.add(tr.Mass("mass3", m=m, L=L))
    force3 = model.add(tr.Force("force3", f=k))
    model.add(tr.Fixed("fixed"))                   # connected only through force3.support
    model.connect(force1.flange, mass1.flange_a)
    model.connect(force2.flange, mass2.flange_b)
    model.connect(mass3.flange_b, force3.flange)
    return model
