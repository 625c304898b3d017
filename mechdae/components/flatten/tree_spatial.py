"""Tree fast path, spatial library: a tree of :mod:`.spatial` frames in closed form.

The same procedure as the planar one (:mod:`.tree`) for :class:`~.spatial.World`,
``Fixed``, ``FixedTranslation``, ``FixedRotation``, ``Body``, ``BodyShape`` (``BodyBox``,
``BodyCylinder``), ``Revolute``, ``Prismatic``, ``Spherical`` and ``FreeMotion``
(quaternion coordinates with declared speeds; ``Universal`` and ``Cylindrical`` take the
generic path): each frame's origin ``r``, rotation ``R`` (frame -> world), velocity,
angular velocity ``w`` and their rates (world axes) from the root (``R_b = R_a R_rel(n,
q)``, ``w_b = w_a + R_a n q'`` at a revolute); each body's weight, and the kinetic energy in
composite-rigid-body form (:func:`.crba.kinetic_energy_spatial`: the value of ``sum m/2
|v_cm|^2 + 1/2 w_a^T I w_a``, ``w_a = R_a^T w``); the cut force and torque of every frame by
Newton-Euler from the leaves (a body: ``F = m (a_cm - g)``, ``t = R_a (I w_a' + w_a x I
w_a) + (c - r_a) x F`` about frame_a's origin; across a component ``F_a = -F_b``, ``t_a =
-t_b - (r_b - r_a) x F_b``), offered resolved in the
frame (``f[i]``, ``t[i]``) as the generic path offers them. Force elements, sources,
contacts and sensors on its frames, and 1-D elements on the joints' drive flanges, are
attached as in the planar path (:mod:`._tree_attached`); their generalized flows
``(Fr, FR)`` act at their node as the force ``Fr`` and the torque ``vee2(FR R^T)``.
"""
import casadi as ca

from .tree_attached import attached
from .crba import (bias_forces_spatial, body_inertia_spatial, kinetic_energy_spatial,
                   mass_matrix_spatial)
from .tree import _function as _cached, flange_flows, newton_euler

__all__ = ["flatten_spatial"]


def _function(name):
    return _cached("spatial " + name, _MAKERS)


def _frame_syms():
    r, v, w, a, al = (ca.SX.sym(n, 3) for n in ("r", "v", "w", "a", "al"))
    return r, ca.SX.sym("R", 3, 3), v, w, a, al


def _rotation(n, q):
    """Rodrigues' rotation by ``q`` about the unit axis ``n`` (as spatial.axis_rotation),
    written ``cos q (I - n n^T) + sin q [n]x + n n^T``: with ``n`` a constant along an axis
    the zero and unit coefficients fold away (``[[c, -s, 0], [s, c, 0], [0, 0, 1]]``)."""
    nn = ca.mtimes(n, n.T)
    K = ca.vertcat(ca.horzcat(0, -n[2], n[1]), ca.horzcat(n[2], 0, -n[0]),
                   ca.horzcat(-n[1], n[0], 0))
    return ca.cos(q) * (ca.SX.eye(3) - nn) + ca.sin(q) * K + nn


def _make_move():
    """frame_b = frame_a displaced by ``rr`` (frame_a axes), rotated by ``Rrel``."""
    r, R, v, w, a, al = _frame_syms()
    rr, Rrel = ca.SX.sym("rr", 3), ca.SX.sym("Rrel", 3, 3)
    d = ca.mtimes(R, rr)
    wd = ca.cross(w, d)
    out = [r + d, ca.mtimes(R, Rrel), v + wd, a + ca.cross(al, d) + ca.cross(w, wd), d]
    return ca.Function("tree_move", [r, R, v, w, a, al, rr, Rrel], out)


