"""Rocking block (Siconos RockingBlock parameters, e = 0.5, mu = 0.5) carried to rest by
method="auto": since issue 23 (5) the event engine throughout, as method="event" (each
corner's accumulation resolved, the alternating left/right series snapped to rest; before,
auto time-stepped across the accumulations and the angle history differed from "event");
the former hand-over survives as the opt-in ``zeno_to_timestepping=True``. At rest the block is flat on both corners: ``th = 0``,
``y = h/2``, ``E = m g h/2``, normal forces ``m g / 2`` each (symmetry)."""
import numpy as np
import pytest

import mechdae as md

REPO = __import__("pathlib").Path(__file__).resolve().parents[1]
L_W, H_B, M, G = 1.0, 1.5, 1.0, 9.81
I_C = M * (H_B ** 2 + L_W ** 2) / 12


@pytest.fixture(scope="module")
def rest_run():
    sys_ = md.load(str(REPO / "models/rocking_block.py")).compile(stabilization=None)
    return sys_.simulate(3.0, q0={"x": 0.0, "y": 1.0, "th": 0.2}, method="auto", dt=1e-4)


def test_auto_carries_the_rocking_block_to_rest(rest_run):
    res = rest_run
    assert res.stats["method"] == "auto"
    assert res.stats["methods_used"] == ["event"]               # event-driven throughout
    assert not [e for e in res.events if e.kind == "switch"]
    assert res.modes[-1] == "kk"                                # both corners sticking
    assert abs(res["th"][-1]) < 1e-10
    assert res["y"][-1] == pytest.approx(H_B / 2, abs=1e-10)
    E = res.energy
    assert E[0] == pytest.approx(M * G * 1.0)
    assert E[-1] == pytest.approx(M * G * H_B / 2, abs=1e-9)
    # energy never increases (projections onto the ground move the block by < gap_tol)
    assert np.max(np.diff(E)) <= 1e-8 * E[0]
    T = 0.5 * M * (res.v[:, 0] ** 2 + res.v[:, 1] ** 2) + 0.5 * I_C * res.v[:, 2] ** 2
    assert T[-1] < 1e-20
    lam = res.contact_forces
    assert lam["L"][-1, 0] + lam["R"][-1, 0] == pytest.approx(M * G, rel=1e-9)
    assert lam["L"][-1, 0] == pytest.approx(M * G / 2, rel=1e-6)
    assert abs(lam["L"][-1, 1] + lam["R"][-1, 1]) < 1e-9         # no net friction at rest


def test_event_impacts_lose_energy(rest_run):
    imp = [e for e in rest_run.events if e.kind == "impact"]
    assert len(imp) >= 4 and {e.contact for e in imp} == {"L", "R"}
    assert all(e.energy_after < e.energy_before for e in imp)
    Eb = [e.energy_before for e in imp]
    assert all(b <= a + 1e-9 for a, b in zip(Eb, Eb[1:]))
    # first impact: free fall until the lower (left) corner lands,
    # y_L = 1 - (l/2) sin 0.2 - (h/2) cos 0.2 = g t^2 / 2
    y_L = 1.0 - 0.5 * L_W * np.sin(0.2) - 0.5 * H_B * np.cos(0.2)
    assert imp[0].contact == "L"
    assert imp[0].t == pytest.approx(np.sqrt(2 * y_L / G), abs=1e-8)


@pytest.fixture(scope="module")
def event_run():
    sys_ = md.load(str(REPO / "models/rocking_block.py")).compile(stabilization=None)
    return sys_.simulate(3.0, q0={"x": 0.0, "y": 1.0, "th": 0.2}, method="event",
                         max_events=2000)


def test_event_alone_snaps_the_rocking_block_to_rest(event_run):
    """Without time stepping: once impacts repeat with pre-impact speeds below the velocity
    resolution 2 sqrt(2 g gap_tol) (~9e-4 m/s) — the left/right limit cycle between the gap
    threshold and the contact stabilization — a plastic impact closes both corners."""
    res = event_run
    assert res.stats["method"] == "event" and len(res.events) < 2000     # measured 110
    rest = [e for e in res.events if e.kind == "accumulation" and e.extra.get("reason") == "rest"]
    assert rest and set(rest[-1].extra["set"]) == {"L", "R"}
    t_rest = rest[-1].t
    assert 1.0 < t_rest < 2.0                                          # measured 1.376
    assert res.modes[-1] == "kk"
    assert abs(res["th"][-1]) < 1e-12
    assert res["y"][-1] == pytest.approx(H_B / 2, abs=1e-12)
    T = 0.5 * M * (res.v[:, 0] ** 2 + res.v[:, 1] ** 2) + 0.5 * I_C * res.v[:, 2] ** 2
    assert T[-1] < 1e-24
    E = res.energy
    assert E[-1] == pytest.approx(M * G * H_B / 2, abs=1e-12)
    # energy never increases (projections onto the ground move the block by < gap_tol)
    assert np.max(np.diff(E)) <= 1e-8 * E[0]
    after = res.t > t_rest
    lam = res.contact_forces
    assert np.allclose(lam["L"][after, 0], M * G / 2, rtol=1e-9)
    assert np.allclose(lam["R"][after, 0], M * G / 2, rtol=1e-9)
    # the snap came after two impact instants with speeds below the resolution
    times = sorted({e.t for e in res.events if e.kind == "impact" and e.t <= t_rest})[-2:]
    snap_imp = [e for e in res.events if e.kind == "impact" and e.t in times]
    assert all(abs(e.extra["v_minus"][0]) < 9e-4 for e in snap_imp)


def test_auto_is_event_on_the_rocking_block(rest_run, event_run):
    """The default method agrees with method="event" (the same engine, the same events):
    the angle history and every event time."""
    a, e = rest_run, event_run
    assert [(ev.t, ev.kind, ev.contact) for ev in a.events] == \
        [(ev.t, ev.kind, ev.contact) for ev in e.events]
    np.testing.assert_allclose(a["th"], e["th"], rtol=0, atol=1e-12)


def test_opt_in_time_stepping_still_carries_the_block_to_rest():
    """zeno_to_timestepping=True (the former default): time stepping across each
    accumulation, back to the event driver once both corners are closed."""
    sys_ = md.load(str(REPO / "models/rocking_block.py")).compile(stabilization=None)
    res = sys_.simulate(3.0, q0={"x": 0.0, "y": 1.0, "th": 0.2}, method="auto", dt=1e-4,
                        zeno_to_timestepping=True)
    sw = [e for e in res.events if e.kind == "switch"]
    assert sw[0].extra["to"] == "timestepping" and sw[-1].extra["to"] == "event"
    assert sw[0].extra["reason"] == "accumulation"
    assert sw[-1].extra["error_bound"].startswith("O(dt)")
    assert res.stats["methods_used"] == ["event", "timestepping"]
    assert res.modes[-1] == "kk" and abs(res["th"][-1]) < 1e-10
    # energy never increases (up to the O(dt^2) error of the trapezoidal steps and the
    # O(dt) penetration removed at the switch back: measured 2e-7 J)
    E = res.energy
    assert np.max(np.diff(E)) <= 1e-7 * E[0]
    assert E[-1] == pytest.approx(M * G * H_B / 2, abs=1e-9)
