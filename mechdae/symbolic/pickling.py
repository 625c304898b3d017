"""Pickling of Models and Systems (and so of Results, which hold their System).

CasADi refuses to pickle ``SX`` objects, and a Model is made of them (its symbols, energies,
forces, constraints, outputs), as is a System (its Model, the derivation record ``_d``, the
output expressions).  Pickling goes through CasADi's own serialization instead:

1. The object graph (a Model, or a System with its Model) is pickled by an inner pickler
   that sets every ``SX`` aside (a persistent id) instead of pickling it.
2. The free symbols of all those expressions (closed under the registry's ``deriv``
   links, so ``der(x)`` keeps working) become the inputs, the expressions the outputs, of
   **one** SX ``casadi.Function``, saved with ``Function.serialize()``; each symbol's
   registry record (name, kind, owner, rate) is saved beside it.
3. Loading creates one fresh symbol per saved one, registers it in the symbol registry
   (:mod:`mechdae._symbols`) under the loaded Model (a new model id), calls the
   deserialized Function on the new symbols (one symbolic evaluation: the expressions are
   *replayed*, nothing is derived again) and hands the rebuilt expressions to the inner
   unpickler.

So a loaded Model is a working Model (``der()``, ``compile()``, ``m["x"]``, outputs), and a
loaded System needs no derivation: its compiled ``casadi.Function`` objects are pickled as
such (CasADi serializes them; they evaluate bit for bit as before), its ``_d`` record is
rebuilt by the replay above.  What is not pickled: caches added after compile() (integrators,
contact assemblers, time-stepping and unified-method Functions, ``_xdot_fn``), which rebuild
on first use; locks and ``threading.local`` objects, which load as fresh ones; the Component
objects of a flattened component model (consumed by flattening: the Model holds every
equation, output and name they produced).  A Model with components that was never
flattened (compiled) is refused: call ``model.flatten()`` (or ``compile()``) first.

Input defaults given as lambdas or nested functions (``rot.Torque(tau=lambda t: ...)``) are
not picklable by reference; they are saved as the expression ``f(m.time)`` they give on the
model time (the same function of time; it is what an integrator sees of them anyway).
Functions importable by name are pickled by reference as usual.

Symbols shared by two pickles (a Model pickled on its own and again inside a System) are
not shared after loading: each pickle loads its own Model.
"""
import functools
import importlib
import io
import pickle
import sys as _sys
import threading
import types

import casadi as ca

from .. import _symbols
from .._symbols import _MODELS, _REGISTRY, _SymInfo

__all__ = ["dump_payload", "load_payload", "PICKLE_FORMAT"]

PICKLE_FORMAT = 1

# module-level sentinel symbols that must stay the same objects after loading
_SENTINELS = (("mechdae.components._graph", "UNKNOWN"),
              ("mechdae.components._graph", "INDETERMINATE"))

_LOCK_TYPE, _RLOCK_TYPE = type(threading.Lock()), type(threading.RLock())


def _identity(x):
    return x


def _new_lock():
    return threading.Lock()


def _new_rlock():
    return threading.RLock()


def _bare(cls):
    return cls.__new__(cls)


def _importable(fn):
    """Whether ``fn`` pickles by reference (module attribute reachable by its qualname)."""
    mod = _sys.modules.get(getattr(fn, "__module__", None) or "")
    if mod is None or "<" in fn.__qualname__:
        return False
    try:
        return functools.reduce(getattr, fn.__qualname__.split("."), mod) is fn
    except AttributeError:
        return False


def _set_model_state(obj, state):
    obj.__dict__.update(state)
    obj._id = id(obj)
    _MODELS[obj._id] = obj


def _set_system_state(obj, state):
    obj.__dict__.update(state)
    obj.__dict__.setdefault("_integrators", {})


