"""A component's own equations, evaluated at given values of its symbols.

A component states its physics once, in placeholders (``self.define``, ``self.flow``,
``self.kinetic_energy``, ...). Closed-form passes read that statement here: the
component's equations as one list of expressions of its *slots* -- its parameters, its
coordinates and their first two rates, its connectors' potentials and their first two
rates -- evaluated at values the pass gives (Model symbols, node values).

A class whose equations follow from its declared parameters and its connectors alone
(``_template = True``: no constant of the constructor's arguments other than parameters
enters them, e.g. translational.Spring) is evaluated through one CasADi Function per
class, made from the first instance that builds its equations: every further instance
costs one Function call and never builds its own expressions. Any other component builds
its equations and has its slots substituted (one ``ca.substitute`` call).
"""
import casadi as ca

from ..._symbols import _info, der, is_placeholder
from ..core import TIME

__all__ = ["Equations", "equations_of", "equations_of_all", "structure", "closed_over_slots",
           "definitions_read_potentials", "rest_reads_potentials", "has_other_declarations"]

_TEMPLATES = {}                          # class key -> _Template, or False


def _key(c):
    return (type(c), tuple(ln for ln, _, _ in c._params),
            tuple(d[0] for d in c._coords), tuple(cn.name for cn in c._connectors))


def _rates(c, exprs):
    """Rates and accelerations of ``c``'s definitions ``exprs`` in its placeholders: the
    coordinates move at their rates, time at 1, parameters stay (a definition reads no
    potential)."""
    if not exprs:
        return [], []
    q = [d[1] for d in c._coords]
    qd = [der(p) for p in q]
    qdd = [der(p) for p in qd]
    X = ca.vertcat(TIME, *q)
    E = ca.vertcat(*exprs)
    R = ca.jtimes(E, X, ca.vertcat(1, *qd))
    A = ca.jtimes(R, ca.vertcat(TIME, *q, *qd), ca.vertcat(1, *qd, *qdd))
    return ca.vertsplit(R), ca.vertsplit(A)


def _chain(ph):
    """``[ph, der(ph), der(der(ph))]`` as far as they exist (None where not)."""
    out = [ph]
    for _ in range(2):
        info = _info(out[-1]) if out[-1] is not None else None
        out.append(info.deriv if info is not None and info.deriv is not None and
                   info.deriv.is_symbolic() else None)
    return out


def _slots(c):
    """The placeholders of ``c``'s slots in layout order: ``(placeholders, kinds)`` with
    kinds ``("time",)``, ``("param", i)``, ``("coord", j, order)``, ``("pot", k, i,
    order)``."""
    phs, kinds = [TIME], [("time",)]
    for i, (_, ph, _) in enumerate(c._params):
        phs.append(ph)
        kinds.append(("param", i))
    for j, d in enumerate(c._coords):
        for order, s in enumerate(_chain(d[1])):
            if s is not None:
                phs.append(s)
                kinds.append(("coord", j, order))
    for k, cn in enumerate(c._connectors):
        for i, ph in enumerate(cn.potential_syms):
            for order, s in enumerate(_chain(ph)):
                if s is not None:
                    phs.append(s)
                    kinds.append(("pot", k, i, order))
    return phs, kinds


def _layout(c):
    """``c``'s equations as ``(expressions, layout)``: layout entries ``(part, k, n)``
    with part ``define``/``rate``/``acc``/``flow``/``energy`` (connector index ``k``;
    ``rate``, ``acc``: of the definitions), ``T``, ``V``,
    ``output`` (``k`` its name); ``n`` the number of expressions (0: a flow unknown as
    an expression, a contact force; for ``energy``, -1: the whole flow)."""
    exprs, layout = [], []
    index = {id(cn): k for k, cn in enumerate(c._connectors)}
    for cn, ex in c._defines:
        layout.append(("define", index.get(id(cn)), len(ex)))
        exprs.extend(ex)
    if exprs:
        rates, accs = _rates(c, exprs)
        for part, vals in (("rate", rates), ("acc", accs)):
            for cn, ex in c._defines:
                layout.append((part, index.get(id(cn)), len(ex)))
            exprs.extend(vals)
    for cn, ex, energy in c._flows.values():
        k = index.get(id(cn))
        if ex is None:
            layout.append(("flow", k, 0))
            continue
        layout.append(("flow", k, len(ex)))
        exprs.extend(ex)
        if isinstance(energy, list):
            layout.append(("energy", k, len(energy)))
            exprs.extend(energy)
        elif energy:
            layout.append(("energy", k, -1))
    for part, terms in (("T", c._T), ("V", c._V)):
        layout.extend((part, None, 1) for _ in terms)
        exprs.extend(terms)
    for name, e in c._outputs:
        layout.append(("output", name, 1))
        exprs.append(e)
    return exprs, layout


