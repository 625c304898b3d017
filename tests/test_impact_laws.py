"""Issue 13: multiple-impact laws of the event method (mechdae/simulate/event/laws.py).

Closed forms (equal masses m = 1, ball 1 striking with v0 = 1):

- three-ball Newton's cradle, simultaneous Newton law: ``P_12 = 2 (1 + e) / 3``,
  ``P_23 = (1 + e) / 3``, ``v = (1 - 2 (1 + e) / 3, (1 + e) / 3, (1 + e) / 3)``;
- the same, sequential law: binary impacts 1-2, 2-3, 1-2 (``e < 1``; for ``e = 1`` the
  third does not happen), each ``v_i' = ((1 - e) v_i + (1 + e) v_j) / 2``; ``e = 1``:
  ``(0, 0, 1)``; ``e = 0``: the plastic limit ``(1/3, 1/3, 1/3)`` of infinitely many;
- a disc striking two discs at rest whose centers lie at +-60 degrees from its velocity:
  simultaneous ``P = (1 + e) cos(60) / (2 + cos(120)) = (1 + e) / 3`` at each contact;
  sequential (e = 1) ``P_1 = 1/2``, then ``P_2 = (cos 60 + P_1 / 2) = 3/4``.
"""
import math
from types import SimpleNamespace

import numpy as np
import pytest

import mechdae as md
from mechdae.simulate.event.laws import sequential_impact, units, contact_laws_option
from conftest import REPO


@pytest.fixture(scope="module")
def cradle():
    return md.load(str(REPO / "models/newtons_cradle.py")).compile(stabilization=None)


def _run_cradle(cradle, e, law):
    res = cradle.simulate(0.3, q0={"x1": -0.1, "x2": 0.1, "x3": 0.2}, v0={"x1": 1.0},
                          params={"e": e}, method="event", impact_law=law)
    return res, [ev for ev in res.events if ev.kind == "impact"]


def _binary(a, b, e):
    return ((1 - e) * a + (1 + e) * b) / 2, ((1 + e) * a + (1 - e) * b) / 2


@pytest.mark.parametrize("e", [1.0, 0.8, 0.5])
def test_cradle_simultaneous_law_closed_form(cradle, e):
    res, imp = _run_cradle(cradle, e, "simultaneous")
    np.testing.assert_allclose(res.v[-1], [1 - 2 * (1 + e) / 3, (1 + e) / 3, (1 + e) / 3],
                               atol=1e-12)
    assert [ev.contact for ev in imp] == ["c12", "c23"]
    np.testing.assert_allclose([ev.impulse[0] for ev in imp], [2 * (1 + e) / 3, (1 + e) / 3],
                               rtol=1e-12)
    # the energy jump split per contact (issue 13 (5)): c12 loses P (v- + v+) / 2 =
    # -(1 + e)(1 - e) / 3, c23 (v- = v+ = 0) nothing; the ledger books it once
    dT = -(1 + e) * (1 - e) / 3
    assert imp[0].energy_after - imp[0].energy_before == pytest.approx(dT, abs=1e-13)
    assert imp[1].energy_after == imp[1].energy_before == imp[0].energy_after
    assert res.energy_balance()["impacts"] == pytest.approx(dT, abs=1e-13)
    assert 0.5 * np.sum(res.v[-1] ** 2) - 0.5 == pytest.approx(dT, abs=1e-13)


@pytest.mark.parametrize("e", [1.0, 0.8, 0.5])
def test_cradle_sequential_law_closed_form(cradle, e):
    res, imp = _run_cradle(cradle, e, "sequential")
    v1, v2 = _binary(1.0, 0.0, e)
    v2b, v3 = _binary(v2, 0.0, e)
    expect, contacts = [v1, v2b, v3], ["c12", "c23"]
    if e < 1:
        expect[0], expect[1] = _binary(v1, v2b, e)
        contacts.append("c12")
    np.testing.assert_allclose(res.v[-1], expect, atol=1e-12)
    if e == 1.0:
        np.testing.assert_allclose(res.v[-1], [0.0, 0.0, 1.0], atol=1e-12)
    if e == 0.5:
        np.testing.assert_allclose(res.v[-1], [13 / 64, 15 / 64, 9 / 16], atol=1e-12)
    assert [ev.contact for ev in imp] == contacts
    assert [ev.extra["step"] for ev in imp] == list(range(len(contacts)))
    assert imp[0].impulse[0] == pytest.approx((1 + e) / 2, rel=1e-12)
    # each record: the energies before and after its own binary impact (chained)
    T = [0.5]
    for ev in imp:
        vm, vp = ev.extra["v_minus"][0], ev.extra["v_plus"][0]
        assert vp == pytest.approx(-e * vm, abs=1e-12)
        T.append(T[-1] - 0.25 * (1 - e ** 2) * vm ** 2)    # binary loss, m_eff = 1/2
    np.testing.assert_allclose([ev.energy_before for ev in imp], T[:-1], rtol=1e-12)
    np.testing.assert_allclose([ev.energy_after for ev in imp], T[1:], rtol=1e-12)
    assert res.v[-1].sum() == pytest.approx(1.0, rel=1e-13)       # momentum
    assert res.energy_balance()["impacts"] == pytest.approx(T[-1] - 0.5, abs=1e-13)


