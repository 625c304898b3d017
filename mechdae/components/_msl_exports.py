"""The MSL breadth of each 1-D domain, re-exported by its domain module.

translational.py, rotational.py and electrical.py end with
``__all__ += _msl_export(globals(), "<domain>")``: the classes of the modules listed here
join the domain module's namespace (``tr.ConstantForce``, ``rot.IdealPlanetary``,
``el.StepVoltage``), so users import one module per domain as MSL users open one package.
"""
import importlib

__all__ = ["export"]

#: domain -> modules whose ``__all__`` it re-exports, or (module, names) for a selection
MODULES = {
    "translational": ("translational_sources", "translational_sensors",
                      "translational_components",
                      ("rotational_components", ("IdealGearR2T", "IdealRollingWheel"))),
    "rotational": ("rotational_sources", "rotational_sensors", "rotational_components"),
    "electrical": ("electrical_basic", "electrical_sources", "electrical_sensors"),
}


def export(namespace, domain):
    """Put the classes of ``domain``'s MSL modules into ``namespace`` (a module's
    ``globals()``); returns their names (to extend its ``__all__``)."""
    names = []
    for entry in MODULES[domain]:
        mod, selection = entry if isinstance(entry, tuple) else (entry, None)
        module = importlib.import_module(f"{__package__}.{mod}")
        for name in selection or module.__all__:
            namespace[name] = getattr(module, name)
            names.append(name)
    return names
