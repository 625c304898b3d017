"""Contact-space kernels (csrc/mdae_contact.c through mechdae.contact): closed forms for
one contact, energy bookkeeping, mode enumeration, Painlevé classification, polyhedral
cones, batch path and input validation."""
import numpy as np
import pytest

from mechdae.contact import (EnergyGainError, contact_forces, fc_error, impact,
                             impact_batch, solve_fc)

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402


def assert_newton_coulomb(D, v_minus, e_n, e_t, mu, dim, sol, tol=1e-8):
    """Independent check of the impact law on one solution."""
    k = len(v_minus) // dim
    e_n, e_t, mu = (np.broadcast_to(np.asarray(x, float), (k,)) for x in (e_n, e_t, mu))
    P, vp = sol.P.reshape(k, dim), sol.v_plus.reshape(k, dim)
    vm = np.asarray(v_minus, float).reshape(k, dim)
    np.testing.assert_allclose(sol.v_plus, v_minus + D @ sol.P, atol=tol)
    w = vp + np.c_[e_n, np.repeat(e_t[:, None], dim - 1, 1)] * vm
    sc = 1 + np.abs(w).max() + np.abs(P).max()
    for a in range(k):
        pn, pt, wn, wt = P[a, 0], P[a, 1:], w[a, 0], w[a, 1:]
        assert pn >= -tol * sc and wn >= -tol * sc and abs(pn * wn) <= tol * sc * sc
        if pn <= tol * sc:
            continue
        if np.isinf(mu[a]):
            assert np.linalg.norm(wt) <= tol * sc
        elif np.linalg.norm(wt) > tol * sc:           # sliding: P_t opposite to w_t
            np.testing.assert_allclose(pt, -mu[a] * pn * wt / np.linalg.norm(wt), atol=tol * sc)
        else:
            assert np.linalg.norm(pt) <= mu[a] * pn + tol * sc


def random_spd(rng, n, ndof=None):
    W = rng.normal(size=(n, ndof or n))
    return W @ W.T + (1e-3 * np.eye(n) if ndof is None else 0)


# ---------------------------------------------------------------------------- closed forms

@pytest.mark.parametrize("method", ["enum", "lcp", "nsgs"])
@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("e_n", [0.0, 0.5, 1.0])
def test_frictionless_single_contact_reverses_normal_velocity(method, dim, e_n):
    rng = np.random.default_rng(0)
    D = random_spd(rng, dim)
    v = rng.normal(size=dim)
    v[0] = -1.3
    sol = impact(D, v, e_n=e_n, mu=0.0, dim=dim, method=method)
    assert sol.v_plus[0] == pytest.approx(-e_n * v[0], abs=1e-10)
    assert sol.P[1:] == pytest.approx(np.zeros(dim - 1), abs=1e-12)
    assert sol.P[0] == pytest.approx((1 + e_n) * 1.3 / D[0, 0]) and sol.modes == ("slide",)


@pytest.mark.parametrize("method", ["enum", "nsgs"])
@pytest.mark.parametrize("e", [0.0, 0.3, 1.0])
def test_spatial_impact_without_sliding_reverses_all_components(method, e):
    # seed 001 in contact space: e_n = e_t = k, mu = inf -> v+ = -k v-
    rng = np.random.default_rng(1)
    D = random_spd(rng, 3) + 3 * np.eye(3)      # sticking impulse has P_n > 0
    v = np.array([-2.0, 0.7, -0.4])
    sol = impact(D, v, e_n=e, e_t=e, mu=np.inf, dim=3, method=method)
    np.testing.assert_allclose(sol.v_plus, -e * v, atol=1e-12)
    np.testing.assert_allclose(sol.P, np.linalg.solve(D, -(1 + e) * v), rtol=1e-10)
    assert sol.modes == ("stick",)
    # kinetic energy: dT = -(1 - e^2)/2 v-^T D^-1 v-
    assert sol.energy_change == pytest.approx(-(1 - e * e) / 2 * v @ np.linalg.solve(D, v))


