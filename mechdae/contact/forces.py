"""The acceleration-level contact problem: :func:`contact_forces` (all consistent
lift-off / stick / slide modes) and :func:`painleve` (its Painlevé classification)."""
from dataclasses import dataclass, field

import numpy as np

from . import closure as _closure, kernels
from .assembly import GAP_TOL, _assembler
from .problem import ContactProblem, _params, _problem_from, _state

__all__ = ["contact_forces", "painleve", "ContactForcesResult", "ContactForceOutcome"]


# ------------------------------------------------------------------------------------ #
# acceleration level
# ------------------------------------------------------------------------------------ #

@dataclass
class ContactForceOutcome:
    """One consistent solution of the contact-force problem.

    Attributes
    ----------
    lam : dict
        Per active contact ``(lam_n, lam_t[, lam_t2])`` (N).
    modes : dict
        Per active contact ``"separate"`` (lift-off), ``"stick"`` or ``"slide"``.
    acc : dict
        Per active contact accelerations ``(a_n, a_t[, a_t2])`` (m/s^2).
    udot : ndarray (nu,)
        Accelerations ``u'``.
    """
    lam: dict
    modes: dict
    acc: dict
    udot: np.ndarray


@dataclass
class ContactForcesResult:
    """Result of :meth:`System.contact_forces` / :meth:`System.painleve`.

    Attributes
    ----------
    status : str
        ``"unique"``, ``"inconsistent"`` (no consistent mode combination) or
        ``"indeterminate"`` (several).
    solutions : list of ContactForceOutcome
    lam, modes, acc, udot
        Of the first solution (empty / NaN when inconsistent).
    U, F : dict
        For each sliding active contact, the Painlevé coefficients of
        ``a_n = U lam_n + F`` with the other contacts' forces set to zero
        (``U = D_nn - mu D_nt s``, ``s`` the sliding direction, ``F = b_n``).
    active : list of str
    problem : ContactProblem
    exhaustive : bool
        True when ``solutions`` are provably every consistent solution (see
        :attr:`ImpactResult.exhaustive`).
    """
    status: str
    solutions: list
    lam: dict
    modes: dict
    acc: dict
    udot: np.ndarray
    U: dict
    F: dict
    active: list
    problem: ContactProblem = field(default=None, repr=False)
    exhaustive: bool = True


def contact_forces(system, q, v, active=None, params=None, t=0.0, gap_tol=GAP_TOL,
                   vel_tol=1e-9, slide_tol=1e-12, tol=1e-9, inputs=None):
    r"""Contact forces of the closed contacts with Coulomb friction, all consistent modes.

    Contact accelerations ``a = D lam + b``; every active contact obeys
    ``0 <= lam_n _|_ a_n >= 0``; a sliding contact (``|v_t| > slide_tol``) has
    ``lam_t = -mu lam_n v_t/|v_t|``; a sticking one stays (``a_t = 0``,
    ``|lam_t| <= mu lam_n``) or starts to slide. Mode ``"separate"`` is a lift-off.

    Parameters
    ----------
    system : System
    q, v : dict by name or array in System order
    active : list of str, optional
        Default: closed, non-separating contacts (``gap <= gap_tol``, ``v_n <= vel_tol``).
    params : dict, optional
    t, gap_tol, vel_tol, slide_tol, tol : float

    Returns
    -------
    ContactForcesResult

    Raises
    ------
    ValueError
        A contact with ``mu = inf`` is sliding; bad state; unknown contact.
    """
    kernels.check_options(tol=tol, gap_tol=gap_tol, vel_tol=vel_tol, slide_tol=slide_tol)
    asm = _assembler(system)
    qa, ua, va = _state(system, q, v)
    pv, wv = _params(system, params, inputs, t)
    out = asm.evaluate(qa, ua, va, float(t), pv, wv)
    prob = _problem_from(asm, out, ua, active, pv, gap_tol, kind="forces", vel_tol=vel_tol)
    if prob.closure.any():
        _closure.reject(system, "contact_forces / painleve")
    nu = system.nu
    if prob.nc == 0:
        return ContactForcesResult("unique", [ContactForceOutcome({}, {}, {}, prob.acc_free)],
                                   {}, {}, {}, prob.acc_free, {}, {}, [], prob)
    dim = prob.dim
    vt = prob.v_minus.reshape(prob.nc, dim)[:, 1:]
    for a in range(prob.nc):
        if np.isinf(prob.mu[a]) and np.linalg.norm(vt[a]) > slide_tol:
            raise ValueError(f"contact {prob.contacts[a]!r}: sliding velocity "
                             f"{np.linalg.norm(vt[a]):.3g} with friction = inf; a contact "
                             "without sliding cannot slide (resolve the impact first)")
    s = kernels.contact_forces(prob.D, prob.b, vt.reshape(-1) if dim == 3 else vt[:, 0],
                               prob.mu, dim, slide_tol=slide_tol, tol=tol)
    sols = []
    for x in s.solutions:
        udot = prob.acc_free + prob.B @ x.lam
        sols.append(ContactForceOutcome(prob.per_contact(x.lam),
                                        dict(zip(prob.contacts, x.modes)),
                                        prob.per_contact(x.acc), udot))
    U, F = {}, {}
    for a, name in enumerate(prob.contacts):
        sp = np.linalg.norm(vt[a])
        if sp > slide_tol and np.isfinite(prob.mu[a]):
            i = a * dim
            sdir = vt[a] / sp
            U[name] = float(prob.D[i, i] - prob.mu[a] * prob.D[i, i + 1:i + dim] @ sdir)
            F[name] = float(prob.b[i])
    if sols:
        f = sols[0]
        return ContactForcesResult(s.status, sols, f.lam, f.modes, f.acc, f.udot, U, F,
                                   prob.contacts, prob, s.exhaustive)
    return ContactForcesResult(s.status, [], {}, {}, {}, np.full(nu, np.nan), U, F,
                               prob.contacts, prob, s.exhaustive)


def painleve(system, q, v, active=None, params=None, t=0.0, **kw):
    """Painlevé classification of the contact problem at ``(q, v)``.

    Same computation as :func:`contact_forces`; ``status`` is ``"unique"``,
    ``"inconsistent"`` (no consistent solution: ``U < 0, F < 0`` for one sliding contact)
    or ``"indeterminate"`` (several: ``U < 0, F > 0``). ``U`` and ``F`` are reported per
    sliding contact.
    """
    return contact_forces(system, q, v, active=active, params=params, t=t, **kw)