def _make_revolute():
    R, w, al = ca.SX.sym("R", 3, 3), ca.SX.sym("w", 3), ca.SX.sym("al", 3)
    n, q, qd, qdd = ca.SX.sym("n", 3), ca.SX.sym("q"), ca.SX.sym("qd"), ca.SX.sym("qdd")
    e = ca.mtimes(R, n)
    out = [ca.mtimes(R, _rotation(n, q)), w + e * qd, al + e * qdd + ca.cross(w, e * qd),
           e * qd]
    return ca.Function("tree_revolute", [R, w, al, n, q, qd, qdd], out)


def _make_prismatic():
    r, R, v, w, a, al = _frame_syms()
    n, q, qd, qdd = ca.SX.sym("n", 3), ca.SX.sym("q"), ca.SX.sym("qd"), ca.SX.sym("qdd")
    e = ca.mtimes(R, n)
    d = e * q
    wd = ca.cross(w, d)
    out = [r + d, v + wd + e * qd,
           a + ca.cross(al, d) + ca.cross(w, wd) + 2 * ca.cross(w, e * qd) + e * qdd, d,
           e * qd]
    return ca.Function("tree_prismatic3", [r, R, v, w, a, al, n, q, qd, qdd], out)


def _make_body():
    r, R, v, w, a, al = _frame_syms()
    rcm, m, J, g = ca.SX.sym("rcm", 3), ca.SX.sym("m"), ca.SX.sym("J", 3, 3), ca.SX.sym("g", 3)
    o = ca.mtimes(R, rcm)
    c = r + o
    wo = ca.cross(w, o)
    vcm = v + wo
    acm = a + ca.cross(al, o) + ca.cross(w, wo)
    wa = ca.mtimes(R.T, w)
    Jw = ca.mtimes(J, wa)
    V = -m * ca.dot(g, c)
    F = m * (acm - g)
    tq = ca.mtimes(R, ca.mtimes(J, ca.mtimes(R.T, al)) + ca.cross(wa, Jw)) + ca.cross(o, F)
    J6, h = body_inertia_spatial(R, o, ca.dot(rcm, rcm), m, J)    # for the kinetic energy
    return ca.Function("tree_body3", [r, R, v, w, a, al, rcm, m, J, g],
                       [J6, h, V, c, vcm, wa, F, tq])


def _make_resolve():
    """The frame's cut force and torque resolved in the frame, and its potentials as
    scalars in the connector's order (r[1..3], R row by row)."""
    r, R = ca.SX.sym("r", 3), ca.SX.sym("R", 3, 3)
    F, tq = ca.SX.sym("F", 3), ca.SX.sym("t", 3)
    outs = [r[k] for k in range(3)] + [R[i, j] for i in range(3) for j in range(3)]
    f, t = ca.mtimes(R.T, F), ca.mtimes(R.T, tq)
    outs += [f[k] for k in range(3)] + [t[k] for k in range(3)]
    return ca.Function("tree_resolve", [r, R, F, tq], outs)


def _make_spherical():
    """Rotation by the quaternion ``q`` (normalized, as spatial.quaternion_rotation): the
    angular velocity from the coordinates' rates (``2 vec(q* (x) q') / |q|^2`` in frame_b,
    for the energies, as the generic path's ``R^T R'``), the angular acceleration from the
    speeds ``u`` (frame_b) and their rates (outputs)."""
    R, w, al = ca.SX.sym("R", 3, 3), ca.SX.sym("w", 3), ca.SX.sym("al", 3)
    q, qd, u, ud = ca.SX.sym("q", 4), ca.SX.sym("qd", 4), ca.SX.sym("u", 3), ca.SX.sym("ud", 3)
    s2 = ca.dot(q, q)
    K = ca.skew(q[1:])
    Rb = ca.mtimes(R, ca.SX.eye(3) + (2.0 / s2) * (q[0] * K + ca.mtimes(K, K)))
    w_rel = 2 * (q[0] * qd[1:] - qd[0] * q[1:] - ca.cross(q[1:], qd[1:])) / s2
    dw = ca.mtimes(Rb, w_rel)
    wb = w + dw
    alb = al + ca.mtimes(Rb, ud) + ca.cross(wb, ca.mtimes(Rb, u))
    return ca.Function("tree_spherical", [R, w, al, q, qd, u, ud], [Rb, wb, alb, dw])


