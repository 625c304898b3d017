"""1-D rotational mechanics (Modelica.Mechanics.Rotational names and parameters).

Connector ``Flange``: potential ``phi`` (rad), flow ``tau`` (N m, positive into the
component). Inertias carry the coordinates (``"<inertia>.phi"``, speed ``"<inertia>.w"``);
springs and dampers act through their potential energy and virtual work; an IdealGear is a
kinematic relation (substituted in a tree, a constraint in a loop). Inertia, Spring, Damper,
SpringDamper, Fixed and Torque declare their equations only when the generic flattening
reads them (:mod:`.flatten.network`: built once per class).
"""
from __future__ import annotations

from .._typing import Any, Expr
from ..dsl.model import der
from .core import Component, Connector, LazyEquations

__all__ = ["Flange", "Inertia", "Spring", "Damper", "SpringDamper", "Fixed", "Torque",
           "IdealGear", "Position", "AngleSensor", "SpeedSensor", "TorqueSensor",
           "BearingFriction", "Brake", "Clutch"]


class Flange(Connector):
    """Rotational flange: angle ``phi`` (rad), cut torque ``tau`` (N m)."""
    units = {"phi": "rad", "tau": "N.m"}
    potentials = ("phi",)
    flows = ("tau",)
    domain = "rotational"
    kind = "Flange"


def _shape(kind, comp, *flanges, **kw):
    """A :class:`~mechdae.simulate.shapes.Shape` of ``comp`` on its flanges (the 1-D
    schematic of :mod:`mechdae.simulate.scene`)."""
    from ..simulate.shapes import Anchor, Shape
    return Shape(kind, comp.path, [Anchor(f) for f in flanges], **kw)


class Inertia(LazyEquations, Component):
    """Rotor ``J phi'' = flange_a.tau + flange_b.tau``. Variables ``phi``, ``w`` (states),
    ``a``."""
    units = {"J": "kg.m2", "phi": "rad", "w": "rad/s", "a": "rad/s2"}
    _template = True

    def __init__(self, name: str, J: Expr = 1.0, phi: Expr = 0.0, w: Expr = 0.0) -> None:
        super().__init__(name)
        self._J = self.parameter("J", J)
        self._phi = self.coordinate("phi", default=phi, speed="w", speed_default=w)
        self.connector(Flange, "flange_a")
        self.connector(Flange, "flange_b")

    def _build_equations(self):
        phi = self._phi
        self.define(self.flange_a, phi)
        self.define(self.flange_b, phi)
        self.kinetic_energy(0.5 * self._J * der(phi) ** 2)
        self.output("a", der(der(phi)))

    def drawing(self) -> list:
        """A disc with a spoke turned by ``phi`` (both flanges on one shaft)."""
        return [_shape("rotor", self, self.flange_a, self.flange_b)]


class _Compliant(LazyEquations, Component):
    """Two flanges; ``phi_rel = flange_b.phi - flange_a.phi``, ``w_rel``, torque ``tau``
    (flange_b.tau)."""
    units = {"phi_rel": "rad", "w_rel": "rad/s", "tau": "N.m", "c": "N.m/rad",
             "phi_rel0": "rad", "d": "N.m.s/rad", "lossPower": "W"}

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.flange_a = self.connector(Flange, "flange_a")
        self.flange_b = self.connector(Flange, "flange_b")

    _look = ("spring",)                  # Damper: ("damper",); SpringDamper: both

    def drawing(self) -> list:
        """A coil (spring) and/or a dashpot (damper) between the shafts of the flanges."""
        return [_shape(k, self, self.flange_a, self.flange_b) for k in self._look]

    @property
    def phi_rel(self):
        """``flange_b.phi - flange_a.phi`` (an expression of the flanges' placeholders)."""
        return self.flange_b.phi - self.flange_a.phi

    @property
    def w_rel(self):
        """``der(flange_b.phi) - der(flange_a.phi)``."""
        return der(self.flange_b.phi) - der(self.flange_a.phi)

    def _build_equations(self):
        self.output("phi_rel", self.phi_rel)
        self.output("w_rel", self.w_rel)

    def _torque(self, tau_c=None, tau_d=None, w_rel=None):
        tau = (0 if tau_c is None else tau_c) + (0 if tau_d is None else tau_d)
        self.output("tau", tau)
        if tau_c is None:
            self.flow(self.flange_a, -tau)
            self.flow(self.flange_b, tau)
        else:
            self.flow(self.flange_a, -tau, energy=-tau_c)
            self.flow(self.flange_b, tau, energy=tau_c)
        if tau_d is not None:
            self.output("lossPower", tau_d * w_rel)


