"""Index reduction of the general equations and their stabilized index-1 form.

After the structural analysis (:func:`mechdae.symbolic.dae.pantelides`) gives ``c_i``
(times equation ``i`` is differentiated) and ``d_j`` (highest derivative order of
variable ``j``), the general part of the compiled system is

* states ``v``: ``x_j, x_j', ..., x_j^(d_j - 1)`` of every variable with ``d_j >= 1``;
* unknowns solved at each instant: the highest derivatives ``x_j^(d_j)`` and the
  algebraic variables (``d_j = 0``);
* equations ``e_i^(c_i) = 0``, differentiated by the chain rule with
  ``d/dt x_j^(l) = x_j^(l+1)``, ``d/dt q = N(q) u`` (the kinematics), ``d/dt t = 1``;
* hidden constraints ``e_i^(k) = 0``, ``k < c_i``, stabilized like mechanical ones: rows
  with ``c_i = 2`` are holonomic-like (``y = e``, ``z = e'``), rows with ``c_i = 1``
  nonholonomic-like (``z = e``), and the perturbation law ``z' = H_g y + K_g z`` with
  ``(H_g, K_g) = rule.matrices(m_g, k_g)`` replaces ``e_i^(c_i) = 0`` by
  ``e_i^(c_i) - (H_g y + K_g z)_i = 0`` (Baumgarte: ``e'' + 2 alpha e' + beta^2 e = 0``,
  ``e' + gamma e = 0``).

The stabilized equations must be linear in the unknowns: ``J (hd, z) + F0 = 0``.
"""
import casadi as ca
import numpy as np

from .dae import pantelides, MAX_ORDER

__all__ = ["reduce_general", "stabilize_general", "level_name"]


def level_name(name, k):
    """``x``, ``der(x)``, ``der(der(x))``, ... for derivative order ``k``."""
    return "der(" * k + name + ")" * k


def _vc(items):
    return ca.vertcat(*items) if items else ca.SX(0, 1)


def _rows_incidence(F, X):
    """``rows[i]``: column indices of ``X`` on which ``F[i]`` depends (sparsity pattern)."""
    if F.numel() == 0 or X.numel() == 0:
        return [[] for _ in range(F.numel())]
    sp = ca.jacobian_sparsity(F, X)
    colind, row = sp.colind(), sp.row()
    out = [[] for _ in range(F.numel())]
    for col in range(X.numel()):
        for k in range(colind[col], colind[col + 1]):
            out[row[k]].append(col)
    return out


def reduce_general(model, d, F, row_names, row_owner, P):
    """Structural analysis and index reduction of the general equations ``F = 0``.

    Fills ``d`` with the orderings (``v``, ``z``, ``hd`` and their names), the structure,
    the raw reduced equations and the hidden constraints; problems go to ``P``.  The
    passes: the structure (:func:`_structure`), the orderings of states and unknowns
    (:func:`_orderings`), the differentiation of the rows (:func:`_differentiate`) and
    the hidden constraints (:func:`_hidden_constraints`).

    Parameters
    ----------
    model : Model
    d : Derived
        Must hold ``q, u, t, p, w, qd`` and ``u_names``.
    F : SX
        Residuals of the general equations (one row per scalar equation).
    row_names : list of str
        Name of each row (``"name"`` or ``"name[k]"``).
    row_owner : list of str
        Equation name owning each row.
    P : list of str
        Problems (appended to).

    Returns
    -------
    bool
        Whether the reduction succeeded.
    """
    names = [v["name"] for v in model.variables]
    d.general_equations = list(row_names)
    st, P2 = _structure(model, names, F, row_names)
    P.extend(P2)
    _empty(d)
    if st is None:
        return False
    d.dae = st
    c, D = st.c, st.d
    dj = _orderings(model, d, names, D)
    derivs = _differentiate(model, d, F, c, D, dj, row_names, P)
    if derivs is None:
        return False
    _hidden_constraints(d, derivs, c, row_names, row_owner)
    return True