@pytest.mark.parametrize("method", ["enum", "lcp", "nsgs"])
@pytest.mark.parametrize("sgn", [1.0, -1.0])
def test_planar_sliding_impact_closed_form(method, sgn):
    # D = [[a, b], [b, c]]; sliding in direction s: P_t = -mu s P_n,
    # w_n = (a - mu s b) P_n + (1 + e_n) v_n = 0
    a, b, c, mu, e_n = 2.0, 0.3, 1.5, 0.25, 0.4
    D = np.array([[a, b], [b, c]])
    v = np.array([-1.0, 3.0 * sgn])
    sol = impact(D, v, e_n=e_n, mu=mu, dim=2, method=method)
    Pn = (1 + e_n) / (a - mu * sgn * b)
    np.testing.assert_allclose(sol.P, [Pn, -mu * sgn * Pn], rtol=1e-12)
    assert sol.modes == ("slide",)
    assert sol.v_plus[0] == pytest.approx(e_n)


def test_stick_slide_threshold_of_a_point_mass():
    # D = I / m: sticks iff |v_t| (1 + e_t) <= mu (1 + e_n) |v_n|
    v_n, v_t, e_n = -2.0, 1.0, 0.5
    threshold = abs(v_t) / ((1 + e_n) * abs(v_n))
    for mu in (0.5 * threshold, 0.999 * threshold, 1.001 * threshold, 2 * threshold):
        sol = impact(np.eye(2), [v_n, v_t], e_n=e_n, mu=mu, dim=2)
        assert sol.modes == (("slide",) if mu < threshold else ("stick",))
        expected_vt = v_t - mu * (1 + e_n) * abs(v_n) if mu < threshold else 0.0
        assert sol.v_plus[1] == pytest.approx(expected_vt, abs=1e-12)


@pytest.mark.parametrize("dim", [2, 3])
def test_methods_agree_on_random_unique_problems(dim):
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(80):
        k = 3
        D = random_spd(rng, k * dim)
        v = rng.normal(size=k * dim)
        v[::dim] = -np.abs(v[::dim])
        mu = rng.uniform(0.1, 1.0, k)
        ref = impact(D, v, 0.3, 0.0, mu, dim, method="enum", all_solutions=True)
        if ref.status != "unique":
            continue
        checked += 1
        assert_newton_coulomb(D, v, 0.3, 0.0, mu, dim, ref)
        nsgs = impact(D, v, 0.3, 0.0, mu, dim, method="nsgs", tol=1e-13)
        np.testing.assert_allclose(nsgs.v_plus, ref.v_plus, atol=1e-7)
        if dim == 2:
            lcp = impact(D, v, 0.3, 0.0, mu, dim, method="lcp")
            np.testing.assert_allclose(lcp.v_plus, ref.v_plus, atol=1e-9)
    assert checked >= 15


# ---------------------------------------------------------------------------- energy

@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), k=st.integers(1, 4), dim=st.sampled_from([2, 3]),
       e_n=st.floats(0, 1), e_t=st.floats(0, 1), rankdef=st.booleans())
def test_frictionless_impact_never_gains_energy(seed, k, dim, e_n, e_t, rankdef):
    # dT = sum_a P_n,a v_n,a (1 - e_n)/2 <= 0 for approaching contacts (v_n <= 0)
    rng = np.random.default_rng(seed)
    n = k * dim
    D = random_spd(rng, n, ndof=max(1, n - 1) if rankdef else None)
    v = rng.normal(size=n)
    v[::dim] = -np.abs(v[::dim])
    sol = impact(D, v, e_n, e_t, 0.0, dim, all_solutions=True)
    assert sol.status in ("unique", "ambiguous")
    for s in sol.solutions:
        assert s.energy_change <= 1e-9 * (1 + np.abs(s.P) @ np.abs(v))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), k=st.integers(1, 3), dim=st.sampled_from([2, 3]),
       e_n=st.floats(0, 1), e_t=st.floats(0, 1), mu=st.floats(0, 2))
