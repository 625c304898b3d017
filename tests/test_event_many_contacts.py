"""Issue 13: more than 8 contacts stay event-driven — the contact-force problem of a large
set goes to Lemke's method (planar friction, sliding friction folded into the normal
columns) or to the friction-contact NSGS kernel (spatial sticking contacts).

Column of n beads (models/column_of_beads.py) released from rest with gaps ``s``: every
bead falls freely until it lands on the stack below, so bead k lands at
``t_k = sqrt(2 (k + 1) s / g)``, with speed ``g t_k``; with e = 0 the landing is plastic
and its impulse ``m g t_k`` passes through every contact below. At rest contact ``c_i``
carries the weight of the beads above it, ``(n - i) m g``.
"""
import sys

import numpy as np
import pytest

import mechdae as md
from mechdae.contact.kernels import contact_forces
from mechdae.simulate.event.forces import solve_contact_forces, _complementarity
from conftest import REPO

G, R, N, GAP = 9.81, 0.1, 10, 0.01
sys.path.insert(0, str(REPO / "models"))
import column_of_beads as cb  # noqa: E402


def _problem(rng, k, dim, slide_prob):
    A = rng.normal(size=(k * dim, 2 * k * dim))
    D = A @ A.T / A.shape[1] + 0.1 * np.eye(k * dim)
    b = rng.normal(size=k * dim)
    mu = rng.uniform(0.0, 0.6, size=k)
    vt = np.where(rng.uniform(size=(k, 1)) < slide_prob, rng.normal(size=(k, dim - 1)), 0.0)
    return D, b, mu, vt


@pytest.mark.parametrize("dim,sizes", [(2, (5, 6, 7)), (3, (2, 3, 4))])
def test_complementarity_solution_is_one_of_the_enumerated(dim, sizes):
    """Lemke (planar) and NSGS (spatial) give a solution the exact enumeration lists, with
    its modes; a planar set the enumeration finds inconsistent has no Lemke solution."""
    rng = np.random.default_rng(7 + dim)
    checked = 0
    for _ in range(60):
        k = int(rng.choice(sizes))
        D, b, mu, vt = _problem(rng, k, dim, 0.35)
        en = contact_forces(D, b, vt, mu, dim=dim)
        got = _complementarity(D, b, vt, mu, [dim - 1] * k, dim, 1e-12, 1e-9)
        if en.status == "inconsistent":
            if dim == 2:
                assert got.status == "inconsistent"
            continue
        s = got.solutions[0]
        assert got.status == "solved"
        assert any(np.allclose(e.lam, s.lam, atol=1e-6) and e.modes == s.modes
                   for e in en.solutions)
        np.testing.assert_allclose(s.acc, D @ s.lam + b, atol=1e-12)
        checked += 1
    assert checked >= 50


def test_small_sets_are_enumerated_and_large_ones_solved():
    rng = np.random.default_rng(3)
    D, b, mu, vt = _problem(rng, 4, 2, 0.5)
    assert solve_contact_forces(D, b, vt, mu, [1] * 4, 2).status in ("unique", "indeterminate")
    D, b, mu, vt = _problem(rng, 12, 2, 0.0)
    out = solve_contact_forces(D, b, vt, 0 * mu, [1] * 12, 2)
    lam, acc = out.solutions[0].lam, out.solutions[0].acc
    assert out.status == "solved"
    assert np.all(lam[0::2] >= 0) and np.all(acc[0::2] >= -1e-12)
    assert abs(lam[0::2] @ acc[0::2]) < 1e-10 and np.all(lam[1::2] == 0)


def test_infinite_friction_beyond_the_enumeration_is_refused_by_name():
    rng = np.random.default_rng(4)
    D, b, mu, vt = _problem(rng, 6, 2, 0.0)
    mu[2] = np.inf
    with pytest.raises(md.SolverError, match="mu = inf"):
        solve_contact_forces(D, b, vt, mu, [1] * 6, 2)


@pytest.fixture(scope="module")
def plastic_column():
    sysm = md.load(str(REPO / "models/column_of_beads.py"), e=0.0).compile(stabilization=None)
    return sysm.simulate(0.5, q0=cb.initial_heights(N, R, GAP), method="event")


