"""Issue 13: the event engine's smooth phases in C (csrc/mdae_ode.c, simulate/_ode.pyx).

The Dormand-Prince pairs (8(5,3) and 5(4)) with event location, checked against closed
forms:
free flight is a polynomial of degree 2 (every step and the continuous extension exact),
the harmonic oscillator's solution and zero crossings are known, and an event function
that starts at zero (a contact that just opened) fires only on its return. Then the
engine: its C path and the cvodes path (no compiler, or ``phase_integrator="cvodes"``)
give the same impact times, and a stiff phase is handed to cvodes.
"""
import math
import types

import casadi as ca
import numpy as np
import pytest

import mechdae as md
from mechdae import codegen
from mechdae.errors import SolverError
from mechdae.simulate import _ode
from mechdae.simulate.event.compiled import CompiledMode, stable_step
from conftest import REPO

G = 9.81

pytestmark = pytest.mark.skipif(not codegen.available(), reason="no C compiler")


def _phase(xdot, ev, x, t, P, shift=1e-8):
    """A Phase from CasADi expressions (``ev`` a column of event functions)."""
    evd = ca.jtimes(ev, ca.vertcat(x, t), ca.vertcat(xdot, 1.0))
    core = ca.Function("core", [x, t, P], [xdot, ca.SX(0, 1), ev, evd])
    cm = CompiledMode.build(types.SimpleNamespace(name="test"), "o", core,
                            [(0, "gap")] * ev.numel())
    rhs, evf, _, _ = cm.functions()
    return _ode.Phase(rhs, evf, cm.nx, cm.ne, np.full(cm.ne, shift))


def _ball_phase(R=0.1):
    x, t, P = ca.SX.sym("x", 2), ca.SX.sym("t"), ca.SX.sym("P", 1)
    return _phase(ca.vertcat(x[1], -G), x[0] - R, x, t, P)


@pytest.mark.parametrize("method", [0, 1], ids=["dopri5", "dop853"])
def test_free_flight_lands_at_the_closed_form_time_and_outputs_are_the_parabola(method):
    ph = _ball_phase()
    to = np.linspace(0.0, 0.6, 61)[1:]     # the ball lands at 0.4515: outputs up to there
    r = ph.run(0.0, [1.1, 0.0], 2.0, [0.0], t_out=to, method=method)
    t1 = math.sqrt(2 * 1.0 / G)
    assert r["outcome"] == _ode.EVENT and r["fired"] == [0]
    # the time lies past the root by at most event_tol, with the gap <= 0 there
    assert 0.0 <= r["t"] - t1 <= 1e-10
    assert r["x"][1] == pytest.approx(-G * r["t"], abs=1e-12)
    assert r["e"][0] <= 0.0 and r["e"][0] > -1e-9
    ts, X = r["T_out"], r["X_out"]
    np.testing.assert_array_equal(ts, to[to <= r["t"]])
    np.testing.assert_allclose(X[:, 0], 1.1 - G * ts ** 2 / 2, atol=1e-14, rtol=0)
    np.testing.assert_allclose(X[:, 1], -G * ts, atol=1e-13, rtol=0)
    assert r["steps"] <= 10                    # polynomial: the steps grow 5x each


@pytest.mark.parametrize("method", [0, 1], ids=["dopri5", "dop853"])
def test_an_event_function_starting_at_zero_fires_on_its_return_only(method):
    """Just after an impact the gap is 0 and growing: shifted by gap_tol until armed, so
    the flight v0 -> -v0 lands at 2 v0 / g, not at the start."""
    ph = _ball_phase()
    v0 = 2.0
    r = ph.run(0.0, [0.1, v0], 5.0, [0.0], method=method)
    assert r["outcome"] == _ode.EVENT
    assert r["t"] == pytest.approx(2 * v0 / G, abs=1e-10)
    assert r["x"][1] == pytest.approx(-v0, abs=1e-12)


@pytest.mark.parametrize("method", [0, 1], ids=["dopri5", "dop853"])
def test_harmonic_oscillator_matches_cos_and_its_zero_crossings(method):
    w = 3.0
    x, t, P = ca.SX.sym("x", 2), ca.SX.sym("t"), ca.SX.sym("P", 1)
    # the event: the first return to x = 0.5 from above
    ph = _phase(ca.vertcat(x[1], -w * w * x[0]), ca.vertcat(x[0] - 0.5), x, t, P)
    r = ph.run(0.0, [1.0, 0.0], 10.0, [0.0], rtol=1e-10, atol=1e-12, method=method)
    assert r["outcome"] == _ode.EVENT
    assert r["t"] == pytest.approx(math.acos(0.5) / w, abs=1e-10)
    # no event: 10 s of cos(w t), outputs from the continuous extension
    ph2 = _phase(ca.vertcat(x[1], -w * w * x[0]), ca.vertcat(2.0 + x[0]), x, t, P)
    to = np.linspace(0.0, 10.0, 2001)[1:]
    r2 = ph2.run(0.0, [1.0, 0.0], 10.0, [0.0], rtol=1e-10, atol=1e-12, t_out=to,
                 method=method)
    assert r2["outcome"] == _ode.DONE and r2["t"] == 10.0
    np.testing.assert_array_equal(r2["T_out"], to)
    np.testing.assert_allclose(r2["X_out"][:, 0], np.cos(w * to), atol=2e-8)   # global error
    assert r2["x"][0] == pytest.approx(math.cos(30.0), abs=2e-8)
    # zero crossings (k + 1/2) pi / w located one after another: e = x going down, then
    # e = -x going up (each starts at its previous root, shifted until armed)
    down = _phase(ca.vertcat(x[1], -w * w * x[0]), ca.vertcat(x[0]), x, t, P)
    up = _phase(ca.vertcat(x[1], -w * w * x[0]), ca.vertcat(-x[0]), x, t, P)
    times, t0, x0 = [], 0.0, [1.0, 0.0]
    for k in range(6):
        r3 = (up if k % 2 else down).run(t0, x0, 10.0, [0.0], rtol=1e-10, atol=1e-12,
                                         method=method)
        assert r3["outcome"] == _ode.EVENT
        times.append(r3["t"])
        t0, x0 = r3["t"], r3["x"]
    np.testing.assert_allclose(times, (np.arange(6) + 0.5) * math.pi / w, atol=1e-9)


