"""Linear algebra inside CasADi graphs shared by the compiled right-hand side and the
contact assembly (one place for the treatment of singular constraint sets).

Constraint multipliers solve ``S lam = r`` with ``S = C M^-1 C^T``.  For redundant or
singular constraints (seed 004: the Darboux branch point) ``S`` loses rank.  We use
iterated Tikhonov regularization,

    (S + eps I) lam_0 = r,      (S + eps I) d_k = r - S lam_k,   lam_{k+1} = lam_k + d_k,

with ``eps = REG * trace(S) / r``.  On a direction of ``S`` with eigenvalue ``sigma`` the
error factor is ``(eps / (sigma + eps))^(k+1)``: well-conditioned directions are solved to
machine precision after ``REFINE`` steps, while near-null directions (``sigma << eps``)
are amplified by at most ``(REFINE + 1) / eps`` instead of ``1 / sigma`` — the
minimum-norm behaviour that keeps ``G^T lam`` finite through a rank drop.
"""
import casadi as ca

__all__ = ["regularized_solve", "REG", "REFINE"]

REG = 1e-8
REFINE = 6


def regularized_solve(S, rhs, reg=REG, refine=REFINE):
    """Solve ``S X = rhs`` (S symmetric PSD, MX) by iterated Tikhonov regularization.

    Parameters
    ----------
    S : casadi.MX, shape (r, r)
    rhs : casadi.MX, shape (r, k)
    reg : float
        Relative regularization ``eps = reg * trace(S) / r``.
    refine : int
        Number of refinement steps.

    Returns
    -------
    casadi.MX, shape (r, k)
    """
    r = S.shape[0]
    eps = reg * ca.trace(S) / r + 1e-300
    A = S + eps * ca.MX.eye(r)
    X = ca.solve(A, rhs, "ldl")
    for _ in range(refine):
        X = X + ca.solve(A, rhs - ca.mtimes(S, X), "ldl")
    return X
