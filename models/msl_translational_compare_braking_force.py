r"""``Modelica.Mechanics.Translational.Examples.CompareBrakingForce``: four speed laws of a
braking force.

Four masses (``m = 1`` kg) start at ``v_start = 100`` m/s and are braked with ``f_nominal =
-100`` N by ``signForce`` (Linear regularization below ``v0 = 1`` m/s),
``linearSpeedDependentForce``, ``quadraticSpeedDependentForce`` and
``inverseSpeedDependentForce`` (all ``ForceDirection = false``, ``v_nominal = 100`` m/s,
``v0 = 1`` m/s). MSL's experiment: ``StopTime = 5`` s; its documentation asks to compare
the four velocities.

Physics (tests/test_msl_reference.py checks them): ``v1' = -100`` until ``v1 = 1``
(``t = 0.99`` s), then ``v1' = -100 v1``; ``v2 = 100 exp(-t)``; ``v3 = 100/(1 + t)``;
``v4^2 = 100^2 - 2 10^4 t`` until ``v4 = 1``, then ``v4' = -100 v4``.
"""
import mechdae as md
from mechdae.components import translational as tr

SIMULATION = dict(
    t_final=5.0,                                   # MSL experiment(StopTime=5)
    q0={f"mass{k}.s": 0.0 for k in range(1, 5)},
    v0={f"mass{k}.v": 100.0 for k in range(1, 5)},
    method="auto",
    stabilization="default",
    plot=[f"mass{k}.v" for k in range(1, 5)],
)


def build(m=1.0, f_nominal=100.0, v_nominal=100.0, v0=1.0):
    """Build MSL's ``CompareBrakingForce`` (its parameters by name)."""
    model = md.Model("CompareBrakingForce")
    forces = [
        tr.SignForce("signForce", f_nominal=-f_nominal, reg="Linear", v0=v0),
        tr.LinearSpeedDependentForce("linearSpeedDependentForce", f_nominal=-f_nominal,
                                     ForceDirection=False, v_nominal=v_nominal),
        tr.QuadraticSpeedDependentForce("quadraticSpeedDependentForce", f_nominal=-f_nominal,
                                        ForceDirection=False, v_nominal=v_nominal),
        tr.InverseSpeedDependentForce("inverseSpeedDependentForce", f_nominal=-f_nominal,
                                      ForceDirection=False, v_nominal=v_nominal, v0=v0)]
    for k, f in enumerate(forces, start=1):
        mass = model.add(tr.Mass(f"mass{k}", m=m))
        model.add(f)
        model.connect(f.flange, mass.flange_a)
    return model
