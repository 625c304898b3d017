"""Modelica.Electrical.Analog.Basic breadth beyond electrical.py's Ground, Resistor,
Capacitor, Inductor and EMF (MSL names, parameters, signs), and the non-switching parts of
Analog.Ideal (IdealTransformer, IdealOpAmp3Pin) with the classic Nullator and Norator.

Two-ports (MSL's ``TwoPort``) have pins ``p1``, ``n1``, ``p2``, ``n2``, voltages
``v1 = p1.v - n1.v``, ``v2 = p2.v - n2.v`` and currents ``i1`` (into p1, out of n1) and
``i2``. Every equation is linear or a given function of time; currents that an equation
fixes only implicitly are general variables (algebraic; compile's structural analysis
solves for them). Not here: OpAmp (its limitation is nonlinear in the node voltages, a
nonlinear algebraic loop compile does not solve yet), SaturatingInductor (likewise),
HeatingResistor (a heat port). Temperature dependence follows the MSL without heat port: a fixed
device temperature ``T`` (default ``T_ref``), ``R_actual = R (1 + alpha (T - T_ref))``.

``units``: each class's SI units of its parameters and outputs, as data.
"""
import casadi as ca

from .._symbols import der
from ._support import start_value
from .core import Component
from .electrical import Pin
from .rotational import Flange as RotFlange
from .translational import Flange as TrFlange

__all__ = ["Conductor", "VariableResistor", "VariableConductor", "VariableCapacitor",
           "VariableInductor", "Transformer", "Gyrator", "VCV", "VCC", "CCV", "CCC",
           "M_Transformer", "TranslationalEMF", "RotationalEMF", "Potentiometer",
           "IdealTransformer",
           "IdealOpAmp3Pin", "Nullator", "Norator"]

_EPS = 2.220446049250313e-16             # Modelica.Constants.eps


class _OnePort(Component):
    """Pins ``p``, ``n``; ``v = p.v - n.v``."""

    def __init__(self, name):
        super().__init__(name)
        self.p = self.connector(Pin, "p")
        self.n = self.connector(Pin, "n")
        self.vdrop = self.p.v - self.n.v

    def _current(self, i, loss=False):
        self.flow(self.p, i)
        self.flow(self.n, -i)
        self.output("i", i)
        self.output("v", self.vdrop)
        if loss:
            self.output("LossPower", self.vdrop * i)

    def _temperature_factor(self, T_ref, alpha, T):
        """``1 + alpha (T - T_ref)`` (parameters ``T_ref``, ``alpha``, ``T``)."""
        T_ref_p = self.parameter("T_ref", T_ref)
        return 1 + self.parameter("alpha", alpha) * (
            self.parameter("T", T_ref if T is None else T) - T_ref_p)


class Conductor(_OnePort):
    """Ideal linear conductor ``i = G_actual v``, ``G_actual = G/(1 + alpha (T - T_ref))``;
    ``LossPower = v i``."""
    units = {"G": "S", "T_ref": "K", "alpha": "1/K", "T": "K", "i": "A", "v": "V",
             "LossPower": "W"}

    def __init__(self, name, G=1.0, T_ref=300.15, alpha=0.0, T=None):
        super().__init__(name)
        G_actual = self.parameter("G", G) / self._temperature_factor(T_ref, alpha, T)
        self._current(G_actual * self.vdrop, loss=True)


class VariableResistor(_OnePort):
    """Resistor with a resistance signal ``R`` (a number, an expression or a function of
    time): ``v = R_actual i`` (``i`` a general variable: ``R = 0`` is a short)."""
    units = {"R": "Ohm", "T_ref": "K", "alpha": "1/K", "T": "K", "i": "A", "v": "V",
             "LossPower": "W", "i_R": "A"}

    def __init__(self, name, R, T_ref=300.15, alpha=0.0, T=None):
        super().__init__(name)
        R_actual = self.signal("R", R) * self._temperature_factor(T_ref, alpha, T)
        i = self.variable("i_R")
        self.equation(self.vdrop == R_actual * i, name="ohm")
        self._current(i, loss=True)


class VariableConductor(_OnePort):
    """Conductor with a conductance signal ``G``: ``i = G_actual v``."""
    units = {"G": "S", "T_ref": "K", "alpha": "1/K", "T": "K", "i": "A", "v": "V",
             "LossPower": "W"}

    def __init__(self, name, G, T_ref=300.15, alpha=0.0, T=None):
        super().__init__(name)
        G_actual = self.signal("G", G) / self._temperature_factor(T_ref, alpha, T)
        self._current(G_actual * self.vdrop, loss=True)


