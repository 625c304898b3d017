"""mechdae run MODEL.py: load a model file, simulate it with its defaults, print a summary,
and write a plot, a results file and an animation.

The model file defines build(**params) and optionally SIMULATION, a dict of defaults
(see mechdae.loader). -p name=value entries go to build() when it accepts the name,
otherwise they override parameter values at simulate time. Output paths are checked
before the run: a missing directory or an unknown extension fails at once.
"""
import argparse
import inspect
import os
import sys
import time

import numpy as np

__all__ = ["add_parser", "run", "summary_lines"]

_PLOT_EXT = (".png", ".pdf", ".svg", ".jpg", ".jpeg")


def add_parser(subparsers):
    """Register the ``run`` subcommand."""
    from . import METHODS
    doc = __doc__.split("\n\n")
    p = subparsers.add_parser("run", help="simulate a model file, summarize, plot",
                              description=doc[0], epilog="\n\n".join(doc[1:]),
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", help="model file defining build(**params)")
    p.add_argument("--t-final", type=float, default=None, help="end time in s")
    p.add_argument("--method", default=None, choices=sorted(METHODS),
                   help="simulation method (default: the file's, else auto)")
    p.add_argument("-p", "--param", action="append", default=[], metavar="NAME=VALUE",
                   help="build() option or parameter value (repeatable)")
    p.add_argument("--plot", default=None, metavar="FILE",
                   help="plot file, .png/.pdf/.svg (default: MODEL.png in the current "
                        "directory)")
    p.add_argument("--no-plot", action="store_true", help="do not write a plot")
    p.add_argument("--out", default=None, metavar="FILE",
                   help="save the Result: .h5 (HDF5), .parquet or .npz")
    p.add_argument("--save", default=None, metavar="FILE", help=argparse.SUPPRESS)
    p.add_argument("--animate", default=None, metavar="FILE",
                   help="animation of the model: .gif or .mp4 (2-D), .html (3-D page)")
    p.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="progress bar even when standard error is not a terminal")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress bar")
    p.set_defaults(func=run)
    return p


def _parse_value(text):
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def check_output(path, what, extensions):
    """Fail before the run when ``path`` cannot be written: unknown extension, missing
    or unwritable directory (ValueError naming the option and the fix)."""
    ext = os.path.splitext(str(path))[1].lower()
    if ext not in extensions:
        raise ValueError(f"{what} {path}: unknown extension {ext or '(none)'!r}; use "
                         f"{', '.join(extensions)}")
    d = os.path.dirname(os.path.abspath(str(path)))
    if not os.path.isdir(d):
        raise ValueError(f"{what} {path}: directory {d} does not exist; create it first "
                         f"(mkdir -p {d})")
    if not os.access(d, os.W_OK):
        raise ValueError(f"{what} {path}: directory {d} is not writable")
    return str(path)


_RUN_KEYS = ("t_final", "q0", "v0", "params", "method", "stabilization", "plot")


def _event_kinds(events):
    if not events:
        return ""
    counts = {}
    for e in events:
        counts[e.kind] = counts.get(e.kind, 0) + 1
    return " (" + ", ".join(f"{n} {k}" for k, n in counts.items()) + ")"


def _contact_step_lines(res):
    """Time stepping: the steps that held a closed contact, beside the impacts (a step
    with a closed contact is a contact, not an impact)."""
    n = res.stats.get("n_contact_steps")
    if n is None:
        return []
    steps = res.stats.get("steps", 0)
    return [f"contacts     {n} of {steps} steps held a closed contact (not impacts)"]


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


def _matrix(name, A, indent):
    """``name = [[...]]`` over several lines, aligned under ``indent`` spaces."""
    text = np.array2string(np.asarray(A, float) + 0.0, precision=4, suppress_small=True,
                           max_line_width=100, prefix=" " * (indent + len(name) + 3))
    return " " * indent + f"{name} = {text}"


