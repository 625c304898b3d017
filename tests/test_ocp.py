"""Optimal control (mechdae.export.ocp): closed-form optima of a point mass, a bead on a
line (holonomic constraint), the cart-pole swing-up, and bad input.

Rest-to-rest transfer of a point mass ``m x'' = F`` over ``D`` in time ``T`` minimizing
``int F^2 dt``: ``F*(t) = (6 m D / T^2)(1 - 2 t/T)``, cost ``12 m^2 D^2 / T^3``.  With
``N`` piecewise-constant controls the optimum is the minimum-norm element of that subspace
meeting the same two moment conditions, ``F_k = 6 m D / (T^2 (1 - N^-2)) (1 - 2 tmid_k / T)``,
cost ``12 m^2 D^2 / (T^3 (1 - N^-2))``; RK4 and Radau collocation integrate these
dynamics and costs exactly, so both schemes must reproduce the discrete closed form.
"""
import numpy as np
import pytest

import mechdae as md
from conftest import REPO

MASS, D, T = 2.0, 1.5, 2.0


def _point_mass():
    m = md.Model("point_mass")
    x = m.coordinates("x")
    mass = m.parameter("m", MASS)
    F = m.input("F")
    m.kinetic_energy(0.5 * mass * md.der(x) ** 2)
    m.generalized_force(F, x)
    return m, F


@pytest.fixture(scope="module")
def point_mass():
    m, F = _point_mass()
    return m.compile(), F


def _rest_to_rest(sys_, F, method, control, N, x="x", **kw):
    ocp = sys_.ocp(N=N, t_final=T, method=method, controls=["F"], control=control, **kw)
    ocp.initial(q0={x: 0.0}, v0={x: 0.0})
    ocp.final(q={x: D}, v={x: 0.0})
    ocp.running_cost(F ** 2)
    return ocp.solve()


@pytest.mark.parametrize("method", ["collocation", "multiple_shooting"])
def test_point_mass_rest_to_rest_linear_controls_match_the_continuous_optimum(point_mass, method):
    # F* is linear in t: piecewise-linear controls contain it, so the discrete optimum is F*
    s, F = point_mass
    sol = _rest_to_rest(s, F, method, "linear", N=20)
    F_exact = 6 * MASS * D / T ** 2 * (1 - 2 * sol.t / T)
    assert sol.cost == pytest.approx(12 * MASS ** 2 * D ** 2 / T ** 3, rel=1e-8)
    assert np.max(np.abs(sol["F"] - F_exact)) < 1e-6
    assert sol.q[-1, 0] == pytest.approx(D, abs=1e-9)
    assert sol.simulate_check().defect < 1e-8


@pytest.mark.parametrize("method", ["multiple_shooting", "collocation"])
def test_point_mass_rest_to_rest_piecewise_constant_controls(point_mass, method):
    s, F = point_mass
    N = 50
    sol = _rest_to_rest(s, F, method, "constant", N=N)
    tmid = 0.5 * (sol.t[:-1] + sol.t[1:])
    shrink = 1 - N ** -2.0
    F_discrete = 6 * MASS * D / (T ** 2 * shrink) * (1 - 2 * tmid / T)
    cost_cont = 12 * MASS ** 2 * D ** 2 / T ** 3
    assert sol.controls.shape == (N, 1)
    assert np.max(np.abs(sol["F"] - F_discrete)) < 1e-6
    assert sol.cost == pytest.approx(cost_cont / shrink, rel=1e-8)
    # and the continuous optimum within the O(N^-2) of the control parameterization
    assert sol.cost == pytest.approx(cost_cont, rel=1e-3)
    F_cont = 6 * MASS * D / T ** 2 * (1 - 2 * tmid / T)
    assert np.max(np.abs(sol["F"] - F_cont)) < 1e-3 * 6 * MASS * D / T ** 2
    # piecewise-constant controls re-simulated by System.simulate (cvodes) reproduce the nodes
    assert sol.simulate_check().defect < 1e-7


