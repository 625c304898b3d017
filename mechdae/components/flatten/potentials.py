"""Pass 2: nodes and their values bound to every potential, and the checks on them.

:func:`.nodes.resolve_nodes` joins connected potentials and gives each node its value;
here every connector's potential placeholder (and the rate ``der()`` of it) takes its
node's value. Rates of defined potentials come from their definitions in placeholder
space: along a chain of relations ``der(x_b) = der(x_a) + ...``, so velocities stay as
compact as the positions (re-expanding each node's rate from its resolved value is
O(n^2) per chain). Then: every group of nodes needs a reference, open electrical pins are
warned of, and a connector that may not be a general variable (a spatial frame) must be
positioned.
"""
from ..._symbols import der, der_many
from .nodes import check_references, resolve_nodes, warn_open_pins

__all__ = ["potentials"]


def potentials(F):
    """Set ``F.N`` (:class:`.nodes.Nodes`), ``F.droots`` (defined nodes) and ``F.rates``
    (their rates); bind the potentials in ``F.S``; raise the problems found."""
    S = F.S
    N = F.N = resolve_nodes(F.model, F.comps, F.conns, F.connections, F.coord_phs,
                            F.general, F.P)
    members, node_val = N.members, N.node_val
    for root, lst in members.items():
        for cn, i in lst:
            S.set(cn.potential_syms[i], node_val[root])
    F.droots = [root for root in members if root not in N.general_roots]
    F.rates = der_many([node_val[root] for root in F.droots])
    for root, r in zip(F.droots, F.rates):
        for cn, i in members[root]:
            S.set(der(cn.potential_syms[i]), r)
    check_references(N, F.comps, F.P)
    warn_open_pins(N, F.model)
    _positioned(F)
    F.check()


def _positioned(F):
    """A connector that may not be a general variable (``allow_general`` False: a spatial
    frame's orientation) at a node that nothing positions is a problem."""
    N = F.N
    loose = {}
    for root in N.general_roots:
        for cn, i in N.members[root]:
            if not cn.allow_general:
                loose.setdefault(id(cn), cn)
    if loose:
        cns = sorted(loose.values(), key=lambda cn: cn.path)
        F.P.append(f"{', '.join(repr(cn.path) for cn in cns[:6])}"
                   f"{' ...' if len(cns) > 6 else ''}: not positioned by anything (no joint, "
                   f"fixed frame or defining component reaches "
                   f"{'it' if len(cns) == 1 else 'them'}); {cns[0].support_hint}")
