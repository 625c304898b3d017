r"""``Modelica.Electrical.Analog.Examples.ShowVariableResistor``: a variable resistor in
a bridge of fixed ones.

``SineVoltage1`` (``V = 1`` V, ``f = 1`` Hz) feeds two branches to ground: ``R1``, ``R2``,
``R3`` in series (1 Ohm each), and ``R4``, ``VariableResistor``, ``R5`` (1 Ohm each around
the variable one), whose resistance is ``Blocks.Sources.Ramp(height = 5, offset = 2,
duration = 2)``: ``R(t) = 2 + 5 t/2`` over the experiment (``StopTime = 1`` s). The source's
``p`` is at ground and its ``n`` feeds the branches, so the branch voltage is
``-sin(2 pi t)``.

Physics: ``R2.i = -sin(2 pi t)/3`` and ``VariableResistor.i = -sin(2 pi t)/(2 + R(t))``,
which tests/test_msl_reference.py checks and compares with the MSL reference result.
"""
import mechdae as md
from mechdae.components import electrical as el

SIMULATION = dict(
    t_final=1.0,                                   # MSL experiment(StopTime=1)
    q0={},
    v0={},
    method="auto",
    stabilization="default",
    plot=["VariableResistor.i", "R2.i"],
)


def build(V=1.0, f=1.0, height=5.0, offset=2.0, duration=2.0):
    """Build MSL's ``ShowVariableResistor`` (the Ramp block's parameters by name)."""
    model = md.Model("ShowVariableResistor")

    def ramp(t):
        return offset + md.if_else(t < duration, t * height / duration, height)

    vr = model.add(el.VariableResistor("VariableResistor", R=ramp))
    g1 = model.add(el.Ground("Ground1"))
    g2 = model.add(el.Ground("Ground2"))
    R = {k: model.add(el.Resistor(f"R{k}", R=1.0)) for k in range(1, 6)}
    src = model.add(el.SineVoltage("SineVoltage1", V=V, f=f))
    model.connect(R[1].n, R[2].p)
    model.connect(R[2].n, R[3].p)
    model.connect(R[4].n, vr.p)
    model.connect(vr.n, R[5].p)
    model.connect(R[3].n, g2.p)
    model.connect(g2.p, R[5].n)
    model.connect(src.p, g1.p)
    model.connect(src.n, R[1].p)
    model.connect(src.n, R[4].p)
    return model
