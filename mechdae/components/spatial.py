"""Spatial multibody components (Modelica MultiBody names and parameters).

Connector :class:`Frame`: potentials ``r[1..3]`` (m, origin of the frame in the world) and
the rotation matrix ``R[i,j]`` from frame to world axes (``v_world = R v_frame``: its
columns are the frame's axes in the world; MSL's ``frame.R.T`` is its transpose). Its
public flows, as outputs, are MSL's: the cut force ``f[1..3]`` (N) and torque ``t[1..3]``
(N m, about the frame origin), positive *into* the component and **resolved in the frame**.

Inside, every potential is paired with a generalized flow (``Fr``, ``FR``: virtual power
``Fr . r' + FR : R'``), so that joints, bodies and force elements use the same relations,
energies and virtual work as the planar and 1-D libraries. The force is ``Fr`` and the
torque ``vee(FR R^T)`` (world axes); the part of ``FR`` normal to the rotations does no work.

How a mechanism becomes equations (see :mod:`.flatten`):

- :class:`World` and :class:`Fixed` *define* their frame; a joint is a relation between its
  frames and its coordinates (``R_b = R_a R_rel(q)``, written to be solved for either
  side); in a tree the relations are solved for the frame not yet known, so a chain of n
  Revolutes has n coordinates and no constraint. Where a loop closes, the joint met last
  gives holonomic constraints: its positions and the 3 independent rows of its rotation,
  ``vee(R_rel^T R_a^T R_b) = 0``.
- :class:`Spherical` and :class:`FreeMotion` take the relative orientation as a unit
  quaternion ``q0, q1, q2, q3`` (scalar first; the rotation uses it normalized, so no
  gimbal lock and no norm constraint) and the relative angular velocity ``wx, wy, wz``
  (resolved in frame_b) as speeds: ``quat' = 1/2 quat (x) (0, w)``.
- bodies contribute ``T = m/2 |v_cm|^2 + 1/2 w^T I w`` (``w`` the angular velocity in
  frame_a axes, ``I`` about the center of mass in frame_a axes) and their weight from the
  model's one :class:`World` (``g n``, default -z).

Every spatial frame must be positioned (through joints from the World or a Fixed frame):
a frame nothing positions is a ModelError naming it.

Example
-------
>>> import mechdae as md
>>> from mechdae.components import spatial as sp
>>> m = md.Model("top")
>>> w = m.add(sp.World("world"))
>>> j = m.add(sp.Spherical("j"))
>>> b = m.add(sp.Body("b", m=1.0, I=(0.02, 0.02, 0.03), r_cm=(0.0, 0.0, 0.1)))
>>> m.connect(w.frame, j.frame_a); m.connect(j.frame_b, b.frame_a)
>>> res = m.compile().simulate(0.1, v0={"j.wz": 50.0})
"""
from __future__ import annotations

import math

import casadi as ca
import numpy as np

from .._typing import Any, Expr, Optional, Sequence
from ..dsl.bodies import quaternion_rates
from ..dsl.model import der, placeholder
from .core import Component, Connector
from . import rotational as _rot_lib
from . import translational as _tr_lib
from . import planar as _pl
from .planar import _is_number, _params, _shape, _source, _take_gravity, _unit, _vec

__all__ = ["Frame", "World", "Fixed", "FixedTranslation", "FixedRotation", "Body",
           "BodyShape", "BodyBox", "BodyCylinder", "Revolute", "Prismatic", "Cylindrical",
           "Universal", "Spherical", "FreeMotion", "Spring", "Damper", "SpringDamper",
           "WorldForce", "WorldTorque", "PointPlaneContact", "PointPointContact",
           "RelativePosition",
           "RelativeVelocity", "RelativeAngularVelocity", "quaternion"]

_R_NAMES = [f"R[{i + 1},{j + 1}]" for i in range(3) for j in range(3)]


# ---------------------------------------------------------------------- small algebra
def skew(v):
    """``[v]x`` (3x3) of a 3-vector."""
    return ca.vertcat(ca.horzcat(0, -v[2], v[1]), ca.horzcat(v[2], 0, -v[0]),
                      ca.horzcat(-v[1], v[0], 0))


def vee2(A):
    """``(A32 - A23, A13 - A31, A21 - A12)``: twice the axial vector of the skew part."""
    return ca.vertcat(A[2, 1] - A[1, 2], A[0, 2] - A[2, 0], A[1, 0] - A[0, 1])


def axis_rotation(n, angle):
    """Rotation by ``angle`` about the unit axis ``n`` (numbers), Rodrigues' formula."""
    K = ca.SX(ca.DM([[0, -n[2], n[1]], [n[2], 0, -n[0]], [-n[1], n[0], 0]]))
    return ca.SX.eye(3) + ca.sin(angle) * K + (1 - ca.cos(angle)) * ca.mtimes(K, K)


def quaternion_rotation(q):
    """Rotation matrix of the quaternion ``q = (q0; q1, q2, q3)`` divided by its norm."""
    s = q[0] ** 2 + q[1] ** 2 + q[2] ** 2 + q[3] ** 2
    K = skew(q[1:])
    return ca.SX.eye(3) + (2.0 / s) * (q[0] * K + ca.mtimes(K, K))


