r"""Contact and friction components: hard stops, Coulomb friction, clutches and brakes.

Every component here is built from the Model's unilateral contacts (:meth:`Model.contact`
through :meth:`Component.contact`), so every hybrid method (``method="event"``, ``"auto"``,
``"timestepping"``) handles their impacts and stick/slip transitions, and the event-driven
method locates them exactly. Their contact forces are not expressions: the flanges they act
on must be defined by an inertia (a translational ``Mass`` or a rotational ``Inertia``),
and results do not offer their cut forces (``self.flow(flange, None)``).

Construction (physically honest: nothing is regularized):

- :class:`Stop`: a unilateral gap ``s_max - flange.s >= 0`` (and/or
  ``flange.s - s_min >= 0``) with Newton restitution ``e``.
- :class:`MassWithStopAndFriction`: a sliding mass that also has a normal coordinate
  ``"<path>.y"`` (its distance from the surface, same mass ``m``) pressed on the surface by its
  weight ``m g`` plus an optional normal force ``fn``; the contact ``"<path>.surface"`` has
  gap ``y``, tangent ``s`` and friction ``mu``: the friction force is ``mu N`` while sliding and
  anything up to it while sticking (static = kinetic coefficient), exactly as in
  ``models/stick_slip.py``.
- :class:`Clutch`, :class:`Brake`, :class:`BearingFriction`: a virtual *pressure plate*,
  coordinate ``"<path>.p"`` of small mass ``m_plate``, pressed by the normal force ``fn(t)``
  onto the friction surface: contact ``"<path>.friction"`` with gap ``p``, tangent
  ``cgeo * phi_rel`` and friction ``mu``. While ``fn >= 0`` the plate rests on the surface
  (``p = p' = 0``, so its normal force is exactly ``fn``, whatever ``m_plate``) and the
  friction torque is bounded by ``mu cgeo fn``; with ``fn = 0`` it vanishes. The plate mass
  only matters if ``fn`` becomes negative (the plate lifts off).

Not supported (a ``ValueError`` says so): speed-dependent friction (Stribeck curves,
``mu_pos`` tables with different coefficients, ``peak != 1``), i.e. friction whose kinetic
coefficient differs from the static one.
"""
import math
import numbers

from ..dsl.model import der
from .core import Component

__all__ = ["Stop", "MassWithStopAndFriction", "BearingFriction", "Brake", "Clutch"]

# The connector classes come from the domain modules, imported when a component is created:
# translational.py and rotational.py re-export the classes below from their last line.


def _tr_flange():
    from .translational import Flange
    return Flange


def _rot_flange():
    from .rotational import Flange
    return Flange


def _number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _finite_bound(name, value, path):
    """``None`` for an infinite (absent) bound, the number otherwise."""
    if value is None:
        return None
    if not _number(value):
        raise ValueError(f"{path}: {name}={value!r} is not a number (give a float; +-inf for "
                         "no stop)")
    return None if math.isinf(value) else float(value)


def _check_restitution(path, e):
    if _number(e) and not 0.0 <= e <= 1.0:
        raise ValueError(f"{path}: restitution e={e} is outside [0, 1]")


def _stops(comp, s_lower, s_upper, smin, smax, e):
    """Contacts ``"<path>.upper"`` (gap ``smax - s_upper``) and ``"<path>.lower"`` (gap
    ``s_lower - smin``) for the finite bounds (parameters named as the component's
    arguments: ``s_min``/``s_max`` for Stop, MSL's ``smin``/``smax`` for the mass)."""
    n_min, n_max = ("smin", "smax") if comp._msl else ("s_min", "s_max")
    if smin is not None and smax is not None and smin >= smax:
        raise ValueError(f"{type(comp).__name__} '{comp.name}': {n_min}={smin} must be below "
                         f"{n_max}={smax}")
    if smin is None and smax is None:
        return
    e = comp.parameter("e", e)
    if smax is not None:
        comp.contact("upper", gap=comp.parameter(n_max, smax) - s_upper, restitution=e)
    if smin is not None:
        comp.contact("lower", gap=s_lower - comp.parameter(n_min, smin), restitution=e)


