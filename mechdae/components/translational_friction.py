"""Coulomb friction of Modelica.Mechanics.Translational.Components: :class:`Brake` and
:class:`SupportFriction`, built from the friction machinery of :mod:`.friction` (a virtual
pressure plate pressed by the normal force onto the friction surface, contact
``"<path>.friction"``: exact stick/slip events, nothing regularized).

Both rigidly connect ``flange_a`` and ``flange_b`` and rub them against the fixed housing
(MSL's ``useSupport=false``); the flanges must be positioned by a mass. As for the
rotational Brake, only a constant coefficient is supported: an ``mu_pos`` / ``f_pos``
table must have the same value in every row and ``peak`` must be 1 (a ValueError says so).

``units``: each class's SI units of its parameters and outputs, as data.
"""
from .._symbols import der
from .friction import _Pressed, _mu_from_table, _plate
from .translational import Flange

__all__ = ["Brake", "SupportFriction"]


class _Housed(_Pressed):
    """``flange_a`` rigidly connected to ``flange_b``, rubbing against the housing; outputs
    ``s``, ``v``."""
    units = {"s": "m", "v": "m/s", "m_plate": "kg"}

    def _flanges(self):
        self.flange_a = self.connector(Flange, "flange_a")
        self.flange_b = self.connector(Flange, "flange_b")
        self.relation(self.flange_b.s - self.flange_a.s, name="rigid")
        self.output("s", self.flange_a.s)
        self.output("v", der(self.flange_a.s))
        self.flow(self.flange_a, None)


class Brake(_Housed):
    """Brake: Coulomb friction force ``|f| <= mu cgeo fn`` (``fn = fn_max f_normalized``,
    equality while sliding) between the rigidly connected flanges and the housing; a mass
    ``m`` at speed ``v0`` stops at ``t = m v0/(mu cgeo fn)`` and stays."""
    units = dict(_Housed.units, fn_max="N", f_normalized="1", fn="N", mu="1", cgeo="1")

    def __init__(self, name, fn_max=1.0, mu=None, mu_pos=None, peak=1.0, cgeo=1.0,
                 f_normalized=1.0, m_plate=1e-3):
        super().__init__(name)
        mu, cgeo, fn = self._normal(fn_max, mu, mu_pos, peak, cgeo, f_normalized)
        self._flanges()
        _plate(self, fn, cgeo * self.flange_a.s, mu, m_plate)


class SupportFriction(_Housed):
    """Constant Coulomb friction force ``f_c`` in the support (``|f| <= f_c``, equality
    while sliding); MSL's ``f_pos`` table ``[[v, f], ...]`` (default ``[[0, 1]]``) with one
    value, or ``f_c`` directly."""
    units = dict(_Housed.units, f_c="N")

    def __init__(self, name, f_c=None, f_pos=None, peak=1.0, m_plate=1e-3):
        super().__init__(name)
        if f_c is None and f_pos is None:
            f_pos = [[0.0, 1.0]]                  # MSL's default
        fc = _mu_from_table(f"SupportFriction '{name}'", f_c, f_pos, peak,
                            names=("f_c", "f_pos"))
        fc = self.parameter("f_c", fc)
        self.output("f_c", fc)
        self._flanges()
        _plate(self, fc, self.flange_a.s, 1.0, m_plate)


from ._msl_exports import done as _done  # noqa: E402
_done(__name__)
