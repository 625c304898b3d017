r"""Linearization of a System at an operating point, in minimal coordinates.

At a point ``(q0, u0, v0, w0)`` the constrained dynamics of the mode there (the model's
constraints and the closed contacts, :class:`~mechdae.analysis._mode.Mode`, without
stabilization) is differentiated in the chart ``q = q0 + N(q0) s`` (``s``: one position
perturbation per speed, so quaternions stay first-order unit), giving
``x' = J x + J_w w`` on ``x = (s, u, v)``.  With no stabilization the constraint manifold
``y = 0, z = 0`` is invariant, so its tangent space

.. math::

    T = \{ (\delta s, \delta u, \delta v) : Y_s \delta s = 0,\;
              Z_s \delta s + Z_u \delta u = 0 \}

(``Y_s = dy/ds``: holonomic rows and closed gaps; ``Z_s, Z_u``: the velocity rows, incl.
nonholonomic ones and sticking tangents) is mapped into itself, and the linear model on
``T`` holds only the physical modes: with a basis ``Z`` of ``T`` and a left inverse ``P``
(``P Z = I``) that is the chart of the minimal coordinates ``xi = P x``,

.. math::

    A = P J Z, \qquad B = P J_w, \qquad C = (dy/dx) Z, \qquad D = dy/dw .

``basis="independent"`` (default) takes independent coordinates and speeds (pivoted QR of
``Y_s`` and ``Z_u`` picks the dependent ones), so ``x_names`` are the model's own names;
``basis="orthonormal"`` an orthonormal basis of ``T`` (``P = Z^T``).  Stabilization gains
(Baumgarte, Mukharlyamov) never enter: the same A for every compile setting.
"""
import casadi as ca
import numpy as np
import scipy.linalg

from ._mode import Mode, closed_contacts

__all__ = ["Linearization", "linearize"]


