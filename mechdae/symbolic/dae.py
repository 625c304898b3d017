"""Structural analysis of the general equations: Pantelides' algorithm.

The general equations of a Model (:meth:`mechdae.Model.equation`) are scalar residuals
``e_i(x, x', ..., q, u, t, p, w) = 0`` in the model's variables ``x_j`` (unknowns, to any
derivative order).  Coordinates ``q`` and speeds ``u`` are *known* here: the mechanics
determines them, and ``d/dt q = N(q) u``.

Signature form.  Let ``sigma_ij`` be the highest derivative order of variable ``j`` in
equation ``i`` (absent: no entry).  Pantelides' algorithm (1988) looks for a perfect
matching of equations to the *highest* derivatives of the variables; an equation whose
augmenting path fails is differentiated together with every equation and variable the
failed search visited (colored).  With ``c_i`` the number of times equation ``i`` is
differentiated and ``d_j`` the highest order of variable ``j``, the invariant

    d_j = max_i (sigma_ij + c_i)

holds throughout, and equation ``i`` is incident to the highest derivative of ``j``
exactly when ``sigma_ij + c_i = d_j``.  At the end the equations ``e_i^(c_i) = 0`` are
structurally nonsingular in the unknowns ``x_j^(d_j)`` (the highest derivatives, or the
values of the algebraic variables, ``d_j = 0``), and ``e_i^(k) = 0``, ``k < c_i``, are the
hidden constraints.

The algorithm terminates if and only if the equations can be matched to the variables
regardless of derivative order; that is checked first, and otherwise the
Dulmage-Mendelsohn blocks (over- and under-determined parts) are reported by name.
Every search is iterative (no recursion), and incidence comes from sparsity patterns,
so models with thousands of equations are analysed in milliseconds.
"""
import numpy as np

__all__ = ["Structure", "pantelides", "max_matching", "singular_blocks", "MAX_ORDER"]

MAX_ORDER = 3    # c_i >= MAX_ORDER: index > 3, refused


class Structure:
    """Result of the structural analysis.

    Attributes
    ----------
    equations : list of str
        Names of the scalar equation rows (``"name"`` or ``"name[k]"`` for vector rows).
    variables : list of str
    sigma : list of dict
        ``sigma[i][j]``: highest order of variable ``j`` in equation ``i``.
    c : tuple of int
        Times each equation is differentiated.
    d : tuple of int
        Highest derivative order of each variable.
    index : int
        Structural differential index of the general equations (``max c_i``, plus one if
        some variable is algebraic, ``d_j = 0``).
    matching : tuple of int
        ``matching[i]``: the variable whose highest derivative equation ``i`` determines.
    """

    def __init__(self, equations, variables, sigma, c, d, matching):
        self.equations = list(equations)
        self.variables = list(variables)
        self.sigma = sigma
        self.c = tuple(int(x) for x in c)
        self.d = tuple(int(x) for x in d)
        self.matching = tuple(int(x) for x in matching)
        alg = any(x == 0 for x in self.d)
        self.index = (max(self.c) if self.c else 0) + (1 if alg else 0)

    def __repr__(self):
        return (f"Structure(index={self.index}, c={dict(zip(self.equations, self.c))}, "
                f"d={dict(zip(self.variables, self.d))})")


