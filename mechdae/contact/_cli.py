"""``mechdae regions MODEL.py``: map the outcome of an impact over (alpha, gamma) as a PNG.

The model file must define ``impact_state(alpha, gamma) -> (q, v)`` (dicts by name), as
models/two_link_impact.py does (seed 000). Every grid point is one impact problem; the
grid is an impact sweep (``System.impact_sweep``: chunks assembled with one mapped CasADi
call and solved with one C call each, serially or on threads, processes or a Dask cluster:
``--executor``). Colors: no consistent impact, B leaves, B slides, B stays,
and, where several solutions coexist (solved again with ``all_solutions=True``), the set of
outcomes (e.g. "stays | leaves", region IV of fig. 5). Hatched: every solution lifts another
contact off (below gamma_5 with ``build(closure=True)``: D leaves the ground, sec. 5).
``--build KEY=VALUE`` passes keyword arguments to the model's ``build()``.
"""
import functools
import sys
import time

import numpy as np

__all__ = ["add_parser", "regions", "region_map", "region_sets", "CLASSES", "SETS"]

CLASSES = ("inconsistent", "leaves", "slides", "stays", "ambiguous")

SETS = ("inconsistent", "leaves", "slides", "stays", "stays | leaves",
        "stays | leaves | slides", "leaves | slides", "stays | slides")
"""Outcome sets of :func:`region_sets` (the modes of the mapped contact over all solutions)."""

_OUTCOME = {"separate": "leaves", "slide": "slides", "stick": "stays"}


def add_parser(subparsers):
    """Register the ``regions`` subcommand."""
    p = subparsers.add_parser("regions", help="impact outcome map over (alpha, gamma)",
                              description=__doc__.splitlines()[0])
    p.add_argument("model", help="model file defining build() and impact_state(alpha, gamma)")
    p.add_argument("--f", type=float, default=0.5, help="friction coefficient of contact B")
    p.add_argument("--contact", default="B", help="contact whose mode is mapped")
    p.add_argument("--n", type=int, default=200, help="grid points per axis")
    p.add_argument("--out", default="regions.png", help="PNG path")
    p.add_argument("--build", action="append", default=[], metavar="KEY=VALUE",
                   help="keyword argument of the model's build() (a Python literal), "
                        "e.g. --build closure=True")
    p.add_argument("--executor", default=None,
                   help="serial (default), threads, processes, or a Dask scheduler address")
    p.add_argument("--workers", type=int, default=None, help="pool size (default: CPU count)")
    p.set_defaults(func=regions)
    return p


def region_map(system, impact_state, f=0.5, n=200, contact="B", param="f", **sweep):
    """Classify the impact outcome on an ``n x n`` grid of ``(alpha, gamma)``.

    ``sweep``: ``executor``, ``workers``, ``chunk``, ``progress`` of
    :meth:`System.impact_sweep`.

    Returns
    -------
    alpha : ndarray (n,)
    gamma : ndarray (n,)
    cls : ndarray of int (n, n)
        Index into :data:`CLASSES`, ``cls[i, j]`` for ``alpha[i], gamma[j]``.
    """
    alpha, gamma, df = _grid_sweep(system, impact_state, f, n, param, **sweep)
    modes, status = df[f"mode.{contact}"].to_numpy(), df["status"].to_numpy()
    cls = np.zeros(n * n, dtype=int)
    cls[modes == "separate"] = 1
    cls[modes == "slide"] = 2
    cls[modes == "stick"] = 3
    cls[status == "ambiguous"] = 4
    cls[status == "inconsistent"] = 0
    return alpha, gamma, cls.reshape(n, n)


def region_sets(system, impact_state, f=0.5, n=200, contact="B", param="f", **sweep):
    """Every consistent outcome of the impact on an ``n x n`` grid of ``(alpha, gamma)``.

    The grid is an impact sweep (``System.impact_sweep``, first solution; ``sweep``:
    its ``executor``, ``workers``, ``chunk``, ``progress``); the cells with several
    solutions are solved again one by one with ``all_solutions=True``.

    Returns
    -------
    alpha, gamma : ndarray (n,)
    sets : ndarray of int (n, n)
        Index into :data:`SETS`: the modes of ``contact`` over all solutions.
    lifts : ndarray of bool (n, n)
        Every solution lifts another contact off (mode ``"separate"``).
    """
    alpha, gamma, df = _grid_sweep(system, impact_state, f, n, param, **sweep)
    first, status = df[f"mode.{contact}"].to_numpy(), df["status"].to_numpy()
    others = [c for c in system.contact_names
              if c != contact and (df[f"mode.{c}"] != "inactive").any()]
    lifts = np.zeros(n * n, dtype=bool)
    for c in others:
        lifts |= df[f"mode.{c}"].to_numpy() == "separate"
    sets = np.array([SETS.index(_OUTCOME[m]) if m in _OUTCOME else 0 for m in first])
    sets[status == "inconsistent"] = 0
    for i in np.flatnonzero(status == "ambiguous"):
        q, v = impact_state(df["alpha"].iloc[i], df["gamma"].iloc[i])
        r = system.impact(q, v, all_solutions=True, params={param: f})
        got = {_OUTCOME[s.modes[contact]] for s in r.solutions}
        label = " | ".join(o for o in ("stays", "leaves", "slides") if o in got)
        sets[i] = SETS.index(label) if label in SETS else 0
        lifts[i] = all(any(s.modes[c] == "separate" for c in others) for s in r.solutions)
    return alpha, gamma, sets.reshape(n, n), lifts.reshape(n, n)