class Stop(Component):
    r"""Unilateral hard stop for a translational flange (an end stop, a wall).

    Contacts ``"<path>.upper"``: ``s_max - flange.s >= 0`` and ``"<path>.lower"``:
    ``flange.s - s_min >= 0``, each created only for a finite bound, with Newton restitution
    ``e`` (``v+ = -e v-`` at the stop; ``e = 0``: the flange stays at the stop, as the
    ``reinit(v, 0)`` of MSL's ``MassWithStopAndFriction``). The flange must belong to a node
    defined by a mass (connect it to ``tr.Mass.flange_a`` / ``flange_b``); its cut force is
    a contact force, read from ``res.contact_forces["<path>.upper"]``.

    Parameters
    ----------
    name : str
    s_min, s_max : float
        Lower and upper bound of ``flange.s`` (m); ``-inf`` / ``inf`` (default): no stop on
        that side. At least one must be finite. Model parameters ``"<path>.s_min"``,
        ``"<path>.s_max"``.
    e : float
        Newton restitution in [0, 1] (parameter ``"<path>.e"``).

    Examples
    --------
    >>> import mechdae as md
    >>> from mechdae.components import translational as tr
    >>> m = md.Model("stop")
    >>> mass = m.add(tr.Mass("mass", m=1.0))
    >>> stop = m.add(tr.Stop("stop", s_max=0.1, e=0.8))
    >>> m.connect(mass.flange_b, stop.flange)
    """
    units = {"s_min": "m", "s_max": "m", "e": "1", "s_rel": "m", "v_rel": "m/s"}
    _msl = False

    def __init__(self, name, s_min=-math.inf, s_max=math.inf, e=0.0):
        super().__init__(name)
        smin = _finite_bound("s_min", s_min, name)
        smax = _finite_bound("s_max", s_max, name)
        if smin is None and smax is None:
            raise ValueError(f"Stop '{name}': both bounds are infinite; give s_max and/or s_min "
                             "(a finite position of the stop)")
        _check_restitution(name, e)
        self.flange = self.connector(_tr_flange(), "flange")
        _stops(self, self.flange.s, self.flange.s, smin, smax, e)
        self.flow(self.flange, None)

    def drawing(self):
        """The flange's point, red while it rests on a stop (upper or lower)."""
        return _stop_points(self, self.flange, self.flange)


