"""A drawing evaluated along a run: every shape's anchors as world poses over time.

The shapes come from the model (:func:`model_shapes`): the ``drawing()`` method of every
component (planar and spatial frames, 1-D flanges), of every rigid body
(``Model.rigid_body``) and the drawings declared by hand with ``Model.draw``. A frame's
pose is read from the run by name (every frame's potentials are outputs of the flattened
model: ``"l1.frame_a.x"``, ``"top.frame_a.R[1,2]"``), so nothing is derived twice.

1-D components are laid out as a schematic: each translational network (flanges joined by
components) gets its own horizontal line, a flange sits at ``x = s``; each rotational
network gets its own line too, its shafts (the nodes of an inertia's two flanges, or of a
spring's end) side by side, turned by ``phi``. 1-D elements on a joint's drive flanges
(``useAxisFlange``) are left to the joint's own drawing. An electrical branch is a bar from
the potential of its pin ``n`` to that of ``p`` (volts upward), one place per branch.
"""
import numpy as np

from .shapes import Anchor, Param, Shape

__all__ = ["Scene", "model_shapes"]


def model_shapes(model):
    """Every shape the model draws: components, rigid bodies, then ``Model.draw``."""
    shapes = []
    for top in model.components:
        for c in top.walk():
            draw = getattr(c, "drawing", None)
            if callable(draw):
                shapes.extend(draw())
    shapes.extend(_robot_visuals(model))
    for b in model.bodies:
        draw = getattr(b, "drawing", None)
        if callable(draw):
            shapes.extend(draw())
    for d in model.drawings:
        shapes.append(_declared(d))
    return shapes


def _robot_visuals(model):
    """The visuals of a robot file (``robots.load_urdf`` / ``load_mjcf``) on their links'
    frames."""
    desc, links = getattr(model, "description", None), getattr(model, "links", None)
    if desc is None or not isinstance(links, dict):
        return []
    out = []
    for name, link in desc.links.items():
        frame = links.get(name)
        for k, g in enumerate(getattr(link, "visuals", []) or []):
            if frame is not None:
                out.append(Shape("visual", f"{name}.visual{k}", [Anchor(frame)], geometry=g))
    return out


def _declared(d):
    """A ``Model.draw`` declaration as a Shape of world-expression anchors."""
    anchors = [Anchor(position=p) for p in d["points"]]
    kind, n = d["kind"], len(anchors)
    if kind == "surface":
        return Shape("line", d["name"], anchors)
    if kind == "point":
        return Shape("point", d["name"], anchors[:1], contact=d["name"])
    if n == 1:
        return Shape("sphere", d["name"], anchors, size=("expr", d["radius"]))
    if n == 2:
        return Shape("capsule", d["name"], anchors)
    return Shape("polygon", d["name"], anchors)


def _rz(phi):
    c, s = np.cos(phi), np.sin(phi)
    R = np.zeros(phi.shape + (3, 3))
    R[..., 0, 0], R[..., 0, 1], R[..., 1, 0], R[..., 1, 1] = c, -s, s, c
    R[..., 2, 2] = 1.0
    return R


class _Nodes:
    """Connectors joined by connections (union-find over ``id(connector)``)."""

    def __init__(self, model):
        self.parent = {}
        for conn in list(model.connections) + [cn for top in model.components
                                               for c in top.walk() for cn in c._connections]:
            for c in conn[1:]:
                self.union(conn[0], c)

    def find(self, c):
        k = id(c) if not isinstance(c, int) else c
        while self.parent.get(k, k) != k:
            k = self.parent[k]
        return k

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb


