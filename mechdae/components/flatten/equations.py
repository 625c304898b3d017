"""Pass 6: the components' general equations, holonomic constraints and contacts.

General equations (electrical branches, a block's law) go to compile()'s structural
analysis as they are, each with its provenance; holonomic constraints and contacts are
added with their expressions resolved.
"""
from .._graph import add_contact
from .declare import comp_origin

__all__ = ["equations"]


def equations(F):
    """Add ``c._equations``, ``c._holonomic`` and ``c._contacts`` of every component."""
    model, S, comps = F.model, F.S, F.comps
    eqs = [(f"{c.path}.{name}", e) for c in comps for name, e in c._equations]
    for (name, _), e in zip(eqs, S.apply([e for _, e in eqs])):
        model.equation(e, name=name)
    F.origin.update((f"{c.path}.{name}", comp_origin(c)) for c in comps
                    for name, _ in c._equations)
    hols = [(f"{c.path}.{name}", e) for c in comps for name, e in c._holonomic]
    for (name, _), e in zip(hols, S.apply([e for _, e in hols])):
        model.holonomic(e, name=name)
    for c in comps:
        for kw in c._contacts:
            add_contact(model, c, kw, lambda key, e: S.apply([e])[0], F.coords, F.P)
