"""Kinetic energy of a tree of frames in composite-rigid-body form (tree fast path).

The tree fast path (:mod:`.tree`) writes one kinetic energy ``T(q, q')`` from which
``compile()`` derives the mass matrix ``M = d2T/dq'2`` and the velocity terms of ``h`` by
automatic differentiation. Summing ``m/2 |v_cm|^2 + I/2 w^2`` over the bodies gives the
right value but a large ``M`` graph (the derivatives run through every link's velocity
recursion). This module writes the same ``T`` as the composite-rigid-body algorithm
(Featherstone, *Rigid Body Dynamics Algorithms*, 2008, ch. 6) would assemble
``1/2 q'^T M q'``, one term per joint:

    T = sum_k  D_k^T  Ic_k  (V_k + D_k / 2)

with, at the origin ``o_k`` of the joint's ``frame_b`` (planar spatial vectors
``[w; vx; vy]``, world axes):

- ``Ic_k``: the inertia of everything beyond the joint (its subtree) about ``o_k``,
  ``[[J, -hy, hx], [-hy, m, 0], [hx, 0, m]]`` with ``m`` the mass, ``h = sum m_b (p_b -
  o_k)`` the first moment and ``J = sum I_b + m_b |p_b - o_k|^2``; four numbers, added from
  the leaves, moved across a rigid offset ``d`` as ``J + 2 d.h + m |d|^2``, ``h + m d``
  (relative offsets only: no absolute positions, so no cancellation far from the origin);
- ``V_k``: the velocity of the parent (``frame_a``'s body) at ``o_k``;
- ``D_k``: what the joint adds, ``[q'; 0; 0]`` (Revolute), ``[0; a q']`` (Prismatic,
  world-resolved unit axis ``a``), ``[phi'; x'; y']`` (Free: its ``(x, y)`` are world-axis
  offsets from ``frame_a``, which turning the parent does not carry along; so ``V_k`` is
  the parent's ``[w; vx; vy]`` at ``frame_a``'s origin taken at ``o_k``, and the subtree's
  inertia passes to ``frame_a`` unmoved).

Since the subtree's velocity is ``V_k + D_k``, the terms telescope to ``sum_b 1/2 V_b^T
I_b V_b``, the bodies' kinetic energy. The graph is linear in the number of links, so
``h`` stays small, and ``d2T/dq_j' dq_k'`` (``k`` beyond ``j``) comes out as
``S_j^T Ic_k S_k``: the moment of ``Ic_k S_k`` moved from ``o_k`` to ``o_j`` link by link
(four operations per link and entry).

The spatial library (:func:`kinetic_energy_spatial`) does the same with 3-D vectors: ten
numbers per composite inertia, ``D = (Dw, Dv)`` from the joint's axis (Revolute,
Prismatic), its relative angular velocity from the quaternion's rates (Spherical), and
its translation rates (FreeMotion).
"""
import casadi as ca

__all__ = ["kinetic_energy", "mass_matrix", "bias_forces", "kinetic_energy_spatial",
           "mass_matrix_spatial", "bias_forces_spatial", "body_inertia_spatial"]

_B = ca.SX.binary
_ADD, _SUB, _MUL = ca.OP_ADD, ca.OP_SUB, ca.OP_MUL
_FN = {}


def _joint():
    """``D^T Ic (V + D/2)`` for a joint that adds ``D`` to the parent's velocity ``V``
    (both at ``o_k``; Prismatic, Free)."""
    f = _FN.get("joint")
    if f is None:
        J, m, hx, hy, w, vx, vy, d0, d1, d2 = args = \
            [ca.SX.sym(n) for n in "J m hx hy w vx vy d0 d1 d2".split()]
        W0, W1, W2 = w + 0.5 * d0, vx + 0.5 * d1, vy + 0.5 * d2
        out = d0 * (J * W0 - hy * W1 + hx * W2) + d1 * (m * W1 - hy * W0) \
            + d2 * (m * W2 + hx * W0)
        f = _FN["joint"] = ca.Function("crba_joint", args, [out])
    return f


