"""Why an LCP solve did not succeed, in words: ``LCPResult.reason``.

Each method has a domain (module docstring of :mod:`mechdae.lcp`); when a solve fails the
reason says which condition of that domain the data break, checked on ``M`` directly:
a non-positive diagonal entry for projected Gauss-Seidel, a non-positive principal minor
(not a P-matrix, n <= ``PMATRIX_MAX_N``) for Murty's method, and what a secondary ray
means for Lemke's.
"""
import itertools

import numpy as np

__all__ = ["reason", "principal_minor_witness", "PMATRIX_MAX_N"]

#: Largest n for which the P-matrix property is checked (2^n principal minors).
PMATRIX_MAX_N = 12


def principal_minor_witness(M):
    """``(J, det M[J, J])`` for the first index set with a non-positive principal minor,
    None when ``M`` is a P-matrix; raises ValueError beyond ``PMATRIX_MAX_N``."""
    n = M.shape[0]
    if n > PMATRIX_MAX_N:
        raise ValueError(f"P-matrix check limited to n <= {PMATRIX_MAX_N}")
    scale = max(float(np.max(np.abs(M))), 1e-300) if n else 1.0
    for k in range(1, n + 1):
        for J in itertools.combinations(range(n), k):
            d = float(np.linalg.det(M[np.ix_(J, J)]))
            if d <= 1e-12 * scale ** k:
                return list(J), d
    return None


def _pmatrix_text(M):
    if M.shape[0] > PMATRIX_MAX_N:
        return (f"M may not be a P-matrix (not checked for n = {M.shape[0]} > "
                f"{PMATRIX_MAX_N}); Murty's method is finite only for P-matrices")
    w = principal_minor_witness(M)
    if w is None:
        return None
    J, d = w
    return (f"M is not a P-matrix: principal minor det M[J, J] = {d:.3g} <= 0 for "
            f"J = {J}; Murty's method is finite only for P-matrices (use 'lemke')")


def reason(M, q, res, tol, max_iter):
    """The reason of a failed solve (``""`` when ``res.success``)."""
    if res.success:
        return ""
    st, it, m = res.status, res.iterations, res.method
    if m == "pgs":
        bad = np.flatnonzero(~(np.diag(M) > 0))
        if bad.size:
            i = int(bad[0])
            return (f"M[{i}, {i}] = {M[i, i]:.3g} is not positive: projected Gauss-Seidel "
                    "divides by the diagonal and needs a positive one (symmetric positive "
                    "semidefinite M); stopped before the first sweep; use 'lemke'")
        sym = np.allclose(M, M.T, rtol=1e-12, atol=1e-14 * max(np.max(np.abs(M)), 1.0))
        psd = sym and np.min(np.linalg.eigvalsh(0.5 * (M + M.T))) >= -1e-12 * np.max(np.abs(M))
        if st == "max_iter" or it >= (max_iter or 10000):
            why = f"sweep limit {it} reached with residual {res.residual:.3g} > tol {tol:g}"
        else:
            why = f"residual {res.residual:.3g} > tol {tol:g} after {it} sweeps"
        dom = ("M is symmetric positive semidefinite: raise max_iter or omega"
               if psd else "M is not symmetric positive semidefinite, outside PGS's domain; "
               "use 'lemke' or 'murty'")
        return f"{why}; {dom}"
    if m == "murty":
        text = _pmatrix_text(M)
        if st == "numerical_failure":
            head = f"singular principal submatrix M[J, J] met at pivot {it}"
        elif st == "max_iter":
            head = f"pivot limit {it} reached (cycling)"
        else:
            head = f"{st} after {it} pivots"
        return head + ("; " + text if text else "; M is a P-matrix: a numerically "
                       "singular pivot (ill-conditioned M)")
    if m == "lemke":
        if st == "ray_termination":
            return (f"secondary ray after {it} pivots: no solution found; for a "
                    "copositive-plus M (e.g. positive semidefinite) this proves the LCP has "
                    "none, otherwise one may exist ('murty' for a P-matrix)")
        if st == "max_iter":
            return f"pivot limit {it} reached; raise max_iter"
    return f"{st} after {it} iterations (residual {res.residual:.3g})"
