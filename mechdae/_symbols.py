"""The symbol registry and the conversions every layer shares (DSL, symbolic, simulate).

One job: know what each CasADi ``SX`` symbol is. Every symbol a Model (or the acausal
layer, through :func:`placeholder`) creates is recorded in :data:`_REGISTRY` under its
element hash with a :class:`_SymInfo` (name, kind, model, rate); :func:`_info` reads the
record, :func:`der` and :func:`der_many` build rates from it by the chain rule
``d e/dt = sum_s (de/ds) der(s) + de/dt``, and :func:`_as_sx` turns numbers, lists and
``SX`` into column ``SX`` expressions.

This module imports nothing from ``mechdae.dsl``, ``mechdae.symbolic`` or
``mechdae.simulate``: those layers import from here (``mechdae.dsl.model`` re-exports the
names). What needs a Model reaches it through :data:`_MODELS` (model id -> Model, filled by
``Model.__init__``) and :data:`MODEL_TYPES` (filled by :func:`register_model_type`).
"""
import numbers

import casadi as ca
import numpy as np

__all__ = ["der", "der_many", "placeholder", "is_placeholder", "register_model_type"]

# element hash of every symbol created by any Model -> _SymInfo.  The info holds the
# symbol itself, so the node (and thus its hash) cannot be recycled.
_REGISTRY = {}


class _SymInfo:
    """Registry record of one symbol: what it is (``kind``), whose it is (``model_id``,
    ``owner``) and its time derivative (``deriv``) when known."""
    __slots__ = ("sym", "name", "kind", "model_id", "deriv", "owner")

    def __init__(self, sym, name, kind, model_id, deriv=None, owner=None):
        self.sym = sym
        self.name = name
        self.kind = kind            # coordinate|speed|rate|parameter|input|variable|vrate|time
        self.model_id = model_id
        self.deriv = deriv          # SX expression of the time derivative, if known
        self.owner = owner          # for rates: the coordinate / variable name


def _info(sym):
    """The registry record (:class:`_SymInfo`) of a symbol, or None (not a symbol, or not
    made by a Model or :func:`placeholder`)."""
    return _REGISTRY.get(sym.element_hash()) if isinstance(sym, ca.SX) and sym.is_symbolic() \
        else None


def _as_sx(expr, what="expression"):
    """Convert numbers, lists and SX to a column SX; reject MX and other objects."""
    if isinstance(expr, ca.SX):
        return expr
    if isinstance(expr, ca.MX):
        raise TypeError(f"{what}: MX expressions are not supported in a Model; use the symbols "
                        "the Model returns (SX)")
    if isinstance(expr, (list, tuple)):
        return ca.vertcat(*[_as_sx(e, what) for e in expr]) if expr else ca.SX(0, 1)
    if isinstance(expr, (numbers.Number, np.ndarray, ca.DM)):
        return ca.SX(ca.DM(np.asarray(expr, dtype=float)))
    raise TypeError(f"{what}: cannot use an object of type {type(expr).__name__} as an "
                    "expression; build it from the Model's symbols and md.sin, md.cos, ...")


def der(expr):
    """Time derivative of a symbol or an expression of model symbols.

    ``der(x)`` of a coordinate is its rate ``x'`` (the speed symbol of ``x`` unless other
    kinematics were declared); ``der(v)`` of a differential variable is its rate symbol;
    for an expression the chain rule is applied:
    ``d e/dt = sum_s (de/ds) der(s) + de/dt``. Parameters and constant inputs have rate 0.

    Parameters
    ----------
    expr : SX
        A symbol or an expression built from one Model's symbols.

    Returns
    -------
    SX
        The rate, same shape as ``expr``.

    Examples
    --------
    >>> import mechdae as md
    >>> m = md.Model("p"); x = m.coordinates("x")
    >>> str(md.der(x))
    'der(x)'
    """
    e = _as_sx(expr, "der()")
    if e.is_scalar() and e.is_symbolic():
        d = _rate_of(e)
        return d
    syms = ca.symvar(e)
    if not syms:
        return ca.SX.zeros(e.shape)
    rates = [_rate_of(s) for s in syms]
    return ca.reshape(ca.jtimes(ca.vec(e), ca.vertcat(*syms), ca.vertcat(*rates)), e.shape)


