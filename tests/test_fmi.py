"""FMI export (mechdae.export.fmi, System.export_fmu): every FMU passes FMPy's validator and
FMPy's simulation of it reproduces System.simulate (1e-6 of each signal's range) for a
1-D component model with a changed parameter, a planar four-bar (a kinematic loop), a
model driven by an input and a DSL model whose names need FMI quoting; FMI 3.0 and 2.0,
Model Exchange and Co-Simulation; bad input refused with the fix."""
import math
import os
import zipfile

import numpy as np
import pytest

import mechdae as md
from mechdae.components import planar as pl
from mechdae.components import translational as tr

fmpy = pytest.importorskip("fmpy")
from fmpy.validation import validate_fmu  # noqa: E402

TIGHT = dict(rtol=1e-11, atol=1e-12)
KINDS = [(3, "model-exchange"), (2, "model-exchange"), (3, "co-simulation"),
         (2, "co-simulation")]


def _maxwell():
    """wall - damper - massless node - spring - mass: a coordinate, a speed and a general
    (first-order) variable, the node's force balance d y' = c (x - y)."""
    m = md.Model("maxwell")
    wall = m.add(tr.Fixed("wall"))
    damper = m.add(tr.Damper("damper", d=2.0))
    spring = m.add(tr.Spring("spring", c=8.0))
    mass = m.add(tr.Mass("mass", m=1.0, s=1.0))
    m.connect(wall.flange, damper.flange_a)
    m.connect(damper.flange_b, spring.flange_a)
    m.connect(spring.flange_b, mass.flange_a)
    return m.compile()


def _fourbar():
    """Crank (1 m) - coupler (2 m) - rocker (1.5 m) between ground pivots 2.06 m apart, under
    gravity: a Grashof crank-rocker (no change points); the loop closes through two
    constraint rows (joint coordinates j1, j2, j3)."""
    m = md.Model("fourbar")
    world = m.add(pl.World("world"))
    parts = [pl.Revolute("j1", phi0=math.pi / 2), pl.BodyShape("crank", r=(1.0, 0.0)),
             pl.Revolute("j2", phi0=-math.pi / 2),
             pl.BodyShape("coupler", r=(2.0, 0.0), r_cm=(1.0, 0.0)),
             pl.Revolute("j3", phi0=-math.pi / 2), pl.BodyShape("rocker", r=(1.5, 0.0)),
             pl.Revolute("j4"), pl.Fixed("ground", r=(2.0, -0.5))]
    prev = world.frame
    for p in parts:
        m.add(p)
        m.connect(prev, p.frame_a if hasattr(p, "frame_a") else p.frame)
        prev = getattr(p, "frame_b", None)
    return m.compile()


@pytest.fixture(scope="module")
def maxwell():
    return _maxwell()


@pytest.fixture(scope="module")
def fourbar():
    return _fourbar()


def _close(fmu_res, res, names, tol=1e-6):
    """Largest deviation of each signal relative to its range, checked against ``tol``."""
    worst = {}
    for n in names:
        a, b = np.asarray(fmu_res[n]), np.asarray(res[n])
        worst[n] = np.max(np.abs(a - b)) / max(np.ptp(b), 1e-12)
    assert max(worst.values()) < tol, worst
    return worst


def _fmu_run(path, t_final, dt, **kw):
    return fmpy.simulate_fmu(path, stop_time=t_final, output_interval=dt,
                             relative_tolerance=1e-10, **kw)


# ------------------------------------------------------------------ 1-D components
@pytest.mark.parametrize("version,kind", KINDS)
def test_maxwell_element_with_changed_stiffness_matches_simulate(tmp_path, maxwell, version,
                                                                 kind):
    path = str(tmp_path / "maxwell.fmu")
    assert maxwell.export_fmu(path, kind=kind, fmi_version=version) == path
    assert validate_fmu(path) == []
    names = ["mass.s", "mass.v", "damper.flange_b.s", "spring.f", "mass.a"]
    r = _fmu_run(path, 3.0, 0.01, start_values={"spring.c": 12.0}, output=names)
    res = maxwell.simulate(3.0, params={"spring.c": 12.0}, output_times=r["time"], **TIGHT)
    _close(r, res, names)
    # the changed stiffness took effect: the closed form of the linear system with c = 12
    c, d, m_ = 12.0, 2.0, 1.0
    A = np.array([[0.0, 1.0, 0.0], [-c / m_, 0.0, c / m_], [c / d, 0.0, -c / d]])
    lam, V = np.linalg.eig(A)
    coef = np.linalg.solve(V, [1.0, 0.0, 0.0])
    x = np.real((V[0] * coef) @ np.exp(np.outer(lam, r["time"])))
    assert np.max(np.abs(r["mass.s"] - x)) < 1e-6


