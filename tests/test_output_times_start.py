"""A run starts at its first output time under every method that takes the call: the
event, auto and smooth drivers start at ``output_times[0]`` (q0, v0 the state there); the
stepping drivers step from t = 0 and gave the same call a run shifted by the first output
time (a ball dropped from 10 m read 8.774 m at t = 0.5 under time stepping and 10 m under
the event method). They now refuse a later first output time, naming the fix."""
import numpy as np
import pytest

import mechdae as md


def _ball(contact=True):
    m = md.Model("drop")
    y = m.coordinates("y")
    m.kinetic_energy(0.5 * md.der(y) ** 2)
    m.potential_energy(9.81 * y)
    if contact:
        m.contact("ground", gap=y, restitution=0.5)
    return m.compile(stabilization=None)


@pytest.mark.parametrize("method", ["event", "auto", "timestepping", "moreau", "unified"])
def test_every_method_gives_free_fall_from_t0_zero(method):
    s = _ball()
    kw = dict(dt=1e-4) if method in ("timestepping", "moreau", "unified") else {}
    r = s.simulate(1.0, method=method, q0={"y": 10.0}, output_times=[0.0, 0.5, 1.0], **kw)
    assert np.allclose(r["y"], 10.0 - 0.5 * 9.81 * np.array([0.0, 0.25, 1.0]), atol=1e-3)


@pytest.mark.parametrize("method", ["event", "auto", "cvodes"])
def test_a_later_first_output_time_is_the_start(method):
    s = _ball(contact=method != "cvodes")
    r = s.simulate(1.0, method=method, q0={"y": 10.0}, output_times=[0.5, 1.0])
    # q0 is the state at t = 0.5: 0.5 s of free fall to t = 1
    assert np.allclose(r["y"], [10.0, 10.0 - 0.5 * 9.81 * 0.25], atol=1e-6)


@pytest.mark.parametrize("method", ["timestepping", "moreau", "unified"])
def test_stepping_methods_refuse_a_later_first_output_time(method):
    with pytest.raises(ValueError, match=r"output_times\[0\] = 0.5: .*steps from t = 0 only"):
        _ball().simulate(1.0, method=method, q0={"y": 10.0}, output_times=[0.5, 1.0])