def _make_translate():
    """frame_b displaced by the coordinates ``x`` (frame_a axes), same axes."""
    r, R, v, w, a, al = _frame_syms()
    x, xd, xdd = ca.SX.sym("x", 3), ca.SX.sym("xd", 3), ca.SX.sym("xdd", 3)
    d, e = ca.mtimes(R, x), ca.mtimes(R, xd)
    wd = ca.cross(w, d)
    out = [r + d, v + wd + e,
           a + ca.cross(al, d) + ca.cross(w, wd) + 2 * ca.cross(w, e) + ca.mtimes(R, xdd), d,
           ca.dot(x, x), e]
    return ca.Function("tree_translate", [r, R, v, w, a, al, x, xd, xdd], out)


def _make_values():
    """A frame's potentials (r, R row by row) and their rates (v, [w]x R)."""
    r, R, v, w = ca.SX.sym("r", 3), ca.SX.sym("R", 3, 3), ca.SX.sym("v", 3), ca.SX.sym("w", 3)
    Rd = ca.mtimes(ca.skew(w), R)
    outs = [r[k] for k in range(3)] + [R[i, j] for i in range(3) for j in range(3)]
    outs += [v[k] for k in range(3)] + [Rd[i, j] for i in range(3) for j in range(3)]
    return ca.Function("tree_values", [r, R, v, w], outs)


def _make_wrench():
    """Force and torque (world axes) of generalized flows ``(Fr, FR)``: ``t = vee2(FR R^T)``
    (spatial.Frame.derived_outputs)."""
    g, R = ca.SX.sym("g", 12), ca.SX.sym("R", 3, 3)
    A = ca.mtimes(ca.reshape(g[3:], 3, 3).T, R.T)
    return ca.Function("tree_wrench", [g, R], [g[:3], ca.vertcat(
        A[2, 1] - A[1, 2], A[0, 2] - A[2, 0], A[1, 0] - A[0, 1])])


def frame_values(st):
    """``(potentials, rates)`` of a frame node from its state (for attached elements)."""
    vals = _function("values").call(st[:4])
    return tuple(vals[:12]), tuple(vals[12:])


def _const(n):
    return ca.SX(ca.DM([float(x) for x in n]))


_MAKERS = {"spatial " + k: f for k, f in (
    ("move", _make_move), ("revolute", _make_revolute), ("prismatic", _make_prismatic),
    ("body", _make_body), ("resolve", _make_resolve), ("values", _make_values),
    ("wrench", _make_wrench), ("spherical", _make_spherical), ("translate", _make_translate))}


def flatten_spatial(model, comps, kinds, order, node_of, psym, qs, us, flanges):
    """Write the tree into ``model`` (parameters and coordinates already declared, drive
    flanges given their values: ``psym``, ``qs``, ``flanges`` as in :mod:`.tree`). Returns
    the number of potentials."""
    def par(e):
        return psym[e.element_hash()] if isinstance(e, ca.SX) else ca.SX(float(e))

    def vec(es):
        return ca.vertcat(*[par(e) for e in es])

    world = next(c for c in comps if kinds[id(c)] == "world")
    g = psym[world.g.element_hash()]
    grav = ca.vertcat(*[ca.SX(0) if n == 0 else g * float(n) for n in world.n])
    offsets, jumps = _frames(order, kinds, node_of, qs, us, par, vec)
    declared, body_out, inertias, V_all = _bodies(comps, kinds, node_of, psym, par, vec, grav)
    if body_out:
        model.potential_energy(V_all)
        composite = {}
        model.kinetic_energy(kinetic_energy_spatial(order, kinds, node_of, offsets, jumps,
                                                    inertias, composite))
        _hand_inertia(model, comps, kinds, order, node_of, offsets, composite, qs, us, par,
                      vec)
    # force elements, contacts and sensors on the frames (their flows are the generalized
    # ones, (Fr, FR), turned into a force and a torque at their node)
    att_flows, unknown, att_out = attached(model, comps, kinds, node_of, psym, qs)
    flows = _cut_flows(order, kinds, offsets, declared, att_flows, unknown, flanges)
    return _outputs(model, comps, node_of, flows, unknown, body_out, att_out)


