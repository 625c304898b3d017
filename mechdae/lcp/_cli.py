"""mechdae lcp FILE: solve an LCP stored in a text file and print a summary.

Two file formats are read:

* a Siconos LCP ``.dat`` file (``n``, a NumericsMatrix ``M``, ``q``; see
  :mod:`mechdae.io.siconos`), recognised by its second token being a storage type
  followed by the sizes;
* a plain text file: first line ``n``, then ``n`` lines with the rows of ``M``, then one
  line (or ``n`` lines) with ``q``. Lines starting with ``#`` are comments.

Exit code 0 when the LCP is solved, 1 otherwise.
"""
import numpy as np

from . import METHODS, solve


def add_parser(subparsers):
    p = subparsers.add_parser(
        "lcp", help="solve an LCP stored in a text file",
        description=__doc__.split("\n\n")[0] + " Formats: Siconos .dat, or plain text "
        "(first line n, then n rows of M, then q). Exit code 0 when solved, 1 otherwise.")
    p.add_argument("file", help="Siconos .dat LCP file or plain text 'n / M rows / q'")
    p.add_argument("--method", default="lemke", choices=sorted(METHODS),
                   help="solver (default: lemke)")
    p.add_argument("--tol", type=float, default=1e-10, help="residual tolerance (default 1e-10)")
    p.add_argument("--max-iter", type=int, default=None, help="pivot or sweep limit")
    p.add_argument("--omega", type=float, default=1.0, help="PGS relaxation (default 1)")
    p.set_defaults(func=run)
    return p


def read_plain(path):
    """Read the plain format: ``n``, then the n rows of ``M``, then ``q`` (whitespace
    separated; ``#`` starts a comment)."""
    with open(path) as f:
        text = "\n".join(line.split("#", 1)[0] for line in f)
    tokens = text.split()
    if not tokens:
        raise ValueError(f"{path}: empty file (expected n, then M row by row, then q)")
    try:
        n = int(tokens[0])
        vals = np.array(tokens[1:], dtype=np.float64)
    except ValueError:
        raise ValueError(f"{path}: plain LCP format is: n, then n*n entries of M row by "
                         "row, then n entries of q (all numbers)") from None
    if n < 0 or vals.size != n * n + n:
        raise ValueError(f"{path}: n={n} needs {n * n + n} numbers after it "
                         f"(M row by row, then q), found {vals.size}")
    return vals[:n * n].reshape(n, n), vals[n * n:]


def read_any(path):
    """Read ``path`` as a Siconos ``.dat`` LCP if it looks like one, else plain text."""
    from ..io.siconos import read_lcp
    with open(path) as f:
        head = f.read(4096).split()
    siconos = (len(head) >= 4 and head[1] in ("0", "1", "2") and head[0] == head[2] == head[3])
    return read_lcp(path) if siconos else read_plain(path)


def _summary(res, M, q):
    z, w = res.z, res.w
    n = z.shape[0]
    lines = [
        f"status: {res.status}" + (f" ({res.reason})" if res.reason else ""),
        f"method: {res.method}",
        f"iterations: {res.iterations}",
        f"residual: {res.residual:.3e}",
        f"n: {n}",
        f"nonzeros of z: {int(np.count_nonzero(z))}",
    ]
    if n:
        lines += [
            f"min w: {w.min():.6g}",
            f"max |z_i w_i|: {np.abs(z * w).max():.3e}",
            "z[:8]: " + " ".join(f"{v:.6g}" for v in z[:8]) + (" ..." if n > 8 else ""),
        ]
    return "\n".join(lines)


def run(args):
    M, q = read_any(args.file)
    res = solve(M, q, method=args.method, tol=args.tol, max_iter=args.max_iter,
                omega=args.omega)
    print(f"file: {args.file}")
    print(_summary(res, M, q))
    return 0 if res.success else 1
