r"""The acceleration-level contact problem of many contacts, by complementarity solvers.

The event engine decides modes from the contact-force problem on the touching contacts
(contact accelerations ``a = D lam + b``, ``0 <= lam_n _|_ a_n >= 0``, Coulomb's law: a
sliding contact has ``lam_t = -mu lam_n v_t / |v_t|``, a sticking one stays stuck,
``a_t = 0, |lam_t| <= mu lam_n``, or starts to slide against ``a_t``). Up to a few
contacts every mode combination is enumerated (:func:`mechdae.contact.kernels.
contact_forces`: exact, and it classifies Painlevé cases). The enumeration grows as
``3^k`` (350 ms for 8 frictional planar contacts) and stops at 8, so past
:data:`ENUM_FRICTION` frictional or :data:`ENUM_FRICTIONLESS` frictionless contacts the
problem goes to the complementarity kernels:

- frictionless contacts, sliding contacts (their friction force folded into the normal
  column: ``D_n - mu D_t s``) and planar sticking contacts: one LCP solved by Lemke's
  method (exact pivoting; ``mdae_lcp_lemke``). A planar sticking contact adds
  ``lam_t = beta^+ - beta^-`` and the slack ``sigma`` (``|a_t|`` when it starts to
  slide):

  .. math::

      0 \le \beta^\pm \perp \sigma \pm a_t \ge 0, \qquad
      0 \le \sigma \perp \mu \lambda_n - \beta^+ - \beta^- \ge 0 ;

- spatial sticking contacts (two tangent directions, the exact second-order cone): the
  nonsmooth Gauss-Seidel kernel of the friction-contact problem (``mdae_fc_nsgs``) with
  ``W = D``, ``q = b`` (the acceleration problem of a contact at rest is that problem).

One solution is returned (status ``"solved"``): multiplicity is not examined (it is, by
the enumeration, below the thresholds); its ``exhaustive`` flag is True only where the
solution is provably unique (frictionless contacts, positive definite normal block), and the
engine marks and warns about the others. A Lemke ray with a sliding contact whose
``U = D_nn - mu s D_nt`` is negative is reported as ``"inconsistent"`` (Painlevé);
any other failure raises :class:`mechdae.SolverError`.
"""
import numpy as np

from ...errors import SolverError
from ...contact.kernels import (ContactForceSolution, PainleveSolution, contact_forces,
                                ENUM_MAX, MAX_BOXES, _painleve_result, frictionless_unique,
                                solve_fc)

__all__ = ["solve_contact_forces", "ENUM_FRICTION", "ENUM_FRICTIONLESS"]

_CONTACT_FORCES = contact_forces     # the library's wrapper (tests may wrap kernels')
_CAP = 64                            # its max_solutions default, the solutions stored

#: Largest set of contacts with friction whose modes are enumerated.
ENUM_FRICTION = 4
#: Largest set of frictionless contacts whose modes are enumerated (1.5 ms at 8).
ENUM_FRICTIONLESS = ENUM_MAX


def solve_contact_forces(D, b, vt, mu, nt, dim, slide_tol=1e-12, tol=1e-9):
    """Contact forces of the touching contacts: enumeration for small sets, else LCP/NSGS.

    Parameters
    ----------
    D : (k dim, k dim) array
        Delassus matrix, rows padded to ``dim`` per contact.
    b : (k dim,) array
        Free contact accelerations.
    vt : (k (dim - 1),) array
        Sliding velocities.
    mu : (k,) array
        Friction coefficients.
    nt : sequence of int
        Tangent directions per contact (0, 1 or 2).
    dim : int
    slide_tol, tol : float
        As in :func:`mechdae.contact.kernels.contact_forces`.

    Returns
    -------
    PainleveSolution
        Status ``"unique"``, ``"indeterminate"``, ``"inconsistent"`` (enumeration) or
        ``"solved"`` / ``"inconsistent"`` (complementarity solvers).
    """
    k = len(nt)
    mu = np.asarray(mu, float)
    friction = any(nt[a] and mu[a] > 0 for a in range(k))
    if k <= (ENUM_FRICTION if friction else ENUM_FRICTIONLESS):
        return _enumerate(D, b, vt, mu, dim, slide_tol, tol)
    return _complementarity(np.asarray(D, float), np.asarray(b, float),
                            np.asarray(vt, float).reshape(k, dim - 1), mu, list(nt), dim,
                            slide_tol, tol)


