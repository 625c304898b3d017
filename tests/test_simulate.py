"""Simulation physics: energy, multipliers, periods, inputs, extra variables, Result I/O."""
import math

import numpy as np
import pytest

import mechdae as md
from _modeling import load

TIGHT = dict(rtol=1e-11, atol=1e-13)


@pytest.fixture(scope="module")
def pendulum():
    return load("pendulum").compile(stabilization=md.Baumgarte(10.0, 10.0))


def test_pendulum_energy_conserved(pendulum):
    res = pendulum.simulate(10.0, q0={"x": 1.0, "y": 0.0}, **TIGHT)
    assert res.energy_error() < 1e-8
    assert res.max_drift() < 1e-9


def test_pendulum_multiplier_is_rod_tension(pendulum):
    res = pendulum.simulate(3.0, q0={"x": 0.6, "y": -0.8}, v0={"x": 0.8, "y": 0.6}, **TIGHT)
    assert not res.init_report                     # the given state was consistent
    x, y, vx, vy = res["x"], res["y"], res["der(x)"], res["der(y)"]
    L, g, m = 1.0, 9.81, 1.0
    tension = m * ((vx ** 2 + vy ** 2) / L - g * y / L)     # S = m (v^2/L + g . e_inward)
    # G^T lam = 2 lam (x, y) = -S (x, y)/L
    assert np.max(np.abs(-2 * L * res.multipliers["rod"] - tension)) < 1e-6


def test_pendulum_period_with_parameter_override_no_recompile(pendulum):
    periods = {}
    for L in (0.5, 2.0):
        res = pendulum.simulate(8.0, q0={"x": 0.01 * L, "y": -L * math.sqrt(1 - 1e-4)}, params={"L": L},
                                output_times=np.linspace(0, 8, 8001), **TIGHT)
        x = res["x"]
        up = np.where((x[:-1] < 0) & (x[1:] >= 0))[0]
        tz = res.t[up] - x[up] * (res.t[up + 1] - res.t[up]) / (x[up + 1] - x[up])
        periods[L] = np.mean(np.diff(tz))
        assert periods[L] == pytest.approx(2 * math.pi * math.sqrt(L / 9.81), rel=1e-4)
    # one integrator per output grid, none per parameter (string keys: the System's other
    # caches, e.g. "mass-checked", the mass-matrix check per parameter vector)
    assert len([k for k in pendulum._integrators if not isinstance(k, str)]) <= 2


def test_double_pendulum_energy_conserved():
    s = load("double_pendulum").compile(stabilization=md.Baumgarte(20.0, 20.0))
    res = s.simulate(5.0, q0={"x1": 1.0, "y1": 0.0, "x2": 2.0, "y2": 0.0}, **TIGHT)
    assert res.energy_error() < 1e-8
    assert res.max_drift() < 1e-9


def test_slider_crank_closed_loop_residuals_small():
    s = load("slider_crank").compile(stabilization=md.Baumgarte(20.0, 20.0))
    res = s.simulate(5.0, q0={"th1": 0.0}, v0={"th1": 6.0}, rtol=1e-9, atol=1e-11)
    assert np.max(np.abs(res.residuals["loop"])) < 1e-8
    assert res.energy_error() < 1e-6
    assert res["s"][0] == pytest.approx(3.0)         # initialization placed the slider
    assert res["th1"][-1] > 10                      # the crank keeps turning


def test_torque_free_body_conserves_energy_momentum_and_flips():
    m = md.Model("free_body")
    b = m.rigid_body("b", mass=2.0, inertia=[1.0, 2.0, 3.0])
    s = m.compile()
    res = s.simulate(20.0, v0={"b.wx": 0.01, "b.wy": 2.0, "b.wz": 0.01, "b.vx": 1.0}, **TIGHT)
    Lw = res.evaluate(b.angular_momentum())
    assert res.energy_error() < 1e-8
    assert np.max(np.abs(Lw - Lw[0])) < 1e-7
    assert res["b.wy"].min() < -1.9                 # intermediate-axis (Dzhanibekov) flip
    assert res["b.x"][-1] == pytest.approx(20.0)


def test_torque_free_body_euler_equations():
    m = md.Model("euler")
    b = m.rigid_body("b", mass=1.0, inertia=[[2.0, 0.1, 0.0], [0.1, 3.0, 0.2], [0.0, 0.2, 4.0]])
    s = m.compile()
    w = np.array([0.3, -0.7, 1.1])
    t = s.dynamics_terms({}, {"b.wx": w[0], "b.wy": w[1], "b.wz": w[2]})
    J = t["M"][3:, 3:]
    assert np.allclose(t["h"][3:], -np.cross(w, J @ w), atol=1e-14)


def test_inputs_constant_samples_and_function():
    m = md.Model("pushed")
    x = m.coordinates("x")
    F = m.input("F", 2.0)
    m.kinetic_energy(0.5 * 4.0 * md.der(x) ** 2)
    m.generalized_force(F, x)
    s = m.compile()
    r = s.simulate(2.0, **TIGHT)
    assert r["x"][-1] == pytest.approx(2.0 * 4.0 / (2 * 4.0))        # F t^2 / 2m
    r = s.simulate(2.0, inputs={"F": np.array([[0.0, 0.0], [10.0, 10.0]])}, **TIGHT)
    assert r["x"][-1] == pytest.approx(8.0 / (6 * 4.0), rel=1e-8)    # t^3 / 6m
    r = s.simulate(2.0, inputs={"F": lambda t: md.cos(t)}, **TIGHT)
    assert r["x"][-1] == pytest.approx((1 - math.cos(2.0)) / 4.0, rel=1e-8)


