"""`mechdae sweep MODEL.py -p name=lo:hi:n ... --out results.parquet` (issue 17)."""
import numpy as np
import pandas as pd
import pytest

from conftest import REPO
from mechdae.cli import main
from mechdae.sweep._cli import parse_value


def test_sweep_command_streams_to_parquet_and_resumes(tmp_path, capsys):
    out = tmp_path / "ball.parquet"
    argv = ["sweep", str(REPO / "models" / "bouncing_ball.py"), "-p", "e=0.5:0.9:3",
            "-p", "q0.y=0.6,1.1", "-p", "mu=0.0", "--t-final", "0.6", "--method", "event",
            "-o", "first(impact)", "-o", "top=max(y)", "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "6 runs (6 run now, 0 resumed)" in text and "{'ok': 6}" in text
    df = pd.read_parquet(out).sort_values("run")
    np.testing.assert_array_equal(df["e"], [0.5, 0.5, 0.7, 0.7, 0.9, 0.9])
    # the ball's center starts at y0 = R + h0 (R = 0.1): first impact at sqrt(2 h0 / g)
    h0 = df["q0.y"].to_numpy() - 0.1
    t1 = np.sqrt(2 * h0 / 9.81)
    got = df["first(impact)"].to_numpy()
    np.testing.assert_allclose(got[t1 < 0.6], t1[t1 < 0.6], rtol=1e-8)
    assert np.isnan(got[t1 > 0.6]).all()
    np.testing.assert_allclose(df["top"], df["q0.y"], rtol=1e-12)
    assert main(argv) == 0          # again: everything is on disk already
    assert "(0 run now, 6 resumed)" in capsys.readouterr().out


def test_impact_sweep_command_maps_free_variables_through_impact_state(capsys):
    argv = ["sweep", str(REPO / "models" / "two_link_impact.py"), "--impact",
            "-p", "alpha=0.3:1.2:4", "-p", "gamma=-1.5:-0.2:3", "-p", "f=0.5", "--no-progress"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "two_link_impact: 12 runs" in text and "mode.B" in text


def test_bad_command_lines_name_the_fix(capsys):
    assert parse_value("e", "0:1:3").tolist() == [0.0, 0.5, 1.0]
    with pytest.raises(ValueError, match="expected lo:hi:n"):
        parse_value("e", "0:1")
    model = str(REPO / "models" / "bouncing_ball.py")
    assert main(["sweep", model, "-p", "alpha=0:1:3", "--no-progress"]) == 1
    assert "'alpha' is not a parameter" in capsys.readouterr().err
