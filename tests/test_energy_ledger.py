"""The energy ledger (Result.energy_balance, mechdae run's summary): impacts, friction,
constraint work and integration error booked separately. For frictionless conservative
systems the remainder is the integration error, and it is tiny."""
import math

import numpy as np
import pytest

from conftest import model_module


@pytest.fixture(scope="module")
def ball_system():
    return model_module("bouncing_ball").build().compile(stabilization=None)


@pytest.mark.parametrize("method", ["event", "auto", "timestepping"])
def test_frictionless_ball_books_impacts_and_a_tiny_integration_error(ball_system, method):
    """Dropped from h0 = 1 m (E0 = m g (R + h0) = 10.791 J), the ball ends at rest on the
    ground with E = m g R = 0.981 J: the impacts dissipated 9.81 J."""
    res = ball_system.simulate(5.0, q0={"y": 1.1}, method=method, progress=False)
    b = res.energy_balance()
    assert b["initial"] == pytest.approx(10.791, rel=1e-12)
    assert b["complete"] and b["friction"] == 0.0
    assert b["impacts"] == pytest.approx(-9.81, rel=2e-5)
    assert abs(b["integration"]) < 1e-6 * b["initial"]
    total = b["impacts"] + b["friction"] + b["constraints"] + b["forces"] \
        + b["projection"] + b["integration"]
    assert total == pytest.approx(b["final"] - b["initial"], abs=1e-12)
    assert b["label"] == "integration error"


def test_column_of_beads_time_stepping_ledger():
    mod = model_module("column_of_beads")
    sim = mod.SIMULATION
    res = mod.build().compile(stabilization=None).simulate(
        sim["t_final"], q0=sim["q0"], method="timestepping", dt=sim["dt"], progress=False)
    b = res.energy_balance()
    assert b["impacts"] < 0 and b["complete"]
    # linear gravity, trapezoidal steps, constant M: the impulse work is exact
    assert abs(b["integration"]) < 1e-6 * b["initial"]
    assert b["impacts"] + b["constraints"] == pytest.approx(b["final"] - b["initial"],
                                                            rel=1e-9)


def test_sliding_ball_friction_work_is_its_kinetic_energy():
    """A ball resting on the ground, pushed at 2 m/s with mu = 0.3, slides until it
    sticks after v0 / (mu g): friction takes m v0^2 / 2 = 2 J."""
    mod = model_module("bouncing_ball")
    sys_ = mod.build(mu=0.3).compile(stabilization=None)
    res = sys_.simulate(1.0, q0={"y": 0.1}, v0={"x": 2.0}, method="event", progress=False)
    assert any(e.kind == "stick" and e.t == pytest.approx(2.0 / (0.3 * 9.81), rel=1e-6)
               for e in res.events)
    b = res.energy_balance()
    assert b["friction"] == pytest.approx(-2.0, rel=1e-3)       # trapezoidal rule on outputs
    assert b["impacts"] == 0.0
    assert abs(b["integration"]) < 2e-3
    assert "trapezoidal" in b["label"]


def test_run_summary_prints_the_ledger(tmp_path):
    import argparse
    import io
    from mechdae.simulate._cli import run
    from conftest import REPO
    args = argparse.Namespace(model=str(REPO / "models" / "column_of_beads.py"), t_final=None,
                              plot=None, no_plot=True, param=[], method=None, out=None,
                              animate=None, progress=False)
    out = io.StringIO()
    assert run(args, out=out) == 0
    line = [s for s in out.getvalue().splitlines() if s.startswith("energy")][0]
    assert "impacts" in line and "integration error" in line and "otherwise" not in line
    err = float(line.split(",")[-1].split()[0])
    assert abs(err) < 1e-6 * 125.0775
    assert math.isfinite(err)