def quaternion(n=(0.0, 0.0, 1.0), angle=0.0):
    """Unit quaternion ``(q0, q1, q2, q3)`` of a rotation by ``angle`` about ``n``: start
    values for :class:`Spherical` and :class:`FreeMotion` (``q0={"j.q0": ..., ...}``)."""
    n = np.asarray(n, float).ravel()
    nrm = float(np.linalg.norm(n)) if n.size == 3 else 0.0
    if n.size != 3 or nrm == 0.0 or not math.isfinite(nrm) or not math.isfinite(angle):
        raise ValueError(f"quaternion(n={tuple(n)}, angle={angle!r}): give a nonzero axis "
                         "(nx, ny, nz) and a finite angle")
    n = n / nrm
    return (math.cos(angle / 2),) + tuple(float(x) * math.sin(angle / 2) for x in n)


def _mat(v):
    return ca.reshape(ca.vertcat(*v), 3, 3).T if len(v) == 9 else ca.vertcat(*v)


# ---------------------------------------------------------------------- connector
class Frame(Connector):
    """Spatial frame: origin ``r`` and rotation ``R`` (frame -> world) in the world; cut force
    ``f`` and torque ``t`` (outputs ``"<frame>.f[i]"``, ``"<frame>.t[i]"``, resolved in the
    frame, positive into the component)."""
    units = {"r": "m", "R": "1", "f": "N", "t": "N.m", "Fr": "N", "FR": "N.m"}
    potentials = ("r[1]", "r[2]", "r[3]") + tuple(_R_NAMES)
    flows = ("Fr[1]", "Fr[2]", "Fr[3]") + tuple("F" + n for n in _R_NAMES)
    domain = "spatial"
    kind = "Frame"
    allow_general = False
    public_flows = False
    support_hint = ("connect it through joints to the World (sp.Revolute, sp.Spherical, ...; "
                    "sp.FreeMotion for a body that moves freely) or to a sp.Fixed frame")

    # r, R, Fr, FR: made on first use (the tree fast path never needs them)
    r = property(lambda self: self._part("r", lambda: ca.vertcat(*self.potential_syms[:3])))
    R = property(lambda self: self._part("R", lambda: _mat(self.potential_syms[3:])))
    Fr = property(lambda self: self._part("Fr", lambda: ca.vertcat(*self.flow_syms[:3])))
    FR = property(lambda self: self._part("FR", lambda: _mat(self.flow_syms[3:])))

    def _part(self, key, make):
        d = self.__dict__
        if "_" + key not in d:
            d["_" + key] = make()
        return d["_" + key]

    def derived_outputs(self):
        t_world = vee2(ca.mtimes(self.FR, self.R.T))
        f = ca.mtimes(self.R.T, self.Fr)
        t = ca.mtimes(self.R.T, t_world)
        return [(f"f[{k + 1}]", f[k]) for k in range(3)] + \
            [(f"t[{k + 1}]", t[k]) for k in range(3)]

    @staticmethod
    def generalized(R, f_world, t_world):
        """Generalized flows ``(Fr, FR)`` of a force and torque (world axes): ``FR`` is
        ``1/2 [t]x R``, whose power on ``R' = [w]x R`` is ``t . w``."""
        FR = 0.5 * ca.mtimes(skew(t_world), R)
        return [f_world[k] for k in range(3)] + [FR[i, j] for i in range(3) for j in range(3)]

    def angular_velocity(self):
        """Angular velocity of the frame in its own axes, ``1/2 vee(R^T R')``."""
        return 0.5 * vee2(ca.mtimes(self.R.T, der(self.R)))


def _vec3(comp, name, value):
    return _vec(comp, name, value, 3)


def _frame_values(r, R):
    return [r[k] for k in range(3)] + [R[i, j] for i in range(3) for j in range(3)]


def _moving(comp, a, b, r_rel, R_rel, name="cut", closure=None, loop_cut=False):
    """``frame_b = frame_a`` displaced by ``r_rel`` (in frame_a) and rotated by ``R_rel``:
    rotation rows for either side, their closure rows (default: the 3 independent rows
    ``vee(R_rel^T R_a^T R_b) = 0``), then the positions."""
    if closure is None:
        closure = 0.5 * vee2(ca.mtimes([R_rel.T, a.R.T, b.R]))
    comp.relation(b.R - ca.mtimes(a.R, R_rel), name=f"{name}_R",
                  inverse=a.R - ca.mtimes(b.R, R_rel.T), closure=closure, loop_cut=loop_cut)
    comp.relation(b.r - a.r - ca.mtimes(a.R, ca.vertcat(*r_rel)), name=f"{name}_r",
                  loop_cut=loop_cut)


def _hinge_closure(a, b, n, phi):
    """Closure rows of a rotation by ``phi`` about ``n`` (in frame_a): the axes aligned (2
    rows) and ``phi = atan2(...)`` of the two frames (linear in ``phi``, so that a joint
    closing a loop loses its coordinate, as a planar joint does; the angle read from it
    is then in (-pi, pi])."""
    u = np.cross(n, [1.0, 0.0, 0.0] if abs(n[0]) < 0.9 else [0.0, 1.0, 0.0])
    u /= np.linalg.norm(u)
    v = np.cross(n, u)
    ua, va = ca.mtimes(a.R, ca.DM(u)), ca.mtimes(a.R, ca.DM(v))
    nb, ub = ca.mtimes(b.R, ca.DM(n)), ca.mtimes(b.R, ca.DM(u))
    return ca.vertcat(ca.dot(nb, ua), ca.dot(nb, va),
                      phi - ca.atan2(ca.dot(ub, va), ca.dot(ub, ua)))