def _revolute(Ic, w, vx, vy, qd):
    """``D^T Ic (V + D/2)`` with ``D = [q'; 0; 0]``: ``q' (J (w + q'/2) - hy vx + hx vy)``
    (written with SX.binary: a Python operator on SX costs ~45 us, a binary ~6 us)."""
    J, _, hx, hy = Ic
    e = _B(_SUB, _B(_MUL, hx, vy), _B(_MUL, hy, vx))
    e = _B(_ADD, _B(_MUL, J, _B(_ADD, w, _B(_MUL, ca.SX(0.5), qd))), e)
    return _B(_MUL, qd, e)


def _shift(Ic, dx, dy, dd):
    """A composite inertia ``(J, m, hx, hy)`` about ``o`` moved to ``o - d``:
    ``J + 2 d.h + m |d|^2`` (``dd = |d|^2``, from the parameters where it can: the fewer
    operations depend on ``q``, the smaller ``h``), ``h + m d``."""
    J, m, hx, hy = Ic
    mdx, mdy = _B(_MUL, m, dx), _B(_MUL, m, dy)
    t = _B(_ADD, _B(_MUL, dx, hx), _B(_MUL, dy, hy))
    t = _B(_ADD, _B(_ADD, t, t), _B(_MUL, m, dd))
    return [_B(_ADD, J, t), m, _B(_ADD, hx, mdx), _B(_ADD, hy, mdy)]


def _add(a, b):
    return [_B(_ADD, x, y) for x, y in zip(a, b)]


def _from_leaves(order, kinds, node_of, bodies, add, step):
    """The composite inertia of every node, leaves first: a node's bodies (``bodies``:
    ``(node, *inertia)``), plus what ``step(c, kind, a, Ic)`` returns for each component
    ``c`` positioning a node beyond it (its inertia moved to ``frame_a``'s node ``a``; the
    step adds the joint's term of T). Nodes with no mass beyond them are skipped."""
    comp = {}                            # id(node) -> composite inertia about its origin

    def put(node, Ic):
        old = comp.get(id(node))
        comp[id(node)] = Ic if old is None else add(old, Ic)

    for node, *Ib in bodies:
        put(node, Ib)
    for node in reversed(order):         # leaves first: a subtree is complete here
        Ic = comp.get(id(node))
        c = node.pos.owner
        kind = kinds[id(c)]
        if Ic is None or kind in ("world", "fixed"):
            continue
        a = node_of[id(c.frame_a)]
        put(a, step(c, kind, a, Ic))


