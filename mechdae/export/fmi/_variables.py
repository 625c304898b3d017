"""The FMU's variables: the System's names made legal FMI names, value references, roles.

Every variable is a Float64 (FMI 3) / Real (FMI 2) at one value reference of the instance's
value array (``c/mdae_fmu.h``)::

    0                 time                      independent
    1 .. nx           states x = (q, u, v)      local, continuous, initial exact
    1 + nx + i        der(x_i)                  local, continuous, initial calculated
    ...               parameters p              parameter, tunable, initial exact
    ...               inputs w                  input, continuous
    ...               outputs y                 output, continuous, initial calculated
    ...               contact gaps              local, continuous
    ...               event indicators          local, continuous (two per contact)

Names follow FMI's "structured" convention: the System's dotted names stay as they are
when each part is an identifier (``mass.s``, ``j4.frame_b.fx``); a part that is not is
quoted (``'x+'``); ``der(x)`` stays a derivative name (``der(der(x))`` becomes
``der(x,2)``). The System's own name is each variable's description. A speed named
``der(x)`` (the default name of the speed of coordinate ``x``) is itself the derivative of
``x``: no second variable is made for it.
"""
import re
from dataclasses import dataclass, field
from typing import List, Optional

__all__ = ["Variable", "variable_table", "legal_name"]

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+(,[0-9]+)*\])?$")
_DER = re.compile(r"der\((.*?)(?:,\s*([0-9]+))?\)$")
# characters allowed inside a quoted name part (FMI 2.0 / 3.0 "q-char"), escapes besides
_QCHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
              "!#$%&()*+,-./:;<=>?@[]^{}|~ ")
_ESCAPES = {"'": "\\'", '"': '\\"', "\\": "\\\\"}


@dataclass
class Variable:
    """One FMU variable (all are real numbers)."""
    name: str                       # the legal FMI name
    original: str                   # the System's name (the description)
    vr: int                         # value reference (index of the instance's value array)
    kind: str                       # time, state, derivative, parameter, input, output
    causality: str
    variability: str
    initial: Optional[str] = None
    start: Optional[float] = None
    unit: Optional[str] = None
    derivative_of: Optional[int] = None        # vr of the state this is the derivative of
    depends: List[int] = field(default_factory=list)   # vrs of states / inputs it depends on


def _part(p):
    """One dot-separated part of a structured name: an identifier or a quoted name."""
    if _IDENT.match(p):
        return p
    body = "".join(_ESCAPES.get(ch, ch if ch in _QCHARS else "_") for ch in p)
    return f"'{body}'"


def _split_dots(name):
    """Split at the dots outside parentheses, brackets and quotes."""
    parts, depth, cur, quote = [], 0, "", False
    for ch in name:
        if ch == "'":
            quote = not quote
        elif not quote and ch in "([":
            depth += 1
        elif not quote and ch in ")]":
            depth = max(0, depth - 1)
        if ch == "." and depth == 0 and not quote:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts


def _identifier(name):
    return ".".join(_part(p) for p in _split_dots(name)) if name else "'_'"


def legal_name(name):
    """The FMI "structured" name of a System name (see the module docstring).

    Examples
    --------
    >>> legal_name("mass.s"), legal_name("der(der(x))"), legal_name("lambda(loop)[0]")
    ('mass.s', 'der(x,2)', "'lambda(loop)[0]'")
    """
    order, inner = 0, name
    while True:
        m = _DER.match(inner)
        if not m:
            break
        order += int(m.group(2) or 1)
        inner = m.group(1)
    if order:
        ident = _identifier(inner)
        return f"der({ident})" if order == 1 else f"der({ident},{order})"
    return _identifier(name)


def derivative_name(name):
    """Legal name of the derivative of the variable with legal name ``name``."""
    m = _DER.match(name)
    if m:
        return f"der({m.group(1)},{int(m.group(2) or 1) + 1})"
    return f"der({name})"


def _identity_rates(system):
    """``{i: j}``: the derivative of state i is state j exactly (``q' = u`` for identity
    speeds, ``x' = der(x)`` for the general variables)."""
    nq, nu = system.nq, system.nu
    out = {}
    qi = {n: i for i, n in enumerate(system.q_names)}
    for j, un in enumerate(system.u_names):
        cn = system.speed_of.get(un)
        if cn in qi:
            out[qi[cn]] = nq + j
    for i, k in enumerate(system._vd_index):
        if k < system.nv:
            out[nq + nu + i] = nq + nu + int(k)
    return out


