"""A self-contained 3-D page of a run: meshcat's viewer (three.js) with the motion as an
animation clip, played with its own controls (play, pause, a time slider, speed).

The page embeds meshcat's JavaScript bundle (``main.min.js``, shipped with the ``meshcat``
Python package, the ``view`` extra) and the scene as meshcat commands packed with
msgpack, as meshcat's own static HTML export does: it needs no server and no network.
Every shape of the :class:`~mechdae.simulate.scene.Scene` becomes a meshcat object
(spheres, cylinders, boxes, frame triads, planes) whose pose, and for springs and bars
between moving points its length, are keyframe tracks at the frames' output points (the
nearest computed configuration, as in the GIF). A contact point turns red while closed.
Planar and 1-D scenes are shown in the world's x-z plane (z up). A polygon drawn with
``Model.draw`` moves rigidly with its first two points (exact for a rigid body's outline).
"""
import base64
import os

import numpy as np

__all__ = ["write_html", "html_page", "Page"]


def _meshcat():
    try:
        import meshcat
        from meshcat import animation, commands, geometry as g
        from meshcat.path import Path
        import umsgpack
    except ImportError as exc:
        raise ImportError("Result.animate('....html') needs meshcat: pip install "
                          "'mechdae[view]'") from exc
    return meshcat, animation, commands, g, Path, umsgpack


def _frame_from_y(d):
    """Rotation whose y axis is the unit vector ``d`` (meshcat cylinders lie along y)."""
    d = d / max(np.linalg.norm(d), 1e-300)
    a = np.array([1.0, 0.0, 0.0]) if abs(d[0]) < 0.9 else np.array([0.0, 0.0, 1.0])
    x = np.cross(d, a)
    x /= np.linalg.norm(x)
    return np.column_stack([x, d, np.cross(x, d)])


def _T(P, R):
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, P
    return T


class _Builder:
    """Objects and keyframe tracks of one scene."""

    def __init__(self, scene, idx, tol, gaps):
        _, self.anim_mod, self.cmd, self.g, self.Path, self.pack = _meshcat()
        self.scene, self.idx, self.tol, self.gaps = scene, idx, tol, gaps
        self.objects = []                 # SetObject commands
        self.anim = self.anim_mod.Animation(default_framerate=30)
        from ._paint2d import DEFAULTS
        self.defaults = DEFAULTS

    def path(self, i, part=""):
        return self.Path(("mechdae", f"s{i}{part}"))

    def material(self, color, opacity=1.0):
        return self.g.MeshLambertMaterial(color=color, opacity=opacity,
                                          transparent=opacity < 1.0)

    def add(self, path, geom, mat, poses, scale=None, visible=None):
        """An object at ``path`` moved through ``poses`` (list of 4x4, one per frame)."""
        self.objects.append(self.cmd.SetObject(geom, mat, path))
        for f, T in enumerate(poses):
            with self.anim.at_frame(_Vis(path), f) as fr:
                fr.set_transform(T)
                if scale is not None:
                    fr.set_property("scale", "vector3", [float(x) for x in scale[f]])
                if visible is not None:
                    fr.set_property("visible", "boolean", bool(visible[f]))

    def size(self, s, kind=None):
        kind = kind or s.kind
        d = self.defaults["rod" if s.extra.get("rod") else kind] if kind in self.defaults \
            else 0.02
        return self.scene.size(s, d)[self.idx]


class _Vis:
    """What meshcat's AnimationFrameVisualizer needs of a visualizer: a path."""

    def __init__(self, path):
        self.path = path