@pytest.mark.parametrize("method", ["multiple_shooting", "collocation"])
def test_point_mass_minimum_time_with_bounded_force_is_bang_bang(point_mass, method):
    # |F| <= Fmax: T* = 2 sqrt(m D / Fmax), F = +Fmax then -Fmax, switching at T*/2
    s, F = point_mass
    Fmax = 3.0
    ocp = s.ocp(N=20, t_final="free", method=method)
    ocp.initial(q0={"x": 0.0}, v0={"x": 0.0})
    ocp.final(q={"x": D}, v={"x": 0.0})
    ocp.bounds("F", -Fmax, Fmax)
    ocp.bounds("t_final", 0.1, 10.0)
    ocp.minimize(ocp.T)
    sol = ocp.solve(options={"tol": 1e-10})
    assert sol.T == pytest.approx(2 * np.sqrt(MASS * D / Fmax), abs=1e-6)
    assert np.allclose(sol["F"][:10], Fmax, atol=1e-4)
    assert np.allclose(sol["F"][10:], -Fmax, atol=1e-4)


@pytest.mark.parametrize("enforce", [False, True])
@pytest.mark.parametrize("method", ["collocation", "multiple_shooting"])
def test_bead_on_a_line_moves_like_a_point_mass_of_twice_the_mass(method, enforce):
    # x = y (holonomic, Baumgarte-stabilized), force F on x: 2 m x'' = F
    m = md.Model("bead_on_line")
    x, y = m.coordinates("x y")
    mass = m.parameter("m", MASS)
    F = m.input("F")
    m.kinetic_energy(0.5 * mass * (md.der(x) ** 2 + md.der(y) ** 2))
    m.generalized_force(F, x)
    m.holonomic(x - y, name="line")
    s = m.compile(stabilization=md.Baumgarte(alpha=10.0, beta=10.0))
    ocp = s.ocp(N=20, t_final=T, method=method, control="linear", enforce_constraints=enforce)
    if enforce:      # the invariants fix y, y' at the nodes: give x only (no redundancy)
        ocp.initial(q0={"x": 0.0}, v0={"x": 0.0})
    else:
        ocp.initial(q0={"x": 0.0, "y": 0.0}, v0={"x": 0.0, "y": 0.0})
    ocp.final(q={"x": D}, v={"x": 0.0})
    ocp.running_cost(F ** 2)
    sol = ocp.solve()
    M2 = 2 * MASS
    assert sol.cost == pytest.approx(12 * M2 ** 2 * D ** 2 / T ** 3, rel=1e-8)
    assert np.max(np.abs(sol["F"] - 6 * M2 * D / T ** 2 * (1 - 2 * sol.t / T))) < 1e-6
    assert np.max(np.abs(sol["x"] - sol["y"])) < 1e-9


def test_enforced_rod_constraint_holds_at_every_node():
    # Cartesian pendulum pushed horizontally from hanging to x = 0.5 at rest: with
    # enforce_constraints the rod holds exactly at the nodes; without, only to the drift
    m = md.Model("pushed_pendulum")
    x, y = m.coordinates("x y")
    F = m.input("F")
    m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2))
    m.potential_energy(9.81 * y)
    m.generalized_force(F, x)
    m.holonomic(x ** 2 + y ** 2 - 1, name="rod")
    s = m.compile(stabilization=md.Baumgarte(alpha=10.0, beta=10.0))
    costs = []
    xs = np.linspace(0.0, 0.5, 31)
    for enforce in (False, True):
        ocp = s.ocp(N=30, t_final=1.5, method="collocation", enforce_constraints=enforce)
        if enforce:
            ocp.initial(q0={"x": 0.0}, v0={"x": 0.0})
            ocp.bounds("y", hi=0.0)
        else:
            ocp.initial(q0={"x": 0.0, "y": -1.0}, v0={"x": 0.0, "y": 0.0})
        ocp.final(q={"x": 0.5}, v={"x": 0.0})
        ocp.guess(q={"x": xs, "y": -np.sqrt(1 - xs ** 2)})
        ocp.running_cost(F ** 2)
        sol = ocp.solve()
        drift = np.max(np.abs(sol["x"] ** 2 + sol["y"] ** 2 - 1))
        assert drift < (1e-12 if enforce else 1e-6)
        assert sol.simulate_check().defect < 1e-5
        costs.append(sol.cost)
    assert costs[1] == pytest.approx(costs[0], rel=1e-5)    # same optimum, O(h^p) apart