# ---------------------------------------------------------------------- fixed frames
class World(Component):
    """The inertial frame (``frame`` at the origin, world axes) and the gravity of the model:
    acceleration ``g`` (parameter ``"<path>.g"``) along ``n`` (default ``(0, 0, -1)``)."""
    units = {"g": "m/s2", "n": "1"}

    def __init__(self, name: str, g: Expr = 9.81, n: Sequence[Expr] = (0.0, 0.0, -1.0)) -> None:
        super().__init__(name)
        self.g = self.parameter("g", g)
        self.n = _unit(self, "n", n, 3)
        self.frame = self.connector(Frame, "frame")

    def _build_equations(self):
        self.define(self.frame, _frame_values([0.0] * 3, np.eye(3)))

    @property
    def gravity(self):
        return [self.g * float(self.n[k]) for k in range(3)]

    def _before_flatten(self, components):
        return _pl._one_world(self, components, "sp")

    def drawing(self) -> list:
        """The world axes at the origin."""
        return [_shape("axes", self, self.frame)]


class Fixed(Component):
    """A frame fixed in the world at ``r``, rotated by ``angle`` (parameter) about ``n``."""
    units = {"r": "m", "n": "1", "angle": "rad"}

    def __init__(self, name: str, r: Sequence[Expr] = (0.0, 0.0, 0.0),
                 n: Sequence[Expr] = (0.0, 0.0, 1.0), angle: Expr = 0.0) -> None:
        super().__init__(name)
        self.r = _vec3(self, "r", r)
        self.n = _unit(self, "n", n, 3)
        self.angle = self.parameter("angle", angle)
        self.frame = self.connector(Frame, "frame")

    def _build_equations(self):
        self.define(self.frame, _frame_values(self.r, axis_rotation(self.n, self.angle)))

    def drawing(self) -> list:
        """A support at the frame."""
        return [_shape("ground", self, self.frame)]


class FixedTranslation(Component):
    """Massless rigid rod: ``frame_b`` at ``r`` from ``frame_a`` (in frame_a), same axes."""
    units = {"r": "m"}

    def __init__(self, name: str, r: Sequence[Expr] = (1.0, 0.0, 0.0)) -> None:
        super().__init__(name)
        self.r = _vec3(self, "r", r)
        self.frame_a = self.connector(Frame, "frame_a")
        self.frame_b = self.connector(Frame, "frame_b")

    def _build_equations(self):
        _moving(self, self.frame_a, self.frame_b, self.r, ca.SX.eye(3))

    def drawing(self) -> list:
        """A thin rod from frame_a to frame_b."""
        return [_shape("capsule", self, self.frame_a, self.frame_b, rod=True)]


class FixedRotation(Component):
    """Massless rigid element: ``frame_b`` at ``r`` from ``frame_a``, rotated by ``angle``
    (parameter) about ``n`` (resolved in frame_a)."""
    units = {"r": "m", "n": "1", "angle": "rad"}

    def __init__(self, name: str, r: Sequence[Expr] = (0.0, 0.0, 0.0),
                 n: Sequence[Expr] = (0.0, 0.0, 1.0), angle: Expr = 0.0) -> None:
        super().__init__(name)
        self.r = _vec3(self, "r", r)
        self.n = _unit(self, "n", n, 3)
        self.angle = self.parameter("angle", angle)
        self.frame_a = self.connector(Frame, "frame_a")
        self.frame_b = self.connector(Frame, "frame_b")

    def _build_equations(self):
        _moving(self, self.frame_a, self.frame_b, self.r, axis_rotation(self.n, self.angle))

    def drawing(self) -> list:
        """A thin rod from frame_a to frame_b and frame_b's axes."""
        return [_shape("capsule", self, self.frame_a, self.frame_b, rod=True),
                _shape("axes", self, self.frame_b)]


# ---------------------------------------------------------------------- bodies
def _inertia_params(comp, I):
    """``I`` as a number (isotropic), 3 numbers (principal) or a 3x3 matrix: parameters
    ``I_11, I_22, I_33, I_21, I_31, I_32`` (MSL names); returns the symmetric 3x3 SX."""
    A = np.asarray(I, float) if not isinstance(I, ca.SX) else None
    if A is None:
        raise ValueError(f"{type(comp).__name__} '{comp.name}': I must be numbers (a scalar, "
                         "3 principal moments or a 3x3 matrix)")
    if A.ndim == 0:
        A = np.eye(3) * float(A)
    elif A.shape == (3,):
        A = np.diag(A)
    if A.shape != (3, 3) or not np.allclose(A, A.T) or not np.all(np.isfinite(A)):
        raise ValueError(f"{type(comp).__name__} '{comp.name}': I={I!r} must be a scalar, 3 "
                         "principal moments or a symmetric 3x3 matrix")
    ev = np.linalg.eigvalsh(A)
    if ev[0] < -1e-12 * max(1.0, abs(ev[-1])) or ev[0] + ev[1] < ev[2] - 1e-9 * max(1.0, ev[2]):
        raise ValueError(f"{type(comp).__name__} '{comp.name}': I={A.tolist()} is not the "
                         "inertia of a body (it must be positive semidefinite and its "
                         "principal moments obey the triangle inequality I1 + I2 >= I3)")
    e = {}
    for (i, j) in ((1, 1), (2, 2), (3, 3), (2, 1), (3, 1), (3, 2)):
        e[(i, j)] = e[(j, i)] = comp.parameter(f"I_{i}{j}", float(A[i - 1, j - 1]))
    comp._I_entries = e                  # (i, j) 1-based -> parameter placeholder
    return ca.vertcat(*[ca.horzcat(*[e[(i, j)] for j in (1, 2, 3)]) for i in (1, 2, 3)])


