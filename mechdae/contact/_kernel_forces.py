"""Acceleration-level contact-force kernel (:func:`contact_forces`, Painlevé
classification) and the Siconos local friction-contact problem (:func:`solve_fc`,
:func:`fc_error`) with their results; re-exported by :mod:`mechdae.contact.kernels`."""
from dataclasses import dataclass, field

import numpy as np

from ..errors import SolverError
from . import _contact
from ._kernel_inputs import (ENUM_MAX, MAX_BOXES, MAX_ITER, MAX_N, MAX_SOLUTIONS, MODE_NAMES,
                             _BAD, _NUMERICAL, _OK, _array, _bad_input, _per_contact, _sizes,
                             check_count, check_tol)


@dataclass
class ContactForceSolution:
    """One consistent solution of the acceleration-level contact problem."""
    lam: np.ndarray
    acc: np.ndarray
    modes: tuple


@dataclass
class PainleveSolution:
    """Result of :func:`contact_forces`.

    Attributes
    ----------
    status : str
        ``"unique"``, ``"inconsistent"`` (no consistent mode combination: Painlevé
        inconsistency) or ``"indeterminate"`` (several).
    solutions : list of ContactForceSolution
        Every consistent solution (forces ``lam``, contact accelerations ``acc``, modes).
    exhaustive : bool
        True when ``solutions`` are provably all (see :attr:`ImpactSolution.exhaustive`;
        in 3D, contacts at rest that may start sliding in directions to be found).
    """
    status: str
    solutions: list = field(default_factory=list)
    exhaustive: bool = True

    @property
    def lam(self):
        """Contact forces of the first solution (None when inconsistent)."""
        return self.solutions[0].lam if self.solutions else None

    @property
    def acc(self):
        return self.solutions[0].acc if self.solutions else None


@dataclass
class FCSolution:
    """Result of :func:`solve_fc`.

    Attributes
    ----------
    r, u : ndarray, shape (n,)
        Reaction and local velocity ``u = W r + q``.
    error : float
        Siconos error ``sqrt(sum_a |r_a - P_K(r_a - u^_a)|^2) / max(|q|, |r|, |u|)``.
    iterations : int
        NSGS sweeps.
    status : str
        ``"converged"`` or ``"max_iter"``.
    """
    r: np.ndarray
    u: np.ndarray
    error: float
    iterations: int
    status: str


# ------------------------------------------------------------------------------------ #
# acceleration level
# ------------------------------------------------------------------------------------ #

