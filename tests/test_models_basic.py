"""Every basic model file builds, runs with its SIMULATION defaults, and behaves."""
import numpy as np
import pytest

import mechdae as md
from mechdae.loader import load_module
from _modeling import MODELS


@pytest.mark.parametrize("name", ["pendulum", "double_pendulum", "slider_crank", "nlink_chain"])
def test_model_file_runs_with_its_defaults(name):
    mod = load_module(MODELS / f"{name}.py")
    assert mod.__doc__ and mod.SIMULATION["t_final"] > 0
    sim = mod.SIMULATION
    s = mod.build().compile(stabilization=sim["stabilization"])
    res = s.simulate(min(sim["t_final"], 2.0), q0=sim.get("q0"), v0=sim.get("v0"),
                     rtol=1e-9, atol=1e-11)
    assert np.all(np.isfinite(res.q))
    assert res.energy_error() < 1e-6
    assert res.max_drift() < 1e-7


def test_load_passes_build_options():
    m = md.load(str(MODELS / "nlink_chain.py"), n=4)
    assert len(m.coords) == 4
