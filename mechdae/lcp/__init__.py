r"""Linear complementarity problems (LCP), solved by the C kernels in csrc/mdae_lcp.c.

Given a dense ``M`` (n x n) and ``q`` (n), find ``z`` with

.. math::

    z \ge 0, \qquad w = M z + q \ge 0, \qquad z^T w = 0 .

Every method reports the same residual (``mdae_lcp_residual``)

.. math::

    r(z) = \frac{\lVert \min(z, w) \rVert_2}{\max(\lVert q \rVert_2, 1)}
         = \frac{\lVert z - \max(0, z - w) \rVert_2}{\max(\lVert q \rVert_2, 1)},

and a result is a ``success`` when the method finished normally and ``r <= tol``.

Methods
-------
``"lemke"``
    Lemke's complementary pivoting (covering vector d = 1) with lexicographic
    minimum-ratio anti-cycling. Finds a solution for P-matrices, PSD and copositive-plus
    matrices; otherwise it may end on a secondary ray, reported honestly as
    ``status == "ray_termination"`` (no solution found, maybe none exists).
    ``max_iter`` bounds the pivots (default 1000, or 20 n for n >= 50).
``"pgs"``
    Projected Gauss-Seidel with relaxation ``omega`` in (0, 2) and warm start ``z0``, for
    symmetric positive semidefinite ``M`` with positive diagonal (a non-positive diagonal
    entry gives ``"not_converged"`` at once). ``max_iter`` bounds the sweeps (default 10000).
``"murty"``
    Murty's least-index principal pivoting: solves ``M_JJ z_J = -q_J`` for a
    complementary index set ``J`` and flips the least infeasible index. Finite for
    P-matrices (all principal minors positive; includes positive definite M); outside
    that domain it may meet a singular ``M_JJ`` (``"numerical_failure"``) or cycle
    (``"max_iter"``). O(|J|^3) per pivot: meant for small problems.

The empty LCP (n = 0) is valid: it is solved with ``z`` of shape (0,).

Options are checked before any allocation: ``tol`` finite and > 0, ``max_iter`` an
integer in [1, 2**31 - 1] (``MAX_ITER``) or None, ``omega`` in (0, 2), n <= ``MAX_N``
(46340); a bad one raises ValueError naming it and its limit. Long solves (large n, long
batches) poll for signals every few milliseconds of work between pivots or sweeps, so
Ctrl-C stops them with KeyboardInterrupt (on the main thread, as Python delivers signals
there only).
"""
import math
import numbers

import numpy as np

from ._lcp import solve_one as _solve_one, solve_many as _solve_many, STATUS_NAMES, \
    residual as _residual, MAX_N

__all__ = ["solve", "solve_batch", "residual", "LCPResult", "LCPBatchResult", "METHODS",
           "MAX_N", "MAX_ITER"]

MAX_ITER = 2**31 - 1
"""Largest ``max_iter`` (a C int). ``MAX_N`` (46340): largest n (n*n fits a C int)."""

METHODS = {"lemke": 0, "pgs": 1, "murty": 2}
_OK = 0
_BAD_INPUT = 4
_float64 = np.dtype(np.float64)
_ndarray = np.ndarray


class LCPResult:
    """Result of :func:`solve`.

    Attributes
    ----------
    z, w : ndarray (n,)
        The returned point and ``w = M z + q``; ``z`` is 0 after a ray termination or a
        pivot limit.
    status : str
        ``"solved"``, ``"ray_termination"``, ``"max_iter"``, ``"not_converged"``,
        ``"numerical_failure"`` (names from ``mdae_status_str``).
    iterations : int
        Pivots (lemke, murty) or sweeps (pgs).
    residual : float
        The shared residual of ``z`` (see the module docstring).
    success : bool
        ``status == "solved"`` (which implies ``residual <= tol``).
    method : str
    reason : str
        Why a solve failed, in words (which condition of the method's domain ``M``
        breaks, e.g. a zero diagonal entry for PGS, a non-positive principal minor for
        Murty); ``""`` on success. See :mod:`mechdae.lcp._reasons`.
    """
    __slots__ = ("z", "w", "status", "iterations", "residual", "success", "method", "reason")

    def __init__(self, z, w, status, iterations, residual, success, method, reason=""):
        self.reason = reason
        self.z = z
        self.w = w
        self.status = status
        self.iterations = iterations
        self.residual = residual
        self.success = success
        self.method = method

    def __repr__(self):
        n = self.z.shape[0]
        zs = np.array2string(self.z, precision=6, threshold=8, edgeitems=3)
        why = f", reason={self.reason!r}" if self.reason else ""
        return (f"LCPResult(method={self.method!r}, status={self.status!r}, "
                f"success={self.success}, iterations={self.iterations}, "
                f"residual={self.residual:.3g}, n={n}, z={zs}{why})")


