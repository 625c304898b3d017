"""The MSL breadth of each 1-D domain, re-exported by its domain module.

translational.py, rotational.py and electrical.py end with
``__all__ += _msl_export(globals(), "<domain>")``: the classes of the modules listed here
join the domain module's namespace (``tr.ConstantForce``, ``rot.IdealPlanetary``,
``el.StepVoltage``), so users import one module per domain as MSL users open one package.

The breadth modules import their domain module (for its connector class) and end with
``done(__name__)``. Whichever is imported first, every class arrives: a breadth module
that is still being imported when its domain module re-exports (the user imported it
first) puts its classes into the domain module when it finishes.
"""
import importlib

__all__ = ["export", "done"]

#: domain -> modules whose ``__all__`` it re-exports, or (module, names) for a selection
MODULES = {
    "translational": ("translational_sources", "translational_sensors",
                      "translational_components", "translational_friction",
                      ("rotational_components", ("IdealGearR2T", "IdealRollingWheel"))),
    "rotational": ("rotational_sources", "rotational_sensors", "rotational_components"),
    "electrical": ("electrical_basic", "electrical_sources", "electrical_sensors"),
}

_NAMESPACES = {}                         # domain -> its module's globals()
_FINISHED = set()                        # breadth modules imported to their end


def _entries(domain):
    for entry in MODULES[domain]:
        yield entry if isinstance(entry, tuple) else (entry, None)


def _put(namespace, module, selection):
    names = list(selection or module.__all__)
    for name in names:
        namespace[name] = getattr(module, name)
    return names


def export(namespace, domain):
    """Put the classes of ``domain``'s MSL modules into ``namespace`` (a module's
    ``globals()``); returns their names (to extend its ``__all__``). A module still being
    imported is skipped here and delivers its classes through :func:`done`."""
    _NAMESPACES[domain] = namespace
    names = []
    for mod, selection in _entries(domain):
        full = f"{__package__}.{mod}"
        module = importlib.import_module(full)
        if full in _FINISHED:
            names += _put(namespace, module, selection)
    # the modules that finished while this ran have added theirs already (done())
    listed = set(namespace.get("__all__", ()))
    return [n for n in names if n not in listed]


def done(module_name):
    """The end of a breadth module: its classes into the domain modules that re-export
    it and ran :func:`export` before it was complete."""
    _FINISHED.add(module_name)
    module = importlib.import_module(module_name)
    short = module_name.rsplit(".", 1)[1]
    for domain, namespace in _NAMESPACES.items():
        for mod, selection in _entries(domain):
            if mod == short:
                new = [n for n in _put(namespace, module, selection)
                       if n not in namespace["__all__"]]
                namespace["__all__"] += new
