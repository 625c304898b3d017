"""SI units of component variables and parameters (the MSL's), by full name.

Every component class and connector class states the units of its local names as data,
``units = {"m": "kg", "s": "m", "v": "m/s", ...}`` (a subclass adds to or overrides its
bases'); a vector entry (``"r[1]"``, ``"R[2,3]"``) takes the unit of its base name
(``"r"``). :func:`component_units` turns these into units by full name (``"mass.s"``,
``"l1.frame_a.fx"``, ``"world.g"``) for the names a compiled model offers, so that
``Result.units``, plot labels and saved files carry them.

Example
-------
>>> import mechdae as md
>>> from mechdae.components import translational as tr
>>> m = md.Model("osc")
>>> mass = m.add(tr.Mass("mass", m=1.0, s=0.1))
>>> k = m.add(tr.Spring("k", c=10.0))
>>> f = m.add(tr.Fixed("f"))
>>> m.connect(mass.flange_a, k.flange_b); m.connect(k.flange_a, f.flange)
>>> res = m.compile().simulate(0.1)
>>> res.units["mass.s"], res.units["mass.v"], res.units["k.c"], res.units["k.f"]
('m', 'm/s', 'N/m', 'N')
"""
import re

__all__ = ["component_units", "units_of_class"]

_BASE = re.compile(r"^(.*?)(\[[0-9, ]+\])?$")


def units_of_class(cls):
    """The ``units`` of a class merged along its MRO (subclasses win)."""
    out = {}
    for klass in reversed(cls.__mro__):
        out.update(klass.__dict__.get("units", {}) or {})
    return out


def _lookup(table, local):
    if local in table:
        return table[local]
    base = _BASE.match(local).group(1)
    return table.get(base)


def component_units(model, names):
    """``{full name: unit}`` for those of ``names`` that belong to a component of
    ``model`` whose class (or connector class) states a unit for it; a speed declared
    with a coordinate (``"mass.v"`` of ``"mass.s"``) takes ``unit/s`` when its class
    states none."""
    comps = {}
    for top in getattr(model, "components", []):
        for c in top.walk():
            comps[c.path] = c
    if not comps:
        return {}
    out = {}
    cache = {}
    for name in names:
        # the longest component path that prefixes the name
        path, rest = name, ""
        comp = None
        while "." in path:
            path, _, tail = path.rpartition(".")
            rest = tail if not rest else f"{tail}.{rest}"
            comp = comps.get(path)
            if comp is not None:
                break
        if comp is None:
            continue
        unit = _unit_in(comp, rest, cache)
        if unit is not None:
            out[name] = unit
    return out


def _unit_in(comp, local, cache):
    first, _, remainder = local.partition(".")
    if remainder:
        cn = comp.__dict__.get(first)
        if cn is None or not hasattr(type(cn), "potentials"):
            return None
        cls = type(cn)
        if cls not in cache:
            cache[cls] = units_of_class(cls)
        return _lookup(cache[cls], remainder)
    cls = type(comp)
    if cls not in cache:
        cache[cls] = units_of_class(cls)
    unit = _lookup(cache[cls], local)
    if unit is None:
        # a speed declared with its coordinate: unit of the coordinate per second
        for cname, _sym, _default, speed, _sd in getattr(comp, "_coords", []):
            if speed == local:
                u = _lookup(cache[cls], cname)
                if u is not None:
                    return "1/s" if u == "1" else f"{u}/s"
    return unit
