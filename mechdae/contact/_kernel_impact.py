"""Impact kernel wrappers (:func:`impact`, :func:`impact_batch`), their results and
:class:`EnergyGainError`; re-exported by :mod:`mechdae.contact.kernels` (see its docstring
for the impact law). Callers look ``impact`` up on :mod:`mechdae.contact.kernels`."""
import math
from dataclasses import dataclass

import numpy as np

from ..errors import SolverError
from . import _contact
from ._kernel_inputs import (ENUM_MAX, MAX_BOXES, MAX_ITER, MAX_N, MODE_NAMES, _BAD,
                             _BATCH_STATUS, _GAIN, _INFEASIBLE, _MAX_ITER, _METHODS,
                             _NOT_CONV, _NUMERICAL, _OK, _RAY, _array, _bad_input,
                             _impact_options, _per_contact, _sizes, check_count)


class EnergyGainError(SolverError):
    """An impact result would increase the kinetic energy although ``e_n, e_t <= 1``.

    Attributes
    ----------
    solution : ImpactSolution or ImpactBatchSolution
        The offending result, for inspection.
    """

    def __init__(self, msg, solution=None):
        super().__init__(msg)
        self.solution = solution


@dataclass
class ImpactSolution:
    """Result of :func:`impact`.

    Attributes
    ----------
    P : ndarray, shape (n,)
        Impulses, stacked per contact ``[P_n, P_t(, P_t2)]`` (N s).
    v_plus : ndarray, shape (n,)
        Post-impact contact velocities (m/s).
    modes : tuple of str
        Per contact ``"separate"``, ``"stick"`` or ``"slide"``.
    energy_change : float
        ``dT = P^T (v- + v+) / 2`` (J); <= 0 for a dissipative law.
    status : str
        ``"unique"``, ``"ambiguous"`` (several consistent solutions) or ``"inconsistent"``
        (none) from enumeration; ``"solved"`` from ``"lcp"``/``"nsgs"`` (uniqueness not
        examined).
    solutions : list of ImpactSolution or None
        Every consistent solution (``all_solutions=True`` with enumeration).
    exhaustive : bool
        True when ``solutions`` are provably all the consistent solutions and ``status``
        is proven: the enumeration searched every mode combination completely (always in
        2D; in 3D the sliding directions of several contacts sliding at once come from an
        interval branch-and-bound search that certifies each root). False from
        ``"lcp"``/``"nsgs"`` (one solution, no search), and from an enumeration whose
        direction search ran out of ``max_boxes``, met more than 4 contacts sliding at
        once or a statically indeterminate set of sliding contacts, or could not decide a
        box (a multiple root): then ``"unique"`` means one
        solution found, ``"inconsistent"`` none found, and more may exist.
    residual : float
        Siconos friction-contact error of ``P`` (0 up to round-off for an exact solution).
    method : str
    iterations : int
        Lemke pivots or NSGS sweeps.
    """
    P: np.ndarray
    v_plus: np.ndarray
    modes: tuple
    energy_change: float
    status: str
    solutions: list = None
    residual: float = 0.0
    method: str = "enum"
    iterations: int = 0
    exhaustive: bool = True


@dataclass
class ImpactBatchSolution:
    """Result of :func:`impact_batch` (first solution of each problem).

    Attributes
    ----------
    P, v_plus : ndarray, shape (N, n)
        NaN for a problem without a solution (inconsistent, solver failure).
    modes : ndarray of int, shape (N, k)
        Index into ``MODE_NAMES`` (0 separate, 1 stick, 2 slide); ``MODE_NONE`` (-1) for
        a problem without a solution.
    energy_change : ndarray, shape (N,)
        NaN for a problem without a solution.
    status : ndarray of str, shape (N,)
        ``"unique"``, ``"ambiguous"``, ``"inconsistent"``, ``"energy_gain"`` (only with
        ``energy="report"``), or a solver failure (``"ray"``, ``"max_iter"``).
    n_solutions : ndarray of int, shape (N,)
        Number of consistent solutions found (enumeration).
    exhaustive : ndarray of bool, shape (N,)
        Per problem, :attr:`ImpactSolution.exhaustive`: True where the search behind
        ``status`` and ``n_solutions`` was provably complete.
    """
    P: np.ndarray
    v_plus: np.ndarray
    modes: np.ndarray
    energy_change: np.ndarray
    status: np.ndarray
    n_solutions: np.ndarray
    exhaustive: np.ndarray = None


