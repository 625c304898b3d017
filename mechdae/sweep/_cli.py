"""``mechdae sweep MODEL.py -p name=lo:hi:n ...``: a sweep of a model file, to Parquet.

``-p name=lo:hi:n`` is a grid axis of ``n`` points from ``lo`` to ``hi``, ``-p name=a,b,c``
an axis of the values listed, ``-p name=value`` a fixed value; the runs are the Cartesian
product of the axes. A name is a parameter of the model, an initial value ``q0.x`` /
``v0.x`` (``q.x`` / ``v.x`` with ``--impact``), or, with ``--impact``, a variable of the
file's ``impact_state(...)``. ``-o`` names the outputs of each run (``-o 'count(impact)'``,
``-o top='max(y)'``). The model file's ``SIMULATION`` dict gives the defaults (t_final,
q0, v0, method), as for ``mechdae run``.
"""
import sys
import time

import numpy as np

__all__ = ["add_parser", "sweep_command", "parse_value"]


def add_parser(subparsers):
    """Register the ``sweep`` subcommand."""
    p = subparsers.add_parser("sweep", help="parameter / initial-value sweep to Parquet",
                              description=__doc__.splitlines()[0])
    p.add_argument("model", help="model file defining build()")
    p.add_argument("-p", "--param", action="append", default=[], metavar="NAME=LO:HI:N",
                   help="grid axis (lo:hi:n or a,b,c) or fixed value (repeatable)")
    p.add_argument("-o", "--output", action="append", default=[], metavar="[NAME=]SPEC",
                   help="output of each run: a series (final value), max(x), min(x), "
                        "mean(x), count(kind[, contact]), first(kind[, contact]), "
                        "last(...), max_residual, energy_lost (repeatable)")
    p.add_argument("--t-final", type=float, default=None, help="end time of each run (s)")
    p.add_argument("--method", default=None, help="simulation method (default: the file's "
                                                  "or auto)")
    p.add_argument("--impact", action="store_true",
                   help="impact problems (System.impact_sweep) instead of simulations")
    p.add_argument("--executor", default=None,
                   help="serial (default), threads, processes, or a Dask scheduler address")
    p.add_argument("--workers", type=int, default=None, help="pool size (default: CPU count)")
    p.add_argument("--chunk", type=int, default=None, help="runs per task")
    p.add_argument("--out", default=None,
                   help="Parquet directory (streamed; run again to resume)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=sweep_command)
    return p


def parse_value(name, text):
    """``lo:hi:n`` -> linspace, ``a,b,c`` -> array, ``x`` -> float."""
    text = text.strip()
    try:
        if ":" in text:
            lo, hi, n = text.split(":")
            if int(n) < 1:
                raise ValueError
            return np.linspace(float(lo), float(hi), int(n))
        if "," in text:
            return np.array([float(x) for x in text.split(",") if x.strip()])
        return float(text)
    except ValueError:
        raise ValueError(f"-p {name}={text}: expected lo:hi:n (n >= 1), a,b,c or a number") \
            from None


def _outputs(items):
    out = {}
    for it in items:
        name, sep, spec = it.partition("=")
        if sep and "(" not in name:
            out[name.strip()] = spec.strip()
        else:
            out[it.strip()] = it.strip()
    return out or None


def sweep_command(args, out=None):
    """Execute ``mechdae sweep``; returns the exit status."""
    out = sys.stdout if out is None else out
    from ..loader import build_model, load_module
    mod = load_module(args.model)
    sim = dict(getattr(mod, "SIMULATION", {}) or {})
    system = build_model(mod, args.model).compile()
    pq, pv = ("q.", "v.") if args.impact else ("q0.", "v0.")
    grid, params = {}, {}
    q0, v0 = dict(sim.get("q0") or {}), dict(sim.get("v0") or {})
    if args.impact:
        q0, v0 = {}, {}
    for item in args.param:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ValueError(f"-p expects name=lo:hi:n, name=a,b,c or name=value, got {item!r}")
        val = parse_value(name, text)
        if np.ndim(val):
            grid[name] = val
        elif name.startswith(pq):
            q0[name[len(pq):]] = val
        elif name.startswith(pv):
            v0[name[len(pv):]] = val
        else:
            params[name] = val
    for k in list(q0):      # an axis over an initial value replaces the file's default
        if pq + k in grid:
            del q0[k]
    for k in list(v0):
        if pv + k in grid:
            del v0[k]
    common = dict(grid=grid, executor=args.executor, workers=args.workers, chunk=args.chunk,
                  out=args.out, progress=False if args.no_progress else None)
    t0 = time.perf_counter()
    if args.impact:
        free = [k for k in grid if not k.startswith((pq, pv)) and k not in system.p_names]
        state = getattr(mod, "impact_state", None) if free else None
        if free and state is None:
            raise ValueError(f"{args.model}: {', '.join(free)} are not parameters; the file "
                             "must define impact_state(...) to map them to a state")
        df = system.impact_sweep(q0 or None, v0 or None, params or None, state=state, **common)
    else:
        t_final = args.t_final if args.t_final is not None else sim.get("t_final", 1.0)
        method = args.method or sim.get("method", "auto")
        df = system.sweep(params or None, q0 or None, v0 or None, t_final=t_final,
                          method=method, outputs=_outputs(args.output), **common)
    dt = time.perf_counter() - t0
    info = df.attrs.get("sweep", {})
    counts = df["status"].value_counts().to_dict() if len(df) else {}
    where = f" -> {args.out}" if args.out else ""
    print(f"{system.name}: {len(df)} runs ({info.get('ran', len(df))} run now, "
          f"{info.get('resumed', 0)} resumed) in {dt:.2f} s on {info.get('backend')} x"
          f"{info.get('workers')}{where}; status {counts}", file=out)
    with_errors = df[df["status"] == "failed"] if len(df) else df
    if len(with_errors):
        print(f"first failure (run {with_errors.index[0]}): {with_errors['error'].iloc[0]}",
              file=out)
    import pandas as pd
    with pd.option_context("display.max_columns", 12, "display.width", 120):
        print(df.head(10).to_string(max_cols=12), file=out)
    return 0
