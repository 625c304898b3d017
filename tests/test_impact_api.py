"""System.impact / impact_batch / contact_forces / contact_problem: the API itself."""
import math

import numpy as np
import pytest

import mechdae as md
from mechdae.contact import EnergyGainError, kernels
from mechdae.contact.assembly import _impact_prob, contact_problem


def ball(e=0.8, mu=0.3):
    m = md.Model("ball")
    x, y = m.coordinates("x y")
    mass = m.parameter("m", 2.0)
    e_ = m.parameter("e", e)
    mu_ = m.parameter("mu", mu)
    m.kinetic_energy(0.5 * mass * (md.der(x) ** 2 + md.der(y) ** 2))
    m.potential_energy(mass * 9.81 * y)
    m.contact("floor", gap=y, tangent=x, restitution=e_, friction=mu_)
    m.contact("wall", gap=1.0 - x, restitution=0.5)          # frictionless, no tangent
    return m.compile()


@pytest.fixture(scope="module")
def sb():
    return ball()


def test_bouncing_point_mass_closed_form(sb):
    out = sb.impact({"x": 0.0, "y": 0.0}, {"x": 3.0, "y": -3.0})
    assert out.active == ["floor"]                         # wall gap = 1: not active
    assert out.status == "unique" and out.unique and not out.ambiguous
    # Newton: v_y+ = -e v_y- = 2.4; sliding: P_n = m (1 + e) 3 = 10.8, P_t = -mu P_n
    assert out.v_plus["der(y)"] == pytest.approx(2.4, rel=1e-14)
    assert out.impulses["floor"][0] == pytest.approx(10.8, rel=1e-14)
    assert out.impulses["floor"][1] == pytest.approx(-0.3 * 10.8, rel=1e-14)
    assert out.v_plus["der(x)"] == pytest.approx(3.0 - 0.3 * 10.8 / 2.0, rel=1e-14)
    assert out.modes == {"floor": "slide"}
    assert out.energy_before == pytest.approx(0.5 * 2 * 18.0)
    assert out.energy_after == pytest.approx(0.5 * 2 * (2.4 ** 2 + (3 - 1.62) ** 2))
    # slow tangential speed (|P_t| = m v_t = 2 <= mu P_n): sticks
    out = sb.impact({"y": 0.0}, {"x": 1.0, "y": -3.0})
    assert out.modes == {"floor": "stick"} and out.v_plus["der(x)"] == 0.0


def test_dict_and_array_inputs_agree(sb):
    a = sb.impact({"x": 0.2, "y": 0.0}, {"x": 1.0, "y": -3.0})
    b = sb.impact(np.array([0.2, 0.0]), np.array([1.0, -3.0]))
    c = sb.impact([0.2, 0.0], {"der(x)": 1.0, "der(y)": -3.0})
    np.testing.assert_array_equal(a.v_plus_array, b.v_plus_array)
    np.testing.assert_array_equal(a.v_plus_array, c.v_plus_array)


def test_active_set_default_and_explicit(sb):
    q = {"x": 1.0, "y": 0.0}                    # corner: both contacts closed
    out = sb.impact(q, {"x": 1.0, "y": -1.0})
    assert out.active == ["floor", "wall"]
    assert out.v_plus["der(x)"] == pytest.approx(-0.5) and out.v_plus["der(y)"] == pytest.approx(0.8)
    out = sb.impact(q, {"x": 1.0, "y": -1.0}, active=["wall"])
    assert out.active == ["wall"] and out.v_plus["der(y)"] == -1.0
    out = sb.impact({"y": 0.5}, {"y": -1.0})            # nothing closed: no change
    assert out.active == [] and out.v_plus["der(y)"] == -1.0


def test_params_override_without_recompiling(sb):
    F = sb.functions["M"]
    out = sb.impact({"y": 0.0}, {"y": -3.0}, params={"e": 0.25, "m": 5.0})
    assert out.v_plus["der(y)"] == pytest.approx(0.75)
    assert out.impulses["floor"][0] == pytest.approx(5.0 * 3.75)
    assert sb.functions["M"] is F