def _augment(i0, nbrs, match_v, match_e, vmark, stamp):
    """Iterative augmenting-path search from the unmatched equation ``i0``.

    ``nbrs(i)`` lists the variables equation ``i`` may be matched to.  On success the
    matching is updated along the path.  Returns ``(found, colored_equations,
    colored_variables)``.
    """
    colored_e, colored_v = [i0], []
    stack_e, stack_nb, stack_pos, via = [i0], [nbrs(i0)], [0], []
    # lookahead at push time: a free neighbour ends the search at once
    for j in stack_nb[0]:
        if match_v[j] < 0:
            match_v[j], match_e[i0] = i0, j
            return True, colored_e, colored_v
    while stack_e:
        nb, pos = stack_nb[-1], stack_pos[-1]
        while pos < len(nb) and vmark[nb[pos]] == stamp:
            pos += 1
        if pos == len(nb):
            stack_e.pop(); stack_nb.pop(); stack_pos.pop()
            if via:
                via.pop()
            continue
        j = nb[pos]
        stack_pos[-1] = pos + 1
        vmark[j] = stamp
        colored_v.append(j)
        i = match_v[j]
        colored_e.append(i)
        via.append(j)
        nbi = nbrs(i)
        free = -1
        for jj in nbi:
            if match_v[jj] < 0:
                free = jj
                break
        if free >= 0:
            match_v[free], match_e[i] = i, free
            for k in range(len(via) - 1, -1, -1):
                jk, ek = via[k], stack_e[k]
                match_v[jk], match_e[ek] = ek, jk
            return True, colored_e, colored_v
        stack_e.append(i); stack_nb.append(nbi); stack_pos.append(0)
    return False, colored_e, colored_v


def max_matching(n_eq, n_var, adj):
    """Maximum bipartite matching of equations to variables (``adj[i]``: variables of i).

    Returns
    -------
    match_e, match_v : ndarray of int
        Partner of each equation / variable, ``-1`` when unmatched.
    """
    match_v = np.full(n_var, -1, dtype=np.int64)
    match_e = np.full(n_eq, -1, dtype=np.int64)
    vmark = np.zeros(n_var, dtype=np.int64)
    for i in range(n_eq):
        _augment(i, adj.__getitem__, match_v, match_e, vmark, i + 1)
    return match_e, match_v


def singular_blocks(n_eq, n_var, adj, match_e, match_v):
    """Dulmage-Mendelsohn over- and under-determined parts of an imperfect matching.

    Returns
    -------
    over : (list of int, list of int)
        Equations and variables reachable by alternating paths from the unmatched
        equations (more equations than variables).
    under : (list of int, list of int)
        Equations and variables reachable from the unmatched variables (more variables
        than equations).
    """
    vadj = [[] for _ in range(n_var)]
    for i, js in enumerate(adj):
        for j in js:
            vadj[j].append(i)
    over = _alternating_reach([i for i in range(n_eq) if match_e[i] < 0], adj, match_v)
    v_side, e_side = _alternating_reach([j for j in range(n_var) if match_v[j] < 0], vadj,
                                        match_e)
    return over, (e_side, v_side)


def _alternating_reach(starts, adj, match_other):
    """Nodes reachable from the unmatched ``starts`` along alternating paths (an edge to the
    other side, then that node's matching edge back): ``(this side, other side)``, sorted."""
    seen_a, seen_b = set(starts), set()
    todo = list(starts)
    while todo:
        i = todo.pop()
        for j in adj[i]:
            if j not in seen_b:
                seen_b.add(j)
                k = match_other[j]
                if k >= 0 and k not in seen_a:
                    seen_a.add(k)
                    todo.append(k)
    return sorted(seen_a), sorted(seen_b)


def _q(names):
    return ", ".join(f"'{n}'" for n in names)


