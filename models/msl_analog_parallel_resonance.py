r"""``Modelica.Electrical.Analog.Examples.ParallelResonance``: a parallel RLC circuit swept
through its resonance.

Two copies of the circuit -- ``capacitor`` (``C = 0.001/(2 pi)`` F) in parallel with
``resistor`` (``R = 0.5`` Ohm) in series with ``inductor`` (``L = 0.1/(2 pi)`` H) -- are fed
by ``SineCurrentVariableFrequencyAndAmplitude`` and
``CosineCurrentVariableFrequencyAndAmplitude`` (constant amplitude 1 A) whose frequency is
``Blocks.Sources.Ramp(height = 200, duration = 1)``: ``f = 200 t``, crossing the resonance
near 100 Hz at ``t = 0.5`` s. Each source's phase is a state, ``der(phi) = 2 pi f``.
Capacitor voltages and inductor currents start at 0; MSL's experiment: ``StopTime = 1`` s.

tests/test_msl_reference.py compares the capacitor voltages, inductor currents and phases
with the MSL reference result.
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
    plot=["capacitor1.v", "capacitor2.v"],
)


def build(R=0.5, L=0.1 / (2 * math.pi), C=0.001 / (2 * math.pi), height=200.0,
          duration=1.0):
    """Build MSL's ``ParallelResonance`` (``height``, ``duration``: the Ramp block's)."""
    model = md.Model("ParallelResonance")

    def ramp(t):
        return md.if_else(t < duration, t * height / duration, height)

    for k, src in ((1, el.SineCurrentVariableFrequencyAndAmplitude(
            "sineCurrent", useConstantAmplitude=True, f=ramp)),
                   (2, el.CosineCurrentVariableFrequencyAndAmplitude(
            "cosineCurrent", useConstantAmplitude=True, f=ramp))):
        model.add(src)
        g = model.add(el.Ground(f"ground{k}"))
        r = model.add(el.Resistor(f"resistor{k}", R=R))
        ind = model.add(el.Inductor(f"inductor{k}", L=L))
        cap = model.add(el.Capacitor(f"capacitor{k}", C=C))
        vs = model.add(el.VoltageSensor(f"voltageSensor{k}"))
        model.connect(src.p, g.p)
        model.connect(g.p, ind.n)
        model.connect(src.n, r.p)
        model.connect(r.n, ind.p)
        model.connect(g.p, cap.n)
        model.connect(src.n, cap.p)
        model.connect(src.n, vs.p)
        model.connect(g.p, vs.n)
    return model