def test_bad_inputs_name_the_problem(sb):
    with pytest.raises(ValueError, match="unknown contact 'roof'"):
        sb.impact({"y": 0.0}, {"y": -1.0}, active=["roof"])
    with pytest.raises(ValueError, match="q: expected 2"):
        sb.impact([0.0, 0.0, 0.0], [0.0, -1.0])
    with pytest.raises(ValueError, match="v: expected 2"):
        sb.impact([0.0, 0.0], [0.0])
    with pytest.raises(ValueError, match="'y'"):
        sb.impact({"y": math.nan}, {"y": -1.0})
    with pytest.raises(ValueError, match="'der\\(x\\)'"):
        sb.impact({"y": 0.0}, {"x": math.inf})
    with pytest.raises(ValueError, match="unknown parameter 'k'"):
        sb.impact({"y": 0.0}, {"y": -1.0}, params={"k": 1.0})


def test_energy_gain_is_an_error_naming_the_contacts(sb):
    prob = contact_problem(sb, {"y": 0.0}, {"y": -3.0})
    prob.B = 3.0 * prob.B      # a Delta u inconsistent with D: the law "gains" energy
    with pytest.raises(EnergyGainError, match="'floor'"):
        _impact_prob(sb, prob, False, "auto", 1e-9)


def test_holonomic_constraint_takes_its_share_of_the_impulse():
    # Cartesian pendulum hitting a wall x = d at angle th0 from the downward vertical
    m = md.Model("pendulum_wall")
    x, y = m.coordinates("x y")
    L, d = 1.0, math.sin(0.7)
    m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2))
    m.holonomic(x ** 2 + y ** 2 - L ** 2, name="rod")
    m.contact("wall", gap=d - x, restitution=0.5)
    s = m.compile()
    th, w = 0.7, 2.0
    q = {"x": math.sin(th), "y": -math.cos(th)}
    v = {"x": w * math.cos(th), "y": w * math.sin(th)}
    out = s.impact(q, v)
    # one degree of freedom: w+ = -e w-
    np.testing.assert_allclose(out.v_plus_array, -0.5 * np.array([v["x"], v["y"]]),
                               atol=1e-12)
    assert out.energy_after == pytest.approx(0.25 * out.energy_before)


def test_contact_forces_modes(sb):
    # resting: stays (stick) with lam_n = m g
    cf = sb.contact_forces({"y": 0.0}, {})
    assert cf.status == "unique" and cf.modes == {"floor": "stick"}
    assert cf.lam["floor"][0] == pytest.approx(2.0 * 9.81)
    np.testing.assert_allclose(cf.udot, 0.0, atol=1e-12)
    # separating contact is not active by default
    cf = sb.contact_forces({"y": 0.0}, {"y": 1.0})
    assert cf.active == [] and cf.udot[1] == pytest.approx(-9.81)
    # sliding: deceleration mu g
    cf = sb.painleve({"y": 0.0}, {"x": 2.0})
    assert cf.status == "unique" and cf.modes == {"floor": "slide"}
    assert cf.udot[0] == pytest.approx(-0.3 * 9.81)
    assert cf.U["floor"] == pytest.approx(0.5) and cf.F["floor"] == pytest.approx(-9.81)


def test_batch_matches_single_and_params_arrays(sb):
    N = 50
    rng = np.random.default_rng(1)
    qs = np.column_stack([rng.uniform(-1, 0.5, N), np.zeros(N)])
    vs = np.column_stack([rng.normal(size=N), -rng.uniform(0.5, 3, N)])
    es = rng.uniform(0, 1, N)
    out = sb.impact_batch(qs, vs, params={"e": es})
    for i in range(0, N, 5):
        s1 = sb.impact(qs[i], vs[i], params={"e": es[i]})
        np.testing.assert_allclose(out.v_plus_array[i], s1.v_plus_array, atol=1e-13)
        assert out.mode("floor")[i] == s1.modes["floor"]
        assert out.energy_after[i] == pytest.approx(s1.energy_after)
    with pytest.raises(ValueError, match="closed contacts differ"):
        sb.impact_batch(np.array([[0.0, 0.0], [1.0, 0.0]]), np.zeros((2, 2)))


