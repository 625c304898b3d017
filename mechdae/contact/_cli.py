"""``mechdae regions MODEL.py``: map the outcome of an impact over (alpha, gamma) as a PNG.

The model file must define ``impact_state(alpha, gamma) -> (q, v)`` (dicts by name), as
models/two_link_impact.py does (seed 000). Every grid point is one impact problem; the
whole grid is assembled with one mapped CasADi call and solved with one C call
(``System.impact_batch``). Colors: no consistent impact, B leaves, B slides, B stays,
several solutions (ambiguous).
"""
import sys
import time

import numpy as np

__all__ = ["add_parser", "regions", "region_map"]

CLASSES = ("inconsistent", "leaves", "slides", "stays", "ambiguous")


def add_parser(subparsers):
    """Register the ``regions`` subcommand."""
    p = subparsers.add_parser("regions", help="impact outcome map over (alpha, gamma)",
                              description=__doc__.splitlines()[0])
    p.add_argument("model", help="model file defining build() and impact_state(alpha, gamma)")
    p.add_argument("--f", type=float, default=0.5, help="friction coefficient of contact B")
    p.add_argument("--contact", default="B", help="contact whose mode is mapped")
    p.add_argument("--n", type=int, default=200, help="grid points per axis")
    p.add_argument("--out", default="regions.png", help="PNG path")
    p.set_defaults(func=regions)
    return p


def region_map(system, impact_state, f=0.5, n=200, contact="B", param="f"):
    """Classify the impact outcome on an ``n x n`` grid of ``(alpha, gamma)``.

    Returns
    -------
    alpha : ndarray (n,)
    gamma : ndarray (n,)
    cls : ndarray of int (n, n)
        Index into :data:`CLASSES`, ``cls[i, j]`` for ``alpha[i], gamma[j]``.
    """
    alpha = np.linspace(0.01, np.pi / 2 - 0.01, n)
    gamma = np.linspace(-np.pi + 0.01, -0.01, n)
    A, G = np.meshgrid(alpha, gamma, indexing="ij")
    try:        # vectorized impact_state (numpy in, dicts of arrays out)
        qs, vs = impact_state(A.ravel(), G.ravel())
    except TypeError:   # a scalar-only impact_state: one call per grid point
        pts = [system.state_arrays(*impact_state(a, g))[:2] for a, g in zip(A.flat, G.flat)]
        qs = np.array([p[0] for p in pts])
        vs = np.array([p[1] for p in pts])
    out = system.impact_batch(qs, vs, params={param: f}, energy="report")
    modes = out.mode(contact)
    cls = np.zeros(A.size, dtype=int)
    cls[modes == "separate"] = 1
    cls[modes == "slide"] = 2
    cls[modes == "stick"] = 3
    cls[out.status == "ambiguous"] = 4
    cls[out.status == "inconsistent"] = 0
    return alpha, gamma, cls.reshape(n, n)


def regions(args, out=sys.stdout):
    """Execute ``mechdae regions``; returns the exit status."""
    from ..loader import load_module
    mod = load_module(args.model)
    if not hasattr(mod, "impact_state"):
        raise ValueError(f"{args.model}: the model file must define impact_state(alpha, gamma)")
    system = mod.build().compile()
    t0 = time.perf_counter()
    alpha, gamma, cls = region_map(system, mod.impact_state, args.f, args.n, args.contact)
    dt = time.perf_counter() - t0
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib import patheffects
        from matplotlib.colors import ListedColormap
    except ImportError as exc:   # pragma: no cover
        raise ValueError("matplotlib is needed for the region map (pip install "
                         "mechdae[plot])") from exc
    colors = ["#444444", "#4c9be8", "#f2a541", "#59c36a", "#d64550"]
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    ax.pcolormesh(np.degrees(alpha), np.degrees(gamma), cls.T, cmap=ListedColormap(colors),
                  vmin=-0.5, vmax=4.5, shading="nearest")
    ax.set_xlabel("alpha (deg)")
    ax.set_ylabel("gamma (deg)")
    ax.set_title(f"{system.name}: contact {args.contact}, f = {args.f:g}")
    from matplotlib.patches import Patch
    handles = [Patch(color=c, label=l) for c, l in zip(colors, CLASSES)]
    if hasattr(mod, "boundary_curves"):     # the paper's closed-form boundaries, if given
        a = np.linspace(alpha[0], alpha[-1], 400)
        for (name, gam), style in zip(mod.boundary_curves(a).items(), ("-", "--", ":", "-.")):
            gam = np.where((gam > gamma[0]) & (gam < gamma[-1]), gam, np.nan)
            gam[1:][np.abs(np.diff(gam)) > 0.3] = np.nan    # no lines across branch jumps
            handles += ax.plot(np.degrees(a), np.degrees(gam), "k", ls=style, lw=1.0, label=name,
                               path_effects=[patheffects.withStroke(linewidth=2.5, foreground="w")])
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    plt.close(fig)
    counts = {c: int((cls == i).sum()) for i, c in enumerate(CLASSES)}
    print(f"{args.out}: {cls.size} impacts in {dt * 1e3:.1f} ms; {counts}", file=out)
    return 0
