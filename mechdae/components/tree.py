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
- the kinetic and potential energy of each body in terms of them (the same energies the
  generic path derives from the components' own equations);
- the flows of every frame (cut forces and torques, positive into the component) by
  Newton-Euler from the leaves: a body's flow at ``frame_a`` is its inertial force minus its
  weight and ``I phi'' + r_cm x F``; across a component, ``frame_a`` passes on what
  ``frame_b`` carries (moved to ``frame_a`` where the offset turns with ``phi_a``); at a
  node the flow of the connector that positions it balances the others. These are the
  values the generic path's relation multipliers take (they use accelerations: results
  evaluate them from the equations of motion).

Force elements, contacts and sensors between the tree's frames (:class:`~.planar.Spring`,
``Damper``, ``SpringDamper``, ``Force``, ``Torque``, ``PointLineContact``,
``PointPointContact``, ``RelativeAngle``/``Position``/``Velocity``) are *attached*: their
expressions get the frames' potentials and rates in one substitution, and they enter as
in the generic path (potential energy, virtual work ``Q = -(ds/dq)^T f`` of the rest of the
flow, ``Model.contact``, outputs); their flows join the node balances, and a flow that
carries a contact force is not offered, as there.

Nothing of the generic machinery (alias elimination, node resolution, relation flows,
substitution to a fixpoint) runs, and the tree's components never build their CasADi
equations, so the cost is a few CasADi calls per link, as for a hand-written model.
Anything else -- a drive flange, a loop, a joint used from ``frame_b`` to ``frame_a``, an
expression as a parameter, a component of another library, hand-written terms in the
Model -- and the model takes the generic path (same answers; ``model._tree_fast_path =
False`` forces it, which tests use to compare the two).
"""
import time

import casadi as ca

from ..dsl.model import _info
from ..errors import ModelError
from .core import TIME

__all__ = ["flatten_tree"]

_B, _U = ca.SX.binary, ca.SX.unary
_ADD, _SUB, _MUL = ca.OP_ADD, ca.OP_SUB, ca.OP_MUL

# the model attributes that hand-written terms fill (then the generic path, which
# substitutes the components' symbols into them)
_HAND = ("coords", "speeds_", "kinematics_", "variables", "T_terms", "T_report", "V_terms",
         "forces", "speed_forces", "power_terms", "bodies", "holonomic_", "nonholonomic_",
         "equations", "contacts", "outputs", "_accelerations", "_multipliers")

_FN = {}


def _function(name):
    """The CasADi Functions of one propagation step (built once per process)."""
    f = _FN.get(name)
    if f is None:
        f = _FN[name] = _MAKERS[name]()
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
    out = [x + dx, y + dy, vx + v[0], vy + v[1], ax + a[0], ay + a[1], dx, dy]
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
           ay + al * dx - w2 * dy + 2 * w * qd * ex + ey * qdd, dx, dy]
    return ca.Function("tree_prismatic", args, out)


def _make_body():
    x, y, vx, vy, w, ax, ay, al, c, s, o1, o2, m, I, gx, gy = args = \
        _syms(_FRAME + " o1 o2 m I gx gy")
    ox, oy, v, a = _offset(c, s, o1, o2, w, al)
    cx, cy = x + ox, y + oy
    vcx, vcy = vx + v[0], vy + v[1]
    Fx, Fy = m * (ax + a[0] - gx), m * (ay + a[1] - gy)
    T = 0.5 * m * (vcx ** 2 + vcy ** 2) + 0.5 * I * w ** 2
    V = -m * (gx * cx + gy * cy)
    out = [T, V, cx, cy, vcx, vcy, Fx, Fy, I * al + ox * Fy - oy * Fx]
    return ca.Function("tree_body", args, out)


_MAKERS = {"rigid": _make_rigid, "prismatic": _make_prismatic, "body": _make_body}


class _Node:
    """A frame node: position, angle and their first and second rates (SX scalars)."""
    __slots__ = ("x", "y", "phi", "vx", "vy", "w", "ax", "ay", "al", "cs", "pos", "members",
                 "st")

    def __init__(self, members):
        self.members = members           # connectors joined here
        self.pos = None                  # the connector that positions the node
        self.cs = None

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
    """``(tree component kinds by class, classes attached to the tree's frames, Frame)`` of
    the planar or the spatial library."""
    if lib == "spatial":
        from . import spatial as sp
        tree = {sp.World: "world", sp.Fixed: "fixed", sp.FixedTranslation: "rigid",
                sp.FixedRotation: "rotation", sp.BodyShape: "bodyshape",
                sp.BodyBox: "bodyshape", sp.BodyCylinder: "bodyshape", sp.Body: "body",
                sp.Revolute: "revolute", sp.Prismatic: "prismatic"}
        return tree, set(), sp.Frame
    from . import planar as pl
    tree = {pl.World: "world", pl.Fixed: "fixed", pl.FixedTranslation: "rigid",
            pl.BodyShape: "bodyshape", pl.Body: "body", pl.Revolute: "revolute",
            pl.Prismatic: "prismatic", pl.Free: "free"}
    attached = {pl.Spring, pl.Damper, pl.SpringDamper, pl.Force, pl.Torque,
                pl.PointLineContact, pl.PointPointContact, pl.RelativeAngle,
                pl.RelativePosition, pl.RelativeVelocity}
    return tree, attached, pl.Frame


_CONTACT_KEYS = ("gap", "tangent", "tangent_velocity", "restitution", "friction",
                 "tangential_restitution")


def _attached_exprs(c):
    """Every expression an attached component declared (energies, flows, outputs,
    contact data), for the check of the symbols they use."""
    out = list(c._V)
    for cn, ex, energy in c._flows.values():
        out.extend(ex or ())
        if isinstance(energy, list):
            out.extend(energy)
    out.extend(e for _, e in c._outputs)
    for kw in c._contacts:
        for key in _CONTACT_KEYS:
            v = kw.get(key)
            out.extend(v if isinstance(v, (list, tuple)) else [v])
    return [e for e in out if isinstance(e, ca.SX)]


def _plan(model, comps):
    """``(kinds, nodes in order from the roots, node of each connector)``, or None when the
    model is not a tree of the supported components with force elements, contacts and
    sensors between its frames (then the generic path runs)."""
    if not getattr(model, "_tree_fast_path", True) or not comps:
        return None
    if any(getattr(model, a) for a in _HAND):
        return None
    lib = "spatial" if type(comps[0]).__module__.endswith(".spatial") else "planar"
    table, attached, frame_cls = _kinds(lib)
    kinds, worlds = {}, 0
    for c in comps:
        k = table.get(type(c))
        if c._children or c._connections or c._problems or c._built:
            return None
        if k is None:
            if type(c) not in attached or any(type(cn) is not frame_cls
                                              for cn in c._connectors):
                return None
            if c._coords or c._vars or c._speeds or c._kinematics or c._defines or \
                    c._relations or c._T or c._gforces or c._equations or c._holonomic:
                return None
            k = "attached"
        elif k in ("revolute", "prismatic", "free") and (c.cut or len(c._connectors) != 2):
            return None                  # a loop cut or a drive flange
        for _, ph, val in c._params:
            if isinstance(val, (ca.SX, ca.MX)):
                return None              # an expression as a parameter
        worlds += k == "world"
        kinds[id(c)] = k
    if worlds != 1:
        return None                      # the generic path reports the problem
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
    # nodes: connected frames (union-find over connector ids)
    conns = {id(cn): cn for c in comps for cn in c._connectors}
    parent = {k: k for k in conns}

    def find(k):
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for tup in model.connections:
        if any(id(cn) not in conns for cn in tup):
            return None
        for cn in tup[1:]:
            ra, rb = find(id(tup[0])), find(id(cn))
            if ra != rb:
                parent[rb] = ra
    groups = {}
    for k, cn in conns.items():
        groups.setdefault(find(k), []).append(cn)
    node_of = {}
    for members in groups.values():
        node = _Node(members)
        for cn in members:
            node_of[id(cn)] = node
    # grow the tree from the roots through frame_a -> frame_b
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
    if len(order) != len(groups):
        return None                      # frames not reached from a root
    if not _symbols_known(model, comps, kinds):
        return None
    return lib, kinds, order, node_of


def _symbols_known(model, comps, kinds):
    """Whether the attached components' expressions use only symbols the fast path gives a
    value (parameters, coordinates, frame potentials and their rates, time) or the model's
    own symbols (not, e.g., a flow or an acceleration of another component)."""
    exprs = [e for c in comps if kinds[id(c)] == "attached" for e in _attached_exprs(c)]
    if not exprs:
        return True
    known = set()

    def add(ph):
        known.add(ph.element_hash())
        info = _info(ph)
        if info is not None and info.deriv is not None:
            known.add(info.deriv.element_hash())

    add(TIME)

    for c in comps:
        for _, ph, _ in c._params:
            add(ph)
        for d in c._coords:
            add(d[1])
        for cn in c._connectors:
            for ph in cn.__dict__.get("potential_syms", ()):
                add(ph)
    for s in ca.symvar(ca.veccat(*exprs)):
        if s.element_hash() in known:
            continue
        info = _info(s)
        if info is None or info.kind == "placeholder" or info.model_id != model._id or \
                info.kind in ("multiplier", "acceleration"):
            return False
    return True


def flatten_tree(model, comps):
    """Flatten ``model`` by the tree fast path if it applies (see the module docstring);
    returns whether it did."""
    t_start = time.perf_counter()
    plan = _plan(model, comps)
    if plan is None:
        return False
    lib, kinds, order, node_of = plan
    world = next(c for c in comps if kinds[id(c)] == "world")
    psym, qs = _declare(model, comps)
    if lib == "spatial":
        from .tree_spatial import flatten_spatial
        n_pot = flatten_spatial(model, comps, kinds, order, node_of, psym, qs)
        _stats(model, comps, node_of, order, n_pot, t_start)
        return True

    def par(e):
        return psym[e.element_hash()] if isinstance(e, ca.SX) else ca.SX(float(e))

    zero = ca.SX(0)
    g = psym[world.g.element_hash()]
    grav = [ca.SX(0) if n == 0 else _B(_MUL, g, ca.SX(float(n))) for n in world.n]
    # kinematics from the roots
    offsets = {}                         # id(component) -> world-resolved (dx, dy) of frame_b
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
            x, y, vx, vy, ax, ay, dx, dy = _function("rigid").call(
                a.frame_args() + [par(c.r[0]), par(c.r[1])])
            node.set(x, y, a.phi, vx, vy, a.w, ax, ay, a.al, a.cs)
            offsets[id(c)] = (dx, dy)
        elif kind == "prismatic":
            (q, qd, qdd), = qs[id(c)]
            x, y, vx, vy, ax, ay, dx, dy = _function("prismatic").call(
                a.frame_args() + [par(c.r[0]), par(c.r[1]), q, qd, qdd])
            node.set(x, y, a.phi, vx, vy, a.w, ax, ay, a.al, a.cs)
            offsets[id(c)] = (dx, dy)
        elif kind == "revolute":
            (q, qd, qdd), = qs[id(c)]
            node.set(a.x, a.y, _B(_ADD, a.phi, q), a.vx, a.vy, _B(_ADD, a.w, qd), a.ax, a.ay,
                     _B(_ADD, a.al, qdd))
        else:                            # free
            (x, xd, xdd), (y, yd, ydd), (p, pd, pdd) = qs[id(c)]
            node.set(_B(_ADD, a.x, x), _B(_ADD, a.y, y), _B(_ADD, a.phi, p),
                     _B(_ADD, a.vx, xd), _B(_ADD, a.vy, yd), _B(_ADD, a.w, pd),
                     _B(_ADD, a.ax, xdd), _B(_ADD, a.ay, ydd), _B(_ADD, a.al, pdd))
    # bodies: energies, outputs, the flows at frame_a (inertial force minus weight)
    declared = {}                        # id(component) -> [fx, fy, tau] at frame_a
    body_out = {}
    T_all, V_all = zero, zero            # one term each (compile checks each term's symbols)
    for c in comps:
        if kinds[id(c)] not in ("body", "bodyshape"):
            continue
        a = node_of[id(c.frame_a)]
        T, V, cx, cy, vcx, vcy, Fx, Fy, tau = _function("body").call(
            a.frame_args() + [par(c._r_cm[0]), par(c._r_cm[1]), par(c._m), par(c._I)] + grav)
        T_all, V_all = _B(_ADD, T_all, T), _B(_ADD, V_all, V)
        declared[id(c)] = [Fx, Fy, tau]
        body_out[id(c)] = [("r_cm_x", cx), ("r_cm_y", cy), ("v_cm_x", vcx),
                           ("v_cm_y", vcy), ("w", a.w)]
    if body_out:
        model.potential_energy(V_all)
        model.kinetic_energy(T_all)
    # force elements, contacts and sensors on the tree's frames
    att_flows, unknown, att_out = _attached(model, comps, kinds, node_of, psym, qs)
    # flows (Newton-Euler from the leaves)
    flows = dict(att_flows)              # id(connector) -> [fx, fy, tau]
    for node in reversed(order):
        total = [zero, zero, zero]
        lost = False                     # a contact force acts in the subtree
        for cn in node.members:
            if cn is node.pos:
                continue
            c = cn.owner
            kind = kinds[id(c)]
            if kind == "attached":
                f = flows[id(cn)]
            else:
                f = declared.get(id(c), [zero, zero, zero])
                if kind != "body":
                    if id(c.frame_b) in unknown:
                        unknown.add(id(cn))
                    fb = flows[id(c.frame_b)]
                    f = [_B(_SUB, f[0], fb[0]), _B(_SUB, f[1], fb[1]),
                         _B(_SUB, f[2], fb[2])]
                    d = offsets.get(id(c))
                    if d is not None:    # the force at frame_b moved to frame_a
                        f[2] = _B(_ADD, f[2], _B(_SUB, _B(_MUL, fb[0], d[1]),
                                                     _B(_MUL, fb[1], d[0])))
                flows[id(cn)] = f
            if id(cn) in unknown:
                lost = True
            else:
                total = [_B(_ADD, t, fi) for t, fi in zip(total, f)]
        if lost:
            unknown.add(id(node.pos))
        flows[id(node.pos)] = [_B(_SUB, zero, t) for t in total]
    # outputs: every potential and flow, and the components' own (as the generic path
    # names them); flows that carry a contact force are not offered
    taken = set(model._names)
    unavailable = {}
    n_pot = 0

    def out(name, e):
        if name not in taken:
            taken.add(name)
            model.output(name, e)

    for c in comps:
        for cn in c._connectors:
            node = node_of[id(cn)]
            n_pot += 3
            for name, e in zip(("x", "y", "phi"), (node.x, node.y, node.phi)):
                out(f"{cn.path}.{name}", e)
            for name, e in zip(("fx", "fy", "tau"), flows[id(cn)]):
                if id(cn) in unknown:
                    unavailable[f"{cn.path}.{name}"] = "it is (or depends on) a contact force"
                    taken.add(f"{cn.path}.{name}")
                else:
                    out(f"{cn.path}.{name}", e)
        for name, e in body_out.get(id(c), ()) or att_out.get(id(c), ()):
            out(f"{c.path}.{name}", e)
    model._unavailable_outputs = unavailable
    _stats(model, comps, node_of, order, n_pot, t_start)
    return True


def _declare(model, comps):
    """Parameters, then coordinates, in the generic path's order: ``(parameter symbol by
    placeholder hash, [(q, q', q'')] by component id)``."""
    psym = {}
    for c in comps:
        for ln, ph, val in c._params:
            psym[ph.element_hash()] = model.parameter(f"{c.path}.{ln}", val)
    qs = {}
    for c in comps:
        for ln, ph, default, speed, speed_default in c._coords:
            sname = f"{c.path}.{speed}"
            q = model.coordinates(f"{c.path}.{ln}", default=default, speeds=sname,
                                  speed_default=speed_default)
            qs.setdefault(id(c), []).append((q, model.coords[-1]["rate"],
                                             model.acceleration(sname)))
    return psym, qs


def _stats(model, comps, node_of, order, n_pot, t_start):
    model.flatten_stats = dict(
        components=len(comps), connectors=len(node_of), potentials=n_pot, nodes=len(order),
        general_nodes=0, aliases_eliminated=n_pot, alias_elimination=0.0,
        flatten=time.perf_counter() - t_start, tree_fast_path=True)


def _attached(model, comps, kinds, node_of, psym, qs):
    """Force elements, contacts and sensors whose frames are frames of the tree: their
    expressions with the frames' potentials and rates, parameters, coordinates and time put
    in; potential energies, virtual work ``Q = -(ds/dq)^T f`` of the flows that do not come
    from an energy, contacts (as the generic path). Returns ``(flows of their connectors,
    ids of connectors whose flow is a contact force, outputs per component)``."""
    zero = ca.SX(0)
    att = [c for c in comps if kinds[id(c)] == "attached"]
    flows, unknown, outputs = {}, set(), {}
    if not att:
        return flows, unknown, outputs
    keys, vals = [], []

    def put(ph, val, rate):
        keys.append(ph)
        vals.append(val)
        info = _info(ph)
        if info is not None and info.deriv is not None:
            keys.append(info.deriv)
            vals.append(rate)

    put(TIME, model.time, ca.SX(1))
    for c in comps:
        for _, ph, _ in c._params:
            put(ph, psym[ph.element_hash()], zero)
        for (_, ph, *_), (q, qd, _) in zip(c._coords, qs.get(id(c), ())):
            put(ph, q, qd)
        for cn in c._connectors:
            if "potential_syms" in cn.__dict__:
                n = node_of[id(cn)]
                for ph, v, r in zip(cn.potential_syms, (n.x, n.y, n.phi), (n.vx, n.vy, n.w)):
                    put(ph, v, r)
    # one substitution for everything: energies, flows, virtual-work parts, contacts, outputs
    items = []                           # (what, component, key, expression)
    for c in att:
        items.extend(("V", c, None, v) for v in c._V)
        for cn, ex, energy in c._flows.values():
            if ex is None:
                unknown.add(id(cn))
                continue
            for i in range(len(cn.flows)):
                items.append(("flow", c, (cn, i), ex[i]))
                d = ex[i]
                if isinstance(energy, list):
                    d = d - energy[i]
                elif energy:
                    continue
                if d.is_zero() or d.nnz() == 0 or ca.simplify(d).is_zero():
                    continue
                items.append(("vw", c, (cn, i), d))
        for k, kw in enumerate(c._contacts):
            for key in _CONTACT_KEYS:
                v = kw.get(key)
                if isinstance(v, (list, tuple)):
                    v = ca.vertcat(*v)
                if isinstance(v, ca.SX):
                    items.append(("contact", c, (k, key), v))
        items.extend(("out", c, name, e) for name, e in c._outputs)
    done = ca.substitute([e for *_, e in items], [ca.vertcat(*keys)], [ca.vertcat(*vals)])
    contact_kw = {}
    vw_f, vw_s = [], []
    for (what, c, key, _), e in zip(items, done):
        if what == "V":
            model.potential_energy(e)
        elif what == "flow":
            cn, i = key
            flows.setdefault(id(cn), [zero, zero, zero])[i] = e
        elif what == "vw":
            cn, i = key
            n = node_of[id(cn)]
            vw_f.append(e)
            vw_s.append((n.x, n.y, n.phi)[i])
        elif what == "contact":
            contact_kw[(id(c), *key)] = e
        else:
            outputs.setdefault(id(c), []).append((key, e))
    for c in att:
        for cn in c._connectors:
            flows.setdefault(id(cn), [zero, zero, zero])
    coords = ca.vertcat(*[co["sym"] for co in model.coords]) if model.coords else \
        ca.SX(0, 1)
    if vw_f and coords.numel():
        J = ca.jacobian(ca.vertcat(*vw_s), coords)
        Q = -ca.mtimes(J.T, ca.vertcat(*vw_f))
        for j, co in enumerate(model.coords):
            if not Q[j].is_zero():
                model.generalized_force(Q[j], co["sym"])
    problems = []
    for c in att:
        for k, kw in enumerate(c._contacts):
            kw = dict(kw)
            name = f"{c.path}.{kw.pop('name')}"
            for key in _CONTACT_KEYS:
                if (id(c), k, key) in contact_kw:
                    kw[key] = contact_kw[(id(c), k, key)]
            g = kw.get("gap")
            if isinstance(g, ca.SX) and (not coords.numel() or not ca.depends_on(g, coords)):
                problems.append(f"model '{model.name}': {c.path}: contact '{name}' has a gap "
                                "that no coordinate changes (its flange is fixed, not on a "
                                "mass or an inertia); connect it to a moving body")
                continue
            model.contact(name, **kw)
    if problems:
        raise ModelError(problems)
    return flows, unknown, outputs
