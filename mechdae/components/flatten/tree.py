"""Tree fast path of the flattening: a planar mechanism that is a tree of frames.

When a model is made only of the planar multibody components :class:`~.planar.World`,
:class:`~.planar.Fixed`, :class:`~.planar.FixedTranslation`, :class:`~.planar.Body`,
:class:`~.planar.BodyShape`, :class:`~.planar.Revolute`, :class:`~.planar.Prismatic` and
:class:`~.planar.Free`, connected as a tree of frames that grows from the World (or Fixed
frames) through each component's ``frame_a`` to its ``frame_b``, and the Model has no
hand-written part, flattening writes the equations directly in joint coordinates:

- every frame's position, angle, velocity and acceleration in closed form from the root
  (``phi_b = phi_a + q`` at a revolute, ``r_b = r_a + R(phi_a) r`` across a rigid part;
  the cosine and sine of an angle are built once per distinct angle);
- the potential energy of each body in terms of them, and the kinetic energy of the whole
  tree in composite-rigid-body form (:mod:`.crba`: one term per joint, the same value as
  the generic path's sum over bodies); the mass matrix (composite-rigid-body algorithm)
  and the velocity terms of the generalized forces (Newton-Euler with ``q'' = 0``) are
  handed to ``compile()`` directly (``Model._inertia``, see :func:`mechdae.symbolic.derive.
  derive`), which derives them from ``T`` otherwise;
- the flows of every frame (cut forces and torques, positive into the component) by
  Newton-Euler from the leaves: a body's flow at ``frame_a`` is its inertial force minus its
  weight and ``I phi'' + r_cm x F``; across a component, ``frame_a`` passes on what
  ``frame_b`` carries (moved to ``frame_a`` where the offset turns with ``phi_a``); at a
  node the flow of the connector that positions it balances the others. These are the
  values the generic path's relation multipliers take (they use accelerations: results
  evaluate them from the equations of motion).

Force elements, contacts and sensors between the tree's frames (:class:`~.planar.Spring`,
``Damper``, ``SpringDamper``, ``Force``, ``Torque``, ``PointLineContact``,
``PointPointContact``, ``RelativeAngle``/``Position``/``Velocity``), and 1-D springs,
dampers, sources and sensors between the drive flanges of joints (``useAxisFlange=True``:
``axis`` at the joint coordinate, ``support`` fixed) are *attached*: their
expressions get the frames' potentials and rates in one substitution, and they enter as
in the generic path (potential energy, virtual work ``Q = -(ds/dq)^T f`` of the rest of the
flow, ``Model.contact``, outputs); their flows join the node balances, and a flow that
carries a contact force is not offered, as there.

Nothing of the generic machinery (alias elimination, node resolution, relation flows,
substitution to a fixpoint) runs, and the tree's components never build their CasADi
equations, so the cost is a few CasADi calls per link, as for a hand-written model.
Anything else -- a loop, a joint used from ``frame_b`` to ``frame_a``, an expression as a
parameter, an inertia or gear on a drive flange, a component of another library,
hand-written terms in the Model -- and the model takes the generic path (same answers;
``model._tree_fast_path = False`` forces it, which tests use to compare the two).
"""
import time

import casadi as ca

from .._graph import connected
from .tree_attached import attached as _attached, symbols_known as _symbols_known
from .crba import bias_forces, kinetic_energy, mass_matrix

__all__ = ["flatten_tree"]

_B, _U = ca.SX.binary, ca.SX.unary
_ADD, _SUB, _MUL = ca.OP_ADD, ca.OP_SUB, ca.OP_MUL

# the model attributes that hand-written terms fill (then the generic path, which
# substitutes the components' symbols into them)
_HAND = ("coords", "speeds_", "kinematics_", "variables", "T_terms", "T_report", "V_terms",
         "forces", "speed_forces", "power_terms", "bodies", "holonomic_", "nonholonomic_",
         "equations", "contacts", "outputs", "_accelerations", "_multipliers")