class _Index:
    """Where each part of a layout sits in the list of values (shared by the instances of
    a template): ``parts[part][k] = (offset, n)`` (flow ``None``: unknown; energy
    ``True``: the whole flow), ``T``, ``V`` offsets, ``outputs`` ``[(name, offset)]``."""

    def __init__(self, layout):
        self.parts = {p: {} for p in ("define", "rate", "acc", "flow", "energy")}
        self.T, self.V, self.outputs = [], [], []
        o = 0
        for part, k, n in layout:
            if part in ("T", "V"):
                getattr(self, part).append(o)
                o += 1
            elif part == "output":
                self.outputs.append((k, o))
                o += 1
            elif (part == "flow" and n == 0) or (part == "energy" and n == -1):
                self.parts[part][k] = None if part == "flow" else True
            else:
                self.parts[part][k] = (o, n)
                o += n


class Equations:
    """A component's equations at given slot values: ``defines`` (with their ``rates``
    and ``accs``) and ``flows`` (connector index -> expressions; a flow None: unknown as
    an expression), ``energy`` (connector index -> the part of the flow its potential
    energy gives, or True: all), ``T``, ``V`` (lists), ``outputs`` ([(local name,
    expression)]). One list of values per instance (the layout's index is shared), so
    that many instances make few Python containers."""
    __slots__ = ("vals", "ix")

    def __init__(self, ix, vals):
        self.ix, self.vals = ix, vals

    def _part(self, part):
        v = self.vals
        return {k: spec if spec is None or spec is True else v[spec[0]:spec[0] + spec[1]]
                for k, spec in self.ix.parts[part].items()}

    defines = property(lambda self: self._part("define"))
    rates = property(lambda self: self._part("rate"))
    accs = property(lambda self: self._part("acc"))
    flows = property(lambda self: self._part("flow"))
    energy = property(lambda self: self._part("energy"))
    T = property(lambda self: [self.vals[o] for o in self.ix.T])
    V = property(lambda self: [self.vals[o] for o in self.ix.V])
    outputs = property(lambda self: [(name, self.vals[o]) for name, o in self.ix.outputs])


class _Template:
    """One class's equations as a CasADi Function of its slots, made from its first
    instance: ``fn``, ``layout`` and its ``ix`` (:class:`_Index`), the slot ``kinds``,
    whether its definitions read potentials (``reads``) and whether its other equations do
    (``rest_reads``), whether every output is a scalar (``scalar``: then many instances
    are evaluated by one call of ``fn.map``), whether it declares more than definitions,
    flows, energies and outputs (``other``: see :func:`has_other_declarations`)."""

    def __init__(self, c, exprs, layout, phs, kinds):
        self.fn = ca.Function(f"eq_{type(c).__name__}", phs, exprs)
        self.layout, self.ix, self.kinds = layout, _Index(layout), kinds
        self.reads = _reads_potentials(c)
        self.rest_reads = _rest_reads_potentials(exprs, layout, phs, kinds)
        self.scalar = all(e.is_scalar() for e in exprs)
        self.other = any(getattr(c, a) for a in _BUILT_OTHER)
        self._maps = {}

    def call(self, vals):
        return self.fn.call(vals) if self.layout else []

    def map(self, n):
        f = self._maps.get(n)
        if f is None:
            f = self._maps[n] = self.fn.map(n)
        return f


def _template(c):
    """The template of ``c``'s class (made from ``c`` if it is the first instance), or None
    where the class has none (not ``_template``, or its equations read more than slots)."""
    if not getattr(type(c), "_template", False):
        return None
    key = c.__dict__.get("_template_key")
    if key is None:
        key = c.__dict__["_template_key"] = _key(c)
    t = _TEMPLATES.get(key)
    if t is None:
        # the first instance of its class: its equations become the class's Function
        exprs, layout = _layout(c)
        phs, kinds = _slots(c)
        t = _TEMPLATES[key] = _Template(c, exprs, layout, phs, kinds) \
            if _closed(exprs, phs) else False
    return t or None


# what _build_equations may declare besides definitions, flows, energies and outputs
_BUILT_OTHER = ("_relations", "_vars", "_speeds", "_kinematics", "_gforces", "_equations",
                "_holonomic", "_contacts")
