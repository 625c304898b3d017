r"""``Modelica.Mechanics.Translational.Examples.Oscillator``: a mass-spring oscillator
excited at resonance, without and with damping.

Two identical systems side by side. System 1: a sliding mass ``mass1`` (``m = 1`` kg,
length ``L = 1`` m, flanges at ``s -+ L/2``) pushed at ``flange_a`` by ``force1`` (a sine of
amplitude 1 N and frequency ``f = 15.9155`` Hz, i.e. ``2 pi f = 100`` rad/s) and held at
``flange_b`` by ``spring1`` (``c = 10000`` N/m, unstretched length ``s_rel0 = 1`` m) to
``fixed1`` (``s0 = 1`` m). System 2 is the same with a ``damper1`` (``d = 10`` N s/m) in
parallel with ``spring2``. Both masses start at rest at ``s = -0.5`` m, where the spring is
unstretched (``s_rel = s0 - (s + L/2) = 1``). MSL's experiment: ``StopTime = 1`` s.

The resonance frequency ``omega_res = sqrt(c/m) = 100`` rad/s equals the excitation
frequency (to the 7 digits of ``f``): the undamped amplitude grows linearly in time,
the damped one is bounded by ``1 / (d omega)``. With ``x = s + 0.5``:

.. math::

    m \ddot x_1 + c x_1 = \sin(\omega t), \qquad
    m \ddot x_2 + d \dot x_2 + c x_2 = \sin(\omega t),

whose exact solutions (``expm`` of the state matrix augmented with the oscillator that
generates the sine; at exact resonance ``x_1 = (sin wt - wt cos wt) / (2 m w^2)``) the tests
compare with the simulation; and, for the undamped system, the energy balance
``m v^2/2 + c x^2/2 = int f v dt`` (the work of the force).
"""
import mechdae as md
from mechdae.components import translational as tr

SIMULATION = dict(
    t_final=1.0,                                   # MSL experiment(StopTime=1.0)
    q0={"mass1.s": -0.5, "mass2.s": -0.5},
    v0={"mass1.v": 0.0, "mass2.v": 0.0},
    method="auto",
    stabilization=None,
    plot=["mass1.s", "mass2.s"],
)


def build(m=1.0, L=1.0, c=10000.0, s_rel0=1.0, s0=1.0, d=10.0, f=15.9155, amplitude=1.0):
    """Build MSL's ``Oscillator`` (both systems share the given parameters)."""
    model = md.Model("Oscillator")
    sine = lambda t: amplitude * md.sin(2 * md.pi * f * t)   # Blocks.Sources.Sine(f=f)
    mass1 = model.add(tr.Mass("mass1", m=m, L=L, s=-0.5))
    spring1 = model.add(tr.Spring("spring1", c=c, s_rel0=s_rel0))
    fixed1 = model.add(tr.Fixed("fixed1", s0=s0))
    force1 = model.add(tr.Force("force1", f=sine))
    mass2 = model.add(tr.Mass("mass2", m=m, L=L, s=-0.5))
    spring2 = model.add(tr.Spring("spring2", c=c, s_rel0=s_rel0))
    fixed2 = model.add(tr.Fixed("fixed2", s0=s0))
    force2 = model.add(tr.Force("force2", f=sine))
    damper1 = model.add(tr.Damper("damper1", d=d))
    model.connect(mass1.flange_b, spring1.flange_a)
    model.connect(spring2.flange_a, damper1.flange_a)
    model.connect(mass2.flange_b, spring2.flange_a)
    model.connect(damper1.flange_b, spring2.flange_b)
    model.connect(spring1.flange_b, fixed1.flange)
    model.connect(force2.flange, mass2.flange_a)
    model.connect(force1.flange, mass1.flange_a)
    model.connect(spring2.flange_b, fixed2.flange)
    return model