def _frames(order, kinds, node_of, qs, us, par, vec):
    """Every frame's state ``[r, R, v, w, a, al]`` from the roots (``node.st``); returns
    the offsets ``{id(component): (world offset d of frame_b, |d|^2)}`` and the joints'
    jumps ``{id(joint): (Dw, Dv)}`` that the composite form needs (see :mod:`.crba`)."""
    z3 = ca.SX.zeros(3)
    eye = ca.SX.eye(3)
    offsets, jumps = {}, {}
    for node in order:
        c = node.pos.owner
        kind = kinds[id(c)]
        if kind == "world":
            node.st = [z3, eye, z3, z3, z3, z3]
            continue
        if kind == "fixed":
            node.st = [vec(c.r), _rotation(ca.DM(c.n), par(c.angle)), z3, z3, z3, z3]
            continue
        r, R, v, w, a, al = node_of[id(c.frame_a)].st
        if kind in ("rigid", "bodyshape", "rotation"):
            Rrel = _rotation(ca.DM(c.n), par(c.angle)) if kind == "rotation" else eye
            rr = vec(c.r)
            rb, Rb, vb, ab, d = _function("move").call([r, R, v, w, a, al, rr, Rrel])
            node.st = [rb, R if kind != "rotation" else Rb, vb, w, ab, al]
            offsets[id(c)] = (d, ca.dot(rr, rr))
        elif kind == "revolute":
            (q, qd, qdd), = qs[id(c)]
            Rb, wb, alb, dw = _function("revolute").call([R, w, al, _const(c.n), q, qd, qdd])
            node.st = [r, Rb, v, wb, a, alb]
            jumps[id(c)] = (dw, z3)
        elif kind in ("spherical", "freemotion"):
            _ball(node, c, kind, node_of[id(c.frame_a)].st, qs, us, offsets, jumps)
        else:                            # prismatic
            (q, qd, qdd), = qs[id(c)]
            rb, vb, ab, d, dv = _function("prismatic").call([r, R, v, w, a, al, _const(c.n),
                                                             q, qd, qdd])
            node.st = [rb, R, vb, w, ab, al]
            offsets[id(c)] = (d, q * q)  # n is a unit vector
            jumps[id(c)] = (z3, dv)
    return offsets, jumps


def _hand_inertia(model, comps, kinds, order, node_of, offsets, composite, qs, us, par,
                  vec):
    """M and the velocity terms of h in the speeds, handed to derive with T
    (``Model._inertia``, ``"u"``): the composite-rigid-body M and Newton-Euler with
    ``u' = 0`` and no gravity, far smaller than their derivation from T (a quadruped's
    right-hand side fits the generated C)."""
    columns = _columns(model, kinds, order, node_of, qs, us)
    n = len(model.speeds_)
    M = mass_matrix_spatial(order, kinds, node_of, offsets, composite, columns, n)
    acc = [e[2] for v in qs.values() for e in v if e[2] is not None] + \
        [ud for v in us.values() for _, ud in v]
    nodes = [node for node in order if node.st is not None]
    zero = [ca.substitute(x, ca.vertcat(*acc), ca.SX.zeros(len(acc))) if acc else x
            for node in nodes for x in node.st[4:6]]
    free = {id(node): (zero[2 * k], zero[2 * k + 1]) for k, node in enumerate(nodes)}
    wrenches = []
    for c in comps:
        if kinds[id(c)] not in ("body", "bodyshape"):
            continue
        a = node_of[id(c.frame_a)]
        e = c._I_entries
        J = ca.vertcat(*[ca.horzcat(*[par(e[(i, j)]) for j in (1, 2, 3)]) for i in (1, 2, 3)])
        out = _function("body").call(a.st[:4] + list(free[id(a)]) +
                                     [vec(c._r_cm), par(c._m), J, ca.SX.zeros(3)])
        wrenches.append((a, out[7], out[6]))
    c_u = bias_forces_spatial(order, kinds, node_of, offsets, wrenches, columns, n)
    model._inertia = (M, c_u, model.T_terms[-1], "u")


