r"""``Modelica.Mechanics.Translational.Examples.ElastoGap``: a mass between two
spring-dampers compared with a mass between two elastic gaps.

Two rods (``L = 2`` m) fixed at the origin reach to ``-2`` and ``+2``. ``mass1`` (``m = 1``
kg, at ``s = 2`` at rest) sits between ``springDamper1`` (from ``-2``) and
``springDamper2`` (to ``+2``), ``c = 10`` N/m, ``d = 1.5`` N s/m, ``s_rel0 = 1`` m;
``mass2`` (same start) sits between ``elastoGap1`` and ``elastoGap2`` with the same ``c``,
``d`` and ``s_rel0 = 1.5`` m, which push only while compressed below ``s_rel0``. MSL's
experiment: ``StopTime = 5`` s.

tests/test_msl_reference.py compares ``elastoGap1.v_rel``, ``elastoGap2.s_rel``,
``springDamper1.v_rel``, ``springDamper2.s_rel`` with the MSL reference result.
"""
import mechdae as md
from mechdae.components import translational as tr

SIMULATION = dict(
    t_final=5.0,                                   # MSL experiment(StopTime=5)
    q0={"mass1.s": 2.0, "mass2.s": 2.0},
    v0={"mass1.v": 0.0, "mass2.v": 0.0},
    method="auto",
    stabilization="default",
    plot=["mass1.s", "mass2.s"],
)


def build(c=10.0, d=1.5):
    """Build MSL's ``ElastoGap`` (``d``: its top-level damping parameter)."""
    model = md.Model("ElastoGap")
    fixed = model.add(tr.Fixed("fixed"))
    rod1 = model.add(tr.Rod("rod1", L=2.0))
    rod2 = model.add(tr.Rod("rod2", L=2.0))
    sd1 = model.add(tr.SpringDamper("springDamper1", c=c, s_rel0=1.0, d=d))
    sd2 = model.add(tr.SpringDamper("springDamper2", c=c, s_rel0=1.0, d=d))
    mass1 = model.add(tr.Mass("mass1", m=1.0, L=0.0))
    gap1 = model.add(tr.ElastoGap("elastoGap1", c=c, s_rel0=1.5, d=d))
    gap2 = model.add(tr.ElastoGap("elastoGap2", c=c, s_rel0=1.5, d=d))
    mass2 = model.add(tr.Mass("mass2", m=1.0, L=0.0))
    model.connect(rod1.flange_b, fixed.flange)
    model.connect(fixed.flange, rod2.flange_a)
    model.connect(sd1.flange_a, rod1.flange_a)
    model.connect(sd2.flange_b, rod2.flange_b)
    model.connect(sd1.flange_b, mass1.flange_a)
    model.connect(mass1.flange_b, sd2.flange_a)
    model.connect(rod1.flange_a, gap1.flange_a)
    model.connect(rod2.flange_b, gap2.flange_b)
    model.connect(gap1.flange_b, mass2.flange_a)
    model.connect(mass2.flange_b, gap2.flange_a)
    return model