class MassWithStopAndFriction(Component):
    r"""Sliding mass on a rough surface, with optional hard stops (MSL
    ``Translational.Components.MassWithStopAndFriction``).

    The mass has its position ``s`` (speed ``v``) along the surface and a normal coordinate
    ``y`` (speed ``v_y``: its distance from the surface, default 0), both with mass ``m``:

    .. math::

        T = \tfrac{m}{2}(s'^2 + y'^2), \quad V = m g y, \quad Q_y = -f_n(t), \quad
        Q_s = -F_{prop}\, s',

    and the contact ``"<path>.surface"``: gap ``y``, tangent ``s``, Coulomb friction ``mu``,
    no bounce. Resting on the surface the normal force is ``N = m g + fn``, the friction
    force ``|F| <= mu N`` (equality while sliding, opposing ``v``): exact stick/slip. The
    flanges are at ``s -+ L/2``; stops (contacts ``"<path>.upper"``, ``"<path>.lower"``)
    keep ``s + L/2 <= smax`` and ``s - L/2 >= smin`` with restitution ``e``.

    MSL parameter mapping: ``F_Coulomb = mu m g`` (give either ``mu`` or ``F_Coulomb``; the
    latter sets ``mu = F_Coulomb / (m g)``); ``F_prop`` is the viscous part
    ``F_prop * v`` (virtual work); MSL's stops are inelastic (``e = 0``, the default).
    ``F_Stribeck`` and ``fexp`` (a static friction above the kinetic one) are not supported:
    a nonzero ``F_Stribeck`` raises ``ValueError``.

    Parameters
    ----------
    name : str
    m : float
        Mass (kg).
    L : float
        Length (m): flanges at ``s -+ L/2``.
    smax, smin : float
        Stops for the right end ``s + L/2`` and the left end ``s - L/2`` (m); ``+-inf``
        (default): none.
    mu : float, optional
        Coulomb friction coefficient (static = kinetic); parameter ``"<path>.mu"``.
    F_Coulomb : float, optional
        Constant Coulomb friction force (N), instead of ``mu``.
    g : float
        Gravity pressing the mass on the surface (m/s^2).
    fn : float, expression or callable of t
        Extra normal force pressing the mass on the surface (N); default 0.
    F_prop : float
        Velocity-dependent (viscous) friction coefficient (N s/m).
    F_Stribeck, fexp : float
        MSL's Stribeck friction: only ``F_Stribeck = 0`` is supported.
    e : float
        Restitution at the stops.
    s, v : float
        Default initial position and speed (states ``"<path>.s"``, ``"<path>.v"``).
    """
    units = {"m": "kg", "L": "m", "g": "m/s2", "F_Coulomb": "N", "mu": "1", "s": "m",
             "v": "m/s", "y": "m", "v_y": "m/s", "fn": "N", "F_prop": "N.s/m", "smin": "m",
             "smax": "m", "e": "1"}
    _msl = True

    def __init__(self, name, m=1.0, L=0.0, smax=math.inf, smin=-math.inf, mu=None,
                 F_Coulomb=None, g=9.81, fn=0.0, F_prop=0.0, F_Stribeck=0.0, fexp=2.0, e=0.0,
                 s=0.0, v=0.0):
        super().__init__(name)
        if not _number(F_Stribeck) or F_Stribeck != 0:
            raise ValueError(
                f"MassWithStopAndFriction '{name}': F_Stribeck={F_Stribeck!r} is not supported: "
                "only Coulomb friction with equal static and kinetic coefficients is "
                "(speed-dependent friction is not supported yet); give F_Stribeck=0 and "
                "F_Coulomb (or mu)")
        if mu is not None and F_Coulomb is not None:
            raise ValueError(f"MassWithStopAndFriction '{name}': give mu or F_Coulomb "
                             "(= mu m g), not both")
        if F_Coulomb is not None and not (_number(fn) and fn == 0):
            raise ValueError(f"MassWithStopAndFriction '{name}': F_Coulomb with an extra normal "
                             "force fn is ambiguous; give mu (the friction bound is then "
                             "mu (m g + fn))")
        smin_, smax_ = _finite_bound("smin", smin, name), _finite_bound("smax", smax, name)
        _check_restitution(name, e)
        mass = self.parameter("m", m)
        Lp = self.parameter("L", L)
        gp = self.parameter("g", g)
        if F_Coulomb is not None:
            if not (_number(F_Coulomb) and F_Coulomb >= 0):
                raise ValueError(f"MassWithStopAndFriction '{name}': F_Coulomb={F_Coulomb!r} "
                                 "must be a number >= 0")
            if not (_number(g) and g > 0 and _number(m) and m > 0):
                raise ValueError(f"MassWithStopAndFriction '{name}': F_Coulomb needs m > 0 "
                                 "and g > 0 (the weight m g presses the mass on the surface; "
                                 "mu = F_Coulomb / (m g))")
            mu_ = self.parameter("F_Coulomb", F_Coulomb) / (mass * gp)
        else:
            mu = 0.0 if mu is None else mu
            if _number(mu) and mu < 0:
                raise ValueError(f"MassWithStopAndFriction '{name}': mu={mu} must be >= 0")
            mu_ = self.parameter("mu", mu)
        s = self.coordinate("s", default=s, speed="v", speed_default=v)
        y = self.coordinate("y", default=0.0, speed="v_y")
        a = self.connector(_tr_flange(), "flange_a")
        b = self.connector(_tr_flange(), "flange_b")
        self.define(a, s - Lp / 2)
        self.define(b, s + Lp / 2)
        self.kinetic_energy(0.5 * mass * (der(s) ** 2 + der(y) ** 2))
        self.potential_energy(mass * gp * y)
        fnv = self.source(fn, self.time)
        if _number(fn):
            fnv = self.parameter("fn", fn) if fn != 0 else None
        if fnv is not None:
            self.generalized_force(-fnv, y)
        if not (_number(F_prop) and F_prop == 0):
            self.generalized_force(-self.parameter("F_prop", F_prop) * der(s), s)
        self.contact("surface", gap=y, tangent=s, restitution=0.0, friction=mu_)
        _stops(self, s - Lp / 2, s + Lp / 2, smin_, smax_, e)

    def drawing(self):
        """A block from flange_a to flange_b; its ends red while on a stop."""
        from ..simulate.shapes import Anchor, Shape
        return [Shape("block", self.path, [Anchor(self.flange_a), Anchor(self.flange_b)])] + \
            _stop_points(self, self.flange_a, self.flange_b)


