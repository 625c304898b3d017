"""Rigid bodies: coordinates, speeds, kinetic energy and point kinematics.

Planar body: ``q = (x, y, theta)``, ``u = (vx, vy, w)`` with ``q' = u``.

Spatial body: ``q = (x, y, z, q0, q1, q2, q3)`` (center and quaternion ``(q0; q1, q2, q3)``),
``u = (vx, vy, vz, wx, wy, wz)`` (center velocity in world axes, angular velocity
``omega`` in body axes), kinematics

    r' = v,    quat' = 1/2 quat (x) (0, omega),

and Newton-Euler on the speed level, ``m v' = F``, ``J omega' = -omega x J omega + tau``.
The rotation matrix is built from the quaternion divided by its norm, so the physics does
not see a drift of ``|quat|`` (which the kinematics preserve exactly in exact arithmetic);
``Projection`` renormalizes it.

:class:`BodyDeclarations` is the part of :class:`mechdae.Model` that declares bodies
(:meth:`~BodyDeclarations.rigid_body`) and drawings (:meth:`~BodyDeclarations.draw`).
"""
from __future__ import annotations

import casadi as ca
import numpy as np

from .._typing import Any, Expr, Optional, Sequence, Union
from .._symbols import _as_sx

__all__ = ["PlanarBody", "SpatialBody", "BodyDeclarations"]


def quaternion_rates(q, w):
    """``quat' = 1/2 quat (x) (0, w)``: rates of the quaternion ``q = (q0; q1, q2, q3)`` for
    the angular velocity ``w`` in body axes."""
    q0, q1, q2, q3 = q
    wx, wy, wz = w
    return [-0.5 * (q1 * wx + q2 * wy + q3 * wz), 0.5 * (q0 * wx + q2 * wz - q3 * wy),
            0.5 * (q0 * wy + q3 * wx - q1 * wz), 0.5 * (q0 * wz + q1 * wy - q2 * wx)]


class PlanarBody:
    """A rigid body moving in the (x, y) plane; created by ``Model.rigid_body(planar=True)``.

    Attributes
    ----------
    x, y, theta : SX   coordinates of the center and the angle
    vx, vy, w : SX     speeds (``der`` of the coordinates)
    mass, inertia : SX or float
    """

    planar = True

    def __init__(self, model, name, mass, inertia):
        self.model = model
        self.name = name
        self.mass = mass
        self.inertia = inertia
        self.x = model._coordinate(f"{name}.x", 0.0, f"{name}.vx")
        self.y = model._coordinate(f"{name}.y", 0.0, f"{name}.vy")
        self.theta = model._coordinate(f"{name}.theta", 0.0, f"{name}.w")
        self.vx, self.vy, self.w = (model.coords[-3 + i]["rate"] for i in range(3))
        model.kinetic_energy(0.5 * mass * (self.vx ** 2 + self.vy ** 2) + 0.5 * inertia * self.w ** 2)

    @property
    def R(self):
        """Rotation matrix (2x2) from body to world axes."""
        c, s = ca.cos(self.theta), ca.sin(self.theta)
        return ca.vertcat(ca.horzcat(c, -s), ca.horzcat(s, c))

    def position(self, p_body=(0.0, 0.0)):
        """World position of the body point ``p_body`` (body axes, relative to the center)."""
        return ca.vertcat(self.x, self.y) + ca.mtimes(self.R, _as_sx(list(p_body)))

    def velocity(self, p_body=(0.0, 0.0)):
        """World velocity of the body point ``p_body``: ``v + w e_z x (R p)``."""
        r = ca.mtimes(self.R, _as_sx(list(p_body)))
        return ca.vertcat(self.vx - self.w * r[1], self.vy + self.w * r[0])

    def drawing(self):
        """A disc at the center and the body's axes (:mod:`mechdae.simulate.shapes`)."""
        from ..simulate.shapes import Anchor, Shape
        at = Anchor(position=[self.x, self.y], rotation=self.theta)
        return [Shape("sphere", self.name, [at], body=True), Shape("axes", self.name, [at])]

    @property
    def omega_world(self):
        """Angular velocity (scalar, about e_z)."""
        return self.w

    def apply_force(self, F, p_body=(0.0, 0.0)):
        """Apply a world-axes force ``F`` (2-vector) at the body point ``p_body``."""
        self.model.power_terms.append((_as_sx(F), self.velocity(p_body)))

    def apply_torque(self, tau):
        """Apply a torque ``tau`` about e_z."""
        self.model.power_terms.append((_as_sx(tau), self.w))


