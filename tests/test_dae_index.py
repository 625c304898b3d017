"""General equations: structural index (Pantelides), index reduction, stabilized hidden
constraints and consistent initialization, checked against closed forms and against the
same physics written with energies and m.holonomic."""
import time
import warnings

import numpy as np
import pytest
from scipy.special import ellipk

import mechdae as md
from conftest import model_module

TIGHT = dict(rtol=1e-11, atol=1e-12)


def pendulum_equations(**kw):
    return model_module("pendulum_equations").build(**kw)


def pendulum_dsl(L=1.0, g=9.81, m=1.0):
    """The README pendulum (energies + m.holonomic)."""
    model = md.Model("pendulum")
    x, y = model.coordinates("x y")
    L, g, mass = model.parameter("L", L), model.parameter("g", g), model.parameter("m", m)
    model.kinetic_energy(0.5 * mass * (md.der(x) ** 2 + md.der(y) ** 2))
    model.potential_energy(mass * g * y)
    model.holonomic(x ** 2 + y ** 2 - L ** 2, name="rod")
    return model


def pendulum_first_order():
    m = md.Model("pendulum_first_order")
    x, y, vx, vy, T = (m.variable(n) for n in ("x", "y", "vx", "vy", "T"))
    m.equation(md.der(x) == vx, name="kx")
    m.equation(md.der(y) == vy, name="ky")
    m.equation(md.der(vx) == -T * x, name="nx")
    m.equation(md.der(vy) == -T * y - 9.81, name="ny")
    m.equation(x ** 2 + y ** 2 == 1.0, name="rod")
    return m


# ------------------------------------------------------------------ structure
def test_pendulum_is_index_3():
    s = pendulum_equations().compile()
    assert s.dae.c == (0, 0, 2)
    assert dict(zip(s.dae.variables, s.dae.d)) == {"x": 2, "y": 2, "T": 0}
    assert s.dae.index == 3
    assert s.v_names == ["x", "der(x)", "y", "der(y)"] and s.z_names == ["T"]
    assert s.hd_names == ["der(der(x))", "der(der(y))"]
    assert s.general_constraints == ["rod"] and (s.m_g, s.k_g) == (1, 0)
    assert s.general_hidden == ["rod", "der(rod)"]
    assert (s.m, s.k) == (0, 0)                       # the mechanical side is untouched


def test_first_order_pendulum_structure():
    s = pendulum_first_order().compile()
    assert s.dae.c == (1, 1, 0, 0, 2)
    assert dict(zip(s.dae.variables, s.dae.d)) == {"x": 2, "y": 2, "vx": 1, "vy": 1, "T": 0}
    assert (s.m_g, s.k_g) == (1, 2)


def test_first_order_pendulum_matches_second_order():
    ts = np.linspace(0.0, 3.0, 301)
    q0 = {"x": 0.6, "y": -0.8}
    r1 = pendulum_first_order().compile().simulate(3.0, q0=q0, output_times=ts, **TIGHT)
    r2 = pendulum_equations().compile().simulate(3.0, q0=q0, output_times=ts, **TIGHT)
    assert np.abs(r1["x"] - r2["x"]).max() < 1e-7
    assert np.abs(r1["vy"] - r2["der(y)"]).max() < 1e-7
    assert np.abs(r1["T"] - r2["T"]).max() < 1e-6


# ------------------------------------------------------------------ physics
def test_pendulum_against_dsl_pendulum_period_tension_energy():
    T_end = 5.0
    ts = np.linspace(0.0, T_end, 2001)
    q0 = {"x": 1.0, "y": 0.0}
    r1 = pendulum_equations().compile().simulate(T_end, q0=q0, output_times=ts, **TIGHT)
    r2 = pendulum_dsl().compile().simulate(T_end, q0=q0, output_times=ts, **TIGHT)
    assert np.abs(r1["x"] - r2["x"]).max() < 1e-7
    assert np.abs(r1["y"] - r2["y"]).max() < 1e-7
    # tension: m x'' = -T x  versus  m x'' = 2 lam x
    assert np.abs(r1["T"] + 2.0 * r2.multipliers["rod"]).max() < 1e-6
    # period (amplitude 90 degrees): back at rest at (L, 0) (at (-L, 0) after half of
    # it), where der(y) changes sign with y'' = -g (der(x) ~ t^2 there: no clean crossing)
    period = 4.0 * np.sqrt(1.0 / 9.81) * ellipk(np.sin(np.pi / 4) ** 2)
    yd = r1["der(y)"]
    k = np.where((yd[:-1] > 0) & (yd[1:] <= 0) & (ts[:-1] > 1.5))[0][0]
    tc = ts[k] + (ts[k + 1] - ts[k]) * yd[k] / (yd[k] - yd[k + 1])
    assert tc == pytest.approx(period, abs=1e-7)
    E = 0.5 * (r1["der(x)"] ** 2 + r1["der(y)"] ** 2) + 9.81 * r1["y"]
    assert np.abs(E - E[0]).max() < 1e-8 * 9.81          # relative to m g L
    assert np.abs(r1.residuals["rod"]).max() < 1e-9


