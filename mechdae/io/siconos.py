"""Readers for the Siconos numerics ``.dat`` text formats.

Siconos writes its test problems as whitespace-separated text read back with C ``fscanf``
(``NM_write_in_file``, ``SBM_write_in_file``, ``CSparseMatrix_print_in_file``). Three
problem layouts are read here:

* LCP (``linearComplementarity_newFromFile``)::

      n  <NumericsMatrix M>  q[0..n-1]

  find ``z >= 0`` with ``w = M z + q >= 0`` and ``z^T w = 0``.
* local friction contact (``frictionContact_newFromFile``)::

      d  nc  <NumericsMatrix W>  q[0..d*nc-1]  mu[0..nc-1]  [optional trailing 0/1]

  with ``u = W r + q``, unknowns stacked contact by contact, normal first.
* global friction contact (``globalFrictionContact_newFromFile``)::

      d  nc  <NumericsMatrix M>  <NumericsMatrix H>  q[M.size0]  b[H.size1]  mu[nc]

  with ``M v = q + H r`` and ``u = H^T v + b``.

A NumericsMatrix is ``storageType size0 size1`` followed by

* ``0`` dense: ``size0 size1`` again, then ``size0*size1`` numbers in **column-major**
  order (each printed line of a square matrix is a *column*; reading it row by row
  transposes the matrix);
* ``1`` sparse block (SBM): ``nbblocks blocknumber0 blocknumber1``, cumulative block
  row sizes, cumulative block column sizes, ``filled1 filled2``, the block-row pointer
  ``index1_data[filled1]``, the block-column indices ``index2_data[filled2]``, then per
  block its number and its values, column-major within the block;
* ``2`` CSparse text dump: the origin (1 triplet, 2 CSC, 3 CSR, 4 half triplet), a
  ``CSparse Version`` line, a ``m-by-n, nzmax: K nnz: K[, 1-norm: x]`` header (prefixed
  by ``triplet:`` or ``csr:``), then the entries. Values are printed with ``%g`` (six
  significant digits).

Example
-------
>>> from mechdae.io.siconos import read_lcp
>>> M, q = read_lcp("lcp_deudeu.dat")            # doctest: +SKIP
>>> M
array([[2., 1.],
       [1., 2.]])
"""
import io
import os
from collections import namedtuple

import numpy as np

__all__ = ["FCProblem", "GlobalFCProblem", "SiconosTokens", "read_numerics_matrix",
           "read_lcp", "read_fc", "read_global_fc"]

FCProblem = namedtuple("FCProblem", "d nc W q mu")
FCProblem.__doc__ = """Local friction-contact problem ``u = W r + q``, Coulomb cones of
friction ``mu`` (one per contact), contact dimension ``d`` (2 or 3), ``nc`` contacts.
``W`` is a dense (d*nc, d*nc) array or a scipy.sparse matrix (``sparse=True``)."""

GlobalFCProblem = namedtuple("GlobalFCProblem", "d nc M H q b mu")
GlobalFCProblem.__doc__ = """Global friction-contact problem ``M v = q + H r``,
``u = H^T v + b``; ``H`` is (ndof, d*nc)."""