def test_fmu_layout_names_units_and_sources(tmp_path, maxwell):
    path = str(tmp_path / "maxwell.fmu")
    maxwell.export_fmu(path, kind="co-simulation")
    md_ = fmpy.read_model_description(path)
    assert md_.fmiVersion == "3.0" and md_.variableNamingConvention == "structured"
    by = {v.name: v for v in md_.modelVariables}
    assert by["spring.c"].causality == "parameter" and by["spring.c"].variability == "tunable"
    assert float(by["spring.c"].start) == 8.0
    assert by["spring.f"].causality == "output"
    assert [d.variable.name for d in md_.derivatives] == [
        "der(mass.s)", "der(mass.v)", "der(damper.flange_b.s)"]
    # the output spring.f = c (x - y) depends on the states mass.s and damper.flange_b.s only
    out = {o.variable.name: sorted(v.name for v in o.dependencies) for o in md_.outputs}
    assert out["spring.f"] == ["damper.flange_b.s", "mass.s"]
    assert "DOP853" in md_.description and "rtol=1e-10" in md_.description
    files = zipfile.ZipFile(path).namelist()
    assert any(f.startswith("binaries/") and f.endswith("/maxwell.so") for f in files)
    for f in ("sources/mdae_fmu_model.c", "sources/mdae_fmi3.c", "sources/mdae_ode.c",
              "sources/buildDescription.xml"):
        assert f in files


# ------------------------------------------------------------------ a kinematic loop
@pytest.mark.parametrize("version,kind", [(3, "model-exchange"), (2, "co-simulation")])
def test_four_bar_loop_matches_simulate(tmp_path, fourbar, version, kind):
    v0 = {"j1.w": 3.0}
    path = str(tmp_path / "fourbar.fmu")
    fourbar.export_fmu(path, kind=kind, fmi_version=version, v0=v0)
    assert validate_fmu(path) == []
    names = ["j1.phi", "j2.phi", "j3.phi", "j1.w", "j4.frame_b.x", "ground.frame.fy"]
    r = _fmu_run(path, 2.0, 0.01, output=names)
    res = fourbar.simulate(2.0, v0=v0, output_times=r["time"], **TIGHT)
    _close(r, res, names)
    # the loop stays closed in the FMU (the stabilized constraint), the cut force is finite
    assert np.max(np.abs(r["j4.frame_b.x"] - 2.0)) < 1e-6


# ------------------------------------------------------------------ inputs, quoted names
def _driven():
    """x'' = (F - k x) / m with F an input; a DSL model whose speed is the default der(x)
    and whose output name needs quoting."""
    m = md.Model("driven mass")
    x = m.coordinates("x", default=0.1, unit="m")
    k = m.parameter("k", 4.0, unit="N/m")
    F = m.input("F", 0.0)
    m.potential_energy(0.5 * k * x ** 2)
    m.kinetic_energy(0.5 * md.der(x) ** 2)
    m.generalized_force(F, x)
    m.output("spring force [N]", k * x)
    return m.compile()


@pytest.mark.parametrize("version,kind", [(3, "model-exchange"), (2, "model-exchange"),
                                          (3, "co-simulation")])
