"""Files and outputs (issue 24, part B): saves are atomic under SIGKILL, a missing output
folder is refused before the run, a sweep to Parquet keeps finished rows when killed,
damaged .h5 / .parquet files are refused naming the array, foreign files give a clear
error."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import mechdae as md
import mechdae.simulate as mdsim
from mechdae.simulate.files import DamagedFileError
from mechdae.simulate.result import Result
from conftest import model_module

h5py = pytest.importorskip("h5py")
pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

HERE = os.path.dirname(os.path.abspath(__file__))


def _small(name, n=50):
    t = np.linspace(0.0, 1.0, n)
    q = np.column_stack([np.sin(t), np.cos(t)])
    return Result(t, q, 2 * q, dict(q=["a", "b"], u=["der(a)", "der(b)"], v=[], z=[]),
                  energy=t ** 2, name=name)


# SIGKILL during a save over an existing file: a forked grandchild saves a big Result over
# an old file and is killed after fractions of the measured save time
_KILLER = textwrap.dedent("""
    import json, os, signal, sys, time
    import numpy as np
    from mechdae.simulate.result import Result
    from mechdae.simulate import files
    paths = json.loads(sys.argv[1])

    def result(N):
        t = np.linspace(0.0, 1.0, N)
        q = np.random.default_rng(0).random((N, 4))
        return Result(t, q, q + 1, dict(q=list("abcd"), u=list("efgh"), v=[], z=[]),
                      energy=t, name="new")
    big = dict(npz=result(300_000), h5=result(300_000), parquet=result(60_000))

    def run(path, delay):
        pid = os.fork()
        if pid == 0:
            files.save(big[path.rsplit(".", 1)[1]], path)
            os._exit(0)
        t0 = time.perf_counter()
        if delay is not None:
            time.sleep(delay)
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        return time.perf_counter() - t0

    out = {}
    for fmt, ps in paths.items():
        took = run(ps[0], None)                  # a whole save: its duration
        out[fmt] = [run(p, f * took) for p, f in zip(ps[1:], (0.1, 0.3, 0.5, 0.7, 0.9))]
    print(json.dumps(out))
""")


def test_kill_during_save_leaves_old_or_new_file(tmp_path):
    paths = {}
    for fmt in ("npz", "h5", "parquet"):
        paths[fmt] = [str(tmp_path / f"r{i}.{fmt}") for i in range(6)]
        for p in paths[fmt][1:]:
            _small("old").save(p)
    proc = subprocess.run([sys.executable, "-c", _KILLER, json.dumps(paths)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    seen = {"old": 0, "new": 0}
    for fmt, ps in paths.items():
        assert md.Result.load(ps[0]).name == "new"
        for p in ps[1:]:
            r = md.Result.load(p)          # never torn: the old file or the new one
            seen[r.name] += 1
            n = 50 if r.name == "old" else (60_000 if fmt == "parquet" else 300_000)
            assert r.t.size == n and r.q.shape == (n, 2 if n == 50 else 4), (fmt, p)
    # the temporary files left by killed saves are hidden (".r3.parquet.<hex>.tmp.parquet")
    assert all(f.startswith(".r") and ".tmp." in f for f in os.listdir(tmp_path)
               if not f.startswith("r"))
    assert seen["old"] > 0, seen              # some kills landed inside a save


def test_save_over_existing_file_replaces_it(tmp_path):
    for fmt in ("npz", "h5", "parquet"):
        p = tmp_path / f"r.{fmt}"
        _small("old").save(p)
        assert md.Result.save(_small("new", 80), p) == str(p)
        r = md.Result.load(p)
        assert r.name == "new" and r.t.size == 80
        assert sorted(os.listdir(tmp_path)) == sorted(
            f for f in os.listdir(tmp_path) if not f.startswith("."))


# ---------------------------------------------------------------- output folder first
@pytest.fixture(scope="module")
def ball():
    return model_module("bouncing_ball").build().compile(stabilization=None)


@pytest.mark.parametrize("method", ["event", "auto", "unified"])
def test_missing_output_folder_refused_before_the_run(ball, tmp_path, monkeypatch, method):
    calls = []
    driver = mdsim.METHODS[method]

    def counting(*a, **k):
        calls.append(1)
        return driver(*a, **k)
    monkeypatch.setitem(mdsim.METHODS, method, counting)
    with pytest.raises(ValueError, match="does not exist; create it first") as err:
        ball.simulate(1.0, q0={"y": 1.1}, method=method, progress=False,
                      out=tmp_path / "missing" / "run.h5")
    assert str(tmp_path / "missing") in str(err.value)
    assert calls == []                     # the run never started
    ball.simulate(0.2, q0={"y": 1.1}, method=method, progress=False, out=tmp_path / "ok.h5")
    assert calls == [1]


def test_result_save_refuses_missing_folder_and_directory(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        _small("x").save(tmp_path / "nope" / "r.npz")
    (tmp_path / "d.h5").mkdir()
    with pytest.raises(ValueError, match="is a directory"):
        _small("x").save(tmp_path / "d.h5")


# ---------------------------------------------------------------- sweep flushes by count
_SWEEPER = textwrap.dedent("""
    import sys, numpy as np
    sys.path.insert(0, {here!r})
    from test_sweep import _ball
    ball = _ball()
    ball.sweep(params={{"e": np.linspace(0.3, 0.9, 4)}}, t_final=1.0, method="event",
               progress=False)
    print("start", flush=True)
    ball.sweep(params={{"e": np.linspace(0.3, 0.9, 20000)}}, t_final=1.0, method="event",
               progress=False, out=sys.argv[1])
