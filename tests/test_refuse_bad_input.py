"""Issue 23, item 3: methods must not drop what they cannot handle.

Each story of the issue, reproduced: what used to give a silent wrong answer (or hang)
must now be the right answer or an error naming the objects involved and the fix.

- a smooth method on a model with contacts ignored them (the README's ball fell to
  y = -18.5 m): refused, naming the contacts and the methods that handle them;
- a misspelled option (``rtoll``) was ignored by "timestepping", "unified", and an option
  of another method by "auto": every method in ``METHODS`` refuses it (parametrized over
  the registry, so a new method is covered);
- ``t_final=inf`` hung (cvodes, unified) or returned one point at t = nan (event, auto);
  ``output_times`` with NaN/inf hung or returned NaN times: refused (with a time limit,
  so that a hang fails the test);
- ``math.cos(theta)`` is NaN (CasADi's ``float()`` of a symbol), the run returned NaN
  energy: a ModelError at compile naming the expression and suggesting ``md.cos``;
- duplicate names: refused where they are declared.
"""
import math
import subprocess
import sys
import threading

import numpy as np
import pytest

import mechdae as md
from mechdae.simulate import METHODS, OPTIONS, SMOOTH_ONLY

from _modeling import MODELS

LIMIT = 60.0      # s: a check that hangs fails instead of blocking the suite


def within(fn, seconds=LIMIT):
    """``fn()``'s value or exception, or a failure if it takes longer than ``seconds``."""
    box = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as exc:          # handed to the test thread
            box["error"] = exc
    th = threading.Thread(target=run, daemon=True)
    th.start()
    th.join(seconds)
    if th.is_alive():
        pytest.fail(f"did not return within {seconds} s (a hang)")
    if "error" in box:
        raise box["error"]
    return box["value"]


@pytest.fixture(scope="module")
def ball():
    """The README's main job: a ball of radius 0.1 m, dropped from y = 1.1 m."""
    return md.load(str(MODELS / "bouncing_ball.py")).compile(stabilization=None)


@pytest.fixture(scope="module")
def oscillator():
    m = md.Model("oscillator")
    x = m.coordinates("x")
    m.kinetic_energy(0.5 * md.der(x) ** 2)
    m.potential_energy(0.5 * x ** 2)
    return m.compile()


def _system_for(method, ball, oscillator):
    """A model the method runs: the ball (one contact), or the oscillator for the smooth
    methods (which refuse contacts)."""
    if method in SMOOTH_ONLY:
        return oscillator, {"x": 1.0}
    return ball, {"y": 1.1}


# ---------------------------------------------------------------- contacts and smooth methods
@pytest.mark.parametrize("method", sorted(SMOOTH_ONLY))
def test_smooth_method_refuses_the_ball_naming_its_contact(ball, method):
    with pytest.raises(ValueError) as exc:
        within(lambda: ball.simulate(2.0, q0={"y": 1.1}, method=method))
    msg = str(exc.value)
    assert "'ground'" in msg and f"method '{method}'" in msg, msg
    for other in ("auto", "event", "timestepping"):
        assert other in msg, msg


def test_ball_with_auto_stays_above_the_floor(ball):
    """What the error points to: the ball never goes below its radius (y >= R = 0.1)."""
    res = ball.simulate(2.0, q0={"y": 1.1})
    assert res["y"].min() > 0.1 - 1e-6


def test_smooth_methods_still_run_a_model_without_contacts(oscillator):
    """x'' = -x from x = 1: x(t) = cos t, by every smooth method and by auto (which hands
    a model without contacts to the smooth driver)."""
    for method in sorted(SMOOTH_ONLY) + ["auto"]:
        res = oscillator.simulate(1.0, q0={"x": 1.0}, method=method, rtol=1e-10, atol=1e-12)
        assert res["x"][-1] == pytest.approx(math.cos(1.0), abs=1e-7), method


