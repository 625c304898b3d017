"""External inputs ``w(t)``: constants, sampled signals and functions of time."""
import casadi as ca
import numpy as np

__all__ = ["resolve_inputs", "input_mx", "input_values", "inputs_key"]


def resolve_inputs(system, inputs):
    """List of input specs in System order (``inputs`` overrides declared defaults)."""
    inputs = dict(inputs or {})
    unknown = [k for k in inputs if k not in system.w_names]
    if unknown:
        raise ValueError(f"unknown input(s) {unknown} for model '{system.name}'; inputs: "
                         f"{', '.join(system.w_names) or 'none'}")
    specs = []
    for name, default in zip(system.w_names, system.w_defaults):
        spec = inputs.get(name, default)
        if isinstance(spec, (ca.SX, ca.MX)) or callable(spec):
            specs.append(("f", spec))
            continue
        arr = np.asarray(spec, dtype=float)
        if arr.ndim == 0:
            specs.append(("c", float(arr)))
        elif arr.ndim == 2 and arr.shape[1] == 2 and arr.shape[0] >= 2:
            if np.any(np.diff(arr[:, 0]) <= 0):
                raise ValueError(f"input '{name}': sample times must increase strictly")
            specs.append(("a", arr))
        else:
            raise ValueError(f"input '{name}': give a number, an array of (t, value) rows, or a "
                             f"function of t; got an array of shape {arr.shape}")
    return specs


def inputs_key(specs):
    """Hashable key: integrators depend only on the non-constant inputs."""
    key = []
    for kind, s in specs:
        if kind == "c":
            key.append(("c",))
        elif kind == "a":
            key.append(("a", s.tobytes()))
        else:
            key.append(("f", id(s)))
    return tuple(key)


def _time_fun(system, spec):
    if isinstance(spec, ca.SX):
        return ca.Function("w", [system.parent.time], [spec])
    return spec


def input_mx(system, specs, t, wc):
    """MX vector of inputs at (MX) time ``t``; constants read from the MX vector ``wc``."""
    out = []
    for i, (kind, s) in enumerate(specs):
        if kind == "c":
            out.append(wc[i])
        elif kind == "a":
            f = ca.interpolant(f"w{i}", "linear", [s[:, 0]], s[:, 1])
            out.append(f(ca.fmin(ca.fmax(t, s[0, 0]), s[-1, 0])))
        else:
            f = _time_fun(system, s)
            val = f(t)
            out.append(val if isinstance(val, ca.MX) else ca.MX(val))
    return ca.vertcat(*out) if out else ca.MX(0, 1)


def constant_vector(specs):
    """Values of the constant inputs (0 for the others), System order."""
    return np.array([s if kind == "c" else 0.0 for kind, s in specs])


def input_values(system, inputs, t, pv=None):
    """Numerical inputs at times ``t``: array (n_w, len(t))."""
    specs = inputs if isinstance(inputs, list) else resolve_inputs(system, inputs)
    t = np.atleast_1d(np.asarray(t, dtype=float))
    out = np.zeros((len(specs), t.size))
    for i, (kind, s) in enumerate(specs):
        if kind == "c":
            out[i] = s
        elif kind == "a":
            out[i] = np.interp(t, s[:, 0], s[:, 1])
        else:
            f = _time_fun(system, s)
            if isinstance(f, ca.Function):
                out[i] = np.array(f.map(t.size)(t[None, :])).ravel()
            else:
                out[i] = [float(f(tt)) for tt in t]
    return out