class _Inertial(Component):
    """A rigid body at ``r_cm`` from ``frame_a`` (in frame_a): mass ``m``, inertia ``I``
    about the center of mass in frame_a axes; weight from the model's World. The constructor
    declares the parameters; the energies, flows and outputs are built by
    :meth:`_build_equations` when the generic flattening needs them."""
    units = {"m": "kg", "I": "kg.m2", "I_11": "kg.m2", "I_22": "kg.m2", "I_33": "kg.m2",
             "I_21": "kg.m2", "I_31": "kg.m2", "I_32": "kg.m2", "r_cm": "m", "gravity": "m/s2",
             "r_cm_0": "m", "v_cm_0": "m/s", "w_a": "rad/s", "r": "m"}

    def _declare(self, m, I, r_cm):
        self._m = self.parameter("m", m)
        self._J = _inertia_params(self, I)
        self._r_cm = r_cm
        self._g = [placeholder(f"{self.name}.gravity[{k}]") for k in (1, 2, 3)]

    def _build_equations(self):
        a, mass, J, r_cm = self.frame_a, self._m, self._J, self._r_cm
        c = a.r + ca.mtimes(a.R, ca.vertcat(*r_cm))
        v = der(c)
        w = a.angular_velocity()
        self.kinetic_energy(0.5 * mass * ca.dot(v, v) + 0.5 * ca.dot(w, ca.mtimes(J, w)))
        self.potential_energy(-mass * ca.dot(ca.vertcat(*self._g), c))
        self.flow(a, self.energy_flows(a), energy=True)
        for k in range(3):
            self.output(f"r_cm_0[{k + 1}]", c[k])
        for k in range(3):
            self.output(f"v_cm_0[{k + 1}]", v[k])
        for k in range(3):
            self.output(f"w_a[{k + 1}]", w[k])

    def _before_flatten(self, components):
        return _take_gravity(self, components, World, "sp")

    def drawing(self) -> list:
        """A capsule from frame_a to frame_b (bodies with two frames; a box or cylinder
        for BodyBox, BodyCylinder) and a sphere at the center of mass."""
        out = []
        look = getattr(self, "_look", None)
        if look is not None:
            out.append(_shape(look[0], self, self.frame_a, self.frame_b, **look[1]))
        elif hasattr(self, "frame_b"):
            out.append(_shape("capsule", self, self.frame_a, self.frame_b))
        r_cm = _params(self, "r_cm", 3)
        from ..simulate.shapes import nonzero
        if not hasattr(self, "frame_b") and nonzero(r_cm):
            out.append(_shape("capsule", self, self.frame_a, (self.frame_a, r_cm), rod=True))
        out.append(_shape("sphere", self, (self.frame_a, r_cm), body=True))
        return out


class Body(_Inertial):
    """Rigid body: mass ``m``, inertia ``I`` (about the center of mass, frame_a axes: a
    scalar, 3 principal moments or a 3x3 matrix; parameters ``I_11 ... I_32``), center of
    mass at ``r_cm`` from ``frame_a`` (default: frame_a at the center of mass). Outputs
    ``r_cm_0[i]``, ``v_cm_0[i]`` (center of mass, world) and ``w_a[i]`` (angular velocity
    in frame_a)."""

    def __init__(self, name: str, m: Expr = 1.0, I: Any = 0.1,
                 r_cm: Sequence[Expr] = (0.0, 0.0, 0.0)) -> None:
        super().__init__(name)
        self.frame_a = self.connector(Frame, "frame_a")
        self._declare(m, I, _vec3(self, "r_cm", r_cm))


class BodyShape(_Inertial):
    """Rigid body with two frames: ``frame_b`` at ``r`` from ``frame_a`` (same axes), center
    of mass at ``r_cm``; ``m``, ``I`` as :class:`Body`."""

    def __init__(self, name: str, r: Sequence[Expr] = (1.0, 0.0, 0.0),
                 r_cm: Sequence[Expr] = (0.5, 0.0, 0.0), m: Expr = 1.0, I: Any = 0.1) -> None:
        super().__init__(name)
        self.frame_a = self.connector(Frame, "frame_a")
        self.frame_b = self.connector(Frame, "frame_b")
        self.r = _vec3(self, "r", r)
        self._declare(m, I, _vec3(self, "r_cm", r_cm))

    def _build_equations(self):
        super()._build_equations()
        _moving(self, self.frame_a, self.frame_b, self.r, ca.SX.eye(3))


def _box_axes(r, width_direction):
    r = np.asarray(r, float).ravel()
    L = float(np.linalg.norm(r))
    if r.size != 3 or L == 0.0 or not math.isfinite(L):
        raise ValueError(f"r={tuple(r)}: give the nonzero vector from frame_a to frame_b")
    e1 = r / L
    w = np.asarray(width_direction, float).ravel()
    e2 = w - e1 * float(e1 @ w)
    if float(np.linalg.norm(e2)) < 1e-9:
        e2 = np.cross(e1, [1.0, 0.0, 0.0] if abs(e1[0]) < 0.9 else [0.0, 1.0, 0.0])
    e2 = e2 / np.linalg.norm(e2)
    return L, np.column_stack([e1, e2, np.cross(e1, e2)])


