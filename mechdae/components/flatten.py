"""Flattening: components and connections -> one Model (energies, forces, equations).

Potentials. Connected potentials form a node (union-find: alias elimination, one value per
node). A node's value is, in this order of preference:

1. given by a component that *defines* it (a mass: its coordinate -+ L/2; Fixed: s0;
   Position: s_ref(t)); when several components define one node, the first keeps the
   value and each further one adds a holonomic constraint ``s_k - s_node = 0`` (a rigid
   connection; its multiplier is the force transmitted);
2. solved from a kinematic relation of a component whose other potentials are known (a
   gear fed from a defined side: a tree joint, substituted);
3. otherwise a general variable of the Model (a massless mechanical node, an electrical
   node voltage) with the balance equation ``sum of flows = 0``.

Relations left with all their potentials known become holonomic constraints (or, over
general variables, general equations with their multiplier as an algebraic variable).

Flows. A flow declared by its component is an expression; a relation's flows are
``-lam dphi/ds``; the flow of the component that defines a node is minus the sum of the
others there (Newton's third law at the node); an unconnected flow is zero. Mechanical
force elements act through virtual work, ``Q = -(ds_node/dq)^T f``, or through their
potential energy (``energy=True``), so that derivation, stabilization and contacts apply
unchanged. Every potential and flow becomes a named output of the Model.
"""
import time
from collections import defaultdict

import casadi as ca
import numpy as np

from ..dsl.model import _info, der, der_many
from ..errors import ModelError
from ._graph import INDETERMINATE as _INDET, UNKNOWN as _UNKNOWN, Subst as _Subst
from ._graph import add_contact, hashes as _hashes
from .core import TIME
from .eliminate import choose_eliminations, reaction_multipliers
from .nodes import check_references, resolve_nodes, warn_open_pins
from .network1d import flatten_network
from .tree import flatten_tree

__all__ = ["flatten"]

def _comp_origin(c):
    """``"component 'C' (Capacitor)"``: a flattened name's provenance."""
    return f"component '{c.path}' ({type(c).__name__})"


def _node_origin(lst):
    """Provenance of a node's potential and balance equation: its connectors, or that the
    only one is connected to nothing (its flow is then zero)."""
    cn = lst[0][0]
    kind = cn.kind.lower()
    if len({id(m) for m, _ in lst}) == 1:
        return (f"{kind} '{cn.path}' of {_comp_origin(cn.owner)} is connected to nothing "
                "(its flow is zero there); connect it where its flow has a path")
    names = ", ".join(f"'{m.path}'" for m, _ in lst[:8]) + (" ..." if len(lst) > 8 else "")
    comps = ", ".join(dict.fromkeys(_comp_origin(m.owner) for m, _ in lst[:8]))
    return f"the node of the {kind}s {names} ({comps})"


