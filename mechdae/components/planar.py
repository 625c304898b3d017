"""Planar multibody components (Modelica PlanarMechanics names and parameters).

Connector :class:`Frame`: potentials ``x, y`` (m, origin of the frame in the world) and
``phi`` (rad, its angle); flows ``fx, fy`` (N, world-resolved) and ``tau`` (N m, about the
frame origin), positive *into* the component (the force the node applies to it). The core
pairs potential i with flow i, so virtual work, energies and Newton's third law at a node
work as in the 1-D libraries.

How a mechanism becomes equations (see :mod:`.flatten`):

- the :class:`World` and :class:`Fixed` *define* their frame; a joint is a *relation*
  between its two frames and its coordinate (``frame_b = frame_a`` displaced by the joint);
  a body or a :class:`FixedTranslation` is a rigid relation ``frame_b = frame_a + R(phi_a) r``.
  In a tree the relations are solved row by row for the frame that is not yet known (in
  either direction), so a chain of n Revolutes has n coordinates and no constraint; where a
  loop closes, the rows of the joint met last become holonomic constraints (a row linear in
  one coordinate eliminates it), whose multipliers are the cut forces.
- bodies contribute their kinetic and potential energy in terms of the potentials of
  ``frame_a`` and report as flows ``self.energy_flows(frame_a)``: the inertial force minus
  the weight, and the torque about ``frame_a`` (results evaluate them from the equations of
  motion).
- gravity: every body takes ``g * n`` from the model's one :class:`World` (found when the
  model is flattened; ``simulate(params={"world.g": ...})`` changes every weight). A model
  with bodies needs exactly one World.
- force elements act through their potential energy (springs) and virtual work; contact
  elements are ``Model.contact`` entries (their frame flows are contact forces, which
  results do not offer).

Vector parameters are Model parameters named by component, MSL style (1-based):
``"l1.r[1]"``, ``"l1.r[2]"``, ``"l1.r_cm[1]"``, ...

Example
-------
>>> import mechdae as md
>>> from mechdae.components import planar as pl
>>> m = md.Model("pendulum")
>>> w = m.add(pl.World("world"))
>>> j1 = m.add(pl.Revolute("j1", phi0=0.3))
>>> l1 = m.add(pl.BodyShape("l1", r=(1.0, 0.0), r_cm=(0.5, 0.0), m=1.0, I=1/12))
>>> m.connect(w.frame, j1.frame_a); m.connect(j1.frame_b, l1.frame_a)
>>> res = m.compile().simulate(1.0)
"""
from __future__ import annotations

import math
import numbers

import casadi as ca
import numpy as np

from .._typing import Any, Expr, Sequence
from ..dsl.model import der, placeholder
from .core import Component, Connector
from . import rotational as _rot_lib
from . import translational as _tr_lib

__all__ = ["Frame", "World", "Fixed", "FixedTranslation", "Body", "BodyShape", "Revolute",
           "Prismatic", "Free", "Spring", "Damper", "SpringDamper", "Force", "Torque",
           "PointLineContact", "PointPointContact", "RelativeAngle", "RelativePosition",
           "RelativeVelocity"]


class Frame(Connector):
    """Planar frame: position ``x, y`` and angle ``phi`` in the world; cut force ``fx, fy``
    (world-resolved) and torque ``tau`` about the frame origin, positive into the
    component."""
    units = {"x": "m", "y": "m", "phi": "rad", "fx": "N", "fy": "N", "tau": "N.m"}
    potentials = ("x", "y", "phi")
    flows = ("fx", "fy", "tau")
    domain = "planar"
    kind = "Frame"
    support_hint = ("connect it through joints to the World (pl.Revolute, pl.Prismatic; "
                    "pl.Free for a body that moves freely) or to a pl.Fixed frame")


def _rotate(phi, v):
    """``R(phi) v`` for a 2-vector ``v``."""
    c, s = ca.cos(phi), ca.sin(phi)
    return c * v[0] - s * v[1], s * v[0] + c * v[1]


