r"""``Modelica.Mechanics.Rotational.Examples.CompareBrakingTorque``: four speed laws of a
braking torque.

Four inertias (``J = 1`` kg m^2) start at ``w_start = 100`` rad/s and are braked with
``tau_nominal = -100`` N m by ``signTorque`` (Linear regularization below ``w0 = 1``
rad/s), ``linearSpeedDependentTorque``, ``quadraticSpeedDependentTorque`` and
``inverseSpeedDependentTorque`` (all ``TorqueDirection = false``, ``w_nominal = 100``
rad/s, ``w0 = 1`` rad/s). MSL's experiment: ``StopTime = 5`` s.

Physics (tests/test_msl_reference.py checks them): the laws of CompareBrakingForce with
``w`` for ``v``.
"""
import mechdae as md
from mechdae.components import rotational as rot

SIMULATION = dict(
    t_final=5.0,                                   # MSL experiment(StopTime=5)
    q0={f"inertia{k}.phi": 0.0 for k in range(1, 5)},
    v0={f"inertia{k}.w": 100.0 for k in range(1, 5)},
    method="auto",
    stabilization="default",
    plot=[f"inertia{k}.w" for k in range(1, 5)],
)


def build(J=1.0, tau_nominal=100.0, w_nominal=100.0, w0=1.0):
    """Build MSL's ``CompareBrakingTorque`` (its parameters by name)."""
    model = md.Model("CompareBrakingTorque")
    torques = [
        rot.SignTorque("signTorque", tau_nominal=-tau_nominal, reg="Linear", w0=w0),
        rot.LinearSpeedDependentTorque("linearSpeedDependentTorque", tau_nominal=-tau_nominal,
                                       TorqueDirection=False, w_nominal=w_nominal),
        rot.QuadraticSpeedDependentTorque("quadraticSpeedDependentTorque",
                                          tau_nominal=-tau_nominal, TorqueDirection=False,
                                          w_nominal=w_nominal),
        rot.InverseSpeedDependentTorque("inverseSpeedDependentTorque",
                                        tau_nominal=-tau_nominal, TorqueDirection=False,
                                        w_nominal=w_nominal, w0=w0)]
    for k, tq in enumerate(torques, start=1):
        inertia = model.add(rot.Inertia(f"inertia{k}", J=J))
        model.add(tq)
        model.connect(tq.flange, inertia.flange_a)
    return model
