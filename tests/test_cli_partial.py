"""Issue 23 item 6, nothing lost: ``mechdae run MODEL --out FILE`` whose simulation fails
writes the partial result (``err.partial``, the points up to the failure) to FILE with
status "failed", says so on standard error (path, time reached, error) and exits non-zero.

The failing run: the bouncing ball (h0 = 1 m, e = 0.8) under method "event" with
max_events=5, a SolverError at the 6th event (t = 2.88 s)."""
import math
import re
import subprocess
import sys

import numpy as np
import pytest

import mechdae as md

from _modeling import MODELS

G, H0, E = 9.81, 1.0, 0.8


def _model_file(tmp_path):
    path = tmp_path / "failing_ball.py"
    path.write_text(
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('bb', {str(MODELS / 'bouncing_ball.py')!r})\n"
        "bb = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(bb)\n"
        "build = bb.build\n"
        "SIMULATION = dict(t_final=3.0, q0={'x': 0.0, 'y': 1.1}, method='event',\n"
        "                  stabilization=None, max_events=5)\n")
    return path


def _run(tmp_path, *argv):
    return subprocess.run([sys.executable, "-m", "mechdae.cli", *argv],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)


@pytest.mark.parametrize("ext", [".h5", ".npz", ".parquet"])
def test_failed_run_keeps_its_partial_result_file(tmp_path, ext):
    if ext in (".h5", ".parquet"):
        pytest.importorskip("h5py" if ext == ".h5" else "pyarrow")
    model = _model_file(tmp_path)
    out = f"run{ext}"
    proc = _run(tmp_path, "run", str(model), "--no-plot", "--out", out)
    assert proc.returncode != 0
    err = proc.stderr
    assert "SolverError" in err and "more than 5 events" in err
    said = [s for s in err.splitlines() if "partial result" in s]
    assert len(said) == 1 and out in said[0] and "status 'failed'" in said[0], err
    t_said = float(re.search(r"failed at t = ([0-9.eE+-]+) s", said[0]).group(1))
    res = md.Result.load(tmp_path / out)
    assert res.status == "failed"
    assert "more than 5 events" in res.error and "more than 5 events" in res.stats["failed"]
    assert res.t[-1] == pytest.approx(t_said, rel=1e-8)
    # the points up to the failure are the ball's: impacts at the closed-form times
    t1 = math.sqrt(2 * H0 / G)
    tk = t1 + np.concatenate([[0.0], np.cumsum(2 * t1 * E ** np.arange(1, 5))])
    imp = [e.t for e in res.events if e.kind == "impact"]
    assert len(imp) >= 5
    np.testing.assert_allclose(imp[:5], tk, rtol=0, atol=1e-9)
    fl = res.t < t1
    np.testing.assert_allclose(res["y"][fl], 1.1 - G * res.t[fl] ** 2 / 2, atol=1e-9)


def test_successful_run_file_says_done(tmp_path):
    pytest.importorskip("h5py")
    proc = _run(tmp_path, "run", str(MODELS / "bouncing_ball.py"), "--no-plot", "--out",
                "ok.h5", "--t-final", "0.5", "--method", "event")
    assert proc.returncode == 0, proc.stderr
    assert "partial" not in proc.stderr
    res = md.Result.load(tmp_path / "ok.h5")
    assert res.status == "done" and res.error is None
    with md.Result.open(tmp_path / "ok.h5") as f:
        assert f.status == "done"


def test_partial_result_save_defaults_to_failed(tmp_path):
    """``err.partial.save(path)`` (the API under the CLI) marks the file failed itself."""
    ball = md.load(str(MODELS / "bouncing_ball.py")).compile(stabilization=None)
    with pytest.raises(md.SolverError) as info:
        ball.simulate(3.0, q0={"y": 1.1}, method="event", max_events=5)
    p = info.value.partial
    path = p.save(tmp_path / "p.npz")
    back = md.Result.load(path)
    assert back.status == "failed" and "more than 5 events" in back.error
    np.testing.assert_array_equal(back.t, p.t)
