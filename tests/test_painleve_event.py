"""Painlevé's rod reaching U <= 0 in a simulation (seed 003 after (3.6); issue 14): the
"painleve" event with its alternatives and the rules liftoff / stay / impact / raise, in
methods "event" and "unified", against the closed forms of the rod (m = l = 1,
I = 1/3, end A sliding with s = sign(x_A')):

    U = 1 + 3 cos^2 th + 3 s mu sin th cos th,   F = -g + th'^2 sin th,
    stay: lam_n = -F/U, lam_t = -s mu lam_n;
    impact without collision (A stops): P = -D^-1 (0, v_t),
    D = [[1 + 3 cos^2, -3 sin cos], [-3 sin cos, 1 + 3 sin^2]] (rows: normal y_A, x_A).
"""
import math
import warnings

import numpy as np
import pytest
from scipy.optimize import brentq

import mechdae as md
from conftest import model_module

pr = model_module("painleve_rod")
MU, G, TH0 = 2.0, 9.81, 0.8


def U_ref(th, s=-1.0):
    return 1 + 3 * math.cos(th) ** 2 + 3 * s * MU * math.sin(th) * math.cos(th)


def F_ref(th, w):
    return -G + w ** 2 * math.sin(th)


def D_ref(th):
    c, s = math.cos(th), math.sin(th)
    return np.array([[1 + 3 * c * c, -3 * s * c], [-3 * s * c, 1 + 3 * s * s]])


@pytest.fixture(scope="module")
def rod():
    return pr.build(mu=MU, both_ends=False, e=0.5).compile(stabilization=None)


def _painleve_events(res):
    return [e for e in res.events if e.kind == "painleve"]


def _check_indeterminate_alternatives(ev, w):
    """The three alternatives at (TH0, th' = w, x_A' = -1) against the closed forms."""
    U, F = U_ref(TH0), F_ref(TH0, w)
    assert U < 0 < F
    assert ev.t == 0.0 and ev.contact == "A" and ev.extra["case"] == "indeterminate"
    assert ev.extra["U"] == pytest.approx(U, rel=1e-9)
    assert ev.extra["F"] == pytest.approx(F, rel=1e-9)
    alts = {a["kind"]: a for a in ev.extra["alternatives"]}
    assert set(alts) == {"liftoff", "stay", "impact"}
    assert alts["liftoff"]["modes"] == {"A": "separate"}
    assert np.allclose(alts["liftoff"]["lam"]["A"], 0.0)
    lam = -F / U
    assert alts["stay"]["modes"] == {"A": "slide"}
    np.testing.assert_allclose(alts["stay"]["lam"]["A"], [lam, MU * lam], rtol=1e-9)
    P = -np.linalg.solve(D_ref(TH0), [0.0, -1.0])
    assert P[0] > 0 and abs(P[1]) <= MU * P[0]
    np.testing.assert_allclose(alts["impact"]["P"]["A"], P, rtol=1e-9)
    return alts


# ------------------------------------------------------------------------- event
def test_event_indeterminate_default_lifts_off_with_a_warning(rod):
    w = 5.0
    q, v = pr.sliding_state(TH0, -1.0, w)
    with pytest.warns(RuntimeWarning, match=r"Painlevé indeterminate case at t = 0: contact "
                      r"'A'.*took liftoff \(the default\)"):
        res = rod.simulate(0.01, q0=q, v0=v, method="event", n_out=11)
    ev, = _painleve_events(res)
    alts = _check_indeterminate_alternatives(ev, w)
    assert ev.extra["rule"] == "liftoff" and ev.extra["alternatives"][ev.extra["chosen"]] is \
        alts["liftoff"]
    # lift-off: free flight, th = th0 + w t, y = y0 + y0' t - g t^2 / 2
    assert all(m == "o" for m in res.modes)
    np.testing.assert_allclose(res["th"], TH0 + w * res.t, atol=1e-9)
    y0, vy0 = math.sin(TH0), math.cos(TH0) * w
    np.testing.assert_allclose(res["y"], y0 + vy0 * res.t - G * res.t ** 2 / 2, atol=1e-9)