class SiconosTokens:
    """Whitespace token stream over the text of one file (what C ``fscanf`` sees).

    Parameters
    ----------
    text : str
        Whole file content.
    name : str
        File name used in error messages.
    """

    def __init__(self, text, name="<text>"):
        self.tokens = text.split()
        self.pos = 0
        self.name = name

    # -- errors ------------------------------------------------------------------------
    def error(self, what):
        return ValueError(f"{self.name}: malformed Siconos file: {what} "
                          f"(at token {self.pos} of {len(self.tokens)})")

    # -- primitive reads ---------------------------------------------------------------
    def remaining(self):
        return len(self.tokens) - self.pos

    def next(self, what="a value"):
        if self.pos >= len(self.tokens):
            raise self.error(f"unexpected end of file while reading {what}")
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def next_int(self, what="an integer"):
        tok = self.next(what)
        try:
            return int(tok.rstrip(","))
        except ValueError:
            raise self.error(f"expected {what}, found {tok!r}") from None

    def next_float(self, what="a number"):
        tok = self.next(what)
        try:
            return float(tok)
        except ValueError:
            raise self.error(f"expected {what}, found {tok!r}") from None

    def ints(self, k, what="integers"):
        return np.array([self.next_int(what) for _ in range(k)], dtype=np.int64)

    def floats(self, k, what="numbers"):
        """The next ``k`` tokens as a float64 array."""
        if k < 0:
            raise self.error(f"negative count {k} for {what}")
        if self.pos + k > len(self.tokens):
            raise self.error(f"unexpected end of file: {what} needs {k} numbers, "
                             f"only {self.remaining()} tokens left")
        chunk = self.tokens[self.pos:self.pos + k]
        try:
            out = np.array(chunk, dtype=np.float64)
        except ValueError:
            bad = next(t for t in chunk if not _is_float(t))
            raise self.error(f"non-numeric token {bad!r} in {what}") from None
        self.pos += k
        return out

    def expect(self, literal):
        tok = self.next(repr(literal))
        if tok != literal:
            raise self.error(f"expected {literal!r}, found {tok!r}")


def _is_float(tok):
    try:
        float(tok)
        return True
    except ValueError:
        return False


def _as_tokens(tokens_or_stream, name=None):
    if isinstance(tokens_or_stream, SiconosTokens):
        return tokens_or_stream
    if isinstance(tokens_or_stream, os.PathLike) or (
            isinstance(tokens_or_stream, str) and "\n" not in tokens_or_stream
            and os.path.isfile(tokens_or_stream)):
        return _open(tokens_or_stream)
    if isinstance(tokens_or_stream, str):
        return SiconosTokens(tokens_or_stream, name or "<string>")
    if isinstance(tokens_or_stream, io.IOBase) or hasattr(tokens_or_stream, "read"):
        text = tokens_or_stream.read()
        if isinstance(text, bytes):
            text = text.decode("ascii", errors="replace")
        return SiconosTokens(text, name or getattr(tokens_or_stream, "name", "<stream>"))
    raise TypeError("expected a SiconosTokens, a text stream, a string of file content "
                    f"or a path, got {type(tokens_or_stream).__name__}")


def _open(path):
    path = os.fspath(path)
    try:
        with open(path, "r") as f:
            text = f.read()
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a Siconos text file (not ASCII)") from None
    return SiconosTokens(text, path)


# ------------------------------------------------------------------------------------
# NumericsMatrix
# ------------------------------------------------------------------------------------
def read_numerics_matrix(tokens_or_stream, sparse=False):
    """Read one Siconos NumericsMatrix (storage 0 dense, 1 SBM, 2 CSparse text).

    Parameters
    ----------
    tokens_or_stream : SiconosTokens, text stream, or str
        A token stream positioned at the matrix (it is advanced past it), an open text
        file, or the text itself.
    sparse : bool
        Return a ``scipy.sparse.csr_matrix`` instead of a dense array (use it for the
        large CSparse files: 14004^2 dense is 1.6 GB).

    Returns
    -------
    ndarray of shape (size0, size1), float64 (or csr_matrix if ``sparse``)

    Raises
    ------
    ValueError
        Malformed matrix; the message names the file and what is wrong.
    """
    t = _as_tokens(tokens_or_stream)
    storage = t.next_int("the NumericsMatrix storage type")
    m = t.next_int("size0 (rows)")
    n = t.next_int("size1 (columns)")
    if m < 0 or n < 0:
        raise t.error(f"negative matrix size {m}x{n}")
    if storage == 0:
        m2 = t.next_int("dense size0")
        n2 = t.next_int("dense size1")
        if (m2, n2) != (m, n):
            raise t.error(f"dense matrix header says {m}x{n} but sizes repeat as {m2}x{n2}")
        vals = t.floats(m * n, f"dense {m}x{n} matrix")
        A = vals.reshape((n, m)).T.copy()      # column-major on file
        return _sparse(A) if sparse else A
    if storage == 1:
        rows, cols, vals = _read_sbm(t, m, n)
    elif storage == 2:
        rows, cols, vals = _read_csparse(t, m, n)
    else:
        raise t.error(f"unknown NumericsMatrix storage type {storage} (expected 0, 1 or 2)")
    if sparse:
        import scipy.sparse as sp
        return sp.coo_matrix((vals, (rows, cols)), shape=(m, n)).tocsr()
    A = np.zeros((m, n))
    np.add.at(A, (rows, cols), vals)
    return A