class BodyBox(BodyShape):
    """Homogeneous box from ``frame_a`` to ``frame_b = frame_a + r``: length ``|r|``,
    ``width`` along ``widthDirection`` (made orthogonal to r), ``height`` (default =
    width), ``density`` (kg/m^3, steel by default); ``m`` and ``I`` computed (MSL
    BodyBox)."""

    def __init__(self, name: str, r: Sequence[Expr] = (0.1, 0.0, 0.0), width: Optional[float] = None,
                 height: Optional[float] = None, widthDirection: Sequence[Expr] = (0.0, 1.0, 0.0),
                 density: Expr = 7700.0) -> None:
        L, E = _box_axes(r, widthDirection)
        w = L / 10 if width is None else float(width)
        h = w if height is None else float(height)
        if not (w > 0 and h > 0 and density > 0):
            raise ValueError(f"BodyBox '{name}': width, height and density must be positive")
        mass = density * L * w * h
        I = E @ np.diag([mass / 12 * (w * w + h * h), mass / 12 * (L * L + h * h),
                         mass / 12 * (L * L + w * w)]) @ E.T
        super().__init__(name, r=tuple(r), r_cm=tuple(np.asarray(r, float) / 2), m=mass,
                         I=(I + I.T) / 2)
        self._look = ("box", dict(size=w, height=h, width_direction=tuple(E[:, 1])))


class BodyCylinder(BodyShape):
    """Homogeneous (hollow) cylinder from ``frame_a`` to ``frame_a + r``: ``diameter``,
    ``innerDiameter``, ``density``; ``m`` and ``I`` computed (MSL BodyCylinder)."""

    def __init__(self, name: str, r: Sequence[Expr] = (0.1, 0.0, 0.0),
                 diameter: Optional[float] = None, innerDiameter: Expr = 0.0,
                 density: Expr = 7700.0) -> None:
        L, E = _box_axes(r, (0.0, 1.0, 0.0))
        d = L / 5 if diameter is None else float(diameter)
        di = float(innerDiameter)
        if not (d > 0 and 0 <= di < d and density > 0):
            raise ValueError(f"BodyCylinder '{name}': need diameter > innerDiameter >= 0 "
                             "and density > 0")
        ro, ri = d / 2, di / 2
        mass = density * math.pi * L * (ro ** 2 - ri ** 2)
        Ia = mass * (ro ** 2 + ri ** 2) / 2
        It = mass * (3 * (ro ** 2 + ri ** 2) + L ** 2) / 12
        I = E @ np.diag([Ia, It, It]) @ E.T
        super().__init__(name, r=tuple(r), r_cm=tuple(np.asarray(r, float) / 2), m=mass,
                         I=(I + I.T) / 2)
        self._look = ("cylinder", dict(size=ro))


# ---------------------------------------------------------------------- joints
class _Joint(_pl._Joint):
    """The planar joint base (frames, ``cut=True``, drive flanges) on spatial frames."""
    _frame = Frame
    units = {"q0": "1", "q1": "1", "q2": "1", "q3": "1", "wx": "rad/s", "wy": "rad/s",
             "wz": "rad/s", "x": "m", "y": "m", "z": "m", "vx": "m/s", "vy": "m/s", "vz": "m/s"}

    def _quaternion(self, n, angle0, w0):
        """Quaternion coordinates ``q0..q3`` (start: rotation by ``angle0`` about ``n``) and
        speeds ``wx, wy, wz`` (relative angular velocity in frame_b, start ``w0``)."""
        q_init = quaternion(n, angle0)
        q = [self.coordinate(f"q{k}", default=q_init[k]) for k in range(4)]
        w = self.speeds("wx wy wz", default=list(_three(self, "w0", w0)))
        self.kinematics(dict(zip(q, quaternion_rates(q, w))))
        return quaternion_rotation(ca.vertcat(*q))


def _three(comp, name, v):
    a = np.asarray(v, float).ravel()
    if a.size != 3 or not np.all(np.isfinite(a)):
        raise ValueError(f"{type(comp).__name__} '{comp.name}': {name}={v!r} must be 3 "
                         "finite numbers")
    return a


class Revolute(_Joint):
    """Revolute joint about the axis ``n`` (resolved in frame_a, right-hand rule): coordinate
    ``"<path>.phi"`` (speed ``"<path>.w"``). ``useAxisFlange=True`` adds rotational flanges
    ``axis`` and ``support`` for drives, springs and dampers on ``phi``."""
    units = {"n": "1", "phi": "rad", "w": "rad/s"}

    def __init__(self, name: str, n: Sequence[Expr] = (0.0, 0.0, 1.0), phi0: Expr = 0.0,
                 w0: Expr = 0.0, useAxisFlange: bool = False, cut: bool = False) -> None:
        super().__init__(name, cut)
        self.n = _unit(self, "n", n, 3)
        self.phi = self.coordinate("phi", default=phi0, speed="w", speed_default=w0)
        if useAxisFlange:
            self._axis(_rot_lib.Flange, self.phi)

    def _build_equations(self):
        _moving(self, self.frame_a, self.frame_b, [0.0] * 3, axis_rotation(self.n, self.phi),
                closure=_hinge_closure(self.frame_a, self.frame_b, self.n, self.phi),
                loop_cut=True)

    def drawing(self) -> list:
        """A pin along the axis ``n``."""
        return [_shape("joint", self, self.frame_a, style="revolute",
                       axis=tuple(float(x) for x in self.n))]