def test_event_stay_slides_on_with_lam_minus_F_over_U(rod):
    w = 5.0
    q, v = pr.sliding_state(TH0, -1.0, w)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*Painlev", category=RuntimeWarning)
        res = rod.simulate(0.01, q0=q, v0=v, method="event", painleve="stay", n_out=11)
    ev, = _painleve_events(res)
    alts = _check_indeterminate_alternatives(ev, w)
    assert ev.extra["alternatives"][ev.extra["chosen"]] is alts["stay"]
    assert set(res.modes) == {"-"}
    # the contact force along the run is -F/U of the closed forms at each output state
    th, thd = res["th"], res.v[:, 2]
    lam = np.array([-F_ref(a, b) / U_ref(a) for a, b in zip(th, thd)])
    np.testing.assert_allclose(res.contact_forces["A"][:, 0], lam, rtol=1e-6)
    assert np.all(np.abs(res["y"] - np.sin(th)) < 1e-9)          # A stays on the floor


def test_event_impact_rule_stops_the_end_by_a_tangential_impact(rod):
    w = 5.0
    q, v = pr.sliding_state(TH0, -1.0, w)
    res = rod.simulate(0.01, q0=q, v0=v, method="event", painleve="impact", n_out=11)
    ev, = _painleve_events(res)
    alts = _check_indeterminate_alternatives(ev, w)
    P = alts["impact"]["P"]["A"]
    np.testing.assert_allclose(ev.impulse, P, rtol=1e-9)
    # u+ = u- + M^-1 W^T P: x' += P_t, y' += P_n, th' += 3 (-cos P_n + sin P_t)
    _, v0 = pr.sliding_state(TH0, -1.0, w)
    up = np.array([v0["x"] + P[1], v0["y"] + P[0],
                   w + 3 * (-math.cos(TH0) * P[0] + math.sin(TH0) * P[1])])
    np.testing.assert_allclose(res.v[0], up, atol=1e-9)
    assert res.v[0, 0] + math.sin(TH0) * res.v[0, 2] == pytest.approx(0.0, abs=1e-9)  # x_A'
    assert ev.energy_after < ev.energy_before


def test_event_raise_carries_the_case_alternatives_and_partial(rod):
    w = 5.0
    q, v = pr.sliding_state(TH0, -1.0, w)
    with pytest.raises(md.PainleveError, match="several consistent solutions") as info:
        rod.simulate(0.01, q0=q, v0=v, method="event", painleve="raise")
    err = info.value
    assert err.case == "indeterminate" and err.t == 0.0 and err.contact == "A"
    assert {a["kind"] for a in err.alternatives} == {"liftoff", "stay", "impact"}
    assert err.U == pytest.approx(U_ref(TH0), rel=1e-9)
    assert err.partial is not None and [e.kind for e in err.partial.events] == ["painleve"]


@pytest.mark.parametrize("rule", [None, "liftoff", "stay", "raise"])
def test_event_inconsistent_case_raises_unless_impact(rod, rule):
    q, v = pr.sliding_state(TH0, -1.0, 0.0)            # F = -g < 0, U < 0: no solution
    kw = {} if rule is None else dict(painleve=rule)
    with pytest.raises(md.PainleveError, match="inconsistent case") as info:
        rod.simulate(0.1, q0=q, v0=v, method="event", **kw)
    err = info.value
    assert err.case == "inconsistent" and err.F == pytest.approx(-G, rel=1e-9)
    # the only alternative listed: the impact without collision
    P = -np.linalg.solve(D_ref(TH0), [0.0, -1.0])
    (alt,) = err.alternatives
    assert alt["kind"] == "impact"
    np.testing.assert_allclose(alt["P"]["A"], P, rtol=1e-9)
    res = rod.simulate(0.1, q0=q, v0=v, method="event",
                       painleve={"inconsistent": "impact"})
    ev = _painleve_events(res)[0]
    assert ev.extra["case"] == "inconsistent" and ev.extra["rule"] == "impact"
    np.testing.assert_allclose(ev.impulse, P, rtol=1e-9)


def test_rule_values_are_checked_before_the_run(rod):
    for bad in ("ignore", {"indeterminate": "impactt"}, {"inconsistent": "stay"},
                {"sometimes": "raise"}):
        with pytest.raises(ValueError, match="painleve"):
            rod.simulate(0.1, method="event", painleve=bad)
        with pytest.raises(ValueError, match="painleve"):
            rod.simulate(0.1, method="auto", painleve=bad)


