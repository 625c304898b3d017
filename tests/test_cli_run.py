"""``mechdae run MODEL.py`` prints a summary and writes a PNG."""
import subprocess
import sys

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
