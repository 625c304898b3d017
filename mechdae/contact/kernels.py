r"""Contact-space kernels: impacts with restitution and Coulomb friction, the
acceleration-level contact problem with its Painlevé classification, and the Siconos local
friction-contact problem. Everything here works on Delassus matrices; ``System.impact`` /
``System.painleve`` assemble them from a compiled model.

Notation (DESIGN.md, "Contacts"): ``k`` contacts of dimension ``dim`` (2: normal + one
tangent, 3: normal + two tangents); contact-space vectors are stacked contact by contact,
normal first, ``n = k * dim``. The Delassus matrix ``D = W M^-1 W^T`` (n x n, symmetric
positive semidefinite) maps impulses to velocity jumps, ``v+ = v- + D P``.

Impact law (Newton, velocity level), with the target velocity
``w = v+ + E v-`` (``E = diag(e_n, e_t[, e_t])`` per contact):

.. math::

    0 \le P_n \perp w_n \ge 0, \qquad |P_t| \le \mu P_n, \qquad
    w_t \ne 0 \Rightarrow P_t = -\mu P_n \, w_t / |w_t| .

Each contact "separates" (P = 0), "sticks" (w = 0) or "slides" (w_n = 0, P_t on the cone
boundary opposite to w_t). ``mu = inf`` means no sliding: a contact separates or sticks
with ``w_t = 0`` exactly. The kinetic energy change is ``dT = P^T (v- + v+) / 2``; with
``e_n, e_t <= 1`` a gain is an error of the law and raises :class:`EnergyGainError`.

The computations run in C (csrc/mdae_contact.c).
"""
import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from ..errors import SolverError
from . import _contact

__all__ = ["impact", "impact_batch", "contact_forces", "solve_fc", "fc_error",
           "ImpactSolution", "ImpactBatchSolution", "PainleveSolution", "ContactForceSolution",
           "FCSolution", "EnergyGainError", "MODE_NAMES", "MODE_NONE"]

MODE_NAMES = ("separate", "stick", "slide")
MODE_NONE = -1
"""Mode code (``ImpactBatchSolution.modes``) of a problem without a solution."""
_F64 = np.dtype(np.float64)
ENUM_MAX = int(_contact.ENUM_MAX)
MAX_FACETS = int(_contact.MAX_FACETS)
"""Largest ``facets`` (tangent directions of the polyhedral cone, ``method="lcp"``)."""
MAX_SOLUTIONS = int(_contact.MAX_SOLUTIONS)
"""Largest ``max_solutions`` (solution capacity of the enumeration)."""
MAX_ITER = 2**31 - 1
"""Largest iteration count (``max_iter``, ``error_every``): a C int."""
MAX_BOXES = int(_contact.MAX_BOXES)
"""Default box budget (``max_boxes``) of one search of the sliding directions of several
3D contacts sliding at once."""
MAX_N = 46340
"""Largest contact-space size n (and LCP size of ``method="lcp"``): n*n fits a C int."""
_METHODS = {"enum": 0, "lcp": 1, "nsgs": 2}
# mdae_status codes
_OK, _MAX_ITER, _RAY, _INFEASIBLE, _BAD, _NUMERICAL, _NOT_CONV, _AMBIG, _INCONS, _GAIN = range(10)
_BATCH_STATUS = np.array(["unique", "max_iter", "ray", "infeasible", "bad_input", "numerical",
                          "not_converged", "ambiguous", "inconsistent", "energy_gain", "workspace",
                          "interrupted"], dtype=object)


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
# input handling
# ------------------------------------------------------------------------------------ #

def _per_contact(x, k, name, lead=()):
    if (type(x) is np.ndarray and x.dtype is _F64 and x.shape == lead + (k,)
            and x.strides[-1] == 8 and (not lead or x.strides[0] == 8 * k)):
        return x
    if type(x) in (float, int):
        return np.full(lead + (k,), float(x))
    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 0:
        return np.full(lead + (k,), float(a))
    try:
        return np.ascontiguousarray(np.broadcast_to(a, lead + (k,)))
    except ValueError:
        raise ValueError(f"{name}: expected a scalar or one value per contact (shape "
                         f"{lead + (k,)}), got shape {a.shape}") from None


