r"""``Modelica.Mechanics.Rotational.Examples.RollingWheel``: coupling rotational and
translational motion.

An inertia ``inertia`` (``J = 1`` kg m^2, at rest at 0) is driven by ``torqueStep``
(``stepTorque = 10`` N m from ``startTime = 0.1`` s) and drives, through the massless
``idealRollingWheel`` (``radius = 1`` m: ``phi radius = s``), the vehicle ``mass``
(``m = 1`` kg, ``L = 0``), braked by ``quadraticSpeedDependentForce`` (``f_nominal = -10``
N at ``v_nominal = 5`` m/s, ``ForceDirection = false``: ``f = -10 (v/5) |v/5|``, a drag
that changes sign with the speed). MSL's experiment: ``StopTime = 5`` s.

Physics (tests/test_msl_reference.py compares with the MSL reference result): the wheel
relation eliminates the mass's coordinate, leaving one degree of freedom with the mass
reflected through the wheel,

.. math:: (J + m r^2)\,\dot w = \tau(t) + r f(r w),

which approaches the speed at which the drag takes the whole torque,
``10 (r w/5)^2 r = 10``: ``w = 5`` rad/s.
"""
import mechdae as md
from mechdae.components import rotational as rot
from mechdae.components import translational as tr

SIMULATION = dict(
    t_final=5.0,                                   # MSL experiment(StopTime=5.0)
    q0={"inertia.phi": 0.0},
    v0={"inertia.w": 0.0},
    method="auto",
    stabilization="default",
    plot=["inertia.w", "mass.v"],
)


def build(radius=1.0, J=1.0, m=1.0, stepTorque=10.0, startTime=0.1, f_nominal=-10.0,
          v_nominal=5.0):
    """Build MSL's ``RollingWheel`` (parameters with MSL's names and values)."""
    model = md.Model("RollingWheel")
    wheel = model.add(rot.IdealRollingWheel("idealRollingWheel", radius=radius))
    inertia = model.add(rot.Inertia("inertia", J=J))
    torque = model.add(rot.TorqueStep("torqueStep", stepTorque=stepTorque, offsetTorque=0.0,
                                      startTime=startTime))
    mass = model.add(tr.Mass("mass", m=m, L=0.0))
    drag = model.add(tr.QuadraticSpeedDependentForce(
        "quadraticSpeedDependentForce", f_nominal=f_nominal, ForceDirection=False,
        v_nominal=v_nominal))
    model.connect(torque.flange, inertia.flange_a)
    model.connect(inertia.flange_b, wheel.flangeR)
    model.connect(wheel.flangeT, mass.flange_a)
    model.connect(drag.flange, mass.flange_b)
    return model
