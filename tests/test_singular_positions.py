"""Issue 23 item 2: mechanisms pass their singular positions on the physical branch.

A parallelogram four-bar (models/parallel_cranks.py) and chains of them pass the
positions where the cranks lie along the ground line (``th = 0, pi``): there the
constraint Jacobian loses one rank per loop and the stabilized index-1 form, which keeps
the state on a level set of the constraint residual (a hyperbola whose arms join the
physical branch to the other one), used to leave the branch (energy off by tens of
joules, one crank stuck). Checked with compile() / simulate() defaults against the
closed form of the physical branch, the reduced one-degree-of-freedom equation
``I th'' = -A cos th`` integrated by scipy to 1e-12: the crank angles, the couplers
translating, energy conserved, the singular positions reported at the times where the
reduced solution has ``sin th = 0``, and the energy-balance warning of a run that left the
physics (the crossing treatment switched off).
"""
import math
import time
import warnings

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import mechdae as md
from mechdae.errors import EnergyBalanceWarning
from conftest import model_module

pc = model_module("parallel_cranks")


def reduced(n_loops, t, th0=0.3, w0=8.0):
    """The physical branch: ``th(t)`` at ``t`` and the times of ``sin th = 0``."""
    def crossing(_, y):
        return math.sin(y[0])
    sol = solve_ivp(pc.reduced_rhs(n_loops), (t[0], t[-1]), [th0, w0], t_eval=t,
                    events=crossing, method="DOP853", rtol=1e-12, atol=1e-12)
    return sol.y[0], sol.t_events[0]


