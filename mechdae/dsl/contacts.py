"""Unilateral contacts of a Model: the :class:`Contact` record and its declaration
(a mixin of :class:`mechdae.Model`).

One job: check and store what a contact is, ``g(q, t) >= 0`` with contact velocities
``v_c = W(q, t) u + w(q, t)`` (normal: ``dg/dt`` along the motion; tangential: the rates
of ``tangent`` or the values of ``tangent_velocity``) and its impact and friction law
(``e_n``, ``mu``, ``e_t``). ``compile()`` derives ``W``, ``Wt`` and ``Wdot_u``.
"""
from __future__ import annotations

import math

import casadi as ca

from .._typing import Any, Expr, Optional
from .._symbols import _as_sx

__all__ = ["Contact", "ContactDeclarations"]


class Contact:
    """A unilateral contact as declared in a Model (a record; compile derives W, Wt, Wdot_u).

    Attributes
    ----------
    name : str
    gap : SX
        Signed distance ``g(q, t) >= 0``.
    tangent : SX or None
        Expressions of ``q`` (and ``t``) whose rates are the sliding velocities.
    tangent_velocity : SX or None
        Sliding velocities written directly, affine in the speeds.
    restitution, friction, tangential_restitution : float or SX
        ``e_n``, ``mu`` (``inf``: no sliding), ``e_t``.
    law : str
        Impact law name (``"newton"``, ...), read by the contact drivers.
    friction_cone : str
        ``"coulomb"`` or ``"closure"`` (``mu = inf`` only; see :meth:`Model.contact`).
    """

    def __init__(self, name, gap, tangent, tangent_velocity, restitution, friction,
                 tangential_restitution, law, friction_cone="coulomb"):
        self.name = name
        self.gap = gap
        self.tangent = tangent
        self.tangent_velocity = tangent_velocity
        self.restitution = restitution
        self.friction = friction
        self.tangential_restitution = tangential_restitution
        self.law = law
        self.friction_cone = friction_cone

    def __repr__(self):
        cone = "" if self.friction_cone == "coulomb" else f", friction_cone={self.friction_cone!r}"
        return (f"Contact({self.name!r}, e_n={self.restitution}, mu={self.friction}, "
                f"e_t={self.tangential_restitution}, law={self.law!r}{cone})")


class ContactDeclarations:
    """Mixin of :class:`mechdae.Model`: :meth:`contact` appends a :class:`Contact` to the
    Model's ``contacts`` (problems found go to ``problems``, raised by ``compile()``)."""

    def contact(self, name: str, gap: Expr, tangent: Optional[Any] = None,
                tangent_velocity: Optional[Any] = None, restitution: Expr = 0.0,
                friction: Expr = 0.0, tangential_restitution: Expr = 0.0, law: str = "newton",
                friction_cone: str = "coulomb") -> None:
        """Declare a unilateral contact with gap ``g(q, t) >= 0``.

        Contact velocities are ``v_c = W(q, t) u + w(q, t)``: the normal one is ``dg/dt``
        along the motion, the tangential ones the rates of ``tangent`` or the values of
        ``tangent_velocity``. Contacts may be rheonomic (``w != 0``): a gap depending on the
        model time (a vibrating support, ``y - A sin(omega t)``), or a tangent velocity
        relative to a moving surface (a belt, ``der(x) - v_belt``); impact laws and friction
        act on these relative velocities.

        Parameters
        ----------
        name : str
        gap : expression of q, parameters and the model time m.time
        tangent : expression(s) of q (and m.time) whose rates are the sliding velocities,
            optional
        tangent_velocity : expression(s) affine in the speeds, optional (rolling bodies,
            moving surfaces)
        restitution, friction, tangential_restitution : float
            ``e_n`` in [0, 1], ``mu >= 0`` (``inf``: no sliding), ``e_t`` in [-1, 1].
        law : str
            Impact law (``"newton"`` default), passed on to the contact drivers.
        friction_cone : {"coulomb", "closure"}
            What ``friction=inf`` means at an impact. ``"coulomb"`` (default): the limit of
            the cone ``|P_t| <= mu P_n``, so a contact that separates (``P_n = 0``) takes no
            tangential impulse either. ``"closure"``: the closure of the cone as
            ``mu -> inf``, the half-plane ``P_n >= 0`` with ``P_t`` unbounded; its dual cone
            is ``v_t+ = 0, v_n+ >= 0``, so the contact's tangential velocity is stopped
            even when it lifts off (``0 <= P_n _|_ v_n+ >= 0``, ``v_t+ + e_t v_t- = 0``).
            This is the modified impact model (5.2) of Rubanovich & Formalsky (seed 000:
            ``x_D(+0) = 0`` with ``E_1y = 0``). Implemented by ``System.impact`` and
            ``System.impact_batch``; the simulation drivers, ``contact_forces`` and
            ``painleve`` reject it (ValueError).
        """
        self._names_check(name, "contact")
        if friction_cone not in ("coulomb", "closure"):
            self.problems.append(f"contact '{name}': friction_cone={friction_cone!r}; use "
                                 "'coulomb' (default) or 'closure'")
        elif friction_cone == "closure":
            if isinstance(friction, (ca.SX, ca.MX)) or float(friction) != math.inf:
                self.problems.append(f"contact '{name}': friction_cone='closure' is the limit "
                                     f"mu -> inf; set friction=math.inf (got {friction})")
            if tangent is None and tangent_velocity is None:
                self.problems.append(f"contact '{name}': friction_cone='closure' needs a "
                                     "tangent (or tangent_velocity) to stop")
        if tangent is not None and tangent_velocity is not None:
            self.problems.append(f"contact '{name}': give either tangent or tangent_velocity, "
                                 "not both")
        for what, val, lo, hi in (("restitution", restitution, 0.0, 1.0),
                                  ("friction", friction, 0.0, math.inf),
                                  ("tangential_restitution", tangential_restitution, -1.0, 1.0)):
            if not isinstance(val, (ca.SX, ca.MX)):
                v = float(val)
                if math.isnan(v) or not (lo <= v <= hi):
                    self.problems.append(f"contact '{name}': {what}={val} is outside [{lo}, {hi}]")
        self.contacts.append(Contact(
            name, _as_sx(gap, f"gap of contact '{name}'"),
            None if tangent is None else _as_sx(tangent, f"tangent of contact '{name}'"),
            None if tangent_velocity is None else _as_sx(tangent_velocity,
                                                         f"tangent_velocity of contact '{name}'"),
            restitution, friction, tangential_restitution, law, friction_cone))