def _shape_objects(b, i, s):
    """Add the meshcat objects of shape ``s`` (number ``i``) to builder ``b``."""
    sc, g, idx = b.scene, b.g, b.idx
    pts = [sc.point(a)[idx] for a in s.anchors]
    kind, color = s.kind, _css(s)
    if kind in ("sphere", "point", "joint") and s.extra.get("style") != "prismatic":
        r = b.size(s, "point" if kind == "point" and s.size is None else kind)
        if kind == "joint" and s.extra.get("style") == "revolute":
            _, R = sc.pose(s.anchors[0])
            axis = np.asarray(s.extra.get("axis", (0, 0, 1)), float)
            poses = [_T(p, Rk @ _frame_from_y(axis)) for p, Rk in zip(pts[0], R[idx])]
            b.add(b.path(i), g.Cylinder(1.0, 1.0), b.material(0xdddddd), poses,
                  scale=[(rk, 2.5 * rk, rk) for rk in r])
            return
        poses = [_T(p, np.eye(3)) for p in pts[0]]
        scale = [(rk, rk, rk) for rk in r]
        b.add(b.path(i), g.Sphere(1.0), b.material(color, 0.9), poses, scale=scale)
        gap = b.gaps.get(s.extra.get("contact"))
        if kind == "point" and gap is not None:
            closed = gap[idx] <= b.tol
            b.add(b.path(i, "_closed"), g.Sphere(1.0), b.material(0xd62728), poses,
                  scale=[(1.05 * rk,) * 3 for rk in r], visible=closed)
        return
    if kind in ("capsule", "cylinder", "spring", "damper", "block") or \
            (kind == "joint" and len(pts) == 2):
        r = b.size(s, "rod" if kind == "joint" else kind)
        p0, p1 = pts[0], pts[1]
        L = np.linalg.norm(p1 - p0, axis=1)
        if kind == "block":
            L = np.maximum(L, sc.scale * b.defaults["block"])
        poses = [_T(0.5 * (a + c), _frame_from_y(c - a) if np.linalg.norm(c - a) > 1e-12
                    else np.eye(3)) for a, c in zip(p0, p1)]
        if kind == "block":
            geom, scale = g.Box([1.0, 1.0, 1.0]), [(rk, lk, rk) for rk, lk in zip(r, L)]
        else:
            rk = r * (0.6 if kind in ("spring", "damper") else 1.0)
            geom, scale = g.Cylinder(1.0, 1.0), [(x, lk, x) for x, lk in zip(rk, L)]
        b.add(b.path(i), geom, b.material(color, 0.55 if kind == "spring" else 0.9), poses,
              scale=scale)
        return
    if kind == "box":
        _, R = sc.pose(s.anchors[0])
        wd = np.asarray(s.extra.get("width_direction", (0, 1, 0)), float)
        w, h = b.size(s), float(s.extra.get("height", 0.0)) or None
        poses, scale = [], []
        for f, (a, c) in enumerate(zip(pts[0], pts[1])):
            e1 = (c - a) / max(np.linalg.norm(c - a), 1e-300)
            e2 = R[idx[f]] @ wd
            e2 = e2 - e1 * (e1 @ e2)
            e2 /= max(np.linalg.norm(e2), 1e-300)
            poses.append(_T(0.5 * (a + c), np.column_stack([e1, e2, np.cross(e1, e2)])))
            scale.append((np.linalg.norm(c - a), w[f], h or w[f]))
        b.add(b.path(i), g.Box([1.0, 1.0, 1.0]), b.material(color, 0.9), poses, scale=scale)
        return
    _other_objects(b, i, s, pts)


def _visual_objects(b, i, s):
    """A robot file's visual on its link frame: sphere, box, cylinder, capsule (as a
    cylinder) or mesh (the file embedded; none where it was not found)."""
    sc, g, idx = b.scene, b.g, b.idx
    geo = s.extra["geometry"]
    P, R = sc.pose(s.anchors[0])
    size = tuple(float(x) for x in geo.size)
    local = np.asarray(geo.origin, float)
    if geo.kind == "sphere":
        obj = g.Sphere(size[0])
    elif geo.kind == "box":
        obj = g.Box(list(size))
    elif geo.kind in ("cylinder", "capsule"):
        obj = g.Cylinder(size[1], size[0])          # along y in meshcat, z in the file
        local = local @ _T(np.zeros(3), np.array([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]]))
    elif geo.kind == "mesh" and geo.filename and os.path.exists(geo.filename):
        ext = os.path.splitext(geo.filename)[1].lower()
        reader = {".stl": g.StlMeshGeometry, ".obj": g.ObjMeshGeometry,
                  ".dae": g.DaeMeshGeometry}.get(ext)
        if reader is None:
            return
        obj = reader.from_file(geo.filename)
        scale = [tuple(float(x) for x in geo.scale)] * idx.size
    else:
        return
    poses = [_T(P[k], R[k]) @ local for k in idx]
    b.add(b.path(i), obj, b.material(0xb0b0b0, 0.95), poses,
          scale=scale if geo.kind == "mesh" else None)