def test_a_stiff_phase_is_reported():
    x, t, P = ca.SX.sym("x", 1), ca.SX.sym("t"), ca.SX.sym("P", 1)
    ph = _phase(-1e6 * (x - ca.cos(t)), ca.vertcat(10.0 + x), x, t, P)
    r = ph.run(0.0, [0.0], 1.0, [0.0], stiff_h=1e-3)
    assert r["outcome"] == _ode.STIFF and r["t"] < 1.0
    with pytest.raises(RuntimeError, match="max_iter"):
        ph.run(0.0, [0.0], 1.0, [0.0], max_steps=1000)


def test_stable_step_keeps_the_baumgarte_modes_decaying():
    """alpha = 20, beta = 100: eigenvalues -20 +- 98i; |R(h lambda)| of the DOPRI5 pair
    reaches 1 at h = 0.030, the step kept is two thirds of that."""
    h = stable_step([complex(-20, 98), complex(-20, -98)], _ode.DOPRI5)
    assert h == pytest.approx(0.02, abs=5e-4)
    z = 1.5 * h * complex(-20, 98)
    R = sum(z ** k / math.factorial(k) for k in range(6)) + z ** 6 / 600   # DOPRI5's R(z)
    assert abs(R) == pytest.approx(1.0, abs=2e-3)
    assert _ode.growth(_ode.DOPRI5, z) == pytest.approx(abs(R), rel=1e-12)
    # the 8th-order pair: R(z) agrees with exp(z) to O(z^9) for small z
    for z in (0.1, complex(-0.2, 0.3)):
        assert _ode.growth(_ode.DOP853, z) == pytest.approx(abs(np.exp(z)), rel=1e-9)
    # its real stability boundary is about -6.0 (Hairer's dop853)
    assert 5.5 < stable_step([-1.0], _ode.DOP853) * 1.5 < 6.5
    assert stable_step([]) == math.inf


def _ball(e=0.8):
    return md.load(str(REPO / "models/bouncing_ball.py"), e=e).compile(stabilization=None)


def test_c_and_cvodes_phases_give_the_same_impacts():
    """The C phases and the cvodes windows: same impact times (closed form to 1e-9)."""
    e, H0, R = 0.8, 1.0, 0.1
    s = _ball(e)
    a = s.simulate(4.5, q0={"y": R + H0}, method="event")
    b = s.simulate(4.5, q0={"y": R + H0}, method="event", phase_integrator="cvodes")
    assert a.stats["n_rk_phases"] > 0 and a.stats["n_windows"] == 0
    assert b.stats["n_rk_phases"] == 0 and b.stats["n_windows"] > 0
    ta = np.array([ev.t for ev in a.events if ev.kind == "impact"])
    tb = np.array([ev.t for ev in b.events if ev.kind == "impact"])
    t1 = math.sqrt(2 * H0 / G)
    tk = t1 + np.concatenate([[0.0], np.cumsum(2 * t1 * e ** np.arange(1, ta.size))])
    assert ta.size == tb.size >= 32
    np.testing.assert_allclose(ta, tk, atol=1e-9, rtol=0)
    np.testing.assert_allclose(ta, tb, atol=1e-9, rtol=0)
    # the output grid: the parabola between impacts from both
    np.testing.assert_allclose(a["y"][a.t < 0.4], R + H0 - G * a.t[a.t < 0.4] ** 2 / 2,
                               atol=1e-12)


def test_without_a_compiler_the_cvodes_path_runs(monkeypatch):
    monkeypatch.setenv("MECHDAE_CODEGEN", "0")
    s = _ball()                                     # a fresh System: nothing compiled yet
    r = s.simulate(1.0, q0={"y": 1.1}, method="event")
    assert r.stats["n_rk_phases"] == 0 and r.stats["n_windows"] > 0
    imp = [ev.t for ev in r.events if ev.kind == "impact"]
    assert imp[0] == pytest.approx(math.sqrt(2 / G), abs=1e-9)
    with pytest.raises(SolverError, match="phase_integrator='rk' needs generated C"):
        _ball().simulate(1.0, q0={"y": 1.1}, method="event", phase_integrator="rk")


def test_bad_phase_integrator_is_named():
    with pytest.raises(ValueError, match="phase_integrator"):
        _ball().simulate(1.0, method="event", phase_integrator="euler")