def test_frictional_impact_never_silently_gains_energy(seed, k, dim, e_n, e_t, mu):
    rng = np.random.default_rng(seed)
    n = k * dim
    D = random_spd(rng, n)
    v = rng.normal(size=n)
    v[::dim] = -np.abs(v[::dim])
    try:
        sol = impact(D, v, e_n, e_t, mu, dim, all_solutions=True)
    except EnergyGainError as err:
        assert max(s.energy_change for s in err.solution.solutions) > 0
        return
    for s in sol.solutions:
        assert s.energy_change <= 1e-9 * (1 + np.abs(s.P) @ np.abs(v))
        assert_newton_coulomb(D, v, e_n, e_t, mu, dim, s)


def test_energy_gain_is_reported_not_passed_on():
    # contact 2 separates (v_n = +0.5) but is pushed by contact 1: with e_1 = 1, e_2 = 0
    # dT = P_2 v_2 (1 - e_2)/2 > 0
    D = np.array([[1.0, 0, -0.9, 0], [0, 1, 0, 0], [-0.9, 0, 1, 0], [0, 0, 0, 1]])
    v = np.array([-1.0, 0.0, 0.5, 0.0])
    with pytest.raises(EnergyGainError) as err:
        impact(D, v, e_n=[1.0, 0.0], mu=0.0, dim=2)
    assert err.value.solution.energy_change == pytest.approx(0.25 * (-0.5 + 1.8) / 0.19)
    sol = impact(D, v, e_n=[1.0, 0.0], mu=0.0, dim=2, energy="report")
    assert sol.status == "energy_gain"
    with pytest.raises(EnergyGainError):
        impact_batch(D[None], v[None], e_n=[[1.0, 0.0]], mu=0.0, dim=2)


# ---------------------------------------------------------------------------- enumeration

def test_enumeration_finds_both_solutions_of_an_ambiguous_two_contact_impact():
    # found by a random search; 3 degrees of freedom, 2 planar contacts, mu = 2.7:
    # contact A sticks while B either separates or sticks (cf. seed 000, region IV)
    W = np.array([[0.2, -0.4, 0.4], [-1.6, 0.7, -0.9], [1.7, -0.3, 1.1], [-1.4, 0.4, -0.9]])
    D = W @ W.T
    v = np.array([-0.22, 1.07, -1.18, 0.97])
    sol = impact(D, v, 0.0, 0.0, 2.7, 2, all_solutions=True)
    assert sol.status == "ambiguous"
    assert sorted(s.modes for s in sol.solutions) == [("separate", "stick"), ("stick", "stick")]
    for s in sol.solutions:
        assert_newton_coulomb(D, v, 0.0, 0.0, 2.7, 2, s)
    assert not np.allclose(sol.solutions[0].v_plus, sol.solutions[1].v_plus, atol=1e-6)


def test_enumeration_reports_an_inconsistent_impact():
    # contact A without sliding (mu = inf), contact B mu = 0.3: no combination of
    # separate / stick / slide satisfies every inequality
    W = np.array([[-0.7, 0.8, -1.0, -1.5], [0.7, 1.2, 1.5, 1.1], [-1.5, -0.7, -0.5, -0.0],
                  [-2.1, 0.0, 0.3, -0.9]])
    D = W @ W.T
    v = np.array([-0.86, 2.87, -1.04, -1.17])
    sol = impact(D, v, 0.0, 0.0, [np.inf, 0.3], 2, all_solutions=True)
    assert sol.status == "inconsistent" and sol.solutions == []
    # brute force over the 3 x 4 mode combinations agrees
    assert _brute_force_count(D, v, [np.inf, 0.3]) == 0