def _sparse(A):
    import scipy.sparse as sp
    return sp.csr_matrix(A)


def _read_sbm(t, m, n):
    nbblocks = t.next_int("SBM nbblocks")
    bn0 = t.next_int("SBM blocknumber0")
    bn1 = t.next_int("SBM blocknumber1")
    if nbblocks < 0 or bn0 < 0 or bn1 < 0:
        raise t.error("negative SBM block counts")
    rsz = t.ints(bn0, "SBM blocksize0 (cumulative row offsets)")
    csz = t.ints(bn1, "SBM blocksize1 (cumulative column offsets)")
    if (bn0 and rsz[-1] != m) or (bn1 and csz[-1] != n) or (bn0 == 0 and m) or (bn1 == 0 and n):
        raise t.error(f"SBM block sizes (rows {rsz[-1] if bn0 else 0}, columns "
                      f"{csz[-1] if bn1 else 0}) do not add up to the matrix size {m}x{n}")
    if np.any(np.diff(np.concatenate([[0], rsz])) <= 0) or \
            np.any(np.diff(np.concatenate([[0], csz])) <= 0):
        raise t.error("SBM cumulative block sizes are not increasing")
    filled1 = t.next_int("SBM filled1")
    filled2 = t.next_int("SBM filled2")
    if filled2 != nbblocks or filled1 < 1:
        raise t.error(f"SBM filled2={filled2} differs from nbblocks={nbblocks} "
                      f"(or filled1={filled1} < 1)")
    ptr = t.ints(filled1, "SBM index1_data (block-row pointer)")
    bcol = t.ints(filled2, "SBM index2_data (block-column indices)")
    if ptr[0] != 0 or ptr[-1] != nbblocks or np.any(np.diff(ptr) < 0) or filled1 - 1 > bn0:
        raise t.error("SBM index1_data is not a valid block-row pointer")
    if nbblocks and (bcol.min() < 0 or bcol.max() >= bn1):
        raise t.error("SBM index2_data has a block-column index out of range")
    r0 = np.concatenate([[0], rsz])
    c0 = np.concatenate([[0], csz])
    rows, cols, vals = [], [], []
    for bi in range(filled1 - 1):
        for k in range(ptr[bi], ptr[bi + 1]):
            t.next_int("SBM block number")
            bj = bcol[k]
            nr = r0[bi + 1] - r0[bi]
            nc_ = c0[bj + 1] - c0[bj]
            v = t.floats(nr * nc_, f"SBM block ({bi},{bj})")
            jj, ii = np.divmod(np.arange(nr * nc_), nr)      # column-major in the block
            rows.append(ii + r0[bi])
            cols.append(jj + c0[bj])
            vals.append(v)
    if not rows:
        return np.zeros(0, int), np.zeros(0, int), np.zeros(0)
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)