def test_input_driven_mass_and_quoted_names(tmp_path, version, kind):
    s = _driven()
    assert s.u_names == ["der(x)"]
    path = str(tmp_path / "driven.fmu")
    s.export_fmu(path, kind=kind, fmi_version=version)
    assert validate_fmu(path) == []
    md_ = fmpy.read_model_description(path)
    by = {v.name: v for v in md_.modelVariables}
    # the speed der(x) is the derivative variable of x; its own derivative is der(x,2)
    assert [d.variable.name for d in md_.derivatives] == ["der(x)", "der(x,2)"]
    assert by["'spring force [N]'"].description == "spring force [N]"
    assert by["x"].unit == "m" and by["der(x)"].unit == "m/s" and by["k"].unit == "N/m"
    # a force switched at 0.5 s and 1.2 s (FMPy: input events; mechdae: three stretches)
    steps = [(0.0, 0.5, 0.0), (0.5, 1.2, 2.0), (1.2, 2.0, -1.0)]
    rows = [(a, f) for a, b, f in steps for a in (a, b)]
    sig = np.array(rows, dtype=[("time", float), ("F", float)])
    names = ["x", "der(x)", "'spring force [N]'"]
    r = _fmu_run(path, 2.0, 0.01, input=sig, output=names,
                 **({"fmi_type": "CoSimulation"} if kind == "co-simulation" else {}))
    ref = {n: np.empty(len(r["time"])) for n in ("x", "der(x)", "spring force [N]")}
    q0, v0 = None, None
    for a, b, f in steps:
        sel = (r["time"] >= a) & (r["time"] <= b)
        ts = np.unique(np.concatenate([[a], r["time"][sel], [b]]))
        res = s.simulate(b, q0=q0, v0=v0, inputs={"F": f}, output_times=ts, **TIGHT)
        for n in ref:
            ref[n][sel] = np.interp(r["time"][sel], ts, res[n])
        q0, v0 = {"x": res["x"][-1]}, {"der(x)": res["der(x)"][-1]}
    _close({"x": r["x"], "der(x)": r["der(x)"], "f": r["'spring force [N]'"]},
           {"x": ref["x"], "der(x)": ref["der(x)"], "f": ref["spring force [N]"]},
           ["x", "der(x)", "f"])
    # the input acted: x at 2 s differs from the free oscillation's
    free = s.simulate(2.0, output_times=[0.0, 2.0], **TIGHT)
    assert abs(r["x"][-1] - free["x"][-1]) > 0.1


# ------------------------------------------------------------------ bad input
def test_bad_input_is_refused_with_the_fix(tmp_path, maxwell, monkeypatch):
    m = md.Model("signal")
    x = m.coordinates("x")
    F = m.input("F", lambda t: md.sin(t))
    m.kinetic_energy(0.5 * md.der(x) ** 2)
    m.generalized_force(F, x)
    s = m.compile()
    with pytest.raises(ValueError, match=r"input 'F'.*inputs=\{'F': 0.0\}"):
        s.export_fmu(str(tmp_path / "a.fmu"))
    # the fix the message names works
    assert validate_fmu(s.export_fmu(str(tmp_path / "a.fmu"), inputs={"F": 0.0})) == []
    missing = tmp_path / "no" / "such" / "dir" / "m.fmu"
    with pytest.raises(FileNotFoundError, match="does not exist; create it"):
        maxwell.export_fmu(str(missing))
    with pytest.raises(ValueError, match="ending in '.fmu'"):
        maxwell.export_fmu(str(tmp_path / "m.zip"))
    with pytest.raises(ValueError, match="kind="):
        maxwell.export_fmu(str(tmp_path / "m.fmu"), kind="me")
    with pytest.raises(ValueError, match="fmi_version="):
        maxwell.export_fmu(str(tmp_path / "m.fmu"), fmi_version=1)
    monkeypatch.setenv("CC", "/nonexistent/cc")
    with pytest.raises(OSError, match="install a C compiler.*set the CC"):
        maxwell.export_fmu(str(tmp_path / "m.fmu"))
    assert not os.path.exists(tmp_path / "m.fmu")



# ------------------------------------------------------------------ contacts: impacts inside
def _ball(e=0.8, friction=0.0):
    """A ball dropped from 1 m; an upward force input F; with friction, it also moves
    horizontally (coordinate x, the contact's tangent)."""
    m = md.Model("ball")
    y = m.coordinates("y", default=1.0, unit="m")
    F = m.input("F", 0.0)
    T, V = 0.5 * md.der(y) ** 2, 9.81 * y
    if friction:
        x = m.coordinates("x", default=0.0, speed_default=0.5, unit="m")
        T = T + 0.5 * md.der(x) ** 2
    m.kinetic_energy(T)
    m.potential_energy(V)
    m.generalized_force(F, y)
    if friction:
        m.contact("floor", gap=y, tangent=x, restitution=e, friction=friction)
    else:
        m.contact("floor", gap=y, restitution=e)
    return m.compile()