def kinetic_energy(order, kinds, node_of, offsets, axes, qs, bodies, composite=None):
    """The kinetic energy of the planar tree in composite-rigid-body form (see the module
    docstring).

    Parameters
    ----------
    order : list of tree nodes, roots first (:func:`.tree._plan`), with their closed-form
        velocities ``w``, ``vx``, ``vy`` set.
    kinds : dict, component id -> kind ("revolute", "prismatic", "free", "rigid", ...)
    node_of : dict, connector id -> node
    offsets : dict, component id -> world-resolved ``(dx, dy)`` from frame_a to frame_b
        and ``|d|^2`` (rigid parts and prismatic joints)
    axes : dict, prismatic joint id -> its world-resolved unit axis ``(ex, ey)``
    qs : dict, component id -> ``[(q, q', q'')]`` of its coordinates
    bodies : list of ``(node, J, m, hx, hy)``: a body's frame_a node and its inertia about
        that node's origin (``I + m |o|^2``, ``m``, ``m o`` for the world-resolved offset
        ``o`` of its center of mass)
    composite : dict, optional
        Filled with joint id -> ``(joint, Ic_k)`` (for :func:`mass_matrix`).

    Returns
    -------
    casadi.SX
        ``T``, a scalar.
    """
    terms = []
    zero = ca.SX(0)

    def step(c, kind, a, Ic):            # Ic = [J, m, hx, hy]
        if composite is not None and kind in _JOINTS:
            composite[id(c)] = (c, Ic)
        d = offsets.get(id(c))
        if kind == "revolute":
            terms.append(_revolute(Ic, a.w, a.vx, a.vy, qs[id(c)][0][1]))
        elif kind == "prismatic":
            # the parent's velocity at o_k, and what the joint adds to it
            vx, vy = a.vx - a.w * d[1], a.vy + a.w * d[0]
            qd = qs[id(c)][0][1]
            D = [zero, axes[id(c)][0] * qd, axes[id(c)][1] * qd]
            terms.append(_joint().call(Ic + [a.w, vx, vy] + D)[0])
        elif kind == "free":
            # world-axis offsets: the subtree moves with [w_a; v_a] taken at o_k, plus
            # [phi'; x'; y'] (its inertia passes to frame_a unmoved, see _moved)
            (_, xd, _), (_, yd, _), (_, pd, _) = qs[id(c)]
            terms.append(_joint().call(Ic + [a.w, a.vx, a.vy, pd, xd, yd])[0])
            return Ic
        return Ic if d is None else _shift(Ic, *d)

    _from_leaves(order, kinds, node_of, bodies, _add, step)
    T = terms[0] if terms else zero
    for Tk in terms[1:]:
        T = _B(_ADD, T, Tk)
    return T


# --- planar mass matrix and velocity terms, handed to derive (Model._inertia) -------------
# Planar spatial forces ``[n; fx; fy]`` (moment about the node's origin, world axes). A
# joint's motion columns ``S`` at ``o_k``: Revolute ``[1; 0; 0]``, Prismatic ``[0; e]``, Free
# ``[0; 1; 0]``, ``[0; 0; 1]``, ``[1; 0; 0]`` (x, y, phi). A force moves from ``o_k`` to
# ``frame_a``'s origin as ``n + d x f`` across a rigid offset or a prismatic joint's
# ``d = e s``; unchanged across a Revolute (``d = 0``) and a Free joint, whose ``(x, y)``
# are world-axis offsets: turning the parent does not carry the child's origin along, so
# the parent's joints do work on the subtree beyond a Free joint through ``f`` at
# ``frame_a``'s origin and ``n`` alone.

_JOINTS = ("revolute", "prismatic", "free")


def _moved(c, kind, F, offsets):
    """The force ``F = [n, fx, fy]`` at component ``c``'s frame_b origin, at its frame_a
    origin."""
    d = offsets.get(id(c)) if kind not in ("revolute", "free") else None
    if d is None:
        return F
    n = _B(_ADD, F[0], _B(_SUB, _B(_MUL, d[0], F[2]), _B(_MUL, d[1], F[1])))
    return [n, F[1], F[2]]


def _projections(c, kind, F, axes):
    """``S^T F``: the generalized forces of joint ``c``'s coordinates (their order in
    ``qs``)."""
    if kind == "revolute":
        return [F[0]]
    if kind == "prismatic":
        ex, ey = axes[id(c)]
        return [_B(_ADD, _B(_MUL, ex, F[1]), _B(_MUL, ey, F[2]))]
    return [F[1], F[2], F[0]]            # free: x, y, phi


def _columns(c, kind, Ic, axes):
    """``Ic S``: the forces at ``o_k`` of unit rates of joint ``c``'s coordinates."""
    J, m, hx, hy = Ic
    zero = ca.SX(0)
    mhy = _B(_SUB, zero, hy)
    if kind == "revolute":
        return [[J, mhy, hx]]
    if kind == "prismatic":
        ex, ey = axes[id(c)]
        return [[_B(_SUB, _B(_MUL, hx, ey), _B(_MUL, hy, ex)), _B(_MUL, m, ex),
                 _B(_MUL, m, ey)]]
    return [[mhy, m, zero], [hx, zero, m], [J, mhy, hx]]


