r"""``Modelica.Electrical.Analog.Examples.CauerLowPassOPV``: the fifth-order Cauer
low-pass filter of ``msl_analog_cauer_low_pass_analog.py`` realized with ideal operational
amplifiers (an active RC simulation of the LC ladder).

Five ``Ideal.IdealOpAmp3Pin`` (``in_p = in_n``, no input current, any output current) with
resistors of ``+-1`` Ohm and capacitors ``C1 = c1 + c2``, ``C2 = c2``, ``C3 = l1``,
``C4 = c4``, ``C5 = c2``, ``C6 = c2 + c3 + c4``, ``C7 = l2``, ``C8 = c4``, ``C9 = c4 + c5``
(the ladder's coefficients, ``c2 = 1/(1.704992^2 l1)``, ``c4 = 1/(1.179945^2 l2)``), driven
by ``V`` (StepVoltage, 1 V from ``startTime = 1`` s) through ``R1``. MSL's experiment:
``StopTime = 60`` s, ``C1.v``, ``C2.v``, ``C3.v``, ``C4.v``, ``C7.v`` start at 0.

The model's protected junction pins ``n1`` ... ``n14``, ``p1`` ... ``p4``, ``out1`` are the
nodes below (each a list of the connectors MSL joins through them). Capacitor loops
through the op-amps' virtual grounds make the DAE of higher index; compile's index
reduction finds the independent states. tests/test_msl_reference.py compares ``C1.v``,
``C2.v``, ``C3.v``, ``C4.v``, ``C7.v`` with the MSL reference result.
"""
import mechdae as md
from mechdae.components import electrical as el

SIMULATION = dict(
    t_final=60.0,                                  # MSL experiment(StopTime=60)
    q0={f"C{k}.v": 0.0 for k in (1, 2, 3, 4, 7)},
    v0={},
    method="auto",
    stabilization="default",
    plot=["C1.v", "C7.v"],
)

# MSL's junctions, each with the connectors joined through it
NODES = [
    ["R1.n", "Op1.in_n", "C2.n", "R2.n", "C1.p", "R3.p"],           # n1, n2, n3
    ["C1.n", "R3.n", "Op1.out", "R4.p", "C5.p"],                     # n4
    ["R4.n", "Op2.in_n", "C3.p", "R5.n"],                            # n5
    ["R5.p", "C2.p", "Op3.out", "C8.p", "C6.n", "R9.p"],             # p1, out1
    ["C3.n", "Op2.out", "R2.p", "R7.p"],                             # n6
    ["R7.n", "Op3.in_n", "C5.n", "R6.n", "C6.p", "C4.n"],            # n7, n8, p2
    ["C4.p", "R8.p", "R11.n", "C9.n", "Op5.out"],                    # p3, n12, n13
    ["R8.n", "R9.n", "Op4.in_n", "C7.p"],                            # n9, n10
    ["C7.n", "R6.p", "Op4.out", "R10.p"],                            # n11
    ["C9.p", "R11.p", "R10.n", "Op5.in_n", "C8.n"],                  # p4, n14
    ["Op1.in_p", "G.p"], ["Op2.in_p", "G1.p"], ["Op3.in_p", "G2.p"],
    ["Op4.in_p", "G3.p"], ["Op5.in_p", "G4.p"], ["V.p", "Ground1.p"], ["V.n", "R1.p"],
]


def build(l1=1.304, l2=0.8586, c1=1.072, c3=1.682, c5=0.7262):
    """Build MSL's ``CauerLowPassOPV`` (its filter coefficients by name)."""
    c2 = 1 / (1.704992 ** 2 * l1)
    c4 = 1 / (1.179945 ** 2 * l2)
    model = md.Model("CauerLowPassOPV")
    parts = {}
    caps = {1: c1 + c2, 2: c2, 3: l1, 4: c4, 5: c2, 6: c2 + c3 + c4, 7: l2, 8: c4, 9: c4 + c5}
    for k, C in caps.items():
        parts[f"C{k}"] = el.Capacitor(f"C{k}", C=C)
    for k in range(1, 12):
        parts[f"R{k}"] = el.Resistor(f"R{k}", R=-1.0 if k in (4, 5, 8, 9) else 1.0)
    for k in range(1, 6):
        parts[f"Op{k}"] = el.IdealOpAmp3Pin(f"Op{k}")
    for name in ("G", "G1", "G2", "G3", "G4", "Ground1"):
        parts[name] = el.Ground(name)
    parts["V"] = el.StepVoltage("V", startTime=1.0, V=1.0)
    for p in parts.values():
        model.add(p)
    for node in NODES:
        model.connect(*[getattr(parts[c.split(".")[0]], c.split(".")[1]) for c in node])
    return model