def _columns(model, kinds, order, node_of, qs, us):
    """Each joint's motion columns in the speeds: ``{id(joint): (speed indices, Sw,
    Sv)}`` (world axes, at its frame_b origin; see :mod:`.crba`)."""
    index = {s["sym"].element_hash(): i for i, s in enumerate(model.speeds_)}
    z = ca.SX.zeros(3, 3)
    out = {}
    for node in order:
        c = node.pos.owner
        kind = kinds[id(c)]
        if kind not in ("revolute", "prismatic", "spherical", "freemotion"):
            continue
        Ra, Rb = node_of[id(c.frame_a)].st[1], node.st[1]
        if kind in ("revolute", "prismatic"):
            (q, qd, _), = qs[id(c)]
            e = ca.mtimes(Ra, _const(c.n))
            out[id(c)] = ([index[qd.element_hash()]], e if kind == "revolute" else
                          ca.SX.zeros(3), ca.SX.zeros(3) if kind == "revolute" else e)
            continue
        rot = [index[u.element_hash()] for u, _ in us[id(c)]]
        if kind == "spherical":
            out[id(c)] = (rot, Rb, z)
        else:                            # freemotion: translation (frame_a axes), rotation
            tr = [index[e[1].element_hash()] for e in qs[id(c)][:3]]
            out[id(c)] = (tr + rot, ca.horzcat(z, Rb), ca.horzcat(Ra, z))
    return out


def _ball(node, c, kind, st_a, qs, us, offsets, jumps):
    """frame_b of a Spherical joint or a FreeMotion (its translation first, then the
    quaternion rotation with declared speeds)."""
    r, R, v, w, a, al = st_a
    cq = qs[id(c)]
    dv = ca.SX.zeros(3)
    if kind == "freemotion":             # x, y, z (frame_a axes), then the quaternion
        r, v, a, d, dd, dv = _function("translate").call(
            [r, R, v, w, a, al] + [ca.vertcat(*[e[k] for e in cq[:3]]) for k in range(3)])
        offsets[id(c)] = (d, dd)
        cq = cq[3:]
    (u, ud) = (ca.vertcat(*col) for col in zip(*us[id(c)]))
    Rb, wb, alb, dw = _function("spherical").call(
        [R, w, al, ca.vertcat(*[e[0] for e in cq]), ca.vertcat(*[e[1] for e in cq]), u, ud])
    node.st = [r, Rb, v, wb, a, alb]
    jumps[id(c)] = (dw, dv)


def _bodies(comps, kinds, node_of, psym, par, vec, grav):
    """Each body's weight, inertia about frame_a for the composite form, the flows at
    frame_a (``F = m (a_cm - g)`` and the torque about its origin) and its outputs; returns
    ``(flows by id(body), outputs by id(body), inertias [(node, J6, m, h)], V)``."""
    declared, body_out = {}, {}
    V_all = ca.SX(0)
    inertias = []
    for c in comps:
        if kinds[id(c)] not in ("body", "bodyshape"):
            continue
        e = c._I_entries
        J = ca.vertcat(*[ca.horzcat(*[psym[e[(i, j)].element_hash()] for j in (1, 2, 3)])
                         for i in (1, 2, 3)])
        m = par(c._m)
        J6, h, V, cm, vcm, wa, F, tq = _function("body").call(
            node_of[id(c.frame_a)].st + [vec(c._r_cm), m, J, grav])
        V_all = V_all + V
        inertias.append((node_of[id(c.frame_a)], J6, m, h))
        declared[id(c)] = (F, tq)
        body_out[id(c)] = [(f"{name}[{k + 1}]", x) for name, col in
                           (("r_cm_0", cm), ("v_cm_0", vcm), ("w_a", wa))
                           for k, x in enumerate(ca.vertsplit(col))]
    return declared, body_out, inertias, V_all


