"""The contact-space problem of a System at one state: inputs (states, parameters,
active sets), :class:`ContactProblem` and :func:`contact_problem` (see
:mod:`mechdae.contact.assembly` for the equations)."""
from dataclasses import dataclass

import numpy as np

from .assembly import GAP_TOL, _assembler, _layout

__all__ = ["contact_problem", "ContactProblem"]


# ------------------------------------------------------------------------------------ #
# inputs
# ------------------------------------------------------------------------------------ #

def _state(system, q, v):
    """Arrays ``(q, u, v_extra)`` from dicts or arrays; errors name ``q`` / ``v``."""
    if (type(q) is np.ndarray and q.shape == (system.nq,) and type(v) is np.ndarray
            and v.shape == (system.nu,) and system.nv == 0):
        qa, ua, va = q.astype(float), v.astype(float), None
    else:
        try:
            qa, ua, va, _, _ = system.state_arrays(q, v)
        except ValueError as exc:
            msg = str(exc).replace("q0:", "q:", 1).replace("v0:", "v:", 1)
            raise ValueError(msg) from None
    if not np.isfinite(qa).all():
        bad = [n for n, x in zip(system.q_names, qa) if not np.isfinite(x)]
        raise ValueError(f"q: coordinate{'s' if len(bad) > 1 else ''} "
                         f"{', '.join(repr(b) for b in bad)} not finite")
    if not np.isfinite(ua).all():
        bad = [n for n, x in zip(system.u_names, ua) if not np.isfinite(x)]
        raise ValueError(f"v: speed{'s' if len(bad) > 1 else ''} "
                         f"{', '.join(repr(b) for b in bad)} not finite")
    return qa, ua, va


def _params(system, params, inputs, t):
    if not system.w_names:
        pv = system.p_defaults if not params else system.param_vector(params)
        return pv, None
    return system._pw(params, inputs, t)


def _active_indices(asm, active, closed, what="active"):
    if active is None:
        return [i for i in range(len(asm.names)) if closed[i]]
    if isinstance(active, str):
        active = [active]
    idx = []
    for a in active:
        if a not in asm.names:
            raise ValueError(f"{what}: unknown contact {a!r} for model "
                             f"'{asm.system.name}'; contacts: "
                             f"{', '.join(asm.names) or 'none'}")
        i = asm.names.index(a)
        if i in idx:
            raise ValueError(f"{what}: contact {a!r} listed twice")
        idx.append(i)
    return idx


# ------------------------------------------------------------------------------------ #
# the problem object
# ------------------------------------------------------------------------------------ #

@dataclass
class ContactProblem:
    r"""Contact-space problem of a System at one state (active contacts only).

    Attributes
    ----------
    contacts : list of str
        Names of the active contacts, in System order.
    dim : int
        Contact dimension of the padded problem (2 or 3).
    M : ndarray (nu, nu)
        Mass matrix.
    h : ndarray (nu,)
        Generalized forces ``h(q, u, t)``.
    W : ndarray (nrows, nu)
        Jacobian rows of the active contacts (unpadded, System row order).
    C : ndarray (m + k, nu)
        Bilateral constraint Jacobian ``[G; A]``.
    D : ndarray (n, n)
        Constrained Delassus matrix ``W M_c^-1 W^T`` (padded, ``n = nc * dim``).
    v_minus : ndarray (n,)
        Contact velocities ``W u`` (padded).
    b : ndarray (n,)
        Contact accelerations at zero contact force (padded).
    B : ndarray (nu, n)
        Speed jump per unit impulse: ``Delta u = B P`` (``M Delta u = W^T P + C^T Lam``).
    acc_free : ndarray (nu,)
        ``u'`` at zero contact force (constraints enforced).
    e_n, e_t, mu : ndarray (nc,)
        Contact laws (parameters evaluated).
    law : list of str
        ``"newton"`` or ``"poisson"`` per contact.
    rows : list of ndarray
        Per active contact, the indices of its real (not padded) rows in the padded vector.
    gap : ndarray (n_contacts,)
        Gaps of all contacts of the System.
    u : ndarray (nu,)
        Speeds the problem was assembled at.
    energy : float
        Kinetic energy ``u^T M u / 2``.
    closure : ndarray of bool (nc,)
        Contacts with ``friction_cone="closure"`` (see :mod:`mechdae.contact.closure`).
    """
    contacts: list
    dim: int
    M: np.ndarray
    h: np.ndarray
    W: np.ndarray
    C: np.ndarray
    D: np.ndarray
    v_minus: np.ndarray
    b: np.ndarray
    B: np.ndarray
    acc_free: np.ndarray
    e_n: np.ndarray
    e_t: np.ndarray
    mu: np.ndarray
    law: list
    rows: list
    gap: np.ndarray
    u: np.ndarray
    energy: float
    closure: np.ndarray = None

    @property
    def nc(self):
        """Number of active contacts."""
        return len(self.contacts)

    def delta_u(self, P):
        """Speed jump ``Delta u`` (nu,) for padded contact impulses ``P`` (n,)."""
        return self.B @ np.asarray(P, dtype=float)

    def kinetic_energy(self, u):
        """``u^T M u / 2`` (J)."""
        u = np.asarray(u, dtype=float)
        return 0.5 * float(u @ self.M @ u)

    def per_contact(self, x):
        """Split a padded contact-space vector into ``{name: tuple}`` (real rows only)."""
        return {n: tuple(float(x[j]) for j in r) for n, r in zip(self.contacts, self.rows)}


