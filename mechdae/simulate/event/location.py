r"""Event location: the first sign change of a mode's event functions, and its root.

A window of the phase integration returns the event functions ``e`` (positive while the
mode holds) and their rates ``e'`` at ``K`` sub-samples. :func:`first_crossing` finds the
first sub-interval where one of them drops to ``<= 0``; :func:`locate` finds the earliest
root there: the root of the cubic Hermite interpolant of ``e`` (values and rates at both
ends) seeds Newton steps on re-integrated states (``shoot(t) -> (x, e, e')``, one
integration each; quadratic convergence, usually one or two per event), with Illinois
regula falsi as the fallback. The returned time lies past the root by at most the
tolerance, with ``e <= 0`` there.

These are plain functions of arrays and a ``shoot`` callable: the engine supplies the
integrations, nothing here knows about contacts.
"""
import math

import numpy as np

__all__ = ["first_crossing", "hermite_root", "locate"]


def first_crossing(ev0, E, tol):
    """First sub-interval where an event function crosses zero.

    A function that starts non-positive (a contact just closed or opened at a tangency, a
    gap just past an impact) is shifted to start at ``+tol``: it fires only when it drops
    by more than ``tol`` — until it exceeds ``1e-3 tol`` at a sub-sample, from where it is
    armed unshifted (a flight that fits in one window must not end ``tol`` below the
    surface; round-off about zero does not arm it).

    Parameters
    ----------
    ev0 : (nE,) array
        Event values at the window start.
    E : (nE, K) array
        Event values at the sub-samples.
    tol : (nE,) array
        Shift of the functions that start non-positive.

    Returns
    -------
    j : int or None
        Column of the first sub-sample at which a function is ``<= 0`` (the bracket is
        ``[j - 1, j]``, column ``-1`` the window start); None when none fires.
    fired : list of int
        The functions non-positive at column ``j``.
    off : (nE,) array
        The shifts in force on the bracket (to add to ``e`` for the root search).
    """
    if ev0.min() > 0:
        if E.min() > 0:                  # the usual window: nothing fires, nothing shifted
            return None, [], np.zeros_like(ev0)
        off = np.zeros_like(ev0)
    else:
        off = np.where(ev0 > 0, 0.0, tol - np.minimum(ev0, 0.0))
    K = E.shape[1]
    # armed once clearly positive: round-off around zero (two bodies moving together at a
    # zero gap) must not arm a function and fire it at the next round-off sign change
    pos = E > 1e-3 * tol[:, None] if np.ndim(tol) else E > 1e-3 * tol
    # column from which each function is armed (0: from the start)
    arm = np.where(off > 0, np.where(pos.any(axis=1), pos.argmax(axis=1) + 1, K + 1), 0)
    cols = np.arange(K)
    neg = np.where(cols[None, :] >= arm[:, None], E <= 0, (E + off[:, None]) <= 0)
    hit = np.flatnonzero(neg.any(axis=0))
    if not hit.size:
        return None, [], off
    j = int(hit[0])
    # the bracket is [j - 1, j]: shifted only for functions not armed by column j - 1
    return j, list(np.flatnonzero(neg[:, j])), np.where(arm <= j, 0.0, off)


def hermite_root(fa, da, fb, db, T, tol):
    """Root in ``[0, T]`` of the cubic Hermite interpolant with values ``fa > 0 >= fb`` and
    rates ``da, db`` at the ends (bisection on the sign change, to ``1e-3 tol``)."""
    p0, m0, p1, m1 = fa, da * T, fb, db * T
    c3 = 2 * p0 + m0 - 2 * p1 + m1
    c2 = -3 * p0 - 2 * m0 + 3 * p1 - m1
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if ((c3 * mid + c2) * mid + m0) * mid + p0 > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-3 * tol / T:
            break
    return hi * T