def _check_lcp_size(method, k, dim, facets):
    if k * dim > MAX_N:
        raise ValueError(f"D: n = {k * dim} exceeds the size limit n <= {MAX_N}")
    if method == "lcp":
        nl = k * ((2 if dim == 2 else facets) + 2)
        if nl > MAX_N:
            raise ValueError(f"facets: the friction-cone LCP of {k} contacts with {facets} "
                             f"facets has size {nl}, above the limit {MAX_N}; use fewer "
                             "facets or method='nsgs'")


def frictionless_unique(D, dim, mu):
    """True when every contact is frictionless and the normal block of ``D`` is positive
    definite: the complementarity problem (impact or contact forces) is then an LCP with a
    P-matrix, whose solution is unique whichever method found it."""
    mu = np.asarray(mu, float)
    if mu.size and np.any(mu != 0):
        return False
    Dn = np.asarray(D, float)[::dim, ::dim]
    try:
        np.linalg.cholesky(0.5 * (Dn + Dn.T))
    except np.linalg.LinAlgError:
        return False
    w = np.linalg.eigvalsh(0.5 * (Dn + Dn.T))
    return bool(w[0] > 1e-10 * max(w[-1], 1e-300))


def frictionless_unique_batch(D, dim, mu):
    """:func:`frictionless_unique` of N problems (D (N, n, n), mu (N, k)): bool (N,)."""
    out = np.zeros(len(D), bool)
    idx = np.flatnonzero((np.asarray(mu) == 0).all(axis=1))
    if idx.size:
        Dn = np.asarray(D, float)[idx][:, ::dim, ::dim]
        if Dn.shape[1] == 0:
            out[idx] = True
            return out
        w = np.linalg.eigvalsh(0.5 * (Dn + Dn.transpose(0, 2, 1)))
        out[idx] = w[:, 0] > 1e-10 * np.maximum(w[:, -1], 1e-300)
    return out


def _choose_method(method, k, dim, mu):
    if method == "auto":
        if k <= 6:
            return "enum"
        return "lcp" if dim == 2 and not np.isinf(mu).any() else "nsgs"
    if method not in _METHODS:
        raise ValueError(f"method: must be 'auto', 'enum', 'lcp' or 'nsgs', got {method!r}")
    if method == "enum" and k > ENUM_MAX:
        raise ValueError(f"method: 'enum' handles at most {ENUM_MAX} contacts (got {k}); "
                         "use method='lcp' or 'nsgs'")
    return method


