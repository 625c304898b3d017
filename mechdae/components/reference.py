"""The component reference of the 1-D libraries, generated from the classes themselves.

One Markdown table per package (translational, rotational, electrical): class,
connectors, parameters with their defaults and SI units, and the first sentence of the
class's documentation. ``docs/components.md`` is this module's output
(``python -m mechdae.components.reference > docs/components.md``); a test compares them,
so the reference cannot drift from the code. It lists the MSL breadth modules
(:mod:`._msl_exports`: sources, sensors, components, Analog.Basic); the classes of the
domain modules themselves join it once their ``units`` are declared (issue 27 adds them):
add the domain module to ``MODULES`` below.

Connectors and parameters are those of an instance built with the defaults (optional
connectors such as ``support`` appear with ``useSupport=True``); an argument without a
default is marked *required* (MSL gives it no default either). Units come from each
class's ``units`` (local name -> unit string); a dash marks one not declared (the classes
that predate ``units``).
"""
import importlib
import inspect
import re

__all__ = ["reference_tables", "class_rows", "unit_of"]

PACKAGES = (("translational", "Modelica.Mechanics.Translational"),
            ("rotational", "Modelica.Mechanics.Rotational"),
            ("electrical", "Modelica.Electrical.Analog"))


def _modules(domain):
    """The modules whose classes ``domain``'s table lists: its MSL breadth modules."""
    from ._msl_exports import MODULES
    return [importlib.import_module(f"{__package__}.{e if isinstance(e, str) else e[0]}")
            for e in MODULES[domain] if isinstance(e, str)]

# placeholders for required arguments when building an instance to list its connectors
_SAMPLE = 1.0


def unit_of(table, name):
    """The unit of local ``name`` in a class's ``units`` table (``"L[2]"``: that of
    ``"L"``), or None."""
    return table.get(name, table.get(re.sub(r"\[[0-9, ]+\]$", "", name)))


def _first_sentence(doc):
    text = " ".join((doc or "").split())
    m = re.match(r"(.+?\.)(\s|$)", text)
    return (m.group(1) if m else text).replace("|", "\\|")


def _instance(cls):
    """An instance with the defaults (``cls._reference_args`` where the defaults need a
    signal, e.g. MSL's useConstantAmplitude=false) and ``_SAMPLE`` for required
    arguments; returns it and the names of the required arguments."""
    sig = inspect.signature(cls.__init__)
    kw = {p: _SAMPLE for p, v in sig.parameters.items()
          if v.default is inspect.Parameter.empty and p not in ("self", "name")
          and v.kind not in (v.VAR_KEYWORD, v.VAR_POSITIONAL)}
    return cls("c", **kw, **getattr(cls, "_reference_args", {})), set(kw)


def _value(v):
    if isinstance(v, float):
        return f"{v:g}"
    return repr(v) if not hasattr(v, "shape") else "array"


def class_rows(module):
    """``[(class name, connectors, parameters, documentation)]`` of ``module.__all__``'s
    component classes (strings ready for a Markdown table)."""
    from .core import Component, Connector
    from .units import units_of_class
    rows = []
    for name in module.__all__:
        cls = getattr(module, name)
        if not (isinstance(cls, type) and issubclass(cls, Component)):
            continue
        table = units_of_class(cls)      # a vector entry "L[2]" takes the unit of "L"
        try:
            inst, required = _instance(cls)
        except (ValueError, TypeError):  # defaults that are no valid instance (a Stop)
            inst = None
        if inst is None:
            cons = "(as built)"
            values = [(p, "*required*" if v.default is inspect.Parameter.empty
                       else _value(v.default))
                      for p, v in inspect.signature(cls.__init__).parameters.items()
                      if p not in ("self", "name") and v.kind == v.POSITIONAL_OR_KEYWORD]
        else:
            cons = ", ".join([c.name for c in inst._connectors] + [
                k for k, v in vars(inst).items()         # a hierarchy's re-exported ones
                if isinstance(v, Connector) and v.owner is not inst])
            values = [(p, "*required*" if p in required else _value(val))
                      for p, _, val in inst._params]
        params = [f"{pname} = {shown} [{unit_of(table, pname) or '-'}]"
                  for pname, shown in values]
        rows.append((name, cons, "; ".join(params) or "-", _first_sentence(cls.__doc__)))
    return rows


def reference_tables():
    """The Markdown of the component reference (one section and table per package)."""
    out = ["# Component reference: the MSL 1-D breadth (generated)", "",
           "Generated from the classes by `python -m mechdae.components.reference`; do "
           "not edit by hand. Each class is reached as `translational.<class>`, "
           "`rotational.<class>` or `electrical.<class>`. Parameters: `name = default "
           "[unit]`; connectors of an instance with the defaults (`support` appears with "
           "`useSupport=True`).", ""]
    for mod_name, msl in PACKAGES:
        out += [f"## `{mod_name}` ({msl})", "",
                "| class | connectors | parameters | documentation |",
                "|---|---|---|---|"]
        for module in _modules(mod_name):
            out += [f"| `{n}` | {c} | {p} | {d} |" for n, c, p, d in class_rows(module)]
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    print(reference_tables())
