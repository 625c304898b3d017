"""``mechdae run MODEL.py``: load a model file, simulate with its defaults, summarize, plot.

The model file defines ``build(**params)`` and optionally ``SIMULATION`` (see
:mod:`mechdae.loader`).  ``-p name=value`` entries go to ``build()`` when it accepts the
name, otherwise they override parameter values at simulate time.
"""
import inspect
import os
import sys
import time


__all__ = ["add_parser", "run"]


def add_parser(subparsers):
    """Register the ``run`` subcommand."""
    p = subparsers.add_parser("run", help="simulate a model file and plot it",
                              description=__doc__.splitlines()[0])
    p.add_argument("model", help="model file defining build(**params)")
    p.add_argument("--t-final", type=float, default=None, help="end time (s)")
    p.add_argument("--plot", default=None, help="PNG path (default <model>.png in the cwd)")
    p.add_argument("--no-plot", action="store_true", help="do not write a plot")
    p.add_argument("-p", "--param", action="append", default=[], metavar="NAME=VALUE",
                   help="build() option or parameter value (repeatable)")
    p.add_argument("--method", default=None, help="simulation method (default: the file's or auto)")
    p.add_argument("--save", default=None, help="save the Result to this .npz path")
    p.set_defaults(func=run)
    return p


def _parse_value(text):
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


_RUN_KEYS = ("t_final", "q0", "v0", "params", "method", "stabilization", "plot")


def _event_kinds(events):
    if not events:
        return ""
    counts = {}
    for e in events:
        counts[e.kind] = counts.get(e.kind, 0) + 1
    return " (" + ", ".join(f"{n} {k}" for k, n in counts.items()) + ")"


def _conservative(system):
    """Whether ``T + V`` is a first integral: no generalized forces, inputs, general
    equations or time in the energies and constraints."""
    import casadi as ca
    m, d = system.parent, system._d
    if m.forces or m.speed_forces or m.power_terms or m.inputs or m.equations:
        return False
    if system.nv + system.nz:
        return False
    E = ca.vertcat(d.T, d.V, d.phi, d.psi)
    return not ca.depends_on(E, d.t)


def run(args, out=sys.stdout):
    """Execute ``mechdae run``; returns the exit status."""
    from ..loader import load_module
    from ..errors import ModelError, SolverError
    mod = load_module(args.model)
    sim = dict(getattr(mod, "SIMULATION", {}) or {})
    kv = {}
    for item in args.param:
        if "=" not in item:
            raise ValueError(f"-p expects name=value, got {item!r}")
        k, v = item.split("=", 1)
        kv[k.strip()] = _parse_value(v.strip())
    sig = inspect.signature(mod.build)
    takes_kw = any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())
    build_kw = {k: v for k, v in kv.items() if k in sig.parameters or takes_kw}
    params = dict(sim.get("params", {}))
    params.update({k: float(v) for k, v in kv.items() if k not in build_kw})
    t_start = time.perf_counter()
    try:
        model = mod.build(**build_kw)
        stab = sim.get("stabilization", "default")
        system = model.compile(stabilization=stab)
        t_compiled = time.perf_counter()
        t_final = args.t_final if args.t_final is not None else sim.get("t_final", 1.0)
        method = args.method or sim.get("method", "auto")
        # every other SIMULATION key is a simulate() option (inputs, rtol, dt, ...)
        kw = {k: v for k, v in sim.items() if k not in _RUN_KEYS}
        res = system.simulate(t_final, q0=sim.get("q0"), v0=sim.get("v0"), params=params or None,
                              method=method, **kw)
    except (ModelError, SolverError) as exc:
        print(f"mechdae run: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    t_done = time.perf_counter()
    name = system.name
    lines = [
        f"model        {name}  ({args.model})",
        f"sizes        q={system.nq} u={system.nu} holonomic={system.m} nonholonomic={system.k} "
        f"extra={system.nv + system.nz} contacts={len(system.contact_names)}",
        f"method       {res.stats.get('method', method)}  stabilization={system.stabilization!r}",
        f"time span    [0, {res.t[-1]:g}]  ({res.t.size} output points)",
        f"events       {len(res.events)}" + _event_kinds(res.events),
        f"max drift    {res.max_drift():.3e}",
    ]
    if res.events and res.energy is not None:
        b = res.energy_balance()
        lines.append(f"energy       {b['initial']:.6g} -> {b['final']:.6g}: {b['events']:+.6g} at "
                     f"events, {b['unexplained']:+.3e} otherwise (friction work, integration)")
    elif res.energy is not None and not _conservative(system):
        lines.append(f"energy       {res.energy[0]:.6g} -> {res.energy[-1]:.6g} (forces, sources or "
                     "general equations do work: no conservation check)")
    else:
        ee = res.energy_error()
        lines.append(f"energy error {ee:.3e} (relative)" if ee is not None else "energy error n/a")
    lines.append(f"rank drops   {res.stats.get('rank_drops', 0)}")
    if res.init_report:
        lines.append("initialized  " + ", ".join(f"{k}: {a:.6g} -> {b:.6g}"
                                                 for k, (a, b) in res.init_report.items()))
    n_rhs = res.stats.get("n_rhs")
    lines.append(f"time taken   compile {t_compiled - t_start:.3f} s, simulate "
                 f"{t_done - t_compiled:.3f} s"
                 + (f" (rhs evaluations: {n_rhs})" if n_rhs is not None and n_rhs >= 0 else ""))
    if not args.no_plot:
        path = args.plot or f"{os.path.splitext(os.path.basename(args.model))[0]}.png"
        try:
            res.plot(path, names=sim.get("plot"))
            lines.append(f"plot         {path}")
        except ImportError as exc:
            lines.append(f"plot         skipped ({exc})")
    if args.save:
        res.save(args.save)
        lines.append(f"saved        {args.save}")
    print("\n".join(lines), file=out)
    return 0