_OTHER = _BUILT_OTHER + ("_children", "_connections", "_problems")


def has_other_declarations(c):
    """Whether ``c`` declares relations, general variables or equations, declared speeds,
    generalized forces, constraints, contacts, parts or problems (for a class with a
    template whose instance has not built its equations: as its first instance did)."""
    if any(c.__dict__.get(a) for a in _OTHER):
        return True
    t = _template(c) if not c._built else None
    return t is not None and t.other


def structure(c):
    """The layout of ``c``'s equations (from its class's template, or building them)."""
    t = _template(c)
    return t.layout if t is not None else _layout(c)[1]


def equations_of(c, value):
    """``c``'s equations (:class:`Equations`) with each slot at ``value(kind)`` (the kinds
    of :func:`_slots`)."""
    t = _template(c)
    if t is None:
        exprs, layout = _layout(c)
        phs, kinds = _slots(c)
        vals = ca.substitute(exprs, [ca.vertcat(*phs)],
                             [ca.vertcat(*[value(k) for k in kinds])]) if exprs else []
        return Equations(_Index(layout), vals)
    return Equations(t.ix, t.call([value(k) for k in t.kinds]))


def equations_of_all(comps, value, column=None):
    """``{id(c): Equations}`` of ``comps``, each slot at ``value(c, kind)``: the instances
    of one template in one call of its Function mapped over them (the same expressions as
    one call each, at a fraction of the cost), the rest one by one. ``column(cs, kind)``,
    if given, is ``[value(c, kind) for c in cs]`` made faster."""
    column = column or (lambda cs, kind: [value(c, kind) for c in cs])
    out, groups = {}, {}
    for c in comps:
        t = _template(c)
        if t is None:
            out[id(c)] = equations_of(c, lambda kind, c=c: value(c, kind))
        else:
            groups.setdefault(id(t), (t, []))[1].append(c)
    for t, cs in groups.values():
        if len(cs) == 1 or not t.layout or not t.scalar:
            for c in cs:
                out[id(c)] = Equations(t.ix, t.call([value(c, k) for k in t.kinds]))
            continue
        ins = [ca.horzcat(*column(cs, k)) for k in t.kinds]
        cols = [r.elements() for r in t.map(len(cs)).call(ins)]
        for j, c in enumerate(cs):
            out[id(c)] = Equations(t.ix, [col[j] for col in cols])
    return out


def _closed(exprs, phs):
    """Every free symbol of ``exprs`` is a slot (else the class is evaluated per instance)."""
    own = {p.element_hash() for p in phs}
    return all(s.element_hash() in own for e in exprs for s in ca.symvar(e))


def closed_over_slots(c):
    """Whether ``c``'s equations read no placeholder but its own slots (a source's
    expression may read another component's potential: then not)."""
    if _template(c) is not None:
        return True
    exprs, _ = _layout(c)
    if not exprs:
        return True
    own = {p.element_hash() for p in _slots(c)[0]}
    return all(s.element_hash() in own or not is_placeholder(s)
               for s in ca.symvar(ca.vertcat(*[ca.vec(e) for e in exprs])))


def definitions_read_potentials(c):
    """Whether a definition of ``c`` (``self.define``) reads a connector's potential (for
    a class with a template: its first instance's)."""
    t = _template(c)
    if t is not None:
        return t.reads
    return _reads_potentials(c)


def rest_reads_potentials(c):
    """Whether ``c``'s equations other than its definitions read a connector's potential
    (None: not known from a template)."""
    t = _template(c)
    return t.rest_reads if t is not None else None


def _rest_reads_potentials(exprs, layout, phs, kinds):
    """Whether the equations other than the definitions read a potential or one of its
    rates (any ``pot`` slot)."""
    pots = {ph.element_hash() for ph, k in zip(phs, kinds) if k[0] == "pot"}
    rest, o = [], 0
    for part, _, n in layout:
        n = 1 if part in ("T", "V", "output") else max(n, 0)
        if part not in ("define", "rate", "acc"):
            rest.extend(exprs[o:o + n])
        o += n
    return any(s.element_hash() in pots for e in rest for s in ca.symvar(e))


def _reads_potentials(c):
    pots = {ph.element_hash() for cn in c._connectors for ph in cn.potential_syms}
    return any(s.element_hash() in pots for _, ex in c._defines for e in ex
               for s in ca.symvar(e))