def _other_objects(b, i, s, pts):
    """Axes, rotors, grounds, planes, Model.draw polygons and lines."""
    sc, g, idx = b.scene, b.g, b.idx
    kind = s.kind
    if kind == "visual":
        _visual_objects(b, i, s)
        return
    if kind in ("axes", "rotor", "ground"):
        _, R = sc.pose(s.anchors[0])
        r = b.size(s)
        if kind == "axes":
            poses = [_T(p, Rk) for p, Rk in zip(pts[0], R[idx])]
            b.add(b.path(i), g.triad(1.0), None, poses, scale=[(x, x, x) for x in r])
        elif kind == "rotor":
            poses = [_T(p, Rk @ _frame_from_y(np.array([0.0, 0.0, 1.0])))
                     for p, Rk in zip(pts[0], R[idx])]
            b.add(b.path(i), g.Cylinder(1.0, 1.0), b.material(0x1f77b4, 0.9), poses,
                  scale=[(x, 0.2 * x, x) for x in r])
            spoke = [_T(p + 0.5 * x * Rk[:, 0], Rk) for p, Rk, x in zip(pts[0], R[idx], r)]
            b.add(b.path(i, "_spoke"), g.Box([1.0, 1.0, 1.0]), b.material(0xffffff), spoke,
                  scale=[(x, 0.15 * x, 0.25 * x) for x in r])
        else:
            poses = [_T(p, np.eye(3)) for p in pts[0]]
            b.add(b.path(i), g.Box([1.0, 1.0, 1.0]), b.material(0x595959), poses,
                  scale=[(2 * x, 2 * x, 0.5 * x) for x in r])
        return
    if kind == "plane":
        p0 = np.array([sc.value(v) for v in s.extra["p0"]] + [0.0] * 3)[:3]
        n = np.array(list(s.extra["n"]) + [0.0] * 3)[:3]
        if sc.dim == 2:                  # a line in the plane: a thin wall across it
            t = np.array([n[1], -n[0], 0.0])
            R = np.column_stack([t, n, np.cross(t, n)])
        else:                            # thin along its local y, the normal
            R = _frame_from_y(n)
        half = 0.75 * sc.scale
        T = _T(p0 - 0.005 * sc.scale * n, R)
        b.add(b.path(i), g.Box([2 * half, 0.01 * sc.scale, 2 * half]),
              b.material(0xbbbbbb, 0.6), [T] * idx.size)
        return
    if kind == "polygon" or kind == "line":
        _polyline_objects(b, i, s, pts)


def _polyline_objects(b, i, s, pts):
    """A polygon or line moving rigidly with its first two points."""
    g = b.g
    a0, a1 = pts[0], pts[1]
    frames = []
    for a, c in zip(a0, a1):
        e1 = (c - a) / max(np.linalg.norm(c - a), 1e-300)
        e2 = np.cross([0.0, 0.0, 1.0], e1) if abs(e1[2]) < 0.9 else np.cross([1.0, 0.0, 0.0], e1)
        e2 /= np.linalg.norm(e2)
        frames.append(_T(a, np.column_stack([e1, e2, np.cross(e1, e2)])))
    T0 = np.linalg.inv(frames[0])
    local = np.array([(T0 @ np.append(p[0], 1.0))[:3] for p in pts])
    if s.kind == "polygon":
        local = np.vstack([local, local[:1]])
    seg = np.repeat(local, 2, axis=0)[1:-1].T.astype(np.float32)
    obj = g.LineSegments(g.PointsGeometry(seg), g.LineBasicMaterial(color=0x333333))
    b.add(b.path(i), obj, None, frames)


def _css(s):
    named = dict(body=0x1f77b4, rod=0x737373, spring=0xbcbd22, damper=0x8c564b,
                 joint=0xdddddd, ground=0x595959, point=0x7f7f7f, sphere=0x1f77b4,
                 capsule=0x1f77b4, box=0x1f77b4, cylinder=0x1f77b4, block=0x1f77b4)
    if s.extra.get("rod"):
        return named["rod"]
    return named.get(s.kind, 0x1f77b4)


def _placement(scene, cmd, Path):
    """The scene's centre moved to the origin (the plane (x, y) of planar and 1-D scenes
    shown as (x, z), z up), the grid and axes with it, and the camera at a distance that
    shows the whole motion."""
    R = np.eye(3) if scene.dim == 3 else \
        np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])
    centre = R @ (0.5 * (scene.lo + scene.hi))
    T = _T(-centre, R)
    shift = _T(-centre, np.eye(3))
    d = 0.9 * scene.scale
    # the camera's axes are three.js' (y up): a planar scene seen from the front (-y of
    # the world, the plane of the motion facing the viewer), a spatial one obliquely
    where = [0.0, 0.1 * d, 1.4 * d] if scene.dim == 2 else [1.2 * d, 0.6 * d, 1.2 * d]
    cam = cmd.SetProperty("position", where, Path(("Cameras", "default", "rotated", "<object>")))
    return [cmd.SetTransform(T, Path(("mechdae",))), cmd.SetTransform(shift, Path(("Grid",))),
            cmd.SetProperty("visible", False, Path(("Axes",))), cam]


