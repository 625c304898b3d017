"""Bad and unusual input to the kernels through the public API (issue 10).

Every call either returns a correct answer, checked against its own residual, or raises a
ValueError naming the option and its limit: never a crash, a hang, a silent NaN or a
wrong success. Arrays arrive non-contiguous, Fortran-ordered, as integers and read-only.
"""
import math

import numpy as np
import pytest

import mechdae as md
from mechdae import lcp
from mechdae.contact import kernels as K

RNG = np.random.default_rng(10)


def _layouts(a):
    """The same values as C, Fortran, strided, integer (when integral) and read-only."""
    a = np.asarray(a, dtype=float)
    out = [a, np.asfortranarray(a)]
    big = np.zeros(tuple(2 * s for s in a.shape))
    big[tuple(slice(None, None, 2) for _ in a.shape)] = a
    out.append(big[tuple(slice(None, None, 2) for _ in a.shape)])      # non-contiguous
    ro = a.copy()
    ro.flags.writeable = False
    out.append(ro)
    if np.all(a == np.round(a)):
        out.append(a.astype(np.int32))
    return out


def _lcp_ok(M, q, r, tol=1e-8):
    M, q = np.asarray(M, float), np.asarray(q, float)
    w = M @ r.z + q
    assert np.all(r.z >= 0) and np.all(np.isfinite(r.z))
    assert lcp.residual(M, q, r.z) <= tol
    np.testing.assert_allclose(r.w, w, atol=1e-9 * (1 + np.abs(w).max(initial=0)))


# ---------------------------------------------------------------------------------- LCP

@pytest.mark.parametrize("method", ["lemke", "murty", "pgs"])
def test_lcp_every_array_layout_gives_the_same_solution(method):
    M = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
    q = np.array([-4.0, 2.0, -3.0])
    ref = lcp.solve(M, q, method=method)
    assert ref.success
    _lcp_ok(M, q, ref)
    for Ml in _layouts(M):
        for ql in _layouts(q):
            r = lcp.solve(Ml, ql, method=method)
            assert r.success
            np.testing.assert_array_equal(r.z, ref.z)
    Ms, qs = np.stack([M, 2 * M]), np.stack([q, q])
    for Ml in _layouts(Ms):
        for ql in _layouts(qs):
            b = lcp.solve_batch(Ml, ql, method=method)
            assert b.success.all()
            np.testing.assert_array_equal(b.z[0], ref.z)


@pytest.mark.parametrize("n", [0, 1])
@pytest.mark.parametrize("method", ["lemke", "murty", "pgs"])
def test_lcp_sizes_zero_and_one(n, method):
    M, q = 2.0 * np.eye(n), -np.ones(n)
    r = lcp.solve(M, q, method=method)
    assert r.success and r.z.shape == (n,)
    np.testing.assert_allclose(r.z, 0.5 * np.ones(n))
    b = lcp.solve_batch(np.zeros((3, n, n)) + M, np.zeros((3, n)) + q, method=method)
    assert b.success.all() and b.z.shape == (3, n)
    assert lcp.residual(M, q, r.z) == 0.0