def _stop_points(comp, lower, upper):
    """Points of the finite stops of ``comp`` (its contacts ``lower``/``upper``) at the
    flanges that touch them (:mod:`mechdae.simulate.shapes`)."""
    from ..simulate.shapes import Anchor, Shape
    names = {c["name"] for c in comp._contacts}
    return [Shape("point", comp.path, [Anchor(f)], contact=f"{comp.path}.{k}")
            for k, f in (("lower", lower), ("upper", upper)) if k in names]


# ------------------------------------------------------------------------------ rotational

def _mu_from_table(path, mu, mu_pos, peak, default=0.5, names=("mu", "mu_pos")):
    """The constant friction coefficient from ``mu`` or an MSL ``mu_pos`` table (``names``:
    the two arguments' names, for messages)."""
    n_mu, n_tab = names
    if not (_number(peak) and peak == 1):
        raise ValueError(f"{path}: peak={peak!r} is not supported: static friction above the "
                         "kinetic one (peak != 1) is speed-dependent friction, not supported "
                         "yet; give peak=1")
    if mu is not None and mu_pos is not None:
        raise ValueError(f"{path}: give {n_mu} or {n_tab}, not both")
    if mu_pos is not None:
        try:
            rows = [[float(x) for x in row] for row in
                    ([mu_pos] if _number(list(mu_pos)[0]) else mu_pos)]
        except (TypeError, ValueError, IndexError):
            raise ValueError(f"{path}: {n_tab}={mu_pos!r}: give a table [[w, {n_mu}], ...]") \
                from None
        if not rows or any(len(r) != 2 for r in rows):
            raise ValueError(f"{path}: {n_tab}={mu_pos!r}: give a table [[w, {n_mu}], ...] "
                             "(two columns)")
        mus = {r[1] for r in rows}
        if len(mus) != 1:
            raise ValueError(f"{path}: {n_tab}={mu_pos!r}: the friction varies with the speed; "
                             "speed-dependent friction is not supported yet (give one value: "
                             f"{n_mu}=... or a table with equal {n_mu} in every row)")
        mu = mus.pop()
    mu = default if mu is None else mu
    if _number(mu) and not mu >= 0:
        raise ValueError(f"{path}: {n_mu}={mu} must be >= 0")
    return mu