_FN = {}


def _function(name, makers=None):
    """The CasADi Functions of one propagation step (built once per process; ``makers``:
    name -> builder, this module's planar ones by default)."""
    f = _FN.get(name)
    if f is None:
        f = _FN[name] = (makers or _MAKERS)[name]()
    return f


def _syms(names):
    return [ca.SX.sym(n) for n in names.split()]


_FRAME = "x y vx vy w ax ay al c s"


def _offset(c, s, r1, r2, w, al):
    """World-resolved offset ``d = R(phi) r`` and its velocity and acceleration terms
    ``w x d``, ``al x d + w x (w x d)``."""
    dx, dy = c * r1 - s * r2, s * r1 + c * r2
    w2 = w * w
    return dx, dy, (-w * dy, w * dx), (-al * dy - w2 * dx, al * dx - w2 * dy)


def _make_rigid():
    x, y, vx, vy, w, ax, ay, al, c, s, r1, r2 = args = _syms(_FRAME + " r1 r2")
    dx, dy, v, a = _offset(c, s, r1, r2, w, al)
    out = [x + dx, y + dy, vx + v[0], vy + v[1], ax + a[0], ay + a[1], dx, dy,
           r1 * r1 + r2 * r2]           # |d|^2 from the parameters (no angle in it)
    return ca.Function("tree_rigid", args, out)


def _make_prismatic():
    x, y, vx, vy, w, ax, ay, al, c, s, r1, r2, q, qd, qdd = args = \
        _syms(_FRAME + " r1 r2 q qd qdd")
    nrm = ca.sqrt(r1 ** 2 + r2 ** 2)
    ex, ey = c * (r1 / nrm) - s * (r2 / nrm), s * (r1 / nrm) + c * (r2 / nrm)
    dx, dy = ex * q, ey * q
    w2 = w * w
    out = [x + dx, y + dy,
           vx - w * dy + ex * qd, vy + w * dx + ey * qd,
           ax - al * dy - w2 * dx - 2 * w * qd * ey + ex * qdd,
           ay + al * dx - w2 * dy + 2 * w * qd * ex + ey * qdd, dx, dy, q * q, ex, ey]
    return ca.Function("tree_prismatic", args, out)


def _make_body():
    x, y, vx, vy, w, ax, ay, al, c, s, o1, o2, m, I, gx, gy = args = \
        _syms(_FRAME + " o1 o2 m I gx gy")
    ox, oy, v, a = _offset(c, s, o1, o2, w, al)
    cx, cy = x + ox, y + oy
    vcx, vcy = vx + v[0], vy + v[1]
    Fx, Fy = m * (ax + a[0] - gx), m * (ay + a[1] - gy)
    V = -m * (gx * cx + gy * cy)
    # the inertia about frame_a's origin: J (|o| = |r_cm|: no angle in it), m o
    out = [I + m * (o1 * o1 + o2 * o2), m * ox, m * oy, V, cx, cy, vcx, vcy, Fx, Fy,
           I * al + ox * Fy - oy * Fx]
    return ca.Function("tree_body", args, out)


_MAKERS = {"rigid": _make_rigid, "prismatic": _make_prismatic, "body": _make_body}


class _Node:
    """A frame node: position, angle and their first and second rates (SX scalars)."""
    __slots__ = ("x", "y", "phi", "vx", "vy", "w", "ax", "ay", "al", "cs", "pos", "members",
                 "st", "flange", "vals")

    def __init__(self, members):
        self.members = members           # connectors joined here
        self.pos = None                  # the connector that positions the node
        self.cs = None
        self.flange = None               # a drive flange's node: (value, rate)
        self.st = self.vals = None       # a spatial frame's state, its potentials and rates

    def values(self):
        """``(potentials, their rates)`` in the connectors' order."""
        if self.flange is not None:
            return (self.flange[0],), (self.flange[1],)
        if self.st is not None:
            if self.vals is None:
                from .tree_spatial import frame_values
                self.vals = frame_values(self.st)
            return self.vals
        return (self.x, self.y, self.phi), (self.vx, self.vy, self.w)

    def set(self, x, y, phi, vx, vy, w, ax, ay, al, cs=None):
        self.x, self.y, self.phi, self.vx, self.vy, self.w = x, y, phi, vx, vy, w
        self.ax, self.ay, self.al, self.cs = ax, ay, al, cs

    def cos_sin(self):
        if self.cs is None:
            self.cs = (_U(ca.OP_COS, self.phi), _U(ca.OP_SIN, self.phi))
        return self.cs

    def frame_args(self):
        return [self.x, self.y, self.vx, self.vy, self.w, self.ax, self.ay, self.al,
                *self.cos_sin()]