class VariableCapacitor(_OnePort):
    """Capacitor with a capacitance signal ``C``: charge ``Q = max(C, Cmin) v`` (the
    state), ``i = der(Q)``; ``UIC``: start at ``v = IC``."""
    units = {"C": "F", "Cmin": "F", "IC": "V", "Q": "C", "i": "A", "v": "V"}

    def __init__(self, name, C, Cmin=_EPS, IC=0.0, UIC=False):
        super().__init__(name)
        Cv = self.signal("C", C)
        Q = self.variable("Q", default=start_value(C) * IC if UIC else 0.0)
        self.equation(Q == ca.fmax(Cv, self.parameter("Cmin", Cmin)) * self.vdrop,
                      name="charge")
        self._current(der(Q))


class VariableInductor(_OnePort):
    """Inductor with an inductance signal ``L``: flux ``Psi = max(L, Lmin) i`` (the state),
    ``v = der(Psi)``; ``UIC``: start at ``i = IC``."""
    units = {"L": "H", "Lmin": "H", "IC": "A", "Psi": "Wb", "i": "A", "v": "V"}

    def __init__(self, name, L, Lmin=_EPS, IC=0.0, UIC=False):
        super().__init__(name)
        Lv = ca.fmax(self.signal("L", L), self.parameter("Lmin", Lmin))
        Psi = self.variable("Psi", default=start_value(L) * IC if UIC else 0.0)
        self.equation(der(Psi) == self.vdrop, name="v")
        self._current(Psi / Lv)


class _TwoPort(Component):
    """Pins ``p1``, ``n1``, ``p2``, ``n2``; ``v1``, ``v2``; ``_port(k, i)`` declares the
    current ``i`` of port k (into p_k, out of n_k) and the outputs ``v<k>``, ``i<k>``."""

    def __init__(self, name):
        super().__init__(name)
        for pin in ("p1", "n1", "p2", "n2"):
            self.connector(Pin, pin)
        self.v1 = self.p1.v - self.n1.v
        self.v2 = self.p2.v - self.n2.v

    def _port(self, k, i):
        p, n = (self.p1, self.n1) if k == 1 else (self.p2, self.n2)
        if i is not None:
            self.flow(p, i)
            self.flow(n, -i)
            self.output(f"i{k}", i)
        self.output(f"v{k}", self.v1 if k == 1 else self.v2)


class Transformer(_TwoPort):
    """Transformer with two ports: ``v1 = L1 der(i1) + M der(i2)``, ``v2 = M der(i1) + L2
    der(i2)`` (states ``i1``, ``i2``)."""
    units = {"L1": "H", "L2": "H", "M": "H", "i1": "A", "i2": "A", "v1": "V", "v2": "V"}

    def __init__(self, name, L1=1.0, L2=1.0, M=1.0, i1=0.0, i2=0.0):
        super().__init__(name)
        L1, L2, M = (self.parameter(k, v) for k, v in (("L1", L1), ("L2", L2), ("M", M)))
        i1 = self.variable("i1", default=i1)
        i2 = self.variable("i2", default=i2)
        self.equation(self.v1 == L1 * der(i1) + M * der(i2), name="v1")
        # MSL's relative form: one state less is visible when L1 = L2 = M
        self.equation(self.v1 - self.v2 == (L1 - M) * der(i1) + (M - L2) * der(i2),
                      name="dv")
        self.flow(self.p1, i1)
        self.flow(self.n1, -i1)
        self.flow(self.p2, i2)
        self.flow(self.n2, -i2)
        self._port(1, None)
        self._port(2, None)


class M_Transformer(Component):
    """Generic transformer of ``N`` coupled inductors: ``v = Lm der(i)`` with the symmetric
    inductance matrix ``Lm`` from ``L`` (its upper triangle row by row: ``L11, L12, ...,
    L1N, L22, ...``; parameters ``"L[1]"``, ...); pins ``p1..pN``, ``n1..nN`` (MSL's
    ``p[k]``, ``n[k]``), currents ``i1..iN`` (states, start 0)."""
    units = {"L": "H", **{f"i{k}": "A" for k in range(1, 33)},
             **{f"v{k}": "V" for k in range(1, 33)}}

    def __init__(self, name, N=3, L=(1.0, 0.1, 0.2, 2.0, 0.3, 3.0)):
        super().__init__(name)
        if not (isinstance(N, int) and 1 <= N <= 32):
            raise ValueError(f"M_Transformer '{name}': N={N!r}; give an integer 1..32")
        if len(L) != N * (N + 1) // 2:
            raise ValueError(f"M_Transformer '{name}': L has {len(L)} entries; N={N} needs "
                             f"N (N + 1)/2 = {N * (N + 1) // 2} (the upper triangle by rows)")
        Lp = [self.parameter(f"L[{k + 1}]", v) for k, v in enumerate(L)]
        Lm, k = [[None] * N for _ in range(N)], 0
        for r in range(N):
            for c in range(r, N):
                Lm[r][c] = Lm[c][r] = Lp[k]
                k += 1
        cur = [self.variable(f"i{k}") for k in range(1, N + 1)]
        for r in range(N):
            p = self.connector(Pin, f"p{r + 1}")
            n = self.connector(Pin, f"n{r + 1}")
            v = p.v - n.v
            self.equation(v == sum(Lm[r][c] * der(cur[c]) for c in range(N)), name=f"v{r + 1}")
            self.flow(p, cur[r])
            self.flow(n, -cur[r])
            self.output(f"v{r + 1}", v)