def mass_matrix(order, kinds, node_of, offsets, axes, composite, index, n):
    """The planar tree's mass matrix in the rates of its coordinates by the composite-rigid-
    body algorithm: ``M_jk = S_j^T X_jk Ic_k S_k`` for ``j`` ancestor-or-equal of ``k``
    (``X_jk`` moves a force from ``o_k`` to ``o_j``), symmetric; zero where neither joint is
    the other's ancestor (structurally: those entries are not stored). The forces ``Ic_k
    S_k`` of a subtree travel toward the root together, as one vector per component (a few
    CasADi calls per link, not per entry).

    Parameters
    ----------
    order, kinds, node_of, offsets, axes : as for :func:`kinetic_energy`
    composite : dict, joint id -> ``(joint, Ic_k)`` (filled by :func:`kinetic_energy`; a
        joint with no mass beyond it has none: its rows stay empty, which compile reports)
    index : dict, joint id -> the indices of its coordinates in the Model's
    n : the number of coordinates

    Returns
    -------
    casadi.SX
        ``M``, ``n x n``.
    """
    seeds = []                           # (frame_b node, [columns, [n, fx, fy]])
    for c, Ic in composite.values():
        kind = kinds[id(c)]
        F = _columns(c, kind, Ic, axes)
        seeds.append((node_of[id(c.frame_b)], list(index[id(c)]), F[0] if len(F) == 1 else
                      [ca.vertcat(*[f[r] for f in F]) for r in range(3)]))
    rows, cols, vals = [], [], []

    def step(c, kind, a, bundle):        # bundle = [columns, [n, fx, fy]], own ones first
        ks, F = bundle
        if kind in _JOINTS and id(c) in composite:
            own = len(index[id(c)])
            for j, e in zip(index[id(c)], _projections(c, kind, F, axes)):
                rows.extend([j] * len(ks))
                cols.extend(ks)
                vals.append(e)
                if len(ks) > own:        # the transposed entries beyond the joint
                    rows.extend(ks[own:])
                    cols.extend([j] * (len(ks) - own))
                    vals.append(e[own:])
        return [ks, _moved(c, kind, F, offsets)]

    _from_leaves(order, kinds, node_of, seeds, lambda a, b: [
        a[0] + b[0], [ca.vertcat(x, y) for x, y in zip(a[1], b[1])]], step)
    if not vals:
        return ca.SX(n, n)
    return ca.SX.triplet(rows, cols, ca.vertcat(*vals), n, n)


