"""Small graph and substitution helpers of the flattening (union-find, placeholder map)."""
import casadi as ca

from ..errors import ModelError

__all__ = ["UNKNOWN", "INDETERMINATE", "UnionFind", "Subst", "hashes"]

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


def hashes(e):
    """Element hashes of the free symbols of ``e``."""
    return {s.element_hash() for s in ca.symvar(e)} if e.numel() else set()


class Subst:
    """Placeholder -> value map, resolved to a fixpoint (values may use placeholders)."""

    def __init__(self):
        self.keys, self.vals, self.index = [], [], {}

    def set(self, ph, val):
        h = ph.element_hash()
        if h in self.index:
            self.vals[self.index[h]] = val
        else:
            self.index[h] = len(self.keys)
            self.keys.append(ph)
            self.vals.append(val)

    def has(self, ph):
        return ph.element_hash() in self.index

    def get(self, ph):
        return self.vals[self.index[ph.element_hash()]]

    def resolve(self, what):
        """Substitute the map into itself until no value uses a key (cycle: ModelError)."""
        if not self.keys:
            return
        K = ca.vertcat(*self.keys)
        for _ in range(len(self.keys) + 1):
            V = ca.vertcat(*self.vals)
            if not ca.depends_on(V, K):
                return
            self.vals = ca.substitute(self.vals, self.keys, self.vals)
        bad = [str(k) for k, v in zip(self.keys, self.vals) if ca.depends_on(v, K)]
        raise ModelError(f"{what}: circular definition of {', '.join(bad[:8])}; a potential "
                         "or flow is defined in terms of itself (a loop of definitions: replace "
                         "one definition by a relation)")

    def apply(self, exprs):
        exprs = list(exprs)
        if not exprs or not self.keys:
            return exprs
        return ca.substitute(exprs, self.keys, self.vals)