def _is_number(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _vec(comp, name, value, n=2):
    """An n-vector argument: numbers become parameters ``"<name>[1]"``, ``"<name>[2]"``, ...;
    expressions are used as given."""
    v = list(value) if isinstance(value, (list, tuple, np.ndarray)) else None
    if v is None or len(v) != n:
        raise ValueError(f"{type(comp).__name__} '{comp.name}': {name}={value!r} must be a "
                         f"{n}-vector ({', '.join('xyz'[:n])})")
    return [comp.parameter(f"{name}[{k + 1}]", float(x)) if _is_number(x) else x
            for k, x in enumerate(v)]


def _vec2(comp, name, value):
    return _vec(comp, name, value, 2)


def _unit(comp, name, value, n=2):
    """A constant direction (numbers, normalized)."""
    v = np.asarray(value, float).ravel()
    if n == 2 and v.size == 3 and v[2] == 0.0:
        v = v[:2]
    nrm = float(np.linalg.norm(v)) if v.size == n else 0.0
    if v.size != n or not np.isfinite(nrm) or nrm == 0.0:
        raise ValueError(f"{type(comp).__name__} '{comp.name}': {name}={value!r} must be a "
                         f"nonzero {'planar ' if n == 2 else ''}direction "
                         f"({', '.join('n' + a for a in 'xyz'[:n])})")
    return v / nrm


def _unit2(comp, name, value):
    return _unit(comp, name, value, 2)


def _source(comp, value, names):
    """Source values: a number (a parameter), an expression, or a function of t (each entry,
    or the whole tuple from one function)."""
    t = comp.time
    if callable(value) and not isinstance(value, (ca.SX, ca.MX)):
        value = value(t)
        if len(names) > 1:
            value = [value[k] for k in range(len(names))]
    vals = list(value) if len(names) > 1 else [value]
    if len(vals) != len(names):
        raise ValueError(f"{type(comp).__name__} '{comp.name}': give {len(names)} values "
                         f"({', '.join(names)}), got {value!r}")
    out = []
    for n, v in zip(names, vals):
        if _is_number(v):
            out.append(comp.parameter(n, float(v)))
        else:
            out.append(comp.source(v, t))
    return out


def _rigid(comp, a, b, r):
    """Rows of ``frame_b = frame_a + R(phi_a) r``, ``phi_b = phi_a`` (angle first: the
    positions need it when solved from either side)."""
    dx, dy = _rotate(a.phi, r)
    comp.relation(b.phi - a.phi, name="cut_phi")
    comp.relation(b.x - a.x - dx, name="cut_x")
    comp.relation(b.y - a.y - dy, name="cut_y")


def _shape(kind, comp, *anchors, **kw):
    """A :class:`~mechdae.simulate.shapes.Shape` of ``comp`` (anchors: connectors or
    ``(connector, offset)``); the drawing() methods below use it."""
    from ..simulate.shapes import Anchor, Shape
    return Shape(kind, comp.path, [Anchor(*a) if isinstance(a, tuple) else Anchor(a)
                                   for a in anchors], **kw)


def _params(comp, local, n):
    """The parameters ``"<local>[1..n]"`` of ``comp`` as drawing offsets (Param)."""
    from ..simulate.shapes import param_of
    out = [param_of(comp, f"{local}[{k + 1}]", None) for k in range(n)]
    return tuple(0.0 if v is None else v for v in out)


# ---------------------------------------------------------------------- fixed frames
class World(Component):
    """The inertial frame (``frame`` at the origin, angle 0) and the gravity of the model:
    acceleration ``g`` (parameter ``"<path>.g"``) along the direction ``n`` (default
    ``(0, -1)``: -y). Every body of the model takes its weight from the one World."""
    units = {"g": "m/s2", "n": "1"}

    def __init__(self, name: str, g: Expr = 9.81, n: Sequence[Expr] = (0.0, -1.0)) -> None:
        super().__init__(name)
        self.g = self.parameter("g", g)
        self.n = _unit2(self, "n", n)
        self.frame = self.connector(Frame, "frame")

    def _build_equations(self):
        self.define(self.frame, [0.0, 0.0, 0.0])

    @property
    def gravity(self):
        """The gravity vector ``g n`` (expressions of the World's parameter)."""
        return [self.g * float(self.n[0]), self.g * float(self.n[1])]

    def _before_flatten(self, components):
        return _one_world(self, components, "pl")

    def drawing(self) -> list:
        """The world axes at the origin."""
        return [_shape("axes", self, self.frame)]


def _one_world(world, components, lib):
    """Problems if the model has more than one World (reported once, by the first)."""
    worlds = [c for c in components if isinstance(c, type(world))]
    if len(worlds) > 1 and worlds[0] is world:
        return [f"{len(worlds)} Worlds ({', '.join(w.path for w in worlds)}): a model has "
                "one World (it defines the inertial frame and the gravity); connect every "
                f"ground point to it or use {lib}.Fixed for further fixed points"]
    return []


class Fixed(Component):
    """A frame fixed in the world at ``r`` with angle ``phi`` (parameters ``"<path>.r[1]"``,
    ``"<path>.r[2]"``, ``"<path>.phi"``)."""
    units = {"r": "m", "phi": "rad"}

    def __init__(self, name: str, r: Sequence[Expr] = (0.0, 0.0), phi: Expr = 0.0) -> None:
        super().__init__(name)
        self.r = _vec2(self, "r", r)
        self.phi = self.parameter("phi", phi)
        self.frame = self.connector(Frame, "frame")

    def _build_equations(self):
        self.define(self.frame, [*self.r, self.phi])

    def drawing(self) -> list:
        """A support at the frame."""
        return [_shape("ground", self, self.frame)]


class FixedTranslation(Component):
    """Massless rigid rod: ``frame_b = frame_a + R(phi_a) r``, same angle."""
    units = {"r": "m"}

    def __init__(self, name: str, r: Sequence[Expr] = (1.0, 0.0)) -> None:
        super().__init__(name)
        self.r = _vec2(self, "r", r)
        self.frame_a = self.connector(Frame, "frame_a")
        self.frame_b = self.connector(Frame, "frame_b")

    def _build_equations(self):
        _rigid(self, self.frame_a, self.frame_b, self.r)

    def drawing(self) -> list:
        """A thin rod from frame_a to frame_b."""
        return [_shape("capsule", self, self.frame_a, self.frame_b, rod=True)]


# ---------------------------------------------------------------------- bodies
class _Inertial(Component):
    """A rigid body at ``r_cm`` from ``frame_a`` (mass ``m``, inertia ``I`` about the center
    of mass); its weight comes from the model's World. The constructor declares the
    parameters (:meth:`_declare`); the energies, flows and outputs are built by
    :meth:`_build_equations` when the generic flattening needs them."""
    units = {"m": "kg", "I": "kg.m2", "r_cm": "m", "gravity": "m/s2", "r_cm_x": "m",
             "r_cm_y": "m", "v_cm_x": "m/s", "v_cm_y": "m/s", "w": "rad/s"}

    def _declare(self, m, I, r_cm=(0.0, 0.0)):
        self._m = self.parameter("m", m)
        self._I = self.parameter("I", I)
        self._r_cm = r_cm
        self._g = [placeholder(f"{self.name}.gravity[{k}]") for k in (1, 2)]

    def _build_equations(self):
        a = self.frame_a
        mass, inertia = self._m, self._I
        ox, oy = _rotate(a.phi, self._r_cm)
        cx, cy = a.x + ox, a.y + oy
        vx, vy = der(cx), der(cy)
        self.kinetic_energy(0.5 * mass * (vx ** 2 + vy ** 2) + 0.5 * inertia * der(a.phi) ** 2)
        self.potential_energy(-mass * (self._g[0] * cx + self._g[1] * cy))
        self.flow(a, self.energy_flows(a), energy=True)
        self.output("r_cm_x", cx)        # position and velocity of the center of mass
        self.output("r_cm_y", cy)
        self.output("v_cm_x", vx)
        self.output("v_cm_y", vy)
        self.output("w", der(a.phi))

    def _before_flatten(self, components):
        return _take_gravity(self, components, World, "pl")

    def drawing(self) -> list:
        """A capsule from frame_a to frame_b (bodies with two frames) and a sphere at the
        center of mass."""
        out = []
        if hasattr(self, "frame_b"):
            out.append(_shape("capsule", self, self.frame_a, self.frame_b))
        r_cm = _params(self, "r_cm", len(self._r_cm)) if len(self._r_cm) else (0.0,)
        from ..simulate.shapes import nonzero
        if not hasattr(self, "frame_b") and nonzero(r_cm):
            out.append(_shape("capsule", self, self.frame_a, (self.frame_a, r_cm), rod=True))
        out.append(_shape("sphere", self, (self.frame_a, r_cm), body=True))
        return out


def _take_gravity(body, components, world_cls, lib):
    """Give ``body._g`` (placeholders) the gravity of the model's one World, as parameters of
    the body (problems as strings)."""
    worlds = [c for c in components if isinstance(c, world_cls)]
    names = [f"gravity[{k + 1}]" for k in range(len(body._g))]
    body._params = [p for p in body._params if p[0] not in names]
    if not worlds:
        return [f"{body.path}: a body takes its weight from the World: add "
                f"{lib}.World('world') to the model (World(g=0) for no gravity) and connect "
                "the mechanism to world.frame"]
    for n, ph, gk in zip(names, body._g, worlds[0].gravity):
        body._params.append((n, ph, gk))
    return []


class Body(_Inertial):
    """Rigid body with ``frame_a`` at its center of mass: mass ``m``, moment of inertia
    ``I`` about the center of mass. Flows at ``frame_a``: inertial force minus weight, and
    ``I phi''``. Outputs ``r_cm_x, r_cm_y, v_cm_x, v_cm_y, w``."""

    def __init__(self, name: str, m: Expr = 1.0, I: Expr = 0.1) -> None:
        super().__init__(name)
        self.frame_a = self.connector(Frame, "frame_a")
        self._declare(m, I)


class BodyShape(_Inertial):
    """Rigid body with two frames: ``frame_b = frame_a + R(phi_a) r``; center of mass at
    ``r_cm`` from ``frame_a`` (resolved in ``frame_a``), mass ``m``, moment of inertia ``I``
    about the center of mass."""
    units = {"r": "m"}

    def __init__(self, name: str, r: Sequence[Expr] = (1.0, 0.0),
                 r_cm: Sequence[Expr] = (0.5, 0.0), m: Expr = 1.0, I: Expr = 0.1) -> None:
        super().__init__(name)
        self.frame_a = self.connector(Frame, "frame_a")
        self.frame_b = self.connector(Frame, "frame_b")
        self.r = _vec2(self, "r", r)
        self._declare(m, I, _vec2(self, "r_cm", r_cm))

    def _build_equations(self):
        super()._build_equations()
        _rigid(self, self.frame_a, self.frame_b, self.r)


# ---------------------------------------------------------------------- joints
class _Joint(Component):
    _frame = Frame                       # the spatial joints reuse this with their frame

    def __init__(self, name: str, cut: bool = False) -> None:
        super().__init__(name)
        self.cut = bool(cut)
        self.frame_a = self.connector(self._frame, "frame_a")
        self.frame_b = self.connector(self._frame, "frame_b")

    def relation(self, phi, name="relation", **kw):
        """As :meth:`Component.relation`; a joint made with ``cut=True`` is where the loop it
        belongs to is cut (its rows become the loop's constraints)."""
        if self.cut:
            kw["loop_cut"] = 2
        super().relation(phi, name, **kw)

    _joint = True                        # connecting its two frames locks it

    def _axis(self, flange_cls, q):
        """Drive flanges ``axis`` (at the joint coordinate) and ``support`` (fixed at 0, as
        MSL's internal fixed support): an element between them acts on the coordinate."""
        self.axis = self.connector(flange_cls, "axis")
        self.support = self.connector(flange_cls, "support")
        self.define(self.axis, q)
        self.define(self.support, 0.0)


class Revolute(_Joint):
    """Revolute joint: ``frame_b`` at the origin of ``frame_a``, rotated by the coordinate
    ``"<path>.phi"`` (speed ``"<path>.w"``). ``useAxisFlange=True`` adds rotational flanges
    ``axis`` (angle ``phi``) and ``support`` (fixed): a ``rotational.Torque`` on ``axis``
    drives the joint, a spring or damper between ``axis`` and ``support`` acts on ``phi``."""
    units = {"phi": "rad", "w": "rad/s"}

    def __init__(self, name: str, phi0: Expr = 0.0, w0: Expr = 0.0, useAxisFlange: bool = False,
                 cut: bool = False) -> None:
        super().__init__(name, cut)
        self.phi = self.coordinate("phi", default=phi0, speed="w", speed_default=w0)
        if useAxisFlange:
            self._axis(_rot_lib.Flange, self.phi)

    def _build_equations(self):
        a, b = self.frame_a, self.frame_b
        self.relation(b.phi - a.phi - self.phi, name="cut_phi")
        self.relation(b.x - a.x, name="cut_x")
        self.relation(b.y - a.y, name="cut_y")

    def drawing(self) -> list:
        """A pin at the joint (axis z)."""
        return [_shape("joint", self, self.frame_a, style="revolute", axis=(0.0, 0.0, 1.0))]


class Prismatic(_Joint):
    """Prismatic joint: ``frame_b = frame_a + R(phi_a) e s`` with ``e = r / |r|`` (the
    direction resolved in ``frame_a``), coordinate ``"<path>.s"`` (speed ``"<path>.v"``),
    same angle. ``useAxisFlange=True`` adds translational flanges ``axis`` (at ``s``) and
    ``support`` (fixed)."""
    units = {"r": "m", "s": "m", "v": "m/s"}

    def __init__(self, name: str, r: Sequence[Expr] = (1.0, 0.0), s0: Expr = 0.0, v0: Expr = 0.0,
                 useAxisFlange: bool = False, cut: bool = False) -> None:
        super().__init__(name, cut)
        self.r = _vec2(self, "r", r)
        self.s = self.coordinate("s", default=s0, speed="v", speed_default=v0)
        if useAxisFlange:
            self._axis(_tr_lib.Flange, self.s)

    def _build_equations(self):
        a, b = self.frame_a, self.frame_b
        rx, ry = self.r
        nrm = ca.sqrt(rx ** 2 + ry ** 2)
        ex, ey = _rotate(a.phi, (rx / nrm, ry / nrm))
        self.relation(b.phi - a.phi, name="cut_phi")
        self.relation(b.x - a.x - ex * self.s, name="cut_x")
        self.relation(b.y - a.y - ey * self.s, name="cut_y")

    def drawing(self) -> list:
        """A slider: the guide from frame_a to frame_b."""
        return [_shape("joint", self, self.frame_a, self.frame_b, style="prismatic")]


class Free(_Joint):
    """Free planar motion of ``frame_b`` relative to ``frame_a``: coordinates
    ``"<path>.x"``, ``"<path>.y"`` (world-resolved displacement, speeds ``vx``, ``vy``) and
    ``"<path>.phi"`` (speed ``w``). A free body is ``World -> Free -> Body``."""
    units = {"x": "m", "y": "m", "phi": "rad", "vx": "m/s", "vy": "m/s", "w": "rad/s"}

    def __init__(self, name: str, x0: Expr = 0.0, y0: Expr = 0.0, phi0: Expr = 0.0,
                 vx0: Expr = 0.0, vy0: Expr = 0.0, w0: Expr = 0.0, cut: bool = False) -> None:
        super().__init__(name, cut)
        self._q = [self.coordinate("x", default=x0, speed="vx", speed_default=vx0),
                   self.coordinate("y", default=y0, speed="vy", speed_default=vy0),
                   self.coordinate("phi", default=phi0, speed="w", speed_default=w0)]

    def _build_equations(self):
        a, b = self.frame_a, self.frame_b
        x, y, ph = self._q
        self.relation(b.phi - a.phi - ph, name="cut_phi")
        self.relation(b.x - a.x - x, name="cut_x")
        self.relation(b.y - a.y - y, name="cut_y")


# ---------------------------------------------------------------------- force elements
class _LineForce(Component):
    """Force ``f`` along the line between the frame origins, positive as tension (``f > 0``
    pulls the frames toward each other, as a stretched spring). Outputs ``s_rel``
    (distance), ``v_rel`` (its rate), ``f``. The direction is undefined when the origins
    coincide (``s_rel = 0``). The spatial library reuses it with its own frame."""
    units = {"s_rel": "m", "v_rel": "m/s", "f": "N", "lossPower": "W", "c": "N/m",
             "d": "N.s/m", "s_rel0": "m"}
    _frame = Frame
    _s0 = "s_rel0"                       # name of the unstretched length parameter

    @staticmethod
    def _origin(frame):
        return ca.vertcat(frame.x, frame.y)

    @staticmethod
    def _flow_of(F):
        """Connector flows of a world-resolved force ``F`` at the frame origin."""
        return [F[0], F[1], 0.0]

    def __init__(self, name: str) -> None:
        super().__init__(name)
        a = self.frame_a = self.connector(self._frame, "frame_a")
        b = self.frame_b = self.connector(self._frame, "frame_b")
        d = self._origin(b) - self._origin(a)
        self.s_rel = ca.sqrt(ca.dot(d, d))
        self.e = d / self.s_rel
        self.v_rel = ca.dot(self.e, der(self._origin(b)) - der(self._origin(a)))
        self.output("s_rel", self.s_rel)
        self.output("v_rel", self.v_rel)

    def _force(self, f_c=None, f_d=None):
        f = (0 if f_c is None else f_c) + (0 if f_d is None else f_d)
        e = self.e
        self.output("f", f)
        if f_d is not None:
            self.output("lossPower", f_d * self.v_rel)
        if f_c is None:
            self.flow(self.frame_a, self._flow_of(-f * e))
            self.flow(self.frame_b, self._flow_of(f * e))
        else:
            self.flow(self.frame_a, self._flow_of(-f * e), energy=self._flow_of(-f_c * e))
            self.flow(self.frame_b, self._flow_of(f * e), energy=self._flow_of(f_c * e))

    _look = ("spring",)                  # Damper: ("damper",); SpringDamper: both

    def drawing(self) -> list:
        """A coil (spring) and/or a dashpot (damper) between the frame origins."""
        return [_shape(k, self, self.frame_a, self.frame_b) for k in self._look]


class Spring(_LineForce):
    """Linear spring between the frame origins: ``f = c (s_rel - s_rel0)`` (tension
    positive), potential energy ``c/2 (s_rel - s_rel0)^2``."""

    def __init__(self, name: str, c: Expr = 1.0, s_rel0: Expr = 0.0) -> None:
        super().__init__(name)
        c = self.parameter("c", c)
        s0 = self.parameter(self._s0, s_rel0)
        self.potential_energy(0.5 * c * (self.s_rel - s0) ** 2)
        self._force(f_c=c * (self.s_rel - s0))


class Damper(_LineForce):
    """Linear damper between the frame origins: ``f = d v_rel``."""

    def __init__(self, name: str, d: Expr = 0.0) -> None:
        super().__init__(name)
        d = self.parameter("d", d)
        self._force(f_d=d * self.v_rel)

    _look = ("damper",)


class SpringDamper(_LineForce):
    """Spring and damper in parallel: ``f = c (s_rel - s_rel0) + d v_rel``."""

    def __init__(self, name: str, c: Expr = 1.0, d: Expr = 0.0, s_rel0: Expr = 0.0) -> None:
        super().__init__(name)
        c = self.parameter("c", c)
        d = self.parameter("d", d)
        s0 = self.parameter(self._s0, s_rel0)
        self.potential_energy(0.5 * c * (self.s_rel - s0) ** 2)
        self._force(c * (self.s_rel - s0), d * self.v_rel)

    _look = ("spring", "damper")


class Force(Component):
    """World-resolved force ``force = (fx, fy)`` on ``frame_b`` (at its origin): numbers
    (parameters ``"<path>.force[1]"``, ``"[2]"``), expressions, functions of t, or one
    function of t returning both."""
    units = {"force": "N"}

    def __init__(self, name: str, force: Any = (0.0, 0.0)) -> None:
        super().__init__(name)
        fx, fy = _source(self, force, ("force[1]", "force[2]"))
        self.frame_b = self.frame = self.connector(Frame, "frame_b")
        self.flow(self.frame_b, [-fx, -fy, 0.0])


class Torque(Component):
    """Torque ``tau`` (number: parameter ``"<path>.tau"``, expression or function of t) on
    ``frame_b``, positive counter-clockwise."""
    units = {"tau": "N.m"}

    def __init__(self, name: str, tau: Any = 0.0) -> None:
        super().__init__(name)
        tv, = _source(self, tau, ("tau",))
        self.frame_b = self.frame = self.connector(Frame, "frame_b")
        self.flow(self.frame_b, [0.0, 0.0, -tv])


# ---------------------------------------------------------------------- contacts
class PointLineContact(Component):
    """Unilateral contact ``"<path>.contact"`` of the point ``r`` of ``frame`` (resolved in
    the frame) against the world line through ``p0`` with normal ``n`` (pointing to the
    free side): gap ``n . (p - p0) >= 0``, tangent the position along the line (direction
    ``(n_y, -n_x)``); Newton restitution ``e``, friction ``mu`` (``inf``: no sliding),
    tangential restitution ``e_t``. The frame must belong to a body; the contact force is
    read from ``res.contact_forces["<path>.contact"]``."""
    units = {"r": "m", "p0": "m", "n": "1", "e": "1", "mu": "1", "e_t": "1", "gap": "m"}

    def __init__(self, name: str, r: Sequence[Expr] = (0.0, 0.0), p0: Sequence[Expr] = (0.0, 0.0),
                 n: Sequence[Expr] = (0.0, 1.0), e: Expr = 0.0, mu: Expr = 0.0,
                 e_t: Expr = 0.0) -> None:
        super().__init__(name)
        f = self.frame = self.connector(Frame, "frame")
        rx, ry = _vec2(self, "r", r)
        px0, py0 = _vec2(self, "p0", p0)
        nx, ny = self._n = _unit2(self, "n", n)
        ox, oy = _rotate(f.phi, (rx, ry))
        dx, dy = f.x + ox - px0, f.y + oy - py0
        self.contact("contact", gap=nx * dx + ny * dy, tangent=ny * dx - nx * dy,
                     **_contact_params(self, e, mu, e_t))
        self.output("gap", nx * dx + ny * dy)
        self.flow(f, None)

    def drawing(self) -> list:
        """The contact point (red while closed) and the line it touches."""
        p0 = [v for v in _params(self, "p0", 2)]
        return [_shape("point", self, (self.frame, _params(self, "r", 2)),
                       contact=f"{self.path}.contact"),
                _shape("plane", self, p0=p0, n=tuple(self._n))]


def _contact_params(comp, e, mu, e_t):
    kw = {}
    for key, arg, val in (("restitution", "e", e), ("friction", "mu", mu),
                          ("tangential_restitution", "e_t", e_t)):
        kw[key] = comp.parameter(arg, val) if _is_number(val) and math.isfinite(val) else val
    return kw


class PointPointContact(Component):
    """Unilateral contact ``"<path>.contact"`` between two disks: radius ``radius_a`` at
    ``r_a`` in ``frame_a`` and ``radius_b`` at ``r_b`` in ``frame_b`` (0: points). Gap
    ``|c_b - c_a| - radius_a - radius_b`` along the line of centers ``n``; the sliding
    velocity is that of the material points in contact, ``t . (v_Pb - v_Pa)`` with
    ``t = (-n_y, n_x)``; restitution ``e``, friction ``mu``, tangential restitution ``e_t``.
    Undefined when the centers coincide."""
    units = {"r_a": "m", "r_b": "m", "radius_a": "m", "radius_b": "m", "e": "1",
             "mu": "1", "e_t": "1", "gap": "m"}

    def __init__(self, name: str, r_a: Sequence[Expr] = (0.0, 0.0),
                 r_b: Sequence[Expr] = (0.0, 0.0), radius_a: Expr = 0.0, radius_b: Expr = 0.0,
                 e: Expr = 0.0, mu: Expr = 0.0, e_t: Expr = 0.0) -> None:
        super().__init__(name)
        a = self.frame_a = self.connector(Frame, "frame_a")
        b = self.frame_b = self.connector(Frame, "frame_b")
        pts = []
        for f, r, rad, k in ((a, r_a, radius_a, "a"), (b, r_b, radius_b, "b")):
            ox, oy = _rotate(f.phi, _vec2(self, f"r_{k}", r))
            rho = self.parameter(f"radius_{k}", rad) if _is_number(rad) else rad
            pts.append((ca.vertcat(f.x + ox, f.y + oy), rho, f))
        (ca_, ra, _), (cb, rb, _) = pts
        d = cb - ca_
        dist = ca.sqrt(ca.dot(d, d))
        n = d / dist
        t = ca.vertcat(-n[1], n[0])

        def v_point(c, rho, f, sign):          # material point at c + sign rho n
            w = der(f.phi)
            arm = sign * rho * n
            return der(c) + w * ca.vertcat(-arm[1], arm[0])
        vt = ca.dot(t, v_point(cb, rb, b, -1.0) - v_point(ca_, ra, a, 1.0))
        gap = dist - ra - rb
        self.contact("contact", gap=gap, tangent_velocity=[vt],
                     **_contact_params(self, e, mu, e_t))
        self.output("gap", gap)
        self.flow(a, None)
        self.flow(b, None)

    def drawing(self) -> list:
        """The two disks (points where the radius is 0), red while in contact."""
        from ..simulate.shapes import param_of
        return [_shape("point", self, (f, _params(self, f"r_{k}", 2)),
                       size=param_of(self, f"radius_{k}", None) or None,
                       contact=f"{self.path}.contact")
                for f, k in ((self.frame_a, "a"), (self.frame_b, "b"))]


# ---------------------------------------------------------------------- sensors
class _Relative(Component):
    _frame = Frame                       # the spatial sensors reuse this with their frame
    units = {"phi_rel": "rad", "x_rel": "m", "y_rel": "m", "vx_rel": "m/s", "vy_rel": "m/s",
             "w_rel": "rad/s", "r_rel": "m", "v_rel": "m/s"}

    def __init__(self, name: str, resolveInFrame: str = "frame_a") -> None:
        super().__init__(name)
        if resolveInFrame not in ("frame_a", "world"):
            raise ValueError(f"{type(self).__name__} '{name}': resolveInFrame="
                             f"{resolveInFrame!r}; give 'frame_a' or 'world'")
        self.frame_a = self.connector(self._frame, "frame_a")
        self.frame_b = self.connector(self._frame, "frame_b")
        self._resolve_a = resolveInFrame == "frame_a"

    def _vec(self, v):
        return _rotate(-self.frame_a.phi, v) if self._resolve_a else v


class RelativeAngle(_Relative):
    """Output ``phi_rel = frame_b.phi - frame_a.phi`` (no force)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.output("phi_rel", self.frame_b.phi - self.frame_a.phi)


class RelativePosition(_Relative):
    """Outputs ``x_rel, y_rel`` (position of frame_b's origin from frame_a's, resolved in
    ``resolveInFrame``: ``"frame_a"`` (default) or ``"world"``) and ``phi_rel``."""

    def __init__(self, name: str, resolveInFrame: str = "frame_a") -> None:
        super().__init__(name, resolveInFrame)
        a, b = self.frame_a, self.frame_b
        x, y = self._vec((b.x - a.x, b.y - a.y))
        self.output("x_rel", x)
        self.output("y_rel", y)
        self.output("phi_rel", b.phi - a.phi)


class RelativeVelocity(_Relative):
    """Outputs ``vx_rel, vy_rel`` (rate of the relative position, resolved in
    ``resolveInFrame`` after differentiation in the world) and ``w_rel``."""

    def __init__(self, name: str, resolveInFrame: str = "frame_a") -> None:
        super().__init__(name, resolveInFrame)
        a, b = self.frame_a, self.frame_b
        vx, vy = self._vec((der(b.x) - der(a.x), der(b.y) - der(a.y)))
        self.output("vx_rel", vx)
        self.output("vy_rel", vy)
        self.output("w_rel", der(b.phi) - der(a.phi))