def der_many(exprs, acceleration=None):
    """``[der(e) for e in exprs]`` in one pass (one forward derivative of the stacked
    expressions; for many expressions much faster than separate calls).

    ``acceleration``: a callable giving the rate symbol of a speed (``Model.acceleration``),
    for expressions of outputs that are rates of velocities; without it such a rate is an
    error, as in :func:`der`.

    Raises
    ------
    ValueError
        As :func:`der`, naming the first expression whose rate is not defined.
    """
    exprs = [_as_sx(e, "der()") for e in exprs]
    if not exprs:
        return []
    scalar = all(e.is_scalar() for e in exprs)
    V = ca.vertcat(*(exprs if scalar else [ca.vec(e) for e in exprs]))
    syms = ca.symvar(V)

    def rate(s):
        if acceleration is not None:
            info = _info(s)
            if info is not None and info.kind in ("speed", "rate") and info.deriv is None:
                return acceleration(s)
        return _rate_of(s)
    try:
        rates = [rate(s) for s in syms]
    except ValueError:
        for e in exprs:
            der(e)                      # raises with the offending expression
        raise
    D = ca.jtimes(V, ca.vertcat(*syms), ca.vertcat(*rates)) if syms else ca.SX.zeros(V.shape)
    if scalar:
        return ca.vertsplit(D)
    out, o = [], 0
    for e in exprs:
        n = e.numel()
        out.append(ca.reshape(D[o:o + n], e.shape))
        o += n
    return out


def _rate_of(s):
    """The rate ``der(s)`` of one symbol, as its registry record defines it.

    Raises
    ------
    ValueError
        A symbol of no Model, an input, a multiplier, or a speed (accelerations are
        derived by compile(), not written).
    """
    info = _info(s)
    if info is not None and info.kind in ("placeholder", "multiplier"):
        return _placeholder_rate(info)
    if info is None:
        raise ValueError(f"der(): symbol '{s}' does not belong to any mechdae Model")
    if info.kind == "time":
        return ca.SX(1)
    if info.kind in ("parameter",):
        return ca.SX(0)
    if info.kind == "input":
        raise ValueError(f"der(): input '{info.name}' has no symbolic rate; write the "
                         "quantity as a function of the model time m.time instead")
    if info.kind == "variable":
        model = _MODELS.get(info.model_id)
        return model._variable_rate(info.name)
    if info.kind == "vrate":
        # der(der(v)), ...: variables may appear differentiated to any order; compile()
        # makes v, der(v), ..., der^(k-1)(v) states and finds the hidden constraints
        model = _MODELS.get(info.model_id)
        return model._variable_rate(info.owner, model._rate_level(info.owner, s) + 1)
    if info.deriv is None:
        kind = "a speed" if info.kind in ("speed", "rate") else f"a {info.kind}"
        raise ValueError(f"der(): '{info.name}' is {kind}; accelerations are derived by "
                         "compile() from the energies, write kinetic_energy/potential_energy "
                         "instead of der(der(...))")
    return info.deriv


# model id -> Model: how der() of a variable reaches the Model that creates its rate symbols
_MODELS = {}

# classes whose instances are Models (registered by mechdae.dsl.model): how the pickling
# layer recognizes a Model inside an object graph without importing the DSL
MODEL_TYPES = ()


def register_model_type(cls):
    """Record ``cls`` as a Model class (see :data:`MODEL_TYPES`); returns ``cls``.

    Parameters
    ----------
    cls : type

    Returns
    -------
    type
    """
    global MODEL_TYPES
    if cls not in MODEL_TYPES:
        MODEL_TYPES = MODEL_TYPES + (cls,)
    return cls


def placeholder(name):
    """A free symbol standing for an expression that is given later (by substitution).

    The acausal component layer declares its unknowns (connector potentials and flows,
    parameters, coordinates of components) as placeholders before they belong to any
    Model; ``der()`` of a placeholder is another placeholder (``"der(name)"``), so a
    component can write ``der(flange.s)``. Flattening replaces every placeholder by the
    final expression; compile() never sees one.

    Parameters
    ----------
    name : str

    Returns
    -------
    SX
    """
    s = ca.SX.sym(str(name))
    _REGISTRY[s.element_hash()] = _SymInfo(s, str(name), "placeholder", None)
    return s


def _placeholder_rate(info):
    """The rate of a placeholder: another placeholder ``"der(name)"``, made on first use."""
    if info.kind == "multiplier":
        raise ValueError(f"der(): '{info.name}' is a constraint multiplier; it has no rate")
    if info.deriv is None:
        info.deriv = placeholder(f"der({info.name})")
        _REGISTRY[info.deriv.element_hash()].owner = info.name
    return info.deriv


def is_placeholder(sym):
    """Whether ``sym`` is a placeholder symbol (see :func:`placeholder`)."""
    info = _info(sym)
    return info is not None and info.kind == "placeholder"