@pytest.mark.parametrize("version", [3, 2])
def test_bouncing_ball_impacts_rest_and_lift_off_match_the_closed_form(tmp_path, version):
    """Dropped from 1 m onto the floor with e = 0.8: impact k at t_1 + (2 v_1 / g) sum_{j<k}
    e^j with speed v_1 e^k, v_1 = sqrt(2 g h); the impacts accumulate at t_1 + (2 v_1 / g)
    e / (1 - e), where the FMU closes the contact (the ball rests on the floor); a force
    F = 2 m g from t = 5 s lifts it off: y = g (t - 5)^2 / 2."""
    g, e, h = 9.81, 0.8, 1.0
    s = _ball(e)
    path = str(tmp_path / "ball.fmu")
    s.export_fmu(path, fmi_version=version, stop_time=6.0)
    assert validate_fmu(path) == []
    md_ = fmpy.read_model_description(path)
    assert "mdae_impact_solve" in md_.description
    F = np.array([(0.0, 0.0), (5.0, 0.0), (5.0, 2 * g), (6.0, 2 * g)],
                 dtype=[("time", float), ("F", float)])
    # the sequence amplifies errors ((1/e)^k): CVode at 1e-12 keeps 35 impacts within 1e-6 s
    r = fmpy.simulate_fmu(path, stop_time=6.0, output_interval=0.01, relative_tolerance=1e-12,
                          output=["y", "der(y)"], record_events=True, input=F)
    t, y, v = np.asarray(r["time"]), np.asarray(r["y"]), np.asarray(r["der(y)"])
    # impacts: rows recorded twice at an event, the speed jumping from down to up
    k = np.where((np.diff(t) == 0) & (v[:-1] < 0) & (v[1:] > 0))[0]
    t_imp = t[k]
    t1, v1 = math.sqrt(2 * h / g), math.sqrt(2 * g * h)
    n = np.arange(len(t_imp))
    exact = t1 + 2 * v1 / g * np.cumsum(np.r_[0.0, e ** n[1:]])
    assert len(t_imp) >= 35
    np.testing.assert_allclose(t_imp[:35], exact[:35], rtol=0, atol=1e-6)
    np.testing.assert_allclose(v[k + 1][:35], v1 * e ** (n[:35] + 1), rtol=0, atol=1e-6 * v1)
    assert np.min(y) > -1e-8                             # never through the floor
    t_acc = t1 + 2 * v1 / g * e / (1 - e)
    assert t_imp[-1] < t_acc
    rest = (t > t_acc + 0.01) & (t <= 5.0)
    assert np.max(np.abs(y[rest])) < 1e-8 and np.max(np.abs(v[rest])) < 1e-6
    up = t > 5.0
    np.testing.assert_allclose(y[up], 0.5 * g * (t[up] - 5.0) ** 2, rtol=0, atol=1e-8)


def _sliding_ball(e, mu, vx0, g=9.81, h=1.0):
    """Closed form of the ball thrown along the floor with friction: impact k (normal speed
    v_1 e^(k-1)) takes mu (1 + e) v_1 e^(k-1) off the sliding speed until it sticks.
    Returns the accumulation time and the distance slid by then."""
    t1, v1 = math.sqrt(2 * h / g), math.sqrt(2 * g * h)
    t, x, vx, vn = t1, vx0 * t1, vx0, v1
    while vn > 1e-12:
        vx = max(0.0, vx - mu * (1 + e) * vn)
        vn *= e
        x += vx * 2 * vn / g
        t += 2 * vn / g
    return t, x, vx


