"""Event records mean the same under every method: an impact is an impulsive velocity jump.

The ball with friction (README: e = 0.8, mu = 0.05, thrown sideways) bounces 40 times up to
its accumulation point t_inf = sqrt(2 h/g) (1 + 2 e/(1 - e)) and then slides on the ground.
The event method and "auto" record the same 40 impacts; time stepping (dt) records one
impact per bounce whose flight it resolves (those after a flight longer than 2 dt, within
two) and none while the ball slides in persistent contact (a step with a closed contact is
a contact, not an impact), with the same energy lost at impacts (friction during an impact
is booked with the impact, as the event method books the whole velocity jump).
"""
import math
import re

import numpy as np
import pytest

import mechdae as md


@pytest.fixture(scope="module")
def ball():
    b = md.Model("ball")
    x, y = b.coordinates("x y")
    b.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2))
    b.potential_energy(9.81 * y)
    b.contact("ground", gap=y, tangent=x, restitution=b.parameter("e", 0.8), friction=0.05)
    return b.compile(stabilization=None)


def _impacts(res):
    return np.array([e.t for e in res.events if e.kind == "impact"])


def test_event_and_auto_record_the_same_impacts(ball):
    start = dict(q0={"y": 1.0}, v0={"x": 5.0}, progress=False)
    ev = ball.simulate(6.0, method="event", **start)
    au = ball.simulate(6.0, method="auto", **start)
    t_inf = math.sqrt(2 / 9.81) * (1 + 2 * 0.8 / 0.2)
    (acc,) = [e.t for e in ev.events if e.kind == "accumulation"]
    assert acc == pytest.approx(t_inf, rel=1e-8)
    te, ta = _impacts(ev), _impacts(au)
    assert te.size == ta.size == 40 and np.allclose(te, ta, atol=1e-9)
    assert [e.kind for e in ev.events if e.kind != "impact"] == ["slide", "accumulation"] or \
        sorted(e.kind for e in ev.events if e.kind != "impact") == ["accumulation", "slide"]


@pytest.mark.parametrize("dt", [1e-3, 2e-4])
def test_time_stepping_counts_resolved_bounces_and_no_contact_steps(ball, dt):
    start = dict(q0={"y": 1.0}, v0={"x": 5.0}, progress=False)
    ev = ball.simulate(6.0, method="event", **start)
    ts = ball.simulate(6.0, method="timestepping", dt=dt, **start)
    te, tt = _impacts(ev), _impacts(ts)
    flights = np.diff(np.concatenate([[0.0], te]))
    resolved = int(np.sum(flights > 2 * dt))
    assert resolved - 2 <= tt.size <= te.size
    # the ball slides on the ground from t_inf to 6 s (thousands of steps with a closed
    # contact): none of them is an impact
    (acc,) = [e.t for e in ev.events if e.kind == "accumulation"]
    assert tt.max() < acc + 10 * dt
    # ... they are counted beside the impacts: every step from t_inf to the end
    assert ts.stats["n_impacts"] == tt.size
    assert abs(ts.stats["n_contact_steps"] - (6.0 - acc) / dt) <= 3 + 0.002 / dt
    # the same bounces: the first ten impacts at the same times (first order in dt)
    assert np.abs(tt[:10] - te[:10]).max() < 10 * dt
    # the same energy lost at impacts, their friction included (the ledger books an
    # impact's whole velocity jump, not contact steps), and by sliding afterwards
    bt, be = ts.energy_balance(), ev.energy_balance()
    assert bt["impacts"] == pytest.approx(be["impacts"], rel=1e-3)     # -17.789 J
    assert bt["friction"] == pytest.approx(be["friction"], rel=1e-2)   # -2.406 J
    assert bt["final"] == pytest.approx(be["final"], rel=1e-4)       # still sliding at 6 s


def test_run_summary_counts_impacts_and_contact_steps_side_by_side(tmp_path):
    import os
    import subprocess
    import sys
    from conftest import REPO
    p = subprocess.run([sys.executable, "-m", "mechdae.cli", "run",
                        os.path.join(REPO, "models", "bouncing_ball.py"), "-p", "mu=0.05",
                        "--method", "timestepping", "--no-plot", "--no-progress"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    out = p.stdout
    assert p.returncode == 0, p.stderr
    impacts = int(re.search(r"events +(\d+) \((\d+) impact\)", out).group(2))
    held, steps = map(int, re.search(r"contacts +(\d+) of (\d+) steps", out).groups())
    # dropped from 1 m (e = 0.8): t_inf = 4.0637 s; at rest on the ground to 5 s
    # (the last bounces, shorter than a step, are contact steps: within 10 ms)
    assert steps == 5000 and abs(held - (5.0 - 4.0637) / 1e-3) <= 10 and 20 <= impacts <= 40