def _read_csparse(t, m, n):
    origin = t.next_int("CSparse origin (1 triplet, 2 CSC, 3 CSR, 4 half triplet)")
    if origin not in (1, 2, 3, 4):
        raise t.error(f"unknown CSparse origin {origin}")
    t.expect("CSparse")
    # skip the rest of the "CSparse Version ..." line up to the "m-by-n," token
    prev = None
    while True:
        tok = t.next("the CSparse 'm-by-n' header")
        if "-by-" in tok:
            break
        prev = tok
    kind = {"triplet:": "triplet", "csr:": "csr"}.get(prev, "csc")
    try:
        mm, nn = (int(s) for s in tok.rstrip(",").split("-by-"))
    except ValueError:
        raise t.error(f"bad CSparse size header {tok!r}") from None
    if (mm, nn) != (m, n):
        raise t.error(f"CSparse header {mm}-by-{nn} differs from NumericsMatrix size {m}x{n}")
    fields = {}
    while t.remaining() and t.tokens[t.pos] in ("nzmax:", "nnz:", "1-norm:"):
        key = t.next()[:-1]
        fields[key] = t.next()
    try:
        nnz = int(fields.get("nnz", "-1").rstrip(","))
    except ValueError:
        raise t.error(f"bad CSparse nnz {fields.get('nnz')!r}") from None
    toks = t.tokens
    if kind == "triplet":
        if nnz < 0:
            raise t.error("CSparse triplet without nnz")
        p = t.pos
        if p + 4 * nnz > len(toks):
            raise t.error(f"unexpected end of file in {nnz} triplet entries")
        seps = toks[p + 2:p + 4 * nnz:4]
        if any(s != ":" for s in seps):
            raise t.error("triplet entries must read 'i j : x'")
        try:
            rows = np.array(toks[p:p + 4 * nnz:4], dtype=np.int64)
            cols = np.array(toks[p + 1:p + 4 * nnz:4], dtype=np.int64)
            vals = np.array(toks[p + 3:p + 4 * nnz:4], dtype=np.float64)
        except ValueError:
            raise t.error("non-numeric triplet entry") from None
        t.pos = p + 4 * nnz
    else:
        major = n if kind == "csc" else m
        word = "col" if kind == "csc" else "row"
        idx_parts, val_parts, maj_parts = [], [], []
        for j in range(major):
            t.expect(word)
            jj = t.next_int(f"{word} index")
            if jj != j:
                raise t.error(f"expected {word} {j}, found {word} {jj}")
            t.expect(":")
            t.expect("locations")
            a = t.next_int("start location")
            t.expect("to")
            b = t.next_int("end location")
            cnt = max(b - a + 1, 0)
            p = t.pos
            if p + 3 * cnt > len(toks):
                raise t.error(f"unexpected end of file in {word} {j}")
            if any(s != ":" for s in toks[p + 1:p + 3 * cnt:3]):
                raise t.error(f"{word} {j}: entries must read 'i : x'")
            try:
                idx_parts.append(np.array(toks[p:p + 3 * cnt:3], dtype=np.int64))
                val_parts.append(np.array(toks[p + 2:p + 3 * cnt:3], dtype=np.float64))
            except ValueError:
                raise t.error(f"non-numeric entry in {word} {j}") from None
            maj_parts.append(np.full(cnt, j, dtype=np.int64))
            t.pos = p + 3 * cnt
        idx = np.concatenate(idx_parts) if idx_parts else np.zeros(0, np.int64)
        maj = np.concatenate(maj_parts) if maj_parts else np.zeros(0, np.int64)
        vals = np.concatenate(val_parts) if val_parts else np.zeros(0)
        rows, cols = (idx, maj) if kind == "csc" else (maj, idx)
    if rows.size and (rows.min() < 0 or rows.max() >= m or cols.min() < 0 or cols.max() >= n):
        raise t.error(f"CSparse entry index out of range for a {m}x{n} matrix")
    if origin == 4:  # half triplet: symmetric, only one triangle stored
        off = rows != cols
        rows, cols, vals = (np.concatenate([rows, cols[off]]), np.concatenate([cols, rows[off]]),
                            np.concatenate([vals, vals[off]]))
    return rows, cols, vals


# ------------------------------------------------------------------------------------
# problems
# ------------------------------------------------------------------------------------
def _finish(t, allow_trailing=None, hint=""):
    """Check what is left after a problem: LCP files may end with free-text remarks
    (``allow_trailing=None``: ignored, as by Siconos's fscanf reader); friction-contact
    files allow one trailing 0/1 flag after mu."""
    extra = t.remaining()
    if allow_trailing is not None and extra > allow_trailing:
        raise t.error(f"{extra} unexpected trailing tokens (first {t.tokens[t.pos]!r}){hint}")


