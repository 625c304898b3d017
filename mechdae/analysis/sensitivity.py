r"""Forward sensitivities of a hybrid run to parameters and initial values, through impacts.

Along the phases the sensitivities ``X = d(q, u, p_s) / d theta`` (``theta``: the chosen
parameters ``p_s`` and initial values) obey the variational equations, whose solution is
the transition matrix from CVODES' forward sensitivities; at an impact of contact ``c``
(guard ``g_c(q, p) = 0``) they jump by the saltation matrix of the augmented state and the
event time moves:

.. math::

    X^+ = S X^-,\qquad
    S = D\Delta + \frac{(f^+ - D\Delta f^-)\,\nabla g^T}{\nabla g^T f^-},\qquad
    \frac{d t_k}{d\theta} = -\frac{\nabla g^T X^-}{\nabla g^T f^-}

(:class:`~mechdae.analysis._hybrid.HybridSteps`); a lift-off (normal force of a closed
contact reaching zero) is an event with no jump of the state, whose saltation matrix
accounts for the change of vector field.  The run is followed again phase by phase from
its first sample, the initial sensitivities projected onto the perturbed constraint
manifold (minimum-norm, as the initialization does with every coordinate given); its
events are checked against the run's (the event engine's).
Followed: flights and phases with sticking or frictionless closed contacts, lift-offs, and
Newton impacts on fixed rows; stick-slip transitions and sliding impacts are refused by
name.
"""
import numpy as np

from ._hybrid import HybridSteps

__all__ = ["Sensitivities", "sensitivities"]


class Sensitivities(dict):
    """``res.sensitivity``: ``{state name: {theta: array (N,)}}`` at the run's samples.

    State names are the coordinates and speeds; ``theta`` the names asked for (parameters
    or initial values of coordinates/speeds).

    Attributes
    ----------
    event_times : dict
        ``{theta: array (n_events,)}``: sensitivities of the event times, in order.
    events : list of (float, str, str)
        The events followed: time, contact, ``"impact"`` or ``"liftoff"``.
    """

    event_times: dict
    events: list


def sensitivities(system, res, names, params=None, inputs=None, rtol=1e-12):
    """Sensitivities of the run ``res`` of ``system`` to ``names``.

    Parameters
    ----------
    system : System
    res : Result
        A run of ``system`` (its samples, parameters and events are used).
    names : list of str
        Parameter names, coordinate names or speed names (initial values).
    params, inputs : dict, optional
        As given to ``simulate`` (inputs must be constants).
    rtol : float
        CVODES tolerance of the variational integration.

    Returns
    -------
    Sensitivities

    Raises
    ------
    ValueError
        An unknown name; a model with general equations, explicit time dependence or
        time-varying inputs; a transition other than an impact or a lift-off; the events
        found again differing from the run's.
    """
    sy = system
    pidx, cols = _columns(sy, names)
    for n, val in (inputs or {}).items():
        if not isinstance(val, (int, float, np.floating)):
            raise ValueError(f"simulate(sensitivities=...): input '{n}' must be a constant")
    if sy.nv + sy.nz:
        raise ValueError(f"simulate(sensitivities=...): model '{sy.name}' has general "
                         "equations; only mechanical models are followed")
    _, wv = sy._pw(params, inputs, 0.0)
    hy = HybridSteps(sy, np.asarray(res.params, float), wv, rtol=rtol, sens=pidx,
                     caller="simulate(sensitivities=...)")
    nx, nqu = hy.nx, hy.nqu
    X = np.zeros((hy.na, len(names)))
    for k, (kind, i) in enumerate(cols):
        X[i if kind == "x" else nx + i, k] = 1.0
    t = np.asarray(res.t, float)
    out = np.zeros((t.size, nqu, len(names)))
    t0, tf = t[0], t[-1]
    x = np.concatenate([res.q[0], res.v[0], [t0] if hy.timed else []])
    mode, j, ev_sens, events = hy.mode_of(x), 0, [], []
    X = _consistent(hy, mode, x, X)
    dt = max((tf - t0) / 400.0, 1e-9)
    while True:
        stops = [tk - t0 for tk in t[j:]]
        tau, xm, ev, Phi, at = hy.phase(x, mode, tf - t0, dt, stops=stops)
        for xs, P in at:
            out[j] = (P @ X)[:nqu]
            j += 1
        if ev is None:
            break
        Xm = Phi @ X
        jump = hy.event(xm, mode, ev)
        ev_sens.append(jump.dt @ Xm)
        t0 += tau
        events.append((t0, sy.contact_names[ev[1]], ev[0]))
        X, x, mode = jump.S @ Xm, jump.x, jump.mode
    _check_events(sy, res, events)
    sens = Sensitivities({n: {th: out[:, i, k] for k, th in enumerate(names)}
                          for i, n in enumerate(sy.q_names + sy.u_names)})
    E = np.array(ev_sens).reshape(len(ev_sens), len(names))
    sens.event_times = {th: E[:, k] for k, th in enumerate(names)}
    sens.events = events
    return sens