def _kinds(lib):
    """``(tree component kinds by class, classes attached to the tree's frames and drive
    flanges, connector classes)`` of the planar or the spatial library."""
    from .. import planar as pl, rotational as rot, translational as tr
    # on the drive flanges of joints (useAxisFlange=True)
    _DRIVE = {rot.Spring, rot.Damper, rot.SpringDamper, rot.Torque, rot.AngleSensor,
              rot.SpeedSensor, tr.Spring, tr.Damper, tr.SpringDamper, tr.Force,
              tr.PositionSensor, tr.SpeedSensor}
    if lib == "spatial":
        from .. import spatial as sp
        tree = {sp.World: "world", sp.Fixed: "fixed", sp.FixedTranslation: "rigid",
                sp.FixedRotation: "rotation", sp.BodyShape: "bodyshape",
                sp.BodyBox: "bodyshape", sp.BodyCylinder: "bodyshape", sp.Body: "body",
                sp.Revolute: "revolute", sp.Prismatic: "prismatic",
                sp.Spherical: "spherical", sp.FreeMotion: "freemotion"}
        attached = {sp.Spring, sp.Damper, sp.SpringDamper, sp.WorldForce, sp.WorldTorque,
                    sp.PointPlaneContact, sp.PointPointContact, sp.RelativePosition,
                    sp.RelativeVelocity, sp.RelativeAngularVelocity}
        return tree, attached | _DRIVE, (sp.Frame, rot.Flange, tr.Flange)
    tree = {pl.World: "world", pl.Fixed: "fixed", pl.FixedTranslation: "rigid",
            pl.BodyShape: "bodyshape", pl.Body: "body", pl.Revolute: "revolute",
            pl.Prismatic: "prismatic", pl.Free: "free"}
    attached = {pl.Spring, pl.Damper, pl.SpringDamper, pl.Force, pl.Torque,
                pl.PointLineContact, pl.PointPointContact, pl.RelativeAngle,
                pl.RelativePosition, pl.RelativeVelocity} | _DRIVE
    return tree, attached, (pl.Frame, rot.Flange, tr.Flange)


def _plan(model, comps):
    """``(lib, kinds, nodes in order from the roots, node of each connector, drive-flange
    nodes)``, or None when the model is not a tree of the supported components with force
    elements, contacts and sensors between its frames (then the general passes run)."""
    if not getattr(model, "_tree_fast_path", True) or not comps:
        return None
    if any(getattr(model, a) for a in _HAND):
        return None
    lib = "spatial" if any(type(c).__module__.endswith(".spatial") for c in comps) \
        else "planar"
    kinds = _classify(comps, lib)
    if kinds is None:
        return None
    grown = _grow(model, comps, kinds)
    if grown is None or not _symbols_known(model, comps, kinds):
        return None
    return (lib, kinds) + grown