def contact_forces(D, b, v_t, mu, dim=2, slide_tol=1e-12, tol=1e-9, max_solutions=64,
                   max_boxes=None):
    r"""Contact forces with sliding friction and their Painlevé classification.

    Contact accelerations ``a = D lam + b``. A contact sliding with velocity ``v_t != 0``
    has ``lam_t = -mu lam_n v_t/|v_t|``; a sticking one (``|v_t| <= slide_tol``) stays
    stuck (``a_t = 0``, ``|lam_t| <= mu lam_n``) or starts to slide; every contact obeys
    ``0 <= lam_n _|_ a_n >= 0``. All mode combinations are enumerated. For one sliding
    contact, ``a_n = U lam_n + F``: ``U > 0`` unique; ``U < 0, F < 0`` inconsistent;
    ``U < 0, F > 0`` indeterminate.

    Parameters
    ----------
    D : array_like, shape (n, n)
        Delassus matrix ``W M^-1 W^T`` (1/kg).
    b : array_like, shape (n,)
        Contact accelerations at ``lam = 0`` (m/s^2), including velocity terms.
    v_t : array_like, shape (k,) in 2D or (k, 2) in 3D
        Sliding velocities of the contacts (m/s).
    mu : float or array_like, shape (k,)
    dim : {2, 3}
    slide_tol : float
        ``|v_t| <= slide_tol`` counts as sticking.
    tol : float
        Relative tolerance of the consistency checks.
    max_solutions : int

    Returns
    -------
    PainleveSolution

    Examples
    --------
    >>> contact_forces([[-1.0, 0.0], [0.0, 1.0]], [1.0, 0.0], [1.0], 0.0).status
    'indeterminate'
    """
    slide_tol = check_tol(slide_tol, "slide_tol", lo_open=False, hi=None)
    tol = check_tol(tol, "tol")
    cap = max(2, check_count(max_solutions, "max_solutions", 1, MAX_SOLUTIONS,
                             " (solution capacity of the enumeration)"))
    D = _array(D, "D")
    n, k = _sizes(D, dim)
    if k > ENUM_MAX:
        raise ValueError(f"D: the contact-force enumeration handles at most {ENUM_MAX} "
                         f"contacts, got {k}")
    bb = _array(b, "b")
    if bb.shape != (n,):
        raise ValueError(f"b: expected shape ({n},) to match D, got {bb.shape}")
    vt = _array(v_t, "v_t").reshape(-1)
    if vt.shape != (k * (dim - 1),):
        raise ValueError(f"v_t: expected {k * (dim - 1)} sliding velocity components "
                         f"({'(k,)' if dim == 2 else '(k, 2)'}), got shape {np.shape(v_t)}")
    muv = _per_contact(mu, k, "mu")
    max_boxes = MAX_BOXES if max_boxes is None else check_count(
        max_boxes, "max_boxes", 1, MAX_ITER, " (box budget of the sliding-direction search)")
    st, nsol, bad, bidx, lam, acc, modes, incomplete = _contact.painleve(
        D, bb, vt, muv, dim, slide_tol, cap, tol, max_boxes)
    if st == _BAD:
        raise _bad_input(bad, bidx, dim)
    return _painleve_result(nsol, lam, acc, modes, incomplete, cap)


def _painleve_result(nsol, lam, acc, modes, incomplete, cap):
    """The :class:`PainleveSolution` of an enumeration from the kernel's raw outputs (the
    stored solutions, their common status); also used by the event engine's thin entry
    (mechdae.simulate.event.forces.solve_contact_forces)."""
    sols = [ContactForceSolution(lam[i].copy(), acc[i].copy(),
                                 tuple(MODE_NAMES[m] for m in modes[i]))
            for i in range(min(nsol, cap))]
    status = "unique" if nsol == 1 else ("indeterminate" if nsol > 1 else "inconsistent")
    return PainleveSolution(status, sols, incomplete == 0)


# ------------------------------------------------------------------------------------ #
# Siconos local friction-contact problem
# ------------------------------------------------------------------------------------ #

def _fc_matrix(W, n):
    if hasattr(W, "tocsr") and not isinstance(W, np.ndarray):
        Wc = W.tocsr()
        if Wc.shape != (n, n):
            raise ValueError(f"W: expected shape ({n}, {n}), got {Wc.shape}")
        Wc.sum_duplicates()
        if Wc.data.dtype.kind not in "biuf":
            raise ValueError(f"W: has dtype {Wc.data.dtype}; real numbers are needed")
        if not np.isfinite(Wc.data).all():
            raise ValueError("W: entries must be finite")
        if Wc.nnz > MAX_ITER:
            raise ValueError(f"W: {Wc.nnz} stored entries exceed the limit {MAX_ITER}")
        return (np.ascontiguousarray(Wc.indptr, dtype=np.intc),
                np.ascontiguousarray(Wc.indices, dtype=np.intc),
                np.ascontiguousarray(Wc.data, dtype=np.float64))
    if n > MAX_N:
        raise ValueError(f"W: a dense W of size n = {n} exceeds the limit n <= {MAX_N}; "
                         "pass a scipy.sparse matrix")
    Wd = _array(W, "W")
    if Wd.shape != (n, n):
        raise ValueError(f"W: expected shape ({n}, {n}), got {Wd.shape}")
    if not np.isfinite(Wd).all():
        raise ValueError("W: entries must be finite")
    return Wd