def _plate(comp, fn, tangent, mu, m_plate):
    """The pressure plate: coordinate ``p`` (speed ``v_p``) of mass ``m_plate`` pressed by
    ``fn`` onto the surface; contact ``"<path>.friction"`` (gap ``p``, ``tangent``, ``mu``)."""
    if _number(m_plate) and not m_plate > 0:
        raise ValueError(f"{comp.path}: m_plate={m_plate} must be > 0")
    mp = comp.parameter("m_plate", m_plate)
    p = comp.coordinate("p", default=0.0, speed="v_p")
    comp.kinetic_energy(0.5 * mp * der(p) ** 2)
    comp.generalized_force(-fn, p)
    comp.contact("friction", gap=p, tangent=tangent, restitution=0.0, friction=mu)


class _Pressed(Component):
    """Brake and clutch: normal force ``fn = fn_max * f_normalized(t)``, coefficient ``mu``."""
    units = {"f_normalized": "1", "fn_max": "N", "fn": "N", "mu": "1", "cgeo": "m",
             "phi_rel": "rad", "w_rel": "rad/s", "phi": "rad", "w": "rad/s", "m_plate": "kg"}

    def _normal(self, fn_max, mu, mu_pos, peak, cgeo, f_normalized):
        path = type(self).__name__ + f" '{self.name}'"
        mu = _mu_from_table(path, mu, mu_pos, peak)
        if _number(fn_max) and not fn_max >= 0:
            raise ValueError(f"{path}: fn_max={fn_max} must be >= 0")
        if _number(cgeo) and not cgeo > 0:
            raise ValueError(f"{path}: cgeo={cgeo} must be > 0")
        if _number(f_normalized) and not f_normalized >= 0:
            raise ValueError(f"{path}: f_normalized={f_normalized} must be >= 0 (MSL: "
                             "0 <= f_normalized <= 1)")
        fnorm = self.source(f_normalized, self.time)
        if _number(f_normalized):
            fnorm = self.parameter("f_normalized", f_normalized)
        fn = self.parameter("fn_max", fn_max) * fnorm
        self.output("fn", fn)
        return self.parameter("mu", mu), self.parameter("cgeo", cgeo), fn


class Clutch(_Pressed):
    r"""Clutch: Coulomb friction between ``flange_a`` and ``flange_b`` (MSL
    ``Rotational.Components.Clutch``).

    Normal force ``fn = fn_max * f_normalized(t)``; friction torque
    ``|tau| <= mu cgeo fn`` (equality while slipping, opposing ``w_rel``), with exact
    stick (lock-up) and slip events. Construction: a pressure plate ``"<path>.p"`` of mass
    ``m_plate`` pressed by ``fn`` (see the module docstring); contact ``"<path>.friction"``
    with tangent ``cgeo * phi_rel``. Both flanges must be defined by inertias.

    Parameters
    ----------
    name : str
    fn_max : float
        Maximum normal force (N).
    mu : float, optional
        Friction coefficient (static = kinetic); default 0.5 (MSL's ``mu_pos``).
    mu_pos : array_like, optional
        MSL table ``[[w, mu], ...]``: accepted only if ``mu`` is the same in every row.
    peak : float
        MSL ``peak`` (static/kinetic ratio): only 1 is supported.
    cgeo : float
        Geometry constant: ``tau = cgeo * mu * fn`` (m).
    f_normalized : float, expression or callable of t
        Normalized normal force, ``0 <= f_normalized <= 1`` (default 1).
    m_plate : float
        Mass of the virtual pressure plate (kg); does not change the motion while
        ``f_normalized >= 0``.

    Notes
    -----
    Outputs ``phi_rel = flange_b.phi - flange_a.phi``, ``w_rel`` and ``fn``; the friction
    torque is the tangential component of ``res.contact_forces["<path>.friction"]`` times
    ``cgeo``.
    """

    def __init__(self, name, fn_max=1.0, mu=None, mu_pos=None, peak=1.0, cgeo=1.0,
                 f_normalized=1.0, m_plate=1e-3):
        super().__init__(name)
        mu, cgeo, fn = self._normal(fn_max, mu, mu_pos, peak, cgeo, f_normalized)
        F = _rot_flange()
        self.flange_a = self.connector(F, "flange_a")
        self.flange_b = self.connector(F, "flange_b")
        phi_rel = self.flange_b.phi - self.flange_a.phi
        self.output("phi_rel", phi_rel)
        self.output("w_rel", der(phi_rel))
        _plate(self, fn, cgeo * phi_rel, mu, m_plate)
        self.flow(self.flange_a, None)
        self.flow(self.flange_b, None)