""")


def test_sweep_killed_keeps_finished_rows(tmp_path):
    out = tmp_path / "s.parquet"
    proc = subprocess.Popen([sys.executable, "-c", _SWEEPER.format(here=HERE), str(out)],
                            stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        assert proc.stdout.readline().strip() == "start"
        time.sleep(1.5)
        assert proc.poll() is None, "the sweep ended before the kill"
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    df = pd.read_parquet(out)
    assert len(df) >= 64 and (df["status"] == "ok").all()


# ---------------------------------------------------------------- checksums
def _flip_value(path, value):
    """Change one byte of the stored float64 ``value`` in the file ``path``."""
    raw = bytearray(open(path, "rb").read())
    i = raw.find(np.float64(value).tobytes())
    assert i >= 0
    raw[i + 3] ^= 0x10
    open(path, "wb").write(bytes(raw))


@pytest.mark.parametrize("fmt,array", [("h5", "q"), ("parquet", "q::b")])
def test_damaged_file_refused_naming_the_array(tmp_path, fmt, array):
    rng = np.random.default_rng(1)
    r = _small("x", 200)
    r.q = rng.random((200, 2))
    p = str(tmp_path / f"r.{fmt}")
    r.save(p)
    np.testing.assert_array_equal(md.Result.load(p).q, r.q)
    _flip_value(p, r.q[77, 1])
    with pytest.raises(DamagedFileError, match=f"array '{array}' is damaged") as err:
        md.Result.load(p)
    assert p in str(err.value)


def test_damaged_streamed_file_refused_and_failed_file_loads(ball, tmp_path):
    p = str(tmp_path / "run.h5")
    pend = md.load(os.path.join(HERE, "..", "models", "pendulum.py")).compile(
        stabilization=md.Baumgarte(10.0, 10.0))
    res = pend.simulate(1.0, q0={"x": 1.0, "y": 0.0}, method="cvodes", n_out=500, out=p,
                        chunk=120)
    x = np.asarray(res.q)[300, 0]
    res.close()
    full = md.Result.load(p)
    assert full.t.size == 500
    _flip_value(p, x)
    with pytest.raises(DamagedFileError, match="array 'q' is damaged"):
        md.Result.load(p)
    # a run written with status "failed" carries checksums too and loads
    q = str(tmp_path / "failed.h5")
    full.save(q, status="failed", error="SolverError: stopped")
    back = md.Result.load(q)
    assert back.status == "failed" and back.t.size == 500


def test_files_without_checksums_still_load(tmp_path):
    p = str(tmp_path / "old.h5")
    _small("x").save(p)
    with h5py.File(p, "a") as f:
        del f.attrs["checksums"]
    assert md.Result.load(p).t.size == 50
    import pyarrow.parquet as pq
    q = str(tmp_path / "old.parquet")
    _small("x").save(q)
    table = pq.read_table(q)
    meta = json.loads(table.schema.metadata[b"mechdae"])
    del meta["checksums"]
    pq.write_table(table.replace_schema_metadata({b"mechdae": json.dumps(meta).encode()}), q)
    assert md.Result.load(q).t.size == 50


# ---------------------------------------------------------------- foreign files
def test_foreign_files_give_a_clear_error(tmp_path):
    np.savez(tmp_path / "a.npz", data=np.zeros(3))
    with h5py.File(tmp_path / "a.h5", "w") as f:
        f["data"] = np.zeros(3)
    pd.DataFrame({"data": [1.0]}).to_parquet(tmp_path / "a.parquet")
    for ext in ("npz", "h5", "parquet"):
        p = str(tmp_path / f"a.{ext}")
        with pytest.raises(ValueError, match="not a mechdae Result file") as err:
            md.Result.load(p)
        assert p in str(err.value)
        assert "missing" in str(err.value)


def test_write_interrupted_inside_a_chunk_still_loads(tmp_path, monkeypatch):
    """An interrupt between a dataset's write and its checksum (Ctrl-C in a streamed
    run) leaves that dataset unverified, not falsely damaged: the file loads."""
    from mechdae.simulate import stream
    p = str(tmp_path / "int.h5")
    w = stream.Writer(p)
    w.append(_small("x"))
    calls = []
    real = stream.crc32

    def interrupting(values, crc=0):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(values, crc)
    monkeypatch.setattr(stream, "crc32", interrupting)
    with pytest.raises(KeyboardInterrupt) as err:
        w.append(_small("x"), skip_first=True)
    monkeypatch.setattr(stream, "crc32", real)
    w.abort(err.value)
    back = md.Result.load(p)
    assert back.status == "failed" and back.t.size == 99
    with stream.open_result(p) as fr:
        sums = fr.checksums                  # t, q done; v torn (3rd checksum)
    assert "t" in sums and "q" in sums and "v" not in sums


def test_damaged_npz_refused_naming_the_array(tmp_path):
    r = _small("x", 200)
    r.q = np.random.default_rng(2).random((200, 2))
    p = str(tmp_path / "r.npz")
    r.save(p)
    _flip_value(p, r.q[77, 1])
    with pytest.raises(DamagedFileError, match="q.npy") as err:
        md.Result.load(p)
    assert p in str(err.value)


def test_sweep_out_that_cannot_be_created_refused_before_the_runs(tmp_path):
    from test_sweep import _ball
    (tmp_path / "afile").write_text("")
    with pytest.raises(ValueError, match="cannot create the sweep's directory"):
        _ball().sweep(params={"e": [0.5, 0.6]}, t_final=0.5, method="event", progress=False,
                      out=tmp_path / "afile" / "s.parquet")