def _stabilization_lines(stab):
    items = stab if isinstance(stab, (list, tuple)) else [stab]
    head, rows = [], []
    for s in items:
        if hasattr(s, "H") and hasattr(s, "K"):
            head.append(f"{type(s).__name__} (H, K below)")
            rows += [_matrix("H", s.H, 13), _matrix("K", s.K, 13)]
        else:
            head.append(repr(s))
    return ", ".join(head), rows


def _changed(a, b):
    """Initialization changed a value (beyond the printed 6 digits)."""
    return f"{a:.6g}" != f"{b:.6g}"


def _ledger_line(b):
    parts = [f"{b['impacts']:+.6g} impacts"]
    for key, text in (("friction", "friction"), ("constraints", "constraint work"),
                      ("forces", "applied forces"), ("projection", "gap projection")):
        if b.get(key):
            parts.append(f"{b[key]:+.6g} {text}")
    return (f"energy       {b['initial']:.6g} -> {b['final']:.6g} J: " + ", ".join(parts)
            + f", {b['integration']:+.3e} {b['label']}")


def _accumulation_lines(res):
    """The accumulation points (``t_inf`` of each contact's impact series, and the rest
    snaps of contact sets) and the time-stepping stretches of an "auto" run with their
    error bound; nothing for a run without them."""
    lines = []
    acc = [e for e in res.events if e.kind == "accumulation"]
    for e in acc[:4]:
        if e.extra.get("reason") == "rest":
            what = f"rest of {', '.join(map(repr, e.extra.get('set') or [e.contact]))}"
        else:
            what = f"t_inf at {e.contact!r}"
        lines.append(f"accumulation {what}: t = {e.t:.10g} s")
    if len(acc) > 4:
        lines.append(f"             ... {len(acc) - 4} more")
    for s in (res.stats.get("timestepping_stretches") or [])[:3]:
        lines.append(f"time stepping [{s['t_start']:.6g}, {s['t_end']:.6g}] s ({s['reason']}): "
                     f"Moreau-Jean, {s['steps']} steps of dt = {s['dt']:g} s, error "
                     f"{s['error_bound']} (largest step displacement "
                     f"{s['step_displacement']:.3g})")
    return lines


def _model_lines(mod, res):
    """Lines a model file adds to the summary: its ``summary(res)`` (e.g. a closed form to
    compare with), if it defines one."""
    hook = getattr(mod, "summary", None)
    return [str(line) for line in hook(res)] if callable(hook) else []


def summary_lines(model_path, system, res, method, t_times):
    """The lines of the run summary."""
    stab, stab_rows = _stabilization_lines(system.stabilization)
    lines = [
        f"model        {system.name}  ({model_path})",
        f"sizes        q={system.nq} u={system.nu} holonomic={system.m} nonholonomic={system.k} "
        f"extra={system.nv + system.nz} contacts={len(system.contact_names)}",
        f"method       {res.stats.get('method', method)}  stabilization={stab}",
    ] + stab_rows + [
        f"time span    [{res.t[0]:g}, {res.t[-1]:g}] s  ({res.t.size} output points)",
        f"events       {len(res.events)}" + _event_kinds(res.events),
    ] + _contact_step_lines(res) + _accumulation_lines(res) + [
        f"max drift    {res.max_drift():.3e}",
    ]
    b = res.energy_balance() if res.energy is not None else None
    if b is None:
        lines.append("energy error n/a")
    elif res.events or not _conservative(system) or b["impacts"] or b["friction"] \
            or b["forces"]:
        lines.append(_ledger_line(b))
    else:
        lines.append(f"energy error {res.energy_error():.3e} (relative; "
                     f"{b['integration']:+.3e} J integration error)")
    lines.append(f"rank drops   {res.stats.get('rank_drops', 0)}")
    lines.extend(f"             {d!r}" for d in res.redundant_constraints[:3])
    changed = {k: (a, c) for k, (a, c) in res.init_report.items() if _changed(a, c)}
    if changed:
        lines.append("initialized  " + ", ".join(f"{k}: {a:.6g} -> {c:.6g}"
                                                 for k, (a, c) in changed.items()))
    n_rhs = res.stats.get("n_rhs")
    t_start, t_compiled, t_done = t_times
    lines.append(f"time taken   compile {t_compiled - t_start:.3f} s, simulate "
                 f"{t_done - t_compiled:.3f} s"
                 + (f" (rhs evaluations: {n_rhs})" if n_rhs is not None and n_rhs >= 0 else ""))
    return lines


