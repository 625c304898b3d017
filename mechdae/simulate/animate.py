"""Animations of runs: bodies, joints, springs, contacts and surfaces over time.

What is drawn comes from the model (:mod:`mechdae.simulate.scene`): every component and
rigid body draws itself (its ``drawing()`` method), and :meth:`mechdae.Model.draw` adds
bodies, points and surfaces by hand, in world coordinates as expressions of the
coordinates, parameters and time. Frames are read from the run by name, expressions
evaluated once along the whole run (one mapped CasADi call each); a frame of the animation
shows the output point nearest to its time, so it is a configuration the simulation
computed, not an interpolation of two. A GIF or MP4 is drawn with matplotlib (planar and
1-D models in the plane, spatial ones in an oblique view); an ``.html`` path writes the
3-D page of :mod:`mechdae.simulate.view3d`.
A ``"point"`` drawing named like a contact is red while that contact is closed
(``gap <= tol``) and grey while it is open.
"""
import copy
import os

import numpy as np

from .plot import _pyplot

__all__ = ["animate_result", "scene_of", "frame_indices"]

MAX_FRAMES = 600


def _contact_gaps(res, model):
    gaps = {}
    for c in model.contacts:
        try:
            gaps[c.name] = np.asarray(res.evaluate(c.gap), float).reshape(res.t.size, -1)[:, 0]
        except (RuntimeError, ValueError):
            continue
    return gaps


def _limits(scene, painters):
    """Screen limits: every drawn point over the run, padded by the largest size."""
    from ._paint2d import view_axes
    V = view_axes(scene.dim)
    pts = [xy for p in painters if p.s.kind not in ("line", "plane") for xy in p.xy]
    if not pts:
        pts = [xy for p in painters for xy in p.xy] or [np.zeros((1, 2))]
    P = np.vstack(pts)
    if scene.dim == 3:
        # the corners of the motion's box, so that axes and planes fit
        box = np.array([[x, y, z] for x in (scene.lo[0], scene.hi[0])
                        for y in (scene.lo[1], scene.hi[1]) for z in (scene.lo[2], scene.hi[2])])
        P = np.vstack([P, box @ V.T])
    rad = max([float(np.max(p.size)) for p in painters] or [0.0])
    lo, hi = P.min(axis=0) - rad, P.max(axis=0) + rad
    span = max(float(np.max(hi - lo)), 1e-9)
    pad = 0.08 * span
    return (lo[0] - pad, hi[0] + pad), (lo[1] - pad, hi[1] + pad)


def frame_indices(t, fps, speed, max_frames=MAX_FRAMES):
    """Output point shown by each frame: the one nearest to the frame's time."""
    n_frames = int(min(max_frames, max(2, np.floor((t[-1] - t[0]) / speed * fps) + 1)))
    frame_t = np.linspace(t[0], t[-1], n_frames)
    idx = np.clip(np.searchsorted(t, frame_t), 0, t.size - 1)
    prev = np.clip(idx - 1, 0, t.size - 1)
    return np.where(np.abs(t[prev] - frame_t) < np.abs(t[idx] - frame_t), prev, idx)


def scene_of(res, what="Result.animate()"):
    """The :class:`~mechdae.simulate.scene.Scene` of a run (ValueError when nothing is
    drawn or the Result has no System)."""
    from .scene import Scene, model_shapes
    drawn = res.__dict__.get("_drawing_system")
    if res.system is None and drawn is not None:
        # the unified driver's Result keeps its own states in x: draw from a copy whose x
        # holds the System's extra variables only (it has none)
        res = copy.copy(res)
        res.__dict__.pop("_out_cache", None)
        res.system, res.x = drawn, np.zeros((res.t.size, len(drawn.v_names)))
    model = getattr(res.system, "parent", None)
    if model is None:
        raise ValueError(f"{what}: the Result of '{res.name}' has no System (it was "
                         "loaded from a file); simulate again, or Result.open(path, system=sys)")
    shapes = model_shapes(model)
    if not shapes:
        raise ValueError(f"{what}: model '{model.name}' declares nothing to draw: it has no "
                         "components or rigid bodies that draw themselves; add bodies, contact "
                         "points and surfaces with m.draw(name, points, kind=...) (see "
                         "models/rocking_block.py)")
    scene = Scene(res, model, shapes)
    if not scene.shapes:
        raise ValueError(f"{what}: model '{model.name}': nothing to draw outside its joints' "
                         "drive flanges; add drawings with m.draw(name, points, kind=...)")
    return scene


def _writer(path, fps):
    from matplotlib import animation
    ext = os.path.splitext(str(path))[1].lower()
    if ext == ".gif":
        return animation.PillowWriter(fps=fps)
    if not animation.FFMpegWriter.isAvailable():
        raise ValueError(f"Result.animate(): {path!r} needs ffmpeg on the PATH; "
                         "write a '.gif' instead")
    return animation.FFMpegWriter(fps=fps)


def animate_result(res, path=None, fps=25, speed=1.0, show=False, tol=1e-6, dpi=80,
                   max_frames=MAX_FRAMES):
    """Animate a run; see :meth:`mechdae.Result.animate`."""
    if not (fps > 0 and speed > 0):
        raise ValueError(f"Result.animate(): fps and speed must be > 0, got {fps}, {speed}")
    ext = os.path.splitext(str(path))[1].lower() if path is not None else None
    if ext is not None and ext not in (".gif", ".mp4", ".html"):
        raise ValueError(f"Result.animate(): {path!r}: write a '.gif' (Pillow), '.mp4' "
                         "(ffmpeg) or '.html' (3-D page) file")
    scene = scene_of(res)
    res = scene.res
    if ext == ".html":
        from .view3d import write_html
        return write_html(scene, path, fps=fps, speed=speed, tol=tol, max_frames=max_frames)
    plt = _pyplot(path, show, "Result.animate()")
    from matplotlib import animation
    from ._paint2d import painters
    writer = _writer(path, fps) if path is not None else None
    t = scene.t
    idx = frame_indices(t, fps, speed, max_frames)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    gaps = _contact_gaps(res, res.system.parent)
    paint = painters(scene, ax, tol=tol, gaps=gaps)
    for p in paint:
        p.update(idx[0])
    (x0, x1), (y0, y1) = _limits(scene, paint)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal", adjustable="box")
    electrical = all(a.connector is not None and a.connector.domain == "electrical"
                     for s in scene.shapes for a in s.anchors)
    if electrical:
        ax.set_aspect("auto")
        ax.set_xlabel("branch")
        ax.set_ylabel("potential (V)")
    elif scene.dim == 2:
        ax.set_xlabel("x (m)")
        ax.set_ylabel("y (m)")
    else:
        ax.set_axis_off()
    ax.set_title(res.name)
    clock = ax.text(0.02, 0.95, "", transform=ax.transAxes, fontsize="small")

    def update(f):
        k = idx[f]
        for p in paint:
            p.update(k)
        clock.set_text(f"t = {t[k]:.3f} s")
        return [a for p in paint for a in p.artists] + [clock]

    anim = animation.FuncAnimation(fig, update, frames=idx.size, interval=1000.0 / fps,
                                   blit=False)
    anim.frame_times = t[idx]
    anim.scene = scene
    if writer is not None:
        anim.save(str(path), writer=writer, dpi=dpi)
    if show:
        plt.show()
    elif path is not None:
        plt.close(fig)
    return anim