def _classify(comps, lib):
    """The tree kind of each component (``"attached"`` for elements that only read frames
    and flanges), or None when one is not supported: an unknown class, a loop cut, a
    parameter given as an expression, one World missing or doubled."""
    table, attached, conn_types = _kinds(lib)
    kinds, worlds = {}, 0
    for c in comps:
        k = table.get(type(c))
        if c._children or c._connections or c._problems or c._built:
            return None
        if k is None:
            if type(c) not in attached or any(type(cn) not in conn_types
                                              for cn in c._connectors):
                return None
            if c._coords or c._vars or c._speeds or c._kinematics or c._defines or \
                    c._relations or c._T or c._gforces or c._equations or c._holonomic:
                return None
            k = "attached"
        elif k in ("revolute", "prismatic", "free", "spherical", "freemotion") and (
                c.cut or len(c._connectors) != (4 if hasattr(c, "axis") else 2)):
            return None                  # a loop cut
        for _, ph, val in c._params:
            if isinstance(val, (ca.SX, ca.MX)):
                return None              # an expression as a parameter
        worlds += k == "world"
        kinds[id(c)] = k
    if worlds != 1:
        return None                      # the general passes report the problem
    # every vector entry a parameter of the component or a number
    for c in comps:
        own = {ph.element_hash() for _, ph, _ in c._params}
        vecs = [getattr(c, "r", ())] + [getattr(c, "_r_cm", ())] \
            if kinds[id(c)] != "attached" else []
        for v in vecs:
            for e in v:
                if isinstance(e, ca.SX) and not (e.is_symbolic() and e.element_hash() in own):
                    return None
                if not isinstance(e, (ca.SX, int, float)):
                    return None
    return kinds


def _grow(model, comps, kinds):
    """``(nodes in order from the roots, node of each connector, drive-flange nodes)``: the
    tree grown from the World and Fixed frames through each component's frame_a to its
    frame_b; None for a loop, a component used from frame_b, a frame fixed twice or not
    reached, two drive flanges joined."""
    node_of, n_groups = _frame_nodes(model, comps)
    if node_of is None:
        return None
    # drive flanges: the axis at the joint coordinate, the support fixed
    flanges = []
    for c in comps:
        if kinds[id(c)] != "attached" and hasattr(c, "axis"):
            for cn in (c.axis, c.support):
                node = node_of[id(cn)]
                if node.pos is not None:
                    return None          # two flanges joined, or a loop through them
                node.pos = cn
                flanges.append(node)
    order = []
    for c in comps:
        if kinds[id(c)] in ("world", "fixed"):
            node = node_of[id(c.frame)]
            if node.pos is not None:
                return None              # fixed twice
            node.pos = c.frame
            order.append(node)
    k = 0
    while k < len(order):
        node = order[k]
        k += 1
        for cn in node.members:
            if cn is node.pos:
                continue
            c = cn.owner
            kind = kinds[id(c)]
            if kind in ("body", "attached"):
                continue                 # leaves; attached elements only read the frame
            if kind in ("world", "fixed") or cn.name != "frame_a":
                return None              # a loop, or a component used from frame_b
            child = node_of[id(c.frame_b)]
            if child.pos is not None:
                return None              # a loop
            child.pos = c.frame_b
            order.append(child)
    if len(order) + len(flanges) != n_groups:
        return None                      # frames not reached from a root
    return order, node_of, flanges


def _frame_nodes(model, comps):
    """Connected connectors as :class:`_Node` s: ``(node of each connector id, number of
    nodes)``, ``(None, 0)`` when a connection names a connector outside the model."""
    groups, _ = connected(comps, model.connections)
    if groups is None:
        return None, 0
    node_of = {}
    for members in groups:
        node = _Node(members)
        for cn in members:
            node_of[id(cn)] = node
    return node_of, len(groups)


