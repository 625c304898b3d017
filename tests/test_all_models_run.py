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


def test_auto_steps_a_ten_contact_column_with_moreau_jean():
    """Ten contacts stay event-driven (issue 13: the contact-force problem past the
    enumeration goes to Lemke): "auto" with the opt-in ``chatter_events=20`` (the former
    default; issue 23 made the default the event engine throughout) time-steps the
    column's accumulation of impacts with Moreau-Jean, then hands the settled stack back
    to the event driver, which holds it exactly on the ground."""
    mod = model_module("column_of_beads")
    system = mod.build(n=10, e=0.5).compile(stabilization=None)
    res = system.simulate(3.0, q0=mod.initial_heights(10, 0.1, 0.05), chatter_events=20)
    sw = [e for e in res.events if e.kind == "switch"]
    assert [e.extra["to"] for e in sw] == ["timestepping", "event"]
    ys = np.array([res[f"y{i}"] for i in range(10)])
    gaps = np.vstack([ys[0] - 0.1, np.diff(ys, axis=0) - 0.2])
    assert res.stats["timestepping_dt"] == pytest.approx(1e-3, rel=1e-9)   # hybrid.DT_DEFAULT
    dt = res.stats["timestepping_dt"]
    v_max = np.abs(res.v).max()
    # Moreau-Jean closes a contact at the velocity level: the positions may overlap by the
    # approach of one step (v_max dt), never more; independent of t_final
    assert gaps.min() > -v_max * dt
    assert np.abs(res.v[-1]).max() < 1e-12            # at rest, event-driven
    # the overlaps are projected out at the switch back (booked as "projection")
    np.testing.assert_allclose(ys[:, -1], 0.1 + 0.2 * np.arange(10), rtol=0, atol=1e-12)
    assert res.modes[-1] == "n" * 10
    assert abs(res.energy_balance()["integration"]) < 1e-9 * res.energy[0]


# model files that mention contacts (the test skips one that declares none)
CONTACT_MODELS = [n for n in MODELS if "contact" in (REPO / "models" / f"{n}.py").read_text()
                  .lower()]


@pytest.mark.parametrize("name", CONTACT_MODELS)
def test_no_gap_violated_beyond_its_tolerance(name):
    """Every contact of every shipped model's default run keeps g >= -tol: the event
    engine's gap tolerance (1e-8), plus, where Moreau-Jean steps (time stepping, the
    stretches of "auto"), the approach of one step v_max dt (velocity-level contacts)."""
    mod = model_module(name)
    sim = dict(getattr(mod, "SIMULATION", {}))
    system = mod.build().compile(stabilization=sim.pop("stabilization", "default"))
    if not system.contact_names:
        pytest.skip(f"{name}: no contacts")
    sim.pop("plot", None)
    t_final = sim.pop("t_final")
    res = system.simulate(t_final, q0=sim.pop("q0", None), v0=sim.pop("v0", None),
                          params=sim.pop("params", None), method=sim.pop("method", "auto"),
                          progress=False, **sim)
    N = res.t.size
    G = np.array(system.functions["gap"].map(N)(res.q.T, res.t[None, :],
                                                np.asarray(res.params).reshape(-1, 1)))
    dt = res.stats.get("dt") or res.stats.get("timestepping_dt") or 0.0
    tol = 1e-8 + np.abs(res.v).max() * dt
    worst = int(np.argmin(G.min(axis=1)))
    assert G.min() >= -tol, (f"{name}: contact {system.contact_names[worst]} gap "
                             f"{G.min():.3g} < -{tol:.3g}")
