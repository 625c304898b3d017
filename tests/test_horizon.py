"""Issue 10: the answer at a time t does not depend on the horizon t_final.

Before, method="auto" time-stepped with dt = t_final / 5000 (chatter window t_final / 100,
stretches t_final / 50) and the event driver's windows were t_final / 5 long: the rocking
block's angle at t = 1 was 0.02838 with t_final = 2 and 0.03537 with t_final = 100, and a
frictionless ball sliding at 0.3 m/s ended at x = 300.024 after t_final = 1000 (a last
stretch overshooting t_final and outputs taken from the nearest time step). Now every
default is a fixed, documented value (hybrid.DT_DEFAULT = 1e-3 s, event.MAX_WINDOW = 0.2 s)
and outputs inside a time-stepping stretch are interpolated between steps.
"""
import numpy as np
import pytest

import mechdae as md
from mechdae.simulate import event, hybrid

REPO = __import__("pathlib").Path(__file__).resolve().parents[1]
Q0 = {"x": 0.0, "y": 1.0, "th": 0.2}


@pytest.fixture(scope="module")
def block():
    return md.load(str(REPO / "models/rocking_block.py")).compile()


@pytest.fixture(scope="module")
def ball():
    return md.load(str(REPO / "models/bouncing_ball.py")).compile(stabilization=None)


def _at(res, t):
    k = np.flatnonzero(res.t == t)
    assert k.size, f"no output at t = {t}"
    return res.q[k[0]]


def test_defaults_are_fixed_values():
    assert hybrid.DT_DEFAULT == 1e-3
    assert event.MAX_WINDOW == 0.2


@pytest.mark.parametrize("method", ["auto", "event"])
def test_rocking_block_at_one_second_independent_of_t_final(block, method):
    qs = []
    for tf in (2.0, 100.0):
        res = block.simulate(tf, q0=Q0, method=method, output_times=[0.0, 1.0, tf],
                             **({"max_events": 5000} if method == "event" else {}))
        assert res.t[-1] == tf                      # the last stretch ends at t_final exactly
        qs.append(_at(res, 1.0))
    # the same windows and time steps up to t = 1: equal to the cvodes tolerance (rtol 1e-10;
    # measured: bit-identical)
    np.testing.assert_allclose(qs[0], qs[1], rtol=0, atol=1e-9)
    if method == "auto":
        # issue 23: auto is the event engine here; measured 0.0284223105, the same at
        # rtol 1e-12 and 1e-13, and the limit of Moreau-Jean (dt 1e-4: 0.0284487, 1e-5:
        # 0.0284307). The former 0.0286384669 was auto's time stepping (dt 1e-3) across
        # the accumulation that starts at 0.67 s
        assert qs[0][2] == pytest.approx(0.0284223105, abs=1e-8)


def test_auto_stepping_opt_in_independent_of_t_final(block):
    """The opt-in time stepping across accumulations (zeno_to_timestepping=True, the
    former default of "auto"): its stretches too are fixed multiples of dt."""
    qs = []
    for tf in (2.0, 100.0):
        res = block.simulate(tf, q0=Q0, method="auto", zeno_to_timestepping=True,
                             output_times=[0.0, 1.0, tf])
        assert res.t[-1] == tf and res.stats["timestepping_steps"] > 0
        qs.append(_at(res, 1.0))
    np.testing.assert_allclose(qs[0], qs[1], rtol=0, atol=1e-9)


def test_rocking_block_timestepping_independent_of_t_final(block):
    qs = [_at(block.simulate(tf, q0=Q0, method="timestepping", output_times=[0.0, 1.0, tf]),
              1.0) for tf in (2.0, 100.0)]
    np.testing.assert_array_equal(qs[0], qs[1])


@pytest.mark.parametrize("method", ["auto", "timestepping"])
def test_frictionless_ball_slides_exactly_for_1000_s(ball, method):
    """Dropped from 1 m while sliding at 0.3 m/s on a frictionless floor: the bounces
    accumulate (auto resolves them event-driven, as "event") and x = 0.3 t throughout."""
    res = ball.simulate(1000.0, q0={"x": 0.0, "y": 1.1}, v0={"x": 0.3}, method=method,
                        output_times=np.linspace(0.0, 1000.0, 11))
    assert res.t[-1] == 1000.0
    if method == "auto":
        assert res.stats["methods_used"] == ["event"]
        assert [e.kind for e in res.events].count("accumulation") == 1
    np.testing.assert_allclose(res["x"], 0.3 * res.t, rtol=1e-9, atol=1e-12)
    assert res["x"][-1] == pytest.approx(300.0, rel=1e-9)
    assert res["y"][-1] == pytest.approx(0.1, abs=1e-5)            # at rest on the floor


def test_smooth_outputs_do_not_coarsen_with_t_final():
    """A pendulum next to a wall it never reaches: the event driver's outputs at t = 1 were
    off by 0.02 rad with t_final = 100 (Hermite interpolation between sub-samples 0.6 s
    apart); now the windows are at most MAX_WINDOW long."""
    def pendulum(wall):
        m = md.Model("pendulum_wall")
        th = m.coordinates("th")
        m.kinetic_energy(0.5 * md.der(th) ** 2)
        m.potential_energy(-9.81 * md.cos(th))
        if wall:
            m.contact("wall", gap=th + 2.0, restitution=0.5)
        return m.compile()
    s = pendulum(True)
    # the reference: the same pendulum without the wall (a smooth method refuses a model
    # with contacts rather than ignore them)
    ref = pendulum(False).simulate(1.0, q0={"th": 1.0}, method="smooth", rtol=1e-12,
                                   atol=1e-14, output_times=[0.0, 1.0])["th"][-1]
    for tf in (2.0, 100.0):
        res = s.simulate(tf, q0={"th": 1.0}, output_times=np.linspace(0.0, tf, int(tf) + 1))
        assert res["th"][1] == pytest.approx(ref, abs=1e-8)
