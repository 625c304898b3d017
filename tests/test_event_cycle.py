"""Issue 13: flight phases and their simple impacts in C (csrc/mdae_cycle.c,
simulate/event/cycle.py).

The C cycle must give what the Python impact logic gives: the same events (times,
impulses, energies, modes), samples and accumulation, bitwise where the same operations
run; it must leave to Python every impact that is not simple (the ones that end a series,
several touching contacts, a patched kernel, monitors) and keep the engine's limits
(max_events) and thread safety.
"""
import math
import sys
import threading

import numpy as np
import pytest

import mechdae as md
from mechdae import codegen
from mechdae.errors import SolverError
from mechdae.simulate.event import engine as _engine
from mechdae.simulate.event.cycle import CycleLogic
from conftest import REPO

pytestmark = pytest.mark.skipif(not codegen.available(), reason="no C compiler")

G, R, H0, E = 9.81, 0.1, 1.0, 0.8


@pytest.fixture(scope="module")
def ball():
    return md.load(str(REPO / "models" / "bouncing_ball.py"), e=E).compile(stabilization=None)


def _run_ball(ball, **kw):
    return ball.simulate(5.0, q0={"y": R + H0}, method="event", rtol=1e-10, atol=1e-12, **kw)


class _Count:
    """Counts the impacts the C cycle resolves (wraps CycleLogic._book_cycle)."""

    def __init__(self, monkeypatch):
        self.n = 0
        real = CycleLogic._book_cycle

        def book(eng, log, d):
            self.n += log.shape[0]
            return real(eng, log, d)
        monkeypatch.setattr(CycleLogic, "_book_cycle", book)


def _without_cycle(monkeypatch):
    monkeypatch.setattr(_engine.EventEngine, "_cycle", lambda self, ph: None)


def test_ball_impacts_in_c_at_the_closed_form_times(ball, monkeypatch):
    cnt = _Count(monkeypatch)
    res = _run_ball(ball)
    imp = [e for e in res.events if e.kind == "impact"]
    assert len(imp) == 40
    # all but the impact that ends the series (left to Python's accumulation rule)
    assert cnt.n == res.stats["n_c_impacts"] == 39
    t1 = math.sqrt(2 * H0 / G)
    tk = t1 + np.concatenate([[0.0], np.cumsum(2 * t1 * E ** np.arange(1, 40))])
    np.testing.assert_allclose([e.t for e in imp], tk, atol=1e-9, rtol=0)
    # Newton's law: v+ = -e v-, impulse m (1 + e) |v-|, energy drop (1 - e^2) m v-^2 / 2
    for e in imp[:30]:
        vm, vp = e.extra["v_minus"][0], e.extra["v_plus"][0]
        assert vp == pytest.approx(-E * vm, rel=1e-12)
        assert e.impulse[0] == pytest.approx((1 + E) * -vm, rel=1e-12)
        assert e.energy_before - e.energy_after == pytest.approx(
            (1 - E ** 2) * vm ** 2 / 2, rel=1e-9, abs=1e-12)
        assert e.extra["status"] == "unique" and e.extra["modes"] == {"ground": "stick"}
    acc = [e for e in res.events if e.kind == "accumulation"]
    t_inf = t1 + 2 * G * t1 * E / (G * (1 - E))
    assert len(acc) == 1 and acc[0].t == pytest.approx(t_inf, abs=1e-9)
    # between impacts the samples lie on the free-flight parabola
    k = 10
    a, b = imp[k].t, imp[k + 1].t
    v0 = imp[k].extra["v_plus"][0]
    sel = (res.t > a) & (res.t < b)
    assert sel.sum() > 3
    tt = res.t[sel] - a
    np.testing.assert_allclose(res["y"][sel], R + v0 * tt - G * tt ** 2 / 2, atol=1e-9)


def _same_runs(a, b):
    assert [(e.t, e.kind, e.contact) for e in a.events] == \
        [(e.t, e.kind, e.contact) for e in b.events]
    for x, y in zip(a.events, b.events):
        assert x.energy_before == y.energy_before and x.energy_after == y.energy_after
        if x.impulse is not None:
            np.testing.assert_array_equal(x.impulse, y.impulse)
        assert x.extra.keys() == y.extra.keys()
    np.testing.assert_array_equal(a.t, b.t)
    np.testing.assert_array_equal(a.q, b.q)
    np.testing.assert_array_equal(a.v, b.v)


def test_ball_the_cycle_and_the_python_path_agree_bitwise(ball, monkeypatch):
    with_c = _run_ball(ball)
    _without_cycle(monkeypatch)
    _same_runs(with_c, _run_ball(ball))