def test_auto_follows_the_same_rule(rod):
    q, v = pr.sliding_state(TH0, -1.0, 5.0)
    res = rod.simulate(0.01, q0=q, v0=v, method="auto", painleve="stay", n_out=11)
    ev, = _painleve_events(res)
    assert ev.extra["rule"] == "stay" and set(res.modes) == {"-"}


# ----------------------------------------------------------------------- unified
def test_unified_indeterminate_rules(rod):
    w = 5.0
    q, v = pr.sliding_state(TH0, -1.0, w)
    with pytest.warns(RuntimeWarning, match=r"unified: Painlevé indeterminate"):
        res = rod.simulate(0.01, q0=q, v0=v, method="unified", dt=1e-3)
    ev, = _painleve_events(res)
    _check_indeterminate_alternatives(ev, w)
    # lift-off: the contact leaves with v' = F (2.9), the flight is free
    np.testing.assert_allclose(res["th"], TH0 + w * res.t, atol=1e-9)
    assert res.x[-1, 0] > 0
    stay = rod.simulate(0.01, q0=q, v0=v, method="unified", dt=1e-4, painleve="stay")
    assert np.all(stay.x == 0.0)                       # s = v = 0: stays on the support
    ref = rod.simulate(0.01, q0=q, v0=v, method="event", painleve="stay", n_out=11)
    assert stay["th"][-1] == pytest.approx(ref["th"][-1], abs=1e-8)
    with pytest.raises(md.PainleveError) as info:
        rod.simulate(0.01, q0=q, v0=v, method="unified", painleve="raise")
    assert info.value.case == "indeterminate"
    with pytest.raises(ValueError, match="method='event'"):
        rod.simulate(0.01, q0=q, v0=v, method="unified", painleve="impact")


def test_unified_inconsistent_on_the_support(rod):
    q, v = pr.sliding_state(TH0, -1.0, 0.0)
    with pytest.raises(md.PainleveError, match="inconsistent case at t = 0") as info:
        rod.simulate(0.1, q0=q, v0=v, method="unified")
    assert info.value.U == pytest.approx(U_ref(TH0), rel=1e-9)
    assert info.value.F == pytest.approx(-G, rel=1e-9)


@pytest.mark.parametrize("h,vA", [(0.01, -1.0), (0.02, -3.0)])
def test_unified_landing_in_the_painleve_region(rod, h, vA):
    """A rod falling without rotation lands at t* = sqrt(2 h / g) with A sliding where
    U < 0: the sliding impact law (3.9) would need P_n = (gdot+ - gdot-)/U < 0. The run
    stops there with the Newton-Coulomb impact (stick) as the alternative, which is what
    method "event" applies at the same time."""
    q = {"x": math.cos(TH0), "y": math.sin(TH0) + h, "th": TH0}
    v = {"x": vA}
    t_star = math.sqrt(2 * h / G)
    with pytest.raises(md.PainleveError) as info:
        rod.simulate(0.3, q0=q, v0=v, method="unified", dt=1e-3)
    err = info.value
    assert err.t == pytest.approx(t_star, abs=1e-12)
    assert err.U == pytest.approx(U_ref(TH0), rel=1e-9) and err.case == "inconsistent"
    ev = err.partial.events[-1]
    assert ev.kind == "painleve" and ev.t == err.t
    (alt,) = err.alternatives
    # the stick impact: v_n+ = -e v_n-, v_t+ = 0, P = D^-1 ((1 + e) (-v_n-), -v_t-)
    vn = -G * t_star
    P = np.linalg.solve(D_ref(TH0), [-(1 + 0.5) * vn, -vA])
    np.testing.assert_allclose(alt["P"]["A"], P, rtol=1e-9)
    res = rod.simulate(t_star + 0.01, q0=q, v0=v, method="event")
    imp = [e for e in res.events if e.kind == "impact"][0]
    assert imp.t == pytest.approx(t_star, abs=1e-9)
    np.testing.assert_allclose(imp.impulse, P, rtol=1e-6)


