"""Every model file runs with its own SIMULATION defaults (what `mechdae run` does) and keeps
its constraints: finite states, drift below 1e-5, and no energy created at events."""
import numpy as np
import pytest

from conftest import REPO, model_module

MODELS = sorted(p.stem for p in (REPO / "models").glob("*.py"))


@pytest.mark.parametrize("name", MODELS)
def test_model_file_runs_with_its_defaults(name):
    mod = model_module(name)
    sim = dict(getattr(mod, "SIMULATION", {}))
    assert "t_final" in sim, f"models/{name}.py: SIMULATION needs t_final"
    system = mod.build().compile(stabilization=sim.pop("stabilization", "default"))
    for key in ("plot",):
        sim.pop(key, None)
    t_final = sim.pop("t_final")
    res = system.simulate(t_final, q0=sim.pop("q0", None), v0=sim.pop("v0", None),
                          params=sim.pop("params", None), method=sim.pop("method", "auto"), **sim)
    assert res.t[-1] == pytest.approx(t_final)
    assert np.all(np.isfinite(res.q)) and np.all(np.isfinite(res.v))
    assert res.max_drift() < 1e-5
    if res.events and res.energy is not None and not system.rheonomic:
        # impacts on fixed surfaces never create energy (e <= 1 in every model file)
        assert res.energy_balance()["events"] <= 1e-9 * max(1.0, abs(res.energy[0]))
