"""Issue 23 (5): the default method is exact.

``method="auto"`` used to hand over to Moreau-Jean at every detected accumulation of
impacts: the README's main job (the bouncing ball through its accumulation point) was up
to 1.6 mm from ``method="event"`` around ``t_inf`` and reported no accumulation point, and the
rocking block's angle history differed from "event". Now "auto" is the event engine
wherever it can go — the same events, the same states — and hands over to time stepping
only where the engine cannot go on (its event budget exhausted, a SolverError), saying so:
a RuntimeWarning, ``"switch"`` events and ``res.stats`` with the ``O(dt)`` bound per stretch.

Closed form: a ball dropped from rest at gap ``h`` with restitution ``e`` has its impacts
accumulate at ``t_inf = sqrt(2 h / g) (1 + 2 e / (1 - e))``.
"""
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest

import mechdae as md
from mechdae.errors import SolverError
from mechdae.simulate.event.engine import EventEngine
from conftest import REPO, model_module

G, R, H, E = 9.81, 0.1, 1.0, 0.8
T_INF = math.sqrt(2 * H / G) * (1 + 2 * E / (1 - E))          # 4.0637127689 s


@pytest.fixture(scope="module")
def ball():
    return md.load(str(REPO / "models/bouncing_ball.py")).compile(stabilization=None)


@pytest.fixture(scope="module")
def block():
    return md.load(str(REPO / "models/rocking_block.py")).compile(stabilization=None)


def _same(au, ev, atol=1e-12):
    """auto and event: the same events (times, kinds, contacts) and states."""
    assert [(e.t, e.kind, e.contact) for e in au.events] == \
        [(e.t, e.kind, e.contact) for e in ev.events]
    np.testing.assert_array_equal(au.t, ev.t)
    np.testing.assert_allclose(au.q, ev.q, rtol=0, atol=atol)
    np.testing.assert_allclose(au.v, ev.v, rtol=0, atol=atol)


def _event_driven(res):
    assert res.stats["method"] == "auto"
    assert res.stats["methods_used"] == ["event"]
    assert res.stats["timestepping_stretches"] == [] and res.stats["switches"] == 0
    assert not [e for e in res.events if e.kind == "switch"]


def test_ball_through_its_accumulation_point_is_exact(ball):
    au = ball.simulate(5.0, q0={"y": R + H})                       # the default method
    ev = ball.simulate(5.0, q0={"y": R + H}, method="event")
    _event_driven(au)
    _same(au, ev)
    acc = [e for e in au.events if e.kind == "accumulation"]
    assert len(acc) == 1 and acc[0].contact == "ground"
    assert acc[0].t == pytest.approx(T_INF, abs=1e-8)             # measured 6e-12 s
    # at rest from t_inf on: y = R, y' = 0, normal force m g
    after = au.t > acc[0].t
    np.testing.assert_allclose(au["y"][after], R, rtol=0, atol=1e-12)
    assert np.max(np.abs(au.v[after, 1])) < 1e-12
    np.testing.assert_allclose(au.contact_forces["ground"][after, 0], G, rtol=1e-9)
    # the closed form of the model file agrees
    assert model_module("bouncing_ball").t_inf(H, E, G) == pytest.approx(T_INF, rel=1e-15)


def test_ball_with_friction_is_exact(ball):
    """Sliding at 1 m/s on a floor with mu = 0.3 while bouncing: the friction impulses of
    each impact and the slide after t_inf, as "event"; the vertical motion (and t_inf) is
    that of the frictionless ball."""
    kw = dict(q0={"y": R + H}, v0={"x": 1.0}, params={"mu": 0.3})
    au = ball.simulate(5.0, **kw)
    ev = ball.simulate(5.0, method="event", **kw)
    _event_driven(au)
    _same(au, ev)
    acc = [e.t for e in au.events if e.kind == "accumulation"]
    assert acc == [pytest.approx(T_INF, abs=1e-8)]
    assert au["x"][-1] > 0.0 and abs(au.v[-1, 0]) < 1e-12        # stopped by friction
    assert au["y"][-1] == pytest.approx(R, abs=1e-12)


def test_rocking_block_angle_history_is_event(block):
    q0 = {"x": 0.0, "y": 1.0, "th": 0.2}
    au = block.simulate(3.0, q0=q0)
    ev = block.simulate(3.0, q0=q0, method="event")
    _event_driven(au)
    _same(au, ev)
    np.testing.assert_allclose(au["th"], ev["th"], rtol=0, atol=1e-12)
    assert au.modes[-1] == "kk" and abs(au["th"][-1]) < 1e-12
    assert any(e.kind == "accumulation" for e in au.events)


# every shipped model with contacts, with its own initial state: auto == event
CONTACT_MODELS = [p.stem for p in sorted((REPO / "models").glob("*.py"))
                  if "contact" in p.read_text().lower()]


@pytest.mark.parametrize("name", CONTACT_MODELS)
def test_contact_models_auto_is_event(name):
    mod = model_module(name)
    sim = dict(getattr(mod, "SIMULATION", {}))
    system = mod.build().compile(stabilization=sim.get("stabilization", "default"))
    if not system.contact_names:
        pytest.skip(f"{name}: no contacts")
    kw = dict(q0=sim.get("q0"), v0=sim.get("v0"), params=sim.get("params"), progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)       # no hand-over warning
        au = system.simulate(sim["t_final"], method="auto", **kw)
    ev = system.simulate(sim["t_final"], method="event", **kw)
    _event_driven(au)
    _same(au, ev, atol=1e-12)


