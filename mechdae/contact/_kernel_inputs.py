"""Option checking, input converters and shared constants of the contact-space kernels
(:mod:`mechdae.contact.kernels`, which re-exports every name here)."""
import math
import numbers

import numpy as np

from . import _contact

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
