"""Streaming a run to HDF5 (issue 10): simulate(out=...) writes chunks, Result.open reads
lazily; the file equals an in-memory run; memory stays bounded on 2 million points."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mechdae as md

h5py = pytest.importorskip("h5py")


@pytest.fixture(scope="module")
def pendulum():
    return md.load("models/pendulum.py").compile(stabilization=md.Baumgarte(10.0, 10.0))


def _equal(a, b, tol):
    assert a.t.shape == b.t.shape
    assert np.allclose(np.asarray(a.t), b.t, rtol=0, atol=1e-12)
    for k in ("x", "y", "der(x)", "der(y)"):
        if k in b:
            assert np.max(np.abs(a[k] - b[k])) <= tol, k
    assert np.max(np.abs(np.asarray(a.energy) - b.energy)) <= tol
    for k in b.multipliers:
        assert np.max(np.abs(np.asarray(a.multipliers[k]) - b.multipliers[k])) <= 1e3 * tol
        assert np.max(np.abs(np.asarray(a.residuals[k]) - b.residuals[k])) <= tol


def test_smooth_file_equals_in_memory_run(pendulum, tmp_path):
    kw = dict(q0={"x": 1.0, "y": 0.0}, method="cvodes", n_out=3001)
    ref = pendulum.simulate(3.0, **kw)
    one = pendulum.simulate(3.0, out=tmp_path / "one.h5", **kw)    # one chunk: the same call
    assert isinstance(one.t, h5py.Dataset) and one.status == "done"
    _equal(one, ref, 0.0)
    many = pendulum.simulate(3.0, out=tmp_path / "many.h5", chunk=250, **kw)
    assert many.stats["n_chunks"] == 12
    _equal(many, ref, 2e-5)                   # restarts every 250 points: within tolerances
    back = md.Result.open(tmp_path / "many.h5")
    assert back.name == "pendulum" and back.status == "done"
    assert np.array_equal(back["x"], many["x"]) and back.t[-1] == 3.0
    mem = back.load()
    assert isinstance(mem.q, np.ndarray) and np.array_equal(mem.q, np.asarray(many.q))
    assert many.max_drift() == pytest.approx(ref.max_drift(), abs=1e-6)


def test_timestepping_file_with_events(tmp_path):
    ball = md.load("models/bouncing_ball.py").compile(stabilization=None)
    kw = dict(q0={"y": 1.1}, method="timestepping", dt=1e-3, every=2)
    ref = ball.simulate(2.0, **kw)
    res = ball.simulate(2.0, out=tmp_path / "ball.h5", chunk=97, **kw)
    assert res.t.shape == ref.t.shape
    assert np.allclose(np.asarray(res.t), ref.t, rtol=0, atol=1e-12)
    assert np.max(np.abs(res["y"] - ref["y"])) <= 1e-9
    assert len(ref.events) > 2
    assert [(e.kind, e.contact) for e in res.events] == [(e.kind, e.contact) for e in ref.events]
    assert np.allclose([e.t for e in res.events], [e.t for e in ref.events], atol=1e-12)
    # output_times: the nearest stored steps, as in memory
    ot = np.linspace(0, 2.0, 37)
    ref2 = ball.simulate(2.0, output_times=ot, **kw)
    res2 = ball.simulate(2.0, output_times=ot, out=tmp_path / "ball2.h5", chunk=50, **kw)
    assert np.allclose(np.asarray(res2.t), ref2.t, atol=1e-12)
    assert np.max(np.abs(res2["y"] - ref2["y"])) <= 1e-9


def test_event_method_writes_its_result(tmp_path):
    ball = md.load("models/bouncing_ball.py").compile(stabilization=None)
    res = ball.simulate(1.5, q0={"y": 1.1}, method="event", out=tmp_path / "ev.h5")
    with md.Result.open(tmp_path / "ev.h5") as f:
        assert np.array_equal(f["y"], res["y"])
        assert [e.kind for e in f.events] == [e.kind for e in res.events]
        assert np.array_equal(f.contact_forces["ground"][:], res.contact_forces["ground"])


def test_save_h5_and_bad_paths(pendulum, tmp_path):
    res = pendulum.simulate(1.0, q0={"x": 1.0, "y": 0.0}, method="cvodes")
    res.save(tmp_path / "r.h5")
    back = md.Result.open(tmp_path / "r.h5", system=pendulum)
    assert np.array_equal(back["y"], res["y"]) and back.multipliers.keys() == res.multipliers.keys()
    with pytest.raises(ValueError, match="HDF5"):
        pendulum.simulate(1.0, q0={"x": 1.0, "y": 0.0}, out=tmp_path / "r.parquet")
    with pytest.raises(ValueError, match="chunk"):
        pendulum.simulate(1.0, q0={"x": 1.0, "y": 0.0}, chunk=10)


_MEM = textwrap.dedent("""
    import resource, sys, time
    import mechdae as md
    mode, path = sys.argv[1], sys.argv[2]
    m = md.Model("osc")
    x = m.coordinates("x")
    m.kinetic_energy(0.5 * md.der(x) ** 2)
    m.potential_energy(0.5 * x ** 2)
    s = m.compile()
    s.simulate(1.0, q0={"x": 1.0}, method="cvodes", out=path + ".warm.h5", n_out=1000)
    # peak of the memory numpy (and Python) allocate during the run; traced allocations,
    # not the resident size, which the kernel may shrink under memory pressure from other
    # processes (a busy CI machine) and so overstate the growth
    import tracemalloc
    tracemalloc.start()
    t0 = time.perf_counter()
    kw = dict(q0={"x": 1.0}, method="cvodes", n_out=2_000_001)
    r = s.simulate(2000.0, out=path if mode == "stream" else None, **kw)
    peak = tracemalloc.get_traced_memory()[1]
    print(len(r.t), peak / 2 ** 20, time.perf_counter() - t0)
""")


@pytest.mark.slow
def test_two_million_points_stream_in_bounded_memory(tmp_path):
    out = {}
    for mode in ("stream", "memory"):
        # cwd away from the repository: `python -c` puts the cwd first on sys.path, and the
        # source tree (unbuilt in CI) would shadow the installed package
        p = subprocess.run([sys.executable, "-c", _MEM, mode, str(tmp_path / "big.h5")],
                           capture_output=True, text=True, timeout=600, cwd=tmp_path,
                           env=dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1"))
        assert p.returncode == 0, p.stderr[-2000:]
        n, mb, wall = p.stdout.split()[-3:]
        assert int(n) == 2_000_001
        out[mode] = float(mb)
    print(f"peak allocation: streamed {out['stream']:.0f} MB, in memory {out['memory']:.0f} MB")
    assert out["stream"] < 80 and out["stream"] < out["memory"] / 5
    with md.Result.open(tmp_path / "big.h5") as f:
        assert f.t.shape == (2_000_001,) and f.t[-1] == 2000.0


def test_guide_block_runs(tmp_path, monkeypatch):
    """The ```python block of docs/guide.md, section 3, "Failures and long runs"."""
    import re
    from conftest import REPO
    txt = (REPO / "docs" / "guide.md").read_text()
    sec = re.split(r"\n##+ ", txt.split("### Failures and long runs", 1)[1], maxsplit=1)[0]
    blocks = re.findall(r"```python\n(.*?)```", sec, re.S)
    assert len(blocks) == 1
    monkeypatch.chdir(tmp_path)
    ns = {}
    exec(compile(blocks[0], "guide.md (Failures and long runs)", "exec"), ns)
    assert ns["res"].status == "failed" and 0.99 <= ns["res"].t[-1] <= 1.002
