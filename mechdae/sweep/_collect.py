"""The client's side of a sweep: the columns of finished tasks, kept as arrays.

A task returns its runs' output columns (numpy float arrays where every value is a float,
lists otherwise: strings, booleans, a float column with a string in it). The client keeps
the pieces of each column as they come, never a row object nor a DataFrame per task, and
joins them once: :func:`join` gives the same column (values and dtype) as one DataFrame
built from all the rows' values at once.
"""
import itertools

import numpy as np

__all__ = ["Columns", "join"]


def join(pieces):
    """One column from its pieces: a float array when every piece is one, else a list
    (pandas infers the dtype from the values, as from the rows)."""
    if all(isinstance(p, np.ndarray) and p.dtype == np.float64 for p in pieces):
        return np.concatenate(pieces) if pieces else np.zeros(0)
    if all(isinstance(p, np.ndarray) and p.dtype == pieces[0].dtype for p in pieces):
        return np.concatenate(pieces)
    return list(itertools.chain.from_iterable(pieces))


class Columns:
    """Pieces of the columns ``run``, inputs and outputs of the tasks taken so far.

    Parameters
    ----------
    table : RunTable
        Where the input columns of a run come from (taken once, at :meth:`frame`).
    """

    def __init__(self, table):
        self.table = table
        self.idx = []
        self.out = {}
        self.n = 0

    def add(self, idx, out):
        """The output columns ``out`` of runs ``idx``."""
        idx = np.asarray(idx)
        if not idx.size:
            return
        if not self.out:
            self.out = {k: [] for k in out}
        for k, v in out.items():
            self.out[k].append(v)
        self.idx.append(idx)
        self.n += idx.size

    def data(self):
        """``{column: values}``: ``run``, the input columns, then the outputs."""
        idx = np.concatenate(self.idx) if self.idx else np.zeros(0, int)
        cols = {"run": idx}
        cols.update({c: v[idx] for c, v in self.table.columns.items()})
        cols.update({k: join(p) for k, p in self.out.items()})
        return cols

    def frame(self, pd):
        """The DataFrame of the rows taken (unsorted), or None when there is none."""
        return pd.DataFrame(self.data()) if self.n else None

    def clear(self):
        self.idx, self.out, self.n = [], {}, 0
