"""Property tests: LCPs built from a known solution.

Choose complementary ``z* >= 0, w* >= 0`` (``z*_i w*_i = 0``) and ``M``, set
``q = w* - M z*``. For a P-matrix the solution is unique, so every method that reports
``success`` must return ``z*``; for PSD matrices any ``success`` must satisfy the LCP
conditions to tolerance.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mechdae import lcp

TOL = 1e-9


@st.composite
def problems(draw, kind):
    n = draw(st.integers(1, 12))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, n))
    if kind == "pd_sym":          # symmetric positive definite (a P-matrix)
        M = A @ A.T + 0.5 * np.eye(n)
    elif kind == "p_nonsym":      # PD symmetric part plus a skew part: still a P-matrix
        S = rng.normal(size=(n, n))
        M = A @ A.T + 0.5 * np.eye(n) + (S - S.T)
    elif kind == "diag_dominant":  # strictly row diagonally dominant, positive diagonal
        M = A.copy()
        np.fill_diagonal(M, np.abs(A).sum(axis=1) + 0.5)
    else:                          # symmetric PSD, rank deficient
        r = max(1, n // 2)
        B = rng.normal(size=(n, r))
        M = B @ B.T
    active = rng.random(n) < draw(st.floats(0.0, 1.0))
    z = np.where(active, rng.uniform(0.1, 3.0, n), 0.0)
    w = np.where(active, 0.0, rng.uniform(0.1, 3.0, n))
    return M, w - M @ z, z


def _check_lcp(M, q, r):
    z, w = r.z, M @ r.z + q
    scale = max(np.linalg.norm(q), 1.0)
    assert r.residual <= TOL
    assert z.min() >= 0.0 and w.min() >= -1e-7 * scale
    assert np.abs(z * w).max() <= 1e-7 * scale * max(1.0, z.max())


@pytest.mark.parametrize("kind", ["pd_sym", "p_nonsym", "diag_dominant"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_p_matrix_problems_give_the_known_solution(kind, data):
    M, q, z_star = data.draw(problems(kind))
    for method in lcp.METHODS:
        if method == "pgs" and kind != "pd_sym":
            continue                      # PGS is for symmetric PSD matrices
        r = lcp.solve(M, q, method=method, tol=TOL, max_iter=100000 if method == "pgs" else None)
        if method in ("lemke", "murty"):
            assert r.success, r           # P-matrix: both pivoting methods must succeed
        if r.success:
            _check_lcp(M, q, r)
            np.testing.assert_allclose(r.z, z_star, atol=1e-6 * max(1.0, z_star.max()))


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_psd_problems_any_success_is_complementary(data):
    M, q, z_star = data.draw(problems("psd"))
    for method in lcp.METHODS:
        r = lcp.solve(M, q, method=method, tol=TOL)
        if method == "lemke":
            assert r.success, r           # PSD and feasible: Lemke processes it
        if r.success:
            _check_lcp(M, q, r)
        else:
            assert r.status in ("max_iter", "not_converged", "numerical_failure")
            assert np.isfinite(r.z).all() and r.z.min() >= 0.0


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_batch_matches_single_solves(data):
    probs = [data.draw(problems("p_nonsym")) for _ in range(3)]
    n = probs[0][0].shape[0]
    probs = [p for p in probs if p[0].shape[0] == n] or probs[:1]
    Ms = np.stack([p[0] for p in probs])
    qs = np.stack([p[1] for p in probs])
    b = lcp.solve_batch(Ms, qs)
    for k, (M, q, _) in enumerate(probs):
        np.testing.assert_array_equal(b.z[k], lcp.solve(M, q).z)