def _structure(model, names, F, row_names):
    """Structural analysis (Pantelides) of the rows ``F`` in the model's variables.

    The incidence of row ``i`` is the highest order ``sigma_ij`` at which it uses variable
    ``j`` (from the sparsity of ``dF/dX``, ``X`` every level symbol of every variable).

    Returns
    -------
    (mechdae.symbolic.dae.Structure or None, list of str)
        The structure (``c``, ``d``, ``index``; None when it fails) and its problems.
    """
    variables = model.variables
    # every level symbol of every variable, and its (variable, order)
    lev_syms, lev_of = [], []
    for j, v in enumerate(variables):
        syms = [v["sym"]] + list(v.get("rates") or ([v["rate"]] if v.get("rate") is not None else []))
        for k, s in enumerate(syms):
            lev_syms.append(s)
            lev_of.append((j, k))
    X = _vc(lev_syms)
    inc = _rows_incidence(F, X)
    sigma = []
    for cols in inc:
        s = {}
        for col in cols:
            j, k = lev_of[col]
            if s.get(j, -1) < k:
                s[j] = k
        sigma.append(s)
    from .singular import origin_note
    return pantelides(row_names, names, sigma, MAX_ORDER,
                      where=lambda nm: origin_note(model, nm))


def _level(model, j, k):
    """The symbol of derivative order ``k`` of variable ``j`` (created when not declared)."""
    variables = model.variables
    if k == 0:
        return variables[j]["sym"]
    rates = variables[j].get("rates") or []
    if k <= len(rates):
        return rates[k - 1]
    return model._variable_rate(variables[j]["name"], k)


def _orderings(model, d, names, D):
    """Orderings of the states ``v = (x, der(x), ...)`` (up to one below the highest
    order ``d_j``), the highest derivatives ``hd`` and the algebraic variables ``z``
    (``d_j = 0``), and where each state's rate comes from (``d.vd_index``).

    Returns
    -------
    list of int
        The variables with ``d_j >= 1`` (differential), in order.
    """
    variables = model.variables
    dj = [j for j in range(len(variables)) if D[j] >= 1]
    aj = [j for j in range(len(variables)) if D[j] == 0]
    v_syms, v_names, v_var = [], [], []
    for j in dj:
        for k in range(D[j]):
            v_syms.append(_level(model, j, k))
            v_names.append(level_name(names[j], k))
            v_var.append((j, k))
    hd_syms = [_level(model, j, D[j]) for j in dj]
    d.v, d.v_names = _vc(v_syms), v_names
    d.hd, d.hd_names = _vc(hd_syms), [level_name(names[j], D[j]) for j in dj]
    d.z, d.z_names = _vc([_level(model, j, 0) for j in aj]), [names[j] for j in aj]
    d.v_var = v_var
    d.v_order = {names[j]: D[j] for j in range(len(variables))}
    # rates of the states: the next state, or the solved highest derivative
    pos = {vk: i for i, vk in enumerate(v_var)}
    nv = len(v_var)
    top = {j: nv + i for i, j in enumerate(dj)}
    d.vd_index = [pos[(j, k + 1)] if k + 1 < D[j] else top[j] for j, k in v_var]
    d.vd = _vc(hd_syms)   # the unknown rates (kept for symbol checks)
    return dj