def _consistent(hy, mode, x, X):
    """Initial sensitivities on the (perturbed) constraint manifold: minimum-norm
    corrections of the coordinates, ``Y_q dq + Y_p dp = 0``, then of the speeds,
    ``Z_q dq + Z_u du + Z_p dp = 0`` (the Euclidean projection of the initialization with
    every coordinate given); without constraints nothing changes."""
    nq, nqu, nx = hy.sy.nq, hy.nqu, hy.nx
    _, _, Yx, Zx, Yp, Zp = (np.array(a) for a in hy.flow(mode).cons(x))
    X = X.copy()
    P = X[nx:]
    if Yx.size:
        r = Yx[:, :nq] @ X[:nq] + Yp @ P
        X[:nq] -= np.linalg.pinv(Yx[:, :nq]) @ r
    if Zx.size:
        r = Zx[:, :nqu] @ X[:nqu] + Zp @ P
        X[nq:nqu] -= np.linalg.pinv(Zx[:, nq:nqu]) @ r
    return X


def _columns(sy, names):
    """Indices of the sensitivity parameters and, per name, ``("p", j)`` or ``("x", i)``."""
    idx = sy._name_index()
    pidx, cols, bad = [], [], []
    for n in names:
        if n in idx["p"]:
            cols.append(("p", len(pidx)))
            pidx.append(idx["p"][n])
        elif n in idx["q"]:
            cols.append(("x", idx["q"][n]))
        elif n in idx["u"] or n in idx["coord_speed"]:
            cols.append(("x", sy.nq + idx["u"][idx["coord_speed"].get(n, n)]))
        else:
            bad.append(n)
    if bad or len(set(names)) != len(names):
        raise ValueError(f"simulate(sensitivities=...): {bad or 'repeated names'} of model "
                         f"'{sy.name}': give parameters ({', '.join(sy.p_names)}), coordinates "
                         "or speeds (initial values)")
    return pidx, cols


def _check_events(sy, res, events):
    """The events followed are the run's: the same impacts (contacts, times within 1e-6 s);
    every lift-off followed is one of the run's lift-offs."""
    run = [(e.t, e.contact) for e in res.events if e.kind == "impact"]
    mine = [(t, c) for t, c, k in events if k == "impact"]
    lifts = [(e.t, e.contact) for e in res.events if e.kind == "liftoff"]

    def same(a, b):
        return a[1] == b[1] and abs(a[0] - b[0]) <= 1e-6 * (1.0 + abs(a[0]))

    ok = len(run) == len(mine) and all(same(a, b) for a, b in zip(run, mine))
    ok = ok and all(any(same((t, c), b) for b in lifts) for t, c, k in events
                    if k == "liftoff")
    other = sorted({e.kind for e in res.events} - {"impact", "liftoff", "stick"})
    if not ok or other:
        extra = f" and {', '.join(other)} events" if other else ""
        raise ValueError(f"simulate(sensitivities=...): the run of model '{sy.name}' has "
                         f"{len(run)} impacts{extra}, the variational integration followed "
                         f"{len(mine)} impacts and {len(events) - len(mine)} lift-offs; "
                         "sensitivities through other transitions (accumulation, slip) are "
                         "not computed")