class SpatialBody:
    """A rigid body in space with a unit-quaternion orientation.

    Created by ``Model.rigid_body(planar=False)``.

    Attributes
    ----------
    x, y, z : SX             center coordinates
    quat : SX (4)            orientation quaternion (q0 scalar part)
    v : SX (3)               speeds vx, vy, vz (world axes)
    omega : SX (3)           speeds wx, wy, wz (body axes)
    J : SX (3x3)             inertia tensor about the center in body axes
    """

    planar = False

    def __init__(self, model, name, mass, inertia):
        self.model = model
        self.name = name
        self.mass = mass
        J = inertia
        if not isinstance(J, (ca.SX, ca.MX)):
            J = np.asarray(J, dtype=float) if not isinstance(J, (list, tuple)) or \
                not any(isinstance(e, ca.SX) for e in np.ravel(np.array(J, dtype=object))) else J
        if isinstance(J, np.ndarray):
            J = np.diag(J) if J.shape == (3,) else J
            J = ca.SX(ca.DM(J))
        elif isinstance(J, (list, tuple)):
            rows = [list(r) if isinstance(r, (list, tuple)) else r for r in J]
            if all(not isinstance(r, list) for r in rows):
                J = ca.diag(ca.vertcat(*rows))
            else:
                J = ca.vertcat(*[ca.horzcat(*r) for r in rows])
        self.J = J
        self.x = model._coordinate(f"{name}.x", 0.0, f"{name}.vx")
        self.y = model._coordinate(f"{name}.y", 0.0, f"{name}.vy")
        self.z = model._coordinate(f"{name}.z", 0.0, f"{name}.vz")
        self.v = ca.vertcat(*(model.coords[-3 + i]["rate"] for i in range(3)))
        qs = [model._coordinate(f"{name}.q{i}", 1.0 if i == 0 else 0.0) for i in range(4)]
        self.quat = ca.vertcat(*qs)
        w = model.speeds(f"{name}.wx {name}.wy {name}.wz")
        self.omega = ca.vertcat(*w)
        model.kinematics(dict(zip(qs, quaternion_rates(qs, w))))
        model.kinetic_energy(0.5 * mass * ca.dot(self.v, self.v))
        model.T_report.append(0.5 * ca.dot(self.omega, ca.mtimes(self.J, self.omega)))

    # Newton-Euler rotational block, read by compile()
    def rotational_terms(self):
        """``(J, -omega x J omega)``: mass block and bias of the rotational speeds."""
        Jw = ca.mtimes(self.J, self.omega)
        return self.J, -ca.cross(self.omega, Jw)

    @property
    def R(self):
        """Rotation matrix body -> world from the (normalized) quaternion."""
        q0, q1, q2, q3 = (self.quat[i] for i in range(4))
        s = q0 ** 2 + q1 ** 2 + q2 ** 2 + q3 ** 2
        K = ca.vertcat(ca.horzcat(0, -q3, q2), ca.horzcat(q3, 0, -q1), ca.horzcat(-q2, q1, 0))
        return ca.SX.eye(3) + (2.0 / s) * (q0 * K + ca.mtimes(K, K))

    @property
    def position_center(self):
        return ca.vertcat(self.x, self.y, self.z)

    def position(self, p_body=(0.0, 0.0, 0.0)):
        """World position of the body point ``p_body`` (body axes, from the center)."""
        return self.position_center + ca.mtimes(self.R, _as_sx(list(p_body)))

    def velocity(self, p_body=(0.0, 0.0, 0.0)):
        """World velocity of a body point: ``v + R (omega x p_body)``."""
        return self.v + ca.mtimes(self.R, ca.cross(self.omega, _as_sx(list(p_body))))

    def drawing(self):
        """A sphere at the center and the body's axes (:mod:`mechdae.simulate.shapes`)."""
        from ..simulate.shapes import Anchor, Shape
        at = Anchor(position=[self.x, self.y, self.z], rotation=self.R)
        return [Shape("sphere", self.name, [at], body=True), Shape("axes", self.name, [at])]

    @property
    def omega_world(self):
        """Angular velocity in world axes, ``R omega``."""
        return ca.mtimes(self.R, self.omega)

    def angular_momentum(self):
        """Angular momentum about the center in world axes, ``R J omega``."""
        return ca.mtimes(self.R, ca.mtimes(self.J, self.omega))

    def apply_force(self, F, p_body=(0.0, 0.0, 0.0)):
        """Apply a world-axes force ``F`` (3-vector) at the body point ``p_body``."""
        self.model.power_terms.append((_as_sx(F), self.velocity(p_body)))

    def apply_torque(self, tau_world):
        """Apply a world-axes torque."""
        self.model.power_terms.append((_as_sx(tau_world), self.omega_world))