def read_lcp(path):
    """Read a Siconos LCP file: ``n``, the NumericsMatrix ``M``, then ``q``.

    The LCP is: find ``z >= 0`` with ``w = M z + q >= 0`` and ``z^T w = 0``.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    M : ndarray (n, n), float64, row-major (transposed from the file's column-major)
    q : ndarray (n,), float64

    Raises
    ------
    ValueError
        Malformed file (message names the file and the problem).
    """
    t = _open(path)
    n = t.next_int("the LCP size n")
    if n < 0:
        raise t.error(f"negative LCP size n={n}")
    M = read_numerics_matrix(t)
    if M.shape != (n, n):
        raise t.error(f"LCP size n={n} but M is {M.shape[0]}x{M.shape[1]}")
    q = t.floats(n, f"q (n={n})")
    _finish(t)
    return M, q


def read_fc(path, sparse=False):
    """Read a Siconos local friction-contact file.

    The problem is ``u = W r + q`` with, for each contact ``a`` (``r_a = [r_N, r_T...]``),
    ``r_a`` in the Coulomb cone ``||r_T|| <= mu_a r_N`` and ``u_a + mu_a ||u_T|| e_N`` in
    its dual, orthogonal to ``r_a``.

    Parameters
    ----------
    path : str or path-like
    sparse : bool
        Return ``W`` as ``scipy.sparse.csr_matrix`` (recommended for the CSparse files).

    Returns
    -------
    FCProblem(d, nc, W, q, mu)

    Raises
    ------
    ValueError
        Malformed file.
    """
    t = _open(path)
    d = t.next_int("the contact dimension d")
    nc = t.next_int("the number of contacts nc")
    if d not in (2, 3) or nc < 0:
        raise t.error(f"contact dimension d={d} must be 2 or 3 and nc={nc} >= 0")
    W = read_numerics_matrix(t, sparse=sparse)
    if W.shape != (d * nc, d * nc):
        raise t.error(f"W is {W.shape[0]}x{W.shape[1]}, expected d*nc = {d * nc} square "
                      "(is this a global friction-contact file? use read_global_fc)")
    q = t.floats(d * nc, f"q (d*nc={d * nc})")
    mu = t.floats(nc, f"mu (nc={nc})")
    _finish(t, allow_trailing=1, hint="; is this a global friction-contact file? "
            "use read_global_fc")
    return FCProblem(d, nc, W, q, mu)


def read_global_fc(path, sparse=False):
    """Read a Siconos global friction-contact file.

    The problem is ``M v = q + H r``, ``u = H^T v + b`` with the Coulomb conditions of
    :func:`read_fc` on ``(r, u)`` contact by contact.

    Returns
    -------
    GlobalFCProblem(d, nc, M, H, q, b, mu)
    """
    t = _open(path)
    d = t.next_int("the contact dimension d")
    nc = t.next_int("the number of contacts nc")
    if d not in (2, 3) or nc < 0:
        raise t.error(f"contact dimension d={d} must be 2 or 3 and nc={nc} >= 0")
    M = read_numerics_matrix(t, sparse=sparse)
    H = read_numerics_matrix(t, sparse=sparse)
    if M.shape[0] != M.shape[1] or H.shape != (M.shape[0], d * nc):
        raise t.error(f"M is {M.shape[0]}x{M.shape[1]} and H is {H.shape[0]}x{H.shape[1]}; "
                      f"expected M square and H ndof x d*nc = {M.shape[0]}x{d * nc}")
    q = t.floats(M.shape[0], "q")
    b = t.floats(d * nc, "b")
    mu = t.floats(nc, "mu")
    _finish(t, allow_trailing=1)
    return GlobalFCProblem(d, nc, M, H, q, b, mu)
