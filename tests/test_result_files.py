"""Result files and tables: .h5 / .parquet / .npz round trips with events (and their extra
fields), contact forces, modes, units and metadata; to_dataframe's companion tables."""
import numpy as np
import pytest

import mechdae as md
from conftest import model_module

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def ball():
    """Bouncing ball (e = 0.8, h0 = 1 m), event-driven: impacts, an accumulation, then
    rest on the ground with the normal force m g."""
    mod = model_module("bouncing_ball")
    return mod.build().compile(stabilization=None).simulate(
        5.0, q0={"y": 1.1}, method="event", progress=False)


def _same_run(a, b):
    assert a.name == b.name and a.names == b.names
    np.testing.assert_array_equal(np.asarray(a.t), np.asarray(b.t))
    np.testing.assert_array_equal(np.asarray(a.q), np.asarray(b.q))
    np.testing.assert_array_equal(np.asarray(a.v), np.asarray(b.v))
    np.testing.assert_array_equal(np.asarray(a.energy), np.asarray(b.energy))
    assert [(e.t, e.kind, e.contact, e.energy_before, e.energy_after) for e in a.events] == \
        [(e.t, e.kind, e.contact, e.energy_before, e.energy_after) for e in b.events]
    for ea, eb in zip(a.events, b.events):
        if ea.impulse is not None:
            np.testing.assert_array_equal(ea.impulse, eb.impulse)
        for k, v in ea.extra.items():
            if isinstance(v, (float, int, str)):
                assert eb.extra[k] == v
    for k, v in a.contact_forces.items():
        np.testing.assert_array_equal(v, b.contact_forces[k])
    assert a.modes == b.modes
    assert b.units["y"] == "m" and b.stats["method"] == "event"
    np.testing.assert_array_equal(a.params, b.params)


@pytest.mark.parametrize("ext", [".h5", ".parquet", ".npz"])
def test_round_trip_with_events_forces_modes(ball, tmp_path, ext):
    if ext == ".h5":
        pytest.importorskip("h5py")
    if ext == ".parquet":
        pytest.importorskip("pyarrow")
    path = tmp_path / f"ball{ext}"
    assert ball.save(path) == str(path)
    back = md.Result.load(path)
    _same_run(ball, back)
    assert back.system is None
    sys_ = ball.system
    again = md.Result.load(path, system=sys_)
    y = sys_.parent.coords[1]["sym"]
    np.testing.assert_allclose(again.evaluate(y - 0.1), ball["y"] - 0.1)


def test_companion_tables(ball):
    frames = ball.to_dataframes()
    series, events = frames["series"], frames["events"]
    assert list(series.index[:2]) == list(ball.t[:2]) and "y" in series and "energy" in series
    assert len(events) == len(ball.events)
    assert list(events["kind"]) == [e.kind for e in ball.events]
    acc = events[events["kind"] == "accumulation"]
    assert len(acc) == 1
    cf = ball.to_dataframe("contact_forces")
    assert list(cf.columns) == ["ground.n", "ground.t"]
    # at rest after the accumulation point the ground carries the weight m g = 9.81 N
    rest = cf[cf.index > acc["t"].iloc[0] + 0.1]
    assert len(rest) > 10
    np.testing.assert_allclose(rest["ground.n"], 9.81, rtol=1e-6)
    modes = ball.to_dataframe("modes")
    assert set(modes["mode"][rest.index]) == {"n"}
    with pytest.raises(ValueError, match="has no impulses"):
        ball.to_dataframe("impulses")
    with pytest.raises(ValueError, match="choose one of"):
        ball.to_dataframe("nope")


def test_timestepping_impulses_table_and_unknown_extension(tmp_path):
    mod = model_module("bouncing_ball")
    res = mod.build().compile(stabilization=None).simulate(
        1.0, q0={"y": 1.1}, method="timestepping", store_impulses=True, progress=False)
    P = res.to_dataframe("impulses")
    assert list(P.columns) == ["ground.n", "ground.t0"]
    # first impact at t1 = sqrt(2 h0 / g): the impulse (1 + e) m v1 (plus m g dt of weight)
    t1 = np.sqrt(2 / 9.81)
    k = int(np.argmax(P["ground.n"].to_numpy()))
    assert P.index[k] == pytest.approx(t1, abs=2e-3)
    assert P["ground.n"].iloc[k] == pytest.approx(1.8 * 9.81 * t1, rel=5e-3)
    back = md.Result.load(res.save(tmp_path / "ts.npz"))
    np.testing.assert_array_equal(back.impulses, res.impulses)
    assert back.impulse_rows == res.impulse_rows
    with pytest.raises(ValueError, match="'.npz', '.h5'"):
        res.save(tmp_path / "x.csv")
