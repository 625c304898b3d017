"""Components attached to a tree of frames (see :mod:`.tree`): force elements, contacts and
sensors between its frames, 1-D elements between the drive flanges of its joints.

Their expressions are written with placeholders of their connectors' potentials (and
rates), parameters, time; the fast path gives each a value -- a frame's closed-form
position, the joint coordinate at an ``axis`` flange -- in one substitution, and the
elements enter the Model as the generic flattening enters them.
"""
import casadi as ca

from ..._symbols import _info
from ...errors import ModelError
from .._graph import CONTACT_KEYS, add_contact
from ..core import TIME

__all__ = ["attached", "symbols_known"]

def _attached_exprs(c):
    """Every expression an attached component declared (energies, flows, outputs,
    contact data), for the check of the symbols they use."""
    out = list(c._V)
    for cn, ex, energy in c._flows.values():
        out.extend(ex or ())
        if isinstance(energy, list):
            out.extend(energy)
    out.extend(e for _, e in c._outputs)
    for kw in c._contacts:
        for key in CONTACT_KEYS:
            v = kw.get(key)
            out.extend(v if isinstance(v, (list, tuple)) else [v])
    return [e for e in out if isinstance(e, ca.SX)]


def symbols_known(model, comps, kinds):
    """Whether the attached components' expressions use only symbols the fast path gives a
    value (parameters, coordinates, frame potentials and their rates, time) or the model's
    own symbols (not, e.g., a flow or an acceleration of another component)."""
    exprs = [e for c in comps if kinds[id(c)] == "attached" for e in _attached_exprs(c)]
    if not exprs:
        return True
    known = set()

    def add(ph):
        known.add(ph.element_hash())
        info = _info(ph)
        if info is not None and info.deriv is not None:
            known.add(info.deriv.element_hash())

    add(TIME)
    for c in comps:
        for _, ph, _ in c._params:
            add(ph)
        for d in c._coords:
            add(d[1])
        for cn in c._connectors:
            for ph in cn.__dict__.get("potential_syms", ()):
                add(ph)
    for s in ca.symvar(ca.veccat(*exprs)):
        if s.element_hash() in known:
            continue
        info = _info(s)
        if info is None or info.kind == "placeholder" or info.model_id != model._id or \
                info.kind in ("multiplier", "acceleration"):
            return False
    return True


def attached(model, comps, kinds, node_of, psym, qs):
    """Force elements, contacts and sensors on the tree's frames and drive flanges: their
    expressions with the nodes' potentials and rates, parameters, coordinates and time put
    in; potential energies, virtual work ``Q = -(ds/dq)^T f`` of the flows that do not come
    from an energy, contacts (as the generic path). Returns ``(flows of their connectors,
    ids of connectors whose flow is a contact force, outputs per component)``."""
    zero = ca.SX(0)
    att = [c for c in comps if kinds[id(c)] == "attached"]
    flows, unknown, outputs = {}, set(), {}
    if not att:
        return flows, unknown, outputs
    keys, vals = [], []

    def put(ph, val, rate):
        keys.append(ph)
        vals.append(val)
        info = _info(ph)
        if info is not None and info.deriv is not None:
            keys.append(info.deriv)
            vals.append(rate)

    put(TIME, model.time, ca.SX(1))
    for c in comps:
        for _, ph, _ in c._params:
            put(ph, psym[ph.element_hash()], zero)
        for (_, ph, *_), (q, qd, _) in zip(c._coords, qs.get(id(c), ())):
            put(ph, q, qd)
        for cn in c._connectors:
            if "potential_syms" in cn.__dict__:
                n = node_of[id(cn)]
                for ph, v, r in zip(cn.potential_syms, *n.values()):
                    put(ph, v, r)
    # one substitution for everything: energies, flows, virtual-work parts, contacts, outputs
    items = []                           # (what, component, key, expression)
    for c in att:
        items.extend(("V", c, None, v) for v in c._V)
        for cn, ex, energy in c._flows.values():
            if ex is None:
                unknown.add(id(cn))
                continue
            for i in range(len(cn.flows)):
                items.append(("flow", c, (cn, i), ex[i]))
                d = ex[i]
                if isinstance(energy, list):
                    d = d - energy[i]
                elif energy:
                    continue
                if d.is_zero() or d.nnz() == 0 or ca.simplify(d).is_zero():
                    continue
                items.append(("vw", c, (cn, i), d))
        for k, kw in enumerate(c._contacts):
            for key in CONTACT_KEYS:
                v = kw.get(key)
                if isinstance(v, (list, tuple)):
                    v = ca.vertcat(*v)
                if isinstance(v, ca.SX):
                    items.append(("contact", c, (k, key), v))
        items.extend(("out", c, name, e) for name, e in c._outputs)
    done = ca.substitute([e for *_, e in items], [ca.vertcat(*keys)], [ca.vertcat(*vals)])
    contact_kw = {}
    vw_f, vw_s = [], []
    for (what, c, key, _), e in zip(items, done):
        if what == "V":
            model.potential_energy(e)
        elif what == "flow":
            cn, i = key
            flows.setdefault(id(cn), [zero] * len(cn.flows))[i] = e
        elif what == "vw":
            cn, i = key
            n = node_of[id(cn)]
            vw_f.append(e)
            vw_s.append(n.values()[0][i])
        elif what == "contact":
            contact_kw[(id(c), *key)] = e
        else:
            outputs.setdefault(id(c), []).append((key, e))
    for c in att:
        for cn in c._connectors:
            flows.setdefault(id(cn), [zero] * len(cn.flows))
    coords = ca.vertcat(*[co["sym"] for co in model.coords]) if model.coords else \
        ca.SX(0, 1)
    if vw_f and coords.numel():
        J = ca.jacobian(ca.vertcat(*vw_s), coords)
        Q = -ca.mtimes(J.T, ca.vertcat(*vw_f))
        for j, co in enumerate(model.coords):
            if not Q[j].is_zero():
                model.generalized_force(Q[j], co["sym"])
    problems = []
    for c in att:
        for k, kw in enumerate(c._contacts):
            add_contact(model, c, kw, lambda key, e: contact_kw.get((id(c), k, key), e), coords,
                        problems)
    if problems:
        raise ModelError([f"model '{model.name}': {p}" for p in problems])
    return flows, unknown, outputs