@pytest.mark.parametrize("vx0,mu", [(0.5, 0.3), (5.0, 0.1)])
def test_ball_thrown_along_the_floor_slides_and_sticks_as_the_closed_form(tmp_path, vx0, mu):
    """Thrown along the floor (friction mu, e = 1/2): each impact takes mu (1 + e) v_n off
    the sliding speed. Slow, it sticks at its first impact and rests closed and sticking;
    fast, it still slides when its impacts accumulate, and then slides closed, decelerating
    at mu g: x(t) = x_acc + v_acc (t - t_acc) - mu g (t - t_acc)^2 / 2."""
    g = 9.81
    s = _ball(0.5, friction=mu)
    path = str(tmp_path / "slider.fmu")
    s.export_fmu(path, v0={"der(x)": vx0}, stop_time=3.0)
    assert validate_fmu(path) == []
    r = fmpy.simulate_fmu(path, stop_time=3.0, output_interval=0.01, relative_tolerance=1e-12,
                          output=["y", "x"])
    t_acc, x_acc, vx_acc = _sliding_ball(0.5, mu, vx0)
    T = min(3.0 - t_acc, vx_acc / (mu * g))
    assert r["time"][-1] == pytest.approx(3.0)
    assert abs(r["x"][-1] - (x_acc + vx_acc * T - 0.5 * mu * g * T ** 2)) < 1e-6
    assert abs(r["y"][-1]) < 1e-8


@pytest.mark.parametrize("kind", ["model-exchange", "co-simulation"])
def test_box_thrown_along_the_floor_slides_then_sticks(tmp_path, kind):
    """A box resting on the floor (friction 0.3) thrown at 2 m/s: the contact starts closed
    and sliding, decelerates at mu g and sticks at t = v / (mu g), x = v^2 / (2 mu g)."""
    g, mu, v = 9.81, 0.3, 2.0
    path = str(tmp_path / "box.fmu")
    _ball(0.5, friction=mu).export_fmu(path, kind=kind, q0={"y": 0.0}, v0={"der(x)": v},
                                       stop_time=2.0)
    assert validate_fmu(path) == []
    log = []
    r = fmpy.simulate_fmu(path, stop_time=2.0, output_interval=0.01, relative_tolerance=1e-12,
                          output=["x", "y"], debug_logging=True,
                          logger=lambda *a: log.append(a[-1].decode()))
    t = np.asarray(r["time"])
    ts = v / (mu * g)
    x = np.where(t < ts, v * t - 0.5 * mu * g * t ** 2, v ** 2 / (2 * mu * g))
    assert np.max(np.abs(r["x"] - x)) < 1e-8 and np.max(np.abs(r["y"])) < 1e-8
    sticks = [m_ for m_ in log if "'floor' sticks" in m_]
    assert len(sticks) == 1 and abs(float(sticks[0].split()[2].rstrip(":")) - ts) < 1e-8


def _ball_height(t, g=9.81, e=0.8, h=1.0):
    """The bouncing ball's height in closed form (at rest after the accumulation point)."""
    t1, v1 = math.sqrt(2 * h / g), math.sqrt(2 * g * h)
    n = np.arange(200)
    tk = t1 + 2 * v1 / g * np.cumsum(np.r_[0.0, e ** n[1:]])
    t_acc = t1 + 2 * v1 / g * e / (1 - e)
    k = np.clip(np.searchsorted(tk, t, side="right") - 1, 0, None)
    d = t - tk[k]
    y = np.where(t < t1, h - 0.5 * g * t ** 2, v1 * e ** (k + 1) * d - 0.5 * g * d ** 2)
    return np.where(t >= t_acc, 0.0, y)


def test_bouncing_ball_co_simulation_matches_the_closed_form(tmp_path):
    """The same ball as a Co-Simulation FMU (events located inside each 1 ms communication
    step by the compiled integrator, the same event update): its height against the closed
    form through all its impacts, the rest, and the lift-off when the input force switches
    to 2 m g at t = 5 s."""
    g = 9.81
    path = str(tmp_path / "ball_cs.fmu")
    _ball(0.8).export_fmu(path, kind="co-simulation", stop_time=6.0)
    assert validate_fmu(path) == []
    F = np.array([(0.0, 0.0), (5.0, 0.0), (5.0, 2 * g), (6.0, 2 * g)],
                 dtype=[("time", float), ("F", float)])
    r = fmpy.simulate_fmu(path, stop_time=6.0, output_interval=0.001, output=["y"], input=F)
    t, y = np.asarray(r["time"]), np.asarray(r["y"])
    before = t <= 5.0
    assert np.max(np.abs(y[before] - _ball_height(t[before]))) < 1e-6
    np.testing.assert_allclose(y[~before], 0.5 * g * (t[~before] - 5.0) ** 2, rtol=0,
                               atol=1e-8)


