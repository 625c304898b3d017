r"""``Modelica.Mechanics.Translational.Examples.Damper``: a damper in three configurations.

Three sliding masses (``m = 1`` kg, ``L = 1`` m), each starting at ``s = 3`` m with
``v = 10`` m/s, are tied to a fixed point at ``s0 = 4.5`` m:

1. ``mass1`` through ``damper1`` alone (``d = 25`` N s/m);
2. ``mass2`` through ``damper2`` (``d = 25``) in parallel with ``spring2`` (``c = 1`` N/m,
   ``s_rel0 = 1`` m), two components connected flange to flange;
3. ``mass3`` through one ``springDamper3`` (``c = 1``, ``d = 25``, ``s_rel0 = 1``).

MSL's experiment: ``StopTime = 1`` s.

Physics (checked in tests/test_msl_examples.py): the pure damper gives
``v1 = v0 exp(-d t / m)`` and ``s1 = s(0) + v0 m/d (1 - exp(-d t/m))``. With the spring,
the spring is unstretched at ``s = s0 - L/2 - s_rel0 = 3``, so ``x = s - 3`` obeys
``m x'' + d x' + c x = 0`` with ``x(0) = 0``, ``x'(0) = 10`` (overdamped, roots
``(-d -+ sqrt(d^2 - 4 m c)) / (2 m)``); systems 2 and 3 are the same system, so
``mass2`` and ``mass3`` coincide along the whole run, as do the forces of
``spring2 + damper2`` and ``springDamper3``. The energy lost equals the damper's
``int lossPower dt``.
"""
import mechdae as md
from mechdae.components import translational as tr

SIMULATION = dict(
    t_final=1.0,                                   # MSL experiment(StopTime=1.0)
    q0={"mass1.s": 3.0, "mass2.s": 3.0, "mass3.s": 3.0},
    v0={"mass1.v": 10.0, "mass2.v": 10.0, "mass3.v": 10.0},
    method="auto",
    stabilization=None,
    plot=["mass1.s", "mass2.s", "mass3.s"],
)


def build(m=1.0, L=1.0, d=25.0, c=1.0, s_rel0=1.0, s0=4.5):
    """Build MSL's ``Damper`` (the three systems share the given parameters)."""
    model = md.Model("Damper")
    mass1 = model.add(tr.Mass("mass1", m=m, L=L, s=3.0, v=10.0))
    damper1 = model.add(tr.Damper("damper1", d=d))
    fixed1 = model.add(tr.Fixed("fixed1", s0=s0))
    mass2 = model.add(tr.Mass("mass2", m=m, L=L, s=3.0, v=10.0))
    damper2 = model.add(tr.Damper("damper2", d=d))
    fixed2 = model.add(tr.Fixed("fixed2", s0=s0))
    mass3 = model.add(tr.Mass("mass3", m=m, L=L, s=3.0, v=10.0))
    fixed3 = model.add(tr.Fixed("fixed3", s0=s0))
    spring2 = model.add(tr.Spring("spring2", c=c, s_rel0=s_rel0))
    springDamper3 = model.add(tr.SpringDamper("springDamper3", c=c, d=d, s_rel0=s_rel0))
    model.connect(mass1.flange_b, damper1.flange_a)
    model.connect(mass2.flange_b, damper2.flange_a)
    model.connect(damper2.flange_b, spring2.flange_b)
    model.connect(damper2.flange_a, spring2.flange_a)
    model.connect(mass3.flange_b, springDamper3.flange_a)
    model.connect(damper1.flange_b, fixed1.flange)
    model.connect(damper2.flange_b, fixed2.flange)
    model.connect(springDamper3.flange_b, fixed3.flange)
    return model