@pytest.fixture(scope="module")
def cart_pole():
    return md.load(str(REPO / "models" / "cart_pole.py")).compile()


def test_cart_pole_swing_up(cart_pole):
    # Kelly (SIAM Rev. 2017) sec. 6: cart moved by d = 1 m, pole from hanging to upright in
    # T = 2 s; here |F| <= 12 N so that the bound is active
    s = cart_pole
    F, x = s.parent["F"], s.parent["x"]
    Fmax = 12.0
    ocp = s.ocp(N=50, t_final=2.0, method="collocation", controls=["F"])
    ocp.initial(q0={"x": 0.0, "th": 0.0}, v0={"x": 0.0, "th": 0.0})
    target = dict(q={"x": 1.0, "th": np.pi}, v={"x": 0.0, "th": 0.0})
    ocp.final(**target)
    ocp.bounds("F", -Fmax, Fmax)
    ocp.running_cost(F ** 2)
    sol = ocp.solve()
    assert sol.stats["return_status"] == "Solve_Succeeded"
    assert np.allclose(sol.q[-1], [1.0, np.pi], atol=1e-6)
    assert np.allclose(sol.v[-1], [0.0, 0.0], atol=1e-6)
    assert np.max(np.abs(sol["F"])) == pytest.approx(Fmax, abs=1e-6)     # bound active
    # work of F on the cart = gain of energy from rest hanging to rest upright, 2 m2 g l
    assert sol.integral(F * md.der(x)) == pytest.approx(2 * 0.3 * 9.81 * 0.5, abs=1e-5)
    chk = sol.simulate_check()
    assert chk.defect < 1e-3
    assert abs(chk.result["th"][-1] - np.pi) < 1e-3


def test_unknown_control_is_named(point_mass):
    s, _ = point_mass
    with pytest.raises(ValueError, match=r"unknown control\(s\) 'tau'.*'point_mass'.*F"):
        s.ocp(N=10, controls=["tau"])


def test_model_with_contacts_needs_phases_or_complementarity():
    s = md.load(str(REPO / "models" / "bouncing_ball.py")).compile()
    name = s.contact_names[0]
    with pytest.raises(ValueError, match=rf"'bouncing_ball'.*'{name}'.*phases=.*complementarity"):
        s.ocp(N=10)


@pytest.mark.parametrize("N", [0, -3, 2.5, True])
def test_bad_number_of_intervals(point_mass, N):
    s, _ = point_mass
    with pytest.raises(ValueError, match=r"N \(number of intervals\) must be an integer >= 1"):
        s.ocp(N=N)


def test_other_bad_arguments_are_named(point_mass):
    s, _ = point_mass
    with pytest.raises(ValueError, match=r"method must be one of"):
        s.ocp(N=5, method="shooting")
    with pytest.raises(ValueError, match=r"t_final must be a positive number or 'free'"):
        s.ocp(N=5, t_final=-1.0)
    ocp = s.ocp(N=5)
    with pytest.raises(ValueError, match=r"unknown name 'z'.*controls: F.*coordinates: x"):
        ocp.bounds("z", 0, 1)
    with pytest.raises(ValueError, match=r"unknown control 'G'"):
        ocp.u("G")
    with pytest.raises(ValueError, match=r"unknown coordinate 'y'"):
        ocp.initial(q0={"y": 1.0})