def test_poisson_frictionless_two_phase():
    m = md.Model("pball")
    y = m.coordinates("y")
    m.kinetic_energy(0.5 * md.der(y) ** 2)
    m.contact("floor", gap=y, restitution=0.6, law="poisson")
    out = m.compile().impact({"y": 0.0}, {"y": -2.0})
    assert out.v_plus["der(y)"] == pytest.approx(1.2)
    assert out.impulses["floor"][0] == pytest.approx(1.6 * 2.0)


@pytest.mark.parametrize("mu", [1e6, 1e9, 1e12, 1e15, 1e300, np.inf])
def test_kernel_large_mu_no_spurious_separate_solution(mu):
    # a sliding row P_t + mu s P_n = 0 next to a Delassus row of order one: the rank
    # decision of the mode solve must not depend on mu (it once accepted P = 0 with
    # w_n = -1 < 0 for mu >= 1e9)
    out = kernels.impact(np.eye(2), [-1.0, 0.0], 0.0, 0.0, mu, 2, all_solutions=True)
    assert out.status == "unique"
    assert out.modes == ("stick",)
    np.testing.assert_allclose(out.P, [1.0, 0.0], atol=1e-15)


@pytest.mark.parametrize("mu", [1e9, 1e12])
def test_rocking_block_large_finite_mu_matches_no_slip(mu):
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
    import rocking_block as rb
    s = rb.build().compile()
    q, v = rb.flat_state(1.0)
    ref = s.impact(q, v, params={"mu": np.inf}, all_solutions=True)
    out = s.impact(q, v, params={"mu": mu}, all_solutions=True)
    assert out.status == "unique"
    assert out.modes == ref.modes == {"L": "stick", "R": "separate"}
    np.testing.assert_allclose(out.v_plus_array, ref.v_plus_array, atol=1e-14)


def test_kernel_batch_outputs_of_inconsistent_problems():
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
    import two_link_impact as tl
    s = tl.build().compile()
    q, v = tl.impact_state(0.07, -3.08)          # below gamma_5: no consistent impact
    prob = s.contact_problem(q, v)
    N = 64
    # the output arrays are allocated uninitialized: every entry must be written by C
    out = kernels.impact_batch(np.repeat(prob.D[None], N, 0), np.repeat(prob.v_minus[None], N, 0),
                               0.0, 0.0, prob.mu, 2, energy="report")
    assert (out.status == "inconsistent").all()
    assert (out.n_solutions == 0).all()
    assert (out.modes == kernels.MODE_NONE).all()
    assert np.isnan(out.P).all() and np.isnan(out.v_plus).all()
    assert np.isnan(out.energy_change).all()
    # mixed with solvable problems (one batch): only the inconsistent rows are "none"
    q2, v2 = tl.impact_state(0.7, -1.5)
    p2 = s.contact_problem(q2, v2)
    Ds = np.stack([prob.D, p2.D] * 8)
    vs = np.stack([prob.v_minus, p2.v_minus] * 8)
    out = kernels.impact_batch(Ds, vs, 0.0, 0.0, prob.mu, 2, energy="report")
    assert (out.modes[0::2] == -1).all() and ((out.modes[1::2] >= 0) & (out.modes[1::2] <= 2)).all()
    assert np.isfinite(out.P[1::2]).all() and np.isnan(out.P[0::2]).all()
    # System level: NaN speeds, mode "none"
    sb = s.impact_batch(np.stack([q_arr(s, q), q_arr(s, q2)]), np.stack([u_arr(s, q, v), u_arr(s, q2, v2)]),
                        energy="report")
    assert list(sb.status) == ["inconsistent", s.impact(q2, v2).status]
    assert np.isnan(sb.v_plus_array[0]).all() and np.isfinite(sb.v_plus_array[1]).all()
    assert sb.mode("B")[0] == "none" and np.isnan(sb.energy_after[0])


