"""Numerical singularity of the general equations: the blocks that cannot be solved, named.

After index reduction (:mod:`mechdae.symbolic.reduction`) the general equations are solved
at each instant as

    J(q, u, v, t, p, w) x + F0(q, u, v, t, p, w) = 0,     x = (hd, z),

for the highest derivatives ``hd`` and the algebraic variables ``z``.  The structural
analysis (:func:`mechdae.symbolic.dae.pantelides`) guarantees a perfect matching of the
rows of ``J`` to ``x``, i.e. that ``J`` is nonsingular for *some* values of its nonzero
entries -- not for the values the equations give them.  ``a + b = x`` and ``a + b = x +
1`` match ``a`` and ``b`` one to one, yet ``J`` has the rows ``(1, 1)`` twice: the two
equations conflict and ``a, b`` are not determined.

The block triangular form of ``J``'s sparsity (the fine Dulmage-Mendelsohn decomposition:
square diagonal blocks, solved one after the other) splits the question: ``J`` is
nonsingular exactly when every diagonal block is.  The *generic* rank of a block is its
rank at random values of the states, parameters, time and inputs (its entries are
analytic functions of them, so a block regular somewhere is regular almost everywhere):

* rank deficient at every random point: identically singular -- a ``ModelError`` at
  compile (:func:`check_generic`), naming the block's equations and unknowns, whether
  they conflict (``J x + F0 = 0`` has no solution: a combination of the rows leaves a
  residual) or are dependent (a redundant equation: some unknowns determined by nothing),
  and for flattened components the connectors and components they come from;
* regular at random points but singular at a run's initial state: an initialization error
  at simulate naming the same things (:func:`check_at`).
"""
import numpy as np

__all__ = ["jacobian_blocks", "check_generic", "check_at", "origin_note"]

_RTOL = 1e-10          # a singular value below _RTOL * the largest one (equilibrated) is 0
_DENSE_MAX = 600       # the global null space / consistency only up to this many unknowns


def jacobian_blocks(sp):
    """Diagonal blocks of the block triangular form of a square sparsity ``sp``.

    Returns
    -------
    list of (list of int, list of int)
        Rows and columns of each block.
    """
    nb, rowperm, colperm, rowblock, colblock, _, _ = sp.btf()
    return [(list(rowperm[rowblock[b]:rowblock[b + 1]]),
             list(colperm[colblock[b]:colblock[b + 1]])) for b in range(nb)]


def _equilibrate(A):
    """Rows and columns scaled to unit max-norm (two sweeps): ranks of badly scaled blocks
    (``C = 1e-6`` next to ``R = 1e3``) are read on comparable singular values."""
    A = np.array(A, dtype=float)
    for _ in range(2):
        r = np.max(np.abs(A), axis=1, keepdims=True)
        A = A / np.where(r > 0, r, 1.0)
        c = np.max(np.abs(A), axis=0, keepdims=True)
        A = A / np.where(c > 0, c, 1.0)
    return A


def _rank(A):
    """Numerical rank of ``A`` after equilibration."""
    if A.size == 0:
        return 0
    s = np.linalg.svd(_equilibrate(A), compute_uv=False)
    return int(np.sum(s > _RTOL * max(s[0], np.finfo(float).tiny))) if s[0] > 0 else 0


def _singular(J, blocks):
    """Indices of the blocks of ``J`` (scipy sparse) that are rank deficient, with their
    ranks (blocks above ``_DENSE_MAX`` unknowns are not measured)."""
    bad = {}
    dense = isinstance(J, np.ndarray)
    if not dense:
        J = J.tocsr()
    for b, (rows, cols) in enumerate(blocks):
        if len(cols) > _DENSE_MAX:
            continue
        if len(rows) == 1 and len(cols) == 1:
            if J[rows[0], cols[0]] == 0.0:
                bad[b] = 0
            continue
        A = J[np.ix_(rows, cols)] if dense else J[rows][:, cols].toarray()
        r = _rank(A)
        if r < min(len(rows), len(cols)) or len(rows) != len(cols):
            bad[b] = r
    return bad


