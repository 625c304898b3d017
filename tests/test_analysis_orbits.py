"""Periodic hybrid orbits through impacts: the rimless wheel against its closed form
(McGeer 1990; Coleman, Chatterjee & Ruina 1997), re-simulated by the event engine."""
import math

import numpy as np
import pytest

from conftest import model_module

rw = model_module("rimless_wheel")


@pytest.fixture(scope="module")
def wheel():
    return rw.build(n=8, I=0.05, gamma=0.08).compile(stabilization=None)


@pytest.fixture(scope="module")
def orbit(wheel):
    q0, v0 = rw.initial_state(n=8, w=1.2 * rw.fixed_point())      # 20 % too fast
    return wheel.periodic_orbit(q=q0, v=v0, period=0.9 * rw.step_time(),
                                shift={"th": 2 * math.pi / 8}, cyclic=["x"])


def test_rimless_wheel_fixed_point_period_multiplier_closed_form(orbit):
    w = rw.fixed_point(n=8, I=0.05, gamma=0.08)
    assert orbit.x_names == ["th", "der(th)"]          # x cyclic, y fixed by the stance gap
    np.testing.assert_allclose(orbit.v["der(th)"], w, rtol=1e-8)
    np.testing.assert_allclose(orbit.q["th"], -math.pi / 8, atol=1e-9)
    np.testing.assert_allclose(orbit.period, rw.step_time(n=8, I=0.05, gamma=0.08), rtol=1e-8)
    assert [c for _, c in orbit.impacts] == ["spoke1"]
    c2 = rw.multiplier(n=8, I=0.05)
    # monodromy through the impact (saltation): the trivial 1 (flow) and c^2
    np.testing.assert_allclose(orbit.multipliers, [1.0, c2], rtol=1e-7)
    # the Poincaré map: 0 (time along the flow) and c^2
    np.testing.assert_allclose(orbit.map_multipliers, [c2, 0.0], atol=1e-7)
    assert orbit.residual <= 1e-10


def test_rimless_wheel_event_engine_stays_on_the_orbit(wheel, orbit):
    # 20 steps with the event engine (its own event location and the C impact kernel)
    T = orbit.period
    res = wheel.simulate(20.5 * T, q0=orbit.q, v0=orbit.v, method="event")
    t_imp = np.array([e.t for e in res.events if e.kind == "impact"])
    assert t_imp.size == 20
    np.testing.assert_allclose(np.diff(np.r_[0.0, t_imp]), T, rtol=0, atol=1e-7)
    assert [e.contact for e in res.events if e.kind == "impact"][:9] == \
        [f"spoke{k % 8}" for k in range(1, 10)]


def _after_first_impact(wheel, th0, w0, T):
    """The event engine's (th, th') just after the first impact from the stance state
    (spoke 0 on the ground at angle th0, rate w0), relabeled to spoke 1."""
    q0 = {"x": -math.sin(-th0), "y": math.cos(th0), "th": th0}
    v0 = {"x": math.cos(th0) * w0, "y": -math.sin(th0) * w0, "th": w0}
    res = wheel.simulate(1.5 * T, q0=q0, v0=v0, method="event", output_times=[0.0, 1.5 * T])
    t1 = next(e.t for e in res.events if e.kind == "impact")
    res = wheel.simulate(t1 + 1e-10, q0=q0, v0=v0, method="event",
                         output_times=[0.0, t1 + 1e-10])
    return np.array([res["th"][-1] - 2 * math.pi / 8, res["der(th)"][-1]])