def _newton(shoot, k, ta, fa, da, tb, fb, db, tol):
    """Hermite-seeded Newton on function ``k`` in ``(ta, tb]``; None when it fails."""
    T = tb - ta
    if not (T > 0 and fa > 0 and fb <= 0):
        return None
    tc = ta + hermite_root(fa, da, fb, db, T, tol)
    lo_t, hi_t = ta, tb          # bracket: f(lo_t) > 0 >= f(hi_t)
    x_hi = e_hi = None
    for _ in range(8):
        tc = min(max(tc, lo_t + 0.01 * tol), hi_t)
        xc, ec, edc = shoot(tc)
        fc, d = ec[k], edc[k]
        if fc > 0:
            lo_t = tc
        else:
            hi_t, x_hi, e_hi = tc, xc, ec
        if x_hi is not None and hi_t - lo_t <= tol:
            return hi_t, x_hi, e_hi
        step = -fc / d if d < 0 else math.nan
        if fc <= 0 and abs(step) <= tol:
            return hi_t, x_hi, e_hi          # the root lies within tol before tc
        tn = tc + step + 0.25 * tol          # aim just past the root: e <= 0 there
        if not lo_t < tn < hi_t + 0.5 * tol:
            tn = 0.5 * (lo_t + hi_t)         # Newton left the bracket: bisect
        tc = tn
    return None


def _illinois(shoot, k, ta, fa, tb, xb, eb, tol):
    """Illinois regula falsi on function ``k`` in ``(ta, tb]``."""
    a, b, fb = ta, tb, eb[k]
    x_b, e_b = xb, eb
    side = 0
    for _ in range(200):
        if b - a <= tol:
            break
        c = b - fb * (b - a) / (fb - fa)
        if not (a < c < b):
            c = 0.5 * (a + b)
        c = min(max(c, a + 0.01 * tol), b - 0.01 * tol)
        xc, ec, _ = shoot(c)
        fc = ec[k]
        if fc > 0:
            a, fa = c, fc
            if side == -1:
                fb *= 0.5
            side = -1
        else:
            b, fb, x_b, e_b = c, fc, xc, ec
            if side == 1:
                fa *= 0.5
            side = 1
    return b, x_b, e_b


def locate(shoot, ta, xa, ea, tb, xb, eb, fired, eda, edb, off, tol):
    """Earliest root of the fired event functions in ``(ta, tb]``.

    Parameters
    ----------
    shoot : callable
        ``shoot(t) -> (x, e, e')``: state, event values and rates at ``t``, integrated
        from ``(ta, xa)``.
    ta, xa, ea, eda, tb, xb, eb, edb
        Times, states, event values and rates at the bracket ends.
    fired : list of int
        Functions non-positive at ``tb`` (:func:`first_crossing`).
    off : array
        Shifts of the functions not yet armed (added to ``e``).
    tol : float
        Absolute time tolerance.

    Returns
    -------
    (t_e, x_e, e_e, which)
        Event time and state, the (unshifted) event values there, and the indices of every
        armed function non-positive at ``t_e`` (they happen together).
    """
    def sh(tc):
        xc, ec, edc = shoot(tc)
        return xc, ec + off, edc

    best = None
    ea, eb = ea + off, eb + off
    for k in fired:
        if not ea[k] > 0:
            # fired at the window start (unarmed function): no bracket
            best = (ta, xa, ea, [k]) if best is None or ta < best[0] else best
            continue
        if best is not None and best[0] <= ta:
            continue
        got = None
        if eda is not None:
            got = _newton(sh, k, ta, ea[k], eda[k], tb, eb[k], edb[k], tol)
        if got is None:
            got = _illinois(sh, k, ta, ea[k], tb, xb, eb, tol)
        b, x_b, e_b = got
        if best is None or b < best[0]:
            best = (b, np.array(x_b).ravel(), np.array(e_b).ravel(), [k])
    t_e, x_e, e_e, ks = best
    which = [k for k in range(len(ea)) if ea[k] > 0 and e_e[k] <= 0]
    return t_e, x_e, e_e - off, which or ks
