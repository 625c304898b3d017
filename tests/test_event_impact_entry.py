"""The event engine's impact call (issue 13): ``solve_impact`` goes to the C kernel through
its thin entry and must give what ``kernels.impact(..., all_solutions=True,
energy="report")`` gives, solution for solution, status for status; and each problem's
physics is checked: Newton's law for one frictionless contact (``v_n^+ = -e v_n^-``), the
three solutions of the one-foot problem (stick, slide two ways), the energy gain of a
contact pushed by another (``dT = 0.25 (1.8 - 0.5) / 0.19``).
"""
import numpy as np
import pytest

from mechdae.contact import kernels
from mechdae.simulate.event.impacts import solve_impact


def one_foot(mu):
    """A unit-mass body (inertia 0.25, 0.23, 0.83) touching the ground at one foot
    (test_impact_one_contact): ``D = W M^-1 W^T``, ``v = W u``, rows normal, e_x, e_y."""
    r, inertia = np.array([1.5, 1.0, -1.2]), (0.25, 0.23, 0.83)
    u = np.array([0.0, 1.1, 0.0, 1.5, 1.1, -0.7])
    W = np.array([np.concatenate([d, np.cross(r, d)]) for d in np.eye(3)[[2, 0, 1]]])
    Minv = np.diag([1.0] * 3 + [1.0 / x for x in inertia])
    return W @ Minv @ W.T, W @ u, np.array([mu])


def same(a, b):
    """Bitwise the same solution list, statuses and flags."""
    assert (a.status, a.exhaustive, a.method) == (b.status, b.exhaustive, b.method)
    sa, sb = a.solutions or [a], b.solutions or [b]
    assert len(sa) == len(sb)
    for x, y in zip(sa, sb):
        assert np.array_equal(x.P, y.P, equal_nan=True)
        assert np.array_equal(x.v_plus, y.v_plus, equal_nan=True)
        assert x.modes == y.modes and x.status == y.status
        assert x.energy_change == y.energy_change or (np.isnan(x.energy_change)
                                                      and np.isnan(y.energy_change))


def ref(D, v, e_n, e_t, mu, dim):
    return kernels.impact(D, v, e_n=e_n, e_t=e_t, mu=mu, dim=dim, all_solutions=True,
                          energy="report")


def f64(*a):
    return [np.ascontiguousarray(x, dtype=float) for x in a]


def test_one_frictionless_contact_newton_law():
    D, v, e_n, e_t, mu = f64([[2.0, 0.5], [0.5, 1.0]], [-3.0, 0.4], [0.7], [0.0], [0.0])
    got = solve_impact(D, v, e_n, e_t, mu, 2)
    same(got, ref(D, v, e_n, e_t, mu, 2))
    assert got.status == "unique" and got.v_plus[0] == pytest.approx(2.1, abs=1e-14)
    assert got.energy_change < 0


def test_one_foot_in_space_three_solutions():
    D, v, mu = one_foot(2.1)
    D, v, e_n, e_t, mu = f64(D, v, [0.0], [0.0], mu)
    got = solve_impact(D, v, e_n, e_t, mu, 3)
    same(got, ref(D, v, e_n, e_t, mu, 3))
    assert got.status == "ambiguous" and got.exhaustive
    assert sorted(s.modes for s in got.solutions) == [("slide",), ("slide",), ("stick",)]


def test_energy_gain_reported_as_the_wrapper_does():
    # contact 2 separates but is pushed by contact 1 (test_contact_kernels): dT > 0
    D = [[1.0, 0, -0.9, 0], [0, 1, 0, 0], [-0.9, 0, 1, 0], [0, 0, 0, 1]]
    D, v, e_n, e_t, mu = f64(D, [-1.0, 0.0, 0.5, 0.0], [1.0, 0.0], [0.0, 0.0], [0.0, 0.0])
    got = solve_impact(D, v, e_n, e_t, mu, 2)
    same(got, ref(D, v, e_n, e_t, mu, 2))
    assert got.status == "energy_gain"
    assert got.energy_change == pytest.approx(0.25 * (-0.5 + 1.8) / 0.19)


@pytest.mark.parametrize("k, dim", [(2, 2), (3, 3), (7, 2)])
def test_random_problems_match_the_wrapper(k, dim):
    # 7 contacts leave the enumeration: solve_impact hands them to the wrapper
    rng = np.random.default_rng(11 + k)
    n = k * dim
    A = rng.normal(size=(n, n))
    D = A @ A.T + 0.1 * np.eye(n)
    D = 0.5 * (D + D.T)
    for _ in range(20):
        v = rng.normal(size=n)
        v[::dim] = -np.abs(v[::dim])
        D_, v_, e_n, e_t, mu = f64(D, v, rng.uniform(0, 1, k), rng.uniform(0, 0.5, k),
                                   rng.uniform(0, 1.5, k))
        got = solve_impact(D_, v_, e_n, e_t, mu, dim)
        same(got, ref(D_, v_, e_n, e_t, mu, dim))
        for s in got.solutions:                 # v+ = v- + D P on every solution found
            assert np.allclose(s.v_plus, v_ + D_ @ s.P, atol=1e-9 * (1 + np.abs(s.P).sum()))


def test_bad_input_raises_the_wrappers_error():
    D, v, e_n, e_t, mu = f64([[1.0, 0.0], [0.0, 1.0]], [-1.0, 0.0], [1.5], [0.0], [0.0])
    with pytest.raises(ValueError, match="e_n"):
        ref(D, v, e_n, e_t, mu, 2)
    with pytest.raises(ValueError, match="e_n"):
        solve_impact(D, v, e_n, e_t, mu, 2)