def test_rimless_wheel_map_jacobian_against_finite_differences_of_the_event_engine(wheel,
                                                                                   orbit):
    # the Poincaré map in (th, th') measured by the event engine (its own event location
    # and the C impact kernel), central differences: the first row is zero (the section
    # fixes th), the second row d w+/d(th0, w0); multipliers c^2 and 0
    T, th, w = orbit.period, orbit.q["th"], orbit.v["der(th)"]
    h = 1e-4
    f0 = _after_first_impact(wheel, th, w, T)
    # th0 < -alpha would put spoke 7 into the ground: one-sided (second order) in th0
    th_col = (-3 * f0 + 4 * _after_first_impact(wheel, th + h, w, T)
              - _after_first_impact(wheel, th + 2 * h, w, T)) / (2 * h)
    w_col = (_after_first_impact(wheel, th, w + h, T)
             - _after_first_impact(wheel, th, w - h, T)) / (2 * h)
    cols = [th_col, w_col]
    fd = np.array(cols).T
    np.testing.assert_allclose(orbit.map_jacobian, fd, rtol=0, atol=2e-6)
    np.testing.assert_allclose(orbit.map_jacobian[0], 0.0, atol=1e-8)
    # closed form of the second row: w-^2 = w0^2 + 2 kappa (cos(th0 + g) - cos(a + g))
    kappa, c = 9.81 / 1.05, (math.cos(math.pi / 4) + 0.05) / 1.05
    wm = math.sqrt(w * w + 2 * kappa * (math.cos(th + 0.08) - math.cos(math.pi / 8 + 0.08)))
    np.testing.assert_allclose(orbit.map_jacobian[1], [-c * kappa * math.sin(th + 0.08) / wm,
                                                       c * w / wm], rtol=1e-7)


def test_periodic_orbit_clear_errors(wheel):
    q0, v0 = rw.initial_state(n=8, w=1.0)
    with pytest.raises(ValueError, match="method='smooth'"):
        wheel.periodic_orbit(q=q0, v=v0, period=1.0, method="smooth")
    with pytest.raises(ValueError, match="not coordinates"):
        wheel.periodic_orbit(q=q0, v=v0, period=1.0, cyclic=["z"])
    with pytest.raises(ValueError, match="period"):
        wheel.periodic_orbit(q=q0, v=v0, period=-1.0)
    # rolling back uphill: spoke 7 lands at once, spoke 0 lifts off (followed), and the
    # wheel rocks back on spoke 7 without a further impact within 1.5 periods: said so
    q0, v0 = rw.initial_state(n=8, w=-0.05)
    with pytest.raises(ValueError, match="no impact within 0.45 s"):
        wheel.periodic_orbit(q=q0, v=v0, period=0.3, shift={"th": math.pi / 4}, cyclic=["x"])