def _samples(system, rng, n):
    """``n`` random points ``(q, u, v, t, p, w)`` around the declared defaults."""
    out = []
    for _ in range(n):
        q = system.q_defaults + rng.normal(0.0, 0.7, system.nq)
        u = rng.normal(0.0, 0.7, system.nu)
        v = system.v_defaults + rng.normal(0.0, 0.7, system.nv)
        p = np.array(system.p_defaults, dtype=float)
        p = np.where(p != 0.0, p * rng.uniform(0.7, 1.3, p.size), rng.uniform(0.2, 0.9, p.size))
        w = rng.normal(0.0, 0.7, len(system.w_names))
        out.append((q, u, v, float(rng.uniform(0.1, 1.0)), p, w))
    return out


def _evaluate(system, point):
    """``(J, F0)`` at a point: ``J`` as a scipy sparse matrix, ``F0`` dense."""
    import scipy.sparse as sps
    J, F0 = system.functions["extras"](*point)
    colind, row = J.sparsity().get_ccs()
    Js = sps.csc_matrix((np.array(J.nonzeros(), dtype=float), row, colind), shape=J.shape)
    return Js, np.array(F0, dtype=float).ravel()


def _describe(system, blocks, bad, J, F0, where, generic=True):
    """One sentence per singular block: its equations, unknowns, rank and why it fails."""
    eqs, unk = system.general_equations, list(system.hd_names) + list(system.z_names)
    J = J.toarray() if hasattr(J, "toarray") else J
    c = system.dae.c if system.dae is not None else [0] * len(eqs)
    n = J.shape[1]
    res = null = None
    if n <= _DENSE_MAX:
        Je = _equilibrate(J)
        rs = np.max(np.abs(J), axis=1)
        rs = np.where(rs > 0, rs, 1.0)
        x = np.linalg.lstsq(J, -F0, rcond=None)[0]
        res = np.abs(J @ x + F0) / (rs * (1.0 + np.abs(x).max(initial=0.0)))
        _, s, Vt = np.linalg.svd(Je)
        k = int(np.sum(s > _RTOL * max(s[0], np.finfo(float).tiny))) if s.size else 0
        null = Vt[k:]
    out = []
    for b, r in bad.items():
        rows, cols = blocks[b]
        diffed = [i for i in rows if c[i]]
        eq_txt = ", ".join(repr(eqs[i]) for i in rows)
        un_txt = ", ".join(repr(unk[j]) for j in cols)
        msg = (f"equation{'s' if len(rows) > 1 else ''} {eq_txt} cannot be solved for the "
               f"unknown{'s' if len(cols) > 1 else ''} {un_txt}: the Jacobian in "
               f"{'them' if len(cols) > 1 else 'it'} has rank {r} of {len(cols)} {where}")
        if diffed:
            msg += (" (after index reduction: "
                    + ", ".join(f"'{eqs[i]}' differentiated {c[i]} time(s)" for i in diffed)
                    + ")")
        if res is not None and np.max(res[rows]) > 1e-8:
            msg += ("; they conflict: no values of these unknowns satisfy them all (a "
                    "combination of the equations leaves a nonzero residual)"
                    + (", so the model has no solution; correct or remove the conflicting "
                       "equation" if generic else " there"))
        else:
            free = []
            if null is not None and len(null):
                wgt = np.max(np.abs(null), axis=0)
                free = [unk[j] for j in np.flatnonzero(wgt > 1e-6)]
            msg += (f"; they are dependent (one is a consequence of the others), so "
                    f"{len(cols) - r} unknown(s) are determined by nothing"
                    + (f" (the undetermined direction involves {', '.join(map(repr, free))})"
                       if free else "")
                    + ("; remove the redundant equation and add one that determines them"
                       if generic else " there"))
        names = [eqs[i] for i in rows] + [unk[j] for j in cols]
        out.append(msg + origin_note(system.parent, names))
    return out