def test_unified_locates_the_jam_where_U_vanishes():
    """Sliding towards the rod (s = -1) with U > 0 and F < 0 while th rises: the contact
    force -F/U grows without bound as th reaches th_1, the root of U (closed form); the
    unified method stops there with the inconsistent case."""
    rod = pr.build(mu=MU, both_ends=False, e=0.5).compile(stabilization=None)
    th1 = brentq(U_ref, 0.3, 0.8)
    q, v = pr.sliding_state(0.5, -5.0, 3.0)
    with pytest.raises(md.PainleveError, match="inconsistent") as info:
        rod.simulate(0.5, q0=q, v0=v, method="unified", dt=1e-3)
    p = info.value.partial
    assert p["th"][-1] == pytest.approx(th1, abs=1e-9)
    assert abs(info.value.U) < 1e-9 and info.value.F < 0
    assert p.events[-1].kind == "painleve"


def test_timestepping_passes_the_inconsistent_case_by_the_tangential_impulse(rod):
    """Moreau-Jean has no painleve rule (ValueError names the methods that do): its first
    step at the inconsistent state applies the impulse of the impact without collision,
    P = -D^-1 (0, v_t), up to the O(dt) impulse of gravity over the step."""
    q, v = pr.sliding_state(TH0, -1.0, 0.0)
    dt = 1e-4
    res = rod.simulate(0.002, q0=q, v0=v, method="timestepping", dt=dt, store_impulses=True)
    P = -np.linalg.solve(D_ref(TH0), [0.0, -1.0])
    first = res.impulses[np.flatnonzero(res.impulses[:, 0] > 0)[0]]
    np.testing.assert_allclose(first, P, atol=10 * G * dt)
    with pytest.raises(ValueError, match="'event' or 'unified'"):
        rod.simulate(0.01, q0=q, v0=v, method="timestepping", painleve="raise")


# ------------------------------------------------------------ the jam in "event"
@pytest.fixture(scope="module")
def jam_event(rod):
    """The start of test_unified_locates_the_jam_where_U_vanishes, in method "event"."""
    q, v = pr.sliding_state(0.5, -5.0, 3.0)
    with pytest.raises(md.PainleveError, match="inconsistent case") as info:
        rod.simulate(0.5, q0=q, v0=v, method="event")
    return q, v, info.value


def test_event_locates_the_jam_where_U_vanishes(jam_event):
    """U of the sliding contact is an event function of the sliding modes: the run stops
    where it reaches 0 (at U / D_nn = 1e-10, before the accelerations ~ 1/U overflow the
    integrator) with the rod at the root th_1 of U, the inconsistent case recorded, and
    U, F the closed forms at the state reached."""
    _, _, err = jam_event
    th1 = brentq(U_ref, 0.3, 0.8)
    p = err.partial
    th, thd = p["th"][-1], p.v[-1, 2]
    assert th == pytest.approx(th1, abs=1e-9) and th < th1
    assert err.case == "inconsistent" and err.contact == "A" and err.t == p.t[-1]
    assert 0 < err.U < 1e-9
    assert err.U == pytest.approx(U_ref(th), abs=1e-13)
    assert err.F == pytest.approx(F_ref(th, thd), abs=1e-9) and err.F < 0
    ev = p.events[-1]
    assert ev.kind == "painleve" and ev.t == err.t and ev.extra["case"] == "inconsistent"
    assert ev.extra["rule"] == "raise" and ev.extra["chosen"] is None
    assert abs(p["y"][-1] - math.sin(th)) < 1e-9               # A still on the floor
    # the only alternative: the impact without collision that stops A (at U = 0 the
    # sticking impulse -D^-1 (0, v_t) lies on the cone's edge, P_t = mu P_n)
    (alt,) = err.alternatives
    vt = p.v[-1, 0] + math.sin(th) * thd
    P = -np.linalg.solve(D_ref(th), [0.0, vt])
    np.testing.assert_allclose(alt["P"]["A"], P, rtol=1e-6)
    assert P[1] == pytest.approx(MU * P[0], rel=1e-8)