def flatten(model):
    """Flatten ``model.components`` and ``model.connections`` into ``model`` (in place)."""
    t_start = time.perf_counter()
    P = []
    comps = [c for root in model.components for c in root.walk()]
    if flatten_network(model, comps) or flatten_tree(model, comps):
        return
    for c in comps:
        c._build()
    for c in comps:
        P.extend(c._before_flatten(comps))
    for c in comps:
        P.extend(f"{c.path}: {p}" if not p.startswith(c.path) else p for p in c._problems)
    conns = [cn for c in comps for cn in c._connectors]
    owned = {id(cn) for cn in conns}
    connections = list(model.connections) + [t for c in comps for t in c._connections]
    for tup in connections:
        for cn in tup:
            if id(cn) not in owned:
                P.append(f"connect(): {cn.describe()} belongs to a component that is not part "
                         f"of model '{model.name}'; add its component with m.add(...)")
    if P:
        raise ModelError([f"model '{model.name}': {p}" for p in P])

    S = _Subst()
    S.set(TIME, model.time)
    general = []                         # general variable symbols created here
    # where each general equation and variable comes from (named in compile's messages
    # about equations that cannot be solved, mechdae.symbolic.singular.origin_note)
    origin = model.__dict__.setdefault("_origin", {})
    coord_phs = set()
    coord_decl = []                      # (component, name, placeholder, defaults...)
    # ------------------------------------------------------------------ declared symbols
    for c in comps:
        path = c.path
        for ln, ph, val in c._params:
            S.set(ph, val if isinstance(val, ca.SX) else model.parameter(f"{path}.{ln}", val))
        for ln, ph, default, speed, speed_default in c._coords:
            coord_decl.append((c, ln, ph, default, speed, speed_default))
            coord_phs.add(ph.element_hash())
        for ln, ph, default in c._vars:
            v = model.variable(f"{path}.{ln}", default)
            origin[f"{path}.{ln}"] = _comp_origin(c)
            general.append(v)
            S.set(ph, v)
        for ln, ph, default in c._speeds:
            S.set(ph, model.speeds(f"{path}.{ln}", default=default))

    # ------------------------------------------------------------------ nodes
    N = resolve_nodes(model, comps, conns, connections, coord_phs, general, P)
    members, node_val, root_of, node_name = N.members, N.node_val, N.root_of, N.node_name
    defined_roots, primary, secondary, rels = (N.defined_roots, N.primary, N.secondary,
                                               N.rels)
    general_roots, n_general_nodes = N.general_roots, N.n_general_nodes
    for root, lst in members.items():
        for cn, i in lst:
            S.set(cn.potential_syms[i], node_val[root])
    # rates of defined potentials from their definitions, in placeholder space: along a
    # chain of relations der(x_b) = der(x_a) + ..., so velocities stay as compact as the
    # positions (re-expanding each node's rate from its resolved value is O(n^2) per chain)
    droots = [root for root in members if root not in general_roots]
    rates = der_many([node_val[root] for root in droots])
    for root, r in zip(droots, rates):
        for cn, i in members[root]:
            S.set(der(cn.potential_syms[i]), r)

    check_references(N, comps, P)
    warn_open_pins(N, model)
    loose = {}
    for root in general_roots:
        for cn, i in members[root]:
            if not cn.allow_general:
                loose.setdefault(id(cn), cn)
    if loose:
        cns = sorted(loose.values(), key=lambda cn: cn.path)
        P.append(f"{', '.join(repr(cn.path) for cn in cns[:6])}{' ...' if len(cns) > 6 else ''}"
                 f": not positioned by anything (no joint, fixed frame or defining component "
                 f"reaches {'it' if len(cns) == 1 else 'them'}); {cns[0].support_hint}")

    if P:
        raise ModelError([f"model '{model.name}': {p}" for p in P])

    # ------------------------------------------------------------------ eliminations
    PT = _Subst()                        # potentials and their rates -> node values
    for root, lst in members.items():    # (placeholder space)
        for cn, i in lst:
            PT.set(cn.potential_syms[i], node_val[root])
    for root, r in zip(droots, rates):
        for cn, i in members[root]:
            PT.set(der(cn.potential_syms[i]), r)
    PT.resolve(f"model '{model.name}'")

    def pot(e):
        return PT.apply([e])[0]

    crels = [r for r in rels if r["role"] == "constraint"]
    cons = [dict(phi=e - node_val[root], prefer=[d[1] for d in c._coords], name=name)
            for c, cn, i, e, root, name in secondary]
    cons += [dict(phi=r["phi"], prefer=[], name=f"{r['comp'].path}.{r['name']}")
             for r in crels]
    gen_h0 = {v.element_hash() for v in general}
    NUM = _Subst()                       # parameters at their defaults
    for c in comps:
        for ln, ph, val in c._params:
            NUM.set(ph, val if isinstance(val, ca.SX) else ca.SX(ca.DM(np.asarray(val, float))))
    NUM.resolve(f"model '{model.name}'")

    def numeric(e):
        return NUM.apply([e])[0]

    E = choose_eliminations(cons, [d[2] for d in coord_decl], pot, TIME, gen_h0, model.name,
                            numeric)
    sec_roles, rel_roles = cons[:len(secondary)], cons[len(secondary):]
    any_elim = bool(E.keys)
    elim_outputs = []
    kin_of = {c_ph.element_hash(): e for c in comps for c_ph, e in c._kinematics}
    kin = []                             # (coordinate symbol, rate expression placeholders)
    for c, ln, ph, default, speed, speed_default in coord_decl:
        path = c.path
        sname = f"{path}.{speed}" if speed is not None else None
        if E.has(ph):
            S.set(ph, E.get(ph))
            elim_outputs.append((f"{path}.{ln}", ph))
            elim_outputs.append((sname or f"der({path}.{ln})", der(ph)))
            continue
        sym = model.coordinates(f"{path}.{ln}", default=default, speeds=sname,
                                speed_default=speed_default)
        S.set(ph, sym)
        if ph.element_hash() in kin_of:
            kin.append((sym, kin_of[ph.element_hash()]))
            continue
        d1 = _info(ph).deriv
        if any_elim or (d1 is not None and _info(d1).deriv is not None):
            # accelerations (outputs only): evaluated by results from the equations of motion
            S.set(der(der(ph)), model.acceleration(sname or f"der({path}.{ln})"))
    for ph, val in zip(E.keys, E.vals):
        S.set(der(der(ph)), der(der(val)))
    S.resolve(f"model '{model.name}'")
    if kin:
        model.kinematics(dict(zip([k for k, _ in kin], S.apply([e for _, e in kin]))))
    kin_rate = {_info(sym).deriv.element_hash(): e for sym, e in
                zip([k for k, _ in kin], S.apply([e for _, e in kin]))}

    def acceleration(s):
        """Rate of a speed (an output-only acceleration symbol); the rate of a coordinate's
        rate under declared kinematics is ``d/dt (N(q) u)``."""
        e = kin_rate.get(s.element_hash())
        if e is not None:
            return der_many([e], acceleration=acceleration)[0]
        return model.acceleration(s)
    t_alias = time.perf_counter()

    def derivatives():
        """der() placeholders of resolved values (needed by flows, equations, energies)."""
        while True:
            todo, idx = [], []
            index = S.index
            for i, info in enumerate(S.infos):
                if info is not None and info.deriv is not None and \
                        info.deriv.element_hash() not in index:
                    todo.append(info)
                    idx.append(i)
            if not todo:
                return
            todo = list(zip(todo, S.values(idx)))
            try:
                # rates of velocities (a body's inertial force in its flows) are the
                # accelerations, which only outputs may use
                rates = der_many([v for _, v in todo], acceleration=acceleration)
            except ValueError:
                for info, val in todo:
                    try:
                        der(val)
                    except ValueError as exc:
                        raise ModelError(f"model '{model.name}': der({info.name}): "
                                         f"{exc}") from None
                raise
            for (info, _), r in zip(todo, rates):
                S.set(info.deriv, r)
            S.resolve(f"model '{model.name}'")

    derivatives()

    # ------------------------------------------------------------------ constraints
    gen_h = {v.element_hash() for v in general}
    lam_of = {}                          # id(relation) -> column of multiplier symbols

    def is_general(e):
        return bool(_hashes(e) & gen_h)

    kept = []                            # (phi placeholders, lam) of kept constraints
    for r, phi, con in zip(crels, S.apply([r["phi"] for r in crels]), rel_roles):
        name = f"{r['comp'].path}.{r['name']}"
        if con["role"] == "redundant":
            lam_of[id(r)] = ca.vertcat(*[_INDET] * phi.numel())
        if phi.numel() == 0 or con["role"] != "kept":
            continue
        if is_general(phi):
            lam = ca.vertcat(*[model.variable(f"{name}.lambda" + (f"[{j}]" if j else ""))
                               for j in range(phi.numel())])
            general.extend(ca.vertsplit(lam))
            model.equation(phi, name=name)
        else:
            model.holonomic(phi, name=name)
            lam = ca.vertcat(*[model.multiplier(name, j) for j in range(phi.numel())])
        lam_of[id(r)] = lam
        kept.append((r["phi"], lam))
    sec_lam = []
    for (c, cn, i, e, root, name), phi, con in zip(
            secondary, S.apply([e - node_val[root_] for _, _, _, e, root_, _ in secondary]),
            sec_roles):
        if con["role"] != "kept":
            sec_lam.append(_INDET if con["role"] == "redundant" else ca.SX(0))
            continue
        if is_general(phi):
            lam = model.variable(f"{name}.lambda")
            general.append(lam)
            model.equation(phi, name=name)
        else:
            model.holonomic(phi, name=name)
            lam = model.multiplier(name)
        sec_lam.append(lam)
        kept.append((e - node_val[root], lam))
    gen_h = {v.element_hash() for v in general}
    if any_elim:
        _eliminated_forces(comps, cons, secondary, crels, sec_lam, lam_of, kept, coord_decl,
                           pot, gen_h, S)

    # ------------------------------------------------------------------ flows
    declared = {}                        # (id(cn), i) -> expr or None
    energy_flow = {}                     # (id(cn), i) -> the part of the flow from the energy
    for c in comps:
        for cn, exprs, energy in c._flows.values():
            for i in range(len(cn.flows)):
                declared[(id(cn), i)] = None if exprs is None else exprs[i]
                if isinstance(energy, list):
                    energy_flow[(id(cn), i)] = energy[i]
                elif energy and exprs is not None:
                    energy_flow[(id(cn), i)] = exprs[i]
    extra = defaultdict(list)            # (id(cn), i) -> added terms (relation flows)
    for r in rels:
        phi = r["phi"]
        phs = [r_cn.potential_syms[i] for r_cn, i in r["used"]]
        if not phs or r["role"] == "dropped":
            continue
        Jp = ca.jacobian(phi, ca.vertcat(*phs))
        if r["role"] == "constraint":
            lam = lam_of.get(id(r))
            if lam is None:
                continue
            g = -ca.mtimes(Jp.T, lam)
            for k, (cn, i) in enumerate(r["used"]):
                extra[(id(cn), i)].append(g[k])
        elif r["role"] == "definer":
            cn0, i0 = r["conn"]
            root = r["root"]
            others = [cn.flow_syms[i] for cn, i in members[root] if (id(cn), i) != (id(cn0), i0)]
            own = declared.get((id(cn0), i0))
            lam = (sum(others, ca.SX(0)) + (own if own is not None else 0)) / r["a"]
            for k, (cn, i) in enumerate(r["used"]):
                extra[(id(cn), i)].append(-lam * Jp[0, k])
    prim = {(id(cn), i): root for root, (c, cn, i) in primary.items()}
    sec = {(id(cn), i): lam for (c, cn, i, e, root, name), lam in zip(secondary, sec_lam)}
    unknown = set()
    for root, lst in members.items():
        for cn, i in lst:
            key = (id(cn), i)
            ph = cn.flow_syms[i]
            if key in prim:
                others = [m.flow_syms[j] for m, j in lst if (id(m), j) != key]
                val = -sum(others, ca.SX(0))
            else:
                d = declared.get(key, ca.SX(0))
                if d is None and key in declared:
                    unknown.add(ph.element_hash())
                    val = _UNKNOWN
                else:
                    val = d if d is not None else ca.SX(0)
                if key in sec:
                    val = val + sec[key]
            for t in extra.get(key, []):
                val = val + t
            S.set(ph, val)
    S.resolve(f"model '{model.name}'")
    derivatives()

    # balance of flows at general nodes
    rel_roots = {r.get("root") for r in rels}
    groots = [root for root in members if root not in defined_roots and root not in rel_roots]
    bals = S.apply([sum((cn.flow_syms[i] for cn, i in members[root]), ca.SX(0))
                    for root in groots])
    for root, bal in zip(groots, bals):
        lst = members[root]
        if ca.depends_on(bal, _UNKNOWN):
            raise ModelError(f"model '{model.name}': node {node_name(root)}: a contact force acts "
                             "at a node without inertia; connect the contact element to a mass "
                             "or an inertia")
        if _structurally_zero(bal):
            P.append(f"node {', '.join(cn.path for cn, _ in lst)}: nothing determines its "
                     f"{lst[0][0].potentials[lst[0][1]]} (no component defines it and no flow "
                     "acts on it); connect it to a component that does (a mass, a fixed point, "
                     "a ground) or remove it")
            continue
        model.equation(bal, name=f"node {node_name(root)}")
        origin[f"node {node_name(root)}"] = origin[node_name(root)] = _node_origin(lst)

    # ------------------------------------------------------------------ mechanics
    coords = ca.vertcat(*[co["sym"] for co in model.coords]) if model.coords else ca.SX(0, 1)
    fs, vals = [], []
    allV = S.apply([ca.vertcat(*c._V) if c._V else ca.SX(0, 1) for c in comps])
    allT = S.apply([ca.vertcat(*c._T) if c._T else ca.SX(0, 1) for c in comps])
    gf_all = S.apply([Q for c in comps for Q, _ in c._gforces])
    gf_k = 0
    # components whose potential energy depends on a general variable (a flange at a node
    # without inertia) act through virtual work instead
    gvec = ca.vertcat(*general) if general else ca.SX(0, 1)
    Vall = ca.vertcat(*[ca.sum1(v) if v.numel() else ca.SX(0) for v in allV])
    gen_rows = set(ca.jacobian(Vall, gvec).sparsity().row()) if gvec.numel() else set()
    Tall = ca.vertcat(*[ca.sum1(t) if t.numel() else ca.SX(0) for t in allT])
    gen_T = set()
    if gvec.numel():
        # an energy on a node nothing positions: it depends on the node's potential or only
        # on its rate (a free point mass)
        for ic, t in enumerate(ca.vertsplit(Tall)):
            if any(_info(x) is not None and _info(x).kind in ("variable", "vrate")
                   for x in ca.symvar(t)):
                gen_T.add(ic)
    for ic, (c, Vc, Tc) in enumerate(zip(comps, allV, allT)):
        V = ca.vertsplit(Vc) if Vc.numel() else []
        use_energy = ic not in gen_rows
        for v in V if use_energy else []:
            model.potential_energy(v)
        for T in ca.vertsplit(Tc) if Tc.numel() else []:
            if ic in gen_T:
                P.append(_unsupported(c, general_roots, root_of))
                continue
            model.kinetic_energy(T)
        for cn in c._connectors:
            for i in range(len(cn.flows)):
                key = (id(cn), i)
                d = declared.get(key)
                if d is None:
                    continue
                if key in energy_flow and use_energy:
                    d = d - energy_flow[key]
                    if _structurally_zero(d) or ca.simplify(d).is_zero():
                        continue
                fs.append(d)
                vals.append(node_val[root_of(cn, i)])
        for Q, cph in c._gforces:
            Qs = gf_all[gf_k]
            gf_k += 1
            q = S.get(cph) if S.has(cph) else None
            if q is None or not q.is_symbolic():
                P.append(f"{c.path}: generalized force on {cph}, which is not a coordinate of "
                         "this component")
                continue
            model.generalized_force(Qs, q)
    if fs and coords.numel():
        f_all, v_all = S.apply(fs), S.apply(vals)
        J = ca.jacobian(ca.vertcat(*v_all), coords)
        Q = -ca.mtimes(J.T, ca.vertcat(*f_all))
        for j, co in enumerate(model.coords):
            if not Q[j].is_zero():
                model.generalized_force(Q[j], co["sym"])

    # ------------------------------------------------------------------ the rest
    eqs = [(f"{c.path}.{name}", e) for c in comps for name, e in c._equations]
    for (name, _), e in zip(eqs, S.apply([e for _, e in eqs])):
        model.equation(e, name=name)
    origin.update((f"{c.path}.{name}", _comp_origin(c)) for c in comps for name, _ in c._equations)
    hols = [(f"{c.path}.{name}", e) for c in comps for name, e in c._holonomic]
    for (name, _), e in zip(hols, S.apply([e for _, e in hols])):
        model.holonomic(e, name=name)
    for c in comps:
        for kw in c._contacts:
            add_contact(model, c, kw, lambda key, e: S.apply([e])[0], coords, P)
    # outputs: every potential and flow, and the components' own
    unavailable = {}
    taken = set(model._names)
    outs = []

    def out(name, e):
        if name not in taken:
            taken.add(name)
            outs.append((name, e))

    for name, e in elim_outputs:
        out(name, e)
    for c in comps:
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
    out_vals = S.apply([e for _, e in outs])
    unk_rows, ind_rows = set(), set()
    if out_vals:
        Y = ca.vertcat(*out_vals)
        unk_rows = set(ca.jacobian(Y, _UNKNOWN).sparsity().row())
        ind_rows = set(ca.jacobian(Y, _INDET).sparsity().row())
    for k, ((name, _), e) in enumerate(zip(outs, out_vals)):
        if k in unk_rows:
            unavailable[name] = "it is (or depends on) a contact force"
        elif k in ind_rows:
            unavailable[name] = ("rigid bodies leave it undetermined: it is shared among "
                                 "redundant joints (a loop that closes by itself)")
        else:
            model.output(name, e)
    model._unavailable_outputs = unavailable
    if P:
        raise ModelError([f"model '{model.name}': {p}" for p in P])
    # hand-written parts of the model may use component symbols too
    if S.keys:
        model.substitute(*S.columns())
    t_end = time.perf_counter()
    n_pot = sum(len(cn.potentials) for cn in conns)
    model.flatten_stats = dict(
        components=len(comps), connectors=len(conns), potentials=n_pot, nodes=len(members),
        general_nodes=n_general_nodes, aliases_eliminated=n_pot - n_general_nodes,
        alias_elimination=t_alias - t_start, flatten=t_end - t_start)