def test_sequential_plastic_cradle_tends_to_the_plastic_limit():
    """e = 0: infinitely many binary impacts, converging geometrically to (1/3, 1/3, 1/3);
    the sequence stops at the velocity tolerance."""
    D = np.array([[2.0, -1.0], [-1.0, 2.0]])
    Wt = np.array([[-1.0, 0.0], [1.0, -1.0], [0.0, 1.0]])          # u+ = u- + W^T P

    def solve_unit(Du, vu, en, et, mu, unit):        # one frictionless contact: Newton
        return SimpleNamespace(P=np.array([-(1 + en[0]) * vu[0] / Du[0, 0]])), None

    P, v, steps = sequential_impact(D, np.array([-1.0, 0.0]), np.zeros(2), np.zeros(2),
                                    np.zeros(2), 1, [[0], [1]], 1e-10, solve_unit)
    u = np.array([1.0, 0.0, 0.0]) + Wt @ P
    np.testing.assert_allclose(u, [1 / 3] * 3, atol=1e-9)
    assert 20 < len(steps) < 200
    assert [s["unit"] for s in steps[:4]] == [[0], [1], [0], [1]]


def test_units_group_the_simultaneous_contacts():
    laws = contact_laws_option({"b": "sequential", "d": "sequential"}, ["a", "b", "c", "d"])
    assert laws == ["simultaneous", "sequential", "simultaneous", "sequential"]
    assert units([0, 1, 2, 3], laws) == [[0, 2], [1], [3]]
    assert units([1, 3], laws) == [[0], [1]]


def _three_discs(e):
    m = md.Model("three_discs")
    xa, ya, xb, yb, xc, yc = m.coordinates("xa ya xb yb xc yc")
    m.kinetic_energy(0.5 * sum(md.der(s) ** 2 for s in (xa, ya, xb, yb, xc, yc)))
    r = 0.05
    m.contact("AB", gap=md.sqrt((xb - xa) ** 2 + (yb - ya) ** 2) - 2 * r, restitution=e)
    m.contact("AC", gap=md.sqrt((xc - xa) ** 2 + (yc - ya) ** 2) - 2 * r, restitution=e)
    c, s = math.cos(math.pi / 3), math.sin(math.pi / 3)
    q0 = dict(xa=-0.02, ya=0.0, xb=2 * r * c, yb=2 * r * s, xc=2 * r * c, yc=-2 * r * s)
    return m.compile(stabilization=None), q0, np.array([c, s]), np.array([c, -s])


@pytest.mark.parametrize("e", [1.0, 0.5])
def test_disc_striking_two_discs_simultaneous_law(e):
    sysm, q0, n1, n2 = _three_discs(e)
    res = sysm.simulate(0.1, q0=q0, v0={"xa": 1.0}, method="event")
    P = (1 + e) / 3
    va = np.array([1.0, 0.0]) - P * (n1 + n2)
    np.testing.assert_allclose(res.v[-1], np.r_[va, P * n1, P * n2], atol=1e-9)
    imp = [ev for ev in res.events if ev.kind == "impact"]
    assert sorted(ev.contact for ev in imp) == ["AB", "AC"]
    np.testing.assert_allclose([ev.impulse[0] for ev in imp], [P, P], rtol=1e-9)


def test_disc_striking_two_discs_sequential_law():
    """Tie of the two contacts: the first in the model's order (AB) goes first."""
    sysm, q0, n1, n2 = _three_discs(1.0)
    res = sysm.simulate(0.1, q0=q0, v0={"xa": 1.0}, method="event", impact_law="sequential")
    P1, P2 = 0.5, 0.75
    va = np.array([1.0, 0.0]) - P1 * n1 - P2 * n2
    np.testing.assert_allclose(res.v[-1], np.r_[va, P1 * n1, P2 * n2], atol=1e-9)
    imp = [ev for ev in res.events if ev.kind == "impact"]
    assert [ev.contact for ev in imp] == ["AB", "AC"]
    assert 0.5 * np.sum(res.v[-1] ** 2) == pytest.approx(0.5, rel=1e-9)   # e = 1


def test_sequential_law_without_end_is_an_error():
    """A ball held between two walls with e = 1 bounces between them for ever."""
    m = md.Model("held")
    x = m.coordinates("x")
    m.kinetic_energy(0.5 * md.der(x) ** 2)
    m.contact("L", gap=x, restitution=1.0)          # a ball that just fits: both touch
    m.contact("R", gap=-x, restitution=1.0)
    sysm = m.compile(stabilization=None)
    with pytest.raises(md.SolverError, match="single impacts without an end"):
        sysm.simulate(0.1, q0={"x": 0.0}, v0={"x": 1.0}, method="event",
                      impact_law="sequential")


def test_impact_law_bad_input_is_named(cradle):
    with pytest.raises(ValueError, match="impact_law: must be one of"):
        cradle.simulate(0.1, method="event", impact_law="lzb")
    with pytest.raises(ValueError, match="no contact named 'c34'.*c12, c23"):
        cradle.simulate(0.1, method="event", impact_law={"c34": "sequential"})
    with pytest.raises(ValueError, match=r"impact_law\['c12'\]"):
        cradle.simulate(0.1, method="event", impact_law={"c12": "wave"})