def test_event_jam_is_approached_with_F_vanishing_like_a_power_of_U(rod, jam_event):
    """Along the approach th'' = 3 lam (mu sin - cos), lam = -F/U, so
    dF/dt ~ 6 th' sin th (mu sin - cos) (-F)/U and dU/dt = U'(th) th': F ~ U^p with
    p = 6 sin th_1 (mu sin th_1 - cos th_1) / |U'(th_1)|, U' = -3 sin 2th - 3 mu cos 2th.
    The force -F/U ~ U^(p-1) is unbounded, and F -> 0 with U: the rod reaches the
    critical point U = F = 0 (Génot & Brogliato 1999). The log-log slope of the run's
    -F against U over the last decades before the event is p."""
    q, v, err = jam_event
    th1 = brentq(U_ref, 0.3, 0.8)
    p_ref = (6 * math.sin(th1) * (MU * math.sin(th1) - math.cos(th1))
             / abs(-3 * math.sin(2 * th1) - 3 * MU * math.cos(2 * th1)))
    ot = [0.0] + [err.t - 10.0 ** -k for k in (6, 7, 8, 9)] + [0.05]
    with pytest.raises(md.PainleveError) as info:
        rod.simulate(0.05, q0=q, v0=v, method="event", output_times=ot)
    res = info.value.partial
    k = [int(np.flatnonzero(res.t == t)[0]) for t in ot[1:-1]]
    U = np.array([U_ref(a) for a in res["th"][k]])
    F = np.array([F_ref(a, b) for a, b in zip(res["th"][k], res.v[k, 2])])
    assert np.all(U > 0) and np.all(F < 0)
    slopes = np.diff(np.log(-F)) / np.diff(np.log(U))
    np.testing.assert_allclose(slopes, p_ref, rtol=2e-3)
    assert -err.F < 1e-3 * G                       # F ~ U^p at U / D_nn = 1e-10


def test_event_and_unified_agree_on_the_jam(rod, jam_event):
    """Both methods stop at th_1 (1e-9); the unified time converges to the event time
    as its step shrinks (its last step spans the 1/U singularity of the force)."""
    q, v, err = jam_event
    th1 = brentq(U_ref, 0.3, 0.8)
    for dt in (1e-3, 1e-4):
        with pytest.raises(md.PainleveError) as info:
            rod.simulate(0.5, q0=q, v0=v, method="unified", dt=dt)
        pu = info.value.partial
        assert pu["th"][-1] == pytest.approx(th1, abs=1e-9)
        assert info.value.t == pytest.approx(err.t, abs=1e-2 * dt)
    # before the jam the two agree on the state (unified at a fine step)
    ref = rod.simulate(0.0479, q0=q, v0=v, method="event", n_out=2)
    uni = rod.simulate(0.0479, q0=q, v0=v, method="unified", dt=1e-5,
                       output_times=[0.0, 0.0479])
    np.testing.assert_allclose(uni.v[-1], ref.v[-1], atol=1e-6)


@pytest.mark.parametrize("dt", [1e-3, 1e-4, 1e-5])
def test_unified_stops_at_the_jam_for_every_step(rod, jam_event, dt):
    """Issue 14: at dt = 1e-5 a fixed RK4 step spanned the 1/U singularity of the force
    -F/U and returned a state with U back above 0 and F = +7.8e3 (F ~ U^p -> 0- in the
    exact motion): a false lift-off, then "U passes through 0 in flight". Near the jam
    the step is now limited to half the time U needs to reach 0 and the jam declared at
    U <= 1e-10 D_nn (D_nn = 1 + 3 cos^2 th, as "event"): for every step the run stops
    with no lift-off, inconsistent, at 0 < th_1 - th <= 1e-10 D_nn / |U'(th_1)|
    (U' = -3 sin 2th - 3 mu cos 2th), with U, F the closed forms there. The error of the
    integration itself, the stop time against the time at which the event run passes
    the same angle, shrinks with the step (<= 1e-6 dt)."""
    q, v, err = jam_event
    th1 = brentq(U_ref, 0.3, 0.8)
    dU = abs(-3 * math.sin(2 * th1) - 3 * MU * math.cos(2 * th1))
    with pytest.raises(md.PainleveError, match="inconsistent case") as info:
        rod.simulate(0.5, q0=q, v0=v, method="unified", dt=dt)
    e, p = info.value, info.value.partial
    assert [ev.kind for ev in p.events] == ["painleve"] and e.case == "inconsistent"
    th, thd = p["th"][-1], p.v[-1, 2]
    assert 0 < th1 - th <= 1e-10 * (1 + 3 * math.cos(th1) ** 2) / dU * 1.01
    assert 0 < e.U == pytest.approx(U_ref(th), abs=1e-13)
    assert e.F == pytest.approx(F_ref(th, thd), abs=1e-9) and -1e-3 * G < e.F < 0
    pe = err.partial
    t_same = err.t + (th - pe["th"][-1]) / pe.v[-1, 2]       # event run at the same angle
    assert abs(e.t - t_same) <= 1e-6 * dt