def _brute_force_count(D, v, mu):
    """Independent numpy enumeration for 2 planar contacts, e = 0 (least squares)."""
    sols = []
    modes = {0: ["S", "K"] if np.isinf(mu[0]) else ["S", "K", "+", "-"],
             1: ["S", "K"] if np.isinf(mu[1]) else ["S", "K", "+", "-"]}
    for m0 in modes[0]:
        for m1 in modes[1]:
            A = np.zeros((4, 4)); b = np.zeros(4)
            for a, m in enumerate((m0, m1)):
                o = 2 * a
                if m == "S":
                    A[o, o] = A[o + 1, o + 1] = 1
                elif m == "K":
                    A[o:o + 2] = D[o:o + 2]; b[o:o + 2] = -v[o:o + 2]
                else:
                    s = 1.0 if m == "+" else -1.0
                    A[o] = D[o]; b[o] = -v[o]
                    A[o + 1, o + 1] = 1; A[o + 1, o] = mu[a] * s
            P = np.linalg.lstsq(A, b, rcond=None)[0]
            if np.abs(A @ P - b).max() > 1e-9:
                continue
            w = D @ P + v
            ok = True
            for a, m in enumerate((m0, m1)):
                o = 2 * a
                if m == "S":
                    ok &= w[o] >= -1e-9
                elif m == "K":
                    ok &= P[o] >= -1e-9 and (np.isinf(mu[a]) or abs(P[o + 1]) <= mu[a] * P[o] + 1e-9)
                else:
                    s = 1.0 if m == "+" else -1.0
                    ok &= P[o] >= -1e-9 and s * w[o + 1] >= -1e-9
            if ok and not any(np.allclose(w, x, atol=1e-7) for x in sols):
                sols.append(w)
    return len(sols)


def test_enumeration_count_matches_brute_force_on_random_problems():
    rng = np.random.default_rng(7)
    for _ in range(200):
        W = rng.normal(size=(4, 4))
        D = W @ W.T
        v = rng.normal(size=4)
        v[::2] = -np.abs(v[::2])
        mu = list(rng.uniform(0.1, 3.0, 2))
        sol = impact(D, v, 0.0, 0.0, mu, 2, all_solutions=True, energy="report")
        assert len(sol.solutions) == _brute_force_count(D, v, mu)


def test_spatial_enumeration_single_contact_is_exact():
    # FrictionContact3D_1c of Siconos as an impact with e = 0 (README section 4)
    D = np.array([[15.0, -1, -2], [-1, 14, 1], [-2, 1, 16]])
    sol = impact(D, [-1.0, 2.0, 3.0], 0.0, 0.0, 0.1, 3, method="enum", energy="report")
    np.testing.assert_allclose(sol.P, [0.065695682898, -0.003678614907, -0.005443070814],
                               rtol=1e-10)
    assert sol.modes == ("slide",) and sol.status in ("unique", "energy_gain")


# ---------------------------------------------------------------------------- polyhedral cone

def test_polyhedral_cone_converges_to_the_exact_cone():
    rng = np.random.default_rng(11)
    D = random_spd(rng, 3)
    v = np.array([-1.0, 1.3, -0.7])
    exact = impact(D, v, 0.0, 0.0, 0.4, 3, method="enum")
    assert exact.modes == ("slide",)
    errs = [np.abs(impact(D, v, 0.0, 0.0, 0.4, 3, method="lcp", facets=m).v_plus
                   - exact.v_plus).max() for m in (4, 8, 16, 32, 64)]
    assert all(b <= a * 1.0001 for a, b in zip(errs, errs[1:]))
    # the sliding direction is resolved to O(1/m) by m facets
    assert errs[-1] < 0.1 * errs[0] and errs[-1] < 1e-3


# ---------------------------------------------------------------------------- Painleve

@pytest.mark.parametrize("U, F, status", [(0.6, -0.5, "unique"), (0.6, 0.5, "unique"),
                                          (-0.8, -0.5, "inconsistent"),
                                          (-0.8, 0.5, "indeterminate")])