def bias_forces(order, kinds, node_of, offsets, axes, qs, bodies, index, n):
    """The kinetic-energy part of the generalized forces, ``c = dT/dq - d/dt(dT/dq') +
    M q''`` (minus the Coriolis and centrifugal terms), by Newton-Euler with ``q'' = 0``
    and no gravity: the origins' accelerations out from the roots (the angular
    accelerations are then zero in the plane: ``a_b = a_a - w^2 d`` across a rigid offset,
    ``+ 2 w s' e^perp`` at a prismatic joint, ``a_b = a_a`` at a Revolute or Free joint), each
    body's force ``m a - w^2 h`` and moment ``h x a`` about its frame_a origin (``h = m o``),
    then the forces back from the leaves, projected on each joint's columns.

    Parameters
    ----------
    order, kinds, node_of, offsets, axes, qs : as for :func:`kinetic_energy`
    bodies : as for :func:`kinetic_energy` (``J`` unused)
    index, n : as for :func:`mass_matrix`

    Returns
    -------
    casadi.SX
        ``c``, ``n x 1``.
    """
    zero = ca.SX(0)
    acc, w2 = {}, {}                     # id(node) -> origin's acceleration, w^2
    for node in order:
        c = node.pos.owner
        kind = kinds[id(c)]
        if kind in ("world", "fixed"):
            acc[id(node)] = (zero, zero)
            continue
        a = node_of[id(c.frame_a)]
        ax, ay = acc[id(a)]
        d = offsets.get(id(c))
        if kind in ("rigid", "bodyshape", "prismatic") and not a.w.is_zero():
            if id(a) not in w2:
                w2[id(a)] = _B(_MUL, a.w, a.w)
            ax = _B(_SUB, ax, _B(_MUL, w2[id(a)], d[0]))
            ay = _B(_SUB, ay, _B(_MUL, w2[id(a)], d[1]))
        if kind == "prismatic" and not a.w.is_zero():
            ex, ey = axes[id(c)]
            t = _B(_MUL, _B(_ADD, a.w, a.w), qs[id(c)][0][1])
            ax, ay = _B(_SUB, ax, _B(_MUL, t, ey)), _B(_ADD, ay, _B(_MUL, t, ex))
        acc[id(node)] = (ax, ay)
    forces = []
    for node, _, m, hx, hy in bodies:
        ax, ay = acc[id(node)]
        fx, fy = _B(_MUL, m, ax), _B(_MUL, m, ay)
        if not node.w.is_zero():
            if id(node) not in w2:
                w2[id(node)] = _B(_MUL, node.w, node.w)
            fx = _B(_SUB, fx, _B(_MUL, w2[id(node)], hx))
            fy = _B(_SUB, fy, _B(_MUL, w2[id(node)], hy))
        forces.append((node, _B(_SUB, _B(_MUL, hx, ay), _B(_MUL, hy, ax)), fx, fy))
    out = [zero] * n

    def step(c, kind, a, F):
        if kind in _JOINTS:
            for i, e in zip(index[id(c)], _projections(c, kind, F, axes)):
                out[i] = _B(_SUB, zero, e)
        return _moved(c, kind, F, offsets)

    _from_leaves(order, kinds, node_of, forces, _add, step)
    return ca.vertcat(*out) if n else ca.SX(0, 1)


# --- spatial: the same with 3-D vectors (world axes) --------------------------------------
# A composite inertia about a point o: (J, m, h), J the 3x3 rotational inertia about o
# (six numbers: xx yy zz xy xz yz), m the mass, h = sum m_b (p_b - o) its first moment; a
# velocity V = (w, v) with v the velocity of the point at o. Then
#     Ic V = (J w + h x v, m v - h x w)       (angular momentum about o, momentum)
# and the joint term D^T Ic (V + D/2) as in the plane.

def _sym6(J6):
    xx, yy, zz, xy, xz, yz = ca.vertsplit(J6)
    return ca.vertcat(ca.horzcat(xx, xy, xz), ca.horzcat(xy, yy, yz), ca.horzcat(xz, yz, zz))


def _six(J):
    return ca.vertcat(J[0, 0], J[1, 1], J[2, 2], J[0, 1], J[0, 2], J[1, 2])


def body_inertia_spatial(R, o, rr, m, J):
    """A body's ``(J6, h)`` about its frame_a origin, world axes: ``R J R^T + m (|r|^2 I -
    o o^T)``, ``m o`` (``o = R r`` the world-resolved offset of its center of mass, ``rr =
    |r|^2`` from the parameters; ``J`` in the body's axes). For use inside a Function."""
    A = ca.mtimes(ca.mtimes(R, J), R.T)
    return _six(A + m * (rr * ca.SX.eye(3) - ca.mtimes(o, o.T))), m * o