def _sizes(D, dim, name="D"):
    if dim not in (2, 3):
        raise ValueError(f"dim: must be 2 (normal + one tangent) or 3 (normal + two "
                         f"tangents), got {dim!r}")
    if D.ndim < 2 or D.shape[-1] != D.shape[-2]:
        raise ValueError(f"{name}: must be a square (n, n) Delassus matrix, got shape {D.shape}")
    n = D.shape[-1]
    if n % dim:
        raise ValueError(f"{name}: size n = {n} is not a multiple of dim = {dim}; stack "
                         f"[normal, tangent(s)] per contact")
    return n, n // dim


def _bad_input(code, index, dim, where=""):
    msgs = {
        1: "sizes are inconsistent (dim must be 2 or 3; enumeration handles at most "
           f"{ENUM_MAX} contacts: use method='lcp' or 'nsgs')",
        2: f"D: entry {index} is not finite; the Delassus matrix must be finite",
        3: f"D: not symmetric (entry {index} in row-major order differs from its transpose); "
           "pass W M^-1 W^T, e.g. 0.5 * (D + D.T) after assembly",
        4: f"v_minus: entry {index} is not finite",
        5: f"e_n: contact {index} has a normal restitution outside [0, 1]; pass "
           "allow_superelastic=True to allow e_n > 1",
        6: f"e_t: contact {index} has a tangential restitution outside [-1, 1]; pass "
           "allow_superelastic=True to allow e_t > 1",
        7: f"mu: contact {index} has a negative or NaN friction coefficient; use mu >= 0 "
           "(mu = inf for no sliding)",
        8: "method: unknown",
        9: f"mu: contact {index} has mu = inf, which the LCP formulation cannot represent; "
           "use method='enum' or 'nsgs'",
        11: f"mu: contact {index} is sliding (v_t != 0) with mu = inf; a contact without "
            "sliding cannot have a sliding velocity",
        10: f"facets: must be an integer in [3, {MAX_FACETS}]",
        12: f"q: entry {index} is not finite",
        13: "tol: must be a finite number > 0 (energy_tol finite and >= 0)",
        14: f"max_solutions: must be an integer in [1, {MAX_SOLUTIONS}]",
        15: f"max_iter: must be an integer in [1, {MAX_ITER}] (error_every too)",
        16: "slide_tol: must be a finite number >= 0",
        18: f"max_boxes: must be an integer in [1, {MAX_ITER}]",
        17: f"W: invalid CSR structure (row {index}: indptr must start at 0 and not "
            "decrease, column indices must lie in [0, n))",
    }
    return ValueError(where + msgs.get(code, f"bad input (code {code})"))


def _short(x):
    """repr of an option value for an error message, at most 40 characters."""
    r = repr(x)
    return r if len(r) <= 40 else r[:18] + "..." + r[-8:] + f" ({len(r)} characters)"


def check_tol(x, name, lo=0.0, hi=1.0, lo_open=True, hi_open=True):
    """``x`` as a float, or ValueError naming the option and its range (NaN, inf, bools,
    strings and out-of-range values refused). Returns the float."""
    if type(x) is float and lo < x < (math.inf if hi is None else hi):
        return x
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise ValueError(f"{name}: must be a real number, got {_short(x)}")
    v = float(x)
    ok = math.isfinite(v) and (v > lo if lo_open else v >= lo) and \
        (hi is None or (v < hi if hi_open else v <= hi))
    if not ok:
        rng = (("(" if lo_open else "[") + f"{lo:g}, " +
               ("inf)" if hi is None else f"{hi:g}" + (")" if hi_open else "]")))
        raise ValueError(f"{name}: must be a finite number in {rng}, got {_short(x)}")
    return v


def check_count(x, name, lo, hi, what=""):
    """``x`` as an int in ``[lo, hi]``, or ValueError naming the option and the limit
    (bools, non-integral floats, NaN and out-of-range values refused; checked before any
    allocation). Returns the int."""
    if type(x) is int and lo <= x <= hi:
        return x
    if isinstance(x, (bool, np.bool_)):
        raise ValueError(f"{name}: must be an integer, got {_short(x)}")
    if isinstance(x, numbers.Integral):
        v = int(x)
    elif isinstance(x, numbers.Real) and math.isfinite(float(x)) and float(x).is_integer():
        v = int(x)
    else:
        raise ValueError(f"{name}: must be an integer, got {_short(x)}")
    if not lo <= v <= hi:
        raise ValueError(f"{name}: must be an integer in [{lo}, {hi}]{what}, got {_short(v)}")
    return v


