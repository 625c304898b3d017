"""The stiffness test at the initial state: BDF/Newton where Adams would crawl.

A smooth run starts with cvodes' Adams method and functional iteration
(:data:`mechdae.simulate.smooth.ADAMS`): no Jacobian, cheap steps, but explicit in effect.
Its steps are held to ``h |Re lam| <~ 1`` by the fastest decaying mode ``lam`` of the
Jacobian ``J = df/dx`` of the right-hand side, whatever the accuracy asks: a run of
duration ``T`` takes at least ``|Re lam| T`` steps (an RC ladder of 4,000 components,
``RC = 1 ms``: ``lam ~ -4/RC``, 4,700 Adams steps for 1 s, where BDF/Newton takes 330).
BDF is stable at any step on decaying modes.

The test: the eigenvalues of ``J`` at the initial state; the run is *stiff* when the
fastest decay rate times the duration, ``-min Re lam * T``, exceeds :func:`threshold`:
:data:`STIFF_RATE` (Adams would need about that many steps for stability alone) for a
Jacobian of few colours, more where each of BDF's Jacobians costs many evaluations (BDF
computes one about every 8 steps, one evaluation per colour; Adams takes about 2
evaluations per step: a chain of 40 four-bar loops, 162 colours, Baumgarte gains of 100/s
over 20 s, ran 12 s under Adams and 33 s under BDF). Modes on the imaginary axis
(undamped oscillation) do not count: Adams resolves them more cheaply than BDF and both
must, when they are excited.

The Jacobian comes from forward differences over the column groups of a colouring of its
sparsity, which CasADi knows from the symbolic graph (3 evaluations for an RC ladder of
any length, ``nx + 1`` for a dense mechanism); its eigenvalues dense up to
:data:`DENSE_EIG` states, else ARPACK's few with the smallest real part (a loose tolerance:
only their order of magnitude matters).
"""
import numpy as np

from ..codegen import map_call, once

__all__ = ["STIFF_RATE", "DENSE_EIG", "decay_rate", "jacobian", "colours", "threshold"]

STIFF_RATE = 1000.0
DENSE_EIG = 400


def threshold(n_colours):
    """The scaled decay rate ``-min Re lam * T`` past which a run is stiff, for a Jacobian
    of ``n_colours`` colours: :data:`STIFF_RATE` times the cost of BDF's evaluations per
    step relative to a Jacobian of 3 colours, ``(1.2 + n / 8) / 1.6`` (at least 1)."""
    return STIFF_RATE * max(1.0, (1.2 + n_colours / 8.0) / 1.6)


def colours(f, cache=None):
    """The number of colours of the sparsity of ``df/dx`` (evaluations per Jacobian)."""
    return len((once(cache, f"jac-colours {f.name()}", lambda: _groups(f))
                if cache is not None else _groups(f))[1])


def _groups(f):
    """``(sparsity, colours)`` of ``df/dx``: the CasADi sparsity of the Jacobian and, per
    colour, the columns (states) perturbed together (no two share a row)."""
    sp = f.sparsity_jac(0, 0)
    col = sp.uni_coloring()
    colours = [np.asarray(col.row()[col.colind()[c]:col.colind()[c + 1]], dtype=np.intp)
               for c in range(col.size2())]
    return sp, colours


def jacobian(f, x0, tau, P, cache=None):
    """``df/dx`` of ``f(x, tau, P)`` at ``x0`` by forward differences, one evaluation per
    colour of its sparsity (all in one mapped call), as a ``scipy.sparse`` CSC matrix.

    Parameters
    ----------
    f : casadi.Function
        ``f(x, tau, P) -> dx/dtau`` (:func:`mechdae.simulate.smooth.ode_function`).
    x0 : array (nx,)
    tau : float
    P : array
        The parameter vector of :func:`mechdae.simulate.smooth.integrator_dae`.
    cache : dict, optional
        Where the sparsity and its colouring are kept (per System and inputs).
    """
    import scipy.sparse as sps
    sp, colours = (once(cache, f"jac-colours {f.name()}", lambda: _groups(f))
                   if cache is not None else _groups(f))
    x0 = np.asarray(x0, float).ravel()
    nx = x0.size
    h = 1e-7 * np.maximum(1.0, np.abs(x0))
    nc = len(colours)
    X = np.repeat(x0[:, None], nc + 1, axis=1)
    for c, cols in enumerate(colours):
        X[cols, c + 1] += h[cols]
    Y = map_call(f, nc + 1, [X, np.full((1, nc + 1), float(tau)), np.asarray(P, float)],
                 (2,))[0]
    rows = np.asarray(sp.row(), dtype=np.intp)
    colind = np.asarray(sp.colind(), dtype=np.intp)
    which = np.empty(nx, dtype=np.intp)
    for c, cols in enumerate(colours):
        which[cols] = c
    cols = np.repeat(np.arange(nx), np.diff(colind))
    vals = (Y[rows, which[cols] + 1] - Y[rows, 0]) / h[cols]
    return sps.csc_matrix((vals, rows, colind), shape=(nx, nx))


def decay_rate(J):
    """The fastest decay rate ``-min Re lam`` of the eigenvalues of ``J`` (0 when none
    decays); dense eigenvalues up to :data:`DENSE_EIG` rows, else ARPACK's smallest real
    parts (NaN when it does not converge: the test then leaves Adams in place)."""
    n = J.shape[0]
    if n == 0:
        return 0.0
    if n <= DENSE_EIG:
        lam = np.linalg.eigvals(J.toarray())
    else:
        import scipy.sparse.linalg as spl
        try:
            lam = spl.eigs(J, k=2, which="SR", tol=1e-3, maxiter=50 * n,
                           return_eigenvectors=False)
        except spl.ArpackNoConvergence as exc:
            lam = exc.eigenvalues
            if not len(lam):
                return float("nan")
    return float(max(0.0, -np.min(lam.real)))