def run(n_loops, t_final, **kw):
    system = pc.build(n_loops).compile()
    q0, v0 = pc.branch_state(n_loops, 0.3, 8.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", EnergyBalanceWarning)
        return system.simulate(t_final, q0=q0, v0=v0, **kw)


def check_branch(res, n_loops, tol_th):
    th, t_sing = reduced(n_loops, res.t)
    for i in range(n_loops + 1):
        np.testing.assert_allclose(res[f"th{i}"], th, rtol=0, atol=tol_th)
    for i in range(n_loops):
        assert np.abs(res[f"p{i}"]).max() < 1e-9          # the couplers translate
    # energy conserved to the integration tolerance (rtol = 1e-8)
    assert np.ptp(res.energy) < 1e-6 * res.energy[0]
    return t_sing


def test_parallelogram_four_bar_passes_its_singular_positions_on_the_branch():
    res = run(1, 5.0)
    t_sing = check_branch(res, 1, 2e-5)
    # th = 0, pi each turn: 13 singular positions, found where they happen (between
    # output points, not at them), rank 3 of 4, the x-rows of the two pins dependent
    st = res.stats
    assert len(t_sing) == 13
    np.testing.assert_allclose(st["singular_positions"], t_sing, rtol=0, atol=1e-5)
    assert st["rank_drops"] == 13 and st["min_constraint_rank"] == 3
    drops = [e for e in res.events if e.kind == "rank_drop"]
    np.testing.assert_allclose([e.t for e in drops], t_sing, rtol=0, atol=1e-5)
    assert {(e.extra["rank"], e.extra["rows"]) for e in drops} == {(3, 4)}
    rc = res.redundant_constraints
    assert len(rc) == 13
    np.testing.assert_allclose([r.t_start for r in rc], t_sing, rtol=0, atol=1e-5)
    assert all(r.dependent == ("pins[0]", "pins[2]") and r.rank == 3 for r in rc)


def test_chain_of_three_parallelograms_stays_on_the_branch():
    res = run(3, 3.0)
    t_sing = check_branch(res, 3, 2e-5)
    np.testing.assert_allclose(res.stats["singular_positions"], t_sing, rtol=0, atol=1e-5)
    # the three loops are singular at once: rank 9 of 12
    assert {e.extra["rank"] for e in res.events if e.kind == "rank_drop"} == {9}


def test_planar_components_parallelogram_keeps_its_coupler_level():
    """The same four-bar from planar components (joint coordinates, a cut joint)."""
    from mechdae.components import planar as pl
    m = md.Model("fourbar")
    world = m.add(pl.World("world"))
    parts = [pl.Revolute("j1", phi0=math.pi / 2), pl.BodyShape("crank", r=(1.0, 0.0)),
             pl.Revolute("j2", phi0=-math.pi / 2),
             pl.BodyShape("coupler", r=(2.0, 0.0), r_cm=(1.0, 0.0)),
             pl.Revolute("j3", phi0=-math.pi / 2), pl.BodyShape("rocker", r=(1.0, 0.0)),
             pl.Revolute("j4"), pl.Fixed("ground", r=(2.0, 0.0))]
    prev = world.frame
    for p in parts:
        m.add(p)
        m.connect(prev, p.frame_a if hasattr(p, "frame_a") else p.frame)
        prev = getattr(p, "frame_b", None)
    with warnings.catch_warnings():
        warnings.simplefilter("error", EnergyBalanceWarning)
        res = m.compile().simulate(4.0, v0={"j1.w": 8.0, "j2.w": -8.0, "j3.w": 8.0})
    # on the parallelogram branch the coupler's absolute angle j1.phi + j2.phi stays
    # constant and the rocker turns with the crank (was: 2.1 rad and 71 J off)
    assert np.ptp(res["j1.phi"] + res["j2.phi"]) < 1e-8
    # energy to the integration tolerance: cvodes' own drift at rtol = 1e-8 in joint
    # coordinates (1.1e-6 relative over 4 s, 0.02 % of it at the singular positions)
    assert np.ptp(res.energy) < 1e-5 * res.energy[0]
    assert res["j1.phi"][-1] - res["j1.phi"][0] > 6 * math.pi
    assert len(res.stats["singular_positions"]) >= 10


def test_energy_balance_break_is_warned_with_its_time(monkeypatch):
    """A run that leaves the physics: the crossing treatment switched off (the solver
    before issue 23), the branch is lost at a singular position and the energy jumps."""
    from mechdae.simulate import singular

    def one_call(system, specs, ts, X, x0, *args):
        integrate_grid = args[-1]        # cvodes over the whole grid, nothing checked
        return np.hstack([x0[:, None], integrate_grid(x0, ts[0], ts[1:])]), []
    monkeypatch.setattr(singular, "pass_singular_positions", one_call)
    system = pc.build(1).compile()
    q0, v0 = pc.branch_state(1, 0.3, 8.0)
    with pytest.warns(EnergyBalanceWarning, match=r"moved by .* J by t = ") as rec:
        res = system.simulate(5.0, q0=q0, v0=v0)
    t_break = res.stats["energy_balance_break"]
    # the break is at one of the singular positions (within an output step after it)
    _, t_sing = reduced(1, res.t)
    assert np.min(np.abs(t_sing - t_break)) <= res.t[1] - res.t[0] + 1e-12
    assert f"t = {t_break:.6g} s" in str(rec[0].message)


def test_no_warning_for_a_conservative_run_or_a_damped_one():
    """No false alarm: the pendulum (conservative) and a damped oscillator, whose energy
    falls by design (forces: not watched)."""
    from mechdae.simulate.ledger import conservative
    pend = model_module("pendulum")
    sim = pend.SIMULATION
    m = md.Model("damped")
    x = m.coordinates("x")
    m.kinetic_energy(0.5 * md.der(x) ** 2)
    m.potential_energy(0.5 * x ** 2)
    m.generalized_force(-0.5 * md.der(x), x)
    damped = m.compile()
    with warnings.catch_warnings():
        warnings.simplefilter("error", EnergyBalanceWarning)
        pend.build().compile().simulate(10.0, q0=sim["q0"])
        res = damped.simulate(10.0, q0={"x": 1.0})
    assert res.energy[-1] < 0.1 * res.energy[0]
    assert conservative(pc.build(1).compile()) == []
    assert conservative(damped) == ["forces"]


@pytest.mark.slow
def test_forty_loop_chain_passes_its_singular_positions():
    t0 = time.perf_counter()
    res = run(40, 1.0)
    wall = time.perf_counter() - t0
    t_sing = check_branch(res, 40, 2e-5)
    np.testing.assert_allclose(res.stats["singular_positions"], t_sing, rtol=0, atol=1e-5)
    print(f"40-loop chain, 1 s: {wall:.1f} s wall")