def _pad(dim, nc, src, dst, D, Wu, b, B):
    """Padded contact-space arrays (single problem)."""
    n = nc * dim
    if len(dst) == n and (src == dst).all() and D.shape[0] == n:
        return D, Wu.copy(), b.copy(), B
    if len(dst) == n:
        return (D[src[:, None], src[None, :]], Wu[src], b[src], B[:, src])
    Dp = np.zeros((n, n))
    Dp[dst[:, None], dst[None, :]] = D[src[:, None], src[None, :]]
    if len(dst) < n:
        dummy = np.setdiff1d(np.arange(n), dst)
        diag = np.diag(D)[src]
        Dp[dummy, dummy] = float(np.mean(diag)) if diag.size and np.mean(diag) > 0 else 1.0
    vp = np.zeros(n)
    vp[dst] = Wu[src]
    bp = np.zeros(n)
    bp[dst] = b[src]
    Bp = np.zeros((B.shape[0], n))
    Bp[:, dst] = B[:, src]
    return Dp, vp, bp, Bp


def contact_problem(system, q, u, active=None, t=0.0, params=None, inputs=None,
                    gap_tol=GAP_TOL):
    r"""Assemble the contact-space problem of ``system`` at the state ``(q, u)``.

    Parameters
    ----------
    system : System
        A compiled model with contacts.
    q, u : dict by name or array in System order
        Coordinates and speeds (names left out take their defaults).
    active : list of str, optional
        Contacts to include. Default: the closed contacts, ``gap <= gap_tol``.
    t : float
        Time (s).
    params : dict, optional
        Parameter values (no recompilation).
    inputs : dict, optional
        Input values, as in ``simulate``.
    gap_tol : float
        Closed-contact tolerance of the default active set.

    Returns
    -------
    ContactProblem

    Raises
    ------
    ValueError
        Unknown contact in ``active``, wrong state size, non-finite entries.

    Examples
    --------
    >>> prob = contact_problem(sys, {"y": 0.0}, {"y": -1.0})       # doctest: +SKIP
    >>> prob.D, prob.v_minus                                         # doctest: +SKIP
    """
    asm = _assembler(system)
    qa, ua, va = _state(system, q, u)
    pv, wv = _params(system, params, inputs, t)
    out = asm.evaluate(qa, ua, va, float(t), pv, wv)
    return _problem_from(asm, out, ua, active, pv, gap_tol, kind="impact")


def _problem_from(asm, out, ua, active, pv, gap_tol, kind="impact", vel_tol=None):
    gap = out["gap"].ravel()
    if active is None:
        closed = gap <= gap_tol
        if kind == "forces":
            wu = out["Wu"].ravel()
            closed = closed & np.array([wu[asm.start[i]] <= vel_tol for i in range(len(gap))],
                                       dtype=bool) if len(gap) else closed
    else:
        closed = None
    idx = _active_indices(asm, active, closed)
    e_n, e_t, mu = asm.law_values(pv)
    dim, src, dst, rows = _layout(asm, idx)
    nc = len(idx)
    Dp, vp, bp, Bp = _pad(dim, nc, src, dst, out["D"], out["Wu"].ravel(), out["b"].ravel(),
                          out["B"])
    sel = np.array(idx, dtype=int)
    return ContactProblem(
        contacts=[asm.names[i] for i in idx], dim=dim, M=out["M"], h=out["h"].ravel(),
        W=out["W"][src], C=out["C"], D=Dp, v_minus=vp, b=bp, B=Bp,
        acc_free=out["acc"].ravel(), e_n=np.ascontiguousarray(e_n[sel]),
        e_t=np.ascontiguousarray(e_t[sel]), mu=np.ascontiguousarray(mu[sel]),
        law=[asm.laws[i] for i in idx], rows=rows, gap=gap, u=ua,
        energy=float(out["T"].ravel()[0]), closure=asm.closure[sel])