def pantelides(equations, variables, sigma, max_order=MAX_ORDER, where=None):
    """Structural index analysis (Pantelides) in signature form.

    Parameters
    ----------
    equations : list of str
        Names of the scalar equations.
    variables : list of str
        Names of the unknown variables.
    sigma : list of dict
        ``sigma[i]``: ``{j: highest order of variable j in equation i}``.
    max_order : int
        Stop (and report) once an equation must be differentiated this many times.
    where : callable, optional
        ``where(names)``: a sentence on where the named equations and variables come from
        (the connectors and components of a flattened model), appended to each problem.

    Returns
    -------
    (Structure or None, list of str)
        The structure and the problems found (structural singularity, index too high),
        each naming the equations and variables involved.
    """
    n_eq, n_var = len(equations), len(variables)
    P = []
    where = where or (lambda names: "")
    adj = [list(s.keys()) for s in sigma]
    # 1. the equations must match the variables regardless of derivative order
    match_e, match_v = max_matching(n_eq, n_var, adj)
    if (match_e < 0).any() or (match_v < 0).any():
        if n_eq != n_var:
            P.append(f"{n_eq} equation rows for {n_var} extra unknowns (variables "
                     f"{_q(variables) or 'none'}); give exactly one equation per variable")
        empty = [i for i in range(n_eq) if not adj[i]]
        for i in empty:
            P.append(f"equation '{equations[i]}': contains no unknown variable (only "
                     "coordinates, speeds, parameters, inputs or time), so it determines "
                     "nothing; remove it (a condition on the coordinates is a mechanical "
                     "constraint: m.holonomic(...)) or make it an equation for a variable"
                     + where([equations[i]]))
        unused = [j for j in range(n_var) if not any(j in s for s in sigma)]
        for j in unused:
            P.append(f"variable '{variables[j]}': appears in no equation; add an equation "
                     "that determines it or remove the variable" + where([variables[j]]))
        (oe, ov), (ue, uv) = singular_blocks(n_eq, n_var, adj, match_e, match_v)
        oe = [i for i in oe if i not in empty]
        uv = [j for j in uv if j not in unused]
        if oe:
            extra = len(oe) - len(ov)
            P.append(f"structurally singular (over-determined): equations {_q(equations[i] for i in oe)} "
                     f"({len(oe)}) involve only the variables "
                     f"{_q(variables[j] for j in ov) or 'none'} ({len(ov)}); remove {extra} of "
                     "these equations (redundant or conflicting) or add the unknown(s) they "
                     "should determine" + where([equations[i] for i in oe]
                                                + [variables[j] for j in ov]))
        if uv:
            missing = len(uv) - len(ue)
            P.append(f"structurally singular (under-determined): variables {_q(variables[j] for j in uv)} "
                     f"({len(uv)}) appear only in the equations "
                     f"{_q(equations[i] for i in ue) or 'none'} ({len(ue)}); add {missing} "
                     "equation(s) determining them or remove variable(s)"
                     + where([variables[j] for j in uv] + [equations[i] for i in ue]))
        return None, P
    # 2. Pantelides in signature form
    c = np.zeros(n_eq, dtype=np.int64)
    d = np.zeros(n_var, dtype=np.int64)
    for s in sigma:
        for j, o in s.items():
            d[j] = max(d[j], o)
    sig = [list(s.items()) for s in sigma]

    def nbrs(i):
        ci = c[i]
        return [j for j, o in sig[i] if o + ci == d[j]]

    match_v = np.full(n_var, -1, dtype=np.int64)
    match_e = np.full(n_eq, -1, dtype=np.int64)
    vmark = np.zeros(n_var, dtype=np.int64)
    stamp = 0
    too_high = set()
    for k in range(n_eq):
        while True:
            stamp += 1
            ok, ce, cv = _augment(k, nbrs, match_v, match_e, vmark, stamp)
            if ok:
                break
            for j in cv:
                d[j] += 1
            for i in ce:
                c[i] += 1
                if c[i] >= max_order:
                    too_high.add(i)
            if too_high:
                break
        if too_high:
            break
    if too_high:
        names = [equations[i] for i in sorted(too_high)]
        P.append(f"index > 3: the equations {_q(names)} would have to be differentiated "
                 f"{max_order} or more times for index reduction (the general equations have "
                 "differential index above 3); mechdae reduces index up to 3 (constraints on "
                 "positions of second-order variables). Write the problem in a lower-index "
                 "form, e.g. replace a condition by its derivative with a stabilized "
                 "invariant, or make the mechanical part a constraint with m.holonomic()")
        return None, P
    return Structure(equations, variables, sigma, c, d, match_e), P
