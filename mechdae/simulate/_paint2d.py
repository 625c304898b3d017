"""Shapes of a :class:`~mechdae.simulate.scene.Scene` as matplotlib artists, frame by frame.

Each shape becomes a painter: artists made once, and ``update(k)`` that moves them to the
k-th output point. Planar and 1-D scenes are drawn in the (x, y) plane; spatial scenes in
an oblique view (``view_axes``: z up, seen from azimuth -60 deg, elevation 20 deg).
Sizes left to the scene are fractions of its extent (:data:`DEFAULTS`).
"""
import numpy as np

__all__ = ["painters", "view_axes", "DEFAULTS"]

#: default size of a shape kind, as a fraction of the scene's extent
DEFAULTS = dict(axes=0.12, sphere=0.04, capsule=0.012, rod=0.006, box=0.03, cylinder=0.02,
                spring=0.025, damper=0.025, joint=0.018, point=0.008, block=0.08,
                rotor=0.3, ground=0.04)

COLORS = dict(body="tab:blue", rod="0.45", spring="tab:olive", damper="tab:brown",
              joint="white", ground="0.35", point="0.5", closed="tab:red")


def view_axes(dim, az=-60.0, el=20.0):
    """(2, 3) rows: the screen's right and up directions in world axes."""
    if dim == 2:
        return np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    a, e = np.radians(az), np.radians(el)
    right = np.array([-np.sin(a), np.cos(a), 0.0])
    d = np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])
    return np.vstack([right, np.cross(d, right)])


def _perp(p, q):
    d = q - p
    n = np.hypot(d[0], d[1])
    return np.array([-d[1], d[0]]) / n if n > 1e-12 else np.array([0.0, 1.0])


def zigzag(p, q, width, turns=8):
    """Screen polyline of a coil from p to q (2-vectors)."""
    s = np.linspace(0.0, 1.0, 2 * turns + 3)
    off = np.zeros_like(s)
    off[2:-2] = width * np.where(np.arange(s.size - 4) % 2 == 0, 1.0, -1.0)
    n = _perp(p, q)
    return p[None, :] + s[:, None] * (q - p)[None, :] + off[:, None] * n[None, :]


def dashpot(p, q, width):
    """Screen polyline of a dashpot (cylinder and piston) from p to q; NaN breaks."""
    d, n = q - p, _perp(p, q)
    m1, m2 = p + 0.35 * d, p + 0.55 * d
    w = width
    nan = np.full(2, np.nan)
    return np.vstack([p, m1, nan, m1 + w * n, m1 - w * n, nan,
                      m1 + 1.2 * w * n, m2 + 0.25 * d + 1.2 * w * n, nan,
                      m1 - 1.2 * w * n, m2 + 0.25 * d - 1.2 * w * n, nan,
                      m2 + 0.7 * w * n, m2 - 0.7 * w * n, nan, m2, q])


def _rect(p, q, half):
    n = _perp(p, q) * half
    return np.vstack([p + n, q + n, q - n, p - n])


class _Painter:
    def __init__(self, scene, shape, V):
        self.scene, self.s, self.V = scene, shape, V
        self.pts = [scene.point(a) for a in shape.anchors]
        self.xy = [P @ V.T for P in self.pts]
        self.artists = []


def painters(scene, ax, tol=1e-6, gaps=None):
    """One painter per shape, artists added to ``ax``; returns the list of painters
    (``p.update(k)``, ``p.artists``)."""
    from matplotlib.patches import Circle, Polygon
    V = view_axes(scene.dim)
    gaps = gaps or {}
    out = []
    for s in scene.shapes:
        if s.kind == "visual":           # robot visuals: the 3-D page draws them
            continue
        p = _Painter(scene, s, V)
        kind = s.kind
        size = scene.size(s, DEFAULTS["rod" if s.extra.get("rod") else kind]
                          if kind in DEFAULTS else 0.02)
        p.size = size
        color = s.color or COLORS.get("rod" if s.extra.get("rod") else kind, "tab:blue")
        if kind in ("sphere",) or (kind == "point" and s.size is not None):
            fill = kind == "sphere"
            a = Circle(p.xy[0][0], size[0], fc=color if fill else "none",
                       ec="k" if fill else COLORS["point"], alpha=0.85 if fill else 1.0,
                       zorder=3 if s.extra.get("body") else 2, lw=1.0 if fill else 1.5)
            ax.add_patch(a)
            p.update = _circle_update(p, a, gaps.get(s.extra.get("contact")), tol)
        elif kind == "joint" and s.extra.get("style") != "prismatic":
            a = Circle(p.xy[0][0], size[0], fc="white", ec="k", lw=1.2, zorder=5)
            ax.add_patch(a)
            p.update = _circle_update(p, a, None, tol)
        elif kind in ("capsule", "cylinder", "box", "block", "polygon"):
            a = Polygon(np.zeros((4, 2)), closed=True, fc=color, ec="k",
                        alpha=0.5 if s.extra.get("rod") else 0.8, zorder=2)
            ax.add_patch(a)
            p.update = _polygon_update(p, a, kind, s)
        elif kind == "rotor":
            disc = Circle((0, 0), size[0], fc="tab:blue", ec="k", alpha=0.8, zorder=2)
            ax.add_patch(disc)
            (spoke,) = ax.plot([], [], "-", color="w", lw=2, zorder=3)
            a = (disc, spoke)
            p.update = _rotor_update(p, disc, spoke)
        else:
            style = dict(point=dict(marker="o", ms=6, ls="none", zorder=4),
                         line=dict(lw=2, zorder=1), plane=dict(lw=2, zorder=1),
                         ground=dict(lw=1.5, zorder=1), axes=dict(lw=1.5, zorder=4),
                         joint=dict(lw=1.0, ls="--", zorder=1))
            (a,) = ax.plot([], [], color=color if kind != "line" else "0.35",
                           **style.get(kind, dict(lw=1.2, zorder=2)))
            p.update = _line_update(p, a, kind, gaps.get(s.extra.get("contact")), tol)
        p.artists = list(a) if isinstance(a, tuple) else [a]
        out.append(p)
    return out