def test_spinning_ball_with_friction_same_tangential_impulses(monkeypatch):
    sys.path.insert(0, str(REPO / "models"))
    import ivanov_ball
    s = ivanov_ball.build(mu=0.05, kappa=0.7).compile(stabilization=None)

    def run():
        return s.simulate(1.5, q0={"ball.z": 0.5}, v0={"ball.vx": 1.0, "ball.wx": 60.0},
                          method="event", n_out=301)
    cnt = _Count(monkeypatch)
    a = run()
    assert cnt.n >= 3                   # the spinning ball's separating impacts, in C
    assert any(abs(e.impulse[1]) > 0 or abs(e.impulse[2]) > 0
               for e in a.events if e.kind == "impact")
    monkeypatch.setattr(_engine.EventEngine, "_cycle", lambda self, ph: None)
    _close_runs(a, run())


def _close_runs(a, b, tol=1e-11):
    """As :func:`_same_runs` to round-off: where the Python path's linear algebra goes
    through OpenBLAS, whose kernels are chosen per CPU (its SkylakeX kernels on an
    AVX-512 machine sum in another order than the C cycle's own loops), the two paths
    agree to the last few bits only (event times 4e-14 s apart there; bitwise with
    OPENBLAS_CORETYPE=Haswell or Zen)."""
    assert [(e.kind, e.contact) for e in a.events] == [(e.kind, e.contact) for e in b.events]
    np.testing.assert_allclose([e.t for e in a.events], [e.t for e in b.events],
                               rtol=0, atol=tol)
    for x, y in zip(a.events, b.events):
        assert x.energy_after == pytest.approx(y.energy_after, rel=tol, abs=tol)
        if x.impulse is not None:
            np.testing.assert_allclose(x.impulse, y.impulse, rtol=1e-9, atol=tol)
        assert x.extra.keys() == y.extra.keys()
    np.testing.assert_allclose(a.t, b.t, rtol=0, atol=tol)
    np.testing.assert_allclose(a.q, b.q, rtol=0, atol=1e-9)
    np.testing.assert_allclose(a.v, b.v, rtol=0, atol=1e-9)


def test_rocking_block_agrees_with_the_python_path(monkeypatch):
    s = md.load(str(REPO / "models" / "rocking_block.py")).compile(stabilization=None)

    def run():
        return s.simulate(3.0, q0={"x": 0.0, "y": 1.0, "th": 0.2}, method="event",
                          max_events=2000)
    a = run()
    _without_cycle(monkeypatch)
    b = run()
    # the contact space's products are summed in a fixed order in C (numpy's may differ
    # in the last bit): event times to 1e-9, kinds identical
    assert [(e.kind, e.contact) for e in a.events] == [(e.kind, e.contact) for e in b.events]
    np.testing.assert_allclose([e.t for e in a.events], [e.t for e in b.events], atol=1e-9)
    np.testing.assert_allclose(a.q[-1], b.q[-1], atol=1e-8)


def test_max_events_still_raises(ball):
    with pytest.raises(SolverError, match="more than 10 events"):
        _run_ball(ball, max_events=10)


def test_a_patched_kernel_sees_every_impact(ball, monkeypatch):
    from mechdae.contact import kernels
    real = kernels.impact
    calls = []

    def spy(*a, **k):
        calls.append(1)
        return real(*a, **k)
    monkeypatch.setattr(kernels, "impact", spy)
    res = _run_ball(ball)
    assert len(calls) == sum(e.kind == "impact" for e in res.events) == 40


def test_zeno_early_in_c_the_same_early_jump(ball, monkeypatch):
    # zeno="early": the series ends once 4 flight ratios agree (min_impacts=5); the C
    # cycle resolves the first impacts and leaves the one that ends the series to Python
    res = _run_ball(ball, zeno="early")
    assert res.stats["n_c_impacts"] == 5
    assert sum(e.kind == "impact" for e in res.events) == 6
    acc = [e for e in res.events if e.kind == "accumulation"]
    t1 = math.sqrt(2 * H0 / G)
    assert acc[0].t == pytest.approx(t1 + 2 * t1 * E / (1 - E), abs=1e-9)
    _without_cycle(monkeypatch)
    _same_runs(res, _run_ball(ball, zeno="early"))


def test_threads_get_identical_results(ball):
    ref = _run_ball(ball)
    out = [None] * 4

    def work(k):
        out[k] = _run_ball(ball)
    th = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in th:
        t.start()
    for t in th:
        t.join()
    for r in out:
        _same_runs(ref, r)