def _differentiate(model, d, F, c, D, dj, row_names, P):
    """Differentiate every row ``i`` with ``c_i >= 1`` up to ``e_i^(c_i)`` by the chain rule
    (``d/dt x_j^(l) = x_j^(l+1)``, ``d/dt q = N(q) u``, ``d/dt u = u'``, ``d/dt t = 1``).

    A row to differentiate may not contain an input (no symbolic derivative), and its top
    derivative may not contain an acceleration ``u'`` (problems to ``P``).

    Returns
    -------
    dict or None
        ``derivs[i] = [e_i, e_i', ..., e_i^(c_i)]``; None after a problem.
    """
    diff_rows = [i for i in range(len(c)) if c[i] >= 1]
    lo, hi = [], []
    for j in dj:
        for k in range(D[j]):
            lo.append(_level(model, j, k))
            hi.append(_level(model, j, k + 1))
    Xlo, Xhi = _vc(lo), _vc(hi)
    nu = d.u.numel()
    udot = ca.SX.sym("udot", nu)
    q, u, t, w = d.q, d.u, d.t, d.w

    def ddt(e):
        out = ca.jacobian(e, t)
        if Xlo.numel():
            out = out + ca.jtimes(e, Xlo, Xhi)
        if q.numel():
            out = out + ca.jtimes(e, q, d.qd)
        if nu:
            out = out + ca.jtimes(e, u, udot)
        return out

    if diff_rows and w.numel() and not _no_inputs(d, F, c, diff_rows, row_names, P):
        return None
    derivs = {i: [F[i]] for i in range(len(c))}
    cur = diff_rows
    level = 0
    while cur:
        level += 1
        De = ddt(_vc([derivs[i][-1] for i in cur]))
        for r, i in enumerate(cur):
            derivs[i].append(De[r])
        cur = [i for i in cur if c[i] > level]
    if nu and diff_rows and not _no_accelerations(model, derivs, c, diff_rows, udot, row_names,
                                                  P):
        return None
    return derivs


def _no_inputs(d, F, c, diff_rows, row_names, P):
    """Whether no row to differentiate contains an input (each one that does: a problem)."""
    ok = True
    winc = _rows_incidence(F[diff_rows], d.w)
    for r, cols in zip(diff_rows, winc):
        if cols:
            ok = False
            P.append(f"equation '{row_names[r]}': must be differentiated {c[r]} time(s) for "
                     "index reduction but contains the input(s) "
                     f"{', '.join(repr(d.w_names[k]) for k in cols)}; inputs have no symbolic "
                     "derivative: write the source as a function of the model time m.time "
                     "(e.g. 2 * md.sin(3 * m.time)) instead of m.input")
    return ok


def _no_accelerations(model, derivs, c, diff_rows, udot, row_names, P):
    """Whether no differentiated row ``e_i^(c_i)`` involves an acceleration ``u'`` (each
    one that does: a problem naming the coordinates)."""
    ok = True
    top_e = _vc([derivs[i][c[i]] for i in diff_rows])
    uinc = _rows_incidence(top_e, udot)
    for i, cols in zip(diff_rows, uinc):
        if cols:
            ok = False
            coords = []
            for k in cols:
                sp = model.speeds_[k]
                coords.append(sp["coord"] or sp["name"])
            what = "coordinate" if len(coords) == 1 else "coordinates"
            P.append(f"equation '{row_names[i]}' must be differentiated {c[i]} time(s) for "
                     f"index reduction and then involves the acceleration of {what} "
                     f"{', '.join(repr(x) for x in coords)}; accelerations are determined by "
                     "the mechanics, not by general equations: if the equation constrains "
                     "the motion write it as m.holonomic()/m.nonholonomic() (its reaction "
                     "is a multiplier), otherwise relate the variables to the coordinates "
                     "at a lower derivative order")
    return ok


def _hidden_constraints(d, derivs, c, row_names, row_owner):
    """The top derivatives ``e_i^(c_i)``, and the hidden constraints ``e_i^(k)``, ``k <
    c_i``: holonomic-like rows (``c_i = 2``: ``y = e``, ``z = e'``) then nonholonomic-like
    ones (``c_i = 1``: ``z = e``), their residuals and their Jacobian in ``v``."""
    nv = len(d.v_var)
    d.gen_top = [derivs[i][c[i]] for i in range(len(c))]
    d.gen_c = list(c)
    # hidden constraints: holonomic-like (c = 2) then nonholonomic-like (c = 1)
    A2 = [i for i in range(len(c)) if c[i] == 2]
    A1 = [i for i in range(len(c)) if c[i] == 1]
    d.gen_rows = A2 + A1
    d.m_g, d.k_g = len(A2), len(A1)
    d.gen_y = _vc([derivs[i][0] for i in A2])
    d.gen_zc = _vc([derivs[i][1] for i in A2] + [derivs[i][0] for i in A1])
    d.general_constraints = [row_names[i] for i in A2 + A1]
    d.gen_residual = _vc([derivs[i][0] for i in A2 + A1])
    d.gen_residual_owner = [row_owner[i] for i in A2 + A1]
    hid, hid_names = [], []
    for i in A2 + A1:
        for k in range(c[i]):
            hid.append(derivs[i][k])
            hid_names.append(level_name(row_names[i], k))
    d.gen_hidden = _vc(hid)
    d.gen_hidden_names = hid_names
    d.gen_hidden_J = ca.jacobian(d.gen_hidden, d.v) if hid and nv else ca.SX(len(hid), nv)