class Prismatic(_Joint):
    """Prismatic joint along ``n`` (in frame_a): coordinate ``"<path>.s"`` (speed
    ``"<path>.v"``); ``useAxisFlange=True`` adds translational flanges."""
    units = {"n": "1", "s": "m", "v": "m/s"}

    def __init__(self, name: str, n: Sequence[Expr] = (1.0, 0.0, 0.0), s0: Expr = 0.0,
                 v0: Expr = 0.0, useAxisFlange: bool = False, cut: bool = False) -> None:
        super().__init__(name, cut)
        self.n = _unit(self, "n", n, 3)
        self.s = self.coordinate("s", default=s0, speed="v", speed_default=v0)
        if useAxisFlange:
            self._axis(_tr_lib.Flange, self.s)

    def _build_equations(self):
        _moving(self, self.frame_a, self.frame_b, [float(x) * self.s for x in self.n],
                ca.SX.eye(3))

    def drawing(self) -> list:
        """A slider: the guide from frame_a to frame_b."""
        return [_shape("joint", self, self.frame_a, self.frame_b, style="prismatic")]


class Cylindrical(_Joint):
    """Translation ``"<path>.s"`` along and rotation ``"<path>.phi"`` about ``n``."""
    units = {"n": "1", "s": "m", "v": "m/s", "phi": "rad", "w": "rad/s"}

    def __init__(self, name: str, n: Sequence[Expr] = (1.0, 0.0, 0.0), s0: Expr = 0.0,
                 v0: Expr = 0.0, phi0: Expr = 0.0, w0: Expr = 0.0, cut: bool = False) -> None:
        super().__init__(name, cut)
        self.n = _unit(self, "n", n, 3)
        s = self.coordinate("s", default=s0, speed="v", speed_default=v0)
        phi = self.coordinate("phi", default=phi0, speed="w", speed_default=w0)
        _moving(self, self.frame_a, self.frame_b, [float(x) * s for x in self.n],
                axis_rotation(self.n, phi),
                closure=_hinge_closure(self.frame_a, self.frame_b, self.n, phi))

    def drawing(self) -> list:
        """A slider along ``n`` with a pin at frame_b."""
        return [_shape("joint", self, self.frame_a, self.frame_b, style="prismatic"),
                _shape("joint", self, self.frame_b, style="revolute",
                       axis=tuple(float(x) for x in self.n))]


class Universal(_Joint):
    """Universal (Cardan) joint: rotation ``"<path>.phi_a"`` about ``n_a`` (frame_a), then
    ``"<path>.phi_b"`` about ``n_b`` (the rotated frame); ``n_a`` and ``n_b`` orthogonal."""
    units = {"phi_a": "rad", "phi_b": "rad", "w_a": "rad/s", "w_b": "rad/s"}

    def __init__(self, name: str, n_a: Sequence[Expr] = (1.0, 0.0, 0.0),
                 n_b: Sequence[Expr] = (0.0, 1.0, 0.0), phi_a0: Expr = 0.0, phi_b0: Expr = 0.0,
                 w_a0: Expr = 0.0, w_b0: Expr = 0.0, cut: bool = False) -> None:
        super().__init__(name, cut)
        na, nb = _unit(self, "n_a", n_a, 3), _unit(self, "n_b", n_b, 3)
        if abs(float(na @ nb)) > 1e-9:
            raise ValueError(f"Universal '{name}': n_a={tuple(n_a)} and n_b={tuple(n_b)} must "
                             "be orthogonal")
        pa = self.coordinate("phi_a", default=phi_a0, speed="w_a", speed_default=w_a0)
        pb = self.coordinate("phi_b", default=phi_b0, speed="w_b", speed_default=w_b0)
        _moving(self, self.frame_a, self.frame_b, [0.0] * 3,
                ca.mtimes(axis_rotation(na, pa), axis_rotation(nb, pb)))

    def drawing(self) -> list:
        """A ball (the cross of a Cardan joint drawn as its center)."""
        return [_shape("joint", self, self.frame_a, style="ball")]


class Spherical(_Joint):
    """Spherical (ball) joint: frame_b at frame_a's origin, orientation by the quaternion
    coordinates ``"<path>.q0" .. ".q3"`` (start: ``angle0`` about ``n``; or set them with
    :func:`quaternion`), relative angular velocity ``"<path>.wx", ".wy", ".wz"`` in frame_b
    (start ``w0``)."""

    def __init__(self, name: str, n: Sequence[Expr] = (0.0, 0.0, 1.0), angle0: Expr = 0.0,
                 w0: Sequence[Expr] = (0.0, 0.0, 0.0), cut: bool = False) -> None:
        super().__init__(name, cut)
        self._R_rel = self._quaternion(n, angle0, w0)

    def _build_equations(self):
        _moving(self, self.frame_a, self.frame_b, [0.0] * 3, self._R_rel)

    def drawing(self) -> list:
        """A ball at the joint."""
        return [_shape("joint", self, self.frame_a, style="ball")]