class Scene:
    """The shapes of a model with their anchors evaluated along a Result.

    Attributes
    ----------
    t : array (N,)
    shapes : list of Shape
        The shapes drawn (those on a joint's drive flanges left out).
    dim : int
        2 (planar and 1-D) or 3 (a spatial frame or a 3-D expression somewhere).
    scale : float
        Extent of the motion (m): the largest span of the anchors' positions.
    """

    def __init__(self, res, model, shapes=None):
        self.res = res
        self.t = np.asarray(res.t, float)
        self.N = self.t.size
        self._params = dict(zip(getattr(res.system, "p_names", []),
                                np.asarray(res.params, float).ravel()))
        self._series = {}
        self._poses = {}
        self._branch = {}                 # electrical branches: owner -> place on x
        shapes = model_shapes(model) if shapes is None else shapes
        self._layout_1d(model, shapes)
        shapes = [s for s in shapes if all(self._drawable(a) for a in s.anchors)]
        # a circuit is drawn alone; beside mechanics (a motor's rotor) it is left out
        mech = [s for s in shapes if not _electrical(s)]
        self.shapes = mech or shapes
        self.dim = 3 if any(self._is3d(a) for s in self.shapes for a in s.anchors) else 2
        # the extent of what moves (surfaces and planes drawn by hand reach far)
        moving = [s for s in self.shapes if s.kind not in ("line", "plane")] or self.shapes
        pts = [self.point(a) for s in moving for a in s.anchors]
        for s in self.shapes:
            if s.kind == "plane" and not pts:
                p0 = [self.value(v) for v in s.extra["p0"]] + [0.0] * 3
                pts.append(np.array(p0[:3]).reshape(1, 3))
        P = np.vstack([p.reshape(-1, 3) for p in pts]) if pts else np.zeros((1, 3))
        span = float(np.max(P.max(axis=0) - P.min(axis=0)))
        self.lo, self.hi = P.min(axis=0), P.max(axis=0)
        self.scale = span if span > 1e-9 else 1.0

    # ------------------------------------------------------------------ values
    def value(self, v):
        """A number or :class:`Param` as a float (the run's parameter value)."""
        if isinstance(v, Param):
            return float(self._params.get(v.name, v.default))
        return float(v)

    def _get(self, name):
        if name not in self._series:
            self._series[name] = np.asarray(self.res[name], float).reshape(self.N)
        return self._series[name]

    def size(self, shape, default):
        """The shape's size (m), or ``default * scale``."""
        s = shape.size
        if isinstance(s, tuple) and s[0] == "expr":
            return np.asarray(self.res.evaluate(s[1]), float).reshape(self.N) \
                if s[1] is not None else np.full(self.N, default * self.scale)
        if s is None and shape.kind == "rotor":
            return np.full(self.N, 0.35 * self._gap)
        if s is None:
            return np.full(self.N, default * self.scale)
        return np.full(self.N, self.value(s))

    # ------------------------------------------------------------------ poses
    def pose(self, a):
        """``(P (N, 3), R (N, 3, 3))``: origin and axes of the anchor's frame."""
        key = id(a.connector) if a.connector is not None else id(a)
        if key in self._poses:
            return self._poses[key]
        c = a.connector
        if c is None:
            P = np.asarray(self.res.evaluate(_vcat(a.position)), float).reshape(self.N, -1)
            P = np.hstack([P, np.zeros((self.N, 3 - P.shape[1]))])
            if a.rotation is None:
                R = np.broadcast_to(np.eye(3), (self.N, 3, 3))
            elif a.rotation.numel() == 1:
                R = _rz(np.asarray(self.res.evaluate(a.rotation), float).reshape(self.N))
            else:
                R = np.asarray(self.res.evaluate(a.rotation), float).reshape(self.N, 3, 3)
        elif c.domain == "planar":
            p = c.path
            P = np.stack([self._get(f"{p}.x"), self._get(f"{p}.y"), np.zeros(self.N)], axis=1)
            R = _rz(self._get(f"{p}.phi"))
        elif c.domain == "spatial":
            p = c.path
            P = np.stack([self._get(f"{p}.r[{k}]") for k in (1, 2, 3)], axis=1)
            R = np.stack([np.stack([self._get(f"{p}.R[{i},{j}]") for j in (1, 2, 3)], axis=1)
                          for i in (1, 2, 3)], axis=1)
        elif c.domain == "translational":
            P = np.stack([self._get(f"{c.path}.s"), np.full(self.N, self._lane[self._nodes.find(c)]),
                          np.zeros(self.N)], axis=1)
            R = np.broadcast_to(np.eye(3), (self.N, 3, 3))
        elif c.domain == "rotational":
            x, y = self._slot[self._nodes.find(c)]
            P = np.tile([x, y, 0.0], (self.N, 1))
            R = _rz(self._get(f"{c.path}.phi"))
        elif c.domain == "electrical":
            x = self._branch.setdefault(id(c.owner), float(len(self._branch)))
            P = np.stack([np.full(self.N, x), self._get(f"{c.path}.v"), np.zeros(self.N)],
                         axis=1)
            R = np.broadcast_to(np.eye(3), (self.N, 3, 3))
        else:
            raise ValueError(f"drawing: {c.describe()} cannot place a shape (frames, "
                             "flanges and pins only)")
        self._poses[key] = (P, R)
        return P, R

    def point(self, a):
        """World position (N, 3) of the anchor's point (its offset, turning with it)."""
        P, R = self.pose(a)
        if a.connector is None or a.connector.domain not in ("planar", "spatial"):
            return P
        off = np.array([self.value(v) for v in a.offset])
        return P + R @ off if off.any() else P

    def _is3d(self, a):
        if a.connector is not None:
            return a.connector.domain == "spatial"
        return a.position is not None and len(_as_list(a.position)) == 3

    def _drawable(self, a):
        c = a.connector
        if c is None or c.domain in ("planar", "spatial", "electrical"):
            return True
        k = self._nodes.find(c)
        return k not in self._joint_nodes and (k in self._lane or k in self._slot)

    # ------------------------------------------------------------------ 1-D layout
    def _layout_1d(self, model, shapes):
        """Lines for the translational and rotational networks, places for the shafts."""
        self._nodes = nodes = _Nodes(model)
        self._joint_nodes = set()
        comps = [c for top in model.components for c in top.walk()]
        for c in comps:
            if getattr(c, "_joint", False):
                for name in ("axis", "support"):
                    if hasattr(c, name) and name in c.__dict__:
                        self._joint_nodes.add(nodes.find(getattr(c, name)))
        flanges = {"translational": [], "rotational": []}
        nets = _Nodes.__new__(_Nodes)
        nets.parent = {}
        for c in comps:
            own = [cn for cn in c._connectors if cn.domain in flanges]
            for cn in own:
                flanges[cn.domain].append(cn)
            for cn in own[1:]:
                if cn.domain == own[0].domain:
                    nets.union(nodes.find(own[0]), nodes.find(cn))
        shafts = _Nodes.__new__(_Nodes)
        shafts.parent = {}
        for s in shapes:
            if s.kind == "rotor" and len(s.anchors) == 2:
                shafts.union(nodes.find(s.anchors[0].connector),
                             nodes.find(s.anchors[1].connector))
        self._lane, self._slot = {}, {}
        lanes, k = {}, 0
        for dom in ("translational", "rotational"):
            places = {}
            for cn in flanges[dom]:
                node = nodes.find(cn)
                if node in self._joint_nodes:
                    continue
                net = nets.find(node)
                if net not in lanes:
                    lanes[net] = k
                    k += 1
                y = -lanes[net]
                if dom == "translational":
                    self._lane[node] = y
                else:
                    shaft = shafts.find(node)
                    if shaft not in places:
                        places[shaft] = sum(1 for s in places if nets.find(s) == net)
                    self._slot[node] = (float(places[shaft]), y)
        # lines one half of the translational motion's extent apart (1 without it); the
        # shafts of a rotational line as far apart as the lines
        ss = [self._get(f"{cn.path}.s") for cn in flanges["translational"]
              if nodes.find(cn) in self._lane]
        span = float(np.ptp(np.concatenate(ss))) if ss else 0.0
        gap = 0.5 * span if span > 1e-9 else 1.0
        self._gap = gap
        self._lane = {n: y * gap for n, y in self._lane.items()}
        self._slot = {n: (x * gap, y * gap) for n, (x, y) in self._slot.items()}


def _electrical(s):
    return bool(s.anchors) and all(a.connector is not None and
                                   a.connector.domain == "electrical" for a in s.anchors)


def _as_list(p):
    try:
        return list(p)
    except TypeError:
        return [p[i] for i in range(p.numel())]


def _vcat(p):
    import casadi as ca
    if isinstance(p, (ca.SX, ca.MX, ca.DM)):
        return p
    return ca.vertcat(*p)
