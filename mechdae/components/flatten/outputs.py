"""Pass 7: outputs -- every potential and flow by name, and the components' own.

Eliminated coordinates and their rates come first, then per component every connector's
potentials, its public flows and derived outputs (a spatial frame's force resolved in the
frame), and the component's outputs; a name already taken keeps its first meaning. A flow
that is (or depends on) a contact force, or that rigid bodies leave undetermined (shared
among redundant joints), is not offered: ``model._unavailable_outputs`` says why.
"""
import casadi as ca

from .._graph import INDETERMINATE as _INDET, UNKNOWN as _UNKNOWN

__all__ = ["outputs"]


def outputs(F):
    """Add the outputs to ``F.model``; set ``model._unavailable_outputs``."""
    model = F.model
    taken = set(model._names)
    outs = []

    def out(name, e):
        if name not in taken:
            taken.add(name)
            outs.append((name, e))

    for name, e in F.elim_outputs:
        out(name, e)
    for c in F.comps:
        for cn in c._connectors:
            for i, p in enumerate(cn.potentials):
                out(f"{cn.path}.{p}", cn.potential_syms[i])
            if cn.public_flows:
                for i, f in enumerate(cn.flows):
                    out(f"{cn.path}.{f}", cn.flow_syms[i])
            for name, e in cn.derived_outputs():
                out(f"{cn.path}.{name}", e)
        for name, e in c._outputs:
            out(f"{c.path}.{name}", e)
    out_vals = F.S.apply([e for _, e in outs])
    unk_rows, ind_rows = set(), set()
    if out_vals:
        Y = ca.vertcat(*out_vals)
        unk_rows = set(ca.jacobian(Y, _UNKNOWN).sparsity().row())
        ind_rows = set(ca.jacobian(Y, _INDET).sparsity().row())
    unavailable = {}
    for k, ((name, _), e) in enumerate(zip(outs, out_vals)):
        if k in unk_rows:
            unavailable[name] = "it is (or depends on) a contact force"
        elif k in ind_rows:
            unavailable[name] = ("rigid bodies leave it undetermined: it is shared among "
                                 "redundant joints (a loop that closes by itself)")
        else:
            model.output(name, e)
    model._unavailable_outputs = unavailable