def _empty(d):
    """Empty orderings (no or failed general equations)."""
    d.v, d.v_names, d.hd, d.hd_names = ca.SX(0, 1), [], ca.SX(0, 1), []
    d.z, d.z_names, d.v_var, d.vd_index, d.v_order = ca.SX(0, 1), [], [], [], {}
    d.vd = ca.SX(0, 1)
    d.dae = None
    d.gen_top, d.gen_c, d.gen_rows = [], [], []
    d.m_g = d.k_g = 0
    d.gen_y = d.gen_zc = d.gen_residual = d.gen_hidden = ca.SX(0, 1)
    d.general_constraints, d.gen_residual_owner, d.gen_hidden_names = [], [], []
    d.gen_hidden_J = ca.SX(0, 0)
    d.ext_J, d.ext_F0 = ca.SX(0, 0), ca.SX(0, 1)
    d.H_g, d.K_g = np.zeros((0, 0)), np.zeros((0, 0))


def stabilize_general(d, H, K, P):
    """Stabilized equations ``e_i^(c_i) - (H y + K z)_i = 0`` and ``J (hd, z) + F0 = 0``.

    Sets ``d.ext_J``, ``d.ext_F0``, ``d.H_g``, ``d.K_g``; problems (equations not linear
    in the unknowns, structurally singular after cancellation) go to ``P``.
    """
    n = len(d.gen_c)
    r = d.m_g + d.k_g
    d.H_g = np.zeros((r, d.m_g)) if H is None else np.asarray(H, float).reshape(r, d.m_g)
    d.K_g = np.zeros((r, r)) if K is None else np.asarray(K, float).reshape(r, r)
    if not n:
        d.ext_J, d.ext_F0 = ca.SX(0, 0), ca.SX(0, 1)
        return
    E = list(d.gen_top)
    if r and (d.H_g.any() or d.K_g.any()):
        s = ca.mtimes(ca.DM(d.K_g), d.gen_zc)
        if d.m_g:
            s = s + ca.mtimes(ca.DM(d.H_g), d.gen_y)
        for k, i in enumerate(d.gen_rows):
            E[i] = E[i] - s[k]
    E = _vc(E)
    unknowns = ca.vertcat(d.hd, d.z)
    if not ca.is_linear(E, unknowns):
        bad = [d.general_equations[i] for i in range(n) if not ca.is_linear(E[i], unknowns)]
        P.append(f"equations {', '.join(repr(b) for b in bad)}: after index reduction they must "
                 "be linear in the unknowns solved at each instant (the highest derivatives "
                 f"{', '.join(d.hd_names) or '-'} and the algebraic variables "
                 f"{', '.join(d.z_names) or '-'}) for the ODE form; rewrite them so that these "
                 "unknowns enter linearly (e.g. introduce an algebraic variable for a nonlinear "
                 "term of a state)")
        d.ext_J, d.ext_F0 = ca.SX(0, 0), ca.SX(0, 1)
        return
    J = ca.jacobian(E, unknowns)
    if ca.sprank(J.sparsity()) < n:
        P.append(f"equations {', '.join(repr(x) for x in d.general_equations)}: singular in "
                 f"the unknowns {', '.join(d.hd_names + d.z_names)} after index reduction "
                 "(terms cancel symbolically); check the equations for a redundant one")
    d.ext_J = J
    d.ext_F0 = ca.substitute(E, unknowns, ca.DM.zeros(unknowns.numel()))