def test_cli_run_with_a_smooth_method_on_the_ball_fails_with_the_reason(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "mechdae.cli", "run",
                           str(MODELS / "bouncing_ball.py"), "--method", "cvodes",
                           "--plot", str(tmp_path / "b.png")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode != 0
    assert "'ground'" in proc.stderr and "event" in proc.stderr, proc.stderr


# ---------------------------------------------------------------- unknown options
@pytest.mark.parametrize("method", sorted(METHODS))
def test_every_method_refuses_a_misspelled_option(ball, oscillator, method):
    s, q0 = _system_for(method, ball, oscillator)
    with pytest.raises(TypeError) as exc:
        within(lambda: s.simulate(0.5, q0=q0, method=method, rtoll=1e-3))
    msg = str(exc.value)
    assert "'rtoll'" in msg and "did you mean 'rtol'" in msg, msg
    assert f"method={method!r}" in msg, msg
    for name in sorted(OPTIONS[method])[:3]:          # the valid ones are listed
        assert name in msg, msg


@pytest.mark.parametrize("method", sorted(METHODS))
def test_every_method_refuses_an_unknown_option_in_a_sweep(ball, oscillator, method):
    """Before any run (not one failed row per run)."""
    s, _ = _system_for(method, ball, oscillator)
    with pytest.raises(TypeError, match="'no_such_option'"):
        s.sweep(t_final=0.5, method=method, no_such_option=1)


#: a valid option of each built-in method, with the value a short run takes
VALID = {"auto": dict(n_out=11), "smooth": dict(n_out=11), "cvodes": dict(n_out=11),
         "idas": dict(n_out=11), "event": dict(n_out=11), "timestepping": dict(dt=1e-3),
         "moreau": dict(dt=1e-3), "unified": dict(dt=1e-3)}


@pytest.mark.parametrize("method", sorted(METHODS))
def test_every_method_takes_its_valid_options(ball, oscillator, method):
    if method not in VALID:
        pytest.skip(f"no valid option listed for {method!r} in VALID")
    s, q0 = _system_for(method, ball, oscillator)
    res = within(lambda: s.simulate(0.2, q0=q0, method=method, rtol=None, **VALID[method]))
    assert res.t[-1] == pytest.approx(0.2)
    assert set(VALID[method]) <= OPTIONS[method]


def test_auto_refuses_an_option_of_another_method_naming_it(ball, oscillator):
    """theta is a time-stepping option: auto used to drop it silently without contacts."""
    for s, q0 in ((ball, {"y": 1.1}), (oscillator, {"x": 1.0})):
        with pytest.raises(TypeError, match=r"'theta'.*an option of method .*'timestepping'"):
            s.simulate(0.5, q0=q0, theta=1.0)


def test_timestepping_refuses_unknown_options_passed_directly(ball):
    """auto's stretches call the driver directly with timestepping_options."""
    with pytest.raises(TypeError, match=r"'thetta' \(did you mean 'theta'\?\)"):
        METHODS["timestepping"](ball, 0.1, q0={"y": 1.1}, thetta=1.0)


def test_streaming_and_progress_options_still_work(oscillator, tmp_path):
    pytest.importorskip("h5py")
    res = oscillator.simulate(1.0, q0={"x": 1.0}, method="cvodes", n_out=101,
                              out=str(tmp_path / "run.h5"), chunk=30, progress=False)
    assert res.t.size == 101 and res["x"][-1] == pytest.approx(math.cos(1.0), abs=1e-6)
    df = oscillator.sweep(q0={"x": [0.5, 1.0]}, t_final=1.0, method="cvodes", rtol=1e-10,
                          atol=1e-12, outputs={"x1": "x"})
    assert list(df["status"]) == ["ok", "ok"]
    np.testing.assert_allclose(df["x1"], [0.5 * math.cos(1.0), math.cos(1.0)], atol=1e-7)


# ---------------------------------------------------------------- horizons
@pytest.mark.parametrize("method", sorted(METHODS))
@pytest.mark.parametrize("t_final", [math.inf, math.nan, -1.0, 0.0])
def test_non_finite_or_empty_horizon_is_refused(ball, oscillator, method, t_final):
    s, q0 = _system_for(method, ball, oscillator)
    with pytest.raises(ValueError, match=r"t_final"):
        within(lambda: s.simulate(t_final, q0=q0, method=method))


@pytest.mark.parametrize("method", sorted(METHODS))
@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_non_finite_output_times_are_refused(ball, oscillator, method, bad):
    s, q0 = _system_for(method, ball, oscillator)
    with pytest.raises(ValueError, match=rf"output_times\[1\] = {bad}"):
        within(lambda: s.simulate(1.0, q0=q0, method=method, output_times=[0.0, bad, 1.0]))


@pytest.mark.parametrize("method", sorted(METHODS))
def test_non_increasing_output_times_are_refused(ball, oscillator, method):
    s, q0 = _system_for(method, ball, oscillator)
    with pytest.raises(ValueError, match=r"output_times must be increasing"):
        within(lambda: s.simulate(1.0, q0=q0, method=method, output_times=[0.0, 0.6, 0.3]))


@pytest.mark.parametrize("method", sorted(METHODS))
def test_output_times_past_t_final_are_refused(ball, oscillator, method):
    """The smooth and event drivers ran to output_times[-1], the stepping ones stopped at
    t_final and returned it in place of the later output times (0.3 for 0.5)."""
    s, q0 = _system_for(method, ball, oscillator)
    with pytest.raises(ValueError, match=r"output_times\[-1\] = 0.5 is past t_final = 0.3"):
        within(lambda: s.simulate(0.3, q0=q0, method=method, output_times=[0.0, 0.25, 0.5]))


@pytest.mark.parametrize("method", sorted(METHODS))
def test_t_final_none_runs_to_the_last_output_time(ball, oscillator, method):
    if method not in VALID:
        pytest.skip(f"no valid option listed for {method!r} in VALID")
    s, q0 = _system_for(method, ball, oscillator)
    res = within(lambda: s.simulate(None, q0=q0, method=method, output_times=[0.0, 0.1, 0.2]))
    assert res.t[0] == 0.0 and res.t[-1] == pytest.approx(0.2)
    assert np.isclose(res.t, 0.1, atol=1e-12).any()


def test_sweep_refuses_an_infinite_horizon(ball):
    with pytest.raises(ValueError, match=r"t_final=inf"):
        ball.sweep(t_final=math.inf, q0={"y": [1.1, 1.2]})


# ---------------------------------------------------------------- NaN / inf constants
def test_math_cos_on_a_symbol_is_named_at_compile():
    """math.cos(theta) is nan (float() of a CasADi symbol is NaN): the pendulum's
    potential used to be m g L nan and every energy of the run NaN."""
    m = md.Model("pendulum")
    th = m.coordinates("theta")
    L = m.parameter("L", 1.0)
    m.kinetic_energy(0.5 * L ** 2 * md.der(th) ** 2)
    m.potential_energy(-9.81 * L * math.cos(th))
    with pytest.raises(md.ModelError) as exc:
        m.compile()
    msg = str(exc.value)
    assert "potential energy (term 1)" in msg and "NaN" in msg and "md.cos" in msg, msg
    assert "math" in msg


def test_nan_and_inf_constants_are_named_where_they_appear():
    m = md.Model("bad_constants")
    x, y = m.coordinates("x y")
    m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2))
    m.potential_energy(9.81 * y)
    m.generalized_force(float("nan") * x, x)
    m.holonomic(x - math.inf * y, name="rod")
    m.contact("floor", gap=y + math.sqrt(2.0) * math.nan * x)
    m.output("ke", math.inf * md.der(x))
    with pytest.raises(md.ModelError) as exc:
        m.compile()
    probs = exc.value.problems
    msg = str(exc.value)
    assert len(probs) == 4, msg
    assert any("generalized force on 'x'" in p and "NaN" in p for p in probs), msg
    assert any("holonomic constraint 'rod'" in p and "inf" in p for p in probs), msg
    assert any("contact 'floor': gap" in p and "NaN" in p for p in probs), msg
    assert any("output 'ke'" in p and "inf" in p for p in probs), msg


