"""Elementary functions that work on model symbols (CasADi SX/MX) and on plain numbers.

Model files use these through ``mechdae`` (``md.sin(theta)``) so that they never need to
import CasADi themselves.  On numbers they return floats (or numpy arrays), on symbols
CasADi expressions.
"""
import math

import casadi as ca
import numpy as np

__all__ = ["sin", "cos", "tan", "sqrt", "exp", "log", "atan2", "asin", "acos", "atan",
           "sinh", "cosh", "tanh", "fabs", "abs", "sign", "fmin", "fmax", "if_else",
           "vertcat", "horzcat", "dot", "cross", "mtimes", "transpose", "norm_2", "pi",
           "sumsqr", "is_symbolic"]

pi = math.pi


def is_symbolic(x):
    """True when ``x`` is a CasADi symbolic expression (SX or MX)."""
    return isinstance(x, (ca.SX, ca.MX))


def _lift(ca_fun, np_fun):
    def f(*args):
        if any(is_symbolic(a) for a in args):
            return ca_fun(*args)
        if any(isinstance(a, ca.DM) for a in args):
            return ca_fun(*args)
        out = np_fun(*args)
        return float(out) if np.ndim(out) == 0 else out
    f.__name__ = np_fun.__name__ if hasattr(np_fun, "__name__") else ca_fun.__name__
    f.__doc__ = f"Elementwise ``{f.__name__}`` of a symbol, expression or number."
    return f


sin = _lift(ca.sin, np.sin)
cos = _lift(ca.cos, np.cos)
tan = _lift(ca.tan, np.tan)
sqrt = _lift(ca.sqrt, np.sqrt)
exp = _lift(ca.exp, np.exp)
log = _lift(ca.log, np.log)
atan2 = _lift(ca.atan2, np.arctan2)
asin = _lift(ca.asin, np.arcsin)
acos = _lift(ca.acos, np.arccos)
atan = _lift(ca.atan, np.arctan)
sinh = _lift(ca.sinh, np.sinh)
cosh = _lift(ca.cosh, np.cosh)
tanh = _lift(ca.tanh, np.tanh)
fabs = _lift(ca.fabs, np.fabs)
abs = fabs  # noqa: A001  (md.abs mirrors the builtin on symbols)
sign = _lift(ca.sign, np.sign)
fmin = _lift(ca.fmin, np.fmin)
fmax = _lift(ca.fmax, np.fmax)


def if_else(cond, if_true, if_false):
    """``if_true`` where ``cond`` holds, else ``if_false`` (symbolic-safe conditional)."""
    if any(is_symbolic(a) for a in (cond, if_true, if_false)):
        return ca.if_else(cond, if_true, if_false)
    return if_true if cond else if_false


def _stack(ca_fun):
    def f(*args):
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            args = tuple(args[0])
        if any(is_symbolic(a) for a in args):
            return ca_fun(*args)
        return np.asarray(ca_fun(*args))
    f.__name__ = ca_fun.__name__
    f.__doc__ = f"``{ca_fun.__name__}`` of symbols or numbers (also accepts one list)."
    return f


vertcat = _stack(ca.vertcat)
horzcat = _stack(ca.horzcat)


def mtimes(*args):
    """Matrix product of symbols or arrays (``mtimes(A, B, C)`` = A @ B @ C)."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    if any(is_symbolic(a) for a in args):
        return ca.mtimes([a if is_symbolic(a) else ca.DM(np.atleast_1d(np.asarray(a, float)))
                          for a in args])
    return np.linalg.multi_dot([np.asarray(a, float) for a in args]) if len(args) > 2 \
        else np.asarray(args[0], float) @ np.asarray(args[1], float)


def dot(a, b):
    """Scalar product of two vectors."""
    if is_symbolic(a) or is_symbolic(b):
        return ca.dot(_col(a), _col(b))
    return float(np.dot(np.ravel(a), np.ravel(b)))


def cross(a, b):
    """Cross product of two 3-vectors (column)."""
    if is_symbolic(a) or is_symbolic(b):
        return ca.cross(_col(a), _col(b))
    return np.cross(np.ravel(a), np.ravel(b))


def transpose(a):
    """Transpose of a matrix."""
    return a.T


def norm_2(a):
    """Euclidean norm of a vector."""
    if is_symbolic(a):
        return ca.norm_2(a)
    return float(np.linalg.norm(np.ravel(a)))


def sumsqr(a):
    """Sum of squares of the entries."""
    if is_symbolic(a):
        return ca.sumsqr(a)
    return float(np.sum(np.square(a)))


def _col(a):
    if is_symbolic(a):
        return a
    if isinstance(a, (list, tuple)):
        if any(is_symbolic(x) for x in a):
            return ca.vertcat(*a)
    return ca.DM(np.ravel(np.asarray(a, float)))
