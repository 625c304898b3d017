r"""Impacts at contacts with the closed friction cone (``friction_cone="closure"``).

With ``friction = inf`` a contact's Coulomb cone ``|P_t| <= mu P_n`` tends, as
``mu -> inf``, to the half-plane ``K = {P_n >= 0}`` (tangential impulse unbounded). The
impact law written as a cone complementarity, ``P in K``, ``w in K*``, ``P . w = 0`` with
``w = v+ + E v-``, has the dual cone ``K* = {w_t = 0, w_n >= 0}``:

.. math::

    0 \le P_n \perp v_n^+ + e_n v_n^- \ge 0, \qquad v_t^+ + e_t v_t^- = 0,
    \quad P_t \text{ free}.

So the tangential rows of such a contact are equalities for the duration of the impact,
even when the contact lifts off (``P_n = 0``). This is the modified impact model (5.2) of
Rubanovich & Formalsky (seed 000: ``x_D(+0) = 0``, ``E_1y = 0``). The default
(``"coulomb"``) keeps the limit of the cone itself: a separating contact takes no impulse.

The equality rows ``E`` are eliminated by a Schur complement of the contact-space problem
``v+ = v- + D P`` (rest ``R``: every other row):

.. math::

    P_E = -D_{EE}^{-1} (c_E + D_{ER} P_R), \qquad
    w_R = c_R - D_{RE} D_{EE}^{-1} c_E + (D_{RR} - D_{RE} D_{EE}^{-1} D_{ER}) P_R,

with ``c = (1 + E) v-`` (restitution folded in), so the reduced problem is an ordinary
inelastic impact problem (``E = 0``) in which a closure contact is frictionless (its
tangent rows replaced by decoupled dummies). The C kernels solve it unchanged (every
consistent solution of the reduced problem is one of the full problem, and conversely);
``P`` and ``v+ = v- + D P`` are rebuilt here. The kinetic energy cannot rise: with
``e = 0``, ``P . v+ = 0`` and ``Delta T = -P^T D P / 2``.

Modes of a closure contact: ``"stick"`` (``P_n > 0``) or ``"separate"`` (lifts off with
``v_t+ = -e_t v_t-``).
"""
import numpy as np

__all__ = ["closure_mask", "reduce", "expand", "modes", "reject"]


def closure_mask(contacts, names):
    """Boolean array: which of ``names`` use ``friction_cone="closure"``."""
    cone = {c["name"]: c.get("friction_cone", "coulomb") for c in contacts}
    return np.array([cone.get(n) == "closure" for n in names], dtype=bool)


def reject(system, where):
    """Raise ValueError when ``system`` has a closure contact (``where``: the caller)."""
    bad = [c["name"] for c in system.contacts if c.get("friction_cone") == "closure"]
    if bad:
        raise ValueError(
            f"{where}: contact{'s' if len(bad) > 1 else ''} {', '.join(map(repr, bad))} of "
            f"model '{system.name}' use{'' if len(bad) > 1 else 's'} friction_cone='closure', "
            "which System.impact and System.impact_batch implement; declare the contact "
            "with friction_cone='coulomb' (the default) for this computation")


def _rows(closure, dim):
    """Padded row indices: E (tangent rows of closure contacts) and R (the others)."""
    k = len(closure)
    E = [a * dim + j for a in range(k) if closure[a] for j in range(1, dim)]
    R = [i for i in range(k * dim) if i not in set(E)]
    return np.array(E, dtype=int), np.array(R, dtype=int)


def reduce(D, v_minus, e_n, e_t, closure, dim, names=None):
    """Reduced inelastic problem for the kernels.

    Parameters
    ----------
    D : ndarray (..., n, n)
        Padded Delassus matrices (one problem, or a batch).
    v_minus : ndarray (..., n)
    e_n, e_t : ndarray (..., k)
        Restitution per contact.
    closure : ndarray of bool (k,)
    dim : int
    names : list of str, optional
        Contact names, for the error message.

    Returns
    -------
    Dr : ndarray (..., n, n)
        Reduced Delassus matrix (closure tangent rows: decoupled dummies).
    c : ndarray (..., n)
        ``(1 + E) v-`` (the kernels' right-hand side is ``cr``, below).
    cr : ndarray (..., n)
        Reduced right-hand side (dummy rows zero).
    K : ndarray (..., |E|, n)
        ``P_E = K @ [c; P]`` bookkeeping: see :func:`expand`.

    Raises
    ------
    ValueError
        ``D_EE`` singular: a closure contact's tangent is already fixed by the bilateral
        constraints or by another closure contact.
    """
    D = np.asarray(D, float)
    v = np.asarray(v_minus, float)
    E_, R_ = _rows(closure, dim)
    Erep = np.repeat(np.asarray(e_t, float), dim, axis=-1)
    Erep[..., ::dim] = e_n
    c = (1.0 + Erep) * v
    Der = np.take(D, E_, axis=-2)                       # (..., |E|, n)
    Dee = np.take(Der, E_, axis=-1)
    try:
        cond = np.linalg.cond(Dee)
    except np.linalg.LinAlgError:
        cond = np.inf
    if not np.all(np.isfinite(cond) & (cond < 1e12)):
        who = [n for n, cl in zip(names or [], closure) if cl]
        raise ValueError(f"impact: the tangent directions of the closure contacts "
                         f"{who or ''} are not independent (D_EE singular): a tangent already "
                         "fixed by the constraints or another closure contact; declare one "
                         "of them with friction_cone='coulomb'")
    X = np.linalg.solve(Dee, np.concatenate([Der, c[..., E_, None]], axis=-1))
    DeeInvDer, DeeInvc = X[..., :-1], X[..., -1]        # (|E|, n), (|E|,)
    Dr = D - np.einsum("...ei,...ej->...ij", Der, DeeInvDer)
    cr = c - np.einsum("...ei,...e->...i", Der, DeeInvc)
    # dummy rows for E: decoupled, mean normal diagonal, zero velocity
    Dr[..., E_, :] = 0.0
    Dr[..., E_] = 0.0
    diag = np.mean(np.diagonal(D, axis1=-2, axis2=-1)[..., R_], axis=-1)
    diag = np.where(diag > 0, diag, 1.0)
    Dr[..., E_, E_] = np.asarray(diag)[..., None]
    cr[..., E_] = 0.0
    Dr = 0.5 * (Dr + np.swapaxes(Dr, -1, -2))
    return Dr, c, cr, (E_, DeeInvDer, DeeInvc)


def expand(D, v_minus, P_reduced, K):
    """Full impulses and post-impact velocities from a reduced solution.

    ``P_E = -(D_EE^-1 c_E + D_EE^-1 D_ER P_R)`` (``P_R``: the reduced solution with the
    dummy rows zero), ``v+ = v- + D P``. Shapes as in :func:`reduce` (NaN propagates).
    """
    E_, DeeInvDer, DeeInvc = K
    P = np.array(P_reduced, dtype=float, copy=True)
    P[..., E_] = 0.0
    P[..., E_] = -(DeeInvc + np.einsum("...ej,...j->...e", DeeInvDer, P))
    vp = np.asarray(v_minus, float) + np.einsum("...ij,...j->...i", D, P)
    return P, vp


def modes(P, closure, dim, modes_reduced, tol=0.0):
    """Mode names per contact: closure contacts ``"stick"`` if ``P_n > tol`` else
    ``"separate"``; the others as the kernel reported them."""
    out = list(modes_reduced)
    for a, cl in enumerate(closure):
        if cl:
            out[a] = "stick" if P[a * dim] > tol else "separate"
    return tuple(out)