def flatten_tree(model, comps):
    """Flatten ``model`` by the tree pass if it applies (see the module docstring);
    returns whether it did."""
    t_start = time.perf_counter()
    plan = _plan(model, comps)
    if plan is None:
        return False
    lib, kinds, order, node_of, flanges = plan
    psym, qs, us = _declare(model, comps)
    zero = ca.SX(0)
    for node in flanges:                 # drive flanges: the joint coordinate, or 0
        c = node.pos.owner
        node.flange = qs[id(c)][0][:2] if node.pos is c.axis else (zero, zero)
    if lib == "spatial":
        from .tree_spatial import flatten_spatial
        n_pot = flatten_spatial(model, comps, kinds, order, node_of, psym, qs, us, flanges)
        _stats(model, comps, node_of, order, n_pot, t_start)
        return True

    def par(e):
        return psym[e.element_hash()] if isinstance(e, ca.SX) else ca.SX(float(e))

    offsets, axes = _frames(order, kinds, node_of, qs, par)
    declared, body_out, inertias = _bodies(model, comps, kinds, node_of, psym, par)
    if body_out:
        _energies(model, order, kinds, node_of, offsets, axes, qs, inertias)
    # force elements, contacts and sensors on the tree's frames and drive flanges
    att_flows, unknown, att_out = _attached(model, comps, kinds, node_of, psym, qs)
    flows = _cut_flows(order, kinds, offsets, declared, att_flows, unknown, flanges)
    n_pot = _outputs(model, comps, node_of, flows, unknown, body_out, att_out)
    _stats(model, comps, node_of, order, n_pot, t_start)
    return True


def _frames(order, kinds, node_of, qs, par):
    """Every frame's position, angle and their rates in closed form from the roots (on
    the nodes); returns the world-resolved offsets ``{id(component): (dx, dy, |d|^2)}`` of
    frame_b and the prismatic joints' unit axes ``{id(joint): (ex, ey)}``."""
    zero = ca.SX(0)
    offsets, axes = {}, {}
    for node in order:
        c = node.pos.owner
        kind = kinds[id(c)]
        if kind == "world":
            node.set(zero, zero, zero, zero, zero, zero, zero, zero, zero, (ca.SX(1), zero))
            continue
        if kind == "fixed":
            node.set(par(c.r[0]), par(c.r[1]), par(c.phi), zero, zero, zero, zero, zero,
                     zero)
            continue
        a = node_of[id(c.frame_a)]
        if kind in ("rigid", "bodyshape"):
            x, y, vx, vy, ax, ay, dx, dy, dd = _function("rigid").call(
                a.frame_args() + [par(c.r[0]), par(c.r[1])])
            node.set(x, y, a.phi, vx, vy, a.w, ax, ay, a.al, a.cs)
            offsets[id(c)] = (dx, dy, dd)
        elif kind == "prismatic":
            (q, qd, qdd), = qs[id(c)]
            x, y, vx, vy, ax, ay, dx, dy, dd, ex, ey = _function("prismatic").call(
                a.frame_args() + [par(c.r[0]), par(c.r[1]), q, qd, qdd])
            node.set(x, y, a.phi, vx, vy, a.w, ax, ay, a.al, a.cs)
            offsets[id(c)] = (dx, dy, dd)
            axes[id(c)] = (ex, ey)
        elif kind == "revolute":
            (q, qd, qdd), = qs[id(c)]
            node.set(a.x, a.y, _B(_ADD, a.phi, q), a.vx, a.vy, _B(_ADD, a.w, qd), a.ax, a.ay,
                     _B(_ADD, a.al, qdd))
        else:                            # free
            (x, xd, xdd), (y, yd, ydd), (p, pd, pdd) = qs[id(c)]
            node.set(_B(_ADD, a.x, x), _B(_ADD, a.y, y), _B(_ADD, a.phi, p),
                     _B(_ADD, a.vx, xd), _B(_ADD, a.vy, yd), _B(_ADD, a.w, pd),
                     _B(_ADD, a.ax, xdd), _B(_ADD, a.ay, ydd), _B(_ADD, a.al, pdd))
    return offsets, axes