def test_event_budget_hands_over_with_its_error_bound(ball):
    """The accumulation rule and rest snapping off (zeno=False, rest_impacts=0), the engine
    cannot end the ball's series: after event_budget events auto hands over to Moreau-Jean
    (warning, switch event with reason, dt, order and O(dt) bound), which carries the ball
    to rest, and hands back to the event engine."""
    with pytest.warns(RuntimeWarning, match="event engine cannot go on.*O\\(dt\\)"):
        res = ball.simulate(5.0, q0={"y": R + H}, zeno=False, rest_impacts=0,
                            event_budget=30)
    sw = [e for e in res.events if e.kind == "switch"]
    assert [e.extra["to"] for e in sw] == ["timestepping", "event"]
    first = sw[0].extra
    assert first["reason"] == "events" and "event_budget=30" in first["error"]
    assert first["dt"] == 1e-3 and first["order"] == 1
    assert first["error_bound"] == "O(dt), dt = 0.001 s"
    assert sw[0].t < T_INF < sw[1].t                     # stepped across the accumulation
    assert res.stats["methods_used"] == ["event", "timestepping"]
    (st,) = res.stats["timestepping_stretches"]
    assert st["reason"] == "events" and st["error_bound"] == "O(dt)" and st["order"] == 1
    assert (st["t_start"], st["t_end"]) == (sw[0].t, sw[1].t)
    assert st["steps"] == res.stats["timestepping_steps"] > 0
    assert 0 < st["step_displacement"] < 1e-3           # the scale of the O(dt) error
    assert sw[1].extra["stretch"] == (st["t_start"], st["t_end"])
    # at rest like the exact run, to the O(dt) of the stretch
    assert res["y"][-1] == pytest.approx(R, abs=1e-12) and abs(res.v[-1, 1]) < 1e-12
    assert res.modes[-1] == "n"


def test_engine_failure_hands_over(block, monkeypatch):
    """An event the engine cannot resolve (here a contact-force problem failure injected
    at the first event after t = 1 s): "event" raises; "auto" hands over to time stepping
    with the engine's message, steps to the settled block, hands back."""
    handle = EventEngine._handle

    def failing(self, which):
        if self.t > 1.0 and not getattr(self, "_failed_once", False):
            self._failed_once = True
            raise SolverError("contact-force problem of 2 contacts: Lemke's method ended "
                              "on a secondary ray (injected)")
        return handle(self, which)

    monkeypatch.setattr(EventEngine, "_handle", failing)
    q0 = {"x": 0.0, "y": 1.0, "th": 0.2}
    with pytest.raises(SolverError, match="secondary ray") as info:
        block.simulate(3.0, q0=q0, method="event")
    part = info.value.partial
    with pytest.warns(RuntimeWarning, match="secondary ray"):
        res = block.simulate(3.0, q0=q0)
    sw = [e for e in res.events if e.kind == "switch"]
    assert sw[0].extra["to"] == "timestepping" and sw[0].extra["reason"] == "failure"
    assert "secondary ray" in sw[0].extra["error"] and 1.0 < sw[0].t < 1.5
    assert res.stats["methods_used"] == ["event", "timestepping"]
    assert res.stats["timestepping_stretches"][0]["error_bound"] == "O(dt)"
    assert res.modes[-1] == "kk" and abs(res["th"][-1]) < 1e-10      # at rest as "event"
    # the event engine's run up to the failure, point for point ("event"'s err.partial)
    n = part.t.size
    assert part.t[-1] == sw[0].t
    np.testing.assert_array_equal(res.t[:n], part.t)
    np.testing.assert_allclose(res.q[:n], part.q, rtol=0, atol=1e-12)


def test_painleve_and_explicit_limits_are_not_stepped_over(ball):
    """A rule's answer is not a failure: an inconsistent Painleve case under the default
    rule is a PainleveError naming it (painleve="impact" resolves it exactly), and an
    explicit max_events stops "auto" as it stops "event"."""
    with pytest.raises(SolverError, match="more than 5 events"):
        ball.simulate(3.0, q0={"y": R + H}, max_events=5)
    rod = model_module("painleve_rod")
    sys_ = rod.build(mu=2.0).compile(stabilization=None)
    q, v = rod.sliding_state(0.8, -1.0)
    with pytest.raises(md.PainleveError, match="inconsistent"):
        sys_.simulate(0.5, q0=q, v0=v)
    res = sys_.simulate(0.5, q0=q, v0=v, painleve={"inconsistent": "impact"})
    assert res.stats["methods_used"] == ["event"]
    assert any(e.kind == "painleve" and e.extra["rule"] == "impact" for e in res.events)


def test_cli_summary_marks_t_inf(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "mechdae.cli", "run",
                           str(REPO / "models/bouncing_ball.py"), "--no-plot"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "method       auto" in text
    line = [ln for ln in text.splitlines() if ln.startswith("accumulation")]
    assert line == [f"accumulation t_inf at 'ground': t = {T_INF:.10g} s"], text
    closed = [ln for ln in text.splitlines() if ln.startswith("t_inf")]
    assert len(closed) == 1 and f"= {T_INF:.10g} s" in closed[0]
    assert "difference" in closed[0] and "time stepping" not in text


def test_plot_marks_t_inf(ball, tmp_path):
    pytest.importorskip("matplotlib")
    res = ball.simulate(5.0, q0={"y": R + H})
    fig = res.plot(tmp_path / "ball.png")
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert any(f"t\u221e = {T_INF:.6g} s" in t for t in texts), texts