class Linearization:
    """A linear state-space model ``xi' = A xi + B w``, ``y = C xi + D w`` at a point.

    Attributes
    ----------
    A, B, C, D : ndarray
        State, input, output and feed-through matrices (minimal coordinates).
    x_names, input_names, output_names : list of str
        States (independent coordinates then speeds, then states of the general
        equations; ``basis="orthonormal"``: ``"xi0"``, ...), inputs, outputs.
    mode : dict
        ``{contact: "stick" | "slide" | "open"}`` at the point (closed contacts are
        constraints of the linearization).
    contact_forces : dict
        ``{contact: (lam_n, [lam_t, ...])}`` of the closed contacts at the point.
    xdot0 : ndarray
        Rates of the minimal coordinates at the point (zero at an equilibrium: the
        linearization is then ``A, B`` about it; else a first-order Taylor model).
    basis, projector : ndarray
        ``Z`` (full state ``(s, u, v)`` from minimal coordinates) and ``P`` (``P Z = I``).
    full_names : list of str
        Names of the rows of ``basis``.
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)

    @property
    def eigenvalues(self):
        """Eigenvalues of ``A`` (complex array)."""
        return np.linalg.eigvals(self.A) if self.A.size else np.zeros(0, complex)

    def to_scipy(self):
        """The model as :class:`scipy.signal.StateSpace` (continuous time)."""
        import scipy.signal
        return scipy.signal.StateSpace(self.A, self.B, self.C, self.D)

    def __repr__(self):
        return (f"Linearization({len(self.x_names)} states {self.x_names}, inputs "
                f"{self.input_names}, outputs {self.output_names}, mode {self.mode})")


def linearize(system, q=None, v=None, inputs=None, outputs=(), params=None, t=0.0,
              contacts=None, basis="independent", tol=1e-8):
    """Linearize ``system`` at ``(q, v, inputs)`` on its constraint manifold.

    Parameters
    ----------
    system : System
    q, v : dict by name or array in System order
        The operating point (must satisfy the constraints and closed contacts).
    inputs : dict, optional
        Input values at the point; every model input is a column of ``B``.
    outputs : list of str or expressions, optional
        Names (coordinates, speeds, named variables/outputs) or expressions of the model's
        symbols; default: the states themselves (``C = I``).
    params : dict, optional
    t : float
    contacts : dict, optional
        ``{contact: "stick" | "slide" | "open"}``; contacts left out are closed where
        their gap is zero and their normal velocity not positive.
    basis : {"independent", "orthonormal"}
    tol : float
        Tolerance of the constraint residuals at the point (relative to the state's size).

    Returns
    -------
    Linearization

    Raises
    ------
    ValueError
        The point violates a constraint or a closed contact (named, with the residual); a
        closed contact pulls or leaves its friction cone; an unknown output or basis.

    Examples
    --------
    >>> lin = sys.linearize(q={"x": 0.0, "y": -1.0}, outputs=["x"])   # doctest: +SKIP
    >>> lin.eigenvalues                    # +- i sqrt(g/L)                # doctest: +SKIP
    """
    if basis not in ("independent", "orthonormal"):
        raise ValueError(f"linearize: basis={basis!r}; use 'independent' or 'orthonormal'")
    if system.m_g + system.k_g:
        raise ValueError(f"linearize: model '{system.name}' has hidden constraints of its "
                         f"general equations ({', '.join(system.general_constraints)}); their "
                         "minimal coordinates are not supported yet")
    qa, ua, va, _, _ = system.state_arrays(q, v)
    pv, wv = system._pw(params, inputs, t)
    mode = Mode(system, closed_contacts(system, qa, ua, t, pv, contacts), pv)
    sy = system
    N0 = np.array(sy.functions["N"](qa, pv))
    N0p = np.linalg.pinv(N0)
    nu = sy.nu
    x0 = np.concatenate([np.zeros(nu), ua, va])
    core = _core(sy, mode)
    f0, J, Jw, y0, z0, Ys, Zx, lam0 = [np.array(a) for a in
                                       core(qa, N0.ravel("F"), N0p.ravel("F"), x0, wv, pv, t)]
    if outputs:
        Cy, Dy, ynames = _output_jacobians(sy, mode, outputs, qa, N0, x0, wv, pv, t)
    if not (np.all(np.isfinite(J)) and np.all(np.isfinite(Jw))):
        slide = [n for n, k in mode.mode.items() if k == "slide"]
        raise ValueError(f"linearize: the dynamics of model '{sy.name}' is not differentiable "
                         "at this point" + (f" (contacts {slide} slide with zero sliding speed: "
                                            "their friction direction is undefined; give "
                                            "'stick' or a sliding state)" if slide else ""))
    _check_point(sy, mode, y0.ravel(), z0.ravel(), lam0.ravel(), pv, tol, qa, ua)
    full = _state_names(sy, N0)
    if basis == "independent":
        Z, P, names = _independent_basis(Ys, Zx[:, :nu], Zx[:, nu:2 * nu], sy.nv, full)
    else:
        E = np.zeros((Ys.shape[0] + Zx.shape[0], x0.size))
        E[:Ys.shape[0], :nu] = Ys
        E[Ys.shape[0]:, :] = Zx
        Z = scipy.linalg.null_space(E, rcond=1e-10) if E.size else np.eye(x0.size)
        P = Z.T
        names = [f"xi{i}" for i in range(Z.shape[1])]
    A, B = P @ J @ Z, P @ Jw
    if outputs:
        C, D = Cy @ Z, Dy
    else:
        C, D, ynames = np.eye(len(names)), np.zeros((len(names), Jw.shape[1])), list(names)
    return Linearization(A=A, B=B, C=C, D=D, x_names=names, input_names=list(sy.w_names),
                         output_names=ynames, mode=dict(mode.mode),
                         contact_forces=mode.contact_multipliers(lam0.ravel()),
                         xdot0=P @ f0.ravel(), basis=Z, projector=P, full_names=full,
                         point=dict(q=qa, u=ua, v=va, w=wv, p=pv, t=t))


def _core(sy, mode):
    """The mode's Function ``(q0, N0, N0+, x, w, p, t) -> (f, df/dx, df/dw, y, z, dy/ds,
    dz/dx, lam)`` in the chart ``q = q0 + N0 s``, ``x = (s, u, v)`` (cached on the
    System per mode: repeated linearizations, e.g. gain scheduling, only evaluate it)."""
    cache = sy.__dict__.setdefault("_analysis_cache", {})
    key = ("linearize", tuple(sorted(mode.mode.items())))
    if key not in cache:
        nq, nu = sy.nq, sy.nu
        q0, t = ca.MX.sym("q0", nq), ca.MX.sym("t")
        N0, N0p = ca.MX.sym("N0", nq, nu), ca.MX.sym("N0p", nu, nq)
        xs, w = ca.MX.sym("x", 2 * nu + sy.nv), ca.MX.sym("w", len(sy.w_names))
        p = ca.MX.sym("p", len(sy.p_names))
        s = xs[:nu]
        qx = q0 + ca.mtimes(N0, s)
        xdot, lam, y, z, _ = mode.graphs(ca.vertcat(qx, xs[nu:]), t, p, w)
        f = ca.vertcat(ca.mtimes(N0p, xdot[:nq]), xdot[nq:])
        cache[key] = ca.Function("lin", [q0, ca.vec(N0), ca.vec(N0p), xs, w, p, t],
                                 [f, ca.jacobian(f, xs), ca.jacobian(f, w), y, z,
                                  ca.jacobian(y, xs)[:, :nu], ca.jacobian(z, xs), lam])
    return cache[key]


def _output_jacobians(sy, mode, outputs, qa, N0, x0, wv, pv, t):
    """``(dy/dx, dy/dw, names)`` of the outputs at the point, in the chart's ``x``."""
    nu = sy.nu
    xs, w = ca.MX.sym("x", x0.size), ca.MX.sym("w", len(sy.w_names))
    qx = ca.DM(qa) + ca.mtimes(ca.DM(N0), xs[:nu])
    xdot, lam, _, _, extras = mode.graphs(ca.vertcat(qx, xs[nu:]), t, ca.DM(pv), w)
    u, vv = xs[nu:2 * nu], xs[2 * nu:]
    yout, names = _outputs(sy, mode, outputs, (qx, u, vv, t, pv, w), lam, xdot, extras)
    fn = ca.Function("y", [xs, w], [ca.jacobian(yout, xs), ca.jacobian(yout, w)])
    Cy, Dy = (np.array(a) for a in fn(x0, wv))
    return Cy, Dy, names