def _save_partial(err, saves):
    """Nothing lost: a run that failed part-way writes its partial Result (``err.partial``,
    the points up to the failure) to every ``--out`` file with status ``"failed"`` and
    says so on standard error (path, time reached, error)."""
    if not saves:
        return
    part = getattr(err, "partial", None)
    if part is None or not np.size(part.t):
        why = getattr(err, "partial_error", None)
        print("mechdae run: no partial result to save"
              + (f" ({type(why).__name__}: {why})" if why is not None else ""),
              file=sys.stderr)
        return
    for p in saves:
        try:
            part.save(p, status="failed", error=err)
        except (ImportError, ValueError, OSError) as exc:
            print(f"mechdae run: partial result {p} not saved: {exc}", file=sys.stderr)
            continue
        print(f"mechdae run: the run failed at t = {float(part.t[-1]):.9g} s; the partial "
              f"result ({part.t.size} points, t in [{float(part.t[0]):.9g}, "
              f"{float(part.t[-1]):.9g}] s) is saved to {p} with status 'failed' "
              f"(error: {type(err).__name__}: {err})", file=sys.stderr)


def run(args, out=sys.stdout):
    """Execute ``mechdae run``; returns the exit status."""
    from ..loader import build_model, load_module
    from ..errors import ModelError, SolverError
    from .files import FORMATS
    # every output path is checked before any work
    plot = None
    if not getattr(args, "no_plot", False):
        plot = args.plot or f"{os.path.splitext(os.path.basename(args.model))[0]}.png"
        check_output(plot, "--plot", _PLOT_EXT)
    saves = [p for p in (getattr(args, "out", None), getattr(args, "save", None)) if p]
    for p in saves:
        check_output(p, "--out", FORMATS)
    anim = getattr(args, "animate", None)
    if anim:
        check_output(anim, "--animate", (".gif", ".mp4", ".html"))
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
    params.update({k: v for k, v in kv.items() if k not in build_kw})
    t_start = time.perf_counter()
    try:
        model = build_model(mod, args.model, **build_kw)
        stab = sim.get("stabilization", "default")
        system = model.compile(stabilization=stab)
        t_compiled = time.perf_counter()
        t_final = args.t_final if args.t_final is not None else sim.get("t_final", 1.0)
        method = args.method or sim.get("method", "auto")
        # every other SIMULATION key is a simulate() option (inputs, rtol, dt, ...)
        kw = {k: v for k, v in sim.items() if k not in _RUN_KEYS}
        res = system.simulate(t_final, q0=sim.get("q0"), v0=sim.get("v0"), params=params or None,
                              method=method, progress=getattr(args, "progress", None), **kw)
    except (ModelError, SolverError) as exc:
        print(f"mechdae run: {type(exc).__name__}: {exc}", file=sys.stderr)
        if isinstance(exc, SolverError):
            _save_partial(exc, saves)
        return 1
    t_done = time.perf_counter()
    lines = summary_lines(args.model, system, res, method, (t_start, t_compiled, t_done))
    lines += _model_lines(mod, res)
    print("\n".join(lines), file=out)
    # the summary is out before any file is written: a failing writer loses nothing
    status = 0
    for label, action in (("plot", plot and (lambda: res.plot(plot, names=sim.get("plot")))),
                          ("saved", saves and (lambda: [res.save(p) for p in saves])),
                          ("animation", anim and (lambda: res.animate(anim)))):
        if not action:
            continue
        target = {"plot": plot, "saved": ", ".join(saves), "animation": anim}[label]
        try:
            action()
            print(f"{label:<12} {target}", file=out)
        except ImportError as exc:
            print(f"{label:<12} skipped ({exc})", file=out)
        except (ValueError, OSError) as exc:
            print(f"mechdae run: {label} {target} failed: {exc}", file=sys.stderr)
            status = 1
    return status