@pytest.mark.parametrize("stab", [md.Baumgarte(alpha=2.0, beta=3.0),
                                  md.Mukharlyamov([[-9.0]], [[-4.0]])])
def test_drift_follows_baumgarte_law(stab):
    """From an inconsistent start the residual obeys e'' + 2 alpha e' + beta^2 e = 0."""
    s = pendulum_equations().compile(stabilization=stab)
    x0, xd0 = 1.05, 0.1
    ts = np.linspace(0.0, 2.0, 201)
    r = s.simulate(2.0, q0={"x": x0, "y": 0.0, "der(x)": xd0}, output_times=ts,
                   initialize=False, **TIGHT)
    e0, ed0 = x0 ** 2 - 1.0, 2 * x0 * xd0
    w = np.sqrt(9.0 - 4.0)                        # roots -2 +- i sqrt(5)
    e = np.exp(-2.0 * ts) * (e0 * np.cos(w * ts) + (ed0 + 2.0 * e0) / w * np.sin(w * ts))
    assert r.residuals["rod"][0] == pytest.approx(e0)
    assert np.abs(r.residuals["rod"] - e).max() < 1e-8


def test_without_stabilization_drift_is_linear():
    s = pendulum_equations().compile(stabilization=None)
    ts = np.linspace(0.0, 1.0, 101)
    r = s.simulate(1.0, q0={"x": 1.05, "y": 0.0, "der(x)": 0.1}, output_times=ts,
                   initialize=False, **TIGHT)
    e = (1.05 ** 2 - 1.0) + 2 * 1.05 * 0.1 * ts
    assert np.abs(r.residuals["rod"] - e).max() < 1e-8


def test_two_capacitors_in_parallel_index_2():
    m = md.Model("caps")
    v1, v2, i1, i2 = (m.variable(n) for n in ("v1", "v2", "i1", "i2"))
    C1, C2 = m.parameter("C1", 1e-3), m.parameter("C2", 2e-3)
    R = m.parameter("R", 100.0)
    m.equation(C1 * md.der(v1) == i1, name="C1")
    m.equation(C2 * md.der(v2) == i2, name="C2")
    m.equation(v1 == v2, name="parallel")
    m.equation(i1 + i2 + (v1 - 0.0) / R == 0, name="node")
    s = m.compile()
    assert s.dae.c == (0, 0, 1, 0) and s.dae.index == 2
    assert (s.m_g, s.k_g) == (0, 1)
    r = s.simulate(1.0, q0={"v1": 1.0}, **TIGHT)
    assert r.init_report == {"v2": (0.0, 1.0)}           # the hidden constraint v1 = v2
    tau = 100.0 * 3e-3
    assert np.abs(r["v1"] - np.exp(-r.t / tau)).max() < 1e-8
    assert np.abs(r["v2"] - r["v1"]).max() < 1e-10
    assert np.abs(r["i1"] + 1e-3 / tau * np.exp(-r.t / tau)).max() < 1e-8


def test_algebraic_force_in_a_mechanical_model():
    """A damped oscillator whose force is an algebraic variable (used to fail in cvodes)."""
    m = md.Model("osc")
    x = m.coordinates("x")
    k, c, mass = m.parameter("k", 4.0), m.parameter("c", 0.4), m.parameter("m", 1.0)
    F = m.variable("F")
    m.kinetic_energy(0.5 * mass * md.der(x) ** 2)
    m.equation(F == -k * x - c * md.der(x), name="spring_damper")
    m.generalized_force(F, x)
    s = m.compile()
    assert s.z_names == ["F"] and s.v_names == [] and s.dae.index == 1
    r = s.simulate(5.0, q0={"x": 1.0}, **TIGHT)
    a, wd = 0.2, np.sqrt(4.0 - 0.04)
    xe = np.exp(-a * r.t) * (np.cos(wd * r.t) + a / wd * np.sin(wd * r.t))
    assert np.abs(r["x"] - xe).max() < 1e-8
    assert np.abs(r["F"] - (-4.0 * r["x"] - 0.4 * r["der(x)"])).max() < 1e-10


def test_second_order_variable_initial_values_by_name():
    s = pendulum_equations().compile()
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # nothing given is moved
        r = s.simulate(0.5, q0={"x": 0.6}, v0={"x": 1.0}, **TIGHT)
    # y and der(y) solve the hidden constraints with x, der(x) kept as given
    assert r["x"][0] == 0.6 and r["der(x)"][0] == 1.0
    assert r.init_report["y"] == (0.0, pytest.approx(-0.8))
    assert r.init_report["der(y)"] == (0.0, pytest.approx(0.75))


def test_initialization_warns_when_given_values_move():
    s = pendulum_equations().compile()
    with pytest.warns(UserWarning, match=r"changed given values x: 0.6 -> 1"):
        r = s.simulate(0.1, q0={"x": 0.6, "y": 0.0})
    assert r.init_report["x"] == (0.6, pytest.approx(1.0))
    assert "y" not in r.init_report


