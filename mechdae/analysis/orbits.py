r"""Periodic hybrid orbits through impacts: Newton shooting on the Poincaré map, the
monodromy matrix with saltation matrices, Floquet multipliers.

The Poincaré section is "just after an impact": a state ``x0 = (q0, u0)`` there flows
through its phases and impacts (:class:`~mechdae.analysis._hybrid.HybridSteps`) to the
state ``P(x0)`` just after the ``K``-th impact (``K`` fixed from the guess: the impact
nearest to ``period``).  A periodic orbit solves

.. math::

    P(x_0) - \sigma = x_0

in the minimal coordinates ``xi`` of the section's mode (independent coordinates and speeds
on its constraint manifold, as in :func:`~mechdae.analysis.linearize`), where ``sigma``
is a constant ``shift`` of coordinates (a rimless wheel turns by one spoke angle per step)
and ``cyclic`` coordinates (on which the dynamics does not depend, e.g. the position along
a slope) are left out.  A model depending explicitly on time carries the time as one more
state (``t' = 1``), shifted by the period: the section's time is then an unknown too.
Newton's iteration uses the exact Jacobian of ``P``: CVODES' sensitivities of every phase
times the jump of the impact map at its event,
``D Delta (I - f^- grad g^T / grad g^T f^-)``; each iterate is projected back onto the
constraint manifold.  At the orbit, the monodromy matrix

.. math::

    \Phi = S_K \Phi_K \cdots S_1 \Phi_1

(saltation matrices ``S_k`` at the events: impacts, and lift-offs where a closed contact's
normal force vanishes) has the Floquet multipliers as eigenvalues,
one of them 1 (the flow direction); the Poincaré map's Jacobian has the same ones with 0
in place of that 1.
"""
import numpy as np

from ._hybrid import HybridSteps
from .linearize import _independent_basis

__all__ = ["PeriodicOrbit", "periodic_orbit"]


