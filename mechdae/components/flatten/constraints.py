"""Pass 3: rigid connections and left-over relations, eliminated or kept as constraints.

A node defined twice (``secondary``: two masses joined rigidly) and a relation whose
potentials are all known (a gear between two inertias, a loop's closing joint) constrain
the coordinates. Where a constraint is linear in a coordinate with a coefficient nothing
changes, that coordinate is solved for and substituted (:mod:`.eliminate`; its force
follows from the Lagrange equations of the eliminated coordinate); otherwise it is a
holonomic constraint with a multiplier (over general variables: a general equation with
its multiplier as an algebraic variable). The coordinates left are declared here.
"""
import time

import casadi as ca
import numpy as np

from ..._symbols import der
from .._graph import INDETERMINATE as _INDET, UNKNOWN as _UNKNOWN, Subst as _Subst
from .._graph import hashes as _hashes
from ..core import TIME
from .declare import declare_coordinates, derivatives
from .eliminate import choose_eliminations, reaction_multipliers

__all__ = ["constraints"]


def constraints(F):
    """Choose eliminations, declare the coordinates, keep the other constraints.

    Sets ``F.pot`` (potentials -> node values in placeholder space), ``F.crels`` (relation
    rows that constrain), ``F.lam_of`` (id(row) -> its multipliers), ``F.sec_lam`` (the
    multiplier of each rigid connection), ``F.t_alias``.
    """
    model, S, N = F.model, F.S, F.N
    F.pot = _potential_map(F)
    F.crels = [r for r in N.rels if r["role"] == "constraint"]
    cons = [dict(phi=e - N.node_val[root], prefer=[d[1] for d in c._coords], name=name)
            for c, cn, i, e, root, name in N.secondary]
    cons += [dict(phi=r["phi"], prefer=[], name=f"{r['comp'].path}.{r['name']}")
             for r in F.crels]
    gen_h0 = {v.element_hash() for v in F.general}
    E = choose_eliminations(cons, [d[2] for d in F.coord_decl], F.pot, TIME, gen_h0,
                            model.name, _numeric(F))
    declare_coordinates(F, E)
    F.t_alias = time.perf_counter()
    derivatives(F)
    kept = _keep(F, cons)
    if E.keys:
        _eliminated_forces(F, cons, kept)


def _potential_map(F):
    """``pot(e)``: ``e`` with potentials and their rates replaced by node values
    (placeholder space: what an elimination may solve for)."""
    N = F.N
    PT = _Subst()
    for root, lst in N.members.items():
        for cn, i in lst:
            PT.set(cn.potential_syms[i], N.node_val[root])
    for root, r in zip(F.droots, F.rates):
        for cn, i in N.members[root]:
            PT.set(der(cn.potential_syms[i]), r)
    PT.resolve(F.where)
    return lambda e: PT.apply([e])[0]


def _numeric(F):
    """``numeric(e)``: ``e`` with parameters at their defaults."""
    NUM = _Subst()
    for c in F.comps:
        for ln, ph, val in c._params:
            NUM.set(ph, val if isinstance(val, ca.SX) else ca.SX(ca.DM(np.asarray(val, float))))
    NUM.resolve(F.where)
    return lambda e: NUM.apply([e])[0]


def _constraint(F, name, phi, n, gen_h):
    """A kept constraint ``phi`` (resolved) as a holonomic constraint of the Model with its
    multipliers, or over general variables (hashes ``gen_h``) as a general equation with its
    multipliers as algebraic variables; returns the multipliers (a list of ``n``)."""
    model = F.model
    if _hashes(phi) & gen_h:
        lam = [model.variable(f"{name}.lambda" + (f"[{j}]" if j else "")) for j in range(n)]
        F.general.extend(lam)
        model.equation(phi, name=name)
        return lam
    model.holonomic(phi, name=name)
    return [model.multiplier(name, j) for j in range(n)]


def _keep(F, cons):
    """The relation rows, then the rigid connections, that stay constraints; returns
    ``kept`` ``[(phi placeholders, multipliers)]``."""
    S, N = F.S, F.N
    nsec = len(N.secondary)
    F.lam_of = {}                        # id(relation) -> column of multiplier symbols
    kept = []
    gen_h = {v.element_hash() for v in F.general}
    for r, phi, con in zip(F.crels, S.apply([r["phi"] for r in F.crels]), cons[nsec:]):
        name = f"{r['comp'].path}.{r['name']}"
        if con["role"] == "redundant":
            F.lam_of[id(r)] = ca.vertcat(*[_INDET] * phi.numel())
        if phi.numel() == 0 or con["role"] != "kept":
            continue
        lam = ca.vertcat(*_constraint(F, name, phi, phi.numel(), gen_h))
        F.lam_of[id(r)] = lam
        kept.append((r["phi"], lam))
    F.sec_lam = []
    for (c, cn, i, e, root, name), phi, con in zip(
            N.secondary, S.apply([e - N.node_val[root_] for _, _, _, e, root_, _ in
                                  N.secondary]), cons[:nsec]):
        if con["role"] != "kept":
            F.sec_lam.append(_INDET if con["role"] == "redundant" else ca.SX(0))
            continue
        lam = _constraint(F, name, phi, 1, gen_h)[0]
        F.sec_lam.append(lam)
        kept.append((e - N.node_val[root], lam))
    return kept


def _eliminated_forces(F, cons, kept):
    """Multipliers of the eliminated constraints as expressions (see
    :func:`.eliminate.reaction_multipliers`), put where the flows read them (``F.sec_lam``,
    ``F.lam_of``)."""
    comps, pot, N = F.comps, F.pot, F.N
    gen_h = {v.element_hash() for v in F.general}
    elim = [(con["phi"], con["coord"]) for con in cons if con["role"] == "eliminated"]
    T, V, vw, gf = [], [], [], []
    for c in comps:
        use_energy = not any(_hashes(pot(v)) & gen_h for v in c._V)
        T.extend(c._T)
        if use_energy:
            V.extend(c._V)
        for cn, exprs, energy in c._flows.values():
            if exprs is None:
                continue
            for i, f in enumerate(exprs):
                if use_energy and energy is True:
                    continue
                if use_energy and isinstance(energy, list):
                    f = f - energy[i]
                vw.append((f, cn.potential_syms[i]))
        gf.extend((Q, ph) for Q, ph in c._gforces)
    lam = reaction_multipliers(elim, kept, [d[2] for d in F.coord_decl], T, V, vw, gf, pot,
                               TIME)
    # a contact acting on an eliminated coordinate adds a force the Lagrangian does not see
    ce = ca.vertcat(*[cph for _, cph in elim])
    touched = any(ca.depends_on(pot(ca.SX(kw["gap"]) if not isinstance(kw["gap"], ca.SX)
                                    else kw["gap"]), ce)
                  for c in comps for kw in c._contacts)
    # a redundant joint (a loop that closes by itself) shares the force of the joints on
    # its coordinates in a way rigid bodies leave undetermined
    red = [pot(con["phi"]) for con in cons if con["role"] == "redundant"]
    red = ca.vertcat(*red) if red else ca.SX(0, 1)
    nsec = len(N.secondary)
    k = 0
    for j, con in enumerate(cons):
        if con["role"] != "eliminated":
            continue
        indet = red.numel() and ca.depends_on(red, con["coord"])
        val = _UNKNOWN if touched else (_INDET if indet else lam[k])
        k += 1
        if j < nsec:
            F.sec_lam[j] = val
        else:
            F.lam_of[id(F.crels[j - nsec])] = ca.vertcat(val)
