r"""``Modelica.Mechanics.Translational.Examples.InitialConditions``: initial conditions
given on masses and on relative quantities.

Upper chain: ``fixed2`` (``s0 = 1``) -- spring ``s2`` (``c = 1e3``, ``s_rel0 = 2``) --
mass ``m3`` (``L = 3``, start ``s = 4.5``) -- SpringDamper ``sd2`` (``c = 111``, ``d = 1``,
``s_rel0 = 4``) -- mass ``m4`` (``L = 5``, start ``s = 12.5``), at rest. Lower chain:
``fixed1`` (``s0 = -1``) -- spring ``s1`` (``c = 1e3``, ``s_rel0 = 1``, start ``s_rel =
0.5``) -- ``m1`` (``L = 1``) -- SpringDamper ``sd1`` (``c = 111``, ``d = 1``, ``s_rel0 = 1``,
start ``s_rel = 1``, ``v_rel = 0``) -- ``m2`` (``L = 2``), at rest. All masses 1 kg. MSL's
experiment: ``StopTime = 5`` s.

The relative start values fix the lower masses' positions: ``m1.s = -1 + 0.5 + 1/2 = 0``
and ``m2.s = (m1.s + 1/2) + 1 + 2/2 = 2.5`` (mechdae takes start values of coordinates, so
the model's SIMULATION gives these). tests/test_msl_reference.py compares ``m1``, ``m3``,
``sd1`` and ``sd2`` with the MSL reference result.
"""
import mechdae as md
from mechdae.components import translational as tr

SIMULATION = dict(
    t_final=5.0,                                   # MSL experiment(StopTime=5.0)
    q0={"m1.s": 0.0, "m2.s": 2.5, "m3.s": 4.5, "m4.s": 12.5},
    v0={"m1.v": 0.0, "m2.v": 0.0, "m3.v": 0.0, "m4.v": 0.0},
    method="auto",
    stabilization="default",
    plot=["m1.s", "m3.s"],
)


def build():
    """Build MSL's ``InitialConditions``."""
    model = md.Model("InitialConditions")
    fixed2 = model.add(tr.Fixed("fixed2", s0=1.0))
    s2 = model.add(tr.Spring("s2", s_rel0=2.0, c=1e3))
    m3 = model.add(tr.Mass("m3", L=3.0, m=1.0))
    sd2 = model.add(tr.SpringDamper("sd2", s_rel0=4.0, c=111.0, d=1.0))
    m4 = model.add(tr.Mass("m4", L=5.0, m=1.0))
    fixed1 = model.add(tr.Fixed("fixed1", s0=-1.0))
    s1 = model.add(tr.Spring("s1", s_rel0=1.0, c=1e3))
    m1 = model.add(tr.Mass("m1", L=1.0, m=1.0))
    sd1 = model.add(tr.SpringDamper("sd1", s_rel0=1.0, c=111.0, d=1.0))
    m2 = model.add(tr.Mass("m2", L=2.0, m=1.0))
    model.connect(s2.flange_a, fixed2.flange)
    model.connect(s1.flange_a, fixed1.flange)
    model.connect(m1.flange_a, s1.flange_b)
    model.connect(sd1.flange_a, m1.flange_b)
    model.connect(m2.flange_a, sd1.flange_b)
    model.connect(m4.flange_a, sd2.flange_b)
    model.connect(sd2.flange_a, m3.flange_b)
    model.connect(m3.flange_a, s2.flange_b)
    return model