def _circle_update(p, a, gap, tol):
    def update(k):
        a.center = tuple(p.xy[0][k])
        a.set_radius(p.size[k])
        if gap is not None:
            a.set_edgecolor(COLORS["closed"] if gap[k] <= tol else COLORS["point"])
    return update


def _polygon_update(p, a, kind, s):
    def update(k):
        if kind == "polygon":
            a.set_xy(np.array([xy[k] for xy in p.xy]))
            return
        x0, x1 = p.xy[0][k], p.xy[1][k]
        if kind == "block":
            half_len = 0.5 * p.scene.scale * DEFAULTS["block"]
            if np.hypot(*(x1 - x0)) < 2 * half_len:
                c = 0.5 * (x0 + x1)
                x0, x1 = c - [half_len, 0.0], c + [half_len, 0.0]
            half = 0.5 * p.size[k]
        elif kind == "box":
            half = 0.5 * p.size[k]
        else:
            half = p.size[k]
        a.set_xy(_rect(x0, x1, half))
    return update


def _rotor_update(p, disc, spoke):
    c = p.xy[0]
    _, R = p.scene.pose(p.s.anchors[0])
    tip = (R[:, :, 0] * p.size[:, None]) @ p.V.T

    def update(k):
        disc.center = tuple(c[k])
        disc.set_radius(p.size[k])
        spoke.set_data([c[k][0], c[k][0] + tip[k][0]], [c[k][1], c[k][1] + tip[k][1]])
    return update


def _axes_line(p, k):
    _, R = p.scene.pose(p.s.anchors[0])
    o = p.pts[0][k]
    L = p.size[k]
    nan = np.full(3, np.nan)
    pts = [o, o + L * R[k][:, 0], nan, o, o + L * R[k][:, 1]]
    if p.scene.dim == 3:
        pts += [nan, o, o + L * R[k][:, 2]]
    return np.array(pts) @ p.V.T


def _plane_line(p):
    sc, s = p.scene, p.s
    p0 = np.array([sc.value(v) for v in s.extra["p0"]] + [0.0] * 3)[:3]
    n = np.array(list(s.extra["n"]) + [0.0] * 3)[:3]
    half = 0.75 * sc.scale
    if sc.dim == 2:
        t = np.array([n[1], -n[0], 0.0])
        return np.array([p0 - half * t, p0 + half * t]) @ p.V.T
    t1 = np.cross(n, [1.0, 0.0, 0.0] if abs(n[0]) < 0.9 else [0.0, 1.0, 0.0])
    t1 /= np.linalg.norm(t1)
    t2 = np.cross(n, t1)
    c = np.array([p0 + half * (a * t1 + b * t2) for a, b in
                  ((1, 1), (-1, 1), (-1, -1), (1, -1), (1, 1))])
    return c @ p.V.T


def _line_update(p, a, kind, gap, tol):
    static = _plane_line(p) if kind == "plane" else None

    def update(k):
        if kind == "plane":
            xy = static
        elif kind == "axes":
            xy = _axes_line(p, k)
        elif kind == "spring":
            xy = zigzag(p.xy[0][k], p.xy[1][k], p.size[k])
        elif kind == "damper":
            xy = dashpot(p.xy[0][k], p.xy[1][k], p.size[k])
        elif kind == "ground":
            c, w = p.xy[0][k], p.size[k]
            xy = np.array([c + [-w, -w], c + [w, -w], c + [0, 0], c + [-w, -w]])
        else:
            xy = np.array([q[k] for q in p.xy])
        a.set_data(xy[:, 0], xy[:, 1])
        if gap is not None:
            a.set_color(COLORS["closed"] if gap[k] <= tol else COLORS["point"])
    return update
