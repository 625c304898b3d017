"""Issue 13: singular constraint sets in the event method's mode solve (seed 004).

The Darboux mechanism (models/darboux.py: 10 coordinates, 9 constraints whose rank drops
to 8 at the square h = 0) with a contact on the vertex H. The event method's phases solve
the multipliers with the iterated Tikhonov solve of the smooth path
(mechdae.symbolic.linalg): H passes the branch point on its straight line, h(t) the odd
solution of the reduced equation (5), as method="cvodes" does (the former solve, one LDL
of S + 1e-13 I, stalled cvodes there: CV_TOO_MUCH_WORK at t = 0.49999).
"""
import numpy as np
import pytest
from scipy.optimize import brentq

import mechdae as md
from conftest import model_module
from test_darboux import ref_reduced


@pytest.fixture(scope="module")
def darboux():
    return model_module("darboux")


@pytest.fixture(scope="module")
def reduced():
    return ref_reduced((0.0, 1.0), 0.0, 1.0)


def _with_stop(darboux, gap_of_h, e=1.0):
    m = darboux.build()
    yH = next(c["sym"] for c in m.coords if c["name"] == "yH")
    m.contact("stop", gap=gap_of_h(yH), restitution=e)
    return m.compile(stabilization=md.Baumgarte(alpha=10.0, beta=10.0))


def _start(darboux, reduced, tc=0.5):
    h1, hd1 = reduced.sol(tc)
    return darboux.vertices(-h1), darboux.vertex_velocities(-h1, hd1)


def test_event_method_passes_the_branch_point_as_cvodes(darboux, reduced):
    """A contact far below (open throughout): h crosses 0 at t = 0.5 on the line."""
    sysm = _with_stop(darboux, lambda h: h + 10.0)
    q0, v0 = _start(darboux, reduced)
    T = np.linspace(0.0, 1.0, 21)
    res = sysm.simulate(1.0, q0=q0, v0=v0, output_times=T, method="event", rtol=1e-10,
                        atol=1e-12)
    h_ref = np.sign(T - 0.5) * reduced.sol(np.abs(T - 0.5))[0]
    assert np.abs(res["yH"] - h_ref).max() < 1e-7                  # measured 1.4e-8
    assert np.abs(res["xH"]).max() < 1e-7
    assert np.abs(0.5 * np.sum(res.v ** 2, axis=1) - 2.5).max() < 1e-7   # T = a(0) = 5/2
    assert set(res.modes) == {"o"} and not res.events


def test_stop_above_the_branch_point_reflects_h_through_it_twice(darboux, reduced):
    """A stop at h = 0.3 with e = 1: the impact comes when the reduced solution reaches
    0.3, the motion after it is the mirror image in time, back through h = 0."""
    sysm = _with_stop(darboux, lambda h: 0.3 - h)
    q0, v0 = _start(darboux, reduced)
    t_hit = 0.5 + brentq(lambda t: reduced.sol(t)[0] - 0.3, 0.0, 1.0)
    T = np.linspace(0.0, 1.2, 25)
    res = sysm.simulate(1.2, q0=q0, v0=v0, output_times=T, method="event", rtol=1e-11,
                        atol=1e-14)
    imp = [e for e in res.events if e.kind == "impact"]
    assert len(imp) == 1 and imp[0].t == pytest.approx(t_hit, abs=1e-8)
    # e = 1: energy kept up to the constraints' velocity drift C u (measured 2.3e-9)
    assert imp[0].energy_after == pytest.approx(imp[0].energy_before, rel=1e-8)
    tm = np.where(res.t > t_hit, 2 * t_hit - res.t, res.t)
    h_ref = np.sign(tm - 0.5) * reduced.sol(np.abs(tm - 0.5))[0]
    assert 2 * t_hit - 0.5 < 1.2                                   # crossed again
    assert np.abs(res["yH"] - h_ref).max() < 1e-6                  # measured 7.6e-8
    assert np.abs(0.5 * np.sum(res.v ** 2, axis=1) - 2.5).max() < 2e-6   # 4.7e-7
