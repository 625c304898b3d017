"""Nothing lost (issue 10): a run failing part-way raises with err.partial, the Result of
the points computed before the failure — finite and equal to an unperturbed run."""
import importlib.util

import numpy as np
import pytest

import mechdae as md


def _blowup(ball=False):
    """An oscillator pushed by sqrt(ts - t): the force is NaN from t = ts on (ball: a
    bouncing ball pushed sideways)."""
    m = md.Model("blowup_ball" if ball else "blowup")
    ts = m.parameter("ts", 1.0)
    if ball:
        x, y = m.coordinates("x y")
        m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2))
        m.potential_energy(9.81 * y)
        m.contact("ground", gap=y - 0.1, tangent=x, restitution=0.8, friction=0.0)
    else:
        x = m.coordinates("x")
        m.kinetic_energy(0.5 * md.der(x) ** 2)
        m.potential_energy(0.5 * x ** 2)
    m.generalized_force(md.sqrt(ts - m.time), x)
    return m.compile(stabilization=None)


@pytest.fixture(scope="module")
def blowup():
    return _blowup()


def _same_prefix(p, ref, names, tol):
    n = min(p.t.size, ref.t.size) - 1       # (a reference run may end on a short step)
    assert n > 10
    assert np.allclose(p.t[:n], ref.t[:n], rtol=0, atol=1e-12)
    for k in names:
        assert np.all(np.isfinite(p[k]))
        assert np.max(np.abs(p[k][:n] - ref[k][:n])) <= tol, k


def test_smooth_failure_keeps_points_up_to_it(blowup):
    grid = np.linspace(0.0, 2.0, 201)
    opts = dict(q0={"x": 1.0}, method="cvodes", integrator_options={"max_num_steps": 2000})
    with pytest.raises(md.SolverError) as info:
        blowup.simulate(2.0, output_times=grid, **opts)
    p = info.value.partial
    assert p is not None and "failed" in p.stats
    assert 0.97 <= p.t[-1] <= 1.0                    # the last output point before t = 1
    ref = blowup.simulate(0.99, output_times=grid[:100], **opts)
    # the integrator's own columns up to the failure: the same numbers as a run stopped there
    _same_prefix(p, ref, ["x", "x'"] if "x'" in ref else ["x"], 1e-8)
    assert np.all(np.isfinite(p.energy))


def test_smooth_projection_failure(blowup):
    opts = dict(q0={"x": 1.0}, method="cvodes", stabilization=md.Projection(),
                integrator_options={"max_num_steps": 2000})
    with pytest.raises(md.SolverError) as info:
        blowup.simulate(2.0, n_out=201, **opts)
    p = info.value.partial
    assert 0.97 <= p.t[-1] <= 1.0
    ref = blowup.simulate(0.99, output_times=np.linspace(0, 2, 201)[:100], **opts)
    _same_prefix(p, ref, ["x"], 1e-8)


def test_timestepping_failure(blowup):
    with pytest.raises(md.SolverError) as info:
        blowup.simulate(2.0, q0={"x": 1.0}, method="timestepping", dt=1e-3, every=10)
    p = info.value.partial
    assert 0.98 <= p.t[-1] <= 1.0 + 1e-9
    ref = blowup.simulate(0.9, q0={"x": 1.0}, method="timestepping", dt=1e-3, every=10)
    _same_prefix(p, ref, ["x"], 0.0)


def test_unified_failure():
    b = _blowup(ball=True)
    q0 = {"x": 0.0, "y": 0.5}
    with pytest.raises(md.SolverError) as info:
        b.simulate(2.0, q0=q0, method="unified", dt=1e-3)
    p = info.value.partial
    assert 0.99 <= p.t[-1] <= 1.0
    assert any(e.kind == "impact" for e in p.events)
    ref = b.simulate(0.9, q0=q0, method="unified", dt=1e-3)
    _same_prefix(p, ref, ["x", "y"], 0.0)


@pytest.mark.parametrize("method", ["event", "auto"])
def test_event_and_auto_too_many_events(method):
    ball = md.load("models/bouncing_ball.py").compile(stabilization=None)
    kw = dict(q0={"y": 1.1}, method=method, output_times=np.linspace(0, 3, 301))
    with pytest.raises(md.SolverError, match="more than 5 events") as info:
        ball.simulate(3.0, max_events=5, **kw)
    p = info.value.partial
    impacts = [e.t for e in p.events if e.kind == "impact"]
    assert len(impacts) >= 5
    assert p.t[-1] == pytest.approx(impacts[-1], abs=1e-12)       # the failing event
    ref = ball.simulate(3.0, **kw)
    k = np.searchsorted(p.t, p.t[-1] - 1e-9)
    # output grid points (events add their own points): compare on the grid
    on = np.isin(p.t[:k], ref.t)
    r_idx = np.searchsorted(ref.t, p.t[:k][on])
    assert np.all(np.isfinite(p.q)) and np.all(np.isfinite(p.v))
    assert np.max(np.abs(p["y"][:k][on] - ref["y"][r_idx])) <= 1e-9


@pytest.mark.parametrize("method", ["event", "auto"])
def test_painleve_error_carries_partial(method):
    spec = importlib.util.spec_from_file_location("painleve_rod", "models/painleve_rod.py")
    rod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rod)
    sys_ = rod.build(mu=2.0).compile(stabilization=None)
    q, v = rod.sliding_state(0.8, -1.0)
    with pytest.raises(md.PainleveError) as info:
        sys_.simulate(0.5, q0=q, v0=v, method=method)
    p = info.value.partial
    assert p is not None and p.t[-1] == 0.0 and np.all(np.isfinite(p.q))


def test_streamed_file_holds_points_up_to_failure(blowup, tmp_path):
    path = tmp_path / "fail.h5"
    opts = dict(q0={"x": 1.0}, integrator_options={"max_num_steps": 2000})
    with pytest.raises(md.SolverError) as info:
        blowup.simulate(2.0, n_out=201, method="cvodes", out=path, chunk=30, **opts)
    p = info.value.partial
    assert p.status == "failed" and "integration failed" in p.error
    assert 0.97 <= p.t[-1] <= 1.0
    with md.Result.open(path) as f:
        assert f.t.shape == p.t.shape and np.all(np.isfinite(f.q[:]))
    ref = blowup.simulate(0.99, n_out=100, method="cvodes", **opts)
    _same_prefix(p, ref, ["x"], 1e-6)
    # timestepping: the same
    path2 = tmp_path / "fail_ts.h5"
    with pytest.raises(md.SolverError) as info:
        blowup.simulate(2.0, q0={"x": 1.0}, method="timestepping", out=path2, chunk=70)
    p2 = info.value.partial
    assert p2.status == "failed" and 0.99 <= p2.t[-1] <= 1.002
    # a non-streaming method writes its partial Result
    b = _blowup(ball=True)
    path3 = tmp_path / "fail_u.h5"
    with pytest.raises(md.SolverError):
        b.simulate(2.0, q0={"x": 0.0, "y": 0.5}, method="unified", out=path3)
    with md.Result.open(path3) as f:
        assert f.status == "failed" and 0.99 <= f.t[-1] <= 1.0
        assert any(e.kind == "impact" for e in f.events)
