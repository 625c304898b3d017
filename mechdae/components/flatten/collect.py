"""Pass 1: the components, connectors and connections of a model, and their problems.

Every component builds its equations (``_build``), meets the others (``_before_flatten``:
a body takes gravity from the World) and reports its own problems; a connection to a
component outside the model is a problem too. All of them are reported at once.
"""

__all__ = ["collect"]


def collect(F):
    """Fill ``F.conns`` (every connector) and ``F.connections`` (the model's and the
    components' own); raise the problems found."""
    comps, P = F.comps, F.P
    for c in comps:
        c._build()
    for c in comps:
        P.extend(c._before_flatten(comps))
    for c in comps:
        P.extend(f"{c.path}: {p}" if not p.startswith(c.path) else p for p in c._problems)
    F.conns = [cn for c in comps for cn in c._connectors]
    owned = {id(cn) for cn in F.conns}
    F.connections = list(F.model.connections) + [t for c in comps for t in c._connections]
    for tup in F.connections:
        for cn in tup:
            if id(cn) not in owned:
                P.append(f"connect(): {cn.describe()} belongs to a component that is not part "
                         f"of model '{F.model.name}'; add its component with m.add(...)")
    F.check()