def test_painleve_single_sliding_contact_table(U, F, status):
    # a_n = U lam_n + F with U = D_nn - mu s D_nt; D_nn = 1, D_nt = 0.9, s = +1
    mu = (1.0 - U) / 0.9
    D = np.array([[1.0, 0.9], [0.9, 1.0]])
    out = contact_forces(D, [F, 0.2], [1.0], mu, dim=2)
    assert out.status == status
    lam_n = sorted(s.lam[0] for s in out.solutions)
    expected = {"unique": [max(0.0, -F / U)], "inconsistent": [],
                "indeterminate": [0.0, -F / U]}[status]
    np.testing.assert_allclose(lam_n, expected, atol=1e-12)
    for s in out.solutions:
        assert s.lam[1] == pytest.approx(-mu * s.lam[0])


@pytest.mark.parametrize("theta", np.linspace(0.05, np.pi / 2 - 0.05, 7))
@pytest.mark.parametrize("mu", [0.3, 1.0, 1.5, 2.5])
@pytest.mark.parametrize("vx", [1.0, -1.0])
def test_painleve_rod_classification(theta, mu, vx):
    # uniform rod (mass 1, half-length l) leaning on its lower end, sliding with velocity vx:
    # U = 1 + 3 cos^2 - (+) 3 mu sin cos  (in units 1/m), paradox only for mu > 4/3
    l = 0.7
    W = np.array([[0.0, 1.0, -l * np.cos(theta)], [1.0, 0.0, l * np.sin(theta)]])
    Minv = np.diag([1.0, 1.0, 3.0 / l**2])
    D = W @ Minv @ W.T
    U = 1 + 3 * np.cos(theta) ** 2 + 3 * mu * np.sign(vx) * np.sin(theta) * np.cos(theta)
    for F in (-1.0, 1.0):
        out = contact_forces(D, [F, 0.0], [vx], mu)
        expected = "unique" if U > 0 else ("inconsistent" if F < 0 else "indeterminate")
        assert out.status == expected
    assert (U < 0) <= (mu > 4 / 3)


def test_sticking_contact_may_start_sliding():
    # one sticking contact: stays stuck if |lam_t| <= mu lam_n, else slides opposite to a_t
    D = np.eye(2)
    stuck = contact_forces(D, [-1.0, 0.5], [0.0], 1.0)
    assert stuck.status == "unique" and stuck.solutions[0].modes == ("stick",)
    np.testing.assert_allclose(stuck.lam, [1.0, -0.5])
    slid = contact_forces(D, [-1.0, 2.0], [0.0], 1.0)
    assert slid.solutions[0].modes == ("slide",)
    np.testing.assert_allclose(slid.lam, [1.0, -1.0])
    np.testing.assert_allclose(slid.acc, [0.0, 1.0])


def test_spatial_contact_force_with_known_sliding_direction():
    D = np.eye(3)
    out = contact_forces(D, [-2.0, 0.0, 0.0], [[3.0, 4.0]], 0.5, dim=3)
    np.testing.assert_allclose(out.lam, [2.0, -0.6, -0.8])
    assert out.status == "unique"


# ---------------------------------------------------------------------------- batch

@pytest.mark.parametrize("method", ["enum", "lcp", "nsgs"])
def test_batch_equals_loop(method):
    rng = np.random.default_rng(3)
    N, k, dim = 50, 2, 2
    Ds = np.array([random_spd(rng, k * dim) + 0.5 * np.eye(k * dim) for _ in range(N)])
    vs = rng.normal(size=(N, k * dim))
    vs[:, ::dim] = -np.abs(vs[:, ::dim])
    en, mu = rng.uniform(0, 1, (N, k)), rng.uniform(0, 1, (N, k))
    tol = 1e-10 if method == "nsgs" else 1e-12
    out = impact_batch(Ds, vs, en, 0.0, mu, dim, method=method, energy="report", tol=tol)
    for i in range(N):
        s = impact(Ds[i], vs[i], en[i], 0.0, mu[i], dim, method=method, energy="report",
                   tol=tol)
        np.testing.assert_allclose(out.v_plus[i], s.v_plus, atol=1e-12)
        np.testing.assert_allclose(out.P[i], s.P, atol=1e-12)
        assert tuple(out.modes[i]) == tuple(["separate", "stick", "slide"].index(m) for m in s.modes)
        if method == "enum":
            assert out.status[i] == s.status