def impact(D, v_minus, e_n=0.0, e_t=0.0, mu=0.0, dim=2, method="auto", facets=None,
           all_solutions=False, tol=1e-9, max_iter=10000, energy="raise",
           allow_superelastic=False, max_solutions=64, max_boxes=MAX_BOXES):
    r"""Solve the impact problem with Newton restitution and Coulomb friction.

    Finds impulses ``P`` with ``v+ = v- + D P`` such that, per contact, with
    ``w = v+ + E v-``: ``0 <= P_n _|_ w_n >= 0`` and Coulomb's law on ``w_t``
    (``|P_t| <= mu P_n``; sliding: ``P_t = -mu P_n w_t/|w_t|``).

    Parameters
    ----------
    D : array_like, shape (n, n)
        Delassus matrix ``W M^-1 W^T`` (1/kg), symmetric PSD, ``n = k * dim``.
    v_minus : array_like, shape (n,)
        Pre-impact contact velocities ``[v_n, v_t(, v_t2)]`` per contact (m/s).
    e_n, e_t : float or array_like, shape (k,)
        Normal restitution in [0, 1]; tangential restitution in [-1, 1].
    mu : float or array_like, shape (k,)
        Friction coefficients >= 0; ``np.inf`` means no sliding.
    dim : {2, 3}
        Contact dimension.
    method : {"auto", "enum", "lcp", "nsgs"}
        ``"enum"``: every mode combination (exact in 2D; 3D sliding directions from an exact
        angle search for one sliding contact, a certified interval branch-and-bound search
        for up to 4 sliding at once; see ``exhaustive`` in :class:`ImpactSolution`),
        reports ambiguity; ``"lcp"``: friction-cone LCP solved by Lemke (exact in 2D, ``facets``-sided
        inscribed polygon in 3D); ``"nsgs"``: nonsmooth Gauss-Seidel with an exact local
        solver (exact second-order cone). ``"auto"``: enumeration for k <= 6.
    facets : int, optional
        Number of tangent directions of the polyhedral cone (``"lcp"`` in 3D), default 8.
    all_solutions : bool
        Return every consistent solution in ``solutions`` (enumeration).
    tol : float
        Relative tolerance of the consistency checks (NSGS: target error).
    max_iter : int
        NSGS sweeps.
    energy : {"raise", "report"}
        On an energy gain with ``e <= 1``: raise :class:`EnergyGainError`, or return the
        solution with ``status = "energy_gain"``.
    allow_superelastic : bool
        Accept ``e_n, e_t > 1`` (the energy is then not checked).
    max_solutions : int
        Capacity for ``all_solutions``.
    max_boxes : int
        Box budget of each search of the sliding directions of several 3D contacts sliding
        at once (about 40 us a box with 3 sliding); when spent, the result says
        ``exhaustive=False``.

    Returns
    -------
    ImpactSolution

    Raises
    ------
    ValueError
        Bad shapes, non-finite entries, non-symmetric D, restitution outside its range,
        negative mu; the message names the argument and the fix.
    EnergyGainError
        The law would increase the kinetic energy (``energy="raise"``).
    SolverError
        Lemke ended on a ray, or NSGS did not converge.

    Examples
    --------
    >>> sol = impact(np.eye(2), [-1.0, 0.5], e_n=0.5, mu=0.3, dim=2)
    >>> sol.v_plus, sol.modes
    (array([0.5 , 0.05]), ('slide',))
    """
    tol, max_iter, facets, max_solutions = _impact_options(tol, max_iter, facets,
                                                           max_solutions, energy)
    D, v, n, k, en, et, muv = _impact_arrays(D, v_minus, e_n, e_t, mu, dim)
    method = _choose_method(method, k, dim, muv)
    _check_lcp_size(method, k, dim, facets)
    max_boxes = check_count(max_boxes, "max_boxes", 1, MAX_ITER,
                            " (box budget of the sliding-direction search)")
    cap = max_solutions if all_solutions else 2
    (st, nsol, iters, resid, bad, bidx, P, vp, modes, dT, incomplete) = _contact.impact(
        D, v, en, et, muv, dim, _METHODS[method], facets, cap, max_iter, tol, tol,
        bool(allow_superelastic), max_boxes)
    exhaustive = (method == "enum" and incomplete == 0) or frictionless_unique(D, dim, muv)
    if st == _BAD:
        raise _bad_input(bad, bidx, dim)
    if st in (_RAY, _MAX_ITER, _NOT_CONV, _NUMERICAL, _INFEASIBLE):
        raise SolverError(f"impact ({method}): {_contact.status_str(st)} after {iters} "
                          f"iterations (residual {resid:.3g})")
    if method == "enum" and not all_solutions and nsol >= 1 and st != _GAIN:
        # fast path (one call per impact in simulations): first solution only
        return ImpactSolution(P[0], vp[0], tuple([MODE_NAMES[m] for m in modes[0].tolist()]),
                              float(dT[0]), "unique" if nsol == 1 else "ambiguous", None,
                              resid, method, 0, exhaustive)
    if method == "enum":
        out = _enum_result(st, nsol, resid, P, vp, modes, dT, n, k, cap, all_solutions,
                           exhaustive)
    else:
        out = _iterative_result(st, resid, P, vp, modes, dT, method, iters, all_solutions,
                                exhaustive)
    if st == _GAIN and energy == "raise":
        gains = [s.energy_change for s in (out.solutions or [out])]
        raise EnergyGainError(f"impact: kinetic energy would increase by {max(gains):.6g} "
                              "although e_n, e_t <= 1 (check v_minus: contacts should be "
                              "approaching, v_n <= 0, and D positive semidefinite)", out)
    return out