def _cut_flows(order, kinds, offsets, declared, att_flows, unknown, flanges):
    """The cut force and torque of every frame (world axes) by Newton-Euler from the
    leaves: ``{id(connector): (F, t)}``; drive flanges balance what acts on them."""
    z3 = ca.SX.zeros(3)

    def own(cn, node):
        if kinds[id(cn.owner)] == "attached":
            return tuple(_function("wrench").call([ca.vertcat(*att_flows[id(cn)]),
                                                   node.st[1]]))
        return declared.get(id(cn.owner), (z3, z3))

    def across(c, f, fb):
        F, tq = f[0] - fb[0], f[1] - fb[1]
        d = offsets.get(id(c))
        if d is not None:                # the force at frame_b moved to frame_a
            tq = tq - ca.cross(d[0], fb[0])
        return F, tq

    flows = {}                           # id(connector) -> (F, t), world axes
    newton_euler(order, kinds, flows, unknown, own, across,
                 lambda a, b: (a[0] + b[0], a[1] + b[1]), lambda a: (-a[0], -a[1]), (z3, z3))
    for cn, f in att_flows.items():      # 1-D elements on drive flanges
        flows.setdefault(cn, f)
    flange_flows(flanges, flows)
    return flows


def _outputs(model, comps, node_of, flows, unknown, body_out, att_out):
    """Potentials and the cut force and torque resolved in the frame (one mapped call for
    every connector), the bodies' and attached elements' outputs; returns the number of
    potentials."""
    conns = [cn for c in comps for cn in c._connectors if node_of[id(cn)].st is not None]
    sts = [node_of[id(cn)].st for cn in conns]
    cols = _function("resolve").map(len(conns)).call(
        [ca.horzcat(*[st[0] for st in sts]), ca.horzcat(*[st[1] for st in sts]),
         ca.horzcat(*[flows[id(cn)][0] for cn in conns]),
         ca.horzcat(*[flows[id(cn)][1] for cn in conns])])
    rows = list(zip(*[ca.horzsplit(col) for col in cols]))     # per connector
    values = dict(zip(map(id, conns), rows))
    taken = set(model._names)
    unavailable = {}
    n_pot = 0
    for c in comps:
        for cn in c._connectors:
            n_pot += len(cn.potentials)
            if id(cn) in values:
                names = list(cn.potentials) + [f"f[{k}]" for k in (1, 2, 3)] + \
                    [f"t[{k}]" for k in (1, 2, 3)]
                vals = values[id(cn)]
            else:                        # a drive flange
                names = list(cn.potentials) + list(cn.flows)
                vals = list(node_of[id(cn)].values()[0]) + flows[id(cn)]
            for k, (name, e) in enumerate(zip(names, vals)):
                name = f"{cn.path}.{name}"
                if name in taken:
                    continue
                taken.add(name)
                if k >= len(cn.potentials) and id(cn) in unknown:
                    unavailable[name] = "it is (or depends on) a contact force"
                else:
                    model.output(name, e)
        for name, e in body_out.get(id(c), ()) or att_out.get(id(c), ()):
            name = f"{c.path}.{name}"
            if name not in taken:
                taken.add(name)
                model.output(name, e)
    model._unavailable_outputs = unavailable
    return n_pot