def _grid_sweep(system, impact_state, f, n, param, **sweep):
    """The (alpha, gamma) grid and its impact sweep (a DataFrame, one row per grid point,
    ``alpha`` varying slowest); a grid point whose problem failed raises."""
    alpha = np.linspace(0.01, np.pi / 2 - 0.01, n)
    gamma = np.linspace(-np.pi + 0.01, -0.01, n)
    df = system.impact_sweep(grid={"alpha": alpha, "gamma": gamma},
                             state=functools.partial(_positional, impact_state),
                             params={param: f}, **sweep)
    failed = np.flatnonzero(df["status"].to_numpy() == "failed")
    if failed.size:
        i = failed[0]
        raise ValueError(f"region map: the impact at alpha = {alpha[i // n]:.6g}, gamma = "
                         f"{gamma[i % n]:.6g} failed ({failed.size} of {n * n} points): "
                         f"{df['error'].iloc[i]}")
    return alpha, gamma, df


def _positional(impact_state, alpha, gamma):
    """``impact_state(alpha, gamma)`` called by position (a sweep passes keywords)."""
    return impact_state(alpha, gamma)


def _build_kwargs(items):
    import ast
    kw = {}
    for it in items:
        key, sep, val = it.partition("=")
        if not sep or not key.isidentifier():
            raise ValueError(f"--build {it!r}: expected KEY=VALUE, e.g. --build closure=True")
        try:
            kw[key] = ast.literal_eval(val)
        except (ValueError, SyntaxError):
            kw[key] = val
    return kw


def regions(args, out=sys.stdout):
    """Execute ``mechdae regions``; returns the exit status."""
    from ..loader import build_model, load_module
    mod = load_module(args.model)
    if not hasattr(mod, "impact_state"):
        raise ValueError(f"{args.model}: the model file must define impact_state(alpha, gamma)")
    build_kw = _build_kwargs(getattr(args, "build", []))
    system = build_model(mod, args.model, **build_kw).compile()
    t0 = time.perf_counter()
    alpha, gamma, cls, lifts = region_sets(system, mod.impact_state, args.f, args.n,
                                           args.contact, executor=args.executor,
                                           workers=args.workers)
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
    colors = ["#444444", "#4c9be8", "#f2a541", "#59c36a", "#d64550", "#8e44ad", "#1abc9c",
              "#c0a060"]
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    ax.pcolormesh(np.degrees(alpha), np.degrees(gamma), cls.T, cmap=ListedColormap(colors),
                  vmin=-0.5, vmax=len(SETS) - 0.5, shading="nearest")
    if lifts.any():       # another contact lifts off in every solution: hatched
        ax.contourf(np.degrees(alpha), np.degrees(gamma), lifts.T.astype(float), levels=[0.5, 1.5],
                    colors="none", hatches=["////"])
    ax.set_xlabel("alpha (deg)")
    ax.set_ylabel("gamma (deg)")
    ax.set_title(f"{system.name}: contact {args.contact}, f = {args.f:g}")
    from matplotlib.patches import Patch
    present = set(np.unique(cls).tolist())
    handles = [Patch(color=c, label=l) for i, (c, l) in enumerate(zip(colors, SETS))
               if i in present]
    if lifts.any():
        handles.append(Patch(facecolor="none", hatch="////", label="other contact lifts off"))
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
    counts = {c: int((cls == i).sum()) for i, c in enumerate(SETS) if (cls == i).any()}
    if lifts.any():
        counts["other contact lifts off"] = int(lifts.sum())
    print(f"{args.out}: {cls.size} impacts in {dt * 1e3:.1f} ms; {counts}", file=out)
    return 0