def _fc_inputs(W, q, mu, dim):
    if dim not in (2, 3):
        raise ValueError(f"dim: must be 2 or 3, got {dim!r}")
    qq = _array(q, "q").reshape(-1)
    n = qq.shape[0]
    if n % dim:
        raise ValueError(f"q: length {n} is not a multiple of dim = {dim}")
    nc = n // dim
    muv = _per_contact(mu, nc, "mu")
    return _fc_matrix(W, n), qq, muv, nc


def solve_fc(W, q, mu, dim, tol=1e-5, max_iter=10000, r0=None, error_every=1):
    r"""Solve a Siconos local friction-contact problem by nonsmooth Gauss-Seidel.

    ``u = W r + q``, ``r_a`` in ``K_a = {|r_T| <= mu_a r_N}``, ``u^_a = u_a +
    mu_a |u_T,a| e_N`` in ``K_a*``, ``r_a _|_ u^_a`` (normal component first per contact).
    Each contact is solved exactly (separate, stick, or slide with the sliding angle from a
    bracketed root search) with the others fixed.

    Parameters
    ----------
    W : array_like (n, n) or scipy.sparse matrix
        Delassus matrix.
    q : array_like, shape (n,)
    mu : float or array_like, shape (nc,)
    dim : {2, 3}
    tol : float
        Target Siconos error (see :func:`fc_error`).
    max_iter : int
        Maximum number of sweeps.
    r0 : array_like, optional
        Initial guess (default 0).
    error_every : int
        Compute the error every this many sweeps.

    Returns
    -------
    FCSolution

    Examples
    --------
    >>> s = solve_fc(np.eye(3), [-1.0, 1.0, 3.0], 0.1, 3)
    >>> np.round(s.r, 6)
    array([ 1.      , -0.031623, -0.094868])
    """
    tol = check_tol(tol, "tol")
    max_iter = check_count(max_iter, "max_iter", 1, MAX_ITER)
    error_every = check_count(error_every, "error_every", 1, MAX_ITER)
    Wm, qq, muv, nc = _fc_inputs(W, q, mu, dim)
    if r0 is not None:
        r0 = _array(r0, "r0").reshape(-1)
        if r0.shape != qq.shape:
            raise ValueError(f"r0: expected shape {qq.shape}, got {r0.shape}")
        if not np.isfinite(r0).all():
            raise ValueError("r0: the initial guess must be finite")
    st, it, err, bad, bidx, r, u = _contact.fc_nsgs(dim, nc, Wm, qq, muv, tol, max_iter, r0,
                                                    error_every)
    if st == _BAD:
        raise _bad_input(bad, bidx, dim)
    if st == _NUMERICAL:
        raise SolverError("solve_fc: the iteration produced non-finite values")
    return FCSolution(r, u, float(err), int(it), "converged" if st == _OK else "max_iter")


def fc_error(W, q, mu, dim, r):
    """Siconos error of a friction-contact solution ``r``.

    ``sqrt(sum_a |r_a - P_K(r_a - u^_a)|^2) / max(|q|, |r|, |u|)`` with ``u = W r + q``
    and ``u^_a = u_a + mu_a |u_T,a| e_N``.

    Returns
    -------
    error : float
    u : ndarray, shape (n,)
    """
    Wm, qq, muv, nc = _fc_inputs(W, q, mu, dim)
    rr = _array(r, "r").reshape(-1)
    if rr.shape != qq.shape:
        raise ValueError(f"r: expected shape {qq.shape}, got {rr.shape}")
    for name, a in (("q", qq), ("mu", muv), ("r", rr)):
        if not (np.isfinite(a).all() if name != "mu" else (a >= 0).all()):
            raise ValueError(f"{name}: must be finite (mu >= 0)")
    if isinstance(Wm, tuple):
        ip, ix = Wm[0], Wm[1]
        if ip[0] != 0 or (np.diff(ip) < 0).any() or ((ix < 0) | (ix >= qq.shape[0])).any():
            raise _bad_input(17, 0, dim)
    return _contact.fc_error(dim, nc, Wm, qq, muv, rr)