def test_extra_differential_and_algebraic_variables():
    m = md.Model("actuated")
    x = m.coordinates("x")
    i = m.variable("i", 1.0)
    f = m.variable("f")
    tau = m.parameter("tau", 0.5)
    m.kinetic_energy(0.5 * 2.0 * md.der(x) ** 2)
    m.equation(md.der(i) == -i / tau)
    m.equation(f == 3.0 * i)
    m.generalized_force(f, x)
    s = m.compile()
    r = s.simulate(1.0, **TIGHT)
    t = r.t
    exact = 3.0 / 2.0 * 0.25 * (np.exp(-t / 0.5) - 1 + t / 0.5)
    assert np.max(np.abs(r["x"] - exact)) < 1e-9
    assert np.allclose(r["f"], 3.0 * np.exp(-t / 0.5), atol=1e-9)


def test_consistent_initialization_reports_changes(pendulum):
    with pytest.warns(UserWarning, match="consistent initialization changed given values"):
        res = pendulum.simulate(0.1, q0={"x": 1.0, "y": 0.5})
    assert set(res.init_report) >= {"x", "y"}
    assert abs(res.residuals["rod"][0]) < 1e-12
    res = pendulum.simulate(0.1, q0={"x": 0.6}, v0={"x": 1.0})     # y free: moved, no warning
    assert res["y"][0] == pytest.approx(0.8) or res["y"][0] == pytest.approx(-0.8)
    assert res["x"][0] == pytest.approx(0.6)


def test_to_casadi_dict_integrates_to_the_same_result(pendulum):
    import casadi as ca
    res = pendulum.simulate(1.0, q0={"x": 0.6, "y": -0.8}, **TIGHT)
    dae = pendulum.to_casadi()
    F = ca.integrator("F", "cvodes", {k: dae[k] for k in ("x", "t", "p", "ode")}, 0.0, 1.0,
                      dict(abstol=1e-13, reltol=1e-11))
    x0 = np.concatenate([res.q[0], res.v[0]])
    xf = np.array(F(x0=x0, p=dae["p0"])["xf"]).ravel()
    assert np.allclose(xf, np.concatenate([res.q[-1], res.v[-1]]), atol=1e-8)
    assert {"M", "h", "phi", "G"} <= set(dae["functions"])
    daef = pendulum.to_casadi(form="dae")
    assert {"z", "alg"} <= set(daef)


def test_idas_method_agrees_with_cvodes(pendulum):
    a = pendulum.simulate(1.0, q0={"x": 0.6, "y": -0.8}, method="idas", **TIGHT)
    b = pendulum.simulate(1.0, q0={"x": 0.6, "y": -0.8}, **TIGHT)
    assert np.max(np.abs(a.q - b.q)) < 1e-7


def test_unknown_method_lists_available(pendulum):
    with pytest.raises(ValueError, match="available: .*cvodes"):
        pendulum.simulate(1.0, method="warp")


def test_evaluate_save_load_roundtrip(pendulum, tmp_path):
    res = pendulum.simulate(1.0, q0={"x": 0.6, "y": -0.8}, **TIGHT)
    m = pendulum.parent
    r2 = res.evaluate(m["x"] ** 2 + m["y"] ** 2)
    assert np.allclose(r2, 1.0, atol=1e-9)
    vv = res.evaluate(md.vertcat(md.der(m["x"]), m["y"]))
    assert vv.shape == (res.t.size, 2)
    path = tmp_path / "run.npz"
    res.save(path)
    back = md.Result.load(path)
    assert np.array_equal(back.q, res.q) and np.array_equal(back["der(y)"], res["der(y)"])
    assert np.array_equal(back.multipliers["rod"], res.multipliers["rod"])
    assert back.energy_error() == pytest.approx(res.energy_error())
    assert back.events == []


def test_knife_edge_nonholonomic_energy_and_no_side_slip():
    from _modeling import knife_edge
    m, b = knife_edge()
    s = m.compile(stabilization=md.Baumgarte(5.0))
    res = s.simulate(5.0, v0={"b.vx": 1.0, "b.w": 0.8}, **TIGHT)
    assert res.energy_error() < 1e-8
    assert np.max(np.abs(res.residuals["skate"])) < 1e-9
    # the center moves on a circle of radius v/w = 1.25
    x, y = res["b.x"], res["b.y"]
    assert np.allclose(np.hypot(x, y - 1.25), 1.25, atol=1e-7)


def test_to_dataframe_or_clear_import_error(pendulum):
    res = pendulum.simulate(0.5, q0={"x": 0.6, "y": -0.8})
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match=r"mechdae\[io\]"):
            res.to_dataframe()
    else:
        df = res.to_dataframe()
        assert list(df.columns[:2]) == ["x", "y"] and len(df) == res.t.size


def test_solver_counters_are_per_call():
    """CasADi's inner-function counters (n_call_*, t_wall_*) add up over the integrator's
    life; Result.stats reports each run's own: identical runs give identical counts, and
    the right-hand side calls equal cvodes' own count of function evaluations."""
    sys_ = load("double_pendulum").compile()
    runs = [sys_.simulate(1.0, q0={sys_.q_names[0]: 0.3}).stats for _ in range(3)]
    for st in runs:
        assert st["n_call_daeF"] == st["nfevals"] == runs[0]["nfevals"]
        assert st["n_call_jacF"] == runs[0]["n_call_jacF"]
        assert 0 <= st["t_wall_daeF"] < 10 * runs[0]["t_wall_daeF"] + 0.01