def test_kernel_batch_no_contact_outputs_defined():
    out = kernels.impact_batch(np.zeros((5, 0, 0)), np.zeros((5, 0)), dim=2)
    assert (out.status == "unique").all() and (out.n_solutions == 1).all()
    assert (out.energy_change == 0.0).all()


def q_arr(s, q):
    return np.asarray(s.state_arrays(q, None)[0], dtype=float)


def u_arr(s, q, v):
    return np.asarray(s.state_arrays(q, v)[1], dtype=float)


def _degenerate_model():
    # M = [[1, 1], [1, 1 + x^2]]: det M = x^2, singular on the line x = 0
    m = md.Model("degenerate")
    x, y = m.coordinates("x y")
    m.kinetic_energy(0.5 * (md.der(x) + md.der(y)) ** 2 + 0.5 * x ** 2 * md.der(y) ** 2)
    m.contact("floor", gap=y, tangent=x, friction=0.3)
    return m.compile()


def test_singular_mass_matrix_is_a_clear_error_not_casadi_output(capfd):
    s = _degenerate_model()
    q, v = {"x": 0.0, "y": 0.0}, {"x": 0.0, "y": -1.0}
    capfd.readouterr()
    for call in (lambda: s.impact(q, v), lambda: s.impact(q, v, all_solutions=True),
                 lambda: s.contact_problem(q, v), lambda: s.contact_forces(q, v)):
        with pytest.raises(ValueError, match=r"model 'degenerate': the mass matrix M is "
                                             r"singular at q = \(x=0, y=0\)"):
            call()
    with pytest.raises(ValueError, match=r"state 1 \(2 of 3 states singular\): model "
                                         "'degenerate'"):
        s.impact_batch(np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]]),
                       np.tile([0.0, -1.0], (3, 1)))
    out, err = capfd.readouterr()
    assert "LDL" not in out + err and "WARNING" not in out + err
    # regular away from x = 0: M^-1 W^T from the factorization in the graph is exact
    res = s.impact({"x": 0.5, "y": 0.0}, {"x": 0.0, "y": -1.0})
    M = np.array([[1.0, 1.0], [1.0, 1.25]])
    np.testing.assert_allclose(res.problem.M, M, rtol=1e-15)
    W = res.problem.W
    np.testing.assert_allclose(res.problem.D[:W.shape[0], :W.shape[0]],
                               W @ np.linalg.solve(M, W.T), rtol=1e-13, atol=1e-15)


