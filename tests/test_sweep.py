"""Sweeps (issue 17): one DataFrame row per run, failures as rows, Parquet streaming and
resume, impact sweeps; physics checked against closed forms."""
import numpy as np
import pandas as pd
import pytest

import mechdae as md
from conftest import model_module

G = 9.81


def _ball():
    m = md.Model("ball")
    y = m.coordinates("y")
    m.kinetic_energy(0.5 * md.der(y) ** 2)
    m.potential_energy(G * y)
    m.contact("ground", gap=y, restitution=m.parameter("e", 0.8))
    return m.compile(stabilization=None)


def _energy_ratio(res):
    """Kinetic energy kept by the first impact: e^2."""
    ev = [e for e in res.events if e.kind == "impact"][0]
    return ev.energy_after / ev.energy_before


def test_ball_grid_of_restitution_and_height():
    ball = _ball()
    e, h0 = np.array([0.5, 0.7, 0.9]), np.array([1.0, 2.0])
    df = ball.sweep(params={"e": e}, q0={"y": h0}, t_final=1.0, method="event",
                    outputs={"t1": "first(impact)", "top": "max(y)", "kept": _energy_ratio,
                             "n": "count(impact, ground)", "lost": "energy_lost"})
    assert len(df) == 6 and list(df.index) == list(range(6))
    assert list(df.columns[:2]) == ["e", "q0.y"]
    assert (df["status"] == "ok").all() and (df["error"] == "").all()
    # the Cartesian product, last axis fastest
    np.testing.assert_array_equal(df["e"], np.repeat(e, 2))
    np.testing.assert_array_equal(df["q0.y"], np.tile(h0, 3))
    # free fall: first impact at sqrt(2 h0 / g); the impact keeps e^2 of the kinetic energy
    np.testing.assert_allclose(df["t1"], np.sqrt(2 * df["q0.y"] / G), rtol=1e-8)
    np.testing.assert_allclose(df["kept"], df["e"] ** 2, rtol=1e-8)
    np.testing.assert_allclose(df["top"], df["q0.y"], rtol=1e-12)
    # energy lost by t = 1 s: (1 - e^2) m g h0 per impact, h the height before each impact
    for _, r in df.iterrows():
        t, h, lost, n = np.sqrt(2 * r["q0.y"] / G), r["q0.y"], 0.0, 0
        while t <= 1.0:
            lost += (1 - r["e"] ** 2) * G * h
            h *= r["e"] ** 2
            t += 2 * np.sqrt(2 * h / G)
            n += 1
        assert r["n"] == n
        assert r["lost"] == pytest.approx(lost, rel=1e-6)
    assert df["t_end"].eq(1.0).all()
    assert df.attrs["sweep"]["runs"] == 6 and df.attrs["sweep"]["backend"] == "serial"


def test_samples_table_with_a_state_function_crossed_with_a_grid():
    ball = _ball()
    samples = pd.DataFrame({"h": [0.5, 1.5, 3.0]})

    def drop(h):
        return {"y": h}, {}

    df = ball.sweep(samples=samples, params={"e": [0.6, 0.8]}, state=drop, t_final=0.7,
                    method="event", outputs=["first(impact)"])
    assert len(df) == 6
    np.testing.assert_array_equal(df["h"], np.repeat(samples["h"], 2))
    t1 = np.sqrt(2 * df["h"].to_numpy() / G)
    got = df["first(impact)"].to_numpy()
    hit = t1 <= 0.7           # no impact before t_final: NaN
    np.testing.assert_allclose(got[hit], t1[hit], rtol=1e-8)
    assert np.isnan(got[~hit]).all() and (~hit).sum() == 2


def _pushed():
    """x'' = -x + sqrt(1 - k t): the force is NaN from t = 1/k on."""
    m = md.Model("pushed")
    x = m.coordinates("x")
    k = m.parameter("k", 0.1)
    m.kinetic_energy(0.5 * md.der(x) ** 2)
    m.potential_energy(0.5 * x ** 2)
    m.generalized_force(md.sqrt(1.0 - k * m.time), x)
    return m.compile()


def test_a_failing_run_is_a_row_with_its_error():
    from scipy.integrate import solve_ivp
    sys = _pushed()
    ks = np.array([0.1, 0.5, 2.0, 0.8])
    df = sys.sweep(params={"k": ks}, q0={"x": 1.0}, t_final=1.0, method="timestepping",
                   dt=1e-4, outputs=["x"])
    assert list(df["status"]) == ["ok", "ok", "failed", "ok"]
    bad = df.iloc[2]
    assert "SolverError" in bad["error"] and np.isnan(bad["x"])
    assert bad["t_end"] == pytest.approx(0.5, abs=0.02)     # where sqrt(1 - 2 t) ends
    for k, x in zip(ks[[0, 1, 3]], df["x"].to_numpy()[[0, 1, 3]]):
        ref = solve_ivp(lambda t, s: [s[1], -s[0] + np.sqrt(max(1 - k * t, 0.0))],
                        (0, 1), [1.0, 0.0], rtol=1e-10, atol=1e-12).y[0, -1]
        assert x == pytest.approx(ref, abs=1e-3)    # Moreau-Jean, dt = 1e-4: first order
    assert df.attrs["sweep"]["failed"] == 1


