"""Equation systems that cannot be solved do not compile (issue 23, item 1).

After index reduction the general equations are solved at each instant as
``J (hd, z) + F0 = 0``.  A perfect matching of equations to unknowns (the structural
analysis) says ``J`` is nonsingular for *some* values of its entries; the block triangular
form of ``J`` and each block's rank at random states and parameters say whether it is for
the values the equations give.  Identically singular: a ModelError at compile naming the
equations and unknowns; singular only at the initial state: an initialization error.
"""
import numpy as np
import pytest

import mechdae as md
from mechdae.components import electrical as el
from mechdae.errors import ModelError


def test_conflicting_equations_refused_naming_equations_and_unknowns():
    # der(x) = -a, a + b = x, a + b = x + 1: today x reached 1.6e15 in 1 s
    m = md.Model("conflict")
    x, a, b = m.variable("x", 1.0), m.variable("a"), m.variable("b")
    m.equation(md.der(x) == -a, name="ode")
    m.equation(a + b == x, name="sum1")
    m.equation(a + b == x + 1, name="sum2")
    with pytest.raises(ModelError) as exc:
        m.compile()
    msg = str(exc.value)
    assert "'sum1', 'sum2'" in msg and "'a', 'b'" in msg
    assert "rank 1 of 2" in msg and "conflict" in msg and "'ode'" not in msg


def test_dependent_equations_refused_naming_the_undetermined_unknown():
    # der(x) = -a - b, x = a + 1, 2x = 2a + 2: b is determined by nothing (ran with b = 0)
    m = md.Model("dependent")
    x, a, b = m.variable("x", 1.0), m.variable("a"), m.variable("b")
    m.equation(md.der(x) == -a - b, name="ode")
    m.equation(x == a + 1, name="lin1")
    m.equation(2 * x == 2 * a + 2, name="lin2")
    with pytest.raises(ModelError) as exc:
        m.compile()
    msg = str(exc.value)
    assert "'lin1', 'lin2'" in msg and "differentiated 1 time(s)" in msg
    assert "dependent" in msg and "determined by nothing" in msg and "'b'" in msg


def test_open_pins_of_a_grounded_capacitor_and_resistor_are_well_posed():
    # The story's circuit: C and R each between ground and a pin connected to nothing.
    # An unconnected flow is zero (Modelica), so no current flows: the capacitor keeps its
    # charge (C.v = v0, the open pin's potential with it) and the resistor carries
    # nothing. One equation per unknown, Jacobian regular: accepted, as Modelica does, but
    # an open pin is almost always a missing connect: a ModelWarning names both pins.
    m = md.Model("open_pins")
    C = m.add(el.Capacitor("C", C=1e-3, v=2.0))
    R = m.add(el.Resistor("R", R=10.0))
    g = m.add(el.Ground("gnd"))
    m.connect(C.n, R.n, g.p)
    with pytest.warns(md.ModelWarning) as rec:
        sys_ = m.compile()
    msg = str(rec[0].message)
    assert "pins 'C.p' (Capacitor 'C'), 'R.p' (Resistor 'R') are connected to nothing" in msg
    assert "connect each pin" in msg
    res = sys_.simulate(1.0)
    assert np.allclose(res["C.v"], 2.0, atol=1e-12) and np.allclose(res["C.p.v"], 2.0)
    assert np.allclose(res["R.i"], 0.0) and np.allclose(res["C.i"], 0.0)


def test_current_source_into_an_open_pin_names_the_pin_and_component():
    # the current of a source cannot flow into a pin connected to nothing: the balance at
    # that pin is I = 0 (no unknown) and its potential appears in no equation
    m = md.Model("open_source")
    src = m.add(el.CurrentSource("src", I=1.0))
    R = m.add(el.Resistor("R", R=10.0))
    g = m.add(el.Ground("gnd"))
    m.connect(src.n, R.n, g.p)
    m.connect(R.p, g.p)
    with pytest.raises(ModelError) as exc, pytest.warns(md.ModelWarning, match="'src.p'"):
        m.compile()
    msg = str(exc.value)
    assert "'node src.p.v'" in msg and "'src.p.v'" in msg
    assert "pin 'src.p' of component 'src' (CurrentSource) is connected to nothing" in msg


def test_singular_only_at_the_initial_state_is_an_initialization_error():
    # der(x) = a, x a = 1: x' = 1/x, x = sqrt(1 + 2t) from x0 = 1; at x0 = 0 the equation
    # 'prod' cannot be solved for 'a' (0 a = 1), though it can everywhere else
    m = md.Model("hyperbola")
    x, a = m.variable("x", 1.0), m.variable("a")
    m.equation(md.der(x) == a, name="ode")
    m.equation(x * a == 1, name="prod")
    sys = m.compile()
    res = sys.simulate(1.0, q0={"x": 1.0}, rtol=1e-10, atol=1e-12)
    assert res["x"][-1] == pytest.approx(np.sqrt(3.0), rel=1e-8)
    with pytest.raises(ValueError) as exc:
        sys.simulate(1.0, q0={"x": 0.0})
    msg = str(exc.value)
    assert "initial state" in msg and "'prod'" in msg and "'a'" in msg
    assert not isinstance(exc.value, ModelError) or "initialization" in msg


def test_redundant_but_consistent_constraints_still_compile_and_run():
    # a pendulum whose rod is written twice (rank 1 of 2: the mechanics names it) together
    # with general equations (height h = y, its integral s' = h): compiles, and runs as the
    # pendulum with one rod
    def build(twice):
        m = md.Model("pendulum_twice")
        x, y = m.coordinates("x y")
        m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2))
        m.potential_energy(9.81 * y)
        m.holonomic(x ** 2 + y ** 2 - 1.0, name="rod")
        if twice:
            m.holonomic(2 * (x ** 2 + y ** 2 - 1.0), name="rod_again")
        h, s = m.variable("h"), m.variable("s")
        m.equation(h == y, name="height")
        m.equation(md.der(s) == h, name="area")
        return m.compile(stabilization=md.Baumgarte(10.0, 10.0))

    opts = dict(q0={"x": 1.0, "y": 0.0}, rtol=1e-10, atol=1e-12)
    r2, r1 = build(True).simulate(2.0, **opts), build(False).simulate(2.0, **opts)
    assert np.allclose(r2["y"], r1["y"], atol=1e-7)
    assert np.allclose(r2["s"], r1["s"], atol=1e-7)
    assert np.allclose(r2["h"], r2["y"], atol=1e-12)
    (d,) = r2.redundant_constraints
    assert d.dependent == ("rod", "rod_again")


class _TwoSums(md.Component):
    """A user component whose equations conflict (a + b = x, a + b = x + 1)."""

    def __init__(self, name):
        super().__init__(name)
        x = self.variable("x", default=1.0)
        a, b = self.variable("a"), self.variable("b")
        self.equation(md.der(x) == -a, name="ode")
        self.equation(a + b == x, name="sum1")
        self.equation(a + b == x + 1, name="sum2")


def test_conflicting_equations_of_a_component_name_the_component():
    m = md.Model("with_component")
    m.add(_TwoSums("blk"))
    with pytest.raises(ModelError) as exc:
        m.compile()
    msg = str(exc.value)
    assert "'blk.sum1', 'blk.sum2'" in msg and "'blk.a', 'blk.b'" in msg
    assert "component 'blk' (_TwoSums)" in msg