# ---------------------------------------------------------------------------- FC API

def test_solve_fc_example1_closed_form():
    s = solve_fc(np.eye(9), np.tile([-1.0, 1.0, 3.0], 3), 0.1, 3, tol=1e-14)
    np.testing.assert_allclose(s.r, np.tile([1, -0.1 / np.sqrt(10), -0.3 / np.sqrt(10)], 3))
    err, u = fc_error(np.eye(9), np.tile([-1.0, 1.0, 3.0], 3), 0.1, 3, s.r)
    assert err < 1e-15 and s.status == "converged"


# ---------------------------------------------------------------------------- validation

@pytest.mark.parametrize("kwargs, match", [
    (dict(D=np.ones((3, 3))), "multiple of dim"),
    (dict(D=np.array([[1.0, 0.5], [0.0, 1.0]])), "not symmetric"),
    (dict(D=np.array([[np.nan, 0.0], [0.0, 1.0]])), "not finite"),
    (dict(v_minus=[-1.0, np.inf]), "v_minus"),
    (dict(v_minus=[-1.0, 0.0, 0.0]), "v_minus: expected shape"),
    (dict(e_n=1.5), "allow_superelastic"),
    (dict(e_n=-0.1), "e_n"),
    (dict(mu=-0.2), "mu"),
    (dict(mu=np.inf, method="lcp"), "LCP"),
    (dict(dim=4), "dim"),
    (dict(method="simplex"), "method"),
])
def test_bad_input_names_the_argument(kwargs, match):
    args = dict(D=np.eye(2), v_minus=[-1.0, 0.0], e_n=0.5, mu=0.3, dim=2)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        impact(**args)


def test_superelastic_allowed_only_with_the_flag():
    sol = impact(np.eye(2), [-1.0, 0.0], e_n=1.5, dim=2, allow_superelastic=True)
    assert sol.v_plus[0] == pytest.approx(1.5) and sol.energy_change > 0


def test_restitution_acts_on_the_approach_only():
    """Two frictionless contacts on one body (normal rows D = [[2, 1], [1, 2]], tangents
    decoupled): contact 0 approaches at -1, contact 1 touches but separates at +1; e_n = 1.
    Newton's target v_n+ >= -e_n v_n- would let contact 1 end at -1 (penetrating);
    restitution acts on the approach, so contact 1's target is v_n+ >= 0: P = (1, 0),
    v+ = (1, 2). Every method agrees, with a zero residual (mu = 0 once made a separating
    contact count as a residual of 1 and stalled NSGS: the cone projection took the whole
    negative normal axis as inside the cone)."""
    import numpy as np
    from mechdae.contact.kernels import impact
    D = np.array([[2.0, 0, 1, 0], [0, 1, 0, 0], [1, 0, 2, 0], [0, 0, 0, 1]])
    for method in ("enum", "lcp", "nsgs"):
        for e in (0.0, 1.0):
            out = impact(D, np.array([-1.0, 0.0, 1.0, 0.0]), e_n=e, e_t=0.0, mu=0.0, dim=2,
                         method=method)
            assert np.allclose(out.P, [(1 + e) / 2, 0, 0, 0], atol=1e-9), (method, e, out)
            assert np.allclose(out.v_plus, [e, 0, 1.5 + e / 2, 0], atol=1e-9), (method, e, out)
            assert out.residual < 1e-9, (method, e, out)