_CALLS = {"n": 0, "stop_at": None}


def _apex_counted(res):
    _CALLS["n"] += 1
    if _CALLS["stop_at"] is not None and _CALLS["n"] == _CALLS["stop_at"]:
        raise KeyboardInterrupt
    return float(np.max(res["y"]))


def test_interrupted_sweep_resumes_running_only_the_missing_rows(tmp_path):
    ball = _ball()
    kw = dict(params={"e": np.linspace(0.5, 0.9, 4)}, q0={"y": [1.0, 2.0, 3.0]}, t_final=0.9,
              method="event", outputs={"apex": _apex_counted, "t1": "first(impact)"}, chunk=2)
    out = tmp_path / "ball.parquet"
    _CALLS.update(n=0, stop_at=7)        # Ctrl-C during the 4th chunk
    with pytest.raises(KeyboardInterrupt):
        ball.sweep(out=out, **kw)
    kept = pd.read_parquet(out)
    assert sorted(kept["run"]) == list(range(6))        # the three finished chunks
    _CALLS.update(n=0, stop_at=None)
    df = ball.sweep(out=out, **kw)
    assert _CALLS["n"] == 12 - 6                          # only the missing rows ran
    assert df.attrs["sweep"]["resumed"] == 6 and df.attrs["sweep"]["ran"] == 6
    _CALLS.update(n=0)
    full = ball.sweep(**kw)
    pd.testing.assert_frame_equal(df, full, check_dtype=False)
    np.testing.assert_allclose(df["apex"], df["q0.y"], rtol=1e-12)
    np.testing.assert_allclose(df["t1"], np.sqrt(2 * df["q0.y"] / G), rtol=1e-8)
    # the file holds every row; a second run finds nothing to do
    assert len(pd.read_parquet(out)) == 12
    _CALLS.update(n=0)
    again = ball.sweep(out=out, **kw)
    assert _CALLS["n"] == 0 and again.attrs["sweep"]["ran"] == 0
    # another sweep into the same directory is refused, naming what differs
    with pytest.raises(ValueError, match="holds another sweep.*inputs"):
        ball.sweep(out=out, **dict(kw, params={"e": [0.3]}))


def test_bad_input_names_the_problem(tmp_path):
    ball = _ball()
    with pytest.raises(ValueError, match="unknown parameter 'E'"):
        ball.sweep(params={"E": [0.5, 0.6]}, t_final=1.0)
    with pytest.raises(ValueError, match="'h' is not a parameter.*state="):
        ball.sweep(grid={"h": [1.0, 2.0]}, t_final=1.0)
    with pytest.raises(ValueError, match="q0: unknown coordinate 'z'"):
        ball.sweep(q0={"z": [1.0, 2.0]}, t_final=1.0)
    with pytest.raises(ValueError, match="no series 'z'"):
        ball.sweep(params={"e": [0.5]}, t_final=1.0, outputs=["max(z)"])
    with pytest.raises(ValueError, match="differ in length"):
        ball.sweep(samples={"e": [0.5, 0.6], "q0.y": [1.0]}, t_final=1.0)
    with pytest.raises(ValueError, match="given twice"):
        ball.sweep(samples={"e": [0.5]}, params={"e": [0.6]}, t_final=1.0)
    with pytest.raises(ValueError, match="executor must be"):
        ball.sweep(params={"e": [0.5]}, t_final=1.0, executor="gpu")
    (tmp_path / "f.parquet").write_text("x")
    with pytest.raises(ValueError, match="is a file"):
        ball.sweep(params={"e": [0.5]}, t_final=1.0, out=tmp_path / "f.parquet")


def _two_link():
    mod = model_module("two_link_impact")
    return mod, mod.build().compile()


def test_impact_sweep_matches_impact_batch_and_sticks_foot_D():
    mod, sys = _two_link()
    alpha = np.linspace(0.1, 1.4, 7)
    gamma = np.linspace(-3.0, -0.1, 9)
    fs = np.array([0.3, 2.0])
    df = sys.impact_sweep(grid={"alpha": alpha, "gamma": gamma}, params={"f": fs},
                          state=mod.impact_state, chunk=40)
    assert len(df) == 7 * 9 * 2
    A, Gm, F = np.meshgrid(alpha, gamma, fs, indexing="ij")
    q, v = mod.impact_state(A.ravel(), Gm.ravel())
    ref = sys.impact_batch(q, v, params={"f": F.ravel()}, energy="report")
    np.testing.assert_array_equal(df["status"], ref.status)
    np.testing.assert_array_equal(df["mode.B"], ref.mode("B"))
    np.testing.assert_array_equal(df["P.B.n"], ref.impulse("B", 0))
    np.testing.assert_array_equal(df[[f"v_plus.{u}" for u in sys.u_names]], ref.v_plus_array)
    # perfectly inelastic D with infinite friction: D at rest after every consistent impact
    ok = df["status"].isin(["unique", "ambiguous"]).to_numpy()
    assert ok.sum() > 50 and (df["mode.D"][ok] == "stick").all()
    th1 = df["alpha"].to_numpy()
    xd = df["v_plus.der(xO)"] + np.cos(th1) * df["v_plus.der(th1)"]
    yd = df["v_plus.der(yO)"] + np.sin(th1) * df["v_plus.der(th1)"]
    np.testing.assert_allclose(xd[ok], 0.0, atol=1e-10)
    np.testing.assert_allclose(yd[ok], 0.0, atol=1e-10)
    assert (df["energy_after"][ok] <= df["energy_before"][ok] * (1 + 1e-12)).all()