class LCPBatchResult:
    """Result of :func:`solve_batch`: the fields of :class:`LCPResult` stacked.

    Attributes
    ----------
    z, w : ndarray (B, n)
    status_code : ndarray (B,) of int
    status : ndarray (B,) of str
    iterations : ndarray (B,) of int
    residual : ndarray (B,)
    success : ndarray (B,) of bool
    method : str
    """
    __slots__ = ("z", "w", "status_code", "iterations", "residual", "success", "method")

    def __init__(self, z, w, status_code, iterations, residual, method):
        self.z = z
        self.w = w
        self.status_code = status_code
        self.iterations = iterations
        self.residual = residual
        self.success = status_code == _OK
        self.method = method

    @property
    def status(self):
        return np.array(STATUS_NAMES, dtype=object)[self.status_code].astype(str)

    def __len__(self):
        return self.z.shape[0]

    def __getitem__(self, k):
        """The k-th problem's result as an :class:`LCPResult`."""
        return LCPResult(self.z[k], self.w[k], STATUS_NAMES[self.status_code[k]],
                         int(self.iterations[k]), float(self.residual[k]),
                         bool(self.success[k]), self.method)

    def __repr__(self):
        return (f"LCPBatchResult(method={self.method!r}, problems={len(self)}, "
                f"n={self.z.shape[1]}, solved={int(self.success.sum())}, "
                f"max_residual={float(self.residual.max()) if len(self) else 0.0:.3g})")


def _as_float(a, name, fix):
    """ndarray float64 C-contiguous (ints and bools converted); complex/object rejected."""
    if type(a) is _ndarray and a.dtype is _float64 and a.flags.c_contiguous:
        return a
    try:
        arr = np.asarray(a)
    except Exception as exc:  # ragged nested lists and the like
        raise ValueError(f"{name} must be a numeric array {fix}: {exc}") from None
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"{name} has dtype {arr.dtype}; an LCP needs real numbers "
                         f"(float64; ints are converted, complex/object are not) {fix}")
    if arr.ndim >= 2 and arr.shape[-1] > MAX_N:
        _check_size(arr.shape[-1], name)      # before copying it
    return np.ascontiguousarray(arr, dtype=np.float64)


def _method_code(method):
    code = METHODS.get(method)
    if code is None:
        raise ValueError(f"unknown LCP method {method!r}; valid methods: "
                         + ", ".join(repr(m) for m in METHODS))
    return code


def _short(x):
    """repr of an option value for an error message, at most 40 characters."""
    r = repr(x)
    return r if len(r) <= 40 else r[:18] + "..." + r[-8:] + f" ({len(r)} characters)"


def _real(x):
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def _check_options(tol, max_iter, omega):
    if not (_real(tol) and math.isfinite(tol) and tol > 0.0):
        raise ValueError(f"tol must be a finite number > 0, got {_short(tol)}")
    if max_iter is None:
        max_iter = 0
    elif not (_real(max_iter) and (isinstance(max_iter, numbers.Integral) or (
            math.isfinite(max_iter) and float(max_iter).is_integer()))
              and 1 <= max_iter <= MAX_ITER):
        raise ValueError(f"max_iter must be a positive integer or None (at most "
                         f"2**31 - 1 = {MAX_ITER}), got {_short(max_iter)}")
    if not (_real(omega) and 0.0 < omega < 2.0):
        raise ValueError(f"omega (PGS relaxation) must be in (0, 2), got {_short(omega)}")
    return int(max_iter)


def _check_size(n, name):
    if n > MAX_N:
        raise ValueError(f"{name}: n = {n} exceeds the LCP size limit n <= {MAX_N} "
                         "(n*n must fit a C int; a dense Lemke tableau that large would "
                         f"need {8 * n * (n + 4) / 2**30:.3g} GiB)")


