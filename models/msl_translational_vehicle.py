r"""``Modelica.Mechanics.Translational.Examples.Vehicle``: one-dimensional vehicles with
driving resistances.

Three ``Components.Vehicle`` (``m = 100`` kg, ``J = 0``, wheel radius ``R = 0.25`` m, ``A = 1``
m^2, ``Cd = 0.5``, air density ``rho = 1.18`` kg/m^3, no wind, ``Cr = 0.01``): ``vehicle``
driven by ``torque``, and ``vehicle1``, driven by twice that torque (``torque1``), pulling
the ``trailer`` through a ``multiSensor``. The torque is ``(fDrag + fRoll + fGrav) R``
times the first column of ``timeTableTorqueInclination`` -- the resistances at the nominal
speed ``vNom = 25/3.5`` m/s on a level road -- and the inclination (tan of the grade angle)
its second column; both tables are piecewise constant with steps (MSL's CombiTimeTable with
repeated time points, linear interpolation: 0 until 5 s, 5.6 until 10.8 s, 1 until 20 s,
2.8 on a 5 % grade until 25 s, 1 until 50 s, -5 (braking) until 55 s, then 0). MSL's
experiment: ``StopTime = 60`` s.

tests/test_msl_reference.py compares the three vehicles' ``s`` and ``v`` with the MSL
reference result; the first vehicle cruises at ``vNom`` between 25 and 50 s, and the
vehicle with its trailer (twice the mass, twice the torque, twice the rolling resistance,
the same drag per vehicle) runs alike.
"""
import math

import mechdae as md
from mechdae.components import rotational as rot
from mechdae.components import translational as tr

SIMULATION = dict(
    t_final=60.0,                                  # MSL experiment(StopTime=60)
    q0={},
    v0={},
    method="auto",
    stabilization="default",
    plot=["vehicle.v", "vehicle1.v"],
)

# MSL's timeTableTorqueInclination: (start time, torque factor, inclination)
TABLE = [(0.0, 0.0, 0.0), (5.0, 5.6, 0.0), (10.8, 1.0, 0.0), (20.0, 2.8, 0.05),
         (25.0, 1.0, 0.0), (50.0, -5.0, 0.0), (55.0, 0.0, 0.0)]


def _table(t, column):
    """The piecewise-constant column of TABLE at time t (right value at a step)."""
    y = TABLE[0][column]
    for row in TABLE[1:]:
        y = md.if_else(t >= row[0], row[column], y)
    return y


def build(m=100.0, R=0.25, A=1.0, Cd=0.5, rho=1.18, vWind=0.0, Cr=0.01, inclination=0.0,
          vNom=25 / 3.5):
    """Build MSL's ``Vehicle`` example (its top-level parameters by name)."""
    g_n = 9.80665
    alpha = math.atan(inclination)
    force = (Cd * A * rho * (vNom - vWind) ** 2 / 2 + Cr * m * g_n * math.cos(alpha)
             + m * g_n * math.sin(alpha))
    model = md.Model("Vehicle")
    kw = dict(m=m, J=0.0, R=R, A=A, Cd=Cd, CrConstant=Cr, vWindConstant=vWind,
              inclination=lambda t: _table(t, 2))
    vehicle = model.add(tr.Vehicle("vehicle", **kw))
    vehicle1 = model.add(tr.Vehicle("vehicle1", **kw))
    trailer = model.add(tr.Vehicle("trailer", **kw))
    sensor = model.add(tr.MultiSensor("multiSensor"))
    torque = model.add(rot.Torque("torque", tau=lambda t: force * R * _table(t, 1)))
    torque1 = model.add(rot.Torque("torque1", tau=lambda t: 2 * force * R * _table(t, 1)))
    model.connect(torque.flange, vehicle.flangeR)
    model.connect(torque1.flange, vehicle1.flangeR)
    model.connect(vehicle1.flangeT, sensor.flange_a)
    model.connect(sensor.flange_b, trailer.flangeT)
    return model
