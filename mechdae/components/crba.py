"""Kinetic energy of a planar tree of frames in composite-rigid-body form (tree fast path).

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
  world-resolved unit axis ``a``), ``[phi'; x' + w y; y' - w x]`` (Free: world-axis
  offsets ``(x, y)`` from ``frame_a``, whose angular velocity is ``w``).

Since the subtree's velocity is ``V_k + D_k``, the terms telescope to ``sum_b 1/2 V_b^T
I_b V_b``, the bodies' kinetic energy. The graph is linear in the number of links, so
``h`` stays small, and ``d2T/dq_j' dq_k'`` (``k`` beyond ``j``) comes out as
``S_j^T Ic_k S_k``: the moment of ``Ic_k S_k`` moved from ``o_k`` to ``o_j`` link by link
(four operations per link and entry).
"""
import casadi as ca

__all__ = ["kinetic_energy"]

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
    return b if a is None else [_B(_ADD, x, y) for x, y in zip(a, b)]


def kinetic_energy(order, kinds, node_of, offsets, axes, qs, bodies):
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

    Returns
    -------
    casadi.SX
        ``T``, a scalar.
    """
    comp = {}                            # id(node) -> [J, m, hx, hy] about its origin
    for node, *Ib in bodies:
        comp[id(node)] = _add(comp.get(id(node)), Ib)
    T = None
    zero = ca.SX(0)
    for node in reversed(order):         # leaves first: a subtree is complete here
        Ic = comp.get(id(node))
        c = node.pos.owner
        kind = kinds[id(c)]
        if Ic is None or kind in ("world", "fixed"):
            continue
        a = node_of[id(c.frame_a)]
        d = offsets.get(id(c))
        if kind == "free":
            (x, xd, _), (y, yd, _), (_, pd, _) = qs[id(c)]
            d = (x, y, x * x + y * y)
        Tk = None
        if kind == "revolute":
            Tk = _revolute(Ic, a.w, a.vx, a.vy, qs[id(c)][0][1])
        elif kind in ("prismatic", "free"):
            # the parent's velocity at o_k, and what the joint adds to it
            vx, vy = a.vx - a.w * d[1], a.vy + a.w * d[0]
            if kind == "prismatic":
                qd = qs[id(c)][0][1]
                D = [zero, axes[id(c)][0] * qd, axes[id(c)][1] * qd]
            else:
                D = [pd, xd + a.w * d[1], yd - a.w * d[0]]
            Tk = _joint().call(Ic + [a.w, vx, vy] + D)[0]
        if Tk is not None:
            T = Tk if T is None else _B(_ADD, T, Tk)
        if d is not None:
            Ic = _shift(Ic, *d)
        comp[id(a)] = _add(comp.get(id(a)), Ic)
    return zero if T is None else T