def test_event_jam_impact_rule_stops_the_end(rod):
    """painleve={'inconsistent': 'impact'}: at the jam the impact without collision
    P = -D^-1 (0, v_t) stops A (x_A' = 0, y_A' = 0) and the run goes on."""
    q, v = pr.sliding_state(0.5, -5.0, 3.0)
    res = rod.simulate(0.1, q0=q, v0=v, method="event", painleve={"inconsistent": "impact"})
    ev = _painleve_events(res)[-1]
    th1 = brentq(U_ref, 0.3, 0.8)
    assert ev.extra["case"] == "inconsistent" and ev.extra["rule"] == "impact"
    k = int(np.flatnonzero(res.t == ev.t)[0])
    th, (xd, yd, thd) = res["th"][k], res.v[k]
    assert th == pytest.approx(th1, abs=1e-9)
    P = -np.linalg.solve(D_ref(th), [0.0, xd + math.sin(th) * thd])
    np.testing.assert_allclose(ev.impulse, P, rtol=1e-6)
    # u+ = u- + M^-1 W^T P (the formula of the tangential impact test above)
    up = np.array([xd + P[1], yd + P[0], thd + 3 * (-math.cos(th) * P[0]
                                                  + math.sin(th) * P[1])])
    j = [i for i in range(len(res.t)) if res.t[i] == ev.t][-1]
    np.testing.assert_allclose(res.v[j], up, atol=1e-7)
    assert up[0] + math.sin(th) * up[2] == pytest.approx(0.0, abs=1e-7)      # x_A' = 0
    assert ev.energy_after < ev.energy_before
    assert res.t[-1] == pytest.approx(0.1)


def test_event_jam_with_cvodes_windows(rod, jam_event):
    """phase_integrator='cvodes': a window cannot integrate past the 1/U singularity;
    shorter windows approach it and the jam is located at the same time and angle."""
    q, v, err = jam_event
    with pytest.raises(md.PainleveError) as info:
        rod.simulate(0.5, q0=q, v0=v, method="event", phase_integrator="cvodes")
    assert info.value.case == "inconsistent"
    assert info.value.partial["th"][-1] == pytest.approx(brentq(U_ref, 0.3, 0.8), abs=1e-9)
    assert info.value.t == pytest.approx(err.t, abs=1e-9)


def test_event_jam_with_a_bilateral_constraint():
    """A flywheel of inertia m_z geared to the rod (holonomic z = th): the U of the jam
    event is the Schur complement with the constraint kept, U = 1 + (cos^2 - mu sin cos)/I
    with I = 1/3 + m_z (s = -1); the run stops at its root."""
    mz = 0.1
    model = md.Model("rod_flywheel")
    x, y, th, z = model.coordinates("x y th z")
    model.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2) + md.der(th) ** 2 / 6
                         + 0.5 * mz * md.der(z) ** 2)
    model.potential_energy(G * y)
    model.holonomic(z - th, name="geared")
    model.contact("A", gap=y - md.sin(th), tangent=x - md.cos(th), friction=MU,
                  restitution=0.5)
    system = model.compile(stabilization=None)
    inertia = 1 / 3 + mz

    def U(a):
        return 1 + (math.cos(a) ** 2 - MU * math.sin(a) * math.cos(a)) / inertia

    th1 = brentq(U, 0.3, 1.0)
    assert abs(th1 - brentq(U_ref, 0.3, 0.8)) > 0.05          # not the rod's own root
    q, v = pr.sliding_state(0.5, -5.0, 3.0)
    q["z"], v["z"] = q["th"], v["th"]
    with pytest.raises(md.PainleveError, match="inconsistent case") as info:
        system.simulate(0.5, q0=q, v0=v, method="event")
    th_e = info.value.partial["th"][-1]
    assert th_e == pytest.approx(th1, abs=1e-9)
    assert info.value.U == pytest.approx(U(th_e), abs=1e-12)