def test_ten_bead_column_lands_bead_by_bead_at_closed_form_times(plastic_column):
    res = plastic_column
    assert res.stats["method"] == "event"
    imp = [e for e in res.events if e.kind == "impact"]
    tk = np.sqrt(2 * np.arange(1, N + 1) * GAP / G)
    # landing k: one impact record per contact c0..ck, all at t_k with impulse m g t_k
    assert len(imp) == N * (N + 1) // 2
    j = 0
    for k in range(N):
        for i in range(k + 1):
            e = imp[j]
            assert e.contact == f"c{i}"
            assert e.t == pytest.approx(tk[k], abs=1e-9)
            assert e.impulse[0] == pytest.approx(G * tk[k], rel=1e-7)
            j += 1


def test_ten_bead_column_rests_with_the_weight_above_each_contact(plastic_column):
    res = plastic_column
    assert res.modes[-1] == "n" * N
    gaps = np.r_[res["y0"][-1] - R, [res[f"y{i + 1}"][-1] - res[f"y{i}"][-1] - 2 * R
                                      for i in range(N - 1)]]
    assert np.max(np.abs(gaps)) < 1e-12
    for i in range(N):
        assert res.contact_forces[f"c{i}"][-1, 0] == pytest.approx((N - i) * G, rel=1e-9)


def test_auto_is_event_on_the_bouncing_column():
    """The bouncing column (e = 0.9): the event engine resolves its 3,757 events (every
    accumulation and rest snap) in well under a second, so the default "auto" is the event
    engine throughout (issue 23: it used to time-step the chatter) and agrees with it."""
    sysm = md.load(str(REPO / "models/column_of_beads.py")).compile()
    au = sysm.simulate(2.0, q0=cb.SIMULATION["q0"])
    ev = sysm.simulate(2.0, q0=cb.SIMULATION["q0"], method="event")
    assert au.stats["methods_used"] == ["event"]
    assert [(e.t, e.kind, e.contact) for e in au.events] == \
        [(e.t, e.kind, e.contact) for e in ev.events]
    np.testing.assert_allclose(au.q, ev.q, rtol=0, atol=1e-12)
    assert au.modes[-1] == "n" * N


def test_auto_hands_the_settled_column_back_to_the_event_driver():
    """The bouncing column (e = 0.9) chatters: with the opt-in ``chatter_events=20`` auto
    time-steps it in stretches and, once every contact is stably closed, returns to
    event-driven with all 10 contacts closed (before issue 13 it time-stepped the whole
    run: more than 8 contacts)."""
    sysm = md.load(str(REPO / "models/column_of_beads.py")).compile()
    res = sysm.simulate(2.0, q0=cb.SIMULATION["q0"], method="auto", chatter_events=20)
    sw = [e for e in res.events if e.kind == "switch"]
    assert [e.extra["to"] for e in sw] == ["timestepping", "event"]
    assert sw[0].extra["reason"] == "chatter"
    assert sw[1].t < 1.5
    assert res.modes[-1] == "n" * N
    for i in range(N):
        assert res.contact_forces[f"c{i}"][-1, 0] == pytest.approx((N - i) * G, rel=1e-9)


def test_each_landing_books_its_loss_once_on_the_contact_that_closes(plastic_column):
    """Issue 13 (5): the records of one impact split its energy jump — each contact the
    work of its own impulse, ``P_i w_i (u^- + u^+) / 2`` — so a ledger summing them books
    the impact once. Landing k: the closing contact c_k loses ``m g (k + 1) s`` (the
    bead's fall), the resting contacts below transmit the impulse without work."""
    res = plastic_column
    imp = [e for e in res.events if e.kind == "impact"]
    j = 0
    for k in range(N):
        E0 = imp[j].energy_before
        for i in range(k + 1):
            e = imp[j]
            jump = e.energy_after - e.energy_before
            expect = -G * (k + 1) * GAP if i == k else 0.0
            assert jump == pytest.approx(expect, abs=1e-9)
            assert e.extra["energy_impact"][0] == E0
            j += 1
        assert imp[j - 1].energy_after == imp[j - 1].extra["energy_impact"][1]
    led = res.energy_balance()
    assert led["impacts"] == pytest.approx(-G * GAP * N * (N + 1) / 2, rel=1e-9)
    assert abs(led["integration"]) < 1e-8 * led["initial"]
