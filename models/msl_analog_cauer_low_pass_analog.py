r"""``Modelica.Electrical.Analog.Examples.CauerLowPassAnalog``: a fifth-order Cauer
(elliptic) low-pass filter built from an LC ladder with resistive terminations.

The step source ``V`` (``StepVoltage``: 0 before ``startTime = 1`` s, ``V = 1`` V after)
drives the ladder through ``R1 = 1`` Ohm; the output is the voltage ``R2.p.v`` across the
load ``R2 = 1`` Ohm. Nodes: ``n1`` (``R1.n``, ``C1.p``, ``L1.p``, ``C2.p``), ``n3`` (``L1.n``,
``C2.n``, ``C3.p``, ``C4.p``, ``L2.p``), ``n5`` (``L2.n``, ``C4.n``, ``C5.p``, ``R2.p``):

- shunt capacitors ``C1 = c1 = 1.072``, ``C3 = c3 = 1.682``, ``C5 = c5 = 0.7262`` F;
- series tanks ``L1 = l1 = 1.304`` H parallel to ``C2 = c2 = 1/(1.704992^2 l1)``, and
  ``L2 = l2 = 0.8586`` H parallel to ``C4 = c4 = 1/(1.179945^2 l2)``; each tank resonates at
  ``omega = 1.704992`` resp. ``1.179945`` rad/s, where its impedance is infinite: these are
  the filter's transmission zeros (the elliptic stop band's notches).

MSL's experiment: ``StopTime = 60`` s, ``C1.v``, ``C3.v``, ``C5.v``, ``L1.i``, ``L2.i`` start at 0.

The capacitors ``C1``, ``C2``, ``C3`` (and ``C3``, ``C4``, ``C5``) form loops of capacitors only:
``C1.v = C2.v + C3.v``, so only 5 of the 7 reactive elements carry independent states and
the DAE has index 2; mechdae's index reduction finds it.

Physics (checked in tests/test_msl_examples.py): the node equations

.. math::

    \begin{pmatrix} c_1 + c_2 & -c_2 & 0 \\ -c_2 & c_2 + c_3 + c_4 & -c_4 \\
    0 & -c_4 & c_4 + c_5 \end{pmatrix} \dot u =
    \begin{pmatrix} (V - u_1)/R_1 - i_{L1} \\ i_{L1} - i_{L2} \\ i_{L2} - u_5/R_2 \end{pmatrix},
    \quad l_1 \dot i_{L1} = u_1 - u_3, \quad l_2 \dot i_{L2} = u_3 - u_5

are linear, ``x(t) = x_ss + expm(A (t - 1)) (x(1) - x_ss)`` after the step; the DC gain
(inductors short, capacitors open) is ``R2/(R1 + R2) = 1/2``; and a sine at a notch
frequency is not transmitted in the steady state.
"""
import mechdae as md
from mechdae.components import electrical as el

SIMULATION = dict(
    t_final=60.0,                                  # MSL experiment(StopTime=60)
    q0={"C1.v": 0.0, "C3.v": 0.0, "C5.v": 0.0, "L1.i": 0.0, "L2.i": 0.0},
    v0={},
    method="auto",
    stabilization="default",
    plot=["V.p.v", "R2.p.v"],                      # what MSL's documentation asks to plot
)


def build(l1=1.304, l2=0.8586, c1=1.072, c2=None, c3=1.682, c4=None, c5=0.7262,
          R1=1.0, R2=1.0, V=1.0, startTime=1.0, offset=0.0, source=None):
    """Build MSL's ``CauerLowPassAnalog``.

    Parameters
    ----------
    l1, l2, c1 .. c5 : float
        Filter coefficients (MSL's defaults; ``c2``, ``c4`` default to MSL's
        ``1/(1.704992^2 l1)`` and ``1/(1.179945^2 l2)``).
    R1, R2 : float
        Source and load resistances (Ohm).
    V, startTime, offset : float
        The StepVoltage source: ``offset`` before ``startTime``, ``offset + V`` after.
    source : callable, optional
        Another source voltage ``source(t)`` (md functions of t) instead of the step,
        e.g. ``lambda t: md.sin(1.704992 * t)`` to drive the filter at a notch.
    """
    c2 = 1 / (1.704992 ** 2 * l1) if c2 is None else c2
    c4 = 1 / (1.179945 ** 2 * l2) if c4 is None else c4
    if source is None:
        source = lambda t: offset + md.if_else(t >= startTime, V, 0.0)   # noqa: E731
    m = md.Model("CauerLowPassAnalog")
    G = m.add(el.Ground("G"))
    C1 = m.add(el.Capacitor("C1", C=c1))
    C2 = m.add(el.Capacitor("C2", C=c2))
    C3 = m.add(el.Capacitor("C3", C=c3))
    C4 = m.add(el.Capacitor("C4", C=c4))
    C5 = m.add(el.Capacitor("C5", C=c5))
    L1 = m.add(el.Inductor("L1", L=l1))
    L2 = m.add(el.Inductor("L2", L=l2))
    R1_ = m.add(el.Resistor("R1", R=R1))
    R2_ = m.add(el.Resistor("R2", R=R2))
    Vs = m.add(el.VoltageSource("V", V=source))
    m.connect(R1_.n, C1.p)
    m.connect(C1.n, G.p)
    m.connect(L1.p, C2.p)
    m.connect(L1.p, C1.p)
    m.connect(L1.n, C2.n)
    m.connect(C2.n, C3.p)
    m.connect(C2.n, C4.p)
    m.connect(C2.n, L2.p)
    m.connect(L2.n, C4.n)
    m.connect(C4.n, C5.p)
    m.connect(C4.n, R2_.p)
    m.connect(C1.n, C3.n)
    m.connect(C1.n, C5.n)
    m.connect(R2_.n, C1.n)
    m.connect(R1_.p, Vs.p)
    m.connect(Vs.n, G.p)
    return m
