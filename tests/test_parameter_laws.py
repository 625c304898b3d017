"""Contact laws given as model parameters: every driver evaluates them with the run's
``params`` (one helper, :func:`mechdae.simulate._laws.contact_laws`), no recompilation."""
import math

import numpy as np
import pytest

import mechdae as md
from mechdae.simulate._laws import contact_laws

REPO = __import__("pathlib").Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def ball():
    return md.load(str(REPO / "models/bouncing_ball.py")).compile(stabilization=None)


@pytest.fixture(scope="module")
def block():
    return md.load(str(REPO / "models/rocking_block.py")).compile(stabilization=None)


@pytest.fixture(scope="module")
def cradle():
    return md.load(str(REPO / "models/newtons_cradle.py")).compile(stabilization=None)


def test_contact_laws_follow_params(ball, block):
    e_n, e_t, mu = contact_laws(ball, ball.param_vector({"e": 0.5, "mu": 0.3}))
    assert e_n.tolist() == [0.5] and e_t.tolist() == [0.0] and mu.tolist() == [0.3]
    e_n, _, mu = contact_laws(block, block.param_vector({"e": 0.2, "mu": math.inf}))
    assert e_n.tolist() == [0.2, 0.2] and np.all(np.isinf(mu))
    with pytest.raises(ValueError, match="contact 'ground': restitution"):
        contact_laws(ball, ball.param_vector({"e": 1.5}))


@pytest.mark.parametrize("method", ["event", "timestepping", "unified"])
def test_bouncing_ball_restitution_parameter(ball, method):
    # flights after impact k last 2 e^k v_1 / g: ratio e = 0.5 set at simulate time
    kw = {} if method == "event" else dict(dt=1e-4)
    res = ball.simulate(1.5, q0={"y": 1.1}, params={"e": 0.5}, method=method, **kw)
    ti = np.array([ev.t for ev in res.events if ev.kind == "impact"][:4])
    t1 = math.sqrt(2 * 1.0 / 9.81)
    assert ti[0] == pytest.approx(t1, abs=2e-4)
    ratio = np.diff(ti)[1:] / np.diff(ti)[:-1]
    np.testing.assert_allclose(ratio, 0.5, atol=5e-3 if method != "event" else 1e-6)


def test_rocking_block_timestepping_comes_to_rest(block):
    # e = 0.5, mu = 0.5 given as parameters; the block rocks, loses energy at each impact
    # and rests flat: th -> 0, y -> h/2, E -> m g h/2
    res = block.simulate(3.0, q0={"x": 0.0, "y": 1.0, "th": 0.2}, params={"e": 0.5},
                         method="timestepping", dt=2e-4)
    E = res.energy
    assert E[0] == pytest.approx(9.81)
    assert np.max(np.diff(E)) <= 1e-6 * E[0]           # measured 1e-8 (O(dt) penetration)
    assert abs(res["th"][-1]) < 1e-5
    assert res["y"][-1] == pytest.approx(0.75, abs=1e-5)
    assert E[-1] == pytest.approx(9.81 * 0.75, rel=1e-5)
    assert res.stats["solver_failures"] == 0
    assert len(res.events) > 5


@pytest.mark.parametrize("e", [1.0, 0.9, 0.5])
def test_cradle_timestepping_momentum_and_newton_law(cradle, e):
    # ball 1 hits the touching pair 2-3: the simultaneous Newton impact gives
    # v = ((1 - 2e)/3, (1 + e)/3, (1 + e)/3) v0; momentum m v0 is conserved throughout
    res = cradle.simulate(1.0, q0={"x1": -0.5, "x2": 0.1, "x3": 0.2}, v0={"x1": 1.0},
                          params={"e": e}, method="timestepping", dt=1e-4)
    mom = res.v.sum(axis=1)
    np.testing.assert_allclose(mom, 1.0, atol=1e-12)
    np.testing.assert_allclose(res.v[-1], [(1 - 2 * e) / 3, (1 + e) / 3, (1 + e) / 3],
                               atol=1e-12)
    E = res.energy
    assert np.max(np.diff(E)) <= 1e-14
    assert E[-1] == pytest.approx(0.5 * sum(v ** 2 for v in res.v[-1]), rel=1e-12)
    if e == 1.0:
        assert E[-1] == pytest.approx(0.5, rel=1e-12)
    assert [ev.kind for ev in res.events] == ["impact"]