def test_newtons_cradle_simultaneous_impact_equals_the_event_method(tmp_path):
    """Ball 1 strikes two touching balls at t = 0.5 s: one impact of two contacts at once
    (D = tridiag(-1, 2, -1) / m, Newton's law, e = 1) solved by mdae_impact_solve inside the
    FMU gives (-1/3, 2/3, 2/3) v0, as simulate(method="event") does."""
    from conftest import model_module
    s = model_module("newtons_cradle").build(n=3, e=1.0).compile(stabilization=None)
    q0, v0 = {"x1": -0.5, "x2": 0.1, "x3": 0.2}, {"x1": 1.0}
    path = str(tmp_path / "cradle.fmu")
    s.export_fmu(path, q0=q0, v0=v0)
    assert validate_fmu(path) == []
    names = ["x1", "x2", "x3", "der(x1)", "der(x2)", "der(x3)"]
    r = _fmu_run(path, 1.0, 0.01, output=names)
    grid = np.linspace(0.0, 1.0, 101)
    res = s.simulate(1.0, q0=q0, v0=v0, method="event", output_times=grid)
    assert [(round(e.t, 9), e.contact) for e in res.events if e.kind == "impact"] == [
        (0.5, "c12"), (0.5, "c23")]
    after = res.t > 0.5 + 1e-6                  # (the speeds jump at t = 0.5 itself)
    for n in names:                             # signals of range ~1 (m, m/s)
        np.testing.assert_allclose(np.interp(res.t[after], r["time"], r[n]),
                                   res[n][after], rtol=0, atol=1e-9)
    np.testing.assert_allclose([r[n][-1] for n in names[3:]], [-1 / 3, 2 / 3, 2 / 3],
                               atol=1e-12)


def test_pendulum_on_a_rod_hitting_a_wall_equals_the_event_method(tmp_path):
    """A Cartesian pendulum (the rod a holonomic constraint) swinging into a wall at x = 0.3
    (e = 0.7): the FMU's impacts use the constrained Delassus matrix W M_c^-1 W^T and speed
    jump M_c^-1 W^T P (the rod enforced through the impact); impact times and states equal
    simulate(method="event")."""
    m = md.Model("pendulum_wall")
    x, y = m.coordinates("x y")
    m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2))
    m.potential_energy(9.81 * y)
    m.holonomic(x ** 2 + y ** 2 - 1.0, name="rod")
    m.contact("wall", gap=0.3 - x, restitution=0.7)
    s = m.compile()
    q0 = {"x": -math.sin(0.6), "y": -math.cos(0.6)}
    path = str(tmp_path / "pendulum_wall.fmu")
    s.export_fmu(path, q0=q0)
    assert validate_fmu(path) == []
    names = ["x", "y", "der(x)", "der(y)"]
    r = _fmu_run(path, 3.0, 0.01, output=names, record_events=True)
    t, vx = np.asarray(r["time"]), np.asarray(r["der(x)"])
    k = np.where((np.diff(t) == 0) & (vx[:-1] > 0) & (vx[1:] < 0))[0]
    grid = np.linspace(0.0, 3.0, 301)
    res = s.simulate(3.0, q0=q0, method="event", output_times=grid)
    t_ev = [e.t for e in res.events if e.kind == "impact"]
    assert len(t_ev) == 2
    np.testing.assert_allclose(t[k], t_ev, rtol=0, atol=1e-7)
    on_grid = np.isin(res.t, grid) & ~np.isin(res.t, t_ev)
    _, first = np.unique(t, return_index=True)
    _close({n: np.interp(res.t[on_grid], t[first], np.asarray(r[n])[first]) for n in names},
           {n: res[n][on_grid] for n in names}, names)


