r"""``Modelica.Mechanics.MultiBody.Examples.Elementary.SpringMassSystem``: a mass hanging
from a spring, modeled twice — with a 1-D spring on a prismatic joint's axis flange, and
with a multibody spring between two frames.

MSL's model: ``world`` (``g = 9.81`` m/s^2 along -y); ``bar1`` and ``bar2``
(``FixedTranslation``, ``r = {0.3, 0, 0}`` each, in series from the world frame).
System 1: prismatic joint ``p1`` (``n = {0, -1, 0}``, downward; ``useAxisFlange``) from
``bar1.frame_b`` to ``body1`` (``m = 1`` kg, center of mass at frame_a); a translational
``spring1`` (``c = 30`` N/m, ``s_rel0 = 0.1`` m) between ``p1``'s bearing and axis.
System 2: prismatic ``p2`` (the same) from ``bar2.frame_b`` to ``body2`` (``m = 1`` kg) and a
multibody ``spring2`` (``c = 30`` N/m, ``s_unstretched = 0.1`` m) from ``bar2.frame_b`` to
``body2.frame_a``. Both joints start at ``s = 0.1`` m (the springs unstretched),
``v = 0``; MSL's experiment: ``StopTime = 5`` s.

Adaptations to the planar library: ``Body`` (MSL default inertia ``I_33 = 0.001`` kg m^2,
irrelevant here: the bodies only translate) is ``pl.Body``; ``ActuatedPrismatic`` is
``pl.Prismatic(r=(0, -1), useAxisFlange=True)`` (``support`` = MSL's ``bearing``);
``Forces.Spring`` is ``pl.Spring`` (its ``s_rel0`` is MSL's ``s_unstretched``; MSL's
spring mass ``m = 0`` and its animation are left out).

Both systems are ``m s'' = m g - c (s - s_rel0)``: oscillation about the equilibrium
``s_eq = s_rel0 + m g / c = 0.427`` m with amplitude ``m g / c = 0.327`` m and period
``T = 2 pi sqrt(m / c) = 1.147`` s, the closed form the tests compare with; the two systems
move identically.
"""
import mechdae as md
from mechdae.components import planar as pl
from mechdae.components import translational as tr

SIMULATION = dict(
    t_final=5.0,                                  # MSL experiment(StopTime=5)
    q0={"p1.s": 0.1, "p2.s": 0.1},                # s(fixed=true, start=0.1)
    v0={"p1.v": 0.0, "p2.v": 0.0},
    method="auto",
    stabilization=None,                           # a tree: no constraint
    plot=["p1.s", "p2.s", "body1.frame_a.y", "body2.frame_a.y"],
)


def build(m=1.0, c=30.0, s_rel0=0.1, bar_r=(0.3, 0.0), g=9.81, s0=0.1, I_33=0.001):
    """Build MSL's SpringMassSystem; keyword arguments are the MSL parameters (both
    systems alike) and the joints' start position."""
    model = md.Model("msl_multibody_spring_mass")
    world = model.add(pl.World("world", g=g))
    p1 = model.add(pl.Prismatic("p1", r=(0.0, -1.0), s0=s0, useAxisFlange=True))
    spring1 = model.add(tr.Spring("spring1", c=c, s_rel0=s_rel0))
    body1 = model.add(pl.Body("body1", m=m, I=I_33))
    bar1 = model.add(pl.FixedTranslation("bar1", r=tuple(bar_r)))
    bar2 = model.add(pl.FixedTranslation("bar2", r=tuple(bar_r)))
    body2 = model.add(pl.Body("body2", m=m, I=I_33))
    p2 = model.add(pl.Prismatic("p2", r=(0.0, -1.0), s0=s0))
    spring2 = model.add(pl.Spring("spring2", c=c, s_rel0=s_rel0))
    model.connect(body1.frame_a, p1.frame_b)
    model.connect(world.frame, bar1.frame_a)
    model.connect(bar1.frame_b, p1.frame_a)
    model.connect(p1.support, spring1.flange_a)
    model.connect(spring1.flange_b, p1.axis)
    model.connect(bar1.frame_b, bar2.frame_a)
    model.connect(bar2.frame_b, p2.frame_a)
    model.connect(p2.frame_b, body2.frame_a)
    model.connect(bar2.frame_b, spring2.frame_a)
    model.connect(body2.frame_a, spring2.frame_b)
    return model