def html_page(scene, fps=25, speed=1.0, tol=1e-6, max_frames=600, gaps=None):
    """The page (str): meshcat's viewer, the scene's objects and the animation clip."""
    from .animate import frame_indices
    meshcat, _, cmd, _, Path, umsgpack = _meshcat()
    idx = frame_indices(scene.t, fps, speed, max_frames)
    b = _Builder(scene, idx, tol, gaps or {})
    for i, s in enumerate(scene.shapes):
        _shape_objects(b, i, s)
    commands = list(b.objects) + _placement(scene, cmd, Path)
    for clip in b.anim.clips.values():
        clip.fps = fps
    commands.append(cmd.SetAnimation(b.anim, play=True, repetitions=1))
    js_path = os.path.join(os.path.dirname(meshcat.__file__), "viewer", "dist", "main.min.js")
    with open(js_path, encoding="utf-8") as fh:
        main_js = fh.read()
    calls = "\n".join(
        "viewer.handle_command_bytearray(_b64('%s'));"
        % base64.b64encode(umsgpack.packb(c.lower())).decode("ascii") for c in commands)
    title = scene.res.name or "mechdae"
    t = scene.t[idx]
    info = (f"{title}: t = {t[0]:.4g} .. {t[-1]:.4g} s, {idx.size} frames at {fps:g} fps "
            f"({speed:g} simulated s per s); Open Controls &gt; Animations: play, time slider")
    return _TEMPLATE.format(title=title, main_js=main_js, calls=calls, info=info,
                            times=",".join(f"{x:.6g}" for x in t))


_TEMPLATE = """<!DOCTYPE html>
<html>
<head><meta charset="utf-8"><title>{title}</title>
<style>body {{ margin: 0; }} #meshcat-pane {{ width: 100vw; height: 100vh; overflow: hidden; }}
#mechdae-info {{ position: absolute; left: 8px; bottom: 8px; font: 12px sans-serif;
color: #222; background: rgba(255,255,255,0.7); padding: 2px 6px; }}</style>
</head>
<body>
<div id="meshcat-pane"></div>
<div id="mechdae-info">{info}</div>
<div id="mechdae-status" style="display: none"></div>
<script>{main_js}</script>
<script>
function _b64(s) {{
  var raw = atob(s), out = new Uint8Array(raw.length);
  for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}}
var mechdae_errors = [];
window.addEventListener("error", function (e) {{ mechdae_errors.push(String(e.message)); }});
var _console_error = console.error;
console.error = function () {{
  mechdae_errors.push(Array.prototype.join.call(arguments, " "));
  _console_error.apply(console, arguments);
}};
var viewer = new MeshCat.Viewer(document.getElementById("meshcat-pane"));
var mechdae_frame_times = [{times}];
try {{
{calls}
}} catch (e) {{ mechdae_errors.push(String(e)); }}
function mechdae_status() {{
  var node = viewer.scene_tree.find(["mechdae"]);
  var n = node ? Object.keys(node.children).length : 0;
  var canvas = viewer.renderer.domElement;
  document.getElementById("mechdae-status").textContent = JSON.stringify({{
    objects: n, duration: viewer.animator.duration, errors: mechdae_errors,
    canvas: [canvas.width, canvas.height]}});
}}
setTimeout(mechdae_status, 500);
</script>
</body>
</html>
"""


class Page:
    """A written 3-D page: ``path``, ``html``; Jupyter shows it inline (an iframe)."""

    def __init__(self, path, html):
        self.path, self.html = str(path), html

    def __fspath__(self):
        return self.path

    def __str__(self):
        return self.path

    def __repr__(self):
        return f"Page({self.path!r}, {len(self.html)} characters)"

    def _repr_html_(self):
        import html as _html
        return ('<iframe srcdoc="%s" style="width: 100%%; height: 480px; border: none">'
                '</iframe>' % _html.escape(self.html, quote=True))


def write_html(scene, path, fps=25, speed=1.0, tol=1e-6, max_frames=600):
    """Write the page of :func:`html_page` to ``path`` (``None``: write nothing);
    returns a :class:`Page`."""
    from .animate import _contact_gaps
    page = html_page(scene, fps=fps, speed=speed, tol=tol, max_frames=max_frames,
                     gaps=_contact_gaps(scene.res, scene.res.system.parent))
    if path is not None:
        tmp = f"{path}.part"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(page)
        os.replace(tmp, path)
    return Page(path, page)
