"""Animations of planar runs: bodies, contact points and surfaces over time (matplotlib).

What is drawn is declared in the model with :meth:`mechdae.Model.draw` (bodies as
polygons, bars or discs; points; surfaces), in world coordinates as expressions of the
coordinates, parameters and time. Every expression is evaluated once along the whole run
(one mapped CasADi call per drawing); a frame shows the output point nearest to its time,
so a frame is a configuration the simulation computed, not an interpolation of two.
A ``"point"`` drawing named like a contact is red while that contact is closed
(``gap <= tol``) and grey while it is open.
"""
import os

import numpy as np

from .plot import _pyplot

__all__ = ["animate_result"]

MAX_FRAMES = 600


def _evaluate_drawings(res, model):
    """name -> dict(kind, xy (N, k, 2), radius (N,) or None)."""
    import casadi as ca
    out = {}
    for d in model.drawings:
        flat = [c for p in d["points"] for c in p]
        vals = res.evaluate(ca.vertcat(*flat))
        vals = np.asarray(vals, float).reshape(res.t.size, -1)
        xy = vals.reshape(res.t.size, len(d["points"]), 2)
        r = None
        if d["radius"] is not None:
            r = np.asarray(res.evaluate(d["radius"]), float).reshape(-1)
        out[d["name"]] = dict(kind=d["kind"], xy=xy, radius=r)
    return out


def _contact_gaps(res, model):
    gaps = {}
    for c in model.contacts:
        try:
            gaps[c.name] = np.asarray(res.evaluate(c.gap), float).reshape(res.t.size, -1)[:, 0]
        except (RuntimeError, ValueError):
            continue
    return gaps


def _limits(shapes):
    pts = [s["xy"].reshape(-1, 2) for s in shapes.values() if s["kind"] != "surface"]
    if not pts:
        pts = [s["xy"].reshape(-1, 2) for s in shapes.values()]
    P = np.vstack(pts)
    rad = max([float(np.max(s["radius"])) for s in shapes.values()
               if s["radius"] is not None] or [0.0])
    lo, hi = P.min(axis=0) - rad, P.max(axis=0) + rad
    span = max(float(np.max(hi - lo)), 1e-9)
    pad = 0.08 * span
    return (lo[0] - pad, hi[0] + pad), (lo[1] - pad, hi[1] + pad)


def animate_result(res, path=None, fps=25, speed=1.0, show=False, tol=1e-6, dpi=80,
                   max_frames=MAX_FRAMES):
    """Animate a planar run; see :meth:`mechdae.Result.animate`."""
    model = getattr(res.system, "parent", None)
    if model is None:
        raise ValueError(f"Result.animate(): the Result of '{res.name}' has no System (it was "
                         "loaded from a file); simulate again, or Result.open(path, system=sys)")
    if not getattr(model, "drawings", None):
        raise ValueError(f"Result.animate(): model '{model.name}' declares nothing to draw; "
                         "add bodies, contact points and surfaces with m.draw(name, points, "
                         "kind=...) (see models/rocking_block.py)")
    if not (fps > 0 and speed > 0):
        raise ValueError(f"Result.animate(): fps and speed must be > 0, got {fps}, {speed}")
    writer = None
    if path is not None:
        ext = os.path.splitext(str(path))[1].lower()
        if ext not in (".gif", ".mp4"):
            raise ValueError(f"Result.animate(): {path!r}: write a '.gif' (Pillow) or '.mp4' "
                             "(ffmpeg) file")
    plt = _pyplot(path, show, "Result.animate()")
    from matplotlib import animation
    from matplotlib.patches import Circle, Polygon
    if path is not None:
        if ext == ".gif":
            writer = animation.PillowWriter(fps=fps)
        else:
            if not animation.FFMpegWriter.isAvailable():
                raise ValueError(f"Result.animate(): {path!r} needs ffmpeg on the PATH; "
                                 "write a '.gif' instead")
            writer = animation.FFMpegWriter(fps=fps)
    t = np.asarray(res.t, float)
    shapes = _evaluate_drawings(res, model)
    gaps = _contact_gaps(res, model)
    n_frames = int(min(max_frames, max(2, np.floor((t[-1] - t[0]) / speed * fps) + 1)))
    frame_t = np.linspace(t[0], t[-1], n_frames)
    idx = np.clip(np.searchsorted(t, frame_t), 0, t.size - 1)
    prev = np.clip(idx - 1, 0, t.size - 1)
    idx = np.where(np.abs(t[prev] - frame_t) < np.abs(t[idx] - frame_t), prev, idx)

    fig, ax = plt.subplots(figsize=(6, 4.5))
    (x0, x1), (y0, y1) = _limits(shapes)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_title(res.name)
    artists = {}
    for name, s in shapes.items():
        xy = s["xy"][idx[0]]
        if s["kind"] == "surface":
            (a,) = ax.plot(xy[:, 0], xy[:, 1], color="0.35", lw=2, zorder=1)
        elif s["kind"] == "point":
            (a,) = ax.plot(xy[:, 0], xy[:, 1], "o", ms=6, color="0.5", zorder=4, label=name)
        elif xy.shape[0] == 1:
            a = Circle(xy[0], s["radius"][idx[0]] if s["radius"] is not None else 0.02,
                       fc="tab:blue", ec="k", alpha=0.8, zorder=2)
            ax.add_patch(a)
        elif xy.shape[0] == 2:
            (a,) = ax.plot(xy[:, 0], xy[:, 1], "-", lw=4, color="tab:blue",
                           solid_capstyle="round", zorder=2)
        else:
            a = Polygon(xy, closed=True, fc="tab:blue", ec="k", alpha=0.8, zorder=2)
            ax.add_patch(a)
        artists[name] = a
    clock = ax.text(0.02, 0.95, "", transform=ax.transAxes, fontsize="small")

    def update(f):
        k = idx[f]
        for name, s in shapes.items():
            a, xy = artists[name], s["xy"][k]
            if isinstance(a, Circle):
                a.center = tuple(xy[0])
                if s["radius"] is not None:
                    a.set_radius(s["radius"][k])
            elif isinstance(a, Polygon):
                a.set_xy(xy)
            else:
                a.set_data(xy[:, 0], xy[:, 1])
            if s["kind"] == "point" and name in gaps:
                a.set_color("tab:red" if gaps[name][k] <= tol else "0.5")
        clock.set_text(f"t = {t[k]:.3f} s")
        return list(artists.values()) + [clock]

    anim = animation.FuncAnimation(fig, update, frames=n_frames, interval=1000.0 / fps,
                                   blit=False)
    anim.frame_times = t[idx]
    if writer is not None:
        anim.save(str(path), writer=writer, dpi=dpi)
    if show:
        plt.show()
    elif path is not None:
        plt.close(fig)
    return anim