class Gyrator(_TwoPort):
    """Gyrator: ``i1 = G2 v2``, ``i2 = -G1 v1``."""
    units = {"G1": "S", "G2": "S", "i1": "A", "i2": "A", "v1": "V", "v2": "V"}

    def __init__(self, name, G1=1.0, G2=1.0):
        super().__init__(name)
        G1, G2 = self.parameter("G1", G1), self.parameter("G2", G2)
        self._port(1, G2 * self.v2)
        self._port(2, -G1 * self.v1)


class VCV(_TwoPort):
    """Linear voltage-controlled voltage source: ``v2 = gain v1``, ``i1 = 0``."""
    units = {"gain": "1", "i2": "A", "v1": "V", "v2": "V"}

    def __init__(self, name, gain=1.0):
        super().__init__(name)
        i2 = self.variable("i2")
        self.equation(self.v2 == self.parameter("gain", gain) * self.v1, name="v2")
        self._port(1, None)
        self._port(2, i2)


class VCC(_TwoPort):
    """Linear voltage-controlled current source: ``i2 = transConductance v1``, ``i1 = 0``."""
    units = {"transConductance": "S", "i2": "A", "v1": "V", "v2": "V"}

    def __init__(self, name, transConductance=1.0):
        super().__init__(name)
        self._port(1, None)
        self._port(2, self.parameter("transConductance", transConductance) * self.v1)


class CCV(_TwoPort):
    """Linear current-controlled voltage source: ``v2 = transResistance i1``, ``v1 = 0``."""
    units = {"transResistance": "Ohm", "i1": "A", "i2": "A", "v1": "V", "v2": "V"}

    def __init__(self, name, transResistance=1.0):
        super().__init__(name)
        i1, i2 = self.variable("i1"), self.variable("i2")
        self.equation(self.v1 == 0, name="v1")
        self.equation(self.v2 == self.parameter("transResistance", transResistance) * i1,
                      name="v2")
        self._port(1, i1)
        self._port(2, i2)


class CCC(_TwoPort):
    """Linear current-controlled current source: ``i2 = gain i1``, ``v1 = 0``."""
    units = {"gain": "1", "i1": "A", "i2": "A", "v1": "V", "v2": "V"}

    def __init__(self, name, gain=1.0):
        super().__init__(name)
        i1 = self.variable("i1")
        self.equation(self.v1 == 0, name="v1")
        self._port(1, i1)
        self._port(2, self.parameter("gain", gain) * i1)


class _EMF(Component):
    """Pins ``p``, ``n`` and a mechanical ``flange`` (optional ``support``): ``v = k
    der(flange - support)``, the flange takes ``-k i`` (MSL's ``f = flange.f = -k i``)."""

    def __init__(self, name, k, useSupport, flange_cls):
        super().__init__(name)
        self.p = self.connector(Pin, "p")
        self.n = self.connector(Pin, "n")
        fl = self.flange = self.connector(flange_cls, "flange")
        pot = flange_cls.potentials[0]
        rate = der(getattr(fl, pot))
        if useSupport:
            self.support = self.connector(flange_cls, "support")
            rate = rate - der(getattr(self.support, pot))
        k = self.parameter("k", k)
        v = self.p.v - self.n.v
        i = self.variable("i")
        self.equation(v == k * rate, name="v")
        self.flow(self.p, i)
        self.flow(self.n, -i)
        self.flow(fl, -k * i)
        if useSupport:
            self.flow(self.support, k * i)
        self.output("v", v)
        self._rate, self._k, self._i = rate, k, i


class TranslationalEMF(_EMF):
    """Electromotive force to a translational flange: ``v = k vel``, ``f = flange.f = -k i``
    (``k`` in N/A), ``vel = der(flange.s - support.s)``; outputs ``v``, ``vel``, ``f``."""
    units = {"k": "N/A", "v": "V", "i": "A", "vel": "m/s", "f": "N"}

    def __init__(self, name, k=1.0, useSupport=False):
        super().__init__(name, k, useSupport, TrFlange)
        self.output("vel", self._rate)
        self.output("f", -self._k * self._i)