def _state_names(sy, N0):
    """Names of ``(s, u, v)``: ``s_j`` is coordinate ``i`` when ``N[:, j] = e_i``."""
    names = []
    for j, un in enumerate(sy.u_names):
        col = N0[:, j]
        i = int(np.argmax(np.abs(col)))
        unit = abs(col[i] - 1.0) < 1e-12 and np.count_nonzero(np.abs(col) > 1e-14) == 1
        names.append(sy.q_names[i] if unit else f"s({un})")
    return names + list(sy.u_names) + list(sy.v_names)


def _pivots(E, keep=(), rtol=1e-9):
    """Columns of ``E`` chosen as dependent (pivoted QR; as many as its rank), avoiding the
    columns ``keep`` when the others have the same rank."""
    if E.size == 0:
        return []

    def qr(cols):
        if not cols:
            return 0, []
        _, R, piv = scipy.linalg.qr(E[:, cols], mode="economic", pivoting=True)
        d = np.abs(np.diag(R))
        r = int(np.sum(d > rtol * max(d[0], 1e-300))) if d.size else 0
        return r, sorted(cols[int(j)] for j in piv[:r])

    r_all, dep = qr(list(range(E.shape[1])))
    if keep:
        r, dep_k = qr([j for j in range(E.shape[1]) if j not in keep])
        if r == r_all:
            return dep_k
    return dep


def _independent_basis(Ys, Zs, Zu, nv, full, keep=()):
    """Basis ``Z`` of the tangent space whose coordinates are independent ``s`` and ``u``
    entries (the dependent ones solved from the constraint rows), the selection ``P``;
    ``keep``: positions preferred as independent."""
    nu = Zu.shape[1]
    dep_s, dep_u = _pivots(Ys, keep), _pivots(Zu)
    ind_s = [j for j in range(nu) if j not in dep_s]
    ind_u = [j for j in range(nu) if j not in dep_u]
    cols = []

    def speeds(ds, du):
        if dep_u:
            rhs = -(Zs @ ds + Zu @ du)
            du[dep_u] = np.linalg.lstsq(Zu[:, dep_u], rhs, rcond=None)[0]
        return du

    for j in ind_s:
        ds = np.zeros(nu)
        ds[j] = 1.0
        if dep_s:
            ds[dep_s] = -np.linalg.lstsq(Ys[:, dep_s], Ys[:, j], rcond=None)[0]
        cols.append(np.concatenate([ds, speeds(ds, np.zeros(nu)), np.zeros(nv)]))
    for j in ind_u:
        du = np.zeros(nu)
        du[j] = 1.0
        cols.append(np.concatenate([np.zeros(nu), speeds(np.zeros(nu), du), np.zeros(nv)]))
    for j in range(nv):
        e = np.zeros(2 * nu + nv)
        e[2 * nu + j] = 1.0
        cols.append(e)
    n = 2 * nu + nv
    Z = np.array(cols).T if cols else np.zeros((n, 0))
    sel = ind_s + [nu + j for j in ind_u] + [2 * nu + j for j in range(nv)]
    P = np.zeros((len(sel), n))
    P[np.arange(len(sel)), sel] = 1.0
    return Z, P, [full[i] for i in sel]


