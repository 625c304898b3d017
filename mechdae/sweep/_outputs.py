"""Named scalar summaries of a run (the output columns of a simulation sweep).

An output is a string or a callable of the Result:

- ``"x"`` or ``"final(x)"``: the last value of series ``x`` (any name ``res[name]`` takes);
  ``"max(x)"``, ``"min(x)"``, ``"mean(x)"``: over the output points;
- ``"count(kind)"``, ``"count(kind, contact)"``: the number of events of a kind (``*``:
  any kind), at any contact or at one;
- ``"first(kind)"``, ``"last(kind)"`` (optionally ``, contact``): the time of the first /
  last such event, NaN when there is none;
- ``"max_residual"``: the largest constraint residual over the run;
- ``"energy_lost"``: ``E(0) - E(t_end)``, the mechanical energy the run dissipated;
- ``f(result)``: any callable returning a number, a bool or a string.
"""
import re

import numpy as np

__all__ = ["parse_outputs", "evaluate_outputs", "describe"]

_SERIES_FUNS = ("final", "max", "min", "mean")
_EVENT_FUNS = ("count", "first", "last")
_PLAIN = ("max_residual", "energy_lost")
_CALL = re.compile(r"^\s*(\w+)\s*\((.*)\)\s*$")


def _series_names(system):
    return (["t"] + list(system.q_names) + list(system.u_names) + list(system.v_names)
            + list(system.z_names) + list(getattr(system, "output_names", [])))


def _parse_one(name, spec, system, series):
    if callable(spec):
        return ("call", spec)
    if not isinstance(spec, str):
        raise ValueError(f"sweep: output {name!r} must be a string or a callable of the Result, "
                         f"got {type(spec).__name__}")
    s = spec.strip()
    if s in series:
        return ("final", s)
    if s in _PLAIN:
        return (s,)
    m = _CALL.match(s)
    if m is None or m.group(1) not in _SERIES_FUNS + _EVENT_FUNS:
        raise ValueError(
            f"sweep: output {name!r} = {spec!r} is neither a series of model '{system.name}' "
            f"nor one of final(x), max(x), min(x), mean(x), count(kind[, contact]), "
            f"first(kind[, contact]), last(kind[, contact]), max_residual, energy_lost; "
            f"series: {', '.join(series)}")
    fun, arg = m.group(1), m.group(2).strip()
    if fun in _SERIES_FUNS:
        if arg not in series:
            raise ValueError(f"sweep: output {name!r} = {spec!r}: model '{system.name}' has no "
                             f"series {arg!r}; series: {', '.join(series)}")
        return (fun, arg)
    parts = [p.strip() for p in arg.split(",")]
    if len(parts) > 2 or not parts[0]:
        raise ValueError(f"sweep: output {name!r} = {spec!r}: expected {fun}(kind) or "
                         f"{fun}(kind, contact)")
    contact = parts[1] if len(parts) == 2 else None
    if contact is not None and contact not in system.contact_names:
        raise ValueError(f"sweep: output {name!r} = {spec!r}: model '{system.name}' has no "
                         f"contact {contact!r}; contacts: {', '.join(system.contact_names) or 'none'}")
    return (fun, parts[0], contact)


def parse_outputs(outputs, system):
    """``[(name, parsed spec)]`` from a dict name -> spec, a list of specs (named by
    themselves) or None (the final value of every coordinate and speed, and the number of
    events)."""
    series = _series_names(system)
    if outputs is None:
        outputs = {n: n for n in list(system.q_names) + list(system.u_names)}
        outputs["events"] = "count(*)"
    elif isinstance(outputs, (list, tuple)):
        named = {}
        for spec in outputs:
            key = spec if isinstance(spec, str) else getattr(spec, "__name__", None)
            if not key or key == "<lambda>":
                raise ValueError("sweep: name callable outputs with a dict, outputs={'name': f}")
            named[key] = spec
        outputs = named
    elif not isinstance(outputs, dict):
        raise ValueError("sweep: outputs must be a dict name -> spec, a list of specs or None, "
                         f"got {type(outputs).__name__}")
    return [(str(k), _parse_one(k, v, system, series)) for k, v in outputs.items()]


def describe(parsed):
    """A stable text of the outputs (for the record of a stored sweep)."""
    out = []
    for name, spec in parsed:
        if spec[0] == "call":
            f = spec[1]
            out.append((name, f"call:{getattr(f, '__module__', '')}."
                              f"{getattr(f, '__qualname__', type(f).__name__)}"))
        else:
            out.append((name, repr(spec)))
    return out


def _scalar(name, val):
    if isinstance(val, (str, bool, np.bool_)):
        return val if isinstance(val, str) else bool(val)
    try:
        a = np.asarray(val, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"output {name!r} gave {type(val).__name__}, not a number") from None
    if a.size != 1:
        raise ValueError(f"output {name!r} gave {a.size} values; an output is one scalar "
                         "per run")
    return float(a.reshape(()))


def _events(res, kind, contact):
    return [e.t for e in res.events if (kind == "*" or e.kind == kind)
            and (contact is None or e.contact == contact)]


def evaluate_outputs(parsed, res):
    """``{name: scalar}`` of one Result."""
    vals = {}
    for name, spec in parsed:
        fun = spec[0]
        if fun == "call":
            v = spec[1](res)
        elif fun in _SERIES_FUNS:
            x = np.asarray(res[spec[1]], dtype=float)
            v = {"final": lambda a: a[-1], "max": np.max, "min": np.min,
                 "mean": np.mean}[fun](x) if x.size else np.nan
        elif fun in _EVENT_FUNS:
            ts = _events(res, spec[1], spec[2])
            v = len(ts) if fun == "count" else (np.nan if not ts else
                                                (ts[0] if fun == "first" else ts[-1]))
        elif fun == "max_residual":
            v = res.max_drift()
        else:   # energy_lost
            E = res.energy
            v = np.nan if E is None or not np.size(E) else float(E[0] - E[-1])
        vals[name] = _scalar(name, v)
    return vals
