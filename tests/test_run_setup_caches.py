"""What a run evaluates once per System and parameter vector (issue 13, the event method's
fixed cost): the contact laws and, for a mass matrix that does not depend on q, its
positive-definiteness check. New parameter values are evaluated (and checked) anew, a
failing check raises on every call, and callers get arrays of their own."""
import numpy as np
import pytest

import mechdae as md
from mechdae.simulate._laws import contact_laws
from conftest import REPO

BALL = str(REPO / "models" / "bouncing_ball.py")


def test_contact_laws_follow_the_parameters_and_are_private_to_each_caller():
    ball = md.load(BALL, e=0.8).compile()
    e_n, e_t, mu = contact_laws(ball, ball.param_vector(None))
    assert e_n.tolist() == [0.8] and mu.tolist() == [0.0]
    e_n[0] = 0.1                                   # the caller's own array
    assert contact_laws(ball, ball.param_vector(None))[0].tolist() == [0.8]
    assert contact_laws(ball, ball.param_vector({"e": 0.5, "mu": 0.3}))[0].tolist() == [0.5]
    assert contact_laws(ball, ball.param_vector({"e": 0.5, "mu": 0.3}))[2].tolist() == [0.3]
    for _ in range(2):                             # a bad law is never remembered as good
        with pytest.raises(ValueError, match="contact 'ground': restitution e_n = 1.5"):
            contact_laws(ball, ball.param_vector({"e": 1.5}))


def test_restitution_from_params_sets_the_rebound_height_in_every_run():
    ball = md.load(BALL).compile(stabilization=None)
    h0, R, g = 1.0, 0.1, 9.81
    t1 = np.sqrt(2 * h0 / g)
    for e in (0.8, 0.5, 0.8):
        t_apex = t1 + e * g * t1 / g           # rebound speed e v_1, v_1 = g t_1
        res = ball.simulate(t_apex, q0={"y": R + h0}, params={"e": e}, method="event")
        assert [ev.kind for ev in res.events] == ["impact"]
        assert abs(res.events[0].t - t1) < 1e-9
        # at the apex: h0 e^2 above the ground, at rest
        assert abs(res.q[-1, 1] - (R + h0 * e * e)) < 1e-9
        assert abs(res.v[-1, 1]) < 1e-8


def test_constant_mass_matrix_checked_for_each_parameter_vector():
    ball = md.load(BALL).compile(stabilization=None)
    r = ball.simulate(0.2, q0={"y": 1.1}, method="event")
    assert abs(r.q[-1, 1] - (1.1 - 0.5 * 9.81 * 0.2 ** 2)) < 1e-9
    for _ in range(2):                             # a massless ball fails on every call
        with pytest.raises(ValueError, match=r"mass matrix is singular.*'der\(x\)'"):
            ball.simulate(0.2, q0={"y": 1.1}, params={"m": 0.0}, method="event")
    # a non-finite parameter is refused before any run, naming it (issue 24)
    with pytest.raises(ValueError, match="value of 'm' is inf"):
        ball.simulate(0.2, q0={"y": 1.1}, params={"m": np.inf}, method="event")
    r2 = ball.simulate(0.2, q0={"y": 1.1}, params={"m": 2.0}, method="event")
    assert abs(r2.kinetic[-1] - 0.5 * 2.0 * (9.81 * 0.2) ** 2) < 1e-8


def test_event_output_grid_is_linspace_bit_for_bit():
    from mechdae.simulate.event import output_grid
    for T in (0.3, 5.0, 1.0 / 3.0, 7.77e-5, 1234.5678):
        for n in (1, 2, 3, 501, 1000):
            a, b = output_grid(T, None, n), np.linspace(0.0, T, n)
            assert a.dtype == b.dtype and np.array_equal(a, b)
    with pytest.raises(ValueError, match="t_final must be > 0"):
        output_grid(0.0, None, 11)


@pytest.mark.parametrize("name, t_final, q0, v0", [
    ("bouncing_ball", 1.5, {"y": 1.1}, None),
    ("rocking_block", 0.6, {"x": 0.0, "y": 1.0, "th": 0.2}, None),
    ("newtons_cradle", 0.5, {"x1": -0.5, "x2": 0.1, "x3": 0.2}, {"x1": 1.0}),
])
def test_event_energies_from_generated_c_equal_the_function(name, t_final, q0, v0):
    from mechdae import codegen
    from mechdae.simulate.event.output import _energy_library
    if not codegen.available():
        pytest.skip("no C compiler")
    system = md.load(str(REPO / "models" / f"{name}.py")).compile()
    res = system.simulate(t_final, q0=q0, v0=v0, method="event")
    assert _energy_library(system)[0] is not None
    pv = system.param_vector(None)
    T, V = codegen.map_call(system.functions["energy"], res.t.size,
                            [res.q.T, res.v.T, res.t[None, :], pv], (3,))
    for got, want in ((res.kinetic, T[0]), (res.potential, V[0])):
        scale = max(1.0, float(np.abs(want).max()))
        assert np.abs(got - want).max() <= 1e-15 * scale
    assert np.array_equal(res.energy, res.kinetic + res.potential)
    assert any(ev.kind == "impact" for ev in res.events)
    # without generated C the Function gives them (same run, same numbers)
    system._integrators["event-energy-c"] = (None, None)
    res2 = system.simulate(t_final, q0=q0, v0=v0, method="event")
    assert np.array_equal(res2.q, res.q)
    assert np.abs(res2.energy - res.energy).max() <= 1e-15 * max(1.0, np.abs(res.energy).max())