class BodyDeclarations:
    """Mixin of :class:`mechdae.Model`: rigid bodies (:meth:`rigid_body`, appended to the
    Model's ``bodies``) and what :meth:`Result.animate` draws (:meth:`draw`, appended to
    ``drawings``)."""

    def rigid_body(self, name: str, mass: Expr, inertia: Any, planar: bool = False,
                   gravity: Optional[Expr] = None) -> Union["PlanarBody", "SpatialBody"]:
        """Create a rigid body with its coordinates, speeds and kinetic energy.

        Planar: coordinates ``name.x, name.y, name.theta``, speeds ``name.vx, name.vy,
        name.w``.  Spatial: coordinates ``name.x, name.y, name.z`` and the unit quaternion
        ``name.q0..name.q3`` (default identity), speeds ``name.vx, name.vy, name.vz``
        (world velocity of the center) and ``name.wx, name.wy, name.wz`` (angular velocity in
        body axes).

        Parameters
        ----------
        name : str
        mass : float or SX
        inertia : float (planar) or 3x3 / 3-vector (spatial, body axes at the center)
        planar : bool
        gravity : float or SX, optional
            Adds the potential ``m g y`` (planar) or ``m g z`` (spatial).

        Returns
        -------
        PlanarBody or SpatialBody
        """
        b = (PlanarBody if planar else SpatialBody)(self, name, mass, inertia)
        self.bodies.append(b)
        if gravity is not None:
            self.potential_energy(b.mass * gravity * (b.y if planar else b.z))
        return b

    def draw(self, name: str, points: Sequence[Sequence[Expr]], kind: str = "body",
             radius: Optional[Expr] = None) -> None:
        """Declare something :meth:`Result.animate` draws in the plane (optional).

        Parameters
        ----------
        name : str
            Label; a ``"point"`` named like a contact is coloured by that contact's state.
        points : list of (x, y) or of (x, y, z)
            Expressions of the coordinates, parameters and time (world frame, m); a
            drawing with (x, y, z) points makes the animation spatial (an oblique view in
            a GIF, 3-D in an ``.html`` page).
        kind : {"body", "point", "surface"}
            ``"body"``: a polygon through three or more points, a bar through two, a disc
            of ``radius`` around one; ``"point"``: a marker; ``"surface"``: a line drawn
            through the points (ground, walls; it may move).
        radius : expression, optional
            Disc radius of a one-point body.
        """
        pts = []
        for p in points:
            if len(p) not in (2, 3) or len(p) != len(points[0]):
                self.problems.append(f"draw '{name}': points are (x, y) pairs or (x, y, z) "
                                     f"triples, all of one kind, got {p!r}")
                return
            pts.append(tuple(_as_sx(c, f"point of drawing '{name}'") for c in p))
        if kind not in ("body", "point", "surface") or not pts:
            self.problems.append(f"draw '{name}': kind={kind!r} with {len(pts)} points; kind "
                                 "is 'body', 'point' or 'surface', with at least one point")
            return
        self.drawings.append(dict(name=name, kind=kind, points=pts,
                                  radius=None if radius is None else
                                  _as_sx(radius, f"radius of drawing '{name}'")))