class PeriodicOrbit:
    """A periodic hybrid orbit found by :func:`periodic_orbit`.

    Attributes
    ----------
    q, v : dict
        The fixed point on the section (just after the last impact of the period).
    x : ndarray
        ``(q, u)`` there in System order (and the time, for a timed model).
    t0 : float
        Time of the section (a model depending on time; else 0).
    period : float
        Time from the section back to it (s).
    impacts : list of (float, str)
        Time after the section and contact of every impact of the period.
    monodromy : ndarray
        The monodromy matrix in the minimal coordinates ``x_names`` (cyclic ones left out).
    monodromy_full : ndarray
        The monodromy matrix in the System's ``(q, u)``.
    multipliers : ndarray
        Floquet multipliers (eigenvalues of ``monodromy``), by decreasing modulus; one of
        them is the trivial 1 of the flow direction.
    map_jacobian, map_multipliers : ndarray
        Jacobian of the Poincaré map in ``x_names`` and its eigenvalues (the trivial one 0).
    x_names : list of str
    mode : dict
        Contact modes on the section.
    iterations : int
    residual : float
        Largest |P(x0) - shift - x0| in the minimal coordinates.
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __repr__(self):
        return (f"PeriodicOrbit(period={self.period:.6g}, {len(self.impacts)} impacts, "
                f"multipliers={np.round(self.multipliers, 6)})")


def periodic_orbit(system, q=None, v=None, period=None, method="event", section=None,
                   shift=None, cyclic=(), params=None, inputs=None, impacts=None, t=0.0,
                   tol=1e-10, max_iter=30, rtol=1e-12):
    """Find a periodic hybrid orbit near ``(q, v)`` by Newton shooting on its Poincaré map.

    Parameters
    ----------
    system : System
        Without general equations; time-invariant (scleronomic contacts, constant inputs).
    q, v : dict by name or array in System order
        Guess of the state on the section: just after an impact (``section=None``), or any
        state before an impact of contact ``section``.
    period : float
        Guess of the period (s); the period ends at the impact nearest to it.
    method : {"event"}
        Phases integrated to their impacts, located exactly.
    section : str, optional
        A contact name: the section is just after that contact's impact, reached from the
        guess first.
    shift : dict, optional
        ``{coordinate: offset}`` with ``q(T) = q(0) + offset`` (a wheel turning by one
        spoke; a walker with period one step, relabeled legs excepted).
    cyclic : list of str
        Coordinates whose value the dynamics ignores (position along a slope): left out of
        the periodicity and of the multipliers.
    params, inputs : dict, optional
    impacts : int, optional
        Impacts per period (default: up to the impact nearest to ``period`` from the
        guess).
    t : float
        Time of the guess.  A model depending explicitly on time (a vibrating table)
        carries the time as a state: ``period`` is then the exact period (a multiple of
        the forcing's) and the time of the section is solved for (``orb.t0``).
    tol : float
        Largest residual accepted.
    max_iter : int
    rtol : float
        CVODES tolerance.

    Returns
    -------
    PeriodicOrbit

    Raises
    ------
    ValueError
        Bad arguments; no impact within ``1.5 period``; Newton without convergence (the
        residual named); a stick-slip transition or a sliding impact (lift-offs inside a
        period are followed).

    Examples
    --------
    >>> orb = wheel.periodic_orbit(q=q0, v=v0, period=0.4, shift={"th": 2 * alpha},
    ...                            cyclic=["x"])                          # doctest: +SKIP
    >>> orb.multipliers                   # 1 and cos(2 alpha)^2           # doctest: +SKIP
    """
    sy = system
    _check_call(sy, period, method, shift, cyclic, section, inputs)
    qa, ua, va, _, _ = sy.state_arrays(q, v)
    pv, wv = sy._pw(params, inputs, 0.0)
    hy = HybridSteps(sy, pv, wv, rtol=rtol)
    x = np.concatenate([qa, ua, [float(t)] if hy.timed else []])
    sigma = np.zeros(hy.nx)
    if hy.timed:
        sigma[hy.nqu] = float(period)
    for n, off in (shift or {}).items():
        sigma[sy.q_names.index(n)] = float(off)
    if section is not None:
        x = _to_section(hy, x, section, period)
    mode = hy.mode_of(x)
    K = int(impacts) if impacts else _impacts_per_period(hy, x, mode, period)
    keep = [sy.q_names.index(n) for n in cyclic]
    it, res = 0, np.inf
    for it in range(1, max_iter + 1):
        Z, P, names, drop = _section_basis(hy, x, mode, keep)
        xe, DP, Phi, T, hits = _step_map(hy, x, mode, K, period)
        r = P @ (xe - sigma - x)
        r = np.delete(r, drop)
        res = np.abs(r).max(initial=0.0)
        if res <= tol:
            break
        Jm = np.delete(np.delete(P @ DP @ Z, drop, 0), drop, 1) - np.eye(r.size)
        dxi = np.linalg.lstsq(Jm, -r, rcond=None)[0]
        x = _project(hy, mode, x + np.delete(Z, drop, 1) @ dxi)
    else:
        raise ValueError(f"periodic_orbit of model '{sy.name}': Newton did not converge in "
                         f"{max_iter} iterations (residual {res:.3g} > tol {tol:g}); give a "
                         "closer guess of the state or the period")
    mono = np.delete(np.delete(P @ Phi @ Z, drop, 0), drop, 1)
    jac = np.delete(np.delete(P @ DP @ Z, drop, 0), drop, 1)
    mult = np.linalg.eigvals(mono)
    return PeriodicOrbit(q=dict(zip(sy.q_names, x[:sy.nq])),
                         v=dict(zip(sy.u_names, x[sy.nq:hy.nqu])),
                         t0=float(x[hy.nqu]) if hy.timed else 0.0,
                         x=x, period=T, impacts=hits, monodromy=mono, monodromy_full=Phi,
                         multipliers=mult[np.argsort(-np.abs(mult))], map_jacobian=jac,
                         map_multipliers=_sorted(np.linalg.eigvals(jac)),
                         x_names=[n for i, n in enumerate(names) if i not in drop],
                         mode=dict(mode), iterations=it - 1, residual=float(res))


def _sorted(ev):
    return ev[np.argsort(-np.abs(ev))]


def _check_call(sy, period, method, shift, cyclic, section, inputs):
    if method != "event":
        raise ValueError(f"periodic_orbit: method={method!r}; only 'event' (phases to exactly "
                         "located impacts) is available")
    if period is None or not np.isfinite(period) or period <= 0:
        raise ValueError(f"periodic_orbit: period={period!r}; give a positive guess (s)")
    if sy.nv + sy.nz:
        raise ValueError(f"periodic_orbit: model '{sy.name}' has general equations; only "
                         "mechanical models are supported")
    bad = [n for n in list(shift or {}) + list(cyclic) if n not in sy.q_names]
    if bad:
        raise ValueError(f"periodic_orbit: {bad} are not coordinates of model '{sy.name}' "
                         f"(coordinates: {', '.join(sy.q_names)})")
    if section is not None and section not in sy.contact_names:
        raise ValueError(f"periodic_orbit: section={section!r} is not a contact of model "
                         f"'{sy.name}' (contacts: {', '.join(sy.contact_names) or 'none'})")
    for n, val in (inputs or {}).items():
        if not isinstance(val, (int, float, np.floating)):
            raise ValueError(f"periodic_orbit: input '{n}' must be a constant")


def _step_map(hy, x0, mode, K, period):
    """``K`` phases and impacts from ``x0``: ``(x_end, DP, Phi, T, impacts)``."""
    x, DP, Phi, T, impacts = np.asarray(x0, float), np.eye(hy.nx), np.eye(hy.nx), 0.0, []
    while len(impacts) < K:
        tau, xm, ev, Phik, _ = hy.phase(x, mode, 1.5 * period, period / 40.0)
        if ev is None:
            raise ValueError(f"periodic_orbit of model '{hy.sy.name}': no impact within "
                             f"{1.5 * period:.4g} s of t = {T:.4g} s; the guess does not walk")
        jump = hy.event(xm, mode, ev)
        DP, Phi = jump.DP @ Phik @ DP, jump.S @ Phik @ Phi
        T += tau
        if ev[0] == "impact":
            impacts.append((T, hy.sy.contact_names[ev[1]]))
        x, mode = jump.x, jump.mode
    return x, DP, Phi, T, impacts


def _impacts_per_period(hy, x, mode, period):
    """Number of impacts until the one nearest to ``period`` (from the guess)."""
    times, T = [], 0.0
    while T < 1.5 * period and len(times) < 1000:
        tau, xm, ev, _, _ = hy.phase(x, mode, 1.5 * period - T, period / 40.0)
        if ev is None:
            break
        T += tau
        if ev[0] == "impact":
            times.append(T)
        jump = hy.event(xm, mode, ev)
        x, mode = jump.x, jump.mode
    if not times:
        raise ValueError(f"periodic_orbit of model '{hy.sy.name}': no impact within "
                         f"{1.5 * period:.4g} s of the guess")
    return int(np.argmin(np.abs(np.array(times) - period))) + 1


def _to_section(hy, x, contact, period):
    """From ``x`` through phases and impacts to just after an impact of ``contact``."""
    mode = hy.mode_of(x)
    c_index = hy.sy.contact_names.index(contact)
    for _ in range(100):
        _, xm, ev, _, _ = hy.phase(x, mode, 2.0 * period, period / 40.0)
        if ev is None:
            break
        jump = hy.event(xm, mode, ev)
        x, mode = jump.x, jump.mode
        if ev == ("impact", c_index):
            return x
    raise ValueError(f"periodic_orbit: contact '{contact}' of model '{hy.sy.name}' has no "
                     f"impact from the guess within {2 * period:.4g} s of each impact")


def _section_basis(hy, x, mode, keep):
    """Basis ``Z`` and selection ``P`` (in ``(q, u)``) of the tangent space of the mode's
    manifold at ``x``; names; indices of the cyclic coordinates among the names."""
    sy, nq, nu, nqu = hy.sy, hy.sy.nq, hy.sy.nu, hy.nqu
    _, _, Yx, Zx, _, _ = (np.array(a) for a in hy.flow(mode).cons(x))
    N0 = np.array(sy.functions["N"](x[:nq], hy.pv))
    Ys, Zs, Zu = Yx[:, :nq] @ N0, Zx[:, :nq] @ N0, Zx[:, nq:nqu]
    full = _names(sy, N0)
    keep_s = [j for j, n in enumerate(full[:nu]) if n in [sy.q_names[i] for i in keep]]
    Zsu, Psu, names = _independent_basis(Ys, Zs, Zu, 0, full, keep_s)
    if hy.timed:     # the time: one more independent coordinate of the section
        Zsu, Psu, names = _with_time(Zsu, Psu, names, Ys, Zs, Zu, Yx[:, nqu], Zx[:, nqu])
    n = 2 * nu + hy.timed
    Tq = np.zeros((hy.nx, n))
    Tq[:nq, :nu], Tq[nq:, nu:] = N0, np.eye(nu + hy.timed)
    Tp = np.zeros((n, hy.nx))
    Tp[:nu, :nq], Tp[nu:, nq:] = np.linalg.pinv(N0), np.eye(nu + hy.timed)
    drop = [i for i, n in enumerate(names) if n in [sy.q_names[k] for k in keep]]
    if len(drop) != len(keep):
        raise ValueError(f"periodic_orbit: cyclic coordinates {[sy.q_names[k] for k in keep]}"
                         f" of model '{sy.name}' are not independent on the section")
    return Tq @ Zsu, Psu @ Tp, names, drop


def _with_time(Z, P, names, Ys, Zs, Zu, Yt, Zt):
    """The basis extended by the time: its column moves the dependent coordinates and
    speeds with the time-dependent constraint rows (``Y_t``, ``Z_t``)."""
    nu = Zu.shape[1]
    ind = [int(np.argmax(r)) for r in P]
    dep_s = [j for j in range(nu) if j not in ind]
    dep_u = [j for j in range(nu) if nu + j not in ind]
    ds, du = np.zeros(nu), np.zeros(nu)
    if dep_s and Ys.size:
        ds[dep_s] = -np.linalg.lstsq(Ys[:, dep_s], Yt, rcond=None)[0]
    if dep_u and Zu.size:
        du[dep_u] = -np.linalg.lstsq(Zu[:, dep_u], Zs @ ds + Zt, rcond=None)[0]
    Zt_col = np.concatenate([ds, du, [1.0]])
    Z = np.hstack([np.vstack([Z, np.zeros((1, Z.shape[1]))]), Zt_col[:, None]])
    P = np.vstack([np.hstack([P, np.zeros((P.shape[0], 1))]), np.eye(1, 2 * nu + 1, 2 * nu)])
    return Z, P, names + ["t"]


def _names(sy, N0):
    from .linearize import _state_names
    return _state_names(sy, N0)


def _project(hy, mode, x, iters=20):
    """The nearest state on the mode's manifold (Gauss-Newton on ``y(q) = 0``, then the
    velocity rows ``z = 0``, minimum-norm corrections)."""
    nq, nqu = hy.sy.nq, hy.nqu
    cons = hy.flow(mode).cons
    x = np.array(x, float)
    for _ in range(iters):
        y, _, Yx, _, _, _ = (np.array(a) for a in cons(x))
        if y.size == 0 or np.abs(y).max() < 1e-14:
            break
        x[:nq] -= np.linalg.lstsq(Yx[:, :nq], y.ravel(), rcond=None)[0]
    for _ in range(3):
        _, z, _, Zx, _, _ = (np.array(a) for a in cons(x))
        if z.size == 0:
            break
        x[nq:nqu] -= np.linalg.lstsq(Zx[:, nq:nqu], z.ravel(), rcond=None)[0]
    return x

