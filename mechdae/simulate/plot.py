"""Plots of a Result: series against time with units, constraint residuals, energy, and
the events marked by kind (matplotlib, the ``plot`` extra).

Events are drawn with one call per kind (one line, its segments separated by NaN, per
kind and axis, whatever the number of events): full-height lines when there are few, a rug of short
ticks along the bottom of each axis when there are more than :data:`RUG_ABOVE` (a time-
stepping run of the column of beads has 13,000 impacts). Accumulation points (Zeno) are
marked with a thick line and named: ``t_inf`` and the contact.
"""
import numpy as np

__all__ = ["plot_result", "unit_of", "label", "EVENT_STYLE", "event_group", "RUG_ABOVE"]

#: kind -> (colour, legend label). Kinds not listed are mode switches ("switch").
EVENT_STYLE = {
    "impact": ("tab:red", "impact"),
    "liftoff": ("tab:green", "lift-off"),
    "stick": ("tab:blue", "stick"),
    "slide": ("tab:orange", "slide"),
    "switch": ("tab:purple", "switch"),
    "accumulation": ("black", "accumulation"),
}

#: More events than this on a plot: marked as a rug of short ticks, not full lines.
RUG_ABOVE = 200


def event_group(kind):
    """The plotted group of an event kind: itself when styled, else ``"switch"``
    (``close``, ``painleve``, ``energy_fallback``, ...)."""
    return kind if kind in EVENT_STYLE else "switch"


def unit_of(result, name):
    """Unit of a series (from ``Model.coordinates(..., unit=)`` / ``parameter(unit=)``);
    a speed ``der(x)`` gets ``unit(x)/s``; None when the model declares none."""
    if name == "t":
        return "s"
    units = _units(result)
    if name in units:
        return units[name]
    base = None
    if name.startswith("der(") and name.endswith(")"):
        base = name[4:-1]
    else:
        sysm = result.system
        base = getattr(sysm, "speed_of", {}).get(name) if sysm is not None else None
    if base is not None and units.get(base):
        u = units[base]
        return f"{u}/s" if u != "1" else "1/s"
    return None


def label(result, name):
    """``"name (unit)"``, or ``name`` when the unit is not declared."""
    u = unit_of(result, name)
    return f"{name} ({u})" if u else name


def _units(result):
    return getattr(result, "units", None) or {}


def _pyplot(path, show, what="Result.plot()"):
    try:
        import matplotlib
        if path is not None and not show:
            matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(f"{what} needs matplotlib: pip install 'mechdae[plot]'") from exc
    return plt


def _mark_events(axes, events):
    """One line per event group and axis (gid ``"events:<group>"``); legend entries on
    the first axis.
    Returns {group: count}."""
    groups = {}
    for e in events:
        groups.setdefault(event_group(e.kind), []).append(e.t)
    rug = len(events) > RUG_ABOVE
    for g, ts in groups.items():
        colour, name = EVENT_STYLE[g]
        kinds = sorted({e.kind for e in events if event_group(e.kind) == g} - {g})
        text = f"{name} ({', '.join(kinds)})" if kinds else name
        ts = np.asarray(ts, float)
        top = 0.06 if rug and g != "accumulation" else 1.0
        # one path for the whole kind: segments (t, 0)-(t, top) separated by NaN
        xs = np.repeat(ts, 3)
        xs[2::3] = np.nan
        ys = np.tile([0.0, top, np.nan], ts.size)
        for i, ax in enumerate(axes):
            ax.plot(xs, ys, transform=ax.get_xaxis_transform(), color=colour,
                    lw=2.0 if g == "accumulation" else 0.6,
                    alpha=1.0 if g == "accumulation" else 0.5, zorder=1 if top < 1 else 0,
                    label=f"{text}: {ts.size}" if i == 0 else None, gid=f"events:{g}")
    acc = [e for e in events if e.kind == "accumulation"]
    for e in acc[:5]:
        where = f" ({e.contact})" if e.contact else ""
        axes[0].annotate(f"accumulation t\u221e = {e.t:.6g} s{where}", xy=(e.t, 1.0),
                         xycoords=("data", "axes fraction"), xytext=(3, -12),
                         textcoords="offset points", fontsize="small", rotation=0)
    return {g: len(ts) for g, ts in groups.items()}


def plot_result(res, path=None, names=None, show=False):
    """Plot series against time; see :meth:`mechdae.Result.plot`."""
    plt = _pyplot(path, show)
    names = list(names) if names else list(res.names["q"])[:8]
    t = np.asarray(res.t)
    panels = 1 + bool(res.residuals) + (res.energy is not None)
    fig, axes = plt.subplots(panels, 1, figsize=(8, 2.6 * panels + 0.4), sharex=True,
                             squeeze=False)
    axes = axes[:, 0]
    units = {unit_of(res, n) for n in names}
    for n in names:
        axes[0].plot(t, res[n], label=n if len(units) == 1 else label(res, n))
    (u,) = units if len(units) == 1 else (None,)
    what = "coordinates" if all(n in res.names["q"] for n in names) else "series"
    axes[0].set_ylabel(label(res, names[0]) if len(names) == 1 else
                       f"{what} ({u})" if u else what)
    axes[0].set_title(res.name)
    i = 1
    if res.residuals:
        for k, r in res.residuals.items():
            r = np.asarray(r)
            # floor at machine precision so an exact zero does not stretch the axis
            axes[i].semilogy(t, np.maximum(np.abs(r.reshape(r.shape[0], -1)).max(axis=1),
                                           1e-16), label=f"|{k}|")
        axes[i].set_ylabel("constraint residual")
        axes[i].legend(loc="best", fontsize="small")
        i += 1
    if res.energy is not None:
        E = np.asarray(res.energy)
        axes[i].plot(t, E - E[0], color="0.2")
        axes[i].set_ylabel("E(t) - E(0) (J)")
    counts = _mark_events(axes, res.events)
    axes[0].legend(loc="best", fontsize="small", ncol=2 if counts else 1)
    axes[-1].set_xlabel("t (s)")
    fig.tight_layout()
    fig.event_counts = counts
    if path is not None:
        fig.savefig(path, dpi=100)
    if not show:
        plt.close(fig)
    else:
        plt.show()
    return fig