def _fast_vs_general(s, q, v, **kw):
    fast = s.impact(q, v, **kw)
    slow = s.impact(q, v, all_solutions=True, **kw)      # the general path
    assert fast.status == slow.status
    first = slow.solutions[0]
    np.testing.assert_allclose(fast.v_plus_array, first.v_plus_array, rtol=1e-13, atol=1e-14)
    assert fast.modes == first.modes
    assert fast.active == slow.active
    for c in fast.active:
        np.testing.assert_allclose(fast.impulses[c], first.impulses[c], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(fast.contact_velocities[c], first.contact_velocities[c],
                                   rtol=1e-12, atol=1e-14)
    assert fast.v_plus == pytest.approx(first.v_plus, rel=1e-13, abs=1e-14)
    assert fast.energy_before == pytest.approx(slow.energy_before, rel=1e-14)
    assert fast.energy_after == pytest.approx(first.energy_after, rel=1e-12, abs=1e-15)
    np.testing.assert_allclose(fast.delta_u, fast.v_plus_array - fast.problem.u, atol=1e-15)
    np.testing.assert_allclose(fast.problem.D, slow.problem.D, rtol=1e-15)
    assert len(fast.solutions) == 1 and fast.solutions[0].modes == fast.modes
    return fast


def test_fast_path_agrees_with_general_path(sb):
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
    import rocking_block as rb
    import two_link_impact as tl
    blk = rb.build().compile()
    for w in (1.0, -0.7, 2.5):
        for e, mu in ((0.5, 0.5), (0.0, 0.1), (0.9, 2.0), (0.3, np.inf)):
            q, v = rb.flat_state(w)
            qa, ua = blk.state_arrays(q, v)[:2]
            _fast_vs_general(blk, qa, ua, params={"e": e, "mu": mu})
            _fast_vs_general(blk, q, v, params={"e": e, "mu": mu})     # dicts
    s = tl.build().compile()
    seen = set()
    for f in (0.5, 5.0):
        for a in np.linspace(0.1, 1.4, 7):
            for g in np.linspace(-3.0, -0.2, 9):
                q, v = tl.impact_state(a, g)
                if s.impact(q, v, all_solutions=True, params={"f": f}).status == "inconsistent":
                    out = s.impact(q, v, params={"f": f})
                    assert out.status == "inconsistent" and np.isnan(out.v_plus_array).all()
                    seen.add("inconsistent")
                    continue
                seen.add(_fast_vs_general(s, q, v, params={"f": f}).status)
    assert seen >= {"unique", "ambiguous", "inconsistent"}
    # parameters back to the defaults after a call with params (cached buffer state)
    q, v = {"y": 0.0, "x": 0.2}, {"y": -2.0, "x": 1.0}
    a = sb.impact(q, v, params={"e": 0.2}).v_plus["der(y)"]
    b = sb.impact(q, v).v_plus["der(y)"]
    assert a == pytest.approx(0.4) and b == pytest.approx(1.6)


def test_kernel_batch_threads_identical_to_serial():
    rng = np.random.default_rng(7)
    N, k = 1001, 2
    A = rng.normal(size=(N, 2 * k, 2 * k))
    D = np.ascontiguousarray(A @ A.transpose(0, 2, 1) / 4 + 1e-3 * np.eye(2 * k))
    D = 0.5 * (D + D.transpose(0, 2, 1))
    v = rng.normal(size=(N, 2 * k))
    mu = rng.choice([0.0, 0.3, 1.0, np.inf], size=(N, k))
    one = kernels.impact_batch(D, v, 0.2, 0.0, mu, 2, energy="report")
    two = kernels.impact_batch(D, v, 0.2, 0.0, mu, 2, energy="report", threads=2)
    for a, b in ((one.P, two.P), (one.v_plus, two.v_plus), (one.modes, two.modes),
                 (one.energy_change, two.energy_change), (one.n_solutions, two.n_solutions)):
        np.testing.assert_array_equal(a, b)
    assert list(one.status) == list(two.status)
    assert {"unique", "ambiguous"} <= set(one.status)
    # a bad problem in the second half is named by its index
    D[900, 0, 0] = np.nan
    with pytest.raises(ValueError, match="problem 900: D: entry .* is not finite"):
        kernels.impact_batch(D, v, 0.2, 0.0, mu, 2, threads=2)


def test_auto_method_choice():
    mu = np.array([0.3] * 7)
    assert kernels._choose_method("auto", 6, 2, mu[:6]) == "enum"
    assert kernels._choose_method("auto", 7, 2, mu) == "lcp"
    assert kernels._choose_method("auto", 7, 2, np.r_[mu[:6], np.inf]) == "nsgs"
    assert kernels._choose_method("auto", 7, 3, mu) == "nsgs"
    with pytest.raises(ValueError, match="at most"):
        kernels._choose_method("enum", kernels.ENUM_MAX + 1, 2, np.zeros(kernels.ENUM_MAX + 1))
