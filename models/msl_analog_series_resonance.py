r"""``Modelica.Electrical.Analog.Examples.SeriesResonance``: a series RLC circuit swept
through its resonance.

Two copies of the circuit ``L = 0.1/(2 pi)`` H, ``C = 0.001/(2 pi)`` F, ``R = 0.5`` Ohm
(resonance ``f0 = 1/(2 pi sqrt(L C)) = 100`` Hz) are driven by
``SineVoltageVariableFrequencyAndAmplitude`` and ``CosineVoltageVariableFrequencyAndAmplitude``
(constant amplitude 1 V) whose frequency is ``Blocks.Sources.Ramp(height = 200, duration =
1)``: ``f = 200 t``, so the sweep crosses ``f0`` at ``t = 0.5`` s. Each source's phase
``phi`` is a state, ``der(phi) = 2 pi f`` (``phi = 200 pi t^2``). Capacitor voltages and
inductor currents start at 0 (``fixed=true``); MSL's experiment: ``StopTime = 1`` s.

tests/test_msl_reference.py compares the capacitor voltages, inductor currents and phases
with the MSL reference result; the current's envelope peaks near ``1/R = 2`` A around the
resonance.
"""
import math

import mechdae as md
from mechdae.components import electrical as el

SIMULATION = dict(
    t_final=1.0,                                   # MSL experiment(StopTime=1.0)
    q0={},
    v0={},
    method="auto",
    stabilization="default",
    plot=["inductor1.i", "inductor2.i"],
)


def build(R=0.5, L=0.1 / (2 * math.pi), C=0.001 / (2 * math.pi), height=200.0,
          duration=1.0):
    """Build MSL's ``SeriesResonance`` (``height``, ``duration``: the Ramp block's)."""
    model = md.Model("SeriesResonance")

    def ramp(t):
        return md.if_else(t < duration, t * height / duration, height)

    for k, src in ((1, el.SineVoltageVariableFrequencyAndAmplitude(
            "sineVoltage", useConstantAmplitude=True, f=ramp)),
                   (2, el.CosineVoltageVariableFrequencyAndAmplitude(
            "cosineVoltage", useConstantAmplitude=True, f=ramp))):
        model.add(src)
        g = model.add(el.Ground(f"ground{k}"))
        r = model.add(el.Resistor(f"resistor{k}", R=R))
        ind = model.add(el.Inductor(f"inductor{k}", L=L))
        cap = model.add(el.Capacitor(f"capacitor{k}", C=C))
        cs = model.add(el.CurrentSensor(f"currentSensor{k}"))
        model.connect(src.p, ind.p)
        model.connect(ind.n, cap.p)
        model.connect(cap.n, r.p)
        model.connect(src.n, g.p)
        model.connect(cs.p, r.n)
        model.connect(g.p, cs.n)
    return model