def test_impact_sweep_exhaustive_column_is_the_single_problem_flag():
    """The two-footed body of test_impact_all_solutions (five consistent impacts, both feet
    sliding at once: the direction search is a box search): with a budget of one box the
    search cannot finish where friction is finite; frictionless, nothing is searched. The
    ``exhaustive`` column is, row by row, the flag of ``System.impact``."""
    from test_impact_all_solutions import SYM, symmetric_model
    system, q, v = symmetric_model()
    mus = np.array([SYM["mu"], 0.0, 0.5 * SYM["mu"]])
    full = system.impact_sweep(q, v, params={"mu": mus})
    assert full["exhaustive"].dtype == bool and full["exhaustive"].all()
    assert full["n_solutions"].tolist()[:2] == [5, 1]
    cut = system.impact_sweep(q, v, params={"mu": mus}, max_boxes=1)
    flags = [system.impact(q, v, all_solutions=True, params={"mu": m}, max_boxes=1)
             for m in mus]
    assert cut["exhaustive"].tolist() == [f.exhaustive for f in flags]
    assert cut["n_solutions"].tolist() == [len(f.solutions) for f in flags]
    assert cut["exhaustive"].tolist()[:2] == [False, True]
    # a failed row has no search behind it: not exhaustive
    failed = system.impact_sweep(q, {"b.vx": np.array([np.nan, 1.0])})
    assert failed["status"].tolist()[0] == "failed" and failed["exhaustive"].dtype == bool
    assert failed["exhaustive"].tolist()[0] is False


def test_impact_sweep_failing_rows_carry_their_error():
    mod, sys = _two_link()
    alpha = np.array([0.0, 0.5, 1.0])       # alpha = 0: impact_state divides by sin(0)
    gamma = np.array([-2.0, -1.0])
    with np.errstate(divide="ignore", invalid="ignore"):
        df = sys.impact_sweep(grid={"alpha": alpha, "gamma": gamma}, state=mod.impact_state,
                              params={"f": 0.5})
    failed = df["status"] == "failed"
    assert list(failed) == [True, True, False, False, False, False]
    # the chunk's vectorized state is not finite; row by row, math.* divides by zero
    assert df["error"][failed].str.startswith("ZeroDivisionError").all()
    good = sys.impact_sweep(grid={"alpha": alpha[1:], "gamma": gamma}, state=mod.impact_state,
                            params={"f": 0.5})
    pd.testing.assert_frame_equal(df[~failed].reset_index(drop=True),
                                  good.reset_index(drop=True))


def test_chunks_go_through_a_bounded_window():
    """200 tasks on a pool of 2: never more than 2 x 2 in flight (a scheduler is never
    flooded), every row once, the same table as serially."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    class CountingPool(ThreadPoolExecutor):
        def __init__(self):
            super().__init__(2)
            self.lock, self.live, self.peak, self.n = threading.Lock(), 0, 0, 0

        def submit(self, fn, *args, **kwargs):
            with self.lock:
                self.live += 1
                self.n += 1
                self.peak = max(self.peak, self.live)
            f = super().submit(fn, *args, **kwargs)
            f.add_done_callback(self._done)
            return f

        def _done(self, _):
            with self.lock:
                self.live -= 1

    mod, sys = _two_link()
    kw = dict(grid={"alpha": np.linspace(0.1, 1.4, 40), "gamma": np.linspace(-3.0, -0.1, 50)},
              state=mod.impact_state, params={"f": 0.5}, chunk=10)
    with CountingPool() as pool:
        df = sys.impact_sweep(executor=pool, **kw)
    assert pool.n == 200 and pool.peak <= 4
    pd.testing.assert_frame_equal(df, sys.impact_sweep(**kw))
    assert df.attrs["sweep"]["backend"] == "threads" and df.attrs["sweep"]["workers"] == 2


def test_content_hash_names_what_a_system_computes():
    """Two compiles of one model hash alike (a worker's cache key, a stored sweep's
    identity); another parameter default or stabilization does not."""
    from mechdae.sweep import content_hash
    ball = model_module("bouncing_ball")
    a, b = ball.build().compile(), ball.build().compile()
    assert content_hash(a) == content_hash(b)
    assert content_hash(ball.build(e=0.7).compile()) != content_hash(a)
    assert content_hash(ball.build().compile(stabilization=None)) != content_hash(a)
