"""Small graph and substitution helpers of the flattening (union-find, placeholder map)."""
import casadi as ca

from .._symbols import _REGISTRY
from ..errors import ModelError

__all__ = ["UNKNOWN", "INDETERMINATE", "UnionFind", "Subst", "connected", "hashes",
           "lagrange_residual",
           "CONTACT_KEYS", "add_contact"]

UNKNOWN = ca.SX.sym("unknown_flow")   # stands for a flow that is a contact force
INDETERMINATE = ca.SX.sym("indeterminate_flow")   # a force split among redundant joints


class UnionFind:
    """Union-find over hashable keys (path compression)."""
    def __init__(self):
        self.p = {}

    def add(self, k):
        self.p.setdefault(k, k)

    def find(self, k):
        p = self.p
        root = k
        while p[root] != root:
            root = p[root]
        while p[k] != root:
            p[k], k = root, p[k]
        return root

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.p[rb] = ra


def connected(comps, connections):
    """Connectors joined by ``connections`` (union-find over connector ids): ``(groups,
    connector by id)``, each group a list of connectors in the components' order; groups
    None when a connection names a connector of no component in ``comps``."""
    conns = {id(cn): cn for c in comps for cn in c._connectors}
    uf = UnionFind()
    for k in conns:
        uf.add(k)
    for tup in connections:
        if any(id(cn) not in conns for cn in tup):
            return None, conns
        for cn in tup[1:]:
            uf.union(id(tup[0]), id(cn))
    groups = {}
    for k, cn in conns.items():
        groups.setdefault(uf.find(k), []).append(cn)
    return list(groups.values()), conns


def hashes(e):
    """Element hashes of the free symbols of ``e``."""
    return {s.element_hash() for s in ca.symvar(e)} if e.numel() else set()


class Subst:
    """Placeholder -> value map, resolved to a fixpoint (values may use placeholders).

    Keys and values are kept as two SX columns (appended in batches), so that resolving
    and applying the map cost a few CasADi calls, not one per entry.
    """

    def __init__(self):
        self.keys, self.index = [], {}
        self.infos = []                      # registry record of each key (or None)
        self._K, self._V = ca.SX(0, 1), ca.SX(0, 1)
        self._pk, self._pv = [], []          # appended since the columns were built

    def _flush(self):
        if self._pk:
            self._K = ca.vertcat(self._K, *self._pk)
            self._V = ca.vertcat(self._V, *self._pv)
            self._pk, self._pv = [], []

    def set(self, ph, val):
        h = ph.element_hash()
        # dense: a structural zero (a Jacobian entry) would make the value column sparse
        val = val if isinstance(val, ca.SX) else ca.SX(val)
        if val.nnz() != val.numel():
            val = ca.densify(val)
        if h in self.index:
            self._flush()
            self._V[self.index[h]] = val
        else:
            self.index[h] = len(self.keys)
            self.keys.append(ph)
            self.infos.append(_REGISTRY.get(h))
            self._pk.append(ph)
            self._pv.append(val)

    def has(self, ph):
        return ph.element_hash() in self.index

    def get(self, ph):
        self._flush()
        return self._V[self.index[ph.element_hash()]]

    def values(self, idx=None):
        """All values (or those at positions ``idx``) as a list."""
        self._flush()
        V = self._V if idx is None else self._V[idx]
        return ca.vertsplit(V) if V.numel() else []

    @property
    def vals(self):
        return self.values()

    def columns(self):
        """``(keys, values)`` as two SX columns."""
        self._flush()
        return self._K, self._V

    def resolve(self, what):
        """Substitute the map into itself until no value uses a key (cycle: ModelError).

        Values are resolved in dependency order, one level at a time, each level from the
        already resolved values of the levels below: a value used by many others is one
        shared node (resolving by repeated whole-map substitution copies it once per level
        of depth, which makes a chain of n joints O(n^2) in size and its mass matrix
        O(n^3)).
        """
        self._flush()
        K, V = self._K, self._V
        n = K.numel()
        if not n or not ca.depends_on(V, K):
            return
        D = ca.jacobian_sparsity(V, K)          # value i uses key j
        rows, cols = D.get_triplet()
        deps = [[] for _ in range(n)]
        users = [[] for _ in range(n)]
        for i, j in zip(rows, cols):
            deps[i].append(j)
            users[j].append(i)
        left = [len(d) for d in deps]
        level = [i for i in range(n) if not left[i]]
        done = [False] * n
        V = ca.SX(V)
        while level:
            todo = [i for i in level if deps[i]]
            if todo:
                used = sorted({j for i in todo for j in deps[i]})
                V[todo] = ca.substitute([V[todo]], [K[used]], [V[used]])[0]
            nxt = []
            for i in level:
                done[i] = True
                for u in users[i]:
                    left[u] -= 1
                    if not left[u]:
                        nxt.append(u)
            level = nxt
        if not all(done):
            bad = [str(self.keys[i]) for i in range(n) if not done[i]]
            raise ModelError(f"{what}: circular definition of {', '.join(bad[:8])}; a potential "
                             "or flow is defined in terms of itself (a loop of definitions: "
                             "replace one definition by a relation)")
        self._V = V

    def apply(self, exprs):
        exprs = list(exprs)
        if not exprs or not self.keys:
            return exprs
        self._flush()
        return ca.substitute(exprs, [self._K], [self._V])


def lagrange_residual(L, q, qd, X, Xd):
    """``d/dt dL/dqd - dL/dq``, the time derivative taken along ``X' = Xd`` (every symbol
    ``dL/dqd`` depends on, with its rate)."""
    p = ca.gradient(L, qd)
    ddt = ca.jtimes(p, X, Xd) if X.numel() else ca.SX.zeros(p.shape)
    return ddt - ca.gradient(L, q)


# the arguments of Model.contact that may be expressions of a component's placeholders
CONTACT_KEYS = ("gap", "tangent", "tangent_velocity", "restitution", "friction",
                "tangential_restitution")


def add_contact(model, comp, kw, value, coords, problems):
    """Add a contact ``kw`` declared by ``comp`` to ``model`` (``Model.contact``), its
    expression arguments replaced by ``value(key, expr)`` (a list becomes one column); a
    gap that no coordinate changes is appended to ``problems`` instead."""
    kw = dict(kw)
    name = f"{comp.path}.{kw.pop('name')}"
    for key in CONTACT_KEYS:
        val = kw.get(key)
        if isinstance(val, ca.SX):
            kw[key] = value(key, val)
        elif isinstance(val, (list, tuple)):
            kw[key] = value(key, ca.vertcat(*val))
    g = kw.get("gap")
    if isinstance(g, ca.SX) and (not coords.numel() or not ca.depends_on(g, coords)):
        problems.append(f"{comp.path}: contact '{name}' has a gap that no coordinate changes "
                        "(its flange is fixed, not on a mass or an inertia); connect it to a "
                        "moving body")
        return
    model.contact(name, **kw)