class FreeMotion(_Joint):
    """Free motion of frame_b relative to frame_a: position ``"<path>.x", ".y", ".z"``
    (resolved in frame_a; speeds ``vx, vy, vz``, start ``r0``, ``v0``) and orientation as
    :class:`Spherical` (``q0..q3``, ``wx, wy, wz``). A free body is
    ``World -> FreeMotion -> Body``."""

    def __init__(self, name: str, r0: Sequence[Expr] = (0.0, 0.0, 0.0),
                 v0: Sequence[Expr] = (0.0, 0.0, 0.0), n: Sequence[Expr] = (0.0, 0.0, 1.0),
                 angle0: Expr = 0.0, w0: Sequence[Expr] = (0.0, 0.0, 0.0),
                 cut: bool = False) -> None:
        super().__init__(name, cut)
        r0, v0 = _three(self, "r0", r0), _three(self, "v0", v0)
        self._x = [self.coordinate(a, default=float(r0[k]), speed=f"v{a}",
                                   speed_default=float(v0[k])) for k, a in enumerate("xyz")]
        self._R_rel = self._quaternion(n, angle0, w0)

    def _build_equations(self):
        _moving(self, self.frame_a, self.frame_b, self._x, self._R_rel)


# ---------------------------------------------------------------------- force elements
class _Line:
    """The planar line-force elements on spatial frames (MSL's ``s_unstretched``)."""
    units = {"s_unstretched": "m"}
    _frame = Frame
    _s0 = "s_unstretched"

    @staticmethod
    def _origin(frame):
        return frame.r

    @staticmethod
    def _flow_of(F):
        return [F[0], F[1], F[2]] + [0.0] * 9


class Spring(_Line, _pl.Spring):
    """Linear spring between the frame origins: ``f = c (s_rel - s_unstretched)`` (tension
    positive); outputs ``s_rel``, ``v_rel``, ``f``."""

    def __init__(self, name: str, c: Expr = 1.0, s_unstretched: Expr = 0.0) -> None:
        super().__init__(name, c, s_unstretched)


class Damper(_Line, _pl.Damper):
    """Linear damper between the frame origins: ``f = d v_rel``."""


class SpringDamper(_Line, _pl.SpringDamper):
    """Spring and damper in parallel: ``f = c (s_rel - s_unstretched) + d v_rel``."""

    def __init__(self, name: str, c: Expr = 1.0, d: Expr = 0.0, s_unstretched: Expr = 0.0) -> None:
        super().__init__(name, c, d, s_unstretched)


class WorldForce(Component):
    """Force ``force = (fx, fy, fz)`` on ``frame_b`` at its origin, resolved in the world
    (``resolveInFrame="world"``) or in frame_b (``"frame_b"``): numbers (parameters
    ``"<path>.force[i]"``), expressions or functions of t."""
    units = {"force": "N"}

    def __init__(self, name: str, force: Any = (0.0, 0.0, 0.0),
                 resolveInFrame: str = "world") -> None:
        super().__init__(name)
        F = ca.vertcat(*_source(self, force, ("force[1]", "force[2]", "force[3]")))
        self.frame_b = self.frame = self.connector(Frame, "frame_b")
        F = _resolved(self, resolveInFrame, F)
        self.flow(self.frame_b, Frame.generalized(self.frame_b.R, -F, ca.SX.zeros(3)))


class WorldTorque(Component):
    """Torque ``torque = (tx, ty, tz)`` on ``frame_b``, resolved in the world or in
    frame_b (``resolveInFrame``)."""
    units = {"torque": "N.m"}

    def __init__(self, name: str, torque: Any = (0.0, 0.0, 0.0),
                 resolveInFrame: str = "world") -> None:
        super().__init__(name)
        tq = ca.vertcat(*_source(self, torque, ("torque[1]", "torque[2]", "torque[3]")))
        self.frame_b = self.frame = self.connector(Frame, "frame_b")
        tq = _resolved(self, resolveInFrame, tq)
        self.flow(self.frame_b, Frame.generalized(self.frame_b.R, ca.SX.zeros(3), -tq))


def _resolved(comp, where, v):
    if where == "world":
        return v
    if where == "frame_b":
        return ca.mtimes(comp.frame_b.R, v)
    raise ValueError(f"{type(comp).__name__} '{comp.name}': resolveInFrame={where!r}; give "
                     "'world' or 'frame_b'")


# ---------------------------------------------------------------------- contacts
class PointPlaneContact(Component):
    """Unilateral contact ``"<path>.contact"`` of a sphere of ``radius`` (0: a point) at
    ``r`` in ``frame`` (resolved in the frame) against the world plane through ``p0`` with
    normal ``n`` (to the free side): gap ``n . (c - p0) - radius``; two tangential
    directions (``t1``, ``t2 = n x t1``) whose velocities are those of the material point
    of contact (``v_c + w x (-radius n)``); restitution ``e``, friction ``mu`` (``inf``: no
    sliding), tangential restitution ``e_t``."""
    units = {"r": "m", "radius": "m", "p0": "m", "n": "1", "e": "1", "mu": "1", "e_t": "1",
             "gap": "m"}

    def __init__(self, name: str, r: Sequence[Expr] = (0.0, 0.0, 0.0), radius: Expr = 0.0,
                 p0: Sequence[Expr] = (0.0, 0.0, 0.0), n: Sequence[Expr] = (0.0, 0.0, 1.0),
                 e: Expr = 0.0, mu: Expr = 0.0, e_t: Expr = 0.0) -> None:
        super().__init__(name)
        f = self.frame = self.connector(Frame, "frame")
        rp = ca.vertcat(*_vec3(self, "r", r))
        p0 = ca.vertcat(*_vec3(self, "p0", p0))
        nv = self._n = _unit(self, "n", n, 3)
        t1 = np.cross(nv, [1.0, 0.0, 0.0] if abs(nv[0]) < 0.9 else [0.0, 1.0, 0.0])
        t1 /= np.linalg.norm(t1)
        t2 = np.cross(nv, t1)
        rho = self.parameter("radius", radius) if _is_number(radius) else radius
        c = f.r + ca.mtimes(f.R, rp)
        gap = ca.dot(ca.DM(nv), c - p0) - rho
        kw = _pl._contact_params(self, e, mu, e_t)
        if _is_number(radius) and radius == 0.0:
            self.contact("contact", gap=gap, tangent=[ca.dot(ca.DM(t1), c - p0),
                                                      ca.dot(ca.DM(t2), c - p0)], **kw)
        else:
            w = ca.mtimes(f.R, f.angular_velocity())
            vp = der(c) + ca.cross(w, -rho * ca.DM(nv))
            self.contact("contact", gap=gap, tangent_velocity=[ca.dot(ca.DM(t1), vp),
                                                               ca.dot(ca.DM(t2), vp)], **kw)
        self.output("gap", gap)
        self.flow(f, None)

    def drawing(self) -> list:
        """The contact sphere or point (red while closed) and the plane it touches."""
        from ..simulate.shapes import param_of
        return [_shape("point", self, (self.frame, _params(self, "r", 3)),
                       size=param_of(self, "radius", None) or None,
                       contact=f"{self.path}.contact"),
                _shape("plane", self, p0=_params(self, "p0", 3), n=tuple(self._n))]