def test_lcp_random_and_degenerate_problems_never_give_a_wrong_success():
    kinds = 0
    for trial in range(300):
        n = int(RNG.integers(1, 12))
        kind = trial % 6
        B = RNG.standard_normal((n, n))
        M = {0: B @ B.T + 0.1 * np.eye(n),                  # SPD
             1: B[:, : n // 2] @ B[:, : n // 2].T,          # PSD, singular
             2: B,                                          # general
             3: np.zeros((n, n)),                           # zero
             4: B - np.diag(np.abs(np.diag(B)) + 1.0),      # negative diagonal
             5: (B @ B.T + 1e-12 * np.eye(n)) * np.logspace(-8, 8, n)[:, None]}[kind]
        q = RNG.standard_normal(n)
        for method in ("lemke", "murty", "pgs"):
            r = lcp.solve(M, q, method=method, max_iter=2000)
            assert np.isfinite(r.residual) and np.all(np.isfinite(r.z))
            if r.success:
                assert r.residual <= 1e-10
                assert lcp.residual(M, q, r.z) <= 1e-10
                kinds += 1
    assert kinds > 100


@pytest.mark.parametrize("kwargs, fragment", [
    ({"tol": float("nan")}, "tol must be a finite number > 0"),
    ({"tol": float("inf")}, "tol must be a finite number > 0"),
    ({"tol": 0.0}, "tol must be a finite number > 0"),
    ({"tol": "1e-9"}, "tol must be a finite number > 0"),
    ({"max_iter": 0}, "max_iter must be a positive integer or None (at most 2**31 - 1"),
    ({"max_iter": -5}, "max_iter must be a positive integer"),
    ({"max_iter": 2**31}, "at most 2**31 - 1 = 2147483647"),
    ({"max_iter": 10**40}, "at most 2**31 - 1"),
    ({"max_iter": 2.5}, "max_iter must be a positive integer"),
    ({"max_iter": True}, "max_iter must be a positive integer"),
    ({"omega": float("nan"), "method": "pgs"}, "omega (PGS relaxation) must be in (0, 2)"),
    ({"z0": [np.inf, 0.0], "method": "lemke"}, "z0 contains NaN or inf"),
])
def test_lcp_bad_options_name_the_option_and_its_limit(kwargs, fragment):
    with pytest.raises(ValueError) as exc:
        lcp.solve(np.eye(2), [-1.0, -1.0], **kwargs)
    assert fragment in str(exc.value)
    if "z0" not in kwargs:
        with pytest.raises(ValueError) as exc:
            lcp.solve_batch(np.eye(2)[None], [[-1.0, -1.0]], **kwargs)
        assert fragment in str(exc.value)


def test_lcp_size_limit_is_checked_before_allocation():
    n = lcp.MAX_N + 1
    # a broadcast view: no n*n memory behind it, so any allocation would show
    M = np.broadcast_to(np.float64(1.0), (n, n))
    with pytest.raises(ValueError, match=r"n <= 46340"):
        lcp.solve(M, np.zeros(n))
    with pytest.raises(ValueError, match=r"n <= 46340"):
        lcp.solve_batch(np.broadcast_to(np.float64(1.0), (1, n, n)), np.zeros((1, n)))
    with pytest.raises(ValueError, match=r"n <= 46340"):
        K.impact(np.broadcast_to(np.float64(1.0), (n + 1, n + 1)), np.zeros(n + 1))


@pytest.mark.parametrize("bad", ["z", "q", "M"])
def test_lcp_residual_refuses_non_finite_data(bad):
    data = {"M": np.eye(2), "q": np.array([-1.0, 1.0]), "z": np.array([1.0, 0.0])}
    assert lcp.residual(**data) == 0.0
    data[bad] = data[bad].copy()
    data[bad].flat[0] = np.nan
    with pytest.raises(ValueError, match=f"{bad} contains NaN or inf"):
        lcp.residual(**data)
    with pytest.raises(ValueError, match="residual needs"):
        lcp.residual(np.eye(2), np.ones(2), np.ones(3))


def test_lcp_nan_and_inf_data_raise():
    for bad in (np.nan, np.inf, -np.inf):
        M = np.eye(3)
        M[1, 2] = bad
        with pytest.raises(ValueError, match="M contains NaN or inf"):
            lcp.solve(M, -np.ones(3))
        with pytest.raises(ValueError, match=r"qs\[1\] contains NaN or inf"):
            lcp.solve_batch(np.stack([np.eye(2)] * 2), [[-1.0, 1.0], [bad, 1.0]])


# ------------------------------------------------------------------------ contact kernels

def _impact_ok(D, v, e_n, e_t, mu, dim, sol, tol=1e-7):
    """The solution against its own residual: v+ = v- + D P and the impact law."""
    D, v = np.asarray(D, float), np.asarray(v, float)
    np.testing.assert_allclose(sol.v_plus, v + D @ sol.P, atol=tol * (1 + np.abs(v).max()))
    k = len(v) // dim
    e_n, e_t, mu = (np.broadcast_to(np.asarray(x, float), (k,)) for x in (e_n, e_t, mu))
    E = np.concatenate([[e_n[a]] + [e_t[a]] * (dim - 1) for a in range(k)])
    err, _ = K.fc_error(D, (1 + E) * v, mu, dim, sol.P)
    assert err <= tol
    assert np.all(sol.P[::dim] >= -tol)


@pytest.mark.parametrize("method", ["enum", "lcp", "nsgs"])
def test_impact_every_array_layout_gives_the_same_solution(method):
    D = np.array([[2.0, 1.0, 0.0, 0.0], [1.0, 3.0, 0.0, 1.0],
                  [0.0, 0.0, 2.0, 0.0], [0.0, 1.0, 0.0, 1.0]])
    v = np.array([-1.0, 0.0, -2.0, 1.0])
    ref = K.impact(D, v, 0.5, 0.0, 0.3, 2, method=method, tol=1e-12)
    _impact_ok(D, v, 0.5, 0.0, 0.3, 2, ref)
    for Dl in _layouts(D):
        for vl in _layouts(v):
            s = K.impact(Dl, vl, np.array([0.5, 0.5])[::1], 0, [0.3, 0.3], 2, method=method,
                         tol=1e-12)
            np.testing.assert_allclose(s.P, ref.P, atol=1e-12)
    b = K.impact_batch(np.asfortranarray(np.stack([D, D])), np.stack([v, v])[:, ::1], 0.5,
                       0.0, 0.3, 2, method=method, tol=1e-12)
    np.testing.assert_allclose(b.P[1], ref.P, atol=1e-9)


def test_impact_with_nan_tol_is_refused_not_answered_wrongly():
    # the case: a unique answer P = 1 (D = 1, v- = -1, e = 0)
    D, v = np.eye(2), np.array([-1.0, 0.0])
    s = K.impact(D, v, 0.0, 0.0, 0.5, 2)
    assert s.status == "unique" and s.P[0] == pytest.approx(1.0)
    for tol in (float("nan"), float("inf"), 0.0, -1e-9, 1.0, "1e-9", True):
        with pytest.raises(ValueError, match=r"tol: must be"):
            K.impact(D, v, 0.0, 0.0, 0.5, 2, tol=tol)
    with pytest.raises(ValueError, match=r"tol: must be a finite number in \(0, 1\)"):
        K.impact_batch(D[None], v[None], tol=float("nan"))


@pytest.mark.parametrize("kwargs, fragment", [
    ({"max_solutions": 10**9, "all_solutions": True}, "max_solutions: must be an integer in [1, 65536]"),
    ({"max_solutions": 0, "all_solutions": True}, "max_solutions: must be an integer in [1, 65536]"),
    ({"max_solutions": 2**40}, "max_solutions: must be an integer in [1, 65536]"),
    ({"facets": -3}, "facets: must be an integer in [3, 256]"),
    ({"facets": 10**6, "method": "lcp", "dim": 3}, "facets: must be an integer in [3, 256]"),
    ({"facets": 2**31, "method": "lcp"}, "facets: must be an integer in [3, 256]"),
    ({"facets": 4.5}, "facets: must be an integer"),
    ({"max_iter": 0, "method": "nsgs"}, "max_iter: must be an integer in [1, 2147483647]"),
    ({"max_iter": -1, "method": "nsgs"}, "max_iter: must be an integer in [1, 2147483647]"),
    ({"max_iter": 2**31, "method": "nsgs"}, "max_iter: must be an integer in [1, 2147483647]"),
    ({"max_iter": float("nan"), "method": "nsgs"}, "max_iter: must be an integer"),
    ({"energy": "ignore"}, "energy: must be 'raise' or 'report'"),
])
def test_impact_bad_options_name_the_option_and_its_limit(kwargs, fragment):
    kw = {"dim": 2, **kwargs}
    dim = kw.pop("dim")
    D, v = np.eye(2 * dim), np.r_[-1.0, np.zeros(dim - 1), -1.0, np.zeros(dim - 1)]
    with pytest.raises(ValueError) as exc:
        K.impact(D, v, 0.0, 0.0, 0.5, dim, **kw)
    assert fragment in str(exc.value)


def test_impact_batch_and_fc_options_are_checked():
    D, v = np.eye(2)[None], np.array([[-1.0, 0.0]])
    with pytest.raises(ValueError, match=r"facets: must be an integer in \[3, 256\]"):
        K.impact_batch(D, v, facets=0)
    with pytest.raises(ValueError, match=r"max_iter: must be an integer in \[1, 2147483647\]"):
        K.impact_batch(D, v, method="nsgs", max_iter=0)
    with pytest.raises(ValueError, match=r"threads: must be an integer in \[1, "):
        K.impact_batch(D, v, threads=0)
    W, q = np.eye(3), np.array([-1.0, 1.0, 3.0])
    for kw, frag in (({"tol": np.nan}, "tol: must be"), ({"max_iter": 0}, "max_iter: must be"),
                     ({"error_every": 0}, "error_every: must be"),
                     ({"r0": [np.nan, 0, 0]}, "r0: the initial guess must be finite")):
        with pytest.raises(ValueError, match=frag):
            K.solve_fc(W, q, 0.1, 3, **kw)
    with pytest.raises(ValueError, match="r: must be finite"):
        K.fc_error(W, q, 0.1, 3, [np.nan, 0.0, 0.0])
    for kw, frag in (({"slide_tol": np.nan}, "slide_tol: must be"), ({"tol": 0.0}, "tol: must be"),
                     ({"max_solutions": 10**9}, r"max_solutions: must be an integer in \[1, 65536\]")):
        with pytest.raises(ValueError, match=frag):
            K.contact_forces(np.eye(2), [1.0, 0.0], [1.0], 0.3, **kw)


def test_fc_sparse_input_is_validated():
    sp = pytest.importorskip("scipy.sparse")
    W = sp.csr_matrix(np.eye(3))
    q = np.array([-1.0, 1.0, 3.0])
    s = K.solve_fc(W, q, 0.1, 3, tol=1e-12)
    assert s.status == "converged" and K.fc_error(W, q, 0.1, 3, s.r)[0] <= 1e-12
    bad = W.copy()
    bad.data[0] = np.nan
    with pytest.raises(ValueError, match="W: entries must be finite"):
        K.solve_fc(bad, q, 0.1, 3)


def test_impact_random_problems_never_give_a_wrong_success():
    checked = 0
    for trial in range(200):
        dim = 2 + trial % 2
        k = int(RNG.integers(1, 4))
        n = k * dim
        B = RNG.standard_normal((n, n + 1))
        D = B @ B.T / n if trial % 5 else B[:, :2] @ B[:, :2].T     # some singular
        v = RNG.standard_normal(n)
        v[::dim] = -np.abs(v[::dim])
        e_n, mu = RNG.uniform(0, 1, k), RNG.uniform(0, 1.5, k)
        for method in ("enum", "nsgs") + (("lcp",) if dim == 2 else ()):
            try:
                s = K.impact(D, v, e_n, 0.0, mu, dim, method=method, tol=1e-10,
                             energy="report", max_iter=20000)
            except md.SolverError:
                continue
            if s.status in ("unique", "ambiguous", "solved"):
                _impact_ok(D, v, e_n, 0.0, mu, dim, s, tol=1e-6)
                checked += 1
    assert checked > 300


@pytest.mark.parametrize("dim", [2, 3])
def test_impact_sizes_zero_and_one_contact(dim):
    s = K.impact(np.zeros((0, 0)), np.zeros(0), dim=dim)
    assert s.P.shape == (0,) and s.status == "unique"
    D = np.eye(dim)
    v = np.r_[-1.0, np.zeros(dim - 1)]
    for method in ("enum", "nsgs") + (("lcp",) if dim == 2 else ()):
        s = K.impact(D, v, 0.0, 0.0, 0.5, dim, method=method, tol=1e-12)
        assert s.P[0] == pytest.approx(1.0)


def test_impact_mismatched_and_non_finite_input_raise():
    with pytest.raises(ValueError, match="v_minus: expected shape"):
        K.impact(np.eye(2), np.zeros(3))
    with pytest.raises(ValueError, match="D: size n = 3 is not a multiple of dim = 2"):
        K.impact(np.eye(3), np.zeros(3))
    with pytest.raises(ValueError, match="D: entry 1 is not finite"):
        K.impact(np.array([[1.0, np.nan], [np.nan, 1.0]]), [-1.0, 0.0])
    with pytest.raises(ValueError, match="v_minus: entry 0 is not finite"):
        K.impact(np.eye(2), [np.inf, 0.0])
    with pytest.raises(ValueError, match="D: has dtype complex128"):
        K.impact(np.eye(2, dtype=complex), [-1.0, 0.0])
    with pytest.raises(ValueError, match="e_n"):
        K.impact(np.eye(2), [-1.0, 0.0], e_n=np.nan)
    # a Delassus matrix with a denormal pivot: the overflowed impulse is no solution
    D = np.diag([5e-324, 0.0])
    s = K.impact(D, [-0.65, 0.93], e_n=0.2, mu=np.inf, energy="report")
    assert not (s.status in ("unique", "ambiguous") and not np.isfinite(s.P).all())


# -------------------------------------------------------------------------- System.impact

@pytest.fixture(scope="module")
def ball():
    return md.load("models/bouncing_ball.py").compile()


def test_system_impact_options_are_checked(ball):
    q, v = {"x": 0.0, "y": 0.0}, {"der(x)": 0.0, "der(y)": -1.0}
    ok = ball.impact(q, v)
    assert ok.status == "unique" and math.isfinite(ok.v_plus["der(y)"])
    for kw, frag in (({"tol": float("nan")}, r"tol: must be a finite number in \(0, 1\)"),
                     ({"tol": 2.0}, r"tol: must be a finite number in \(0, 1\)"),
                     ({"gap_tol": float("nan")}, "gap_tol: must be a finite number"),
                     ({"gap_tol": float("inf")}, "gap_tol: must be a finite number")):
        with pytest.raises(ValueError, match=frag):
            ball.impact(q, v, **kw)
    with pytest.raises(ValueError, match="tol: must be"):
        ball.impact_batch(np.zeros((2, 2)), np.array([[0.0, -1.0]] * 2), tol=float("nan"))
    with pytest.raises(ValueError, match="slide_tol: must be"):
        ball.contact_forces(q, {"der(x)": 0.0, "der(y)": 0.0}, slide_tol=-1.0)


# ----------------------------------------------------------------------------- interrupts

def _sigint_after(seconds):
    import os
    import signal
    import threading
    sent = []

    def fire():
        sent.append(__import__("time").perf_counter())
        os.kill(os.getpid(), signal.SIGINT)
    t = threading.Timer(seconds, fire)
    t.start()
    return t, sent


@pytest.mark.parametrize("method", ["lemke", "murty"])
def test_long_lcp_solves_stop_on_ctrl_c(method):
    import signal
    import time
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        pytest.skip("SIGINT is not Python's default KeyboardInterrupt handler here")
    n = 1200 if method == "lemke" else 600
    B = RNG.standard_normal((n, n)) / np.sqrt(n)
    M, q = B @ B.T + 0.1 * np.eye(n), RNG.standard_normal(n) - 0.5
    t, sent = _sigint_after(0.2)
    t0 = time.perf_counter()
    try:
        with pytest.raises(KeyboardInterrupt):
            lcp.solve(M, q, method=method, max_iter=10**6)
    finally:
        t.cancel()
    assert sent and time.perf_counter() - sent[0] < 0.5
    assert time.perf_counter() - t0 < 2.0