class Spring(_Compliant):
    """Linear torsion spring ``tau = c (phi_rel - phi_rel0)``."""
    _template = True

    def __init__(self, name: str, c: Expr = 1.0, phi_rel0: Expr = 0.0) -> None:
        super().__init__(name)
        self._c = self.parameter("c", c)
        self._p0 = self.parameter("phi_rel0", phi_rel0)

    def _build_equations(self):
        super()._build_equations()
        c, p0, phi_rel = self._c, self._p0, self.phi_rel
        self.potential_energy(0.5 * c * (phi_rel - p0) ** 2)
        self._torque(tau_c=c * (phi_rel - p0))


class Damper(_Compliant):
    """Linear damper ``tau = d w_rel``."""
    _template = True
    _look = ("damper",)

    def __init__(self, name: str, d: Expr = 0.0) -> None:
        super().__init__(name)
        self._d = self.parameter("d", d)

    def _build_equations(self):
        super()._build_equations()
        w_rel = self.w_rel
        self._torque(tau_d=self._d * w_rel, w_rel=w_rel)


class SpringDamper(_Compliant):
    """Spring and damper in parallel ``tau = c (phi_rel - phi_rel0) + d w_rel``."""
    _template = True
    _look = ("spring", "damper")

    def __init__(self, name: str, c: Expr = 1.0, d: Expr = 0.0, phi_rel0: Expr = 0.0) -> None:
        super().__init__(name)
        self._c = self.parameter("c", c)
        self._d = self.parameter("d", d)
        self._p0 = self.parameter("phi_rel0", phi_rel0)

    def _build_equations(self):
        super()._build_equations()
        c, p0, phi_rel, w_rel = self._c, self._p0, self.phi_rel, self.w_rel
        self.potential_energy(0.5 * c * (phi_rel - p0) ** 2)
        self._torque(c * (phi_rel - p0), self._d * w_rel, w_rel)


class Fixed(LazyEquations, Component):
    """Flange fixed at angle ``phi0``."""
    units = {"phi0": "rad"}
    _template = True

    def __init__(self, name: str, phi0: Expr = 0.0) -> None:
        super().__init__(name)
        self._p0 = self.parameter("phi0", phi0)
        self.flange = self.connector(Flange, "flange")

    def _build_equations(self):
        self.define(self.flange, self._p0)

    def drawing(self) -> list:
        """A support at the flange."""
        return [_shape("ground", self, self.flange)]


class Torque(LazyEquations, Component):
    """Torque ``tau`` (constant, expression or function of time) driving the flange in the
    positive direction (``flange.tau = -tau``)."""
    units = {"tau": "N.m"}

    def __init__(self, name: str, tau: Any = 0.0) -> None:
        super().__init__(name)
        self._value = self.signal("tau", tau)
        self.flange = self.connector(Flange, "flange")

    def _build_equations(self):
        self.output("tau", self._value)
        self.flow(self.flange, -self._value)


class IdealGear(Component):
    """Ideal gear ``flange_a.phi = ratio * flange_b.phi``; torques
    ``ratio * flange_a.tau + flange_b.tau = 0`` (no losses, no inertia)."""
    units = {"ratio": "1", "phi_a": "rad", "phi_b": "rad"}

    def __init__(self, name: str, ratio: Expr = 1.0) -> None:
        super().__init__(name)
        r = self.parameter("ratio", ratio)
        a = self.connector(Flange, "flange_a")
        b = self.connector(Flange, "flange_b")
        self.relation(a.phi - r * b.phi, name="gear")
        self.output("phi_a", a.phi)
        self.output("phi_b", b.phi)

    def drawing(self) -> list:
        """A shaft between the two sides."""
        return [_shape("capsule", self, self.flange_a, self.flange_b, rod=True)]


class Position(Component):
    """Prescribed angle ``flange.phi = phi_ref(t)`` (a program constraint where the flange
    is also defined by an inertia)."""
    units = {"phi_ref": "rad"}

    def __init__(self, name: str, phi_ref: Any = 0.0) -> None:
        super().__init__(name)
        pv = self.signal("phi_ref", phi_ref)
        self.flange = self.connector(Flange, "flange")
        self.define(self.flange, pv)


class AngleSensor(Component):
    """Ideal sensor: output ``phi`` (no torque)."""
    units = {"phi": "rad"}

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.flange = self.connector(Flange, "flange")
        self.output("phi", self.flange.phi)


class SpeedSensor(Component):
    """Ideal sensor: output ``w = der(flange.phi)`` (no torque)."""
    units = {"w": "rad/s"}

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.flange = self.connector(Flange, "flange")
        self.output("w", der(self.flange.phi))


class TorqueSensor(Component):
    """Rigid connection measuring the torque ``tau = flange_a.tau`` transmitted a -> b."""
    units = {"tau": "N.m"}

    def __init__(self, name: str) -> None:
        super().__init__(name)
        a = self.connector(Flange, "flange_a")
        b = self.connector(Flange, "flange_b")
        self.relation(b.phi - a.phi, name="rigid")
        self.output("tau", a.tau)


from .friction import BearingFriction, Brake, Clutch  # noqa: E402,F401

from ._msl_exports import export as _msl_export  # noqa: E402
__all__ += _msl_export(globals(), "rotational")