class PointPointContact(Component):
    """Unilateral frictionless contact ``"<path>.contact"`` between two spheres: radius
    ``radius_a`` at ``r_a`` in ``frame_a`` and ``radius_b`` at ``r_b`` in ``frame_b`` (0:
    points); gap ``|c_b - c_a| - radius_a - radius_b``, restitution ``e``. Friction between
    two bodies in space needs a tangent basis that turns with the line of centers, which no
    one smooth choice gives everywhere: ``mu`` other than 0 is refused (use
    :class:`PointPlaneContact` for a body on a surface)."""
    units = {"r_a": "m", "r_b": "m", "radius_a": "m", "radius_b": "m", "e": "1", "mu": "1",
             "gap": "m"}

    def __init__(self, name: str, r_a: Sequence[Expr] = (0.0, 0.0, 0.0),
                 r_b: Sequence[Expr] = (0.0, 0.0, 0.0), radius_a: Expr = 0.0, radius_b: Expr = 0.0,
                 e: Expr = 0.0, mu: Expr = 0.0) -> None:
        super().__init__(name)
        if not (_is_number(mu) and mu == 0.0):
            raise ValueError(f"PointPointContact '{name}': mu={mu!r}; friction between two "
                             "spheres in space is not supported (frictionless only: mu=0)")
        a = self.frame_a = self.connector(Frame, "frame_a")
        b = self.frame_b = self.connector(Frame, "frame_b")
        cs = []
        for f, r, rad, k in ((a, r_a, radius_a, "a"), (b, r_b, radius_b, "b")):
            cs.append(f.r + ca.mtimes(f.R, ca.vertcat(*_vec3(self, f"r_{k}", r))))
            cs.append(self.parameter(f"radius_{k}", rad) if _is_number(rad) else rad)
        d = cs[2] - cs[0]
        gap = ca.sqrt(ca.dot(d, d)) - cs[1] - cs[3]
        self.contact("contact", gap=gap, **_pl._contact_params(self, e, 0.0, 0.0))
        self.output("gap", gap)
        self.flow(a, None)
        self.flow(b, None)

    def drawing(self) -> list:
        """The two spheres (points where the radius is 0), red while in contact."""
        from ..simulate.shapes import param_of
        return [_shape("point", self, (f, _params(self, f"r_{k}", 3)),
                       size=param_of(self, f"radius_{k}", None) or None,
                       contact=f"{self.path}.contact")
                for f, k in ((self.frame_a, "a"), (self.frame_b, "b"))]


# ---------------------------------------------------------------------- sensors
class _Relative(_pl._Relative):
    _frame = Frame

    def _out(self, name, v):
        v = ca.mtimes(self.frame_a.R.T, v) if self._resolve_a else v
        for k in range(3):
            self.output(f"{name}[{k + 1}]", v[k])


class RelativePosition(_Relative):
    """Outputs ``r_rel[i]``: frame_b's origin from frame_a's (in frame_a or the world)."""

    def __init__(self, name: str, resolveInFrame: str = "frame_a") -> None:
        super().__init__(name, resolveInFrame)
        self._out("r_rel", self.frame_b.r - self.frame_a.r)


class RelativeVelocity(_Relative):
    """Outputs ``v_rel[i]``: rate of the relative position (differentiated in the world,
    then resolved)."""

    def __init__(self, name: str, resolveInFrame: str = "frame_a") -> None:
        super().__init__(name, resolveInFrame)
        self._out("v_rel", der(self.frame_b.r) - der(self.frame_a.r))


class RelativeAngularVelocity(_Relative):
    """Outputs ``w_rel[i]``: angular velocity of frame_b relative to frame_a."""
    units = {"w_rel": "rad/s"}

    def __init__(self, name: str, resolveInFrame: str = "frame_a") -> None:
        super().__init__(name, resolveInFrame)
        a, b = self.frame_a, self.frame_b
        w = ca.mtimes(b.R, b.angular_velocity()) - ca.mtimes(a.R, a.angular_velocity())
        self._out("w_rel", w)
