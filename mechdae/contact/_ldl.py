"""Linear solves in the contact assembly graph: an LDL^T factorization written out in
scalar CasADi operations (no explicit inverse, no CasADi warning per evaluation)."""
import casadi as ca


def _ldl_function(n, k):
    r"""SX Function ``(A, R) -> (X, ratio)``: ``X = A^{-1} R`` by ``A = L diag(d) L^T``
    written out in scalar operations (no pivoting: A symmetric positive definite), and
    ``ratio = min_i d_i / A_ii`` (<= 0 or tiny: A singular or not positive definite).

    A runtime factorization like CasADi's ``ldl`` linear solver (same accuracy), but pure
    scalar operations: a singular A gives inf/NaN silently (the caller checks ``ratio``)
    instead of one printed CasADi warning per evaluation.
    """
    A = ca.SX.sym("A", n, n)
    R = ca.SX.sym("R", n, k)
    L = [[None] * n for _ in range(n)]
    d = [None] * n
    for j in range(n):
        dj = A[j, j]
        for m in range(j):
            dj = dj - L[j][m] * L[j][m] * d[m]
        d[j] = dj
        for i in range(j + 1, n):
            lij = A[i, j]
            for m in range(j):
                lij = lij - L[i][m] * L[j][m] * d[m]
            L[i][j] = lij / dj
    cols = []
    for c in range(k):
        y = [None] * n
        for i in range(n):
            yi = R[i, c]
            for m in range(i):
                yi = yi - L[i][m] * y[m]
            y[i] = yi
        x = [None] * n
        for i in reversed(range(n)):
            xi = y[i] / d[i]
            for m in range(i + 1, n):
                xi = xi - L[m][i] * x[m]
            x[i] = xi
        cols.append(ca.vertcat(*x) if n else ca.SX(0, 1))
    X = ca.horzcat(*cols) if k else ca.SX(n, 0)
    ratio = ca.SX(ca.inf)
    for j in range(n):
        ratio = ca.fmin(ratio, d[j] / (ca.fabs(A[j, j]) + 1e-300))
    return ca.Function("ldl_solve", [A, R], [X, ratio])


def _ldl_solve(A, R):
    """``(A^{-1} R, min pivot ratio)`` for MX ``A`` (n, n) and ``R`` (n, k)."""
    X, ratio = _ldl_function(A.shape[0], R.shape[1])(ca.densify(A), ca.densify(R))
    return X, ratio
