"""``mechdae run MODEL.py`` prints a summary and writes a PNG."""
import subprocess
import sys

import pytest

from _modeling import MODELS


def test_mechdae_run_pendulum_prints_summary_and_writes_png(tmp_path):
    out = tmp_path / "p.png"
    proc = subprocess.run([sys.executable, "-m", "mechdae.cli", "run", str(MODELS / "pendulum.py"),
                           "--t-final", "2", "--plot", str(out), "-p", "L=2.0"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    for key in ("model        pendulum", "events       0", "max drift", "energy error",
                "time taken", "rank drops"):
        assert key in text, text
    assert out.exists() and out.stat().st_size > 1000


def test_mechdae_run_default_plot_name_and_errors(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "mechdae.cli", "run",
                           str(MODELS / "nlink_chain.py"), "--t-final", "0.5", "-p", "n=3"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "nlink_chain.png").exists()
    bad = tmp_path / "bad.py"
    bad.write_text("import mechdae as md\n"
                   "def build():\n"
                   "    m = md.Model('bad'); x = m.coordinates('x')\n"
                   "    return m\n")
    proc = subprocess.run([sys.executable, "-m", "mechdae.cli", "run", str(bad)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode != 0
    assert "coordinate 'x': has no dynamics" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "mechdae.cli", "run", str(tmp_path / "nope.py")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode != 0 and "not found" in proc.stderr


def _run(tmp_path, *argv):
    return subprocess.run([sys.executable, "-m", "mechdae.cli", *argv],
                          capture_output=True, text=True, cwd=tmp_path)


def test_run_help_is_plain_text_and_lists_the_methods(tmp_path):
    proc = _run(tmp_path, "run", "--help")
    assert proc.returncode == 0
    assert "``" not in proc.stdout
    for m in ("auto", "cvodes", "event", "idas", "timestepping", "unified"):
        assert m in proc.stdout.split("--method")[1]
    for cmd in ("lcp", "regions", "sweep"):
        proc = _run(tmp_path, cmd, "--help")
        assert proc.returncode == 0 and "``" not in proc.stdout, cmd


def test_output_paths_fail_before_the_run(tmp_path):
    missing = tmp_path / "nope"
    for opt, name in (("--plot", "p.png"), ("--out", "r.h5"), ("--animate", "a.gif")):
        proc = _run(tmp_path, "run", str(MODELS / "bouncing_ball.py"), opt,
                    str(missing / name))
        assert proc.returncode == 1
        assert f"{opt} {missing / name}: directory {missing} does not exist" in proc.stderr
        assert "model " not in proc.stdout          # nothing simulated
    proc = _run(tmp_path, "run", str(MODELS / "bouncing_ball.py"), "--out", "r.csv")
    assert proc.returncode == 1 and "'.csv'" in proc.stderr


def test_run_out_h5_and_animate_gif(tmp_path):
    import mechdae as md
    proc = _run(tmp_path, "run", str(MODELS / "bouncing_ball.py"), "--no-plot", "--out",
                "ball.h5", "--animate", "ball.gif", "--t-final", "1", "--method", "event")
    assert proc.returncode == 0, proc.stderr
    assert "saved        ball.h5" in proc.stdout and "animation    ball.gif" in proc.stdout
    res = md.Result.load(tmp_path / "ball.h5")
    # first impact at t1 = sqrt(2 h0 / g), h0 = 1 m
    assert res.events[0].kind == "impact"
    assert res.events[0].t == pytest.approx((2 / 9.81) ** 0.5, rel=1e-8)
    assert (tmp_path / "ball.gif").stat().st_size > 1000


def test_summaries_readable(tmp_path):
    proc = _run(tmp_path, "run", str(MODELS / "slider_crank.py"), "--no-plot")
    assert proc.returncode == 0, proc.stderr
    init = [s for s in proc.stdout.splitlines() if s.startswith("initialized")][0]
    assert "der(th1)" not in init and "s: 0 -> 3" in init          # 6 -> 6 is no change
    proc = _run(tmp_path, "run", str(MODELS / "skier.py"), "--no-plot", "--t-final", "0.5")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    h = [i for i, s in enumerate(lines) if s.strip().startswith("H = [[")]
    k = [i for i, s in enumerate(lines) if s.strip().startswith("K = [[")]
    assert len(h) == 1 and len(k) == 1 and k[0] > h[0] + 1         # one matrix row per line
    assert "Mukharlyamov (H, K below)" in proc.stdout


def test_bad_parameter_value_names_the_parameter():
    import mechdae as md
    sys_ = md.load(str(MODELS / "pendulum.py")).compile()
    with pytest.raises(ValueError, match=r"params: value of 'L' for model 'pendulum' is 'abc'"):
        sys_.simulate(1.0, params={"L": "abc"})
    with pytest.raises(ValueError, match=r"q0: value of 'x'"):
        sys_.simulate(1.0, q0={"x": "abc"})