# ------------------------------------------------------------------ bad input
def _err(build):
    m = md.Model("bad")
    build(m)
    with pytest.raises(md.ModelError) as exc:
        m.compile()
    return str(exc.value)


def test_too_many_equations_in_a_block():
    def build(m):
        x, y = m.variable("x"), m.variable("y")
        m.equation(md.der(x) == y, name="a")
        m.equation(y == 1.0, name="b")
        m.equation(y == 2.0, name="c")
    msg = _err(build)
    assert "over-determined" in msg and "'b', 'c'" in msg and "'y'" in msg and "remove 1" in msg


def test_too_few_equations_in_a_block():
    def build(m):
        x, z, w = m.variable("x"), m.variable("z"), m.variable("w")
        m.equation(md.der(x) == -x, name="a")
        m.equation(z + w == 0.0, name="d")
    msg = _err(build)
    assert "under-determined" in msg and "'z', 'w'" in msg and "'d'" in msg
    assert "add 1 equation" in msg


def test_equation_without_unknown():
    def build(m):
        q = m.coordinates("q")
        m.kinetic_energy(0.5 * md.der(q) ** 2)
        x = m.variable("x")
        m.equation(md.der(x) == -x, name="a")
        m.equation(q == 1.0, name="fix")
    msg = _err(build)
    assert "equation 'fix': contains no unknown" in msg and "m.holonomic" in msg


def test_index_above_3_refused():
    def build(m):
        x, y, z, T = (m.variable(n) for n in ("x", "y", "z", "T"))
        m.equation(md.der(md.der(x)) == y, name="e1")
        m.equation(md.der(md.der(y)) == z, name="e2")
        m.equation(T == md.der(z) + x, name="e3")
        m.equation(x == md.sin(m.time), name="e4")
    msg = _err(build)
    assert "index > 3" in msg and "'e4'" in msg


def test_input_in_differentiated_equation_refused():
    def build(m):
        w = m.input("src", 1.0)
        x, y = m.variable("x"), m.variable("y")
        m.equation(md.der(x) == y, name="a")
        m.equation(x == w, name="b")
    msg = _err(build)
    assert "equation 'b'" in msg and "'src'" in msg and "m.time" in msg


def test_acceleration_of_a_coordinate_refused():
    def build(m):
        q = m.coordinates("q")
        m.kinetic_energy(0.5 * md.der(q) ** 2)
        x, y = m.variable("x"), m.variable("y")
        m.equation(md.der(md.der(x)) == y, name="a")
        m.equation(x == q, name="sensor")
    msg = _err(build)
    assert ("equation 'sensor' must be differentiated 2 time(s) for index reduction and then "
            "involves the acceleration of coordinate 'q'") in msg


def test_mukharlyamov_of_wrong_size_for_general_rows():
    m = pendulum_equations()
    with pytest.raises(md.ModelError, match=r"general equations.*H \(1, 1\) and K \(1, 1\)"):
        m.compile(stabilization=md.Mukharlyamov([[-1.0, 0.0]], [[-2.0, 0.0], [0.0, -1.0]]))


def test_nonlinear_in_unknowns_refused():
    def build(m):
        x, z = m.variable("x"), m.variable("z")
        m.equation(md.der(x) == -z, name="a")
        m.equation(z ** 3 == x, name="cubic")
    msg = _err(build)
    assert "'cubic'" in msg and "linear" in msg


# ------------------------------------------------------------------ size
def test_five_thousand_equations_compile_quickly():
    """A mass-spring-damper line of 1,000 elements: 5,000 flat equations, index 1."""
    n = 1000
    m = md.Model("line")
    k, c, mass = m.parameter("k", 100.0), m.parameter("c", 0.5), m.parameter("m", 1.0)
    S = [m.variable(f"s{i}") for i in range(n)]
    V = [m.variable(f"v{i}") for i in range(n)]
    F = [m.variable(f"f{i}") for i in range(n)]
    FS = [m.variable(f"fs{i}") for i in range(n)]
    FD = [m.variable(f"fd{i}") for i in range(n)]
    for i in range(n):
        m.equation(md.der(S[i]) == V[i], name=f"kin{i}")
        m.equation(mass * md.der(V[i]) == F[i] - (F[i + 1] if i + 1 < n else 0), name=f"newton{i}")
        m.equation(FS[i] == k * ((S[i - 1] if i else 0) - S[i]), name=f"spring{i}")
        m.equation(FD[i] == c * ((V[i - 1] if i else 0) - V[i]), name=f"damper{i}")
        m.equation(F[i] == FS[i] + FD[i], name=f"sum{i}")
    t0 = time.perf_counter()
    s = m.compile()
    dt = time.perf_counter() - t0
    print(f"5000-equation line: structural analysis + compile {dt:.2f} s")
    assert s.dae.index == 1 and set(s.dae.c) == {0}
    assert s.nv == 2 * n and s.nz == 3 * n and not s.general_constraints
    assert dt < 30.0