def _bodies(model, comps, kinds, node_of, psym, par):
    """Each body's weight (one potential energy term), inertia about frame_a for the
    composite form, flows at frame_a (inertial force minus weight) and outputs; returns
    ``(flows by id(body), outputs by id(body), inertias [(node, J, m, hx, hy)])``."""
    world = next(c for c in comps if kinds[id(c)] == "world")
    g = psym[world.g.element_hash()]
    grav = [ca.SX(0) if n == 0 else _B(_MUL, g, ca.SX(float(n))) for n in world.n]
    declared, body_out = {}, {}
    V_all = ca.SX(0)                     # one term (compile checks each term's symbols)
    inertias = []
    for c in comps:
        if kinds[id(c)] not in ("body", "bodyshape"):
            continue
        a = node_of[id(c.frame_a)]
        m, I = par(c._m), par(c._I)
        J, hx, hy, V, cx, cy, vcx, vcy, Fx, Fy, tau = _function("body").call(
            a.frame_args() + [par(c._r_cm[0]), par(c._r_cm[1]), m, I] + grav)
        V_all = _B(_ADD, V_all, V)
        inertias.append((a, J, m, hx, hy))
        declared[id(c)] = [Fx, Fy, tau]
        body_out[id(c)] = [("r_cm_x", cx), ("r_cm_y", cy), ("v_cm_x", vcx),
                           ("v_cm_y", vcy), ("w", a.w)]
    if body_out:
        model.potential_energy(V_all)
    return declared, body_out, inertias


def _energies(model, order, kinds, node_of, offsets, axes, qs, inertias):
    """The kinetic energy in composite-rigid-body form, and M and the velocity terms handed
    to derive (``Model._inertia``): the composite-rigid-body M and Newton-Euler with
    ``q'' = 0``, smaller than their derivation from T."""
    composite = {}
    model.kinetic_energy(kinetic_energy(order, kinds, node_of, offsets, axes, qs, inertias,
                                        composite))
    pos = {e["sym"].element_hash(): i for i, e in enumerate(model.coords)}
    index = {k: [pos[q.element_hash()] for q, _, _ in v] for k, v in qs.items()}
    n = len(model.coords)
    model._inertia = (mass_matrix(order, kinds, node_of, offsets, axes, composite, index, n),
                      bias_forces(order, kinds, node_of, offsets, axes, qs, inertias, index,
                                  n), model.T_terms[-1])


def _cut_flows(order, kinds, offsets, declared, att_flows, unknown, flanges):
    """The flows of every frame (``[fx, fy, tau]``) by Newton-Euler from the leaves; drive
    flanges balance what acts on them."""
    zero = ca.SX(0)

    def own(cn, node):
        return att_flows[id(cn)] if kinds[id(cn.owner)] == "attached" else \
            declared.get(id(cn.owner), [zero, zero, zero])

    def across(c, f, fb):
        f = [_B(_SUB, a, b) for a, b in zip(f, fb)]
        d = offsets.get(id(c))
        if d is not None:                # the force at frame_b moved to frame_a
            f[2] = _B(_ADD, f[2], _B(_SUB, _B(_MUL, fb[0], d[1]), _B(_MUL, fb[1], d[0])))
        return f

    flows = dict(att_flows)              # id(connector) -> [fx, fy, tau]
    newton_euler(order, kinds, flows, unknown, own, across,
                 lambda a, b: [_B(_ADD, x, y) for x, y in zip(a, b)],
                 lambda a: [_B(_SUB, zero, x) for x in a], [zero, zero, zero])
    flange_flows(flanges, flows)
    return flows


def _outputs(model, comps, node_of, flows, unknown, body_out, att_out):
    """Every potential and flow, and the components' own outputs (as the general passes
    name them); flows that carry a contact force are not offered. Returns the number of
    potentials."""
    taken = set(model._names)
    unavailable = {}
    n_pot = 0

    def out(name, e):
        if name not in taken:
            taken.add(name)
            model.output(name, e)

    for c in comps:
        for cn in c._connectors:
            n_pot += len(cn.potentials)
            for name, e in zip(cn.potentials, node_of[id(cn)].values()[0]):
                out(f"{cn.path}.{name}", e)
            for name, e in zip(cn.flows, flows[id(cn)]):
                if id(cn) in unknown:
                    unavailable[f"{cn.path}.{name}"] = "it is (or depends on) a contact force"
                    taken.add(f"{cn.path}.{name}")
                else:
                    out(f"{cn.path}.{name}", e)
        for name, e in body_out.get(id(c), ()) or att_out.get(id(c), ()):
            out(f"{c.path}.{name}", e)
    model._unavailable_outputs = unavailable
    return n_pot