def _check_point(sy, mode, y0, z0, lam0, pv, tol, qa, ua):
    """The point satisfies the mode's constraints; closed contacts push and stick."""
    scale = 1.0 + max(np.abs(qa).max(initial=0.0), np.abs(ua).max(initial=0.0))
    bad = [f"'{n}' = {r:.3g}" for n, r in zip(mode.y_names, y0) if abs(r) > tol * scale]
    bad += [f"rate of '{n}' = {r:.3g}" for n, r in zip(mode.row_names, z0)
            if abs(r) > tol * scale]
    if bad:
        raise ValueError(f"linearize: the point violates constraints of model '{sy.name}' "
                         f"({', '.join(bad)}); give a consistent q, v (System.trim or "
                         "simulate's initialization finds one) or open the contact with "
                         "contacts={name: 'open'}")
    if not mode.mode:
        return
    from ..simulate._laws import laws_function
    mu = np.array(laws_function(sy)(pv)[2]).ravel()
    forces = mode.contact_multipliers(lam0)
    for i, name in enumerate(sy.contact_names):
        if name not in forces:
            continue
        ln, lt = forces[name]
        ftol = 1e-9 * (1.0 + np.abs(lam0).max())
        if ln < -ftol:
            raise ValueError(f"linearize: contact '{name}' of model '{sy.name}' pulls (normal "
                             f"force {ln:.4g}): it would open at this point; pass "
                             f"contacts={{'{name}': 'open'}}")
        if lt and np.linalg.norm(lt) > mu[i] * ln + ftol:
            raise ValueError(f"linearize: contact '{name}' of model '{sy.name}' cannot stick "
                             f"(tangential force {np.linalg.norm(lt):.4g} > mu * normal force "
                             f"{mu[i] * ln:.4g}); it slides at this point")


def _outputs(sy, mode, outputs, point, lam, xdot, extras):
    """The outputs as MX of the chart's state (names, or expressions of model symbols)."""
    qx, u, v, t, pv, w = point
    if not outputs:
        return ca.MX(0, 1), []
    rows, names = [], []
    hd, zalg = extras
    lam_m = mode.model_multipliers(lam) if lam.numel() else ca.MX(0, 1)
    ud = xdot[sy.nq:sy.nq + sy.nu]
    idx = sy._name_index()
    onames = getattr(sy, "_output_index", {})
    d = sy._d
    for spec in outputs:
        if isinstance(spec, str):
            names.append(spec)
            if spec in idx["q"]:
                rows.append(qx[idx["q"][spec]])
            elif spec in idx["u"]:
                rows.append(u[idx["u"][spec]])
            elif spec in idx["coord_speed"]:
                rows.append(u[idx["u"][idx["coord_speed"][spec]]])
            elif spec in idx["v"]:
                rows.append(v[idx["v"][spec]])
            elif spec in sy.z_names:
                rows.append(zalg[sy.z_names.index(spec)])
            elif spec in onames:
                y = sy.functions["outputs"](qx, u, v, hd, zalg, t, pv, w, lam_m, ud)
                rows.append(y[onames[spec]])
            else:
                raise ValueError(f"linearize: unknown output '{spec}' of model '{sy.name}'; "
                                 "give a coordinate, speed, named variable or an expression")
            continue
        from .._symbols import _as_sx
        e = _as_sx(spec, "linearize(outputs=...)")
        e = _substitute_kinematics(sy, e)
        fe = ca.Function("y", [d.q, d.u, d.v, d.z, d.t, d.p, d.w], [ca.vec(e)])
        rows.append(fe(qx, u, v, zalg, t, pv, w))
        names.append(str(spec))
    return ca.vertcat(*rows), names


def _substitute_kinematics(sy, e):
    """``der(q)`` of declared kinematics replaced by their expressions (as evaluate())."""
    m = sy.parent
    src = [c["rate"] for c in m.coords if c["name"] in m.kinematics_]
    if not src:
        return e
    dst = [m.kinematics_[c["name"]] for c in m.coords if c["name"] in m.kinematics_]
    return ca.substitute(e, ca.vertcat(*src), ca.vertcat(*dst))