def _impact_arrays(D, v_minus, e_n, e_t, mu, dim):
    """The arguments of :func:`impact` as checked float arrays (a ValueError naming the
    argument otherwise).

    Returns
    -------
    (ndarray (n, n), ndarray (n,), int, int, ndarray (k,), ndarray (k,), ndarray (k,))
        ``D``, ``v_minus``, ``n``, ``k`` (contacts), ``e_n``, ``e_t``, ``mu``.
    """
    if hasattr(D, "shape") and np.ndim(D) >= 1 and D.shape[-1] > MAX_N:
        raise ValueError(f"D: n = {D.shape[-1]} exceeds the size limit n <= {MAX_N}")
    D = _array(D, "D")
    n, k = _sizes(D, dim)
    v = _array(v_minus, "v_minus")
    if v.shape != (n,):
        raise ValueError(f"v_minus: expected shape ({n},) to match D, got {v.shape}")
    en = _per_contact(e_n, k, "e_n")
    et = _per_contact(e_t, k, "e_t")
    muv = _per_contact(mu, k, "mu")
    return D, v, n, k, en, et, muv


def _iterative_result(st, resid, P, vp, modes, dT, method, iters, all_solutions, exhaustive):
    """The :class:`ImpactSolution` of ``"lcp"``/``"nsgs"`` (one solution, status
    ``"solved"`` or ``"energy_gain"``; itself as the only entry of ``solutions`` with
    ``all_solutions``)."""
    status = "energy_gain" if st == _GAIN else "solved"
    out = ImpactSolution(P[0], vp[0], tuple(MODE_NAMES[m] for m in modes[0]), float(dT[0]),
                         status, [] if all_solutions else None, resid, method, iters,
                         exhaustive)
    if all_solutions:
        out.solutions = [out]
    return out


def _enum_result(st, nsol, resid, P, vp, modes, dT, n, k, cap, all_solutions, exhaustive):
    """The :class:`ImpactSolution` of an enumeration from the kernel's raw outputs (the
    stored solutions, their common status); also used by the event engine's thin entry
    (mechdae.simulate.event.impacts.solve_impact)."""
    nstore = min(nsol, cap)
    ml = modes[:nstore].tolist()          # only the stored rows (of up to max_solutions)
    sols = [ImpactSolution(P[i], vp[i], tuple([MODE_NAMES[m] for m in ml[i]]),
                           float(dT[i]), "", None, resid if i == 0 else math.nan, "enum", 0,
                           exhaustive)
            for i in range(nstore)]
    if st == _GAIN:
        status = "energy_gain"
    else:
        status = "unique" if nsol == 1 else ("ambiguous" if nsol > 1 else "inconsistent")
    for s in sols:
        s.status = status
    if sols:
        out = sols[0]
        out.solutions = sols if all_solutions else None
        return out
    return ImpactSolution(np.full(n, np.nan), np.full(n, np.nan), ("",) * k, math.nan,
                          status, [] if all_solutions else None, math.nan, "enum", 0,
                          exhaustive)