def newton_euler(order, kinds, flows, unknown, own, across, add, neg, zero):
    """The flows of every frame from the leaves (both libraries): a connector's own flow
    (``own(cn, node)``: a body's inertial force minus its weight, an attached element's
    flow, else zero), for a component's frame_a what its frame_b carries moved to frame_a
    (``across(c, f, f_b)``); the connector that positions a node balances the others. A
    flow that carries a contact force (``unknown``, ids) makes every flow toward the root
    unknown too."""
    for node in reversed(order):
        total, lost = zero, False
        for cn in node.members:
            if cn is node.pos:
                continue
            c = cn.owner
            f = own(cn, node)
            if kinds[id(c)] not in ("body", "attached"):
                if id(c.frame_b) in unknown:
                    unknown.add(id(cn))
                f = across(c, f, flows[id(c.frame_b)])
            flows[id(cn)] = f
            if id(cn) in unknown:
                lost = True
            else:
                total = add(total, f)
        if lost:
            unknown.add(id(node.pos))
        flows[id(node.pos)] = neg(total)


def flange_flows(flanges, flows):
    """A drive flange balances what acts on it: its flow is minus the others' at its node."""
    zero = ca.SX(0)
    for node in flanges:
        total = zero
        for cn in node.members:
            if cn is not node.pos:
                total = _B(_ADD, total, flows[id(cn)][0])
        flows[id(node.pos)] = [_B(_SUB, zero, total)]


def _declare(model, comps):
    """Parameters and declared speeds, then coordinates and their kinematics, in the generic
    path's order: ``(parameter symbol by placeholder hash, [(q, q', q'')] by component id,
    [(u, u')] of the declared speeds by component id)`` (``q''`` None for a coordinate with
    kinematics ``q' = N(q) u``)."""
    psym, us, sub = {}, {}, {}
    for c in comps:
        for ln, ph, val in c._params:
            psym[ph.element_hash()] = val if isinstance(val, ca.SX) else \
                model.parameter(f"{c.path}.{ln}", val)
        for ln, ph, default in c._speeds:
            u = model.speeds(f"{c.path}.{ln}", default=default)
            us.setdefault(id(c), []).append((u, model.acceleration(f"{c.path}.{ln}")))
            sub[ph.element_hash()] = (ph, u)
    qs, kin = {}, []
    for c in comps:
        kin_of = {ph.element_hash(): e for ph, e in c._kinematics}
        for ln, ph, default, speed, speed_default in c._coords:
            sname = f"{c.path}.{speed}" if speed is not None else None
            q = model.coordinates(f"{c.path}.{ln}", default=default, speeds=sname,
                                  speed_default=speed_default)
            sub[ph.element_hash()] = (ph, q)
            e = kin_of.get(ph.element_hash())
            if e is not None:
                kin.append((q, e))
            qs.setdefault(id(c), []).append((q, model.coords[-1]["rate"], None if e is not None
                                             else model.acceleration(sname)))
    if kin:
        keys, vals = zip(*sub.values())
        rates = ca.substitute([e for _, e in kin], [ca.vertcat(*keys)], [ca.vertcat(*vals)])
        model.kinematics(dict(zip([q for q, _ in kin], rates)))
    return psym, qs, us


def _stats(model, comps, node_of, order, n_pot, t_start):
    model.flatten_stats = dict(
        components=len(comps), connectors=len(node_of), potentials=n_pot, nodes=len(order),
        general_nodes=0, aliases_eliminated=n_pot, alias_elimination=0.0,
        flatten=time.perf_counter() - t_start, tree_fast_path=True)
