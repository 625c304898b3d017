r"""Redundant constraints by name: which rows of ``C = [G; A]`` are dependent, and when.

At a sample where the constraint matrix ``C`` (holonomic ``G`` over nonholonomic ``A``,
``r`` rows) has numerical rank ``rho < r`` (singular values below ``tol`` times the
largest), its left null space ``N`` (``C^T N = 0``, ``r - rho`` columns) holds the
dependencies. A constraint takes part in one exactly when its row of ``N`` is nonzero:
those are the rows any one of which could be dropped without losing rank. Each column of
``N``, brought to reduced echelon form, is one relation ``sum_i a_i C_i = 0``.

Consecutive samples with the same rank and the same dependent set are merged into one
interval, so a constraint written twice gives one record for the whole run and a branch
point (seed 004, the Darboux square) one record at its instant.
"""
import numpy as np

__all__ = ["RankDrop", "row_labels", "constraint_ranks", "rank_drop_records", "merge",
           "records"]

TOL = 1e-9          # relative singular-value threshold (as System.constraint_rank)
SUPPORT = 1e-7      # |row of N| above which a constraint is counted as dependent


class RankDrop:
    """One interval of constant rank deficiency.

    Attributes
    ----------
    t_start, t_end : float
        First and last output time of the interval (equal for an isolated instant).
    samples : int
        Output samples in the interval.
    rank, rows : int
        Numerical rank of ``C`` and its number of rows.
    dependent : tuple of str
        Constraints (rows ``name`` or ``name[i]``) that take part in a dependency.
    relations : list of dict
        ``{name: a_i}`` with ``sum_i a_i C_i = 0`` at ``t_start`` (reduced echelon form: one
        coefficient 1 per relation).
    """

    def __init__(self, t_start, t_end, samples, rank, rows, dependent, relations):
        self.t_start, self.t_end = float(t_start), float(t_end)
        self.samples, self.rank, self.rows = int(samples), int(rank), int(rows)
        self.dependent = tuple(dependent)
        self.relations = [dict(r) for r in relations]

    def as_dict(self):
        return dict(t_start=self.t_start, t_end=self.t_end, samples=self.samples,
                    rank=self.rank, rows=self.rows, dependent=list(self.dependent),
                    relations=self.relations)

    def __repr__(self):
        when = (f"t={self.t_start:.6g}" if self.t_start == self.t_end
                else f"t={self.t_start:.6g}..{self.t_end:.6g}")
        return (f"RankDrop({when}, rank {self.rank} of {self.rows}, dependent: "
                f"{', '.join(self.dependent)})")


def row_labels(system):
    """Names of the rows of ``C``: the constraint name, ``name[i]`` for multi-row ones."""
    out = []
    for name, rows in list(system.holonomic) + list(system.nonholonomic):
        out.extend([name] if rows == 1 else [f"{name}[{i}]" for i in range(rows)])
    return out


def constraint_ranks(C, tol=TOL):
    """Numerical ranks of a stack of constraint matrices ``C`` (N, r, n_u)."""
    sv = np.linalg.svd(C, compute_uv=False)
    return np.sum(sv > tol * np.maximum(sv[:, :1], 1e-300), axis=1)


def _relations(Nn, labels):
    """Reduced row echelon form of the null basis (columns of ``Nn``) as name -> coef."""
    A = Nn.T.copy()                       # d x r, rows span the relations
    d, r = A.shape
    piv_row = 0
    for col in range(r):
        if piv_row == d:
            break
        p = piv_row + int(np.argmax(np.abs(A[piv_row:, col])))
        if abs(A[p, col]) < SUPPORT:
            continue
        A[[piv_row, p]] = A[[p, piv_row]]
        A[piv_row] /= A[piv_row, col]
        for i in range(d):
            if i != piv_row:
                A[i] -= A[i, col] * A[piv_row]
        piv_row += 1
    return [{labels[j]: float(a[j]) for j in range(r) if abs(a[j]) > SUPPORT} for a in A]


def rank_drop_records(C, ts, labels, rank=None, tol=TOL, limit=100):
    """:class:`RankDrop` intervals of a stack ``C`` (N, r, n_u) sampled at ``ts``."""
    if rank is None:
        rank = constraint_ranks(C, tol)
    r = C.shape[1]
    idx = np.flatnonzero(rank < r)
    if not idx.size:
        return []
    U = np.linalg.svd(C[idx], full_matrices=True)[0]              # batched, (n, r, r)
    null_cols = np.arange(r)[None, :] >= rank[idx][:, None]       # left null space columns
    weight = np.sqrt(np.einsum("nij,nj->ni", U ** 2, null_cols.astype(float)))
    dep = weight > SUPPORT                                        # (n, r) dependent rows
    # a new interval where the sample is not the next one, or the rank or the set changes
    new = np.ones(idx.size, bool)
    new[1:] = ((np.diff(idx) != 1) | (np.diff(rank[idx]) != 0)
               | np.any(dep[1:] != dep[:-1], axis=1))
    starts = np.flatnonzero(new)[:limit]
    ends = np.append(np.flatnonzero(new)[1:], idx.size)[:starts.size] - 1
    out = []
    for a, b in zip(starts, ends):
        n = idx[a]
        out.append(RankDrop(ts[n], ts[idx[b]], b - a + 1, rank[n], r,
                            [lab for lab, d in zip(labels, dep[a]) if d],
                            _relations(U[a][:, int(rank[n]):], labels)))
    return out


def merge(a, b):
    """Join the interval dicts of two chunks of one run (``b`` starts where ``a`` ends:
    an interval of ``a`` ending on ``b``'s first sample continues there)."""
    if a and b and a[-1]["t_end"] == b[0]["t_start"] and a[-1]["rank"] == b[0]["rank"] \
            and a[-1]["dependent"] == b[0]["dependent"]:
        joined = dict(a[-1], t_end=b[0]["t_end"],
                      samples=a[-1]["samples"] + b[0]["samples"] - 1)
        return a[:-1] + [joined] + b[1:]
    return a + b


def records(stats):
    """The :class:`RankDrop` list stored in ``Result.stats["rank_drop_constraints"]``."""
    return [RankDrop(d["t_start"], d["t_end"], d["samples"], d["rank"], d["rows"],
                     d["dependent"], d["relations"])
            for d in stats.get("rank_drop_constraints", [])]