def impact_batch(D, v_minus, e_n=0.0, e_t=0.0, mu=0.0, dim=2, method="enum", facets=None,
                 tol=1e-9, max_iter=10000, energy="raise", allow_superelastic=False,
                 threads=1, max_boxes=MAX_BOXES):
    """Solve N impact problems of equal size in one C call (for sweeps).

    Parameters
    ----------
    D : array_like, shape (N, n, n)
        Delassus matrices.
    v_minus : array_like, shape (N, n)
    e_n, e_t, mu : float or array_like broadcastable to (N, k)
    dim, method, facets, tol, max_iter, energy, allow_superelastic
        As in :func:`impact` (``method="auto"`` is not accepted: choose one).
    threads : int
        2 or more: the problems are split in two contiguous halves solved in parallel
        (the GIL released); results are identical to one thread.
    max_boxes : int
        As in :func:`impact`, for each problem.

    Returns
    -------
    ImpactBatchSolution
        First solution of every problem; ``status`` and ``n_solutions`` tell uniqueness,
        ``exhaustive`` whether they are proven.

    Raises
    ------
    ValueError, EnergyGainError
        As :func:`impact`; an energy gain raises unless ``energy="report"``.

    Examples
    --------
    >>> Ds = np.broadcast_to(np.eye(2), (3, 2, 2))
    >>> out = impact_batch(Ds, [[-1.0, 0.0]] * 3, e_n=[[0.0], [0.5], [1.0]])
    >>> out.v_plus[:, 0]
    array([0. , 0.5, 1. ])
    """
    tol, max_iter, facets, _ = _impact_options(tol, max_iter, facets, 1, energy)
    threads = check_count(threads, "threads", 1, MAX_ITER)
    max_boxes = check_count(max_boxes, "max_boxes", 1, MAX_ITER,
                            " (box budget of the sliding-direction search)")
    if hasattr(D, "shape") and np.ndim(D) >= 1 and D.shape[-1] > MAX_N:
        raise ValueError(f"D: n = {D.shape[-1]} exceeds the size limit n <= {MAX_N}")
    D = _array(D, "D")
    if D.ndim != 3:
        raise ValueError(f"D: expected shape (N, n, n), got {D.shape}")
    n, k = _sizes(D, dim)
    N = D.shape[0]
    v = _array(v_minus, "v_minus")
    if v.shape != (N, n):
        raise ValueError(f"v_minus: expected shape ({N}, {n}), got {v.shape}")
    en = _per_contact(e_n, k, "e_n", (N,))
    et = _per_contact(e_t, k, "e_t", (N,))
    muv = _per_contact(mu, k, "mu", (N,))
    if method not in _METHODS:
        raise ValueError(f"method: must be 'enum', 'lcp' or 'nsgs', got {method!r}")
    if method == "enum" and k > ENUM_MAX:
        raise ValueError(f"method: 'enum' handles at most {ENUM_MAX} contacts (got {k})")
    _check_lcp_size(method, k, dim, facets)
    st, bad, bidx, P, vp, modes, dT, sts, ns, inc = _contact.impact_batch(
        D, v, en, et, muv, dim, _METHODS[method], facets, max_iter, tol, tol,
        bool(allow_superelastic), threads, max_boxes)
    if st == _BAD:
        raise _bad_input(bad, -1, dim, where=f"problem {bidx}: ")
    status = _BATCH_STATUS[sts]
    status[(sts == _OK) & (ns == 0)] = "inconsistent"
    if method != "enum":
        status[sts == _OK] = "solved"
    exhaustive = (inc == 0) if method == "enum" else np.zeros(N, bool)
    if not exhaustive.all():
        rest = np.flatnonzero(~exhaustive)
        exhaustive[rest] = frictionless_unique_batch(D[rest], dim, muv[rest])
    out = ImpactBatchSolution(P, vp, modes, dT, status, ns, exhaustive)
    if energy == "raise" and (sts == _GAIN).any():
        idx = np.flatnonzero(sts == _GAIN)
        raise EnergyGainError(f"impact_batch: kinetic energy would increase in problems "
                              f"{idx[:10].tolist()}{'...' if len(idx) > 10 else ''}", out)
    return out