def _enumerate(D, b, vt, mu, dim, slide_tol, tol):
    """``contact_forces(D, b, vt, mu, dim=dim, slide_tol=slide_tol, tol=tol)``, the same
    solution, through the kernel's thin entry (``_contact.painleve``) when the wrapper is
    the library's own and the inputs are float64 C-contiguous as the engine builds them:
    the wrapper's argument checks cost more than the enumeration of one contact. Bad
    input goes through the wrapper (its error)."""
    from ...contact import kernels
    if (kernels.contact_forces is not _CONTACT_FORCES or not 0 < tol < 1
            or not slide_tol >= 0
            or any(type(a) is not np.ndarray or a.dtype != np.float64
                   or not a.flags.c_contiguous for a in (D, b, vt, mu))
            or D.shape != (mu.shape[0] * dim,) * 2 or b.shape != (D.shape[0],)
            or vt.shape != (mu.shape[0] * (dim - 1),)):
        return kernels.contact_forces(D, b, vt, mu, dim=dim, slide_tol=slide_tol, tol=tol)
    st, nsol, _, _, lam, acc, modes, incomplete = kernels._contact.painleve(
        D, b, vt, mu, dim, slide_tol, _CAP, tol, MAX_BOXES)
    if st == kernels._BAD:
        return kernels.contact_forces(D, b, vt, mu, dim=dim, slide_tol=slide_tol, tol=tol)
    return _painleve_result(nsol, lam, acc, modes, incomplete, _CAP)


def _kinds(vt, mu, nt, slide_tol):
    """Per contact: ``("n", None)`` frictionless, ``("slide", s)`` with the unit sliding
    direction ``s`` (dim - 1 entries), ``("stick", None)``."""
    out = []
    for a in range(len(nt)):
        if not nt[a] or mu[a] == 0:
            out.append(("n", None))
            continue
        if np.isinf(mu[a]):
            raise SolverError(f"contact-force problem of {len(nt)} contacts: mu = inf "
                              f"(contact {a} of the set) is handled only by the enumeration "
                              f"of at most {ENUM_FRICTION} frictional contacts; use a finite "
                              "mu or method='timestepping'")
        v = vt[a, :nt[a]]
        nv = float(np.linalg.norm(v))
        if nv > slide_tol:
            s = np.zeros(vt.shape[1])
            s[:nt[a]] = v / nv
            out.append(("slide", s))
        else:
            out.append(("stick", None))
    return out


def _complementarity(D, b, vt, mu, nt, dim, slide_tol, tol):
    k = len(nt)
    kinds = _kinds(vt, mu, nt, slide_tol)
    # normal columns with the sliding friction folded in: lam = F lam_n (+ stick terms)
    F = np.zeros((k * dim, k))
    for a, (kd, s) in enumerate(kinds):
        F[a * dim, a] = 1.0
        if kd == "slide":
            F[a * dim + 1:a * dim + dim, a] = -mu[a] * s
    stick = [a for a, (kd, _) in enumerate(kinds) if kd == "stick"]
    if any(nt[a] == 2 for a in stick):
        lam = _nsgs(D, b, F, kinds, mu, dim, tol)
    else:
        lam = _lemke(D, b, F, stick, kinds, mu, dim, tol)
        if lam is None:
            U = [D[a * dim] @ F[:, a] for a, (kd, _) in enumerate(kinds) if kd == "slide"]
            if U and min(U) < 0:
                return PainleveSolution("inconsistent", [])
            raise SolverError(f"contact-force problem of {k} contacts: Lemke's method ended "
                              "on a ray (no solution found); beyond the enumeration the modes "
                              "are not classified: use method='timestepping'")
    acc = D @ lam + b
    scale = max(float(np.max(np.abs(lam))), 1e-300)
    modes = []
    for a, (kd, _) in enumerate(kinds):
        if not lam[a * dim] > tol * scale:
            modes.append("separate")
        elif kd == "slide":
            modes.append("slide")
        elif kd == "stick":
            at = acc[a * dim + 1:a * dim + 1 + nt[a]]
            ft = lam[a * dim + 1:a * dim + 1 + nt[a]]
            sat = np.linalg.norm(ft) >= mu[a] * lam[a * dim] * (1 - 1e-9)
            modes.append("slide" if sat and np.linalg.norm(at) > tol * max(
                1.0, float(np.max(np.abs(acc)))) else "stick")
        else:
            modes.append("stick")
    # one solution: it is the only one for frictionless contacts with a positive definite
    # normal block (a P-matrix LCP), otherwise the run says the search was not exhaustive
    return PainleveSolution("solved", [ContactForceSolution(lam, acc, tuple(modes))],
                            exhaustive=frictionless_unique(D, dim, mu))