def check_options(**options):
    """Check the tolerances of the System-level contact functions by name: ``tol`` finite
    in (0, 1); ``gap_tol``, ``vel_tol`` finite (a length, a speed); ``slide_tol`` finite
    and >= 0. ValueError naming the first bad one and its range."""
    for name, x in options.items():
        if name == "tol":
            check_tol(x, name)
        elif name == "slide_tol":
            check_tol(x, name, lo_open=False, hi=None)
        else:
            check_tol(x, name, lo=-math.inf, hi=None)


def _check_mu_e(e_n, e_t, mu, allow):
    # cheap duplicates of the C checks so batch errors name the problem index clearly
    for name, arr, lo in (("e_n", e_n, 0.0), ("e_t", e_t, -1.0)):
        if not np.all(arr >= lo) or (not allow and not np.all(arr <= 1.0)):
            raise ValueError(f"{name}: restitution must lie in [{lo:g}, 1]; pass "
                             "allow_superelastic=True to allow values above 1")
    if not np.all(mu >= 0):
        raise ValueError("mu: friction coefficients must be >= 0 (mu = inf for no sliding)")


# ------------------------------------------------------------------------------------ #
# impact
# ------------------------------------------------------------------------------------ #

def _array(x, name, dtype=np.float64):
    """C-contiguous float64 copy (or view) of any real array-like (ints, Fortran order,
    strided and read-only arrays accepted); complex, object and ragged input refused."""
    if type(x) is np.ndarray and x.dtype is _F64 and x.flags.c_contiguous:
        return x
    try:
        a = np.asarray(x)
    except Exception as exc:  # ragged nested lists and the like
        raise ValueError(f"{name}: must be a real numeric array: {exc}") from None
    if a.dtype.kind not in "biuf":
        raise ValueError(f"{name}: has dtype {a.dtype}; real numbers are needed (float64; "
                         "ints are converted, complex/object/strings are not)")
    return np.ascontiguousarray(a, dtype=np.float64)


def _impact_options(tol, max_iter, facets, max_solutions, energy):
    tol = check_tol(tol, "tol")
    max_iter = check_count(max_iter, "max_iter", 1, MAX_ITER)
    facets = 8 if facets is None else check_count(
        facets, "facets", 3, MAX_FACETS, " (tangent directions of the polyhedral cone)")
    max_solutions = check_count(max_solutions, "max_solutions", 1, MAX_SOLUTIONS,
                                " (solution capacity of the enumeration)")
    if energy not in ("raise", "report"):
        raise ValueError(f"energy: must be 'raise' or 'report', got {energy!r}")
    return tol, max_iter, facets, max_solutions


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
        nstore = min(nsol, cap)
        ml = modes[:nstore].tolist()      # only the stored rows (of up to max_solutions)
        sols = [ImpactSolution(P[i], vp[i], tuple([MODE_NAMES[m] for m in ml[i]]),
                               float(dT[i]), "", None, resid if i == 0 else math.nan, method, 0,
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
        else:
            out = ImpactSolution(np.full(n, np.nan), np.full(n, np.nan), ("",) * k, math.nan,
                                 status, [] if all_solutions else None, math.nan, method, 0,
                                 exhaustive)
    else:
        status = "energy_gain" if st == _GAIN else "solved"
        out = ImpactSolution(P[0], vp[0], tuple(MODE_NAMES[m] for m in modes[0]), float(dT[0]),
                             status, [] if all_solutions else None, resid, method, iters,
                             exhaustive)
        if all_solutions:
            out.solutions = [out]
    if st == _GAIN and energy == "raise":
        gains = [s.energy_change for s in (out.solutions or [out])]
        raise EnergyGainError(f"impact: kinetic energy would increase by {max(gains):.6g} "
                              "although e_n, e_t <= 1 (check v_minus: contacts should be "
                              "approaching, v_n <= 0, and D positive semidefinite)", out)
    return out


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