def _spatial(name):
    f = _FN.get(name)
    if f is not None:
        return f
    J6, m, h, d, dd = ca.SX.sym("J", 6), ca.SX.sym("m"), ca.SX.sym("h", 3), \
        ca.SX.sym("d", 3), ca.SX.sym("dd")
    if name == "shift3":                 # J + m (|d|^2 I - d d^T) + 2 (d.h) I - d h^T - h d^T
        dh = ca.mtimes(d, h.T)
        J = _sym6(J6) + (m * dd + 2 * ca.dot(d, h)) * ca.SX.eye(3) \
            - m * ca.mtimes(d, d.T) - dh - dh.T
        f = ca.Function("crba_shift3", [J6, m, h, d, dd], [_six(J), h + m * d])
    elif name == "joint3":
        w, v, Dw, Dv = (ca.SX.sym(n, 3) for n in ("w", "v", "Dw", "Dv"))
        Ww, Wv = w + 0.5 * Dw, v + 0.5 * Dv
        T = ca.dot(Dw, ca.mtimes(_sym6(J6), Ww) + ca.cross(h, Wv)) \
            + ca.dot(Dv, m * Wv - ca.cross(h, Ww))
        f = ca.Function("crba_joint3", [J6, m, h, w, v, Dw, Dv], [T])
    else:                                # "add3"
        J2, m2, h2 = ca.SX.sym("J2", 6), ca.SX.sym("m2"), ca.SX.sym("h2", 3)
        f = ca.Function("crba_add3", [J6, m, h, J2, m2, h2], [J6 + J2, m + m2, h + h2])
    _FN[name] = f
    return f


def kinetic_energy_spatial(order, kinds, node_of, offsets, jumps, bodies, composite=None):
    """The kinetic energy of a spatial tree in composite-rigid-body form (world axes).

    Parameters
    ----------
    order : list of tree nodes, roots first, with their states ``st = [r, R, v, w, a, al]``
    kinds, node_of : as for :func:`kinetic_energy`
    offsets : dict, component id -> ``(d, |d|^2)``: world-resolved offset of frame_b from
        frame_a (rigid parts, prismatic joints, FreeMotion's translation)
    jumps : dict, joint id -> ``(Dw, Dv)``: what the joint adds to the parent's angular
        velocity and to the velocity of the parent's point at frame_b's origin
    bodies : list of ``(node, J6, m, h)``: a body's frame_a node and its inertia about that
        node's origin (see :func:`body_inertia_spatial`)
    composite : dict, optional
        Filled with joint id -> ``(joint, Ic_k)`` (for :func:`mass_matrix_spatial`).

    Returns
    -------
    casadi.SX
        ``T``, a scalar.
    """
    terms = []

    def step(c, kind, a, Ic):            # Ic = [J6, m, h]
        off = offsets.get(id(c))
        jump = jumps.get(id(c))
        if jump is not None:
            if composite is not None:
                composite[id(c)] = (c, Ic)
            w, v = a.st[3], a.st[2]
            if off is not None:
                v = v + ca.cross(w, off[0])
            terms.append(_spatial("joint3").call(Ic + [w, v, *jump])[0])
        if off is None:
            return Ic
        J6, h = _spatial("shift3").call(Ic + list(off))
        return [J6, Ic[1], h]

    _from_leaves(order, kinds, node_of, bodies, lambda a, b: _spatial("add3").call(a + b),
                 step)
    return sum(terms[1:], terms[0]) if terms else ca.SX(0)


# --- spatial mass matrix and velocity terms in the speeds, handed to derive ---------------
# A joint's motion columns at its frame_b origin o_k, world axes, one per speed it adds:
# ``(Sw, Sv)`` with ``D = sum S u`` the joint's jump (Revolute ``(R_a n, 0)``, Prismatic
# ``(0, R_a n)``, Spherical and FreeMotion's rotation ``(R_b e_i, 0)`` for the speeds in
# frame_b axes, FreeMotion's translation ``(0, R_a e_i)``). A force ``(n, f)`` (moment
# about the point, world axes) moves from o_k to frame_a's origin across the offset ``d``
# as ``(n + d x f, f)``.

