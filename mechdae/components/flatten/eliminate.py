"""Rigid connections eliminated: one coordinate fewer per scleronomic constraint.

Where a node is defined twice (two masses joined directly, a mass on a Fixed flange) or a
relation joins two defined potentials (an ideal gear between two inertias), flattening
first writes a holonomic constraint ``phi(q) = 0``. When ``phi`` is linear in one of the
coordinates with a coefficient that no coordinate changes, and does not depend on time,
that coordinate is solved for and substituted (a tree joint: the System has as many
coordinates as degrees of freedom, and no constraint to stabilize). Program constraints
(``Position``: ``phi`` depends on time) stay constraints, stabilized as in seed 002.

The force transmitted by an eliminated constraint is no longer a multiplier; it follows
from the Lagrange equations of the eliminated coordinates, written for the model *with*
them and the constraint (``d/dt dL/dq_e' - dL/dq_e - Q_e = sum_k lam_k dphi_k/dq_e``),
evaluated along the reduced motion: an expression of the state and the accelerations
(results evaluate it from the equations of motion).
"""
import casadi as ca

from ..._symbols import der
from ...errors import ModelError
from .._graph import Subst, hashes, lagrange_residual

__all__ = ["choose_eliminations", "reaction_multipliers"]


def _evalf(e):
    """Float value of an expression without free symbols, else None."""
    if ca.symvar(e):
        return None
    return float(ca.evalf(e))


def choose_eliminations(cons, coords, pot, time_ph, general_h, model_name, numeric):
    """Decide which constraint eliminates which coordinate.

    Parameters
    ----------
    cons : list of dict
        ``phi`` (placeholder expression), ``prefer`` (coordinate placeholders to eliminate
        first), ``name``. Each gets ``role`` = ``"eliminated"`` (with ``coord``),
        ``"kept"`` or ``"redundant"``.
    coords : list of SX
        Coordinate placeholders in declaration order (later ones are eliminated first).
    pot : callable
        Placeholder expression -> the same with potentials replaced by node values.
    numeric : callable
        Expression -> the same with the parameters at their default values (a coefficient
        that vanishes there is not used to eliminate: a redundant loop).

    Returns
    -------
    Subst
        Eliminated coordinate placeholder -> expression of the remaining ones.
    """
    E = Subst()
    coord_h = {c.element_hash() for c in coords}
    t_h = time_ph.element_hash()
    problems = []
    for con in cons:
        con["role"] = "kept"
        phi = pot(con["phi"])
        if E.keys:
            phi = E.apply([phi])[0]
        if phi.numel() != 1:
            continue
        hs = hashes(phi)
        if hs & general_h or t_h in hs:
            continue
        cands = [c for c in list(con["prefer"]) + coords[::-1]
                 if c.element_hash() in hs and not E.has(c)]
        done = False
        for c in cands:
            if not ca.is_linear(phi, c):
                continue
            a = ca.jacobian(phi, c)
            if a.is_zero() or hashes(a) & coord_h:
                continue
            a_num = _evalf(numeric(a))
            if a_num is None or abs(a_num) < 1e-12:
                continue
            E.set(c, -ca.substitute(phi, c, ca.SX(0)) / a)
            E.resolve(f"model '{model_name}'")
            con.update(role="eliminated", coord=c)
            done = True
            break
        if done:
            continue
        # identically satisfied (a loop that closes): redundant; constant and nonzero: the
        # loop cannot close
        C = [c for c in coords if c.element_hash() in hs]
        vals = []
        for trial in (0.3719, -1.2113):
            e = numeric(ca.substitute(phi, ca.vertcat(*C), ca.DM([trial * (k + 1) for k in
                                                                   range(len(C))]))) \
                if C else numeric(phi)
            vals.append(_evalf(e))
        if all(v is not None and abs(v) < 1e-12 for v in vals):
            con["role"] = "redundant"
        elif not C and vals[0] is not None:
            problems.append(f"constraint '{con['name']}': the connection cannot close (it "
                            f"reads {vals[0]:.6g} = 0 whatever the coordinates); check the "
                            "lengths and ratios around the loop")
    if problems:
        raise ModelError([f"model '{model_name}': {p}" for p in problems])
    return E


def reaction_multipliers(elim, kept, coords, T, V, vw, gforces, pot, time_ph):
    """Multipliers of the eliminated constraints as expressions (placeholder space).

    Parameters
    ----------
    elim : list of (phi, coordinate placeholder)
        Eliminated constraints (before elimination, potentials as placeholders).
    kept : list of (phi, lam)
        Constraints kept (``lam``: their multiplier symbols, a column).
    coords : list of SX
        Every coordinate placeholder (remaining and eliminated).
    T, V : list of SX
        Kinetic and potential energy terms (placeholders) entering the Lagrangian.
    vw : list of (f, s)
        Forces ``f`` doing virtual work along potentials ``s`` (force on the node ``-f``).
    gforces : list of (Q, coordinate placeholder)
    pot : callable
        Placeholder expression -> potentials replaced by node values.

    Returns
    -------
    SX column
        One multiplier per eliminated constraint.
    """
    ce = ca.vertcat(*[c for _, c in elim])
    C = ca.vertcat(*coords)
    D = ca.vertcat(*[der(c) for c in coords])
    A = ca.vertcat(*[der(der(c)) for c in coords])
    De = ca.vertcat(*[der(c) for _, c in elim])
    L = pot(sum(T, ca.SX(0)) - sum(V, ca.SX(0)))
    R = lagrange_residual(L, ce, De, ca.vertcat(C, D, time_ph), ca.vertcat(D, A, ca.SX(1)))
    if vw:
        f = ca.vertcat(*[fi for fi, _ in vw])
        s = pot(ca.vertcat(*[si for _, si in vw]))
        R = R + ca.mtimes(ca.jacobian(s, ce).T, f)          # Q_e = -(ds/dq_e)^T f
    for Q, c in gforces:
        for k, (_, ce_k) in enumerate(elim):
            if c.element_hash() == ce_k.element_hash():
                R[k] -= Q
    for phi, lam in kept:
        R = R - ca.mtimes(ca.jacobian(pot(phi), ce).T, lam)
    G = ca.jacobian(pot(ca.vertcat(*[phi for phi, _ in elim])), ce)    # [k, e]
    return ca.solve(G.T, R)
