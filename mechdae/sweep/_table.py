"""The table of runs of a sweep: grid axes (Cartesian product) and samples, routed to
parameters, initial values or the free variables of a ``state`` function."""
import hashlib

import numpy as np

__all__ = ["RunTable"]


def _column(name, val):
    try:
        a = np.asarray(val, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"sweep: column {name!r} holds values that are not numbers; give "
                         "floats") from None
    if a.ndim != 1:
        raise ValueError(f"sweep: column {name!r} must be one-dimensional, got shape {a.shape}")
    return a


def _samples(samples):
    """``{name: array}`` from a pandas DataFrame or a dict of equal-length arrays."""
    if samples is None:
        return {}
    if hasattr(samples, "columns") and hasattr(samples, "to_numpy"):    # a DataFrame
        cols = {str(c): _column(str(c), samples[c].to_numpy()) for c in samples.columns}
    elif isinstance(samples, dict):
        cols = {str(k): _column(str(k), v) for k, v in samples.items()}
    else:
        raise ValueError(f"sweep: samples must be a pandas DataFrame or a dict of equal-length "
                         f"arrays, got {type(samples).__name__}")
    lengths = {k: v.size for k, v in cols.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"sweep: samples columns differ in length: {lengths}; give one value "
                         "per sample in every column (or use grid= for a Cartesian product)")
    return cols


class RunTable:
    """The runs of a sweep, one row each, and where each column goes.

    Columns come from ``samples`` (one row per sample), then the axes of ``grid``,
    ``params``, ``q0`` and ``v0`` (an array is an axis, a scalar a fixed value); the runs
    are the Cartesian product of the sample rows and the axes, the last axis varying
    fastest. A column goes to the parameter of its name, to ``q0`` (``"q0.x"``) or ``v0``
    (``"v0.x"``); any other name is a free variable handed to ``state``.

    Attributes
    ----------
    columns : dict name -> ndarray (N,)
    route : dict name -> (kind, target)
        kind ``"p"``, ``"q"``, ``"v"`` or ``"x"`` (a free variable of ``state``).
    fixed : dict with ``params``, ``q0``, ``v0`` (dicts of scalars)
    n : int
    """

    def __init__(self, system, grid=None, samples=None, params=None, q0=None, v0=None,
                 state=None, prefixes=("q0.", "v0.")):
        axes, fixed = [], dict(params={}, q0={}, v0={})
        pq, pv = prefixes
        route = {}

        def add_route(col, kind, target):
            if col in route:
                raise ValueError(f"sweep: {col!r} is given twice (as a grid axis, a sample "
                                 "column or in params/q0/v0); give it once")
            route[col] = (kind, target)

        def classify(col):
            if col.startswith(pq):
                return "q", col[len(pq):]
            if col.startswith(pv):
                return "v", col[len(pv):]
            if col in system.p_names:
                return "p", col
            return "x", col

        base = _samples(samples)
        for col in base:
            add_route(col, *classify(col))
        for col, val in (grid or {}).items():
            col = str(col)
            if np.ndim(val) == 0:
                raise ValueError(f"sweep: grid axis {col!r} is a scalar; give an array of "
                                 "values (or pass a fixed value in params/q0/v0)")
            axes.append((col, _column(col, val)))
            add_route(col, *classify(col))
        for what, prefix, kind, given in (("params", "", "p", params), ("q0", pq, "q", q0),
                                          ("v0", pv, "v", v0)):
            if given is None:
                continue
            if not isinstance(given, dict):
                raise ValueError(f"sweep: {what} must be a dict by name (arrays are grid axes, "
                                 f"scalars fixed values), got {type(given).__name__}")
            for k, val in given.items():
                if np.ndim(val) == 0:
                    fixed[what][k] = val
                else:
                    axes.append((prefix + k, _column(prefix + k, val)))
                    add_route(prefix + k, kind, k)
        free = [c for c, (k, _) in route.items() if k == "x"]
        evald = [c for c in free if c in getattr(system, "evaluated", {})]
        if evald:
            raise ValueError(f"sweep: {system.unknown_parameter(evald[0])}")
        if free and state is None:
            raise ValueError(f"sweep: {', '.join(map(repr, free))} is not a parameter of model "
                             f"'{system.name}' (parameters: {', '.join(system.p_names) or 'none'})"
                             f"; name states '{pq}<name>' / '{pv}<name>', or pass "
                             "state=f(**variables) -> (q0, v0) to map free variables to a state")
        if state is not None and not free:
            raise ValueError("sweep: state= is given but no column is a free variable for it "
                             f"(every column is a parameter or a {pq!r}/{pv!r} state)")
        n0 = len(next(iter(base.values()))) if base else 1
        sizes = [n0] + [a.size for _, a in axes]
        n = int(np.prod(sizes))
        idx = np.unravel_index(np.arange(n), sizes) if n else [np.zeros(0, int)] * len(sizes)
        cols = {c: v[idx[0]] for c, v in base.items()}
        for k, (c, a) in enumerate(axes):
            cols[c] = a[idx[k + 1]]
        self.columns = cols
        self.route = route
        self.fixed = fixed
        self.n = n
        self.grid_shape = tuple(a.size for _, a in axes) if not base else None

    def chunk(self, idx):
        """The columns of runs ``idx`` (a dict of arrays, what a task carries)."""
        return {c: v[idx] for c, v in self.columns.items()}

    def digest(self):
        """Content hash of the inputs (column names, routes, values, fixed values)."""
        h = hashlib.sha256()
        for c, v in self.columns.items():
            h.update(repr((c, self.route[c])).encode())
            h.update(np.ascontiguousarray(v).tobytes())
        h.update(repr(sorted((k, sorted((n, repr(x)) for n, x in d.items()))
                             for k, d in self.fixed.items())).encode())
        return h.hexdigest()