class _Housed(_Pressed):
    """Friction of ``flange_a`` (rigidly connected to ``flange_b``) against the fixed
    housing."""

    def _flanges(self):
        F = _rot_flange()
        self.flange_a = self.connector(F, "flange_a")
        self.flange_b = self.connector(F, "flange_b")
        self.relation(self.flange_b.phi - self.flange_a.phi, name="rigid")
        self.output("phi", self.flange_a.phi)
        self.output("w", der(self.flange_a.phi))
        self.flow(self.flange_a, None)


class Brake(_Housed):
    r"""Brake: Coulomb friction between the rigidly connected ``flange_a``/``flange_b`` and
    the fixed housing (MSL ``Rotational.Components.Brake`` with a fixed support).

    Normal force ``fn = fn_max * f_normalized(t)``; braking torque ``|tau| <= mu cgeo fn``
    (equality while slipping): a spinning inertia ``J`` with speed ``w0`` stops at
    ``t = J w0 / (mu cgeo fn)`` and then stays. Construction: a pressure plate ``"<path>.p"``
    (module docstring); contact ``"<path>.friction"`` with tangent ``cgeo * flange_a.phi``.
    The flanges must be defined by an inertia.

    Parameters
    ----------
    name : str
    fn_max, mu, mu_pos, peak, cgeo, f_normalized, m_plate :
        As :class:`Clutch`.

    Notes
    -----
    Outputs ``phi``, ``w`` (of the flanges) and ``fn``.
    """

    def __init__(self, name, fn_max=1.0, mu=None, mu_pos=None, peak=1.0, cgeo=1.0,
                 f_normalized=1.0, m_plate=1e-3):
        super().__init__(name)
        mu, cgeo, fn = self._normal(fn_max, mu, mu_pos, peak, cgeo, f_normalized)
        self._flanges()
        _plate(self, fn, cgeo * self.flange_a.phi, mu, m_plate)


class BearingFriction(_Housed):
    r"""Constant Coulomb friction torque of a bearing (MSL
    ``Rotational.Components.BearingFriction`` with a fixed support).

    ``flange_a`` and ``flange_b`` are rigidly connected; the friction torque against the
    housing is ``|tau| <= tau_c`` (equality while turning, opposing ``w``), with exact
    stick/slip. Construction: a pressure plate (module docstring) pressed with ``tau_c``
    (in N, one-to-one) and ``mu = cgeo = 1``; contact ``"<path>.friction"``.

    Parameters
    ----------
    name : str
    tau_c : float, optional
        Coulomb friction torque (N m); parameter ``"<path>.tau_c"``.
    tau_pos : array_like, optional
        MSL table ``[[w, tau], ...]`` instead of ``tau_c``: accepted only if ``tau`` is the
        same in every row.
    peak : float
        Only 1 is supported.
    m_plate : float
        Mass of the virtual pressure plate (kg).
    """
    units = {"tau_c": "N.m"}

    def __init__(self, name, tau_c=None, tau_pos=None, peak=1.0, m_plate=1e-3):
        super().__init__(name)
        if tau_c is None and tau_pos is None:
            raise ValueError(f"BearingFriction '{name}': give tau_c (the Coulomb friction "
                             "torque, N m)")
        tau = _mu_from_table(f"BearingFriction '{name}'", tau_c, tau_pos, peak,
                             names=("tau_c", "tau_pos"))
        tc = self.parameter("tau_c", tau)
        self.output("tau_c", tc)
        self._flanges()
        _plate(self, tc, self.flange_a.phi, 1.0, m_plate)