def test_rocking_block_impact_sequence_equals_the_event_method(tmp_path):
    """Housner's rocking block (e = 0, no slip) started flat, rocking about its right corner:
    every impact of the coming-down corner is plastic and sticking while the pivot lifts
    off, so |w+| = |w-| (1 - 3/2 sin^2 alpha), alpha = atan(l / h) (Housner 1963). In the FMU
    the pivot is a closed sticking contact (normal and tangential rows held, its normal
    force and friction margin as event indicators) and each impact is solved with it in
    the active set: the impact times, the speed ratios and the motion equal
    simulate(method="event") and the closed form."""
    from conftest import model_module
    rb = model_module("rocking_block")
    s = rb.build(e=0.0, mu=10.0).compile(stabilization=None)
    q0, v0 = rb.flat_state(1.0)
    path = str(tmp_path / "rocking_block.fmu")
    s.export_fmu(path, q0=q0, v0=v0, stop_time=0.5)
    assert validate_fmu(path) == []
    names = ["x", "y", "th", "der(th)"]
    r = _fmu_run(path, 0.5, 0.01, output=names, record_events=True)
    t, w = np.asarray(r["time"]), np.asarray(r["der(th)"])
    jump = np.where((np.diff(t) == 0) & (np.abs(np.diff(w)) > 1e-6))[0]
    grid = np.linspace(0.0, 0.5, 51)
    res = s.simulate(0.5, q0=q0, v0=v0, method="event", output_times=grid)
    t_ev = sorted({e.t for e in res.events if e.kind == "impact" and e.t > 0})
    assert len(t_ev) >= 3
    np.testing.assert_allclose(t[jump][:len(t_ev)], t_ev, rtol=0, atol=1e-6)
    ratio = 1 - 1.5 * math.sin(math.atan(1.0 / 1.5)) ** 2
    np.testing.assert_allclose(np.abs(w[jump + 1] / w[jump])[:len(t_ev)], ratio, rtol=1e-6)
    assert abs(w[0] - ratio) < 1e-9                     # the impact at t = 0 (w- = 1)
    on_grid = np.isin(res.t, grid[1:]) & ~np.isin(res.t, t_ev)
    _, first = np.unique(t, return_index=True)
    _close({n: np.interp(res.t[on_grid], t[first], np.asarray(r[n])[first]) for n in names},
           {n: res[n][on_grid] for n in names}, names)


def test_rocking_block_dropped_equals_the_event_method(tmp_path):
    """models/rocking_block.py's own run (dropped tilted from 1 m, e = 1/2, mu = 1/2): its
    corners' impacts, the sequence of ever smaller bounces on the right corner until it
    closes sticking, and the rocking after it: the FMU's impacts (from its log) are the
    same contacts in the same order as simulate(method="event")'s, at the same times (1e-6 s,
    the last three of the accumulating bounces 1e-5 s), and its motion is the same to 1e-6
    of the range."""
    import re
    from conftest import model_module
    s = model_module("rocking_block").build().compile(stabilization=None)
    q0 = {"x": 0.0, "y": 1.0, "th": 0.2}
    path = str(tmp_path / "rocking_block.fmu")
    s.export_fmu(path, q0=q0, stop_time=2.0)
    assert validate_fmu(path) == []
    log = []
    names = ["x", "y", "th"]
    r = _fmu_run(path, 2.0, 0.01, output=names, debug_logging=True,
                 logger=lambda *a: log.append(a[-1].decode()))
    grid = np.linspace(0.0, 2.0, 201)
    res = s.simulate(2.0, q0=q0, method="event", output_times=grid)
    t_ev = [(e.t, e.contact) for e in res.events if e.kind == "impact"]
    t_fmu = [(float(m_.group(1)), m_.group(2)) for m_ in
             (re.match(r"impact \d+ at t = (\S+): \d contact\(s\), first '(\w)'", x)
              for x in log) if m_]
    assert len(t_ev) >= 14 and len(t_fmu) >= 14
    assert [c for _, c in t_fmu[:14]] == [c for _, c in t_ev[:14]]
    # (the bounces amplify errors as the ball's do: the last three agree to 1e-5 s)
    np.testing.assert_allclose([t for t, _ in t_fmu[:11]], [t for t, _ in t_ev[:11]],
                               rtol=0, atol=1e-6)
    np.testing.assert_allclose([t for t, _ in t_fmu[:14]], [t for t, _ in t_ev[:14]],
                               rtol=0, atol=1e-5)
    on_grid = np.isin(res.t, grid[1:])
    _close({n: np.interp(res.t[on_grid], r["time"], r[n]) for n in names},
           {n: res[n][on_grid] for n in names}, names)