class RotationalEMF(_EMF):
    """Electromotive force to a rotational flange: ``v = k w``, ``tau = flange.tau = -k i``
    (``k`` in N.m/A), ``w = der(flange.phi - support.phi)``; outputs ``v``, ``w``, ``tau``
    (electrical.EMF without the support option and with ``tau = k i``)."""
    units = {"k": "N.m/A", "v": "V", "i": "A", "w": "rad/s", "tau": "N.m"}

    def __init__(self, name, k=1.0, useSupport=False):
        super().__init__(name, k, useSupport, RotFlange)
        self.output("w", self._rate)
        self.output("tau", -self._k * self._i)


class Potentiometer(Component):
    """Adjustable resistor: ``R_actual`` split at the contact ``r`` (0: at pin_n, 1: at
    pin_p; ``rConstant``, or a signal ``r``), ``pin_p.v - contact.v = R (1 - r) pin_p.i``,
    ``pin_n.v - contact.v = R r pin_n.i``."""
    units = {"R": "Ohm", "T_ref": "K", "alpha": "1/K", "T": "K", "rConstant": "1",
             "LossPower": "W", "i_p": "A", "i_n": "A"}

    def __init__(self, name, R=1.0, T_ref=293.15, alpha=0.0, T=None, rConstant=0.5, r=None):
        super().__init__(name)
        pp = self.pin_p = self.connector(Pin, "pin_p")
        pn = self.pin_n = self.connector(Pin, "pin_n")
        c = self.contact = self.connector(Pin, "contact")
        factor = 1 + self.parameter("alpha", alpha) * (
            self.parameter("T", T_ref if T is None else T) - self.parameter("T_ref", T_ref))
        Ra = self.parameter("R", R) * factor
        rr = self.parameter("rConstant", rConstant) if r is None else self.signal("r", r)
        rr = ca.fmin(1, ca.fmax(0, rr))
        ip, i_n = self.variable("i_p"), self.variable("i_n")
        self.equation(pp.v - c.v == Ra * (1 - rr) * ip, name="Rp")
        self.equation(pn.v - c.v == Ra * rr * i_n, name="Rn")
        self.flow(pp, ip)
        self.flow(pn, i_n)
        self.flow(c, -(ip + i_n))
        self.output("LossPower", (pp.v - c.v) * ip + (pn.v - c.v) * i_n)


class IdealTransformer(_TwoPort):
    """Ideal transformer core: ``v1 = n v2``, ``i1 + i2/n = 0``; with
    ``considerMagnetization``: ``v1 = Lm1 der(i1 + i2/n)`` (magnetizing current)."""
    units = {"n": "1", "Lm1": "H", "i1": "A", "i2": "A", "v1": "V", "v2": "V"}

    def __init__(self, name, n=1.0, considerMagnetization=False, Lm1=1.0):
        super().__init__(name)
        n = self.parameter("n", n)
        i1 = self.variable("i1")
        self.equation(self.v1 == n * self.v2, name="ratio")
        if considerMagnetization:
            i2 = self.variable("i2")
            Lm1 = self.parameter("Lm1", Lm1)
            self.equation(self.v1 == Lm1 * (der(i1) + der(i2) / n), name="magnetization")
        else:
            i2 = -n * i1
        self._port(1, i1)
        self._port(2, i2)


class IdealOpAmp3Pin(Component):
    """Ideal operational amplifier (a nullator at the input, a norator from the output to
    ground): ``in_p.v = in_n.v``, no input current, any output current."""
    units = {"i_out": "A"}

    def __init__(self, name):
        super().__init__(name)
        for pin in ("in_p", "in_n", "out"):
            self.connector(Pin, pin)
        self.equation(self.in_p.v == self.in_n.v, name="nullator")
        i_out = self.variable("i_out")
        self.flow(self.out, i_out)


class Nullator(_OnePort):
    """Nullator (MSL 3.2's Analog.Basic): ``v = 0`` and ``i = 0`` (paired with a Norator,
    it makes an ideal amplifier)."""
    units = {"v": "V"}

    def __init__(self, name):
        super().__init__(name)
        self.equation(self.vdrop == 0, name="v")


class Norator(_OnePort):
    """Norator (MSL 3.2's Analog.Basic): any voltage and any current, fixed by the
    circuit (``i`` a general variable)."""
    units = {"i": "A", "v": "V", "i_norator": "A"}

    def __init__(self, name):
        super().__init__(name)
        i = self.variable("i_norator")
        self.flow(self.p, i)
        self.flow(self.n, -i)
        self.output("i", i)
        self.output("v", self.vdrop)


from ._msl_exports import done as _done  # noqa: E402
_done(__name__)