def test_inf_friction_still_compiles_and_sticks():
    """friction = inf (no sliding) is not a bad constant: the ball dropped with a
    horizontal speed stops sliding at the first impact (x' = 0 after it)."""
    m = md.Model("sticky")
    x, y = m.coordinates("x y")
    m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2))
    m.potential_energy(9.81 * y)
    m.contact("ground", gap=y, tangent=x, restitution=0.0, friction=math.inf)
    res = m.compile(stabilization=None).simulate(1.0, q0={"y": 0.2}, v0={"x": 1.0},
                                                 method="event")
    t1 = math.sqrt(2 * 0.2 / 9.81)
    assert res["x"][-1] == pytest.approx(t1, abs=1e-6)


# ---------------------------------------------------------------- duplicate names
def _coordinate_x():
    m = md.Model("dup")
    m.coordinates("x")
    return m


@pytest.mark.parametrize("declare, name, holder", [
    (lambda m: m.coordinates("x"), "coordinate 'x'", "coordinate"),
    (lambda m: m.parameter("x", 1.0), "parameter 'x'", "coordinate"),
    (lambda m: m.input("x"), "input 'x'", "coordinate"),
    (lambda m: m.variable("x"), "variable 'x'", "coordinate"),
    (lambda m: m.parameter("der(x)", 1.0), r"parameter 'der\(x\)'", r"speed \(of coordinate 'x'\)"),
    (lambda m: m.holonomic(md.der(m["x"]) - 1, name="x"), "constraint 'x'", "coordinate"),
    (lambda m: m.contact("x", gap=m["x"]), "contact 'x'", "coordinate"),
    (lambda m: m.output("x", 2 * m["x"]), "output 'x'", "coordinate"),
])
def test_duplicate_name_refused_where_declared(declare, name, holder):
    m = _coordinate_x()
    with pytest.raises(md.ModelError, match=rf"model 'dup': {name}: the name is already used "
                       rf"by a {holder}"):
        declare(m)


def test_parameter_declared_twice_and_input_clash():
    m = md.Model("dup")
    m.parameter("k", 1.0)
    with pytest.raises(md.ModelError, match=r"parameter 'k': the name is already used by a "
                       r"parameter"):
        m.parameter("k", 2.0)
    with pytest.raises(md.ModelError, match=r"input 'k': .* by a parameter"):
        m.input("k")
    x = m.coordinates("x", speeds="v")
    with pytest.raises(md.ModelError, match=r"parameter 'v': .* by a speed"):
        m.parameter("v", 1.0)
    m.equation(x - 1, name="e")
    with pytest.raises(md.ModelError, match=r"equation 'e': the name is already used by an "
                       r"equation"):
        m.equation(x - 2, name="e")


def test_unnamed_constraints_take_free_names():
    """An unnamed constraint is named phi<k>; a name the user took is skipped."""
    m = md.Model("names")
    x, y = m.coordinates("x y")
    m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2))
    m.holonomic(x - 2 * y, name="phi1")
    m.holonomic(x + y - 3)
    s = m.compile()
    assert sorted(s.constraint_names) == ["phi1", "phi2"]