def _lemke(D, b, F, stick, kinds, mu, dim, tol):
    """Contact forces (padded) from one LCP by Lemke's method; None on a ray."""
    from ...lcp import solve as lcp_solve
    k = F.shape[1]
    ns = len(stick)
    T = np.zeros((k * dim, ns))                   # tangential columns of the sticking
    for j, a in enumerate(stick):
        T[a * dim + 1, j] = 1.0
    Nrow = np.zeros((k, k * dim))                 # normal rows
    Nrow[np.arange(k), np.arange(k) * dim] = 1.0
    n = k + 3 * ns
    M = np.zeros((n, n))
    q = np.zeros(n)
    DF, DT = D @ F, D @ T
    # rows: a_n (k), sigma + a_t (ns), sigma - a_t (ns), mu lam_n - beta+ - beta- (ns)
    M[:k, :k], M[:k, k:k + ns], M[:k, k + ns:k + 2 * ns] = Nrow @ DF, Nrow @ DT, -Nrow @ DT
    q[:k] = Nrow @ b
    if ns:
        I = np.eye(ns)
        Trow = T.T
        s0, s1, s2 = k, k + ns, k + 2 * ns
        M[s0:s1, :k], M[s0:s1, s0:s1], M[s0:s1, s1:s2] = Trow @ DF, Trow @ DT, -Trow @ DT
        M[s0:s1, s2:] = I
        q[s0:s1] = Trow @ b
        M[s1:s2, :k], M[s1:s2, s0:s1], M[s1:s2, s1:s2] = -Trow @ DF, -Trow @ DT, Trow @ DT
        M[s1:s2, s2:] = I
        q[s1:s2] = -Trow @ b
        M[s2:, :k] = np.eye(k)[stick] * mu[stick][:, None]
        M[s2:, s0:s1], M[s2:, s1:s2] = -I, -I
    res = lcp_solve(M, q, method="lemke", tol=max(tol, 1e-12))
    if not res.success:
        return None
    z = res.z
    lam = F @ z[:k]
    if ns:
        lam = lam + T @ (z[k:k + ns] - z[k + ns:k + 2 * ns])
    return lam


def _nsgs(D, b, F, kinds, mu, dim, tol):
    """Contact forces (padded) from the friction-contact NSGS kernel (spatial sticking
    contacts; sliding ones enter with their friction folded into the normal column and
    ``mu = 0``)."""
    k = F.shape[1]
    W = D.copy()
    muv = np.array([mu[a] if kd == "stick" else 0.0 for a, (kd, _) in enumerate(kinds)])
    for a, (kd, _) in enumerate(kinds):
        if kd == "slide":
            W[:, a * dim] = D @ F[:, a]
            W[:, a * dim + 1:a * dim + dim] = 0.0
            if not W[a * dim, a * dim] > 0:
                raise SolverError(f"contact-force problem of {k} contacts: the sliding "
                                  f"contact {a} of the set has U = {W[a * dim, a * dim]:.6g} "
                                  "<= 0 (a Painlevé configuration) beyond the enumeration; "
                                  "use method='timestepping'")
    sol = solve_fc(W, b, muv, dim, tol=max(tol * 1e-3, 1e-13), max_iter=100000)
    if sol.status != "converged":
        raise SolverError(f"contact-force problem of {k} contacts: NSGS did not converge "
                          f"(error {sol.error:.3g} after {sol.iterations} sweeps)")
    r = sol.r
    lam = np.zeros(k * dim)
    for a, (kd, _) in enumerate(kinds):
        if kd == "slide":
            lam += F[:, a] * r[a * dim]
        else:
            lam[a * dim:a * dim + dim] = r[a * dim:a * dim + dim]
    return lam