def origin_note(model, names):
    """Where flattened names come from (connectors, components), as a sentence; ``""`` for
    hand-written equations.  ``model._origin`` is filled by the flattening."""
    origin = getattr(model, "_origin", None) or {}
    seen, notes = set(), []
    for n in names:
        key = n
        for pre in ("der(",):
            while key.startswith(pre) and key.endswith(")"):
                key = key[len(pre):-1]
        key = key.split("[")[0]
        note = origin.get(key)
        if note and note not in seen:
            seen.add(note)
            notes.append(note)
    return (". From the components: " + "; ".join(notes)) if notes else ""


def check_generic(system, n_samples=3, seed=20231):
    """Problems (list of str) for the diagonal blocks of ``J`` singular at every random point.

    Points where ``J`` or ``F0`` is not finite (a ``sqrt`` of a negative value) are drawn
    again; with fewer than two finite points nothing is claimed.  Stores the blocks on the
    System (``_gen_blocks``) for :func:`check_at`.
    """
    n = system.nhd + system.nz
    if not n:
        system._gen_blocks = []
        return []
    blocks = jacobian_blocks(system.functions["extras"].sparsity_out(0))
    system._gen_blocks = blocks
    rng = np.random.default_rng(seed)
    got, bad = [], None
    for point in _samples(system, rng, 4 * n_samples):
        J, F0 = _evaluate(system, point)
        if not (np.all(np.isfinite(J.data)) and np.all(np.isfinite(F0))):
            continue
        b = _singular(J, blocks)
        bad = b if bad is None else {k: min(r, b[k]) for k, r in bad.items() if k in b}
        got.append((J, F0))
        if not bad or len(got) >= n_samples:
            break
    if len(got) < 2 or not bad:
        return []
    J, F0 = got[0]
    return _describe(system, blocks, bad, J, F0,
                     f"at every state and parameter value tried ({len(got)} random points: "
                     "singular identically, not by a coincidence of values)")


def check_at(system, q, u, v, t, pv):
    """Raise ``ValueError`` when a diagonal block of ``J`` is singular at this state.

    Called at initialization (inputs at zero when ``J`` does not depend on them; skipped
    otherwise).  The message names the equations and unknowns as :func:`check_generic`.
    """
    blocks = getattr(system, "_gen_blocks", None)
    if not blocks or system.nhd + system.nz > _DENSE_MAX:
        return
    from ..codegen import once, point_call
    f = system.functions["extras"]
    # which inputs J depends on: on an input, not checked (no value at initialization);
    # on the parameters only, checked once per parameter vector
    dep = once(system._integrators, "gen-J-dependence",
               lambda: [bool(f.sparsity_jac(k, 0).nnz()) for k in range(6)])
    if dep[5]:
        return
    key = None
    if not any(dep[k] for k in (0, 1, 2, 3)):
        seen = once(system._integrators, "gen-J-checked", dict)
        key = np.ascontiguousarray(pv, dtype=float).tobytes()
        if key in seen:
            return
    w = np.zeros(len(system.w_names))
    J, F0 = point_call(f, [q, u, v, t, pv, w])
    J, F0 = np.asarray(J), np.ravel(F0)
    if not (np.all(np.isfinite(J)) and np.all(np.isfinite(F0))):
        bad_rows = [system.general_equations[i] for i in range(J.shape[0])
                    if not (np.all(np.isfinite(J[i])) and np.isfinite(F0[i]))]
        raise ValueError(f"{system.name}: initialization: the general equations "
                         f"{', '.join(map(repr, bad_rows[:6]))} are not finite at the initial "
                         "state; check q0 and the parameters")
    bad = _singular(J, blocks)
    if not bad:
        if key is not None:
            from .._threads import LOCK
            with LOCK:
                if len(seen) < 64:
                    seen[key] = True
        return
    P = _describe(system, blocks, bad, J, F0,
                  "at the initial state and parameter values (t = %g), though regular at "
                  "others" % t,
                  generic=False)
    raise ValueError(f"{system.name}: initialization: the general equations cannot be solved "
                     "at the initial state: " + " | ".join(P) + ". Start from another state "
                     "(q0, v0) or other parameter values")