# ---------------------------------------------------------------------- sensitivities
def test_bouncing_ball_impact_times_sensitivity_to_e_and_height():
    # dropped from height h: t_k = t_1 (1 + 2 (e + ... + e^(k-1))), t_1 = sqrt(2 h / g);
    # d t_k / d e = (2 v_1 / g) sum_j j e^(j-1), d t_k / d y0 = (t_k / t_1) / (g t_1)
    import mechdae as md
    g, h, e, R = 9.81, 1.0, 0.8, 0.1
    ball = md.load("models/bouncing_ball.py").compile(stabilization=None)
    res = ball.simulate(3.0, q0={"y": R + h}, method="event", sensitivities=["e", "y"])
    t1 = math.sqrt(2 * h / g)
    v1 = g * t1
    k = np.arange(1, 7)
    dte = [2 * v1 / g * sum(j * e ** (j - 1) for j in range(1, n)) for n in k]
    dth = [(1 + 2 * sum(e ** j for j in range(1, n))) / (g * t1) for n in k]
    S = res.sensitivity
    assert [k for _, _, k in S.events] == ["impact"] * 6
    np.testing.assert_allclose(S.event_times["e"], dte, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(S.event_times["y"], dth, rtol=1e-7)
    # in the first flight after impact 1: y = R + e v1 (t - t1) - g (t - t1)^2 / 2, so
    # dy/de = v1 (t - t1) and d y'/d e = v1 (t1 depends on h only)
    t2 = t1 * (1 + 2 * e)
    sel = (res.t > t1 + 1e-3) & (res.t < t2 - 1e-3)
    np.testing.assert_allclose(S["y"]["e"][sel], v1 * (res.t[sel] - t1), rtol=1e-7)
    np.testing.assert_allclose(S["der(y)"]["e"][sel], v1, rtol=1e-7)
    np.testing.assert_allclose(S["y"]["e"][res.t < t1], 0.0, atol=1e-12)
    with pytest.raises(ValueError, match="'nope'"):
        ball.simulate(1.0, q0={"y": R + h}, method="event", sensitivities=["nope"])


def test_rimless_wheel_section_at_a_named_contact(wheel):
    # a guess in mid-stance on spoke 0; section: just after spoke 3 lands (th = 5 alpha)
    a = math.pi / 8
    w = 1.1 * rw.fixed_point()
    q0 = {"x": 0.0, "y": 1.0, "th": 0.0}
    v0 = {"x": w, "y": 0.0, "th": w}
    orb = wheel.periodic_orbit(q=q0, v=v0, period=rw.step_time(), section="spoke3",
                               shift={"th": 2 * a}, cyclic=["x"])
    np.testing.assert_allclose(orb.q["th"], 5 * a, atol=1e-9)
    np.testing.assert_allclose(orb.v["der(th)"], rw.fixed_point(), rtol=1e-8)
    assert orb.mode["spoke3"] == "stick" and orb.impacts[0][1] == "spoke4"


def test_sensitivities_through_a_liftoff_against_the_event_engine():
    # a particle sliding off a frictionless dome (radius R, from the top with speed v0)
    # leaves it where cos(th) = (v0^2 / (g R) + 2) / 3; then flies. The sensitivities of
    # the final state and of the lift-off time to g and v0 against central differences of
    # event-engine runs (its own lift-off location)
    import mechdae as md
    m = md.Model("dome")
    x, y = m.coordinates("x y")
    g, R = m.parameter("g", 9.81), m.parameter("R", 1.0)
    m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2))
    m.potential_energy(g * y)
    m.contact("dome", gap=md.sqrt(x ** 2 + y ** 2) - R, tangent=R * md.atan2(x, y),
              restitution=0.0, friction=0.0)
    dome = m.compile(stabilization=None)

    def run(dg=0.0, dv=0.0, **kw):
        return dome.simulate(1.0, q0={"x": 0.0, "y": 1.0}, v0={"x": 1.0 + dv},
                             params={"g": 9.81 + dg}, method="event", **kw)

    res = run(sensitivities=["g", "der(x)"])
    S = res.sensitivity
    assert [(c, k) for _, c, k in S.events] == [("dome", "liftoff")]
    lift = next(e for e in res.events if e.kind == "liftoff")
    th = math.atan2(np.interp(lift.t, res.t, res["x"]), np.interp(lift.t, res.t, res["y"]))
    np.testing.assert_allclose(math.cos(th), (1.0 / 9.81 + 2) / 3, rtol=1e-3)   # sampled
    h = 1e-5
    for name, d in (("g", dict(dg=h)), ("der(x)", dict(dv=h))):
        hi, lo = run(**d), run(**{k: -v for k, v in d.items()})
        t_hi, t_lo = (next(e.t for e in r.events if e.kind == "liftoff") for r in (hi, lo))
        np.testing.assert_allclose(S.event_times[name][0], (t_hi - t_lo) / (2 * h), rtol=2e-3)
        for state in ("x", "y", "der(x)", "der(y)"):
            fd = (hi[state][-1] - lo[state][-1]) / (2 * h)
            np.testing.assert_allclose(S[state][name][-1], fd, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------- forced: time a state
def _table_map_jacobian(A, w, e, g, phi):
    """Jacobian of the exact impact-to-impact map (t_k, v_k) of the ball on the table
    s = A sin(w t) at its period-one fixed point (flight T = 2 pi / w, leaving at phase
    phi with v+ = g T / 2): implicit differentiation of the flight's end,
    A sin(w t_k) + v_k D - g D^2 / 2 = A sin(w (t_k + D)), and of Newton's law."""
    T = 2 * math.pi / w
    V = A * w * math.cos(phi)
    dD_dv = -T / (g * T / 2 - g * T - V)          # F_D = v- - V; F_t = 0 at the fixed point
    a = (1 + e) * A * w * w * math.sin(phi)      # -(d/dt) of (1 + e) s'(t)
    return np.array([[1.0, dD_dv], [-a, -a * dD_dv - e + e * g * dD_dv]])


def test_vibrating_table_period_one_orbit_closed_form():
    # Holmes (1982): the period-one bouncing leaves the table at the phase where
    # (1 + e) s'(t*) = (1 - e) g T / 2; a timed model: the time is a state, the section's
    # time is solved for; multipliers of the exact map (|lambda| = e: a stable focus here)
    A, w, e, g, R = 0.03, 20.0, 0.5, 9.81, 0.1
    table = model_module("vibrating_table").build(A=A, omega=w, e=e, R=R).compile(
        stabilization=None)
    T = 2 * math.pi / w
    phi = math.acos((1 - e) * g * T / (2 * (1 + e) * A * w))
    orb = table.periodic_orbit(q={"y": R + A * math.sin(phi) + 2e-3}, v={"y": 1.03 * g * T / 2},
                               t=phi / w + 3e-3, period=T)
    assert orb.x_names == ["y", "der(y)", "t"]
    np.testing.assert_allclose((orb.t0 * w) % (2 * math.pi), phi, atol=1e-9)
    np.testing.assert_allclose(orb.v["der(y)"], g * T / 2, rtol=1e-9)
    np.testing.assert_allclose(orb.period, T, rtol=1e-12)
    lam = np.linalg.eigvals(_table_map_jacobian(A, w, e, g, phi))
    np.testing.assert_allclose(np.sort_complex(orb.map_multipliers[:2]), np.sort_complex(lam),
                               atol=1e-7)
    np.testing.assert_allclose(np.abs(lam), e, rtol=1e-9)     # det = e^2, complex pair
    # the event engine from the orbit: 20 bounces, one per table period
    res = table.simulate(orb.t0 + 20.5 * T, q0=orb.q, v0=orb.v, method="event",
                         output_times=np.linspace(orb.t0, orb.t0 + 20.5 * T, 50))
    t_imp = np.array([ev.t for ev in res.events if ev.kind == "impact"])
    np.testing.assert_allclose(t_imp, orb.t0 + T * np.arange(1, 21), rtol=0, atol=1e-7)


def test_vibrating_table_flight_time_sensitivity_to_amplitude():
    # from (y0, v0) at t0 the ball lands when y0 + v0 D - g D^2 / 2 = R + A sin(w (t0 + D));
    # d D / d A = sin(w (t0 + D)) / (v^- - s'(t0 + D)) (implicit function theorem)
    A, w, e, g, R = 0.03, 20.0, 0.5, 9.81, 0.1
    table = model_module("vibrating_table").build(A=A, omega=w, e=e, R=R).compile(
        stabilization=None)
    y0, v0, t0 = R + 0.05, 1.0, 0.1
    res = table.simulate(0.5, q0={"y": y0}, v0={"y": v0}, method="event",
                         output_times=np.linspace(t0, 0.5, 40), sensitivities=["A"])
    t1 = next(ev.t for ev in res.events if ev.kind == "impact")
    D = t1 - t0
    vm = v0 - g * D
    dD = math.sin(w * t1) / (vm - A * w * math.cos(w * t1))
    np.testing.assert_allclose(res.sensitivity.event_times["A"][0], dD, rtol=1e-7)


def test_pendulum_sensitivities_with_a_constraint_parameter():
    # the rod length enters the constraint: the initial sensitivity is projected onto the
    # perturbed manifold (the Euclidean projection simulate's initialization makes when
    # every coordinate is given), so d x(t)/d L and d x(t)/d g equal central differences
    # of re-initialized cvodes runs
    import warnings
    import mechdae as md
    sys = md.load("models/pendulum.py").compile()
    kw = dict(q0={"x": 0.6, "y": -0.8}, output_times=np.linspace(0.0, 2.0, 11), rtol=1e-12,
              atol=1e-12)
    res = sys.simulate(2.0, sensitivities=["g", "L"], **kw)
    h = 1e-3
    for p, val in (("g", 9.81), ("L", 1.0)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")          # "consistent initialization changed"
            hi = sys.simulate(2.0, params={p: val + h}, **kw)
            lo = sys.simulate(2.0, params={p: val - h}, **kw)
        for state in ("x", "y", "der(x)"):
            fd = (hi[state] - lo[state]) / (2 * h)
            np.testing.assert_allclose(res.sensitivity[state][p], fd, rtol=1e-5, atol=1e-6)