def solve(M, q, method="lemke", tol=1e-10, max_iter=None, z0=None, omega=1.0):
    """Solve the LCP ``z >= 0, w = M z + q >= 0, z^T w = 0``.

    Parameters
    ----------
    M : array_like, shape (n, n)
        Real matrix (converted to C-contiguous float64).
    q : array_like, shape (n,)
    method : {"lemke", "pgs", "murty"}
        See the module docstring for each method's domain.
    tol : float
        Residual tolerance (shared residual, scaled by ``max(||q||, 1)``).
    max_iter : int or None
        Pivot (lemke, murty) or sweep (pgs) limit; None for the method's default.
    z0 : array_like, shape (n,), optional
        Starting point (warm start) for ``"pgs"``; ignored by the pivoting methods.
    omega : float
        PGS relaxation factor in (0, 2).

    Returns
    -------
    LCPResult

    Raises
    ------
    ValueError
        Non-square ``M``, sizes of ``M`` and ``q`` differ, NaN or inf entries, non-real
        dtype, ``z0`` of the wrong shape, unknown method, bad options.

    Examples
    --------
    >>> from mechdae import lcp
    >>> r = lcp.solve([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0])
    >>> r.status, r.z.round(6).tolist()
    ('solved', [1.333333, 2.333333])
    """
    M = _as_float(M, "M", "(pass an (n, n) array)")
    q = _as_float(q, "q", "(pass an (n,) array)")
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ValueError(f"M must be a square 2-D array, got shape {M.shape}")
    if q.ndim != 1 or q.shape[0] != M.shape[0]:
        raise ValueError(f"q must have shape ({M.shape[0]},) to match M {M.shape}, "
                         f"got shape {q.shape}")
    if q.shape[0] > MAX_N:
        _check_size(q.shape[0], "M")
    code = METHODS.get(method)
    if code is None:
        code = _method_code(method)
    if tol != 1e-10 or max_iter is not None or omega != 1.0:
        max_iter = _check_options(tol, max_iter, omega)
    else:
        max_iter = 0
    if z0 is not None:
        z0 = _as_float(z0, "z0", "(pass an (n,) starting point)")
        if z0.shape != q.shape:
            raise ValueError(f"z0 must have shape {q.shape} like q, got {z0.shape}")
        if not np.isfinite(z0).all():
            raise ValueError("z0 contains NaN or inf; a starting point must be finite")
        if code != 1:
            z0 = None            # pivoting methods start from their own basis
    r = _solve_one(M, q, code, tol, max_iter, omega, z0, LCPResult, method)
    if r is None:
        raise ValueError(_bad_input_message(M, q, z0, ""))
    if not r.success:
        from ._reasons import reason
        r.reason = reason(M, q, r, tol, max_iter)
    return r


def _bad_input_message(M, q, z0, where):
    for name, a in (("M", M), ("q", q), ("z0", z0)):
        if a is not None and not np.isfinite(a).all():
            return (f"{name}{where} contains NaN or inf; an LCP needs finite data "
                    f"(replace or drop those entries)")
    return f"invalid LCP input{where}"


def solve_batch(Ms, qs, method="lemke", tol=1e-10, max_iter=None, z0=None, omega=1.0):
    """Solve a stack of LCPs of equal size in one C loop, without the GIL.

    Parameters
    ----------
    Ms : array_like, shape (B, n, n)
    qs : array_like, shape (B, n)
    method, tol, max_iter, omega
        As in :func:`solve`, shared by all problems.
    z0 : array_like, shape (B, n), optional
        Starting points for ``"pgs"``.

    Returns
    -------
    LCPBatchResult
        ``res[k]`` equals ``solve(Ms[k], qs[k], ...)``.

    Raises
    ------
    ValueError
        As :func:`solve`; the message names the first offending problem index.
    """
    Ms = _as_float(Ms, "Ms", "(pass a (B, n, n) stack)")
    qs = _as_float(qs, "qs", "(pass a (B, n) stack)")
    if Ms.ndim != 3 or Ms.shape[1] != Ms.shape[2]:
        raise ValueError(f"Ms must be a (B, n, n) stack of square matrices, got shape {Ms.shape}")
    if qs.shape != Ms.shape[:2]:
        raise ValueError(f"qs must have shape {Ms.shape[:2]} to match Ms {Ms.shape}, "
                         f"got shape {qs.shape}")
    _check_size(qs.shape[1], "Ms")
    code = _method_code(method)
    max_iter = _check_options(tol, max_iter, omega)
    if z0 is not None:
        z0 = _as_float(z0, "z0", "(pass a (B, n) stack of starting points)")
        if z0.shape != qs.shape:
            raise ValueError(f"z0 must have shape {qs.shape} like qs, got {z0.shape}")
        if not np.isfinite(z0).all():
            raise ValueError("z0 contains NaN or inf; starting points must be finite")
        if code != 1:
            z0 = None
    z, w, st, it, res, ok = _solve_many(Ms, qs, code, tol, max_iter, omega, z0)
    if not ok:
        k = int(np.flatnonzero(st == _BAD_INPUT)[0])
        raise ValueError(_bad_input_message(Ms[k], qs[k], None if z0 is None else z0[k],
                                            f"[{k}]").replace("M[", "Ms[").replace("q[", "qs["))
    return LCPBatchResult(z, w, st, it, res, method)


def residual(M, q, z):
    """The shared LCP residual ``||min(z, M z + q)||_2 / max(||q||_2, 1)``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Shapes that do not match, or NaN / inf entries in ``M``, ``q`` or ``z`` (the
        residual of a non-finite point is not a number).
    """
    M = _as_float(M, "M", "")
    q = _as_float(q, "q", "")
    z = _as_float(z, "z", "")
    if q.ndim != 1 or M.shape != (q.shape[0], q.shape[0]) or z.shape != q.shape:
        raise ValueError(f"residual needs M (n, n), q (n,), z (n,); got {M.shape}, "
                         f"{q.shape}, {z.shape}")
    for name, a in (("M", M), ("q", q), ("z", z)):
        if not np.isfinite(a).all():
            raise ValueError(f"{name} contains NaN or inf; the LCP residual needs finite "
                             "data")
    return _residual(M, q, z)[0]
