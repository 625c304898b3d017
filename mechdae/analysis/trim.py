r"""Trim: an equilibrium or steady motion of a System, solving for named unknowns.

Unknowns are the ``free`` coordinates, speeds and inputs; the rest of the state stays as
given.  The equations are those of the mode at the point (the model's constraints and the
closed contacts, :class:`~mechdae.analysis._mode.Mode`, without stabilization):

.. math::

    u' (q, u, w) = 0, \quad v' = 0, \quad y(q) = 0, \quad z(q, u) = 0,

accelerations zero (an equilibrium for zero speeds, a steady motion for given speeds),
the holonomic rows and closed gaps zero, the velocity rows zero.  They are solved by
Gauss-Newton with the exact Jacobian (CasADi); a solution needs every residual below
``tol`` and a Jacobian of full column rank (else the free unknowns are not determined).
"""
import casadi as ca
import numpy as np

from ._mode import Mode, closed_contacts

__all__ = ["Trim", "trim"]


class Trim:
    """An equilibrium / steady state found by :func:`trim`.

    Attributes
    ----------
    q, v, inputs : dict
        Coordinates, speeds and inputs by name at the solution (``v`` by speed name).
    free : dict
        Values of the free unknowns.
    residual : float
        Largest absolute residual of the equations.
    residuals : dict
        Residual of every equation by name (``"der(der(x))"``: acceleration of speed
        ``der(x)``; constraint and contact rows by name).
    iterations : int
    mode : dict
        Contact modes at the solution.
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def linearize(self, outputs=(), **options):
        """The linearization at the solution (:func:`mechdae.analysis.linearize`)."""
        from .linearize import linearize
        return linearize(self.system, q=self.q, v=self.v, inputs=self.inputs, outputs=outputs,
                         params=self.params, t=self.t, contacts=self.mode, **options)

    def __repr__(self):
        return f"Trim({self.free}, residual={self.residual:.3g}, mode={self.mode})"


def trim(system, q=None, v=None, inputs=None, free=(), params=None, t=0.0, contacts=None,
         tol=1e-10, max_iter=50):
    """Find an equilibrium (or steady motion) of ``system`` for the ``free`` unknowns.

    Parameters
    ----------
    system : System
    q, v : dict by name or array in System order, optional
        The given part of the state and the initial guess of the free part.
    inputs : dict, optional
        Constant input values (free inputs: initial guess, default 0).
    free : list of str
        Names of coordinates, speeds or inputs to solve for.
    params : dict, optional
    t : float
    contacts : dict, optional
        Contact modes (``{name: "stick" | "slide" | "open"}``); default: closed where the
        guess touches.
    tol : float
        Largest residual accepted.
    max_iter : int

    Returns
    -------
    Trim

    Raises
    ------
    ValueError
        An unknown or time-varying free name; no solution (the equations left unsatisfied
        are named with their residuals); free unknowns the equations do not determine.

    Examples
    --------
    >>> eq = sys.trim(q={"th": 0.5}, free=["tau"])     # doctest: +SKIP
    >>> eq.inputs["tau"], eq.residual                   # doctest: +SKIP
    """
    sy = system
    qa, ua, va, _, _ = sy.state_arrays(q, v)
    inputs = dict(inputs or {})
    slots = _slots(sy, free, inputs)
    for n, (kind, _) in zip(free, slots):
        if kind == "w":
            inputs.setdefault(n, 0.0)
    pv, wv = sy._pw(params, inputs, t)
    mode = Mode(sy, closed_contacts(sy, qa, ua, t, pv, contacts), pv)
    X = ca.MX.sym("X", len(slots))
    parts = {"q": ca.MX(ca.DM(qa)), "u": ca.MX(ca.DM(ua)), "w": ca.MX(ca.DM(wv))}
    for j, (kind, i) in enumerate(slots):
        parts[kind][i] = X[j]
    x = ca.vertcat(parts["q"], parts["u"], ca.DM(va))
    xdot, lam, y, z, _ = mode.graphs(x, t, ca.DM(pv), parts["w"])
    R = ca.vertcat(xdot[sy.nq:], y, z)
    names = [f"der({n})" for n in sy.u_names + sy.v_names] + mode.y_names + \
        [f"der({n})" if i < mode.ny else n for i, n in enumerate(mode.row_names)]
    fn = ca.Function("trim", [X], [R, ca.jacobian(R, X), lam])
    x0 = np.array([(qa, ua, wv)["quw".index(k)][i] for k, i in slots], float)
    xk, Rk, Jk, it = _gauss_newton(fn, x0, tol, max_iter)
    _check(sy, free, names, Rk, Jk, tol)
    for j, (kind, i) in enumerate(slots):
        (qa, ua, wv)["quw".index(kind)][i] = xk[j]
    lam = np.array(fn(xk)[2]).ravel()
    return Trim(system=sy, q=dict(zip(sy.q_names, qa)), v=dict(zip(sy.u_names, ua)),
                inputs={**inputs, **{n: float(wv[i]) for n, (k, i) in zip(free, slots)
                                     if k == "w"}},
                free={n: float(x_) for n, x_ in zip(free, xk)},
                residual=float(np.abs(Rk).max(initial=0.0)),
                residuals=dict(zip(names, Rk)), iterations=it, mode=dict(mode.mode),
                contact_forces=mode.contact_multipliers(lam) if lam.size else {},
                params=params, t=t)


def _slots(sy, free, inputs):
    """``(kind, index)`` of every free name: ``q`` coordinate, ``u`` speed, ``w`` input."""
    idx = sy._name_index()
    slots, bad = [], []
    for n in free:
        if n in idx["q"]:
            slots.append(("q", idx["q"][n]))
        elif n in idx["u"] or n in idx["coord_speed"]:
            slots.append(("u", idx["u"][idx["coord_speed"].get(n, n)]))
        elif n in sy.w_names:
            if n in inputs and not isinstance(inputs[n], (int, float, np.floating)):
                raise ValueError(f"trim: free input '{n}' of model '{sy.name}' is given as "
                                 f"{type(inputs[n]).__name__}; a free input is a constant "
                                 "(give a number as initial guess)")
            slots.append(("w", sy.w_names.index(n)))
        else:
            bad.append(n)
    if bad or len(set(free)) != len(free):
        raise ValueError(f"trim: free {', '.join(map(repr, bad)) or 'names repeated'} of "
                         f"model '{sy.name}': give distinct coordinates ({', '.join(sy.q_names)}),"
                         f" speeds or inputs ({', '.join(sy.w_names) or 'none'})")
    if not slots:
        raise ValueError("trim: free=[] leaves nothing to solve for; name the coordinates, "
                         "speeds or inputs to find")
    return slots


def _gauss_newton(fn, x, tol, max_iter):
    """Gauss-Newton with step halving on ``|R|``; returns ``(x, R, J, iterations)``."""
    R, J, _ = (np.array(a) for a in fn(x))
    R = R.ravel()
    for it in range(1, max_iter + 1):
        if np.abs(R).max(initial=0.0) <= tol:
            return x, R, J, it - 1
        dx = np.linalg.lstsq(J, -R, rcond=None)[0]
        step, n0 = 1.0, np.linalg.norm(R)
        while step > 1e-6:
            xn = x + step * dx
            Rn, Jn, _ = (np.array(a) for a in fn(xn))
            Rn = Rn.ravel()
            if np.all(np.isfinite(Rn)) and np.linalg.norm(Rn) < n0:
                break
            step *= 0.5
        else:
            return x, R, J, it
        x, R, J = xn, Rn, Jn
    return x, R, J, max_iter


def _check(sy, free, names, R, J, tol):
    """A solution: residuals below ``tol`` and the free unknowns determined."""
    r = np.abs(R)
    if r.max(initial=0.0) > tol:
        worst = np.argsort(-r)[:5]
        raise ValueError(f"trim of model '{sy.name}': no equilibrium found for free "
                         f"{list(free)}; equations left unsatisfied: " +
                         ", ".join(f"{names[i]} = {R[i]:.4g}" for i in worst if r[i] > tol) +
                         "; free other unknowns or change the guess")
    s = np.linalg.svd(J, compute_uv=False) if J.size else np.zeros(0)
    rank = int(np.sum(s > 1e-9 * max(s.max(initial=0.0), 1e-300)))
    if rank < len(free):
        _, _, Vt = np.linalg.svd(J)
        v = Vt[-1]
        who = [free[i] for i in np.argsort(-np.abs(v)) if abs(v[i]) > 1e-6]
        raise ValueError(f"trim of model '{sy.name}': the equilibrium does not determine "
                         f"{', '.join(map(repr, who))} (a family of solutions); fix "
                         "some of them (give their values and leave them out of free)")