def variable_table(system, x0, p0, w0, units, sparsity):
    """The FMU's variables in value-reference order.

    Parameters
    ----------
    system : System
    x0, p0, w0 : array
        Start values of the states (consistent), parameters and inputs.
    units : dict
        ``{System name: unit}`` (coordinates, parameters, outputs); speeds get ``unit/s``.
    sparsity : dict
        ``"ode"``, ``"out"``: for each derivative / output row, the state and input
        positions (``("x", i)`` / ``("w", k)``) it depends on.

    Returns
    -------
    list of Variable, dict
        The variables and ``layout`` (first value reference of each block, sizes, for each
        state the value reference of its derivative variable).
    """
    xn = list(system.q_names) + list(system.u_names) + list(system.v_names)
    nx, npar, nw = len(xn), len(system.p_names), len(system.w_names)
    ny = len(getattr(system, "output_names", []))
    VR_X, VR_DX = 1, 1 + nx
    VR_P = VR_DX + nx
    VR_W, VR_Y = VR_P + npar, VR_P + npar + nw
    ident = _identity_rates(system)
    xunits = [units.get(n) for n in system.q_names]
    xunits += [_rate_unit(units.get(system.speed_of.get(n, "")), units.get(n))
               for n in system.u_names]
    xunits += [units.get(n) for n in system.v_names]
    V = [Variable("time", "time", 0, "time", "independent", "continuous", unit="s")]
    xnames = [legal_name(n) for n in xn]
    for i, n in enumerate(xn):
        V.append(Variable(xnames[i], n, VR_X + i, "state", "local", "continuous", "exact",
                          float(x0[i]), xunits[i]))
    der_vr = []
    for i, n in enumerate(xn):
        deps = _deps(sparsity["ode"][i], VR_X, VR_W)
        j = ident.get(i)
        if j is not None and xnames[j] == derivative_name(xnames[i]):
            # the state j is named der(x_i) and equals it: it is the derivative variable
            V[1 + j].derivative_of = VR_X + i
            V[1 + j].depends = deps
            der_vr.append(VR_X + j)
            continue
        dunit = _rate_unit(xunits[i], None)
        V.append(Variable(derivative_name(xnames[i]), f"der({n})", VR_DX + i, "derivative",
                          "local", "continuous", "calculated", unit=dunit,
                          derivative_of=VR_X + i, depends=deps))
        der_vr.append(VR_DX + i)
    for k, n in enumerate(system.p_names):
        V.append(Variable(legal_name(n), n, VR_P + k, "parameter", "parameter", "tunable",
                          "exact", float(p0[k]), units.get(n)))
    for k, n in enumerate(system.w_names):
        V.append(Variable(legal_name(n), n, VR_W + k, "input", "input", "continuous", None,
                          float(w0[k]), units.get(n)))
    for k, n in enumerate(getattr(system, "output_names", [])):
        V.append(Variable(legal_name(n), n, VR_Y + k, "output", "output", "continuous",
                          "calculated", unit=units.get(n),
                          depends=_deps(sparsity["out"][k], VR_X, VR_W)))
    nc = len(system.contact_names)
    VR_G = VR_Y + ny
    VR_E = VR_G + nc
    for k, n in enumerate(system.contact_names):
        V.append(Variable(legal_name(f"{n}.gap"), f"gap({n})", VR_G + k, "gap", "local",
                          "continuous", "calculated", unit=units.get(n)))
    for k, n in enumerate(system.contact_names):
        V.append(Variable(legal_name(f"{n}.event"), f"event indicator of contact '{n}': its "
                          "gap; its normal velocity while it lifts off; its normal force "
                          "while closed", VR_E + 2 * k, "event", "local", "continuous",
                          "calculated"))
        V.append(Variable(legal_name(f"{n}.stick"), f"event indicator of contact '{n}': "
                          "mu lam_n - |lam_t| while it sticks; s v_t while it slides "
                          "closed in direction s; 1 otherwise", VR_E + 2 * k + 1,
                          "event", "local", "continuous", "calculated"))
    _unique(V)
    layout = dict(nx=nx, np=npar, nw=nw, ny=ny, VR_X=VR_X, VR_DX=VR_DX, VR_P=VR_P, VR_W=VR_W,
                  VR_Y=VR_Y, VR_G=VR_G, VR_E=VR_E, NR=VR_E + 2 * nc, der_vr=der_vr)
    return V, layout


def _deps(cols, VR_X, VR_W):
    return sorted((VR_X + i) if kind == "x" else (VR_W + i) for kind, i in cols)


def _rate_unit(unit, own):
    if own:
        return own
    return f"{unit}/s" if unit else None


def _unique(V):
    """Make names unique (a mapped name may meet an existing one): ``_2``, ``_3``, ..."""
    seen = set()
    for v in V:
        base, k = v.name, 2
        while v.name in seen:
            v.name = _suffixed(base, k)
            k += 1
        seen.add(v.name)


def _suffixed(name, k):
    if name.endswith("'"):
        return f"{name[:-1]}_{k}'"
    if name.endswith(")"):
        return f"'{name}_{k}'"
    return f"{name}_{k}"