def _ic_columns(Ic, Sw, Sv):
    """``Ic S`` for the columns ``Sw``, ``Sv`` (3 x K each): ``(J Sw + h x Sv, m Sv - h x
    Sw)``."""
    J6, m, h = Ic
    H = ca.skew(h)
    return ca.mtimes(_sym6(J6), Sw) + ca.mtimes(H, Sv), m * Sv - ca.mtimes(H, Sw)


def _move_across(c, F, offsets):
    """Forces ``F = (n, f)`` (3 x K) at component ``c``'s frame_b origin, at its frame_a
    origin."""
    off = offsets.get(id(c))
    if off is None:
        return F
    return F[0] + ca.mtimes(ca.skew(off[0]), F[1]), F[1]


def mass_matrix_spatial(order, kinds, node_of, offsets, composite, columns, n):
    """The spatial tree's mass matrix in its speeds by the composite-rigid-body algorithm,
    ``M_jk = S_j^T X_jk Ic_k S_k`` (as :func:`mass_matrix`, with 3-D forces).

    Parameters
    ----------
    order, kinds, node_of, offsets : as for :func:`kinetic_energy_spatial`
    composite : dict, joint id -> ``(joint, Ic_k)`` (filled by
        :func:`kinetic_energy_spatial`: the inertia beyond the joint about its frame_b
        origin)
    columns : dict, joint id -> ``(speed indices, Sw, Sv)`` (3 x K each)
    n : the number of speeds

    Returns
    -------
    casadi.SX
        ``M``, ``n x n``.
    """
    seeds = []                           # (frame_b node, [speed indices, (n, f)])
    for c, Ic in composite.values():
        ks, Sw, Sv = columns[id(c)]
        seeds.append((node_of[id(c.frame_b)], list(ks), _ic_columns(Ic, Sw, Sv)))
    rows, cols, vals = [], [], []

    def step(c, kind, a, bundle):        # bundle = [speed indices, (n, f)], own ones first
        ks, F = bundle
        own = columns.get(id(c)) if id(c) in composite else None
        if own is not None:
            js, Sw, Sv = own
            E = ca.mtimes(Sw.T, F[0]) + ca.mtimes(Sv.T, F[1])    # len(js) x len(ks)
            k0 = len(js)
            for r, j in enumerate(js):
                rows.extend([j] * len(ks))
                cols.extend(ks)
                vals.append(E[r, :].T)
                if len(ks) > k0:         # the transposed entries beyond the joint
                    rows.extend(ks[k0:])
                    cols.extend([j] * (len(ks) - k0))
                    vals.append(E[r, k0:].T)
        return [ks, _move_across(c, F, offsets)]

    _from_leaves(order, kinds, node_of, seeds, lambda a, b: [
        a[0] + b[0], (ca.horzcat(a[1][0], b[1][0]), ca.horzcat(a[1][1], b[1][1]))], step)
    if not vals:
        return ca.SX(n, n)
    return ca.SX.triplet(rows, cols, ca.vertcat(*vals), n, n)


def bias_forces_spatial(order, kinds, node_of, offsets, wrenches, columns, n):
    """The velocity terms of the generalized forces in the speeds, ``c = -S^T (the
    Newton-Euler forces with u' = 0 and no gravity)``, from the bodies' wrenches
    ``wrenches``: ``[(frame_a node, moment about its origin, force)]`` (world axes), moved
    toward the root and projected on each joint's columns.

    Returns
    -------
    casadi.SX
        ``c``, ``n x 1``.
    """
    zero = ca.SX(0)
    out = [zero] * n

    def step(c, kind, a, F):
        own = columns.get(id(c))
        if own is not None:
            js, Sw, Sv = own
            e = ca.mtimes(Sw.T, F[0]) + ca.mtimes(Sv.T, F[1])
            for r, j in enumerate(js):
                out[j] = -e[r]
        return _move_across(c, F, offsets)

    _from_leaves(order, kinds, node_of, wrenches,
                 lambda a, b: (a[0] + b[0], a[1] + b[1]), step)
    return ca.vertcat(*out) if n else ca.SX(0, 1)
