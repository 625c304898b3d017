"""The acausal layer: components with connectors, joined by ``Model.connect``.

One module per domain (``translational``, ``rotational``, ``electrical``) on top of the
connector/flattening core (:mod:`.core`, :mod:`.flatten`). The layer sits above the DSL:
components use the Model's public calls; nothing below imports this package.

Examples
--------
>>> import mechdae as md
>>> from mechdae.components import translational as tr
>>> m = md.Model("osc")
>>> mass = m.add(tr.Mass("mass", m=1.0))
>>> spring = m.add(tr.Spring("spring", c=4.0))
>>> wall = m.add(tr.Fixed("wall"))
>>> m.connect(wall.flange, spring.flange_a); m.connect(spring.flange_b, mass.flange_a)
>>> res = m.compile().simulate(1.0, q0={"mass.s": 0.5})
"""
from .core import Component, Connector

__all__ = ["Component", "Connector", "translational", "rotational", "electrical", "planar",
           "spatial"]


def __getattr__(name):
    if name in ("translational", "rotational", "electrical", "planar", "spatial"):
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(name)