class _Pickler(pickle.Pickler):
    def __init__(self, file, time_sym):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.sx = []
        self._sx_index = {}
        self._keep = []
        self.models = []
        self.time_sym = time_sym

    def persistent_id(self, obj):
        if isinstance(obj, ca.SX):
            i = self._sx_index.get(id(obj))
            if i is None:
                i = self._sx_index[id(obj)] = len(self.sx)
                self.sx.append(obj)
            return i
        return None

    def reducer_override(self, obj):
        from .system import System
        if isinstance(obj, _symbols.MODEL_TYPES):       # mechdae.Model (registered there)
            state = obj._pickle_state()       # refuses components not flattened yet
            self.models.append(obj)
            return _bare, (type(obj),), state, None, None, _set_model_state
        if isinstance(obj, System):
            return _bare, (type(obj),), obj._pickle_state(), None, None, _set_system_state
        if isinstance(obj, ca.MX):
            raise pickle.PicklingError("an MX expression cannot be pickled (only the SX "
                                       "expressions of Models and Systems are)")
        if isinstance(obj, _LOCK_TYPE):            # locks and thread-local state: fresh ones
            return _new_lock, ()
        if isinstance(obj, _RLOCK_TYPE):
            return _new_rlock, ()
        if isinstance(obj, threading.local):
            return threading.local, ()
        if isinstance(obj, types.FunctionType) and not _importable(obj):
            return self._function_of_time(obj)
        return NotImplemented

    def _function_of_time(self, fn):
        what = f"function {fn.__qualname__!r} (module {fn.__module__})"
        if self.time_sym is None:
            raise pickle.PicklingError(f"cannot pickle the {what}")
        try:
            val = fn(self.time_sym)
        except Exception as exc:
            raise pickle.PicklingError(
                f"cannot pickle the {what}: it is not importable by name and calling it on "
                f"the model time failed ({exc}); define it at module level") from exc
        if not isinstance(val, ca.SX):
            try:
                val = ca.SX(float(val))
            except (TypeError, ValueError):
                raise pickle.PicklingError(
                    f"cannot pickle the {what}: it is not importable by name and does not "
                    "give an expression of the model time; define it at module level") \
                    from None
        return _identity, (val,)


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, sx):
        super().__init__(file)
        self._sx = sx

    def persistent_load(self, pid):
        return self._sx[pid]


def _sentinel_ref(h):
    for modname, attr in _SENTINELS:
        mod = _sys.modules.get(modname)
        s = getattr(mod, attr, None) if mod is not None else None
        if isinstance(s, ca.SX) and s.element_hash() == h:
            return modname, attr
    return None


def dump_payload(root, time_sym=None):
    """Picklable plain data (a dict of bytes, strings and lists) standing for ``root``.

    ``root`` is a Model or a System (any object graph holding SX expressions of Models);
    ``time_sym`` is the model time used to save lambdas given as functions of time.
    """
    buf = io.BytesIO()
    p = _Pickler(buf, time_sym)
    p.dump(root)
    p.dump(p.models)
    exprs = list(p.sx)
    model_ids = [m._id for m in p.models]
    # free symbols, closed under the rates recorded in the registry (der(x) of a coordinate)
    syms, table, seen = [], [], set()
    frontier = exprs
    while frontier:
        stack = [ca.vec(e) for e in frontier if e.numel()]
        frontier = []
        if not stack:
            break
        for s in ca.symvar(ca.vertcat(*stack)):
            h = s.element_hash()
            if h in seen:
                continue
            seen.add(h)
            info = _REGISTRY.get(h)
            deriv = None
            if info is not None and info.deriv is not None:
                deriv = len(exprs)
                exprs.append(info.deriv)
                frontier.append(info.deriv)
            mid = None
            if info is not None and info.model_id in model_ids:
                mid = model_ids.index(info.model_id)
            syms.append(s)
            table.append(dict(name=s.name(), kind=None if info is None else info.kind,
                              info_name=None if info is None else info.name,
                              model=mid, deriv=deriv,
                              owner=None if info is None else info.owner,
                              sentinel=_sentinel_ref(h)))
    F = ca.Function("mechdae_pickle", syms, exprs)
    return dict(format=PICKLE_FORMAT, casadi=ca.__version__, function=F.serialize(),
                symbols=table, graph=buf.getvalue(), n_models=len(model_ids))


def load_payload(payload):
    """Rebuild the object saved by :func:`dump_payload` (new symbols, registered)."""
    if payload.get("format") != PICKLE_FORMAT:
        raise pickle.UnpicklingError(f"mechdae pickle format {payload.get('format')} is not "
                                     f"supported (this version reads {PICKLE_FORMAT})")
    F = ca.Function.deserialize(payload["function"])
    new = []
    for rec in payload["symbols"]:
        if rec["sentinel"] is not None:
            modname, attr = rec["sentinel"]
            new.append(getattr(importlib.import_module(modname), attr))
        else:
            new.append(ca.SX.sym(rec["name"]))
    outs = F.call(new) if F.n_out() else []
    outs = [o if isinstance(o, ca.SX) else ca.SX(o) for o in outs]
    up = _Unpickler(io.BytesIO(payload["graph"]), outs)
    root = up.load()
    models = up.load()
    for s, rec in zip(new, payload["symbols"]):
        if rec["kind"] is None or rec["sentinel"] is not None:
            continue
        mid = models[rec["model"]]._id if rec["model"] is not None else None
        deriv = outs[rec["deriv"]] if rec["deriv"] is not None else None
        _REGISTRY[s.element_hash()] = _SymInfo(s, rec["info_name"], rec["kind"], mid, deriv,
                                               rec["owner"])
    return root