def _unsupported(c, general_roots, root_of):
    """Message for an inertia whose connectors no component positions."""
    free = [cn for cn in c._connectors
            if any(root_of(cn, i) in general_roots for i in range(len(cn.potentials)))]
    hint = getattr(free[0], "support_hint", None) if free else None
    if not hint:
        return (f"{c.path}: kinetic energy depends on a general variable (a node without "
                "inertia); connect the inertia to a defined node")
    return (f"{c.path}: {', '.join(repr(cn.path) for cn in free)} "
            f"{'is' if len(free) == 1 else 'are'} not positioned by anything "
            f"(no joint, fixed frame or defining component reaches it); {hint}")


def _structurally_zero(e):
    return e.is_zero() or (e.nnz() == 0)


def _eliminated_forces(comps, cons, secondary, crels, sec_lam, lam_of, kept, coord_decl, pot,
                       gen_h, S):
    """Multipliers of the eliminated constraints as expressions (see
    :func:`.eliminate.reaction_multipliers`), put where the flows read them."""
    elim = [(con["phi"], con["coord"]) for con in cons if con["role"] == "eliminated"]
    T, V, vw, gf = [], [], [], []
    for c in comps:
        use_energy = not any(_hashes(pot(v)) & gen_h for v in c._V)
        T.extend(c._T)
        if use_energy:
            V.extend(c._V)
        for cn, exprs, energy in c._flows.values():
            if exprs is None:
                continue
            for i, f in enumerate(exprs):
                if use_energy and energy is True:
                    continue
                if use_energy and isinstance(energy, list):
                    f = f - energy[i]
                vw.append((f, cn.potential_syms[i]))
        gf.extend((Q, ph) for Q, ph in c._gforces)
    lam = reaction_multipliers(elim, kept, [d[2] for d in coord_decl], T, V, vw, gf, pot, TIME)
    # a contact acting on an eliminated coordinate adds a force the Lagrangian does not see
    ce = ca.vertcat(*[cph for _, cph in elim])
    touched = any(ca.depends_on(pot(ca.SX(kw["gap"]) if not isinstance(kw["gap"], ca.SX)
                                    else kw["gap"]), ce)
                  for c in comps for kw in c._contacts)
    # a redundant joint (a loop that closes by itself) shares the force of the joints on
    # its coordinates in a way rigid bodies leave undetermined
    red = [pot(con["phi"]) for con in cons if con["role"] == "redundant"]
    red = ca.vertcat(*red) if red else ca.SX(0, 1)
    k = 0
    for j, con in enumerate(cons):
        if con["role"] != "eliminated":
            continue
        indet = red.numel() and ca.depends_on(red, con["coord"])
        val = _UNKNOWN if touched else (_INDET if indet else lam[k])
        k += 1
        if j < len(secondary):
            sec_lam[j] = val
        else:
            lam_of[id(crels[j - len(secondary)])] = ca.vertcat(val)
